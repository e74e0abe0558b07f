"""The CPU device queries."""
from mindseed.device_context import _conf


def is_available():
    """Whether the CPU backend is available: always True.

    >>> import mindseed as ms
    >>> ms.device_context.cpu.is_available()
    True
    """
    return _conf.is_available("CPU")


def device_count():
    """The number of CPU devices: always 1."""
    return _conf.device_count("CPU", "Device_target CPU not exist.")
