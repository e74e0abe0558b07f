"""mindspore.device_context: device queries and once-only operator settings, as MindSpore 2.10 on a CPU build."""
import logging

import pytest

import mindseed as ms
from mindseed import _backend as B
from mindseed.device_context import _conf


@pytest.fixture(autouse=True)
def fresh_settings(monkeypatch):
    monkeypatch.setattr(_conf, "SETTINGS", {})
    monkeypatch.setattr(_conf, "_CALLED", set())
    threads = []
    monkeypatch.setattr(B, "set_num_threads", threads.append)
    return threads


def test_queries():
    assert ms.device_context.cpu.is_available() and ms.device_context.cpu.device_count() == 1
    assert ms.device_context.ascend.is_available() is False
    with pytest.raises(RuntimeError, match="Device Ascend not exist"):
        ms.device_context.ascend.device_count()
    if not B.devices.available("GPU"):
        assert ms.device_context.gpu.is_available() is False
        with pytest.raises(RuntimeError, match="Device_target GPU not exist"):
            ms.device_context.gpu.device_count()


def test_cpu_threads_num_sets_the_kernel_threads_once(fresh_settings):
    from mindseed.device_context.cpu.op_tuning import threads_num
    with pytest.raises(TypeError, match="'num' must be <class 'int'>"):
        threads_num("2")
    with pytest.raises(ValueError, match="must > 0, but got '0'"):
        threads_num(0)
    threads_num(3)
    assert fresh_settings == [3]
    with pytest.raises(RuntimeError, match="'threads_num' can not be set repeatedly"):
        threads_num(3)


def test_other_backends_settings_first_call_ignored_with_an_error_then_validated_once(caplog):
    ascend = ms.device_context.ascend
    with caplog.at_level(logging.ERROR):
        ascend.op_precision.precision_mode("not a mode")      # first call off Ascend: ignored, as MindSpore
    assert "CPU device is not supported" in caplog.text
    with pytest.raises(ValueError, match="must be one of"):
        ascend.op_precision.precision_mode("bad")
    ascend.op_precision.precision_mode("force_fp32")
    ascend.op_precision.precision_mode("force_fp32")         # the same value again is accepted
    with pytest.raises(RuntimeError, match="'precision_mode' can not be set repeatedly"):
        ascend.op_precision.precision_mode("force_fp16")
    assert _conf.SETTINGS["Ascend", "precision_mode"] == "force_fp32"
    ascend.op_precision.conv_allow_hf32(True)
    with pytest.raises(ValueError, match="conv_allow_hf32"):
        ascend.op_precision.conv_allow_hf32(3)
    with pytest.raises(TypeError, match="'value' must be <class 'bool'>"):
        ms.device_context.gpu.op_precision.conv_allow_tf32(1)
    gpu_tuning = ms.device_context.gpu.op_tuning
    gpu_tuning.conv_fprop_algo("bad")
    with pytest.raises(ValueError, match="conv_fprop_algo', the argument must be in"):
        gpu_tuning.conv_fprop_algo("bad")
    gpu_tuning.conv_fprop_algo("fft")
    gpu_tuning.conv_fprop_algo("gemm")        # algorithm choices may change
    assert _conf.SETTINGS["GPU", "conv_fprop_algo"] == "gemm"
    debug = ascend.op_debug
    with pytest.raises(TypeError, match="'op_timeout' must be <class 'int'>"):
        debug.execute_timeout("60")
    with pytest.raises(ValueError, match="key must be one of"):
        debug.aclinit_config({"bad": 1})
    with pytest.raises(ValueError, match=r"err_msg_mode must be one of \['0', '1'\]"):
        debug.aclinit_config({"err_msg_mode": "2"})
    debug.aclinit_config({"err_msg_mode": "1"})
    assert _conf.SETTINGS["Ascend", "aclinit_config.err_msg_mode"] == "1"
