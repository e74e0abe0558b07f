"""Device manager interfaces (mindspore.device_manager): the device and determinism settings of the process."""
from mindseed.common.context import get_current_device, set_deterministic, set_device

__all__ = ["set_device", "get_current_device", "set_deterministic"]
