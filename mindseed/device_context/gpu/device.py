"""The GPU device queries (CUDA devices torch sees)."""
from mindseed.device_context import _conf


def is_available():
    """Whether a CUDA device is available (a warning when not)."""
    return _conf.is_available("GPU")


def device_count():
    """The number of CUDA devices.

    Raises:
        RuntimeError: no CUDA device.
    """
    return _conf.device_count("GPU", "Device_target GPU not exist.")
