"""Reductions and scans of mindspore.ops: mean, prod, max/min, arg-reductions, statistics, cumulative ops."""
import builtins

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import core as C
from mindseed.ops._prims import math as P
from mindseed.ops.functional._core import _axes, _axis, _dtype_arg, _shape_arg
from mindseed.ops.functional._math_elementwise import _tensor

__all__ = [
    "mean", "reduce_mean", "reduce_sum", "reduce_max", "reduce_min", "prod", "max", "min", "amax", "amin", "argmax",
    "argmin", "all", "any", "std", "var", "std_mean", "var_mean", "logsumexp", "cumsum", "cumprod", "cummax",
    "cummin", "logcumsumexp", "median", "nanmedian", "nanmean", "nansum", "count_nonzero", "aminmax", "quantile",
    "nanquantile", "trapz", "diff", "diff_ext", "sum_to_size",
]


_builtin_all = builtins.all
_builtin_any = builtins.any
_builtin_min = builtins.min


def _keep(op, name, v):
    if not isinstance(v, bool):     # a mutable bool (`ms.mutable(True)`) is one too
        raise TypeError(f"For '{op}', the '{name}' must be a bool, but got {type(v).__name__}.")
    return bool(v)


def _lowest(dtype, largest):
    """The identity of max (largest=True) or min over a dtype."""
    if dtype == mstype.bool_:
        return not largest
    if mstype.is_float(dtype):
        return -float("inf") if largest else float("inf")
    info = np.iinfo(mstype.dtype_to_nptype(dtype))
    return int(info.min) if largest else int(info.max)


def _masked(op, input, where, initial, largest):
    """input with the elements outside `where` replaced by the reduction's identity (or `initial`)."""
    if where is None:
        return input
    if not isinstance(where, Tensor):
        where = Tensor(where)
    if where.dtype != mstype.bool_:
        raise TypeError(f"For '{op}', the 'where' must be a Tensor of bool, but got {where.dtype}.")
    fill = _lowest(input.dtype, largest) if initial is None else initial
    return C.where_p(where, input, C.fill_p(shape=(), value=fill, dtype=input.dtype.name))


# ---------------------------------------------------------------- sums, means, products
def mean(x, axis=None, keep_dims=False):
    """The mean over `axis` (all axes when None); integer inputs keep their dtype (the mean truncated).

    Args:
        x (Tensor): the input.
        axis (Union[int, tuple[int], list[int], None]): the axes to reduce. Default: ``None``.
        keep_dims (bool): keep the reduced axes with size 1. Default: ``False``.

    Raises:
        ValueError: an axis is out of range.

    >>> import mindseed as ms
    >>> ms.ops.mean(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), 1).asnumpy().tolist()
    [1.5, 3.5]
    """
    _tensor("ReduceMean", x, "x")
    return P.reduce_mean_p(x, axis=_axes("ReduceMean", axis, x.ndim), keep_dims=_keep("ReduceMean", "keep_dims",
                                                                                          keep_dims))


def _mean_dtype(x, axis, keep_dims, dtype):
    if dtype is not None:
        x = C.cast_p(x, dtype=_dtype_arg("mean", dtype).name)
    return mean(x, axis, keep_dims)


def reduce_mean(x, axis=()):
    """The mean over `axis` (all axes when empty)."""
    return mean(x, axis, False)


def reduce_sum(x, axis=()):
    """The sum over `axis` (all axes when empty), keeping x's dtype."""
    _tensor("ReduceSum", x, "x")
    out = C.reduce_sum_p(x, axis=_axes("ReduceSum", axis, x.ndim), keep_dims=False)
    return out if out.dtype == x.dtype else C.cast_p(out, dtype=x.dtype.name)  # the kernel widens integers


def prod(input, axis=None, keep_dims=False, dtype=None):
    """The product over `axis` (all axes when None); integer and bool inputs give Int64 unless `dtype`.

    >>> import mindseed as ms
    >>> ms.ops.prod(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), 0).asnumpy().tolist()
    [3.0, 8.0]
    """
    _tensor("ReduceProd", input)
    if dtype is not None:
        dt = _dtype_arg("ReduceProd", dtype).name
    elif mstype.is_integral(input.dtype) and input.dtype not in (mstype.int64, mstype.uint64):
        dt = "Int64"
    else:
        dt = None
    return P.reduce_prod_p(input, axis=_axes("ReduceProd", axis, input.ndim),
                           keep_dims=_keep("ReduceProd", "keep_dims", keep_dims), dtype=dt)


def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """The sum over `axis` treating NaN as zero."""
    _tensor("nansum", input)
    x = input
    want = None if dtype is None else _dtype_arg("nansum", dtype)
    if mstype.is_float(x.dtype) or mstype.is_complex(x.dtype):
        x = C.where_p(P.is_nan_p(x), C.zeros_like_p(x), x)
    if x.dtype == mstype.bool_:
        x = C.cast_p(x, dtype="Int64")
    out = C.reduce_sum_p(x, axis=_axes("nansum", axis, x.ndim), keep_dims=_keep("nansum", "keepdims", keepdims))
    out = out if out.dtype == x.dtype else C.cast_p(out, dtype=x.dtype.name)  # integers keep their dtype
    # MindSpore sums in the input's dtype and casts the sum to `dtype` (an int8 sum wraps before an int32 cast)
    return out if want is None or want == out.dtype else C.cast_p(out, dtype=want.name)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """The mean over `axis` of the elements that are not NaN."""
    _tensor("nanmean", input)
    if not mstype.is_float(input.dtype) and not mstype.is_complex(input.dtype):
        raise TypeError(f"For 'nanmean', the 'input' must be a Tensor of float type, but got {input.dtype}.")
    want = None if dtype is None else _dtype_arg("nanmean", dtype)
    x = input
    nan = P.is_nan_p(x)
    axes = _axes("nanmean", axis, x.ndim)
    keepdims = _keep("nanmean", "keepdims", keepdims)
    total = C.reduce_sum_p(C.where_p(nan, C.zeros_like_p(x), x), axis=axes, keep_dims=keepdims)
    count = C.reduce_sum_p(C.cast_p(P.logical_not_p(nan), dtype=x.dtype.name), axis=axes, keep_dims=keepdims)
    out = C.div_p(total, count)     # in the input's dtype, then cast to `dtype` (MindSpore's order)
    return out if want is None or want == out.dtype else C.cast_p(out, dtype=want.name)


# ---------------------------------------------------------------- max / min
def _max_min(op, prim_arg, prim_all, largest, input, axis, keepdims, initial, where):
    _tensor(op, input)
    if axis is None:
        # MindSpore: with axis None the other arguments have no effect and the index is 0
        return prim_all(input, axis=None, keep_dims=False), C.fill_p(shape=(), value=0, dtype="Int64")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"For '{op}', the 'axis' must be an int or None, but got {type(axis).__name__}.")
    ax = _axis(op, axis, input.ndim)
    x = _masked(op, input, where, initial, largest)
    index, values = prim_arg(x, axis=ax, keep_dims=_keep(op, "keepdims", keepdims))
    if initial is not None:
        beaten = (C.less_p if largest else C.greater_p)(values, initial)
        values = C.where_p(beaten, C.fill_p(shape=(), value=initial, dtype=values.dtype.name), values)
        index = C.where_p(beaten, C.zeros_like_p(index), index)
    return values, index


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The maximum along `axis` and its index: `(values, indices)`.

    Args:
        input (Tensor): the input.
        axis (Union[int, None]): the axis; with ``None`` the maximum of all elements and index 0. Default: ``None``.
        keepdims (bool): keep the reduced axis with size 1. Default: ``False``.
        initial (scalar, optional): a lower bound of the result.
        where (Tensor[bool], optional): only these elements take part.

    Returns:
        tuple(Tensor, Tensor): the values (input's dtype) and the indices (Int64).

    Raises:
        ValueError: `axis` is out of range.

    >>> import mindseed as ms
    >>> v, i = ms.ops.max(ms.Tensor([[1.0, 5.0], [4.0, 2.0]]), 1)
    >>> v.asnumpy().tolist(), i.asnumpy().tolist()
    ([5.0, 4.0], [1, 0])
    """
    return _max_min("max", P.argmax_with_value_p, P.reduce_max_p, True, input, axis, keepdims, initial, where)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The minimum along `axis` and its index: `(values, indices)`; see `max`."""
    return _max_min("min", P.argmin_with_value_p, P.reduce_min_p, False, input, axis, keepdims, initial, where)


def _amax_amin(op, prim, largest, input, axis, keepdims, initial, where):
    _tensor(op, input)
    x = _masked(op, input, where, initial, largest)
    out = prim(x, axis=_axes(op, axis, input.ndim), keep_dims=_keep(op, "keepdims", keepdims))
    if initial is not None:
        out = (C.maximum_p if largest else C.minimum_p)(out, initial)
    return out


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The maximum over `axis` (all axes when None); ties share the gradient.

    >>> import mindseed as ms
    >>> ms.ops.amax(ms.Tensor([[1.0, 5.0], [4.0, 2.0]]), 0).asnumpy().tolist()
    [4.0, 5.0]
    """
    return _amax_amin("ReduceMax", P.reduce_max_p, True, input, axis, keepdims, initial, where)


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    """The minimum over `axis` (all axes when None)."""
    return _amax_amin("ReduceMin", P.reduce_min_p, False, input, axis, keepdims, initial, where)


def reduce_max(x, axis=()):
    """The maximum over `axis` (all axes when empty)."""
    return amax(x, axis)


def reduce_min(x, axis=()):
    """The minimum over `axis` (all axes when empty)."""
    return amin(x, axis)


def aminmax(input, *, axis=0, keepdims=False):
    """(minimum, maximum) over `axis` (all elements when None)."""
    return amin(input, axis, keepdims), amax(input, axis, keepdims)


def _arg(op, prim, input, axis, keepdims, dtype):
    _tensor(op, input)
    ax = None if axis is None else _axis(op, axis, input.ndim)
    keep = _keep(op, "keepdims", keepdims) and ax is not None  # MindSpore ignores keepdims over the flattened input
    return prim(input, axis=ax, keep_dims=keep, dtype=dtype)


def argmax(input, dim=None, keepdim=False):
    """The index of the maximum along `dim` (of the flattened input when None), Int64."""
    return _arg("Argmax", P.argmax_p, input, dim, keepdim, "Int64")


def argmin(input, axis=None, keepdims=False):
    """The index of the minimum along `axis` (of the flattened input when None), Int32 as MindSpore."""
    return _arg("Argmin", P.argmin_p, input, axis, keepdims, "Int32")


def median(input, axis=-1, keepdims=False):
    """The (lower) median along `axis` and its index: `(values, indices)`."""
    _tensor("Median", input)
    return P.median_p(input, axis=_axis("Median", axis, input.ndim), keep_dims=_keep("Median", "keepdims", keepdims),
                      ignore_nan=False)


def nanmedian(input, axis=-1, keepdims=False):
    """The (lower) median along `axis` ignoring NaN, and its index: `(values, indices)`."""
    _tensor("Median", input)
    return P.median_p(input, axis=_axis("Median", axis, input.ndim), keep_dims=_keep("Median", "keepdims", keepdims),
                      ignore_nan=True)


# ---------------------------------------------------------------- logic reductions and counts
def all(input, axis=None, keep_dims=False):
    """True where every element along `axis` is nonzero (all axes when None or ())."""
    _tensor("ReduceAll", input)
    return P.reduce_all_p(input, axis=_axes("ReduceAll", axis, input.ndim),
                          keep_dims=_keep("ReduceAll", "keep_dims", keep_dims))


def any(input, axis=None, keep_dims=False):
    """True where some element along `axis` is nonzero (all axes when None or ())."""
    _tensor("ReduceAny", input)
    return P.reduce_any_p(input, axis=_axes("ReduceAny", axis, input.ndim),
                          keep_dims=_keep("ReduceAny", "keep_dims", keep_dims))


def count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32):
    """The number of nonzero elements over `axis` (all axes when empty), as `dtype`."""
    _tensor("CountNonZero", x, "x")
    return P.count_nonzero_p(x, axis=_axes("CountNonZero", axis, x.ndim),
                             keep_dims=_keep("CountNonZero", "keep_dims", keep_dims),
                             dtype=_dtype_arg("CountNonZero", dtype).name)


# ---------------------------------------------------------------- statistics
def _ddof(op, ddof):
    if isinstance(ddof, bool):
        return int(ddof)
    if not isinstance(ddof, (int, np.integer)):
        raise TypeError(f"For '{op}', the type of 'ddof' should be one of ['int', 'bool'], but got type "
                        f"'{type(ddof).__name__}'.")
    return int(ddof)


def _variance(op, input, axis, ddof, keepdims):
    _tensor(op, input)
    if not mstype.is_float(input.dtype) and not mstype.is_complex(input.dtype):
        raise TypeError(f"For '{op}', the 'input' must be a Tensor of float type, but got {input.dtype}.")
    return P.reduce_var_p(input, axis=_axes(op, axis, input.ndim), ddof=_ddof(op, ddof),
                          keep_dims=_keep(op, "keepdims", keepdims))


def var(input, axis=None, ddof=0, keepdims=False):
    """The variance over `axis`, dividing by N - ddof.

    >>> import mindseed as ms
    >>> ms.ops.var(ms.Tensor([1.0, 2.0, 3.0, 4.0])).asnumpy().item()
    1.25
    """
    return _variance("var", input, axis, ddof, keepdims)


def std(input, axis=None, ddof=0, keepdims=False):
    """The standard deviation over `axis`, dividing by N - ddof."""
    return P.sqrt_p(_variance("std", input, axis, ddof, keepdims))


def var_mean(input, axis=None, ddof=0, keepdims=False):
    """(variance, mean) over `axis`."""
    v = _variance("var_mean", input, axis, ddof, keepdims)
    return v, P.reduce_mean_p(input, axis=_axes("var_mean", axis, input.ndim), keep_dims=keepdims)


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """(standard deviation, mean) over `axis`."""
    v = _variance("std_mean", input, axis, ddof, keepdims)
    return P.sqrt_p(v), P.reduce_mean_p(input, axis=_axes("std_mean", axis, input.ndim), keep_dims=keepdims)


_NO_DIM = object()


def logsumexp(input, dim=_NO_DIM, keepdim=False, *, axis=_NO_DIM, keep_dims=None):
    """log(sum(exp(input))) over `dim`, computed stably. `axis` and `keep_dims` are the MindSpore 2.2 names of
    `dim` and `keepdim` (`logsumexp(x, axis=1)`, as mindspore-rl's CQL calls it).

    >>> import mindseed as ms
    >>> round(ms.ops.logsumexp(ms.Tensor([0.0, 0.0]), 0).asnumpy().item(), 4)
    0.6931
    """
    if (dim is _NO_DIM) == (axis is _NO_DIM):
        raise TypeError("For 'logsumexp', give exactly one of 'dim' and the MindSpore 2.2 form 'axis'"
                        + (", but got both." if dim is not _NO_DIM else ", but got neither."))
    dim = axis if dim is _NO_DIM else dim
    if keep_dims is not None:
        if keepdim is not False:
            raise TypeError("For 'logsumexp', give at most one of 'keepdim' and the MindSpore 2.2 form "
                            "'keep_dims', but got both.")
        keepdim = keep_dims
    _tensor("LogSumExp", input)
    return P.logsumexp_p(input, axis=_axes("LogSumExp", dim, input.ndim),
                         keep_dims=_keep("LogSumExp", "keepdim", keepdim))


# ---------------------------------------------------------------- scans
def _scan_axis(op, input, axis):
    _tensor(op, input)
    if axis is None or isinstance(axis, bool) or not isinstance(axis, (int, np.integer, Tensor)):
        raise TypeError(f"For '{op}', the 'axis' must be an int, but got {type(axis).__name__}.")
    return _axis(op, axis, input.ndim)


def cumsum(x, axis, dtype=None):
    """The cumulative sum along `axis` (as `dtype` when given).

    >>> import mindseed as ms
    >>> ms.ops.cumsum(ms.Tensor([1.0, 2.0, 3.0]), 0).asnumpy().tolist()
    [1.0, 3.0, 6.0]
    """
    ax = _scan_axis("CumSum", x, axis)
    return P.cumsum_p(x, axis=ax, exclusive=False, reverse=False,
                      dtype=None if dtype is None else _dtype_arg("CumSum", dtype).name)


def cumprod(input, dim, dtype=None):
    """The cumulative product along `dim` (integer inputs give Int64 unless `dtype`)."""
    ax = _scan_axis("CumProd", input, dim)
    return P.cumprod_p(input, axis=ax, exclusive=False, reverse=False,
                       dtype=None if dtype is None else _dtype_arg("CumProd", dtype).name)


def logcumsumexp(input, axis):
    """log(cumsum(exp(input))) along `axis`, computed stably."""
    ax = _scan_axis("CumulativeLogsumexp", input, axis)
    return P.logcumsumexp_p(input, axis=ax, exclusive=False, reverse=False)


def cummax(input, axis):
    """(running maximum, its index) along `axis`."""
    ax = _scan_axis("Cummax", input, axis)
    return P.cummax_p(input, axis=ax)


def cummin(input, axis):
    """(running minimum, its index as Int32) along `axis`."""
    ax = _scan_axis("Cummin", input, axis)
    values, index = P.cummin_p(input, axis=ax)
    return values, C.cast_p(index, dtype="Int32")


# ---------------------------------------------------------------- quantiles and integration
def _quantile(op, input, q, axis, keepdims, ignore_nan):
    _tensor(op, input)
    if input.dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"For '{op}', the 'input' must be a Tensor of float32 or float64, but got {input.dtype}.")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise ValueError(f"For '{op}', the 'q' must be a scalar or 1-D Tensor, but got {q.ndim}-D.")
        qv = tuple(float(v) for v in q.asnumpy().reshape(-1)) if q.ndim == 1 else float(q.item())
    elif isinstance(q, float):
        qv = q
    else:
        raise TypeError(f"For '{op}', the 'q' must be a float or a Tensor, but got {type(q).__name__}.")
    if not _builtin_all(0.0 <= v <= 1.0 for v in (qv if isinstance(qv, tuple) else (qv,))):
        raise ValueError(f"For '{op}', the 'q' values must be in [0, 1], but got {q}.")
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, (int, np.integer))):
        raise TypeError(f"For '{op}', the 'axis' must be an int or None, but got {type(axis).__name__}.")
    ax = None if axis is None else _axis(op, axis, input.ndim)
    return P.quantile_p(input, q=qv, axis=ax, keep_dims=_keep(op, "keepdims", keepdims), ignore_nan=ignore_nan)


def quantile(input, q, axis=None, keepdims=False):
    """The q-th quantiles along `axis` (of all elements when None), interpolating linearly.

    Args:
        input (Tensor): float32 or float64.
        q (Union[float, Tensor]): quantiles in [0, 1]; a 1-D Tensor adds a leading output dimension.
        axis (Union[int, None]): the axis to reduce. Default: ``None``.
        keepdims (bool): keep the reduced axis with size 1. Default: ``False``.

    Raises:
        TypeError: input is not float32/float64, or q is not a float or Tensor.
        ValueError: q is outside [0, 1] or has more than one dimension.

    >>> import mindseed as ms
    >>> ms.ops.quantile(ms.Tensor([1.0, 2.0, 3.0, 4.0]), 0.5).asnumpy().item()
    2.5
    """
    return _quantile("quantile", input, q, axis, keepdims, False)


def nanquantile(input, q, axis=None, keepdims=False):
    """`quantile` ignoring NaN (NaN where a row is all NaN)."""
    return _quantile("nanquantile", input, q, axis, keepdims, True)


def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The trapezoidal rule along `dim`, with sample points `x` (1-D or y's shape) or spacing `dx`."""
    _tensor("trapz", y, "y")
    d = _axis("trapz", dim, y.ndim, scalar_ok=False)
    n = y.shape[d]
    head = (slice(None),) * d
    left, right = C.getitem_p(y, index=head + (slice(0, n - 1),)), C.getitem_p(y, index=head + (slice(1, n),))
    avg = C.mul_p(C.add_p(left, right), 0.5)
    if x is None:
        return C.mul_p(C.reduce_sum_p(avg, axis=d), float(dx))
    _tensor("trapz", x, "x")
    if x.ndim == 1:
        if x.shape[0] != n:
            raise ValueError(f"For 'trapz', a 1-D 'x' must have {n} elements, as 'y' along dim {dim}, but got "
                             f"{x.shape[0]}.")
        x = C.reshape_p(x, shape=(n,) + (1,) * (y.ndim - d - 1))  # broadcasts against y's trailing axes
        xd = 0
    else:
        xd = d
    m = x.shape[xd]
    xhead = (slice(None),) * xd
    spacing = C.sub_p(C.getitem_p(x, index=xhead + (slice(1, m),)), C.getitem_p(x, index=xhead + (slice(0, m - 1),)))
    return C.reduce_sum_p(C.mul_p(avg, spacing), axis=d)



# ---------------------------------------------------------------- differences and sums to a shape
def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along `axis` (not-equal for bool), after joining `prepend`/`append`.

    Raises:
        ValueError: `n` is negative or `axis` is out of range.
    """
    _tensor("diff", x, "x")
    if x.ndim == 0:
        raise TypeError("For 'diff', the dimension 'x' must be at least 1, but got 0")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"For 'diff', the 'n' must be a non-negative int, but got {n}.")
    ax = _axis("diff", axis, x.ndim, scalar_ok=False)
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        parts = [_broadcast_edge(t, x, ax) if t is not x else t for t in parts]
        dt = x.dtype
        for t in parts:
            dt = mstype.promote_types(dt, t.dtype)
        x = C.concat_p(*[t if t.dtype == dt else C.cast_p(t, dtype=dt.name) for t in parts], axis=ax)
    head = (slice(None),) * ax
    # NOTE: after as many differences as the axis is long the result is empty and stays so: n is cut there
    for _ in range(_builtin_min(n, x.shape[ax])):
        m = x.shape[ax]
        hi, lo = C.getitem_p(x, index=head + (slice(1, m),)), C.getitem_p(x, index=head + (slice(0, m - 1),))
        x = C.not_equal_p(hi, lo) if x.dtype == mstype.bool_ else C.sub_p(hi, lo)
    return x


def _broadcast_edge(t, x, ax):
    if not isinstance(t, Tensor):
        t = Tensor(t)
    if t.ndim == 0:
        shape = list(x.shape)
        shape[ax] = 1
        return C.broadcast_to_p(t, shape=tuple(shape))
    return t


def diff_ext(input, n=1, dim=-1, prepend=None, append=None):
    """Alias of `diff`."""
    return diff(input, n, dim, prepend, append)


def sum_to_size(input, size):
    """input summed over the dimensions that `size` broadcasts: the gradient-style reduction to `size`.

    Raises:
        ValueError: `size` cannot be broadcast to input's shape.
    """
    _tensor("sum_to_size", input)
    size = _shape_arg("sum_to_size", size, "size")
    lead = input.ndim - len(size)
    if lead < 0 or _builtin_any(s != 1 and s != input.shape[lead + i] for i, s in enumerate(size)):
        raise ValueError(f"For 'sum_to_size', the size {size} is not expandable to the tensor size {input.shape}.")
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and input.shape[lead + i] != 1)
    if not axes:
        return input
    out = C.reshape_p(C.reduce_sum_p(input, axis=axes, keep_dims=True), shape=size)
    return out if out.dtype == input.dtype else C.cast_p(out, dtype=input.dtype.name)
