"""The Ascend device queries: mindseed runs on CPU and CUDA only."""
from mindseed.device_context import _conf


def is_available():
    """False (a warning): mindseed has no Ascend backend."""
    return _conf.is_available("Ascend")


def device_count():
    """Raises RuntimeError: there is no Ascend device."""
    return _conf.device_count("Ascend", "Device Ascend not exist.")


def setting(name, value, check=None):
    """Record Ascend setting `name` after `check(value)`; the first call off Ascend is ignored (MindSpore)."""
    if _conf.first_call_elsewhere("Ascend", name):
        return
    if check is not None:
        check(value)
    _conf.set_once("Ascend", name, value)
