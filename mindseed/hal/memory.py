"""mindspore.hal.memory: the runtime's memory statistics, each taking an optional `device_target`."""
import mindseed.runtime as _rt
from mindseed.runtime.device import _target

__all__ = ["empty_cache", "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "reset_peak_memory_stats", "memory_stats",
           "memory_summary"]


def _on_target(name):
    runtime_fn = getattr(_rt, name)

    def fn(device_target=None):
        _target(name, device_target)
        return runtime_fn()
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{runtime_fn.__doc__}\n\n`device_target` ('CPU', 'GPU', 'Ascend' or None: the current one)."
    return fn


empty_cache = _rt.empty_cache
(memory_allocated, max_memory_allocated, memory_reserved, max_memory_reserved, reset_max_memory_allocated,
 reset_max_memory_reserved, reset_peak_memory_stats, memory_stats, memory_summary) = (
    _on_target(_name) for _name in __all__[1:])
