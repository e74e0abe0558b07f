"""mindspore.runtime / mindspore.hal streams, events, core limits, device queries; mindspore.log; mindspore.utils."""
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed import hal, log, runtime as rt, utils


def test_events_time_the_work_between_them():
    start, end = rt.Event(enable_timing=True), rt.Event(enable_timing=True)
    start.record()
    ms.ops.matmul(ms.Tensor(np.ones((200, 200), np.float32)), ms.Tensor(np.ones((200, 200), np.float32)))
    end.record()
    assert end.query() and end.elapsed_time(start) < 0 < start.elapsed_time(end)
    with pytest.raises(RuntimeError, match="enable_timing=False"):
        rt.Event().elapsed_time(end)
    with pytest.raises(RuntimeError, match="has not been recorded"):
        start.elapsed_time(rt.Event(enable_timing=True))
    with pytest.raises(TypeError, match="'enable_timing' must be bool"):
        rt.Event(enable_timing=1)


def test_stream_selection_is_scoped_and_limits_are_restored():
    s = rt.Stream(priority=1)
    assert rt.current_stream() == rt.default_stream() != s
    with rt.StreamCtx(s):
        assert rt.current_stream() == s
        ev = s.record_event()
        assert isinstance(ev, rt.Event) and ev.query()
    assert rt.current_stream() == rt.default_stream()
    rt.set_cur_stream(s)
    assert ms.current_stream() == s
    rt.set_cur_stream(rt.default_stream())
    with rt.StreamLimitCtx(s, cube_num=4, vector_num=8):
        assert rt.get_stream_limit(s) == (4, 8)
    assert rt.get_stream_limit(s) == (-1, -1)
    rt.set_stream_limit(s, 2, 3)
    rt.reset_stream_limit(s)
    assert rt.get_stream_limit(s) == (-1, -1)
    rt.set_device_limit(0, 6, 12)
    assert rt.get_device_limit(0) == (6, 12)
    with pytest.raises(ValueError, match="'cube_num' must be -1 \\(no limit\\) or > 0"):
        rt.set_stream_limit(s, 0)
    with pytest.raises(TypeError, match="For 'set_cur_stream', the argument 'stream' should be Stream"):
        rt.set_cur_stream(1)
    s.wait_stream(rt.default_stream())
    s.synchronize()
    rt.synchronize()


def test_hal_devices_and_memory():
    assert hal.device_count("CPU") == 1 and hal.is_available("CPU") and hal.is_initialized("CPU")
    # MindSpore's CPU answers: no properties, capability or architecture list; the name is "CPU"
    assert hal.get_device_properties(0, "CPU") is None
    assert hal.get_device_capability(0, "CPU") is None
    assert hal.get_device_name(0, "CPU") == "CPU" and hal.get_arch_list("CPU") is None
    with pytest.raises(ValueError, match="'device_target' must be one of"):
        hal.device_count("TPU")
    with pytest.raises(ValueError, match="Ascend backend is not available"):
        hal.device_count("Ascend")
    with pytest.raises(ValueError, match="'device_id' must be in \\[0, 1\\)"):
        hal.get_device_name(3, "CPU")
    if ms.get_context("device_target") == "CPU":
        assert hal.memory_allocated("CPU") == 0 and hal.memory_stats()["total_allocated_memory"] == 0
    assert hal.Stream is rt.Stream and hal.Event is rt.Event


def test_kernel_launch_settings_are_validated_and_recorded(monkeypatch):
    monkeypatch.setattr(rt, "_config", {})
    rt.set_kernel_launch_group(thread_num=2, kernel_group_num=4)
    assert rt.get_runtime_config()["set_kernel_launch_group"] == {"thread_num": 2, "kernel_group_num": 4}
    with pytest.raises(RuntimeError, match="can not be set repeatedly"):
        rt.set_kernel_launch_group()
    with pytest.raises(TypeError, match="'enable_capture_graph' must be bool"):
        rt.set_kernel_launch_capture(1)
    # as MindSpore: capture and group exclude each other, whichever comes first
    with pytest.raises(RuntimeError, match="kernel launch group and kernel launch capture can not be set together"):
        rt.set_kernel_launch_capture(True, ["MatMul"])
    monkeypatch.setattr(rt, "_config", {})
    rt.set_kernel_launch_capture(True, ["MatMul"])
    assert rt.get_runtime_config()["set_kernel_launch_capture"]["op_capture_skip"] == ["matmul"]
    with pytest.raises(RuntimeError, match="kernel launch group and kernel launch capture can not be set together"):
        rt.set_kernel_launch_group(thread_num=2, kernel_group_num=8)
    rt.set_kernel_launch_capture(False)
    rt.set_kernel_launch_group(thread_num=2, kernel_group_num=8)
    with pytest.raises(RuntimeError, match="The 'kernel_launch_group' can not be set repeatedly."):
        rt.set_kernel_launch_group()


def test_mem_pool_needs_a_pluggable_allocator(tmp_path):
    missing = str(tmp_path / "none.so")
    with pytest.raises(OSError, match=f"{missing}: cannot open shared object file: No such file or directory"):
        rt.PluggableAllocator(missing, "alloc", "free")
    with pytest.raises(TypeError, match="must be PluggableAllocator"):
        rt.MemPool(None)


def test_log_levels_and_vlog(monkeypatch, capsys):
    assert log.get_level() in ("0", "1", "2", "3", "4")
    assert log.get_log_config()["GLOG_v"] == log.get_level()
    assert log.parse_vlog_level("(1,100)") == (1, 100) and log.parse_vlog_level("7") == (7, 7)
    assert log.parse_vlog_level("x") is None
    monkeypatch.setenv("VLOG_v", "(1,5)")
    log.vlog_print(3, "ME", "f.py", 1, "shown")
    log.vlog_print(9, "ME", "f.py", 1, "hidden")
    err = capsys.readouterr().err
    assert "shown" in err and "hidden" not in err


def test_dlpack_round_trip_shares_memory_and_stress_detect_passes():
    t = ms.Tensor(np.arange(4, dtype=np.float32))
    back = utils.from_dlpack(utils.to_dlpack(t))
    np.testing.assert_array_equal(back.asnumpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(utils.from_dlpack(np.arange(3.0)).asnumpy(), [0.0, 1.0, 2.0])
    with pytest.raises(TypeError, match="'tensor' must be a Tensor"):
        utils.to_dlpack([1])
    with pytest.raises(TypeError, match="DLPack capsule"):
        utils.from_dlpack(3)
    assert utils.stress_detect() == 0
    with pytest.raises(ValueError, match="'detect_type' must be one of"):
        utils.stress_detect("x")
    utils.sdc_detect_start()
    assert utils.get_sdc_detect_result() is False
    utils.sdc_detect_stop()
    assert not utils.dryrun.is_simulation() or os.environ.get("MS_SIMULATION_LEVEL")
