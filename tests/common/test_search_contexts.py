"""set/get/reset_algo_parameters and set/get_ps_context: MindSpore's defaults, types, ranges and messages."""
import pytest

import mindseed as ms


@pytest.fixture(autouse=True)
def _reset():
    yield
    ms.reset_algo_parameters()
    ms.set_ps_context(enable_ps=False, config_file_path="", enable_ssl=False)


def test_algo_parameters_defaults_set_and_reset():
    assert ms.get_algo_parameters("fully_use_devices") is False
    assert ms.get_algo_parameters("tensor_slice_align_size") == 16
    assert ms.get_algo_parameters("algo_approxi_epsilon") == pytest.approx(0.1, abs=1e-8)
    ms.set_algo_parameters(fully_use_devices=True, tensor_slice_align_size=64, algo_approxi_epsilon=0.5)
    assert ms.get_algo_parameters("fully_use_devices") is True
    assert ms.get_algo_parameters("tensor_slice_align_size") == 64
    assert ms.get_algo_parameters("algo_approxi_epsilon") == 0.5
    ms.reset_algo_parameters()
    assert ms.get_algo_parameters("tensor_slice_align_size") == 16


@pytest.mark.parametrize("kwargs, exc, text", [
    ({"foo": 1}, ValueError, "Set context keyword foo is not recognized"),
    ({"tensor_slice_align_size": 0}, ValueError, r"Align_size must be in \[1, 1024\], but got 0"),
    ({"tensor_slice_align_size": 2000}, ValueError, "but got 2000"),
    ({"algo_approxi_epsilon": 0.0}, ValueError, r"'epsilon' must be in \(0, 1\]"),
    ({"algo_approxi_epsilon": 1}, TypeError, "'algo_approxi_epsilon' must be <class 'float'>"),
    ({"fully_use_devices": 1}, TypeError, "'fully_use_devices' must be <class 'bool'>"),
])
def test_algo_parameters_reject_bad_values(kwargs, exc, text):
    with pytest.raises(exc, match=text):
        ms.set_algo_parameters(**kwargs)
    with pytest.raises(ValueError, match="Get context keyword bar is not recognized"):
        ms.get_algo_parameters("bar")


def test_ps_context():
    assert ms.get_ps_context("enable_ps") is False and ms.get_ps_context("config_file_path") == ""
    ms.set_ps_context(enable_ps=True, config_file_path="/tmp/x", client_password="secret")
    assert ms.get_ps_context("enable_ps") is True and ms.get_ps_context("config_file_path") == "/tmp/x"
    with pytest.raises(ValueError, match="Get PS context keyword client_password is not recognized"):
        ms.get_ps_context("client_password")
    with pytest.raises(ValueError, match="Set PS context keyword foo is not recognized"):
        ms.set_ps_context(foo=1)
    with pytest.raises(TypeError, match="'enable_ps' must be <class 'bool'>, but got <class 'str'>"):
        ms.set_ps_context(enable_ps="x")
