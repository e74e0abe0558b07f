"""Functional ops of the math family (elementwise math, logic, reductions) and their Tensor methods.

The functions live in `_math_elementwise`, `_math_logic` and `_math_reduce`; this module re-exports them and declares
`TENSOR_METHODS`, the Tensor methods of the family with MindSpore's method signatures.
"""
import numpy as np

from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._api import G
from mindseed.ops._prims import core as C
from mindseed.ops._prims import math as P
from mindseed.ops._python_scalars import narrow
from mindseed.ops.functional import _math_elementwise as E
from mindseed.ops.functional import _math_logic as L
from mindseed.ops.functional import _math_reduce as R
from mindseed.ops.functional import _math_segment as S
from mindseed.ops.functional._core import _axis, _is_bool, _rounded_div, sub_keeping_bool, update_in_place
from mindseed.ops.functional._math_elementwise import *  # noqa: F401,F403
from mindseed.ops.functional._math_logic import *  # noqa: F401,F403
from mindseed.ops.functional._math_reduce import *  # noqa: F401,F403
from mindseed.ops.functional._math_segment import *  # noqa: F401,F403

__all__ = E.__all__ + L.__all__ + R.__all__ + S.__all__ + ["clamp_", "erfinv_", "tanh_", "inplace_sigmoid"]


# ---------------------------------------------------------------- reductions with MindSpore's method signatures
_AXIS_OVERLOAD = frozenset(("axis", "keepdims", "initial", "where", "return_indices"))


def _extreme(self, args, kwargs, largest):
    """Tensor.max/min: `()` -> the value; `(dim, keepdim)` or `dim=` -> (values, indices);
    `axis=`, `keepdims=`, `initial=`, `where=`, `return_indices=` -> the values (and indices when asked).
    In a compiled graph MindSpore tries the numpy-like form first, so positional `(0, False)` gives the values only."""
    fn, reduce_fn = (R.max, R.amax) if largest else (R.min, R.amin)
    if not args and not kwargs:
        return reduce_fn(self)
    positional_dim = bool(args) and isinstance(args[0], int) and not isinstance(args[0], bool) \
        and _state.tracing is None
    if not _AXIS_OVERLOAD.intersection(kwargs) and ("dim" in kwargs or "keepdim" in kwargs or positional_dim):
        dim = kwargs.pop("dim", args[0] if args else None)
        keepdim = kwargs.pop("keepdim", args[1] if len(args) > 1 else False)
        if kwargs or len(args) > 2:
            raise TypeError(f"For 'Tensor.{'max' if largest else 'min'}', unexpected arguments {kwargs or args[2:]}.")
        if dim is None:
            return reduce_fn(self)
        return fn(self, dim, keepdim)
    return _extreme_axis(self, fn, reduce_fn, *args, **kwargs)


_NO_WHERE = object()


def _extreme_axis(self, fn, reduce_fn, axis=None, keepdims=False, *, initial=None, where=_NO_WHERE,
                  return_indices=False):
    name = "max" if fn is R.max else "min"
    if where is None:       # MindSpore's overload takes a Tensor (or nothing) for `where`
        raise TypeError(f"Failed calling {name} with \"{name}(where=None)\": 'where' must be a bool Tensor when "
                        f"given.")
    where = None if where is _NO_WHERE else where
    if not isinstance(return_indices, bool):
        raise TypeError(f"{name}(): argument 'return_indices' must be bool but got {type(return_indices).__name__}.")
    if return_indices:
        return fn(self, axis, keepdims, initial=initial, where=where)
    return reduce_fn(self, axis, keepdims, initial=initial, where=where)


def _max(self, *args, **kwargs):
    return _extreme(self, args, kwargs, True)


def _min(self, *args, **kwargs):
    return _extreme(self, args, kwargs, False)


def _pick(a, b, default):
    """An argument given under MindSpore's older name (a) or newer one (b)."""
    return a if a is not None else (b if b is not None else default)


def _mean(self, axis=None, keep_dims=False, *, dtype=None, dim=None, keepdim=None):
    return R._mean_dtype(self, _pick(axis, dim, None), _pick(keepdim, None, keep_dims), dtype)


def _prod(self, dim=None, keepdim=False, dtype=None, *, axis=None, keep_dims=None):
    return R.prod(self, _pick(dim, axis, None), _pick(keep_dims, None, keepdim), dtype)


def _approximate_equal(self, other, tolerance=1e-5):
    # the method broadcasts its operands (ops.approximate_equal wants equal shapes)
    if not isinstance(other, Tensor):
        raise ValueError(f"The parameter 'y' must be isinstance of <class 'mindspore.common.tensor.Tensor'>, but got "
                         f"{other}.")
    if isinstance(self, Tensor) and self.shape != other.shape:
        shape = np.broadcast_shapes(self.shape, other.shape)
        self, other = C.broadcast_to_p(self, shape=shape), C.broadcast_to_p(other, shape=shape)
    return _find("approximate_equal")(self, other, tolerance)


def _median(self, axis=-1, keepdims=False, *, dim=None, keepdim=None):
    # Tensor.median(axis=-1, keepdims=False) and its newer keywords median(dim=..., keepdim=...)
    return R.median(self, _pick(dim, None, axis), _pick(keepdim, None, keepdims))


_NO_AXIS = object()


def _argmax(self, axis=_NO_AXIS, keepdims=False, *, dim=None, keepdim=None):
    if axis is _NO_AXIS:
        # MindSpore's graph resolves `x.argmax()` to its older form, whose axis defaults to the last one; PyNative's
        # to the newer, over all elements
        axis = -1 if dim is None and _state.tracing is not None else None
    return R.argmax(self, _pick(axis, dim, None), _pick(keepdim, None, keepdims))


def _amax_amin_method(fn):
    def method(self, axis=None, keepdims=False, *, keep_dims=None, initial=None, where=None):
        # `keep_dims` is the keyword of the form MindSpore's graph resolves the method to
        return fn(self, axis, _pick(keep_dims, None, keepdims), initial=initial, where=where)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _argmin(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    return R.argmin(self, _pick(axis, dim, None), _pick(keepdim, None, keepdims))


def _arg_with_value(prim, name):
    def method(self, axis=0, keep_dims=False):
        E._tensor(name, self)
        keep = R._keep(name, "keep_dims", keep_dims)
        if axis is None:    # over all elements: 0-D results, keep_dims or not (MindSpore 2.10)
            self, axis, keep = C.reshape_p(self, shape=(-1,)), 0, False
        index, values = prim(self, axis=_axis(name, axis, self.ndim), keep_dims=keep)
        return values, index
    return method


def _all(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
    return R.all(self, _pick(axis, dim, None), _pick(keepdim, None, keep_dims))


def _any(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
    return R.any(self, _pick(axis, dim, None), _pick(keepdim, None, keep_dims))


def _int_var(self, axis, ddof, keepdims):
    """Tensor.var of an integer tensor, as MindSpore's method computes it: deviations from the tensor's integer
    mean (truncated, as Tensor.mean of an integer tensor), squared and averaged in float32."""
    axes = R._axes("var", axis, self.ndim)
    axes = tuple(range(self.ndim)) if axes is None else (axes,) if isinstance(axes, int) else axes
    mean = self.mean(axis=axes, keep_dims=True)
    wide = C.cast_p(self, dtype=mstype.int64.name)      # uint8 or int8 deviations would wrap in their own dtype
    dev = C.cast_p(C.sub_p(wide, C.cast_p(mean, dtype=mstype.int64.name)), dtype=mstype.float32.name)
    n = 1
    for a in axes:
        n *= self.shape[a]
    total = C.reduce_sum_p(C.mul_p(dev, dev), axis=axes, keep_dims=bool(keepdims))
    return C.div_p(total, float(n - ddof))


def _variance_method(op, self, axis, ddof, keepdims):
    """Tensor.var / Tensor.std ('var' / 'std'): an integer tensor through `_int_var`, as MindSpore's method."""
    if isinstance(self, Tensor) and mstype.is_integral(self.dtype):
        v = _int_var(self, axis, ddof, keepdims)
        return P.sqrt_p(v) if op == "std" else v
    return (R.std if op == "std" else R.var)(self, axis, ddof, keepdims)


def _std(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None, keepdim=None):
    # MindSpore's std(dim=None, *, correction=0, keepdim=False) form computes through the older one: both default
    # to dividing by N
    return _variance_method("std", self, _pick(axis, dim, None), _pick(correction, None, ddof),
                            _pick(keepdim, None, keepdims))


def _var(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None, keepdim=None):
    if dim is None and correction is None and keepdim is None:
        return _variance_method("var", self, axis, ddof, keepdims)
    # var(dim=None, *, correction=1, keepdim=False): Bessel's correction by default
    return _variance_method("var", self, _pick(dim, axis, None), _pick(correction, None, 1),
                            _pick(keepdim, None, keepdims))


def _cumsum(self, dim=None, *, dtype=None, axis=None):
    ax = _pick(dim, axis, None)
    if dtype is None and isinstance(self, Tensor) and self.dtype in _INT32_SCANS:
        dtype = mstype.int32        # MindSpore's method scans bool and 8/16-bit integers in Int32
    x = self
    if ax is None:
        x, ax = C.reshape_p(self, shape=(-1,)), 0
    if dtype is not None and isinstance(x, Tensor) and mstype.is_float(x.dtype):
        # a float tensor is scanned in its own dtype and the sums cast (ops.cumsum casts first)
        return C.cast_p(R.cumsum(x, ax), dtype=R._dtype_arg("CumSum", dtype).name)
    return R.cumsum(x, ax, dtype)


_INT32_SCANS = (mstype.bool_, mstype.int8, mstype.uint8, mstype.int16)


def _cumprod(self, dim, dtype=None):
    return R.cumprod(self, dim, dtype)


def _count_nonzero(self, dim=None, keep_dims=None, dtype=None, *, axis=None):
    # Tensor.count_nonzero(dim=None) and the older count_nonzero(axis=(), keep_dims=False, dtype=int32)
    if axis is None and keep_dims is None and dtype is None:
        return R.count_nonzero(self, () if dim is None else dim)
    return R.count_nonzero(self, _pick(axis, dim, ()), bool(keep_dims), mstype.int32 if dtype is None else dtype)


def _nansum(self, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
    return R.nansum(self, _pick(dim, axis, None), _pick(keepdims, None, keepdim), dtype=dtype)


def _ptp(self, axis=None, keepdims=False):
    return C.sub_p(R.amax(self, axis, keepdims), R.amin(self, axis, keepdims))


def _diff(self, n=1, axis=-1, prepend=None, append=None):
    return R.diff(self, n, axis, prepend, append)


def _sum_to_size(self, *size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    if isinstance(self, Tensor) and mstype.is_integral(self.dtype) and self.dtype != mstype.int64:
        self = C.cast_p(self, dtype=mstype.int64.name)     # as Tensor.sum: bool and integers sum to Int64
    return R.sum_to_size(self, tuple(size))


def _round_dunder(self, ndigits=None):
    return E.round(self, decimals=ndigits or 0)


def _clamp(self, min=None, max=None):
    return E.clamp(self, min, max)


def _round(self, decimals=0):
    return E.round(self, decimals=decimals)


def _addcdiv(self, tensor1, tensor2, *, value=1):
    return E.addcdiv(self, tensor1, tensor2, value)


# ---------------------------------------------------------------- in-place methods
def _assign(self, new):
    """Make `self` hold `new` (in its own dtype), keeping any recorded gradient graph consistent."""
    if new.dtype != self.dtype:
        new = C.cast_p(new, dtype=self.dtype.name)
    return update_in_place(self, lambda old: new, new)


def _inplace(fn, name):
    def method(self, *args, **kwargs):
        return _assign(self, fn(self, *args, **kwargs))
    method.__name__ = name
    return method


def clamp_(input, min=None, max=None):
    """`clamp` in place: `input` holds the result, which is returned."""
    return _assign(input, E.clamp(input, min, max))


def erfinv_(input):
    """`erfinv` in place."""
    return _assign(input, G.erfinv(input))


def tanh_(input):
    """`tanh` in place."""
    return _assign(input, G.tanh(input))


def inplace_sigmoid(input):
    """`sigmoid` in place."""
    return _assign(input, G.sigmoid(input))


def _operand(other):
    # Tensor methods take a list or tuple of numbers as a Tensor (`x.add([1, 2])`)
    return Tensor(other) if isinstance(other, (list, tuple)) else other


def _add(self, other, *, alpha=1):
    other = narrow(_operand(other), self)
    return C.add_p(self, other if alpha == 1 else C.mul_p(other, alpha))


def _sub(self, other, *, alpha=1):
    other = narrow(_operand(other), self)
    # two bools: alpha scales a bool to itself (MindSpore's SubExt keeps the Bool dtype)
    keep = alpha == 1 or (_is_bool(self) and _is_bool(other))
    return sub_keeping_bool(self, other if keep else C.mul_p(other, alpha))


def _remainder(self, other=None, *, divisor=None):
    # Tensor.remainder(other) and its older form Tensor.remainder(divisor=...)
    if (other is None) == (divisor is None):
        raise TypeError("For 'Tensor.remainder', exactly one of 'other' and 'divisor' must be given.")
    return G.remainder(self, _operand(_pick(other, divisor, None)))


def _div(self, other, *, rounding_mode=None):
    return _rounded_div("div_", self, other, rounding_mode)


_UNARY = (
    "deg2rad", "real", "conj", "positive", "rad2deg",
)
_SAME_SIGNATURE = (
    "ldexp", "float_power", "isclose", "allclose", "approximate_equal", "lerp", "addcmul", "logit", "nan_to_num",
    "mvlgamma", "amax", "amin", "aminmax", "nanmedian", "nanmean", "logsumexp", "cummax", "cummin",
    "logcumsumexp", "quantile", "nanquantile", "unsorted_segment_max", "unsorted_segment_min",
    "unsorted_segment_prod",
)


def _find(name):
    for module in (E, L, R, S):
        fn = getattr(module, name, None)
        if fn is not None:
            return fn
    raise AttributeError(name)


TENSOR_METHODS = {name: _find(name) for name in _UNARY + _SAME_SIGNATURE}
TENSOR_METHODS.update({
    # MindSpore's Tensor methods name the second operand `other`
    "float_power": lambda self, other: _find("float_power")(self, other),
    "approximate_equal": _approximate_equal,
    "max": _max, "min": _min, "mean": _mean, "median": _median, "prod": _prod, "argmax": _argmax, "argmin": _argmin,
    "amax": _amax_amin_method(R.amax), "amin": _amax_amin_method(R.amin),
    "argmax_with_value": _arg_with_value(P.argmax_with_value_p, "ArgMaxWithValue"),
    "argmin_with_value": _arg_with_value(P.argmin_with_value_p, "ArgMinWithValue"),
    "all": _all, "any": _any, "std": _std, "var": _var, "cumsum": _cumsum, "cumprod": _cumprod,
    "count_nonzero": _count_nonzero, "nansum": _nansum, "ptp": _ptp, "clamp": _clamp, "clip": _clamp,
    "round": _round, "addcdiv": _addcdiv, "diff": _diff, "sum_to_size": _sum_to_size, "__round__": _round_dunder,
    "clamp_": _inplace(_clamp, "clamp_"), "floor_": _inplace(G.floor, "floor_"),
    "floor_divide_": _inplace(G.floor_divide, "floor_divide_"), "erfinv_": _inplace(G.erfinv, "erfinv_"),
    "sigmoid_": _inplace(G.sigmoid, "sigmoid_"), "tanh_": _inplace(G.tanh, "tanh_"),
    "sign_": _inplace(C.sign_p, "sign_"), "remainder_": _inplace(G.remainder, "remainder_"),
    "exp_": _inplace(C.exp_p, "exp_"), "log_": _inplace(C.log_p, "log_"),
    "add": _add, "sub": _sub, "subtract": _sub, "remainder": _remainder,
    "add_": _inplace(_add, "add_"), "sub_": _inplace(_sub, "sub_"), "mul_": _inplace(C.mul_p, "mul_"),
    "div_": _inplace(_div, "div_"),
})
