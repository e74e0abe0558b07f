"""Per-device core-number limits (MindSpore's Ascend cube/vector core budgets), recorded per device."""
from mindseed.runtime.stream_limit import check_cores

__all__ = ["set_device_limit", "get_device_limit"]

_limits = {}


def _device(api, device):
    if isinstance(device, bool) or not isinstance(device, int) or device < 0:
        raise TypeError(f"For '{api}', the argument 'device' must be a non-negative int (the device id), but got "
                        f"{device!r}.")
    return device


def set_device_limit(device, cube_num=-1, vector_num=-1):
    """Limit the cube and vector cores of `device` (-1: no limit)."""
    _device("set_device_limit", device)
    check_cores("set_device_limit", cube_num, vector_num)
    _limits[device] = (cube_num, vector_num)


def get_device_limit(device):
    """(cube_num, vector_num) set for `device`; (-1, -1) when unlimited."""
    return _limits.get(_device("get_device_limit", device), (-1, -1))
