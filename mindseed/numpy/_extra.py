"""Less common mindspore.numpy functions: bitwise, nan-aware reductions, sets, indices, polynomials, windows."""
import builtins
import math
import numbers

import numpy as onp

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed import ops
from mindseed.numpy._utils import _axis, _dtype, _float, _shape, _to_tensor
from mindseed.numpy import _manip, _math

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert", "copysign", "gcd", "lcm",
           "heaviside", "logaddexp", "logaddexp2", "signbit", "isneginf", "isposinf", "divmod", "nanmax", "nanmin",
           "nanmean", "nanvar", "nanstd", "nancumsum", "rand", "randn", "randint", "append", "array_equiv",
           "isscalar", "isin", "in1d", "intersect1d", "setdiff1d", "tril_indices", "triu_indices",
           "tril_indices_from", "triu_indices_from", "diag_indices", "indices", "ix_", "unravel_index",
           "ravel_multi_index", "rollaxis", "select", "sometrue", "trapz", "vander", "polyval", "polyadd", "polysub",
           "polymul", "polyder", "polyint", "multi_dot", "pad", "interp", "digitize", "cov", "corrcoef", "convolve",
           "correlate", "hamming", "hanning", "bartlett", "blackman", "ediff1d", "choose", "gradient", "unwrap",
           "apply_along_axis", "apply_over_axes", "array_str", "histogram_bin_edges", "histogram", "histogramdd",
           "histogram2d", "around", "round", "matrix_power", "copy"]


def _binary(op, doc):
    def fn(x1, x2, dtype=None):
        out = op(*_math._operands(x1, x2))
        return out if dtype is None else ops.cast(out, _dtype(dtype))
    fn.__doc__ = doc
    return fn


bitwise_and = _binary(ops.bitwise_and, "x1 & x2 of integer/bool arrays.")
bitwise_or = _binary(ops.bitwise_or, "x1 | x2 of integer/bool arrays.")
bitwise_xor = _binary(ops.bitwise_xor, "x1 ^ x2 of integer/bool arrays.")
def copysign(x1, x2, dtype=None):
    """The magnitude of x1 with the sign of x2 (x1's dtype kept, integers included, as MindSpore)."""
    a, b = _to_tensor(x1), _to_tensor(x2)
    if a.dtype == mstype.bool_ or b.dtype == mstype.bool_:
        raise TypeError("sign does not accept dtype bool.")
    shape = _manip.broadcast_arrays(a, b)[0].shape
    a, b = ops.broadcast_to(a, shape), ops.broadcast_to(b, shape)
    pos = ops.abs(a) if mstype.is_float(a.dtype) else ops.cast(ops.abs(ops.cast(a, mstype.float32)), a.dtype)
    out = ops.select(ops.less(b, 0), ops.neg(pos), pos)
    return out if dtype is None else ops.cast(out, _dtype(dtype))


gcd = _binary(ops.gcd, "The greatest common divisor of integer arrays.")
lcm = _binary(ops.lcm, "The least common multiple of integer arrays.")
heaviside = _binary(lambda a, b: ops.heaviside(_float(a), _float(b)), "0 where x1 < 0, x2 where x1 == 0, 1 otherwise.")
logaddexp = _binary(lambda a, b: ops.logaddexp(_float(a), _float(b)), "log(exp(x1) + exp(x2)).")
logaddexp2 = _binary(lambda a, b: ops.logaddexp2(_float(a), _float(b)), "log2(2 ** x1 + 2 ** x2).")


def bitwise_not(x, dtype=None):
    """~x of an integer/bool array."""
    out = ops.bitwise_not(_to_tensor(x)) if _to_tensor(x).dtype != mstype.bool_ else ops.logical_not(_to_tensor(x))
    return out if dtype is None else ops.cast(out, _dtype(dtype))


invert = bitwise_not


def signbit(x, dtype=None):
    """Whether the sign bit is set (True for negative numbers)."""
    out = ops.signbit(_float(x))
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def isneginf(x):
    """x is -inf, elementwise."""
    return ops.isneginf(_to_tensor(x))


def isposinf(x):
    """x is +inf, elementwise."""
    return ops.isposinf(_to_tensor(x))


def divmod(x1, x2, dtype=None):  # noqa: A001 -- numpy's name
    """(floor_divide(x1, x2), remainder(x1, x2))."""
    return _math.floor_divide(x1, x2, dtype), _math.remainder(x1, x2, dtype)


# ---------------------------------------------------------------- nan-aware reductions
def _without_nan(a, fill):
    a = _float(a)
    return ops.where(ops.isnan(a), ops.full_like(a, fill), a)


def nanmax(a, axis=None, dtype=None, keepdims=False):
    """The maximum over `axis`, ignoring NaNs (cast to `dtype` when given)."""
    out = _math.amax(_without_nan(a, -math.inf), axis, keepdims)
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def nanmin(a, axis=None, dtype=None, keepdims=False):
    """The minimum over `axis`, ignoring NaNs (cast to `dtype` when given)."""
    out = _math.amin(_without_nan(a, math.inf), axis, keepdims)
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """The mean over `axis`, ignoring NaNs."""
    a = _float(a)
    a, axis = a, _axis(axis, a.ndim)
    valid = ops.cast(ops.logical_not(ops.isnan(a)), a.dtype)
    out = ops.div(ops.sum(_without_nan(a, 0.0), axis, keepdims), ops.sum(valid, axis, keepdims))
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The variance over `axis`, ignoring NaNs."""
    a = _float(a)
    axis = _axis(axis, a.ndim)
    valid = ops.cast(ops.logical_not(ops.isnan(a)), a.dtype)
    mean = nanmean(a, axis, keepdims=True)
    sq = ops.square(ops.sub(_without_nan(a, 0.0), mean))
    out = ops.div(ops.sum(ops.mul(sq, valid), axis, keepdims), ops.sub(ops.sum(valid, axis, keepdims), ddof))
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """The standard deviation over `axis`, ignoring NaNs."""
    return ops.sqrt(nanvar(a, axis, dtype, ddof, keepdims))


def nancumsum(a, axis=None, dtype=None):
    """Cumulative sum along `axis`, NaNs counted as zero."""
    return _math.cumsum(_without_nan(a, 0.0), axis, dtype)


# ---------------------------------------------------------------- random
def rand(*shape, dtype=mstype.float32):
    """Uniform samples in [0, 1) of the given shape."""
    shape = _shape(shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape)
    return ops.rand(*shape, dtype=_dtype(dtype))


def randn(*shape, dtype=mstype.float32):
    """Standard normal samples of the given shape."""
    shape = _shape(shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape)
    return ops.randn(*shape, dtype=_dtype(dtype))


def randint(minval, maxval=None, shape=None, dtype=mstype.int32):
    """Random integers in [minval, maxval) ([0, minval) without `maxval`)."""
    if maxval is None:
        minval, maxval = 0, minval
    if maxval <= minval:
        raise ValueError(f"For 'randint', 'maxval' must be greater than 'minval', but got {minval} and {maxval}.")
    shape = () if shape is None else _shape(shape)
    return ops.randint(minval, maxval, shape, dtype=_dtype(dtype))


# ---------------------------------------------------------------- sequences and sets
def append(arr, values, axis=None):
    """`values` appended to `arr` (both flattened when `axis` is None)."""
    if axis is None:
        return _manip.concatenate((_manip.ravel(arr), _manip.ravel(values)), 0)
    return _manip.concatenate((arr, values), axis)


def array_equiv(a1, a2):
    """Whether the arrays are equal after broadcasting (a bool Tensor)."""
    a1, a2 = _to_tensor(a1), _to_tensor(a2)
    try:
        shape = _manip._bshape(a1.shape, a2.shape)
    except ValueError:
        return Tensor(False)
    return ops.all(ops.equal(ops.broadcast_to(a1, shape), ops.broadcast_to(a2, shape)))


def isscalar(element):
    """Whether `element` is a Python/numpy scalar (a Tensor is not)."""
    return isinstance(element, (numbers.Number, str, bytes, onp.generic))


def isin(element, test_elements, invert=False):
    """Whether each element of `element` occurs in `test_elements`."""
    e = _to_tensor(element)
    t = _manip.ravel(test_elements)
    hit = ops.any(ops.equal(ops.expand_dims(e, -1), t), -1) if t.shape[0] else ops.zeros(e.shape, mstype.bool_)
    return ops.logical_not(hit) if invert else hit


def in1d(ar1, ar2, invert=False):
    """`isin` of the flattened `ar1`."""
    return isin(_manip.ravel(ar1), ar2, invert)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted unique values present in both arrays; with `return_indices` also where each first occurs in the
    flattened `ar1` and `ar2` (int32). `assume_unique` skips making the inputs unique."""
    if not isinstance(assume_unique, bool) or not isinstance(return_indices, bool):
        raise TypeError("assume_unique or return_indices is not bool type.")
    for x in (ar1, ar2):
        if x is None or isinstance(x, (str, bytes, dict)):
            raise TypeError(f"For 'intersect1d', the inputs must be arrays, but got {type(x).__name__}.")
    a, b = _to_tensor(ar1), _to_tensor(ar2)
    # the values are found on the host (a data-dependent size), as the other set routines here
    res = onp.intersect1d(a.asnumpy(), b.asnumpy(), assume_unique=assume_unique, return_indices=return_indices)
    if not return_indices:
        return Tensor(res, a.dtype)
    values, i1, i2 = res
    return Tensor(values, a.dtype), Tensor(i1.astype(onp.int32)), Tensor(i2.astype(onp.int32))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The values of `ar1` not in `ar2`: unique and sorted, or with `assume_unique` those of the flattened `ar1` in
    their order."""
    if not isinstance(assume_unique, bool):
        raise TypeError("assume_unique is not bool type.")
    a = _to_tensor(ar1).reshape(-1) if assume_unique else ops.sort(_manip.unique(ar1))[0]
    keep = onp.flatnonzero(isin(a, ar2, invert=True).asnumpy())
    return ops.gather(a, Tensor(keep.astype(onp.int64)), 0)


# ---------------------------------------------------------------- index helpers
def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle of an n x m matrix."""
    idx = ops.tril_indices(n, n if m is None else m, k, dtype=mstype.int32)
    return idx[0], idx[1]


def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle of an n x m matrix."""
    idx = ops.triu_indices(n, n if m is None else m, k, dtype=mstype.int32)
    return idx[0], idx[1]


def tril_indices_from(arr, k=0):
    """`tril_indices` for the shape of the 2-D `arr`."""
    s = _to_tensor(arr).shape
    return tril_indices(s[-2], k, s[-1])


def triu_indices_from(arr, k=0):
    """`triu_indices` for the shape of the 2-D `arr`."""
    s = _to_tensor(arr).shape
    return triu_indices(s[-2], k, s[-1])


def diag_indices(n, ndim=2):
    """Indices of the main diagonal of an n x ... x n array."""
    i = ops.arange(0, n, dtype=mstype.int32)
    return (i,) * ndim


def indices(dimensions, dtype=mstype.int32, sparse=False):
    """An array of the index grids of an array of shape `dimensions`."""
    dims = _shape(dimensions)
    # MindSpore returns meshgrid's list of grids (numpy stacks them when not sparse)
    return _manip_meshgrid([ops.arange(0, d, dtype=_dtype(dtype)) for d in dims], sparse)


def _manip_meshgrid(vectors, sparse):
    from mindseed.numpy._creation import meshgrid  # noqa: PLC0415 -- sibling module, avoids a cycle at import
    return meshgrid(*vectors, sparse=sparse, indexing="ij")


def ix_(*args):
    """Open index grids: argument i reshaped to extend along axis i."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = _to_tensor(a)
        if a.dtype == mstype.bool_:
            a = Tensor(onp.flatnonzero(a.asnumpy()).astype(onp.int32))
        out.append(ops.reshape(a, (1,) * i + (-1,) + (1,) * (n - i - 1)))
    return tuple(out)


def unravel_index(indices, shape, order="C"):
    """Flat indices as tuples of coordinate arrays for `shape`."""
    idx = _to_tensor(indices)
    dims = _shape(shape)
    out = []
    order_dims = dims if order == "C" else dims[::-1]
    for d in reversed(order_dims):
        out.append(ops.remainder(idx, d))
        idx = ops.floor_divide(idx, d)
    out = out[::-1]
    return tuple(out if order == "C" else out[::-1])


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """Coordinate arrays as flat indices into an array of shape `dims`."""
    dims = _shape(dims)
    strides, s = [], 1
    for d in (reversed(dims) if order == "C" else dims):
        strides.append(s)
        s *= d
    strides = strides[::-1] if order == "C" else strides
    out = None
    for coord, d, st in zip(multi_index, dims, strides):
        c = _to_tensor(coord)
        c = ops.clamp(c, 0, d - 1) if mode == "clip" else ops.remainder(c, d) if mode == "wrap" else c
        out = ops.mul(c, st) if out is None else ops.add(out, ops.mul(c, st))
    return out


def rollaxis(x, axis, start=0):
    """`x` with `axis` moved to position `start` (numpy's rollaxis)."""
    x = _to_tensor(x)
    axis = _axis(axis, x.ndim)
    start = start + x.ndim if start < 0 else start
    if axis < start:
        start -= 1
    return ops.movedim(x, axis, start) if axis != start else x


def select(condlist, choicelist, default=0):
    """Per element, the choice of the first true condition (`default` where none holds)."""
    if len(condlist) != len(choicelist):
        raise ValueError("For 'select', 'condlist' and 'choicelist' must have the same length.")
    choices = [_to_tensor(c) for c in choicelist]
    out = None
    for cond, choice in zip(reversed(condlist), reversed(choices)):
        base = ops.full_like(choice, default) if out is None else out
        out = ops.where(_to_tensor(cond, mstype.bool_), choice, base)
    return out


def sometrue(a, axis=None, keepdims=False):
    """Whether any element over `axis` is true (`keepdims` an int or bool, as numpy's)."""
    if not isinstance(keepdims, int):
        raise TypeError(f"integer argument expected, but got {keepdims}")
    a = _to_tensor(a)
    return ops.any(ops.cast(a, mstype.bool_), _axis(axis, a.ndim), keepdims not in (0, False))


def choose(a, choices, mode="clip"):
    """Per element, `choices[a[i]][i]` (indices clipped or wrapped into range)."""
    idx = _to_tensor(a, mstype.int32)
    cs = [_to_tensor(c) for c in choices]
    n = len(cs)
    idx = ops.clamp(idx, 0, n - 1) if mode == "clip" else ops.remainder(idx, n)
    out = cs[0]
    for k in range(1, n):
        out = ops.where(ops.equal(idx, k), cs[k], out)
    return ops.broadcast_to(out, _manip._bshape(out.shape, idx.shape))


# ---------------------------------------------------------------- calculus, polynomials, statistics
def trapz(y, x=None, dx=1.0, axis=-1):
    """The integral of `y` by the trapezoidal rule along `axis`."""
    return ops.trapz(_float(y), None if x is None else _float(x), dx=dx, dim=axis)


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences between consecutive elements of the flattened array."""
    d = ops.diff(_manip.ravel(ary))
    parts = [_manip.ravel(to_begin)] if to_begin is not None else []
    parts.append(d)
    if to_end is not None:
        parts.append(_manip.ravel(to_end))
    return _manip.concatenate(parts) if len(parts) > 1 else d


def gradient(f, *varargs, axis=None, edge_order=1):
    """The gradient of `f` by second-order central differences inside and first-order ones at the edges."""
    f = _float(f)
    axes = range(f.ndim) if axis is None else [_axis(a, f.ndim) for a in (axis if isinstance(axis, (tuple, list))
                                                                           else (axis,))]
    axes = list(axes)
    spacing = list(varargs) if varargs else [1.0] * len(axes)
    if len(spacing) == 1 and len(axes) > 1:
        spacing = spacing * len(axes)
    out = []
    for ax, h in zip(axes, spacing):
        n = f.shape[ax]
        if n < 2:
            raise ValueError("For 'gradient', each axis must have at least 2 elements.")

        def sl(a, b, ax=ax):
            return (slice(None),) * ax + (slice(a, b),)
        first = ops.div(ops.sub(f[sl(1, 2)], f[sl(0, 1)]), h)
        last = ops.div(ops.sub(f[sl(n - 1, n)], f[sl(n - 2, n - 1)]), h)
        inner = ops.div(ops.sub(f[sl(2, n)], f[sl(0, n - 2)]), 2.0 * h) if n > 2 else None
        out.append(ops.concat([first, inner, last] if inner is not None else [first, last], ax))
    return out[0] if len(out) == 1 else out


def unwrap(p, discont=math.pi, axis=-1, period=2 * math.pi):
    """Phases `p` with jumps larger than `discont` replaced by their `period` complement."""
    p = _float(p)
    axis = _axis(axis, p.ndim)
    dd = ops.diff(p, 1, axis)
    half = period / 2
    ddmod = ops.sub(ops.remainder(ops.add(dd, half), period), half)
    ddmod = ops.where(ops.logical_and(ops.equal(ddmod, -half), dd > 0), ops.full_like(ddmod, half), ddmod)
    corr = ops.where(ops.abs(dd) < max(discont, half), ops.zeros_like(dd), ops.sub(ddmod, dd))
    first = p[(slice(None),) * axis + (slice(0, 1),)]
    return ops.concat([first, ops.add(p[(slice(None),) * axis + (slice(1, None),)], ops.cumsum(corr, axis))], axis)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D `x`."""
    x = _to_tensor(x)
    n = x.shape[0] if N is None else N
    powers = ops.arange(0, n, dtype=x.dtype if not mstype.is_integral(x.dtype) else mstype.int32)
    if not increasing:
        powers = ops.flip(powers, (0,))
    return ops.pow(ops.expand_dims(x, 1), ops.expand_dims(powers, 0))


def polyval(p, x):
    """The polynomial with coefficients `p` (highest degree first) evaluated at `x` (Horner's rule)."""
    p = _to_tensor(p)
    x = _to_tensor(x)
    # MindSpore evaluates x ** float32 exponents: the result is float32 (float64 when an input is)
    work = mstype.float64 if mstype.float64 in (p.dtype, x.dtype) else mstype.float32
    p, x = ops.cast(p, work), ops.cast(x, work)
    out = ops.zeros_like(x)
    for i in range(p.shape[0]):
        out = ops.add(ops.mul(out, x), p[i])
    return out


def _pad_left(a, n):
    return a if a.shape[0] >= n else ops.concat([ops.zeros((n - a.shape[0],), a.dtype), a], 0)


def polyadd(a1, a2):
    """The sum of two polynomials."""
    a1, a2 = _to_tensor(a1), _to_tensor(a2)
    n = builtins.max(a1.shape[0], a2.shape[0])
    return ops.add(_pad_left(a1, n), _pad_left(a2, n))


def polysub(a1, a2):
    """The difference of two polynomials."""
    a1, a2 = _to_tensor(a1), _to_tensor(a2)
    n = builtins.max(a1.shape[0], a2.shape[0])
    return ops.sub(_pad_left(a1, n), _pad_left(a2, n))


def polymul(a1, a2):
    """The product of two polynomials."""
    return convolve(a1, a2)


def polyder(p, m=1):
    """The m-th derivative of a polynomial."""
    p = _to_tensor(p)
    for _ in range(m):
        n = p.shape[0] - 1
        if n <= 0:
            return ops.zeros((0,), p.dtype)
        p = ops.mul(p[:-1], ops.cast(ops.arange(n, 0, -1, dtype=mstype.int32), p.dtype))
    return p


def polyint(p, m=1, k=None):
    """The m-th antiderivative of a polynomial (integration constants `k`, zero by default)."""
    p = _float(p)
    ks = [0.0] * m if k is None else ([k] * m if isinstance(k, numbers.Number) else list(k))
    for i in range(m):
        n = p.shape[0]
        p = ops.concat([ops.div(p, ops.cast(ops.arange(n, 0, -1, dtype=mstype.int32), p.dtype)),
                        ops.full((1,), ks[i], dtype=p.dtype)], 0)
    return p


def multi_dot(arrays):
    """The matrix product of several arrays (the first and last may be 1-D)."""
    out = _to_tensor(arrays[0])
    for a in arrays[1:]:
        out = _math.dot(out, a)
    return out


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """The covariance matrix of the variables (rows of `m` unless `rowvar` is False)."""
    m = _float(m)
    if m.ndim == 1:
        m = ops.reshape(m, (1, -1))
    if not rowvar:
        m = ops.transpose(m, (1, 0))
    if y is not None:
        y = _float(y)
        y = ops.reshape(y, (1, -1)) if y.ndim == 1 else (y if rowvar else ops.transpose(y, (1, 0)))
        m = ops.concat([m, y], 0)
    correction = (0 if bias else 1) if ddof is None else ddof
    out = ops.cov(m, correction=correction, fweights=None if fweights is None else _to_tensor(fweights),
                  aweights=None if aweights is None else _float(aweights))
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients of the variables."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return ops.div(c, c)
    d = ops.sqrt(ops.diagonal(c))
    out = ops.clamp(ops.div(ops.div(c, ops.expand_dims(d, 1)), ops.expand_dims(d, 0)), -1.0, 1.0)
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def _full_conv(a, v):
    a, v = _manip.ravel(a), _manip.ravel(v)
    dt = mstype.promote_types(a.dtype, v.dtype)
    a, v = ops.cast(a, dt), ops.cast(v, dt)
    n, k = a.shape[0], v.shape[0]
    if n == 0 or k == 0:
        raise ValueError("For 'convolve', the inputs cannot be empty.")
    # out[i] = sum_j a[j] v[i - j]: an outer product summed along its anti-diagonals
    prod = ops.mul(ops.expand_dims(a, 1), ops.expand_dims(v, 0))
    rows = onp.arange(n)[:, None] + onp.arange(k)[None, :]
    seg = Tensor(rows.reshape(-1).astype(onp.int32))
    return ops.unsorted_segment_sum(ops.reshape(prod, (-1,)), seg, n + k - 1)


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two 1-D arrays ('full', 'same' or 'valid')."""
    full = _full_conv(a, v)
    n, k = _manip.ravel(a).shape[0], _manip.ravel(v).shape[0]
    if mode == "full":
        return full
    if mode == "same":
        length = builtins.max(n, k)
        start = (n + k - 1 - length) // 2
        return full[start:start + length]
    if mode == "valid":
        length = builtins.max(n, k) - builtins.min(n, k) + 1
        start = builtins.min(n, k) - 1
        return full[start:start + length]
    raise ValueError(f"For 'convolve', the 'mode' must be 'full', 'same' or 'valid', but got {mode!r}.")


def correlate(a, v, mode="valid"):
    """The cross-correlation of two 1-D arrays."""
    v = _manip.ravel(v)
    if mstype.is_complex(v.dtype):
        v = ops.conj(v)
    return convolve(a, ops.flip(v, (0,)), mode)


def _window(m, fn):
    # NOTE: MindSpore computes the windows in float32 tensor arithmetic (float32 angle step times a float32 iota),
    # so the values carry float32 rounding (hamming(12)[0] prints 0.08000001): done the same way here.
    if not isinstance(m, int):
        raise TypeError("the number fo points should be an int")
    if m <= 1:
        return ops.ones((max(0, m),), mstype.float32)
    return Tensor(fn(onp.arange(m, dtype=onp.float32), m).astype(onp.float32))


def _cos_f32(step, n):
    return onp.cos(onp.float32(step) * n)


def hamming(M):
    """The Hamming window of M points."""
    return _window(M, lambda n, m: onp.float32(0.54) - onp.float32(0.46) * _cos_f32(2 * onp.pi / (m - 1), n))


def hanning(M):
    """The Hann window of M points."""
    return _window(M, lambda n, m: onp.float32(0.5) - onp.float32(0.5) * _cos_f32(2 * onp.pi / (m - 1), n))


def bartlett(M):
    """The Bartlett (triangular) window of M points."""
    return _window(M, lambda n, m: onp.float32(1) - onp.abs(onp.float32(2) * n - onp.float32(m - 1)) / onp.float32(
        m - 1))


def blackman(M):
    """The Blackman window of M points."""
    def fn(n, m):
        n2 = onp.float32(2) * n - onp.float32(m - 1)  # MindSpore's arange(1 - M, M, 2)
        return (onp.float32(0.42) + onp.float32(0.5) * _cos_f32(onp.pi / (m - 1), n2)
                + onp.float32(0.08) * _cos_f32(2 * onp.pi / (m - 1), n2))
    return _window(M, fn)


_PAD_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum", "reflect", "symmetric",
              "wrap", "empty")


def _per_axis(value, ndim, name):
    """numpy's pad argument broadcast to ((before, after),) per axis."""
    try:
        return onp.broadcast_to(onp.asarray(value, dtype=object), (ndim, 2)).tolist()
    except ValueError:
        raise ValueError(f"For 'pad', '{name}' {value!r} cannot broadcast to ({ndim}, 2).") from None


def _cyclic_index(i, n, mode):
    """Indices of the elements of a dim of size n that numpy's 'wrap'/'reflect'/'symmetric' put at positions i
    (relative to the dim's start; negative before it)."""
    if mode == "wrap":
        return onp.mod(i, n)
    if mode == "symmetric":
        k = onp.mod(i, 2 * n)
        return onp.where(k >= n, 2 * n - 1 - k, k)
    if n == 1:
        return onp.zeros_like(i)
    k = onp.mod(i, 2 * (n - 1))
    return onp.where(k >= n, 2 * (n - 1) - k, k)


def _pad_side(x, axis, width, side, mode, stat_length, constant, end_value, reflect_type):
    """The `width` elements numpy puts on `side` (0: before, 1: after) of `axis`."""
    n = x.shape[axis]
    shape = list(x.shape)
    shape[axis] = width
    take = lambda idx: ops.gather(x, Tensor(onp.asarray(idx, onp.int64)), axis)  # noqa: E731
    edge_index = 0 if side == 0 else n - 1
    if mode in ("constant", "empty"):
        return ops.full(tuple(shape), constant if mode == "constant" else 0, dtype=x.dtype)
    if mode == "edge":
        return take([edge_index] * width)
    if mode in ("maximum", "minimum", "mean", "median"):
        length = n if stat_length is None else max(1, min(int(stat_length), n))
        part = take(range(length) if side == 0 else range(n - length, n))
        if mode == "maximum":
            stat = ops.amax(part, axis, keepdims=True)
        elif mode == "minimum":
            stat = ops.amin(part, axis, keepdims=True)
        elif mode == "mean":
            stat = ops.mean(_float(part), axis, keep_dims=True)
        else:
            stat = ops.quantile(_float(part), 0.5, axis, keepdims=True)
        if mstype.is_float(stat.dtype) and not mstype.is_float(x.dtype):
            stat = ops.cast(ops.round(stat), x.dtype)
        return ops.broadcast_to(ops.cast(stat, x.dtype), tuple(shape))
    if mode == "linear_ramp":
        edge = _float(take([edge_index]))
        end = ops.full_like(edge, float(end_value))
        steps = onp.arange(width, dtype=onp.float32) / width
        if side == 1:
            steps = steps[::-1].copy()
        frac = ops.reshape(Tensor(steps), tuple(width if d == axis else 1 for d in builtins.range(x.ndim)))
        ramp = ops.add(end, ops.mul(ops.sub(edge, end), frac))
        return ops.cast(ramp if mstype.is_float(x.dtype) else ops.trunc(ramp), x.dtype)  # numpy truncates
    pos = onp.arange(-width, 0) if side == 0 else onp.arange(n, n + width)
    out = take(_cyclic_index(pos, n, mode))
    if reflect_type == "odd" and mode in ("reflect", "symmetric"):
        edge = take([edge_index])
        out = ops.sub(ops.mul(edge, 2), out)
    return out


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0, reflect_type="even",
        **kwargs):
    """`arr` padded as numpy's pad: `pad_width` is ((before, after),) per axis, or one pair/int for all axes; every
    numpy mode ('constant', 'edge', 'linear_ramp', 'maximum', 'mean', 'median', 'minimum', 'reflect',
    'symmetric', 'wrap', 'empty') or a function `f(vector, pad_width, iaxis, kwargs)` filling a 1-D view."""
    x = _to_tensor(arr)
    if x.ndim == 0:
        return x
    widths = [(int(b), int(a)) for b, a in _per_axis(pad_width, x.ndim, "pad_width")]
    if any(b < 0 or a < 0 for b, a in widths):
        raise ValueError(f"For 'pad', 'pad_width' must be non-negative, but got {pad_width!r}.")
    if callable(mode):
        data = x.asnumpy()
        out = onp.pad(data, widths, mode, **kwargs)
        return Tensor(out, x.dtype)
    if mode not in _PAD_MODES:
        raise ValueError(f"For 'pad', the 'mode' must be one of {list(_PAD_MODES)}, but got {mode!r}.")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"For 'pad', 'reflect_type' must be 'even' or 'odd', but got {reflect_type!r}.")
    stats = _per_axis(stat_length, x.ndim, "stat_length")
    consts = _per_axis(constant_values, x.ndim, "constant_values")
    ends = _per_axis(end_values, x.ndim, "end_values")
    for axis, (before, after) in enumerate(widths):
        if before == 0 and after == 0:
            continue
        if x.shape[axis] == 0 and mode not in ("constant", "empty"):
            raise ValueError(f"For 'pad', can't extend an empty axis {axis} in mode {mode!r}.")
        parts = [x]
        for side, width in ((0, before), (1, after)):
            if width:
                piece = _pad_side(x, axis, width, side, mode, stats[axis][side], consts[axis][side],
                                  ends[axis][side], reflect_type)
                parts.insert(0 if side == 0 else len(parts), piece)
        x = ops.concat(parts, axis)
    return x


def interp(x, xp, fp, left=None, right=None):
    """Linear interpolation of the points (xp, fp) at `x` (xp increasing)."""
    x, xp, fp = _float(x), _float(xp), _float(fp)
    n = xp.shape[0]
    i = ops.clamp(ops.searchsorted(xp, x, right=True), 1, n - 1)
    x0, x1 = ops.gather(xp, i - 1, 0), ops.gather(xp, i, 0)
    y0, y1 = ops.gather(fp, i - 1, 0), ops.gather(fp, i, 0)
    out = ops.add(y0, ops.mul(ops.div(ops.sub(x, x0), ops.sub(x1, x0)), ops.sub(y1, y0)))
    out = ops.where(x < xp[0], ops.full_like(out, fp[0].item() if left is None else left), out)
    return ops.where(x > xp[n - 1], ops.full_like(out, fp[n - 1].item() if right is None else right), out)


def digitize(x, bins, right=False):
    """Index of the bin of each value of `x` (bins increasing)."""
    x, bins = _to_tensor(x), _to_tensor(bins)
    return ops.searchsorted(bins, x, out_int32=True, right=not right)


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002 -- numpy's name
    """Edges of `bins` equal-width bins over `range` (the data's min/max by default)."""
    a = _float(a)
    if isinstance(bins, int):
        lo, hi = (ops.amin(a).item(), ops.amax(a).item()) if range is None else range
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        return ops.linspace(float(lo), float(hi), bins + 1)
    # an explicit sequence of edges comes back as given (int edges stay int32, as MindSpore's)
    bins = _to_tensor(bins)
    if bins.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    return bins


def histogram(a, bins=10, range=None, weights=None, density=False):  # noqa: A002 -- numpy's name
    """Counts of the values of `a` in each bin, and the bin edges (the last bin includes its right edge)."""
    a = _manip.ravel(_float(a))
    edges = histogram_bin_edges(a, bins, range)
    nb = edges.shape[0] - 1
    idx, inside = _bin_index(a, edges)
    w = ops.ones_like(a) if weights is None else _manip.ravel(_float(weights))
    w = ops.where(inside, w, ops.zeros_like(w))
    counts = ops.unsorted_segment_sum(w, ops.cast(idx, mstype.int32), nb)
    if density:
        counts = ops.div(counts, ops.mul(ops.sum(counts), ops.diff(edges)))
    return counts, edges


def _bin_index(values, edges):
    """The bin of each value over increasing `edges` (the last bin includes its right edge), and whether the value
    falls inside the edges at all."""
    edges = _float(edges)
    nb = edges.shape[0] - 1
    idx = ops.searchsorted(edges, values, right=True) - 1
    idx = ops.where(ops.equal(values, edges[nb]), ops.full_like(idx, nb - 1), idx)
    return ops.clamp(idx, 0, nb - 1), ops.logical_and(idx >= 0, idx < nb)


def histogramdd(sample, bins=10, range=None, weights=None, density=False):  # noqa: A002 -- numpy's name
    """The D-dimensional histogram of the rows of an (N, D) `sample` (or of a sequence of D coordinate arrays):
    the counts (float32) and the list of each dimension's bin edges, as MindSpore's `numpy.histogramdd`."""
    if isinstance(sample, (tuple, list)):
        sample = ops.stack([_float(s) for s in sample], -1)
    elif not isinstance(sample, Tensor):
        raise TypeError("sample should be (N, D) array, or (D, N) array_like")
    if sample.ndim != 2:
        raise ValueError("when an array, sample should be 2-dimensional")
    sample = _float(sample)
    ndim = sample.shape[1]
    if isinstance(bins, int):
        bins = [bins] * ndim
    if not isinstance(bins, (tuple, list, Tensor)):
        raise TypeError("bins should be int or sequence")
    if len(bins) != ndim:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample")
    if range is None:
        range = [None] * ndim  # noqa: A001 -- numpy's name
    elif len(range) != ndim:
        raise ValueError("range argument must have one entry per dimension")
    edges = [histogram_bin_edges(sample[:, i], bins[i], range[i]) for i in builtins.range(ndim)]
    sizes = [e.shape[0] - 1 for e in edges]
    flat = ops.zeros(sample.shape[0], mstype.int32)
    inside = ops.ones(sample.shape[0], mstype.bool_)
    for i, e in enumerate(edges):
        idx, ok = _bin_index(sample[:, i], e)
        flat = ops.add(ops.mul(flat, sizes[i]), ops.cast(idx, mstype.int32))
        inside = ops.logical_and(inside, ok)
    w = ops.ones(sample.shape[0], mstype.float32) if weights is None else _manip.ravel(_float(weights))
    w = ops.where(inside, w, ops.zeros_like(w))
    count = ops.reshape(ops.unsorted_segment_sum(w, flat, int(onp.prod(sizes))), tuple(sizes))
    if density:
        total = ops.sum(count)
        for i, e in enumerate(edges):
            shape = [1] * ndim
            shape[i] = sizes[i]
            count = ops.div(count, ops.reshape(ops.diff(e), tuple(shape)))
        count = ops.div(count, total)
    return count, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):  # noqa: A002 -- numpy's name
    """The 2-D histogram of points (x, y): counts and the x and y bin edges."""
    count, edges = histogramdd((x, y), bins=bins, range=range, weights=weights, density=density)
    return count, edges[0], edges[1]


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to the 1-D slices of `arr` along `axis`."""
    arr = _to_tensor(arr)
    axis = _axis(axis, arr.ndim)
    moved = ops.movedim(arr, axis, -1)
    lead = moved.shape[:-1]
    flat = ops.reshape(moved, (-1, moved.shape[-1]))
    res = [_to_tensor(func1d(flat[i], *args, **kwargs)) for i in builtins.range(flat.shape[0])]
    out = ops.stack(res, 0)
    out = ops.reshape(out, lead + out.shape[1:])
    return ops.movedim(out, -1, axis) if out.ndim == arr.ndim else out


def apply_over_axes(func, a, axes):
    """func(a, axis) applied for each axis in turn, keeping the rank."""
    out = _to_tensor(a)
    for ax in (axes if isinstance(axes, (tuple, list)) else (axes,)):
        res = func(out, ax)
        out = res if res.ndim == out.ndim else ops.expand_dims(res, ax)
    return out


def array_str(a):
    """str() of the array."""
    return str(_to_tensor(a))


def piecewise(x, condlist, funclist, *args, **kw):
    """Per element, funclist[i] (a function of x or a constant) where condlist[i] holds; a final extra function
    is the default where no condition holds."""
    x = _to_tensor(x)
    conds = [_to_tensor(c, mstype.bool_) for c in (condlist if isinstance(condlist, (list, tuple)) else [condlist])]
    if len(funclist) == len(conds) + 1:
        none = ops.logical_not(ops.any(ops.stack(conds, 0), 0)) if conds else ops.ones(x.shape, mstype.bool_)
        conds.append(none)
    if len(funclist) != len(conds):
        raise ValueError(f"For 'piecewise', with {len(conds)} conditions 'funclist' must have {len(conds)} or "
                         f"{len(conds) + 1} items, but got {len(funclist)}.")
    out = ops.zeros_like(x)
    for cond, fn in zip(conds, funclist):
        val = fn(x, *args, **kw) if callable(fn) else fn
        val = ops.broadcast_to(ops.cast(_to_tensor(val), x.dtype), x.shape)
        out = ops.where(cond, val, out)
    return out


class _Grid:
    """mgrid/ogrid: `grid[0:5, 0:3]` gives index grids; a complex step `5j` means that many points (inclusive)."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        vecs = []
        for k in keys:
            if not isinstance(k, slice):
                raise TypeError(f"For 'mgrid/ogrid', the index must be slices, but got {type(k).__name__}.")
            start = 0 if k.start is None else k.start
            step = 1 if k.step is None else k.step
            if isinstance(step, complex):
                vecs.append(ops.linspace(float(start), float(k.stop), int(abs(step))))
            else:
                is_int = all(isinstance(v, numbers.Integral) for v in (start, k.stop, step))
                vecs.append(ops.arange(start, k.stop, step, dtype=mstype.int32 if is_int else mstype.float32))
        if len(vecs) == 1:
            return vecs[0]
        grids = _manip_meshgrid(vecs, self.sparse)
        return grids if self.sparse else ops.stack(grids, 0)  # ogrid: MindSpore's list


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)
__all__ += ["piecewise", "mgrid", "ogrid"]


def around(a, decimals=0):
    """`a` rounded half to even to `decimals` places (MindSpore: no negative decimals), in `a`'s dtype."""
    a = a if isinstance(a, Tensor) else _to_tensor(a)
    if isinstance(decimals, bool) or not isinstance(decimals, int):
        raise TypeError("decimals must be an integer")
    if decimals < 0:
        raise ValueError("decimals < 0 is not supported now.")
    if decimals == 0:
        return ops.round(a)
    return ops.div(ops.round(ops.mul(a, 10 ** decimals)), 10 ** decimals)


round = around  # noqa: A001 -- numpy's name


def matrix_power(a, n):
    """The square matrix (or stack of them) `a` to the non-negative integer power `n` by repeated squaring."""
    a = _to_tensor(a)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError("exponent must be an integer")
    if a.ndim < 2:
        raise ValueError("Array must be at least two-dimensional")
    if a.shape[-2] != a.shape[-1]:
        raise ValueError("Last 2 dimensions of the array must be square")
    if n < 0:
        raise ValueError("n < 0 is not supported now.")
    return ops.matrix_power(a, n)


def copy(a):
    """A new Tensor holding a copy of `a` (any array-like)."""
    from mindseed.numpy._creation import asarray  # noqa: PLC0415 -- sibling module, avoids a cycle at import
    return asarray(a).copy()
