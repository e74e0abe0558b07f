"""mindspore.runtime: validation and once-only rules as in MindSpore 2.10, allocator statistics, CPU affinity."""
import os

import pytest

import mindseed as ms
from mindseed import runtime as rt


@pytest.fixture(autouse=True)
def _fresh_config(monkeypatch):
    monkeypatch.setattr(rt, "_config", {})


def test_set_memory_validates_records_and_refuses_a_second_call():
    with pytest.raises(ValueError, match=r"The '1G' is illegal"):
        rt.set_memory(init_size="1G")
    with pytest.raises(ValueError, match=r"The '0GB' is illegal"):
        rt.set_memory(max_size="0GB")
    with pytest.raises(TypeError, match="The parameter 'max_size' must be <class 'str'>, but got <class 'int'>"):
        rt.set_memory(max_size=3)
    with pytest.raises(ValueError, match=r"must be one of \['O0', 'O1'\], but got O5"):
        rt.set_memory(optimize_level="O5")
    rt.set_memory(init_size="1GB", max_size="4.5GB", optimize_level="O1")
    assert rt.get_runtime_config()["set_memory"] == {"init_size": 1.0, "increase_size": 2.0, "max_size": 4.5,
                                                     "huge_page_reserve_size": 0.0, "optimize_level": "O1"}
    with pytest.raises(RuntimeError, match="The 'set_memory' can not be set repeatedly."):
        rt.set_memory(init_size="1GB")


def test_dispatch_threads_and_launch_blocking_once():
    with pytest.raises(ValueError, match="must be int and must > 0, but got '0'"):
        rt.dispatch_threads_num(0)
    with pytest.raises(TypeError, match="'threads_num' must be <class 'int'>"):
        rt.dispatch_threads_num("a")
    rt.dispatch_threads_num(4)
    rt.launch_blocking()
    rt.launch_blocking()        # may be called again (MindSpore), unlike dispatch_threads_num
    assert rt.get_runtime_config()["dispatch_threads_num"] == 4 and rt.get_runtime_config()["launch_blocking"]
    with pytest.raises(RuntimeError, match="'dispatch_threads_num' can not be set repeatedly"):
        rt.dispatch_threads_num(4)


def test_memory_statistics_on_cpu_are_zero_with_mindspore_keys():
    ms.Tensor([1.0, 2.0]) + 1
    rt.synchronize()
    rt.empty_cache()
    rt.reset_peak_memory_stats()
    assert rt.memory_allocated() == rt.max_memory_allocated() == rt.memory_reserved() == rt.max_memory_reserved() == 0
    stats = rt.memory_stats()
    assert set(stats) == {"total_reserved_memory", "total_allocated_memory", "total_idle_memory",
                          "total_eager_free_memory", "max_reserved_memory", "max_allocated_memory",
                          "common_mem_pool_stats", "persistent_mem_pool_stats"}
    summary = rt.memory_summary()
    assert "Memory summary" in summary and "| Reserved memory      |      0 B" in summary


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no sched_setaffinity")
def test_set_cpu_affinity_binds_the_process_to_the_listed_cores():
    before = os.sched_getaffinity(0)
    first = min(before)
    try:
        with pytest.raises(ValueError, match="'a-b' with a <= b, but got '3-1'"):
            rt.set_cpu_affinity(True, ["3-1"])
        with pytest.raises(ValueError, match="not available"):
            rt.set_cpu_affinity(True, [f"{first}-{first + 4096}"])
        with pytest.raises(TypeError, match="'enable_affinity' must be <class 'bool'>"):
            rt.set_cpu_affinity(1)
        rt.set_cpu_affinity(True, [f"{first}-{first}"])
        assert os.sched_getaffinity(0) == {first}
        with pytest.raises(RuntimeError, match=r"^The 'mindspore.runtime.set_cpu_affinity' cannot be set repeatedly.$"):
            rt.set_cpu_affinity(True, [f"{first}-{first}"])
    finally:
        os.sched_setaffinity(0, before)


def test_runtime_is_reachable_as_mindspore_runtime():
    assert ms.runtime.set_memory is rt.set_memory
