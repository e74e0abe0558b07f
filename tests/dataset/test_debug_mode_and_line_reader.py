"""The pipeline's debug mode with its hooks (mindspore.dataset.debug) and dataset.utils.LineReader; the printed lines
are MindSpore 2.10's."""
import numpy as np
import pytest

import mindseed.dataset as ds
from mindseed.dataset import debug
from mindseed.dataset import transforms as T


class _Seen(debug.DebugHook):
    def __init__(self):
        super().__init__()

    def compute(self, *args):
        print("seen", [a.shape for a in args[0]])
        return args


def _double(x):
    return x * 2


@pytest.fixture
def debug_off():
    yield
    ds.config.set_debug_mode(False)


def test_debug_mode_prints_around_every_transform(capsys, debug_off):
    data = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    ds.config.set_debug_mode(True)
    d = ds.NumpySlicesDataset({"a": data, "b": np.array([1, 2])}, shuffle=False)
    d = d.map([_double, T.TypeCast(np.int32)], input_columns=["a"])
    rows = [(r[0].tolist(), int(r[1])) for r in d.create_tuple_iterator(output_numpy=True)]
    assert rows == [([[0, 2, 4], [6, 8, 10]], 1), ([[12, 14, 16], [18, 20, 22]], 2)]
    out = capsys.readouterr().out.splitlines()
    assert out[:6] == ["[Dataset debugger] Print the [INPUT] of the operation [_double].",
                       "Column 0. The dtype is [float32]. The shape is [(2, 3)].",
                       "[Dataset debugger] Print the [OUTPUT] of the operation [_double].",
                       "Column 0. The dtype is [float32]. The shape is [(2, 3)].",
                       "[Dataset debugger] Print the [OUTPUT] of the operation [TypeCast].",
                       "Column 0. The dtype is [int32]. The shape is [(2, 3)]."]
    assert len(out) == 12


def test_print_data_hook_and_a_hook_placed_by_hand(capsys, debug_off):
    data = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    ds.config.set_debug_mode(True, debug_hook_list=[debug.PrintDataHook()])
    d = ds.NumpySlicesDataset({"a": data}, shuffle=False).map([_double, _Seen(), lambda x: x + 1])
    assert [r["a"].tolist() for r in d.create_dict_iterator(output_numpy=True)] == [[[1, 3, 5], [7, 9, 11]]]
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[Dataset debugger] Print the [INPUT] of the operation [_double]."
    assert out[1:3] == ["Column 0. The data is [[[0. 1. 2.]", " [3. 4. 5.]]]."]
    # the hand-placed hook prints no header; the hooks after it name it by its class
    assert out[6] == "seen [(2, 3)]"
    assert out[7] == "[Dataset debugger] Print the [OUTPUT] of the operation [_Seen]."
    assert out[10] == "[Dataset debugger] Print the [OUTPUT] of the operation [<lambda>]."
    ds.config.set_debug_mode(False)
    d = ds.NumpySlicesDataset({"a": data}, shuffle=False).map([_double, _Seen()])
    assert len(list(d)) == 1 and capsys.readouterr().out == "seen [(2, 3)]\n"   # out of debug mode: a callable


def test_set_debug_mode_checks_its_arguments(debug_off):
    with pytest.raises(TypeError, match="debug_mode_flag isn't of type boolean"):
        ds.config.set_debug_mode(1)
    with pytest.raises(TypeError, match="debug_hook_list is not a list"):
        ds.config.set_debug_mode(True, debug_hook_list="x")
    with pytest.raises(TypeError, match="All items in debug_hook_list must be of type DebugHook"):
        ds.config.set_debug_mode(True, debug_hook_list=[1])
    with pytest.raises(TypeError):
        debug.DebugHook()                        # abstract: compute must be defined


def test_line_reader(tmp_path):
    path = tmp_path / "lines.csv"
    path.write_bytes(b"a,b\r\n1,2\n\n3,4")
    reader = ds.LineReader(str(path))
    assert len(reader) == reader.len() == 4
    assert [reader[i] for i in range(1, 5)] == ["a,b", "1,2", "", "3,4"]
    assert reader.readline(2) == "1,2"
    with pytest.raises(ValueError, match=r"Input line is not within the required interval of \[1, 4\]"):
        reader.readline(5)
    with pytest.raises(TypeError, match="Argument line with value 1.0 is not of type"):
        reader.readline(1.0)
    reader.close()
    assert reader.readline(4) == "3,4"                  # reopens
    with pytest.raises(RuntimeError, match="does not exist"):
        ds.LineReader(str(tmp_path / "missing.txt"))
    with pytest.raises(RuntimeError, match="is not a regular file"):
        ds.LineReader(str(tmp_path))
    with pytest.raises(TypeError, match="path: 3 is not string"):
        ds.LineReader(3)


def test_debug_mode_seeds_an_unseeded_pipeline_with_1():
    from mindseed.dataset import config as cfg
    saved = cfg._config.seed
    try:
        cfg._config.seed = None
        assert ds.config.get_seed() == 5489
        ds.config.set_debug_mode(True)
        order = [int(r[0]) for r in ds.NumpySlicesDataset(np.arange(10), shuffle=True).create_tuple_iterator(
            output_numpy=True)]
        assert ds.config.get_seed() == 1 and order == [9, 0, 2, 5, 7, 4, 6, 3, 1, 8]     # MindSpore 2.10's
        ds.config.set_debug_mode(False)
        ds.config.set_seed(1)
        again = [int(r[0]) for r in ds.NumpySlicesDataset(np.arange(10), shuffle=True).create_tuple_iterator(
            output_numpy=True)]
        assert again == order
    finally:
        ds.config.set_debug_mode(False)
        cfg._config.seed = saved
