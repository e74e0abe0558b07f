"""mindspore.numpy: numpy's functions on Tensors, built on mindseed ops (so they differentiate and jit).

Defaults follow mindspore.numpy, which narrows numpy's 64-bit ones: Python ints give int32 tensors, floats
float32, creation functions default to float32.

    import mindseed.numpy as mnp
    mnp.arange(3) * mnp.ones(3)
"""
from mindseed.common import dtype as _mstype
from mindseed.common.tensor import Tensor  # noqa: F401
from mindseed.numpy import _creation, _extra, _manip, _math, fft  # noqa: F401
from mindseed.numpy._creation import *  # noqa: F401,F403
from mindseed.numpy._manip import *  # noqa: F401,F403
from mindseed.numpy._math import *  # noqa: F401,F403
from mindseed.numpy._extra import *  # noqa: F401,F403

# dtype names (mindspore.numpy's int_/float_ are the 32-bit types)
bool_ = _mstype.bool_
int8, int16, int32, int64 = _mstype.int8, _mstype.int16, _mstype.int32, _mstype.int64
uint8, uint16, uint32, uint64 = _mstype.uint8, _mstype.uint16, _mstype.uint32, _mstype.uint64
float16, float32, float64 = _mstype.float16, _mstype.float32, _mstype.float64
int_, float_ = _mstype.int32, _mstype.float32
uint = _mstype.uint32
numeric_types = ["int_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float_",
                 "float16", "float32", "float64", "bool_"]
pi = 3.141592653589793
e = 2.718281828459045
inf = float("inf")
nan = float("nan")
PINF, NINF = inf, -inf

_DTYPE_NAMES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                "float32", "float64", "int_", "float_", "uint", "numeric_types"]


def promote_types(type1, type2):
    """The dtype both types promote to."""
    from mindseed.numpy._utils import _dtype  # noqa: PLC0415
    return _mstype.promote_types(_dtype(type1), _dtype(type2))


def result_type(*arrays_and_dtypes):
    """The dtype of the result of an operation on the given arrays/dtypes."""
    from mindseed.numpy._utils import _dtype, _to_tensor  # noqa: PLC0415
    out = None
    for x in arrays_and_dtypes:
        t = _dtype(x) if not isinstance(x, (Tensor, list, tuple, int, float, bool)) else _to_tensor(x).dtype
        out = t if out is None else _mstype.promote_types(out, t)
    return out


__all__ = (_creation.__all__ + _manip.__all__ + _math.__all__ + _extra.__all__ + _DTYPE_NAMES
           + ["pi", "e", "inf", "nan", "PINF", "NINF", "promote_types", "result_type"])
