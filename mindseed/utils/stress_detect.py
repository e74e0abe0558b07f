"""stress_detect: is the device computing consistently?"""
from mindseed import _backend as B
from mindseed._backend import interop as _I

__all__ = ["stress_detect"]

_TYPES = ("aic", "hccs")


def stress_detect(detect_type="aic"):
    """Run a fixed computation repeatedly on the current device and compare the results bit for bit.

    Args:
        detect_type (str): 'aic' (the compute units) or 'hccs' (the links between devices: one device here, so
            the compute check runs). Default 'aic'.

    Returns:
        int: 0 when every run agreed, 1 when the device computed differently.

    >>> from mindseed.utils import stress_detect
    >>> stress_detect()
    0
    """
    if not isinstance(detect_type, str) or detect_type not in _TYPES:
        raise ValueError(f"For 'stress_detect', the argument 'detect_type' must be one of {list(_TYPES)}, but got "
                         f"{detect_type!r}.")
    return _I.stress_check(B.device())
