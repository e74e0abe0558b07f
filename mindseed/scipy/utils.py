"""mindspore.scipy.utils: helpers of the scipy functions (`_nd_transpose`)."""
from mindseed.ops import functional as F

__all__ = []


def _nd_transpose(a):
    """`a` with its last two dims swapped."""
    if a.ndim < 2:
        raise ValueError("to do _nd_transpose for input a's ndim is not greater or equal to 2d, which is invalid.")
    return F.swapaxes(a, -1, -2)
