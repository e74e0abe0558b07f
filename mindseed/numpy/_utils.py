"""Conversions shared by mindseed.numpy: numpy-style inputs to Tensors with MindSpore's 32-bit defaults."""
import numbers

import numpy as onp

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed import ops

# mindspore.numpy narrows numpy's 64-bit defaults: Python ints become int32, floats float32
_NARROW = {mstype.int64: mstype.int32, mstype.float64: mstype.float32}
_NP_NARROW = {onp.dtype(onp.int64): onp.int32, onp.dtype(onp.float64): onp.float32}
_FLOAT_KINDS = (mstype.Float, mstype.BFloat, mstype.Complex)


def _dtype(dtype):
    """A mindspore dtype from a mindspore dtype, a numpy dtype, a Python type or a name like 'float32'."""
    if dtype is None or isinstance(dtype, mstype.Type):
        return dtype
    if isinstance(dtype, str):
        return mstype.np_to_dtype(onp.dtype(dtype))
    if dtype in (bool, int, float, complex):
        return {bool: mstype.bool_, int: mstype.int32, float: mstype.float32, complex: mstype.complex64}[dtype]
    try:
        return mstype.np_to_dtype(onp.dtype(dtype))
    except TypeError:
        raise TypeError(f"For 'mindspore.numpy', the dtype must be a mindspore dtype, numpy dtype or str, but got "
                        f"{dtype!r}.") from None


def _scalar_dtype(x):
    if isinstance(x, (bool, onp.bool_)):
        return mstype.bool_
    if isinstance(x, numbers.Integral):
        return mstype.int32
    if isinstance(x, numbers.Real):
        return mstype.float32
    return mstype.complex64


def _infer(data):
    """dtype of (nested) Python data the way mindspore.numpy infers it."""
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, onp.ndarray):
        return _NARROW.get(mstype.np_to_dtype(data.dtype), mstype.np_to_dtype(data.dtype))
    if isinstance(data, (list, tuple)):
        kinds = [_infer(x) for x in data]
        if not kinds:
            return mstype.float32
        return max(kinds, key=_rank)
    if isinstance(data, onp.generic):
        return _NARROW.get(mstype.np_to_dtype(data.dtype), mstype.np_to_dtype(data.dtype))
    return _scalar_dtype(data)


def _rank(t):
    return (0 if t == mstype.bool_ else 3 if isinstance(t, mstype.Complex) else
            2 if isinstance(t, (mstype.Float, mstype.BFloat)) else 1, t.bits if hasattr(t, "bits") else 0)


def _to_tensor(x, dtype=None):
    """`x` (Tensor, numpy array, scalar, nested list) as a Tensor of `dtype` (inferred as mindspore.numpy does)."""
    dtype = _dtype(dtype)
    if isinstance(x, Tensor):
        return x if dtype is None or x.dtype == dtype else ops.cast(x, dtype)
    if dtype is None:
        dtype = _infer(x)
    if isinstance(x, onp.ndarray) and x.dtype in _NP_NARROW and dtype != mstype.np_to_dtype(x.dtype):
        x = x.astype(mstype.dtype_to_nptype(dtype))
    return Tensor(x, dtype)


def _to_tensors(*xs):
    """Several operands as Tensors; Python scalars take the dtype of the tensor operands (weak typing)."""
    return [x if isinstance(x, Tensor) else _to_tensor(x) if not isinstance(x, (bool, int, float)) else x for x in xs]


def _float(x):
    """x, cast to float32 when it is bool/integer (for functions numpy defines on floats)."""
    x = _to_tensor(x)
    return x if isinstance(x.dtype, _FLOAT_KINDS) else ops.cast(x, mstype.float32)


def _shape(shape):
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    if isinstance(shape, numbers.Integral):
        return (int(shape),)
    if not isinstance(shape, (tuple, list)) or not all(isinstance(s, numbers.Integral) for s in shape):
        raise TypeError(f"For 'mindspore.numpy', the shape must be an int or a tuple of ints, but got {shape!r}.")
    return tuple(int(s) for s in shape)


def _axis(axis, ndim, name="axis"):
    """A normalized axis (int) or tuple of axes; None stays None."""
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(_axis(a, ndim, name) for a in axis)
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"For 'mindspore.numpy', the '{name}' must be an int or a tuple of ints, but got {axis!r}.")
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise ValueError(f"For 'mindspore.numpy', the '{name}' {axis} is out of range for a tensor of rank {ndim}.")
    return axis % max(ndim, 1)
