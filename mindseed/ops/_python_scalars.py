"""Python float operands as MindSpore passes them to its arithmetic: a Python (or numpy) float becomes a float32
scalar first, so beside a float64 or complex128 tensor it has float32's precision (`Tensor([2.0], float64) * 1.1`
is 2.200000047683716, `t + 1e300` is inf). The public arithmetic (Tensor operators, ops.add/sub/mul/div/pow,
maximum/minimum, the comparisons, clamp, setitem) narrows its operands here; mindseed's own composite ops call the
primitives with full-precision constants, as MindSpore's C++ kernels compute."""
import math
import struct

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor

_WIDE = (mstype.float64, mstype.complex128)


def as_float32(value):
    """The float32 nearest to `value` (out of float32's range: an infinity of its sign), as a Python float."""
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def narrow(value, like):
    """`value` as MindSpore passes it beside the tensor `like`."""
    if isinstance(value, float) and isinstance(like, Tensor) and like.dtype in _WIDE:
        return as_float32(value)
    return value


def narrow_pair(x, y):
    """Both operands of a binary op, each narrowed beside the other."""
    if isinstance(y, float):
        return x, narrow(y, x)
    if isinstance(x, float):
        return narrow(x, y), y
    return x, y
