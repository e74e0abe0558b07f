"""mindspore.runtime: device memory settings and statistics, synchronization, runtime thread settings.

Memory statistics come from the backend's device allocator: on a GPU, torch's CUDA caching allocator (what
MindSpore's memory pool is for); the CPU has no device memory pool, so they are zeros there, as MindSpore's
are. Settings that steer MindSpore's own runtime (its memory pool's growth steps, its dispatch threads, launch
blocking) are validated as MindSpore validates them, may be set once as in MindSpore, and are recorded
(`get_runtime_config`); `set_memory(max_size=...)` caps the CUDA allocator, and `set_cpu_affinity` binds the
process to the listed CPUs.
"""
import os
import re

from mindseed import _backend as B
from mindseed.runtime.thread_bind_core import cpu_set

__all__ = ["set_memory", "dispatch_threads_num", "launch_blocking", "set_cpu_affinity",
           "empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "reset_peak_memory_stats", "memory_stats",
           "memory_summary", "get_runtime_config", "set_kernel_launch_capture", "set_kernel_launch_group",
           "Stream", "StreamCtx", "Event", "current_stream", "default_stream", "communication_stream",
           "set_cur_stream", "synchronize", "StreamLimitCtx", "set_stream_limit", "get_stream_limit",
           "reset_stream_limit", "set_device_limit", "get_device_limit", "PluggableAllocator", "MemPool",
           "use_mem_pool", "memory_replay"]

_SIZE = re.compile(r"[1-9][0-9]*(\.)?[0-9]*GB|0\.[0-9]*GB", re.ASCII)
_config = {}


def _once(name, shown=None):
    if name in _config:     # MindSpore's wording differs for set_cpu_affinity
        raise RuntimeError(f"The '{shown}' cannot be set repeatedly." if shown else
                           f"The '{name}' can not be set repeatedly.")


def _str_arg(name, value):
    if not isinstance(value, str):
        raise TypeError(f"The parameter '{name}' must be {str}, but got {type(value)}")
    return value


def _gb(name, value):
    _str_arg(name, value)
    if _SIZE.fullmatch(value) is None:
        raise ValueError(f"The '{value}' is illegal, it must be match regular'{_SIZE.pattern}' by flags're.ASCII.'")
    return float(value[:-2])


def set_memory(init_size="2GB", increase_size="2GB", max_size="1024GB", optimize_level="O0",
               huge_page_reserve_size="0GB"):
    """Device memory settings, once per process. Sizes are strings like '2GB'. `max_size` caps the CUDA
    caching allocator; the others steer MindSpore's own pool and are recorded.

    Raises:
        TypeError: a size or `optimize_level` that is not a str.
        ValueError: a size not matching '<number>GB' (> 0), `optimize_level` not 'O0'/'O1'.
        RuntimeError: called a second time.
    """
    _once("set_memory")
    sizes = {name: _gb(name, value) for name, value in (("init_size", init_size), ("increase_size", increase_size),
                                                         ("max_size", max_size))}
    # the reserve may be zero (its default)
    sizes["huge_page_reserve_size"] = 0.0 if huge_page_reserve_size == "0GB" else \
        _gb("huge_page_reserve_size", huge_page_reserve_size)
    _str_arg("optimize_level", optimize_level)
    if optimize_level not in ("O0", "O1"):
        raise ValueError(f"The optimize_level must be one of ['O0', 'O1'], but got {optimize_level}.")
    B.limit_device_memory(int(sizes["max_size"] * (1 << 30)))
    _config["set_memory"] = dict(sizes, optimize_level=optimize_level)


def dispatch_threads_num(threads_num):
    """The number of MindSpore runtime dispatch threads (recorded; kernels here are dispatched inline)."""
    _once("dispatch_threads_num")
    if isinstance(threads_num, bool) or not isinstance(threads_num, int):
        raise TypeError(f"The parameter 'threads_num' must be {int}, but got {type(threads_num)}")
    if threads_num <= 0:
        raise ValueError(f"The 'threads_num' must be int and must > 0, but got '{threads_num}' with type 'int'.")
    _config["dispatch_threads_num"] = threads_num


def launch_blocking():
    """Run device kernels synchronously (recorded; every mindseed kernel call already returns its result). Calling
    it again is allowed, as in MindSpore."""
    _config["launch_blocking"] = True


def set_cpu_affinity(enable_affinity, affinity_cpu_list=None, module_to_cpu_dict=None, bind_file=None):
    """Bind this process to CPU cores: with `affinity_cpu_list` (['0-3', '8'] or [0, 1, ...]) to those cores.

    Raises:
        TypeError: `enable_affinity` not a bool, `affinity_cpu_list` not a list, `module_to_cpu_dict` not a dict.
        ValueError: a malformed range, or a core this machine does not have.
        RuntimeError: called a second time.
    """
    _once("set_cpu_affinity", "mindspore.runtime.set_cpu_affinity")
    if not isinstance(enable_affinity, bool):
        raise TypeError(f"The parameter 'enable_affinity' must be {bool}, but got {type(enable_affinity)}")
    if affinity_cpu_list is not None and not isinstance(affinity_cpu_list, list):
        raise TypeError(f"The parameter 'affinity_cpu_list' must be {list}, but got {type(affinity_cpu_list)}")
    if module_to_cpu_dict is not None and not isinstance(module_to_cpu_dict, dict):
        raise TypeError(f"The parameter 'module_to_cpu_dict' must be {dict}, but got {type(module_to_cpu_dict)}")
    cpus = cpu_set(affinity_cpu_list) if affinity_cpu_list else None
    if enable_affinity and cpus and hasattr(os, "sched_setaffinity"):
        available = os.sched_getaffinity(0)
        missing = sorted(cpus - available)
        if missing:
            raise ValueError(f"For 'set_cpu_affinity', the cores {missing} in 'affinity_cpu_list' are not available "
                             f"to this process (available: {sorted(available)}).")
        os.sched_setaffinity(0, cpus)
    _config["set_cpu_affinity"] = {"enable_affinity": enable_affinity, "affinity_cpu_list": affinity_cpu_list,
                                   "module_to_cpu_dict": module_to_cpu_dict, "bind_file": bind_file}


def get_runtime_config():
    """The runtime settings made so far (name -> value)."""
    return dict(_config)


def empty_cache():
    """Return the device allocator's unused cached memory."""
    B.empty_cache()


def memory_allocated():
    """Bytes currently occupied by tensors on the device."""
    return B.memory_counters()["allocated"]


def max_memory_allocated():
    """Peak of memory_allocated() since the start or the last reset."""
    return B.memory_counters()["max_allocated"]


def memory_reserved():
    """Bytes the device allocator holds (occupied or cached)."""
    return B.memory_counters()["reserved"]


def max_memory_reserved():
    """Peak of memory_reserved() since the start or the last reset."""
    return B.memory_counters()["max_reserved"]


def reset_peak_memory_stats():
    """Reset both peaks."""
    B.reset_peak_memory()


reset_max_memory_allocated = reset_peak_memory_stats
reset_max_memory_reserved = reset_peak_memory_stats


def memory_stats():
    """The allocator's counters with MindSpore's keys."""
    c = B.memory_counters()
    return {"total_reserved_memory": c["reserved"], "total_allocated_memory": c["allocated"],
            "total_idle_memory": c["reserved"] - c["allocated"], "total_eager_free_memory": 0,
            "max_reserved_memory": c["max_reserved"], "max_allocated_memory": c["max_allocated"],
            "common_mem_pool_stats": {"block_unit_size": 0, "block_counts": 0, "blocks_info": {}},
            "persistent_mem_pool_stats": {"block_counts": 0, "block_unit_size": 0, "blocks_info": {}}}


def _fmt(n):
    if n < 1024:
        return f"{n:.0f} B"
    for unit in ("KB", "MB", "GB"):
        n /= 1024.0
        if n < 1024 or unit == "GB":
            return f"{n:.2f} {unit}"


def memory_summary():
    """memory_stats() as a table."""
    s = memory_stats()
    rows = [("Reserved memory", s["total_reserved_memory"]), ("Allocated memory", s["total_allocated_memory"]),
            ("Idle memory", s["total_idle_memory"]), ("Eager free memory", s["total_eager_free_memory"]),
            ("Max reserved memory", s["max_reserved_memory"]), ("Max allocated memory", s["max_allocated_memory"])]
    line = "|" + "-" * 45 + "|"
    out = ["|" + "=" * 45 + "|", "|" + "Memory summary".center(45) + "|", "|" + "=" * 45 + "|",
           f"| {'Metric':<20} | {'Data':<20} |", line]
    for name, value in rows:
        out += [f"| {name:<20} | {_fmt(value):>8}{'':<12} |", line]
    return "\n".join(out)


# streams, events, core limits, pools and executor settings: one module each, as MindSpore lays them out
from mindseed.runtime import device  # noqa: E402,F401
from mindseed.runtime.device_limit import get_device_limit, set_device_limit  # noqa: E402
from mindseed.runtime.event import Event  # noqa: E402
from mindseed.runtime.executor import set_kernel_launch_capture, set_kernel_launch_group  # noqa: E402
from mindseed.runtime.memory import MemPool, PluggableAllocator, memory_replay, use_mem_pool  # noqa: E402
from mindseed.runtime.stream import (Stream, StreamCtx, communication_stream, current_stream,  # noqa: E402
                                     default_stream, set_cur_stream, synchronize)
from mindseed.runtime.stream_limit import (StreamLimitCtx, get_stream_limit, reset_stream_limit,  # noqa: E402
                                           set_stream_limit)
