"""Array creation of mindspore.numpy: array, arange, zeros, linspace, eye, *_like, ..."""
import numbers

import numpy as onp

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed import ops
from mindseed.numpy._manip import broadcast_arrays
from mindseed.numpy._utils import _dtype, _scalar_dtype, _shape, _to_tensor

__all__ = ["array", "asarray", "asfarray", "arange", "zeros", "ones", "full", "empty", "linspace", "logspace",
           "geomspace", "eye", "identity", "zeros_like", "ones_like", "full_like", "empty_like", "tri", "diag",
           "diagflat", "tril", "triu", "meshgrid"]


def array(obj, dtype=None, copy=True, ndmin=0):
    """A Tensor from a Tensor, numpy array, scalar or nested list (Python ints become int32, floats float32).

    Args:
        obj: the data.
        dtype (Union[mindspore.dtype, str]): the element type; inferred when ``None``. Default: ``None``.
        copy (bool): copy a Tensor input. Default: ``True``.
        ndmin (int): the minimum rank of the result (ones are prepended). Default: ``0``.

    Returns:
        Tensor.

    >>> import mindseed.numpy as mnp
    >>> mnp.array([1, 2]).dtype
    Int32
    """
    t = _to_tensor(obj, dtype)
    if copy and t is obj:
        t = t.copy()
    if t.ndim < ndmin:
        t = ops.reshape(t, (1,) * (ndmin - t.ndim) + t.shape)
    return t


def asarray(a, dtype=None):
    """`a` as a Tensor (a Tensor of the right dtype is returned as it is)."""
    return _to_tensor(a, dtype)


def asfarray(a, dtype=mstype.float32):
    """`a` as a float Tensor (float32 unless `dtype` is another float type)."""
    dtype = _dtype(dtype)
    if not mstype.is_float(dtype):
        dtype = mstype.float32
    return _to_tensor(a, dtype)


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in [start, stop): int32 for integer arguments, float32 otherwise.

    >>> import mindseed.numpy as mnp
    >>> mnp.arange(3)
    Tensor(shape=[3], dtype=Int32, value= [0, 1, 2])
    """
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(v, Tensor):
            v = v.item()
        if not isinstance(v, numbers.Real):
            raise TypeError(f"For 'arange', the '{name}' must be int or float, but got {type(v).__name__}.")
    start, stop, step = (v.item() if isinstance(v, Tensor) else v for v in (start, stop, step))
    if step == 0:
        raise ValueError("For 'arange', the 'step' must not be 0.")
    if dtype is None:
        dtype = mstype.int32 if all(isinstance(v, numbers.Integral) for v in (start, stop, step)) else mstype.float32
    return ops.arange(start, stop, step, dtype=_dtype(dtype))


def zeros(shape, dtype=mstype.float32):
    """A Tensor of zeros (float32 by default)."""
    return ops.zeros(_shape(shape), _dtype(dtype) or mstype.float32)


def ones(shape, dtype=mstype.float32):
    """A Tensor of ones (float32 by default)."""
    return ops.ones(_shape(shape), _dtype(dtype) or mstype.float32)


def empty(shape, dtype=mstype.float32):
    """A Tensor of the shape (zero-filled: uninitialized memory is never exposed)."""
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    """A Tensor filled with `fill_value` (dtype inferred from it: int -> int32, float -> float32).

    `fill_value` may also be a Tensor or sequence broadcast to `shape`.
    """
    shape = _shape(shape)
    if isinstance(fill_value, (bool, numbers.Number)) and not isinstance(fill_value, Tensor):
        return ops.full(shape, fill_value, dtype=_dtype(dtype) or _scalar_dtype(fill_value))
    return ops.broadcast_to(_to_tensor(fill_value, dtype), shape)


def _like_dtype(a, dtype):
    return _dtype(dtype) or _to_tensor(a).dtype


def _like_shape(a, shape):
    return _shape(shape) if shape is not None else _to_tensor(a).shape


def zeros_like(a, dtype=None, shape=None):
    """Zeros with the shape and dtype of `a` (either overridable)."""
    return ops.zeros(_like_shape(a, shape), _like_dtype(a, dtype))


def ones_like(a, dtype=None, shape=None):
    """Ones with the shape and dtype of `a` (either overridable)."""
    return ops.ones(_like_shape(a, shape), _like_dtype(a, dtype))


def empty_like(prototype, dtype=None, shape=None):
    """A Tensor with the shape and dtype of `prototype` (zero-filled)."""
    return zeros_like(prototype, dtype, shape)


def full_like(a, fill_value, dtype=None, shape=None):
    """`fill_value` in the shape and dtype of `a` (either overridable)."""
    return ops.full(_like_shape(a, shape), fill_value, dtype=_like_dtype(a, dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced float32 values from start to stop (stop excluded when not `endpoint`).

    Returns:
        Tensor, or (Tensor, step) with `retstep`.
    """
    if not isinstance(num, numbers.Integral) or num < 0:
        raise ValueError(f"For 'linspace', the 'num' must be a non-negative int, but got {num!r}.")
    dtype = _dtype(dtype) or mstype.float32
    start_t, stop_t = _to_tensor(start, mstype.float32), _to_tensor(stop, mstype.float32)
    div = (num - 1) if endpoint else num
    delta = ops.sub(stop_t, start_t)
    step = ops.div(delta, div) if div > 0 else ops.full_like(delta, float("nan"))
    idx = ops.arange(0, num, dtype=mstype.float32)
    idx = ops.reshape(idx, (num,) + (1,) * start_t.ndim)
    out = ops.add(start_t, ops.mul(idx, step)) if div > 0 else ops.add(start_t, ops.mul(idx, delta))
    if endpoint and num > 1:
        out = ops.concat((out[:-1], ops.expand_dims(ops.broadcast_to(stop_t, out.shape[1:]), 0)), 0)
    if axis != 0 and out.ndim > 1:
        out = ops.movedim(out, 0, axis)
    out = ops.cast(out, dtype)
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """`base ** linspace(start, stop, num)`, float32 by default."""
    exps = linspace(start, stop, num, endpoint, axis=axis)
    return ops.cast(ops.pow(float(base), exps), _dtype(dtype) or mstype.float32)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """`num` values from start to stop spaced evenly on a log scale.

    As MindSpore: `start * base ** linspace(0, root, num)` with `base = (stop / start) ** (1 / root)` in float32, so
    powers of two come out exact (geomspace(1, 256, 9) is [1, 2, 4, ..., 256]).
    """
    start_t, stop_t = broadcast_arrays(_to_tensor(start, mstype.float32), _to_tensor(stop, mstype.float32))
    root = num - 1 if endpoint else num
    bases = ops.pow(ops.div(stop_t, start_t), 1.0 / root if root else 0.0)
    last = ops.full(bases.shape, float(root), dtype=mstype.float32)
    exponents = linspace(ops.zeros(bases.shape, mstype.float32), last, num, endpoint=endpoint, axis=axis)
    axis = axis + bases.ndim + 1 if axis < 0 else axis
    expanded = bases.shape[:axis] + (1,) + bases.shape[axis:]
    out = ops.mul(ops.pow(ops.reshape(bases, expanded), exponents), ops.reshape(start_t, expanded))
    return ops.cast(out, _dtype(dtype) or mstype.float32)


def eye(N, M=None, k=0, dtype=mstype.float32):
    """An N x M matrix with ones on the k-th diagonal (float32 by default)."""
    M = N if M is None else M
    dtype = _dtype(dtype) or mstype.float32
    if k == 0:
        return ops.eye(N, M, dtype)
    return ops.cast(tri(N, M, k, mstype.int32) - tri(N, M, k - 1, mstype.int32), dtype)


def identity(n, dtype=mstype.float32):
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=mstype.float32):
    """Ones at and below the k-th diagonal of an N x M matrix."""
    M = N if M is None else M
    rows = ops.reshape(ops.arange(0, N, dtype=mstype.int32), (N, 1))
    cols = ops.reshape(ops.arange(0, M, dtype=mstype.int32), (1, M))
    return ops.cast(ops.less_equal(cols, rows + k), _dtype(dtype) or mstype.float32)


def diag(v, k=0):
    """The k-th diagonal of a 2-D `v`, or a 2-D matrix with the 1-D `v` on its k-th diagonal.

    Raises:
        ValueError: `v` is not 1-D or 2-D.
    """
    v = _to_tensor(v)
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        out = ops.zeros((n, n), v.dtype)
        rows = onp.arange(v.shape[0]) + max(-k, 0)
        cols = onp.arange(v.shape[0]) + max(k, 0)
        if v.shape[0] == 0:
            return out
        idx = Tensor(onp.stack([rows, cols], 1).astype(onp.int64))
        return ops.tensor_scatter_update(out, idx, v)
    if v.ndim == 2:
        return ops.diagonal(v, k, 0, 1)
    raise ValueError(f"For 'diag', the input must be 1-D or 2-D, but got rank {v.ndim}.")


def diagflat(v, k=0):
    """A 2-D matrix with the flattened `v` on its k-th diagonal."""
    return diag(ops.reshape(_to_tensor(v), (-1,)), k)


def tril(m, k=0):
    """`m` with the entries above the k-th diagonal zeroed (the last two axes)."""
    m = _to_tensor(m)
    if m.ndim < 2:
        m = ops.broadcast_to(m, (m.shape[-1] if m.ndim else 1,) * 2)
    return ops.tril(m, k)


def triu(m, k=0):
    """`m` with the entries below the k-th diagonal zeroed (the last two axes)."""
    m = _to_tensor(m)
    if m.ndim < 2:
        m = ops.broadcast_to(m, (m.shape[-1] if m.ndim else 1,) * 2)
    return ops.triu(m, k)


def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate matrices from coordinate vectors (numpy's meshgrid)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'meshgrid', the 'indexing' must be 'xy' or 'ij', but got {indexing!r}.")
    xs = [ops.reshape(_to_tensor(x), (-1,)) for x in xi]
    n = len(xs)
    shape = [x.shape[0] for x in xs]
    if indexing == "xy" and n >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(xs):
        s = [1] * n
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        s[pos] = x.shape[0]
        x = ops.reshape(x, tuple(s))
        out.append(x if sparse else ops.broadcast_to(x, tuple(shape)))
    return out  # a list, as MindSpore's meshgrid
