"""Device queries: how many devices of a kind, their names, capabilities and properties."""
from mindseed import log as _logger
from mindseed._backend import devices as _D

__all__ = ["device_count", "get_arch_list", "get_device_capability", "get_device_name", "get_device_properties",
           "is_available", "is_initialized"]

_TARGETS = ("CPU", "GPU", "Ascend")


def _target(api, device_target):
    if device_target is None:
        return _D.current_target()
    if not isinstance(device_target, str):
        raise TypeError(f"For '{api}', the argument 'device_target' must be str, but got {type(device_target)}.")
    if device_target not in _TARGETS:
        raise ValueError(f"For '{api}', the argument 'device_target' must be one of {list(_TARGETS)}, but got "
                         f"'{device_target}'.")
    return device_target


def _device_id(api, device_id, target):
    if isinstance(device_id, bool) or not isinstance(device_id, int):
        raise TypeError(f"For '{api}', the argument 'device_id' must be int, but got {type(device_id)}.")
    n = _D.count(target)
    if not 0 <= device_id < max(n, 1):
        raise ValueError(f"For '{api}', the argument 'device_id' must be in [0, {n}) for {target}, but got "
                         f"{device_id}.")
    return device_id


def device_count(device_target=None):
    """Number of devices of `device_target` (the current target by default): the CPU counts as one."""
    target = _target("device_count", device_target)
    if not _D.available(target):
        raise ValueError(f"{target} backend is not available for this MindSpore package.You can call "
                         f"hal.is_available to check the reason.")
    return _D.count(target)


def is_available(device_target):
    """Whether this process can run on `device_target`."""
    return _D.available(_target("is_available", device_target))


def is_initialized(device_target):
    """Whether `device_target` has been set up for this process."""
    return _D.initialized(_target("is_initialized", device_target))


def get_arch_list(device_target=None):
    """The architectures the kernels were built for (a GPU's sm_XX list); None for the CPU, as in MindSpore."""
    target = _target("get_arch_list", device_target)
    if target == "CPU":
        _logger.warning("'get_arch_list' for CPU is not implemented. Return None.")
        return None
    return _D.arch_list(target)


def get_device_name(device_id, device_target=None):
    """The name of device `device_id` ("CPU" for the CPU, as in MindSpore)."""
    target = _target("get_device_name", device_target)
    device_id = _device_id("get_device_name", device_id, target)
    return "CPU" if target == "CPU" else _D.name(device_id, target)


def get_device_capability(device_id, device_target=None):
    """(major, minor) compute capability of a GPU; None for other devices."""
    target = _target("get_device_capability", device_target)
    return _D.capability(_device_id("get_device_capability", device_id, target), target)


def get_device_properties(device_id, device_target=None):
    """The properties of device `device_id` (name, total_memory, ...) as a dict; None for the CPU, as in
    MindSpore."""
    target = _target("get_device_properties", device_target)
    device_id = _device_id("get_device_properties", device_id, target)
    if target == "CPU":
        _logger.warning("'get_device_properties' for CPU is not implemented. Return None.")
        return None
    return _D.properties(device_id, target)
