"""The settings store of `mindspore.device_context`: once-only values per backend, and the target check."""
from mindseed import log as logger
from mindseed._backend import devices

SETTINGS = {}       # (device, name) -> value
_CALLED = set()     # (device, name) of the settings called at least once


def device_count(device, message):
    """The number of `device`s, or RuntimeError(message) when there is none."""
    if not devices.available(device):
        raise RuntimeError(message)
    return devices.count(device)


def is_available(device):
    if devices.available(device):
        return True
    logger.warning(f"Device {device} is not available.")
    return False


def first_call_elsewhere(device, name):
    """True on the first call of setting `name` while the device target is not `device`: MindSpore logs an error
    and ignores that call."""
    from mindseed.common.context import get_context  # noqa: PLC0415 -- context sits above the backend queries
    first = (device, name) not in _CALLED
    _CALLED.add((device, name))
    target = get_context("device_target")
    if first and target != device:
        logger.error(f"{target} device is not supported. Please use correct device")
        return True
    return False


def set_once(device, name, value):
    """Record `value` for setting `name`; True when it is new (the same value again: False, another: error)."""
    key = (device, name)
    if key in SETTINGS:
        if SETTINGS[key] == value:
            return False
        raise RuntimeError(f"The '{name}' can not be set repeatedly.")
    SETTINGS[key] = value
    return True


def one_of(op, what, value, choices, kind=ValueError):
    if value not in choices:
        raise kind(f"For '{op}', the {what} must be one of {choices}, but got {value}.")
