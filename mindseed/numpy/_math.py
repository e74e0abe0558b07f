"""Math of mindspore.numpy: elementwise functions, reductions, products, comparisons."""
import builtins
import numbers

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed import ops
from mindseed.numpy._utils import _axis, _dtype, _float, _to_tensor

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "mod", "remainder", "fmod",
           "power", "float_power", "negative", "positive", "absolute", "abs", "fabs", "square", "sqrt", "cbrt",
           "reciprocal", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
           "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "deg2rad",
           "rad2deg", "radians", "floor", "ceil", "trunc", "rint", "fix", "sign", "hypot", "maximum", "minimum",
           "clip", "sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "std", "var", "ptp",
           "cumsum", "cumprod", "dot", "vdot", "matmul", "inner", "outer", "tensordot", "kron", "cross", "trace",
           "diagonal", "diff", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "isclose",
           "allclose", "array_equal", "isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_xor",
           "logical_not", "count_nonzero", "average", "nansum", "bincount", "norm", "argwhere", "searchsorted"]


def _operands(x1, x2):
    """Both operands as Tensors; a Python scalar next to a Tensor takes the Tensor's dtype (numpy's weak scalars)."""
    if isinstance(x1, Tensor) and isinstance(x2, (bool, numbers.Number)) and not isinstance(x2, Tensor):
        return x1, x2
    if isinstance(x2, Tensor) and isinstance(x1, (bool, numbers.Number)) and not isinstance(x1, Tensor):
        return x1, x2
    return _to_tensor(x1), _to_tensor(x2)


def _binary(op, floats=False, doc=""):
    def fn(x1, x2, dtype=None):
        a, b = _operands(x1, x2)
        if floats:
            a = _float(a) if isinstance(a, Tensor) else float(a)
            b = _float(b) if isinstance(b, Tensor) else float(b)
        out = op(a, b)
        return out if dtype is None else ops.cast(out, _dtype(dtype))
    fn.__doc__ = doc
    return fn


def _unary(op, floats=False, doc=""):
    def fn(x, dtype=None):
        x = _float(x) if floats else _to_tensor(x)
        out = op(x)
        return out if dtype is None else ops.cast(out, _dtype(dtype))
    fn.__doc__ = doc
    return fn


add = _binary(ops.add, doc="x1 + x2, elementwise.")
subtract = _binary(ops.sub, doc="x1 - x2, elementwise.")
multiply = _binary(ops.mul, doc="x1 * x2, elementwise.")
divide = _binary(ops.div, floats=True, doc="x1 / x2, elementwise (true division: integers give float32).")
true_divide = divide
floor_divide = _binary(ops.floor_divide, doc="floor(x1 / x2), elementwise.")
def _remainder(x1, x2, dtype, c_style):
    """x1 - x2 * floor(x1 / x2) (trunc when `c_style`) computed as MindSpore does: in float32 for integers, a zero
    divisor giving 0 for them, and with +0.0 where the division is exact."""
    a, b = _to_tensor(x1), _to_tensor(x2)
    out_dtype = ops.sub(a, b).dtype
    if not mstype.is_float(out_dtype):
        a, b = ops.cast(a, mstype.float32), ops.cast(b, mstype.float32)
    q = ops.div(a, b)
    q = ops.trunc(q) if c_style else ops.floor(q)
    res = ops.sub(a, ops.mul(b, q))
    if mstype.is_integral(out_dtype):
        res = ops.select(ops.equal(ops.broadcast_to(b, res.shape), 0), ops.zeros_like(res), res)
    res = ops.cast(res, out_dtype)
    return res if dtype is None else ops.cast(res, _dtype(dtype))


def remainder(x1, x2, dtype=None):
    """x1 mod x2 with the sign of x2 (Python's %)."""
    return _remainder(x1, x2, dtype, False)


mod = remainder


def fmod(x1, x2, dtype=None):
    """x1 mod x2 with the sign of x1 (C's fmod)."""
    return _remainder(x1, x2, dtype, True)
power = _binary(ops.pow, doc="x1 ** x2, elementwise.")
float_power = _binary(ops.pow, floats=True, doc="x1 ** x2 computed in floating point.")
arctan2 = _binary(ops.atan2, floats=True, doc="The angle of (x2, x1): arctan(x1 / x2) in the right quadrant.")
hypot = _binary(ops.hypot, floats=True, doc="sqrt(x1 ** 2 + x2 ** 2), elementwise.")
def _extremum(op, doc):
    def fn(x1, x2, dtype=None):
        a, b = _to_tensor(x1), _to_tensor(x2)
        # NOTE: as MindSpore, next to a 0-d operand (a Python scalar included) the result takes the other operand's
        # dtype, whatever `dtype` says: maximum(int32 array, 2.5) is int32 (2.5 truncated)
        if a.ndim == 0 and b.ndim:
            dtype = b.dtype
        elif b.ndim == 0 and a.ndim:
            dtype = a.dtype
        out = op(a, b)
        return out if dtype is None else ops.cast(out, _dtype(dtype))
    fn.__doc__ = doc
    return fn


maximum = _extremum(ops.maximum, doc="The larger of x1 and x2, elementwise.")
minimum = _extremum(ops.minimum, doc="The smaller of x1 and x2, elementwise.")
equal = _binary(ops.equal, doc="x1 == x2, elementwise.")
not_equal = _binary(ops.not_equal, doc="x1 != x2, elementwise.")
less = _binary(ops.less, doc="x1 < x2, elementwise.")
less_equal = _binary(ops.less_equal, doc="x1 <= x2, elementwise.")
greater = _binary(ops.greater, doc="x1 > x2, elementwise.")
greater_equal = _binary(ops.greater_equal, doc="x1 >= x2, elementwise.")
logical_and = _binary(ops.logical_and, doc="x1 and x2, elementwise.")
logical_or = _binary(ops.logical_or, doc="x1 or x2, elementwise.")
logical_xor = _binary(ops.logical_xor, doc="x1 xor x2, elementwise.")

def negative(a, dtype=None):
    """-a, elementwise."""
    return _unary(ops.neg)(a, dtype)


def positive(a, dtype=None):
    """+a (a Tensor of a)."""
    return _unary(lambda x: x)(a, dtype)
absolute = _unary(ops.abs, doc="|x|, elementwise.")
abs = absolute  # noqa: A001 -- numpy's name
fabs = _unary(ops.abs, floats=True, doc="|x| as floats.")
square = _unary(ops.square, doc="x * x, elementwise.")
sqrt = _unary(ops.sqrt, floats=True, doc="The square root of x, elementwise.")
cbrt = _unary(lambda x: ops.mul(ops.sign(x), ops.pow(ops.abs(x), 1.0 / 3.0)), floats=True, doc="The cube root of x.")
reciprocal = _unary(ops.reciprocal, floats=True, doc="1 / x, elementwise.")
exp = _unary(ops.exp, floats=True, doc="e ** x, elementwise.")
exp2 = _unary(lambda x: ops.pow(2, x), doc="2 ** x, elementwise (an integer x gives integers, as MindSpore).")
expm1 = _unary(ops.expm1, floats=True, doc="e ** x - 1, elementwise.")
log = _unary(ops.log, floats=True, doc="The natural logarithm of x, elementwise.")
log2 = _unary(ops.log2, floats=True, doc="The base-2 logarithm of x, elementwise.")
log10 = _unary(ops.log10, floats=True, doc="The base-10 logarithm of x, elementwise.")
log1p = _unary(ops.log1p, floats=True, doc="log(1 + x), elementwise.")
sin = _unary(ops.sin, floats=True, doc="sin(x), elementwise.")
cos = _unary(ops.cos, floats=True, doc="cos(x), elementwise.")
tan = _unary(ops.tan, floats=True, doc="tan(x), elementwise.")
arcsin = _unary(ops.asin, floats=True, doc="arcsin(x), elementwise.")
def arccos(input, dtype=None):  # noqa: A002 -- MindSpore's name
    """arccos(input), elementwise."""
    return _unary(ops.acos, floats=True)(input, dtype)
arctan = _unary(ops.atan, floats=True, doc="arctan(x), elementwise.")
sinh = _unary(ops.sinh, floats=True, doc="sinh(x), elementwise.")
cosh = _unary(ops.cosh, floats=True, doc="cosh(x), elementwise.")
tanh = _unary(ops.tanh, floats=True, doc="tanh(x), elementwise.")
arcsinh = _unary(ops.asinh, floats=True, doc="arcsinh(x), elementwise.")
arccosh = _unary(ops.acosh, floats=True, doc="arccosh(x), elementwise.")
arctanh = _unary(ops.atanh, floats=True, doc="arctanh(x), elementwise.")
deg2rad = _unary(ops.deg2rad, floats=True, doc="Degrees to radians.")
radians = deg2rad
rad2deg = _unary(ops.rad2deg, floats=True, doc="Radians to degrees.")
floor = _unary(ops.floor, floats=True, doc="floor(x), elementwise.")
ceil = _unary(ops.ceil, floats=True, doc="ceil(x), elementwise.")
trunc = _unary(ops.trunc, floats=True, doc="x rounded towards zero, elementwise.")
fix = trunc
rint = _unary(ops.round, floats=True, doc="x rounded to the nearest integer (halves to even).")
sign = _unary(ops.sign, doc="-1, 0 or 1 by the sign of x.")
isnan = _unary(ops.isnan, doc="x is NaN, elementwise.")
isinf = _unary(ops.isinf, doc="x is +/-inf, elementwise.")
isfinite = _unary(ops.isfinite, doc="x is finite, elementwise.")
def logical_not(a, dtype=None):
    """not a, elementwise."""
    return _unary(ops.logical_not)(a, dtype)


def clip(x, xmin, xmax, dtype=None):
    """`x` limited to [xmin, xmax] (either bound may be None).

    Raises:
        ValueError: both bounds are None.
    """
    if xmin is None and xmax is None:
        raise ValueError("For 'clip', 'xmin' and 'xmax' cannot both be None.")
    # as MindSpore: maximum with xmin, then minimum with xmax (so scalar bounds keep an integer array integer)
    x = _to_tensor(x)
    if xmin is not None:
        x = maximum(x, xmin, dtype=dtype)
    if xmax is not None:
        x = minimum(x, xmax, dtype=dtype)
    return x


# ---------------------------------------------------------------- reductions
def _reduce_input(a, axis):
    a = _to_tensor(a)
    return a, _axis(axis, a.ndim)


def sum(a, axis=None, dtype=None, keepdims=False, initial=None):  # noqa: A001 -- numpy's name
    """The sum over `axis` (all axes when None); bool and integer inputs sum as int64 (as numpy)."""
    a, axis = _reduce_input(a, axis)
    if dtype is None and (a.dtype == mstype.bool_ or mstype.is_integral(a.dtype)):
        dtype = mstype.int64
    out = ops.sum(a, axis, keepdims, dtype=_dtype(dtype))
    return out if initial is None else ops.add(out, initial)


def mean(a, axis=None, keepdims=False, dtype=None):
    """The arithmetic mean over `axis`, in the input's dtype as MindSpore's ReduceMean (an integer mean is the
    truncated quotient; `dtype` casts the result). A bool input is refused as by MindSpore."""
    a, axis = _reduce_input(a, axis)
    if a.dtype == mstype.bool_:
        raise RuntimeError("For 'ReduceMean', unsupported reduce operation for bool.")
    out = ops.mean(a, axis, keepdims)
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def _count(a, axis):
    if axis is None:
        return a.size
    axes = (axis,) if isinstance(axis, int) else axis
    n = 1
    for ax in axes:
        n *= a.shape[ax]
    return n


def _var(x, axis, ddof, keepdims):
    """The variance as MindSpore's Tensor.var: around the input-dtype mean (truncated for integers), in float32
    for integer input."""
    if not mstype.is_integral(x.dtype):
        return ops.var(_float(x), axis, ddof, keepdims)
    dev = ops.sub(ops.cast(x, mstype.float32), ops.cast(ops.mean(x, axis, True), mstype.float32))
    return ops.div(ops.sum(ops.mul(dev, dev), axis, keepdims), _count(x, axis) - ddof)


def prod(a, axis=None, keepdims=False, initial=None, dtype=None):
    """The product over `axis` (all axes when None)."""
    a, axis = _reduce_input(a, axis)
    out = ops.prod(a, axis, keepdims)
    if initial is not None:
        out = ops.mul(out, initial)
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """The maximum over `axis`; `initial` is a lower bound, `where` masks entries out (needs `initial`)."""
    a, axis = _reduce_input(a, axis)
    w = None if where is True else _to_tensor(where, mstype.bool_)
    return ops.amax(a, axis, keepdims, initial=initial, where=w)


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """The minimum over `axis`; `initial` is an upper bound, `where` masks entries out (needs `initial`)."""
    a, axis = _reduce_input(a, axis)
    w = None if where is True else _to_tensor(where, mstype.bool_)
    return ops.amin(a, axis, keepdims, initial=initial, where=w)


max = amax  # noqa: A001 -- numpy's names
min = amin  # noqa: A001


def argmax(a, axis=None):
    """Index of the maximum (of the flattened `a` when `axis` is None); int64 as MindSpore."""
    a = _to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return ops.cast(ops.argmax(a, axis), mstype.int64)


def argmin(a, axis=None):
    """Index of the minimum (of the flattened `a` when `axis` is None); int32 as MindSpore."""
    a = _to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return ops.cast(ops.argmin(a, axis), mstype.int32)


def std(x, axis=None, ddof=0, keepdims=False):
    """The standard deviation over `axis` with `ddof` delta degrees of freedom."""
    x, axis = _reduce_input(x, axis)
    if mstype.is_integral(x.dtype):
        return ops.sqrt(_var(x, axis, ddof, keepdims))
    return ops.std(_float(x), axis, ddof, keepdims)


def var(x, axis=None, ddof=0, keepdims=False):
    """The variance over `axis` with `ddof` delta degrees of freedom."""
    x, axis = _reduce_input(x, axis)
    return _var(x, axis, ddof, keepdims)


def ptp(x, axis=None, keepdims=False):
    """max - min over `axis`."""
    return subtract(amax(x, axis, keepdims), amin(x, axis, keepdims))


def nansum(a, axis=None, dtype=None, keepdims=False):
    """The sum over `axis`, NaNs counted as zero."""
    a, axis = _reduce_input(a, axis)
    return ops.nansum(a, axis, keepdims, dtype=_dtype(dtype))


def count_nonzero(x, axis=None, keepdims=False):
    """How many entries of `x` are non-zero (over `axis`)."""
    x, axis = _reduce_input(x, axis)
    return ops.count_nonzero(x, () if axis is None else axis, keepdims, mstype.int32)


def average(x, axis=None, weights=None, returned=False):
    """The weighted mean over `axis` (plain mean without `weights`); with `returned`, also the sum of weights."""
    # NOTE: as MindSpore, integer data (and weights) average in their integer dtype (truncated quotient)
    a, axis = _reduce_input(x, axis)
    if weights is None:
        avg = mean(a, axis)
        wsum = ops.full(avg.shape, a.size // (avg.size or 1), dtype=a.dtype)
    else:
        w = _to_tensor(weights)
        if w.shape != a.shape:
            if axis is None or w.ndim != 1:
                raise ValueError("For 'average', 'weights' must have the shape of 'a', or be 1-D along 'axis'.")
            w = ops.reshape(w, tuple(w.shape[0] if i == axis else 1 for i in range(a.ndim)))
        prod = ops.mul(a, w)
        wsum = ops.sum(ops.broadcast_to(w, a.shape), axis, dtype=w.dtype)
        total = ops.sum(prod, axis, dtype=prod.dtype)
        if mstype.is_integral(prod.dtype) and mstype.is_integral(wsum.dtype):
            avg = ops.cast(ops.div(total, wsum, rounding_mode="trunc"), prod.dtype)
        else:
            avg = ops.div(total, wsum)
    return (avg, wsum) if returned else avg


def cumsum(a, axis=None, dtype=None):
    """Cumulative sum along `axis` (over the flattened `a` when None); bool sums as int32."""
    a = _to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    if dtype is None and a.dtype == mstype.bool_:
        dtype = mstype.int32
    return ops.cumsum(a, axis, dtype=_dtype(dtype))


def cumprod(a, axis=None, dtype=None):
    """Cumulative product along `axis` (over the flattened `a` when None).

    As MindSpore: computed in float32 (float64 kept) and cast to `dtype`, by default the input's, with int8 / int16
    / bool giving int32 and uint8 / uint16 giving uint32.
    """
    a = _to_tensor(a)
    original = a.dtype
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    if dtype is None:
        dtype = mstype.int32 if original in (mstype.int8, mstype.int16, mstype.bool_) else \
            mstype.uint32 if original in (mstype.uint8, mstype.uint16) else original
    work = a if original == mstype.float64 else ops.cast(a, mstype.float32)
    return ops.cast(ops.cumprod(work, axis), _dtype(dtype))


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The n-th discrete difference along `axis`."""
    return ops.diff(_to_tensor(a), n, axis, prepend, append)


# ---------------------------------------------------------------- products
def dot(a, b):
    """The dot product: sum over the last axis of `a` and the second-to-last of `b` (a scalar times an array)."""
    a, b = _to_tensor(a), _to_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return ops.mul(a, b)
    if b.ndim <= 2:
        return ops.matmul(a, b)
    return ops.tensor_dot(a, b, ((a.ndim - 1,), (b.ndim - 2,)))


def vdot(a, b):
    """The dot product of the flattened `a` (conjugated) and `b`."""
    a, b = ops.reshape(_to_tensor(a), (-1,)), ops.reshape(_to_tensor(b), (-1,))
    if mstype.is_complex(a.dtype):
        a = ops.conj(a)
    return ops.sum(ops.mul(a, b))


def matmul(x1, x2, dtype=None):
    """The matrix product, broadcasting the batch axes (numpy's matmul)."""
    out = ops.matmul(_to_tensor(x1), _to_tensor(x2))
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def inner(a, b):
    """The inner product over the last axes."""
    a, b = _to_tensor(a), _to_tensor(b)
    if a.ndim == 0 or b.ndim == 0:
        return ops.mul(a, b)
    return ops.tensor_dot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a, b):
    """The outer product of the flattened `a` and `b`."""
    return ops.outer(ops.reshape(_to_tensor(a), (-1,)), ops.reshape(_to_tensor(b), (-1,)))


def tensordot(a, b, axes=2):
    """Sum of products over `axes` (an int: the last of `a` with the first of `b`; or two sequences)."""
    return ops.tensor_dot(_to_tensor(a), _to_tensor(b), axes)


def kron(a, b):
    """The Kronecker product."""
    return ops.kron(_to_tensor(a), _to_tensor(b))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors along the last axis (or `axis`)."""
    a, b = _to_tensor(a), _to_tensor(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = ops.movedim(a, axisa, -1), ops.movedim(b, axisb, -1)
    sa, sb = (1,) * (b.ndim - a.ndim) + a.shape, (1,) * (a.ndim - b.ndim) + b.shape
    shape = tuple(builtins.max(x, y) for x, y in zip(sa, sb))
    out = ops.cross(ops.broadcast_to(a, shape), ops.broadcast_to(b, shape), -1)
    return ops.movedim(out, -1, axisc)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """The sum along a diagonal."""
    out = ops.sum(diagonal(a, offset, axis1, axis2), -1)
    return out if dtype is None else ops.cast(out, _dtype(dtype))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of `a` over axes `axis1`, `axis2` (moved to the last axis)."""
    return ops.diagonal(_to_tensor(a), offset, axis1, axis2)


# ---------------------------------------------------------------- comparisons
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b|, elementwise."""
    a, b = _to_tensor(a), _to_tensor(b)
    dt = mstype.promote_types(a.dtype, b.dtype)
    if not mstype.is_float(dt):
        dt = mstype.float32
    return ops.isclose(ops.cast(a, dt), ops.cast(b, dt), rtol, atol, equal_nan)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether `isclose` holds everywhere (a Python bool)."""
    return bool(ops.all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    """Whether the two arrays have the same shape and elements (a bool Tensor, as MindSpore)."""
    a1, a2 = _to_tensor(a1), _to_tensor(a2)
    if a1.shape != a2.shape:
        return Tensor(False)
    eq = ops.equal(a1, a2)
    if equal_nan:
        eq = ops.logical_or(eq, ops.logical_and(ops.isnan(a1), ops.isnan(a2)))
    return ops.all(eq)


def bincount(x, weights=None, minlength=0, length=None):
    """Occurrences of each value of the non-negative int array `x` (summed `weights` when given)."""
    x = _to_tensor(x)
    return ops.bincount(x, None if weights is None else _to_tensor(weights), minlength)


def norm(x, ord=None, axis=None, keepdims=False):
    """The vector or matrix norm of `x` (numpy.linalg.norm's conventions)."""
    return ops.norm(_float(x), ord, axis, keepdims)


def argwhere(a):
    """Indices of the non-zero elements of `a`, one row per element."""
    return ops.argwhere(_to_tensor(a))


def searchsorted(a, v, side="left", sorter=None):
    """Indices where `v` would be inserted into the sorted 1-D `a` to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"For 'searchsorted', the 'side' must be 'left' or 'right', but got {side!r}.")
    a, v = _to_tensor(a), _to_tensor(v)
    if sorter is not None:
        a = ops.gather(a, _to_tensor(sorter, mstype.int32), 0)
    return ops.searchsorted(a, v, out_int32=True, right=side == "right")
