"""set_context / set_device: the TypeError MindSpore's argument type check raises before anything is set."""
import pytest

import mindseed as ms


@pytest.mark.parametrize("kwargs, message", [
    ({"mode": "graph"}, "The parameter 'mode' must be <class 'int'>, but got <class 'str'>"),
    ({"mode": 1.0}, "The parameter 'mode' must be <class 'int'>, but got <class 'float'>"),
    ({"device_target": 1}, "The parameter 'device_target' must be <class 'str'>, but got <class 'int'>"),
    ({"max_call_depth": "10"}, "The parameter 'max_call_depth' must be <class 'int'>, but got <class 'str'>"),
    ({"save_graphs": "yes"}, "The parameter 'save_graphs' must be (<class 'bool'>, <class 'int'>), but got "
                             "<class 'str'>"),
    ({"jit_config": ["O0"]}, "The parameter 'jit_config' must be <class 'dict'>, but got <class 'list'>"),
])
def test_set_context_wrong_type_is_type_error(kwargs, message):
    before = ms.get_context("mode")
    with pytest.raises(TypeError) as info:
        ms.set_context(**kwargs)
    assert str(info.value) == message
    assert ms.get_context("mode") == before


def test_set_context_none_mode_is_value_error():
    # None skips the type check (as MindSpore's args_type_check), then the value check refuses it
    with pytest.raises(ValueError, match="should be context.GRAPH_MODE"):
        ms.set_context(mode=None)


def test_set_context_bool_mode_counts_as_int():
    ms.set_context(mode=True)
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_debug_level_constants_are_ints():
    assert (ms.context.RELEASE, ms.context.DEBUG) == (0, 1)
    assert ms.get_context("debug_level") == 0
    ms.set_context(debug_level=ms.context.DEBUG)
    assert ms.get_context("debug_level") == 1
    ms.set_context(debug_level=ms.context.RELEASE)


def test_set_device_argument_types():
    with pytest.raises(TypeError, match="The parameter 'device_target' must be <class 'str'>, but got <class 'int'>"):
        ms.set_device(1)
    with pytest.raises(TypeError, match="The parameter 'device_id' must be <class 'int'>, but got <class 'str'>"):
        ms.set_device("CPU", "0")
    with pytest.raises(ValueError, match="The device id must bigger than or equal to 0."):
        ms.set_device("CPU", -1)
    ms.set_device("CPU")
    assert ms.get_context("device_target") == "CPU"


def test_unavailable_device_target_is_runtime_error():
    # MindSpore 2.10 (CPU build): RuntimeError for a device its process lacks, ValueError for an unknown name
    with pytest.raises(RuntimeError, match="device target Ascend"):
        ms.set_context(device_target="Ascend")
    with pytest.raises(RuntimeError, match="Ascend"):
        ms.set_device("Ascend")
    with pytest.raises(ValueError, match="'device_target' must be one of"):
        ms.set_context(device_target="foo")
    assert ms.get_context("device_target") == "CPU"


def test_save_graphs_path_is_made_absolute_and_created(tmp_path, monkeypatch):
    before = ms.get_context("save_graphs_path")
    monkeypatch.chdir(tmp_path)
    try:
        ms.set_context(save_graphs_path="ir_dir/sub")
        assert (tmp_path / "ir_dir" / "sub").is_dir()
        assert ms.get_context("save_graphs_path") == str((tmp_path / "ir_dir" / "sub").resolve())
        with pytest.raises(ValueError, match="'save_graphs_path' or the 'print_file_path' is invalid"):
            ms.set_context(save_graphs_path="  ")
    finally:
        ms.set_context(save_graphs_path=before)
