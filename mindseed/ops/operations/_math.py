"""Class API of the math family: `ops.Sqrt()(x)`, `ops.ReduceMean(keep_dims=True)(x, 1)`, `ops.ArgMaxWithValue()`."""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._api import _attr_value
from mindseed.ops._prims import core as C
from mindseed.ops._prims import math as P
from mindseed.ops.functional import _math as F
from mindseed.ops.functional._core import _axes, _axis
from mindseed.ops.functional._math_elementwise import _tensor
from mindseed.ops.operations._base import REQUIRED, Primitive, attr_primitive, check_input_dtypes, \
    simple_primitive as _simple, subclass

_SIMPLE = {
    "Rint": (F.round, "x rounded half to even."),
    "Real": (F.real, "Re(x)."),
    "Conj": (F.conj, "conj(x)."),
    "Polygamma": (F.polygamma, "psi^(n)(x)."),
    "Lerp": (F.lerp, "start + weight * (end - start)."),
    "Addcdiv": (F.addcdiv, "x + value * t1 / t2."),
    "Addcmul": (F.addcmul, "x + value * t1 * t2."),
    "AddN": (F.addn, "the sum of a list of tensors."),
    "AccumulateNV2": (F.addn, "the sum of a list of tensors."),
    "DivNoNan": (lambda x, y: P.div_no_nan_p(x, y), "x / y, 0 where y is 0."),
    "Complex": (lambda real, imag: P.complex_p(real, imag), "real + i imag."),
    "Polar": (F.polar, "abs e^(i angle)."),
    "TensorAdd": (lambda x, y: C.add_p(x, y), "x + y."),
    "LerpScalar": (F.lerp, "start + weight * (end - start)."),
    "UnsortedSegmentSum": (F.unsorted_segment_sum, "segment sums."),
    "UnsortedSegmentMax": (F.unsorted_segment_max, "segment maxima."),
    "UnsortedSegmentMin": (F.unsorted_segment_min, "segment minima."),
    "UnsortedSegmentProd": (F.unsorted_segment_prod, "segment products."),
}


for _name, (_fn, _doc) in _SIMPLE.items():
    globals()[_name] = _simple(_name, _fn, _doc)


class Round(Primitive):
    """x rounded half to even (to `decimals` places)."""

    def __init__(self):
        super().__init__("Round")

    def __call__(self, input, decimals=0):
        return F.round(input, decimals=decimals)


class Quantile(Primitive):
    """The q-th quantiles along `dim` (all elements when None), optionally ignoring NaN."""

    def __init__(self, dim=None, keep_dims=False, ignore_nan=False):
        super().__init__("Quantile")
        self.dim, self.keep_dims, self.ignore_nan = dim, keep_dims, ignore_nan
        self.attrs.update(dim=dim, keep_dims=keep_dims, ignore_nan=ignore_nan)

    def __call__(self, input, q):
        fn = F.nanquantile if self.ignore_nan else F.quantile
        return fn(input, q, self.dim, self.keep_dims)


class MulNoNan(Primitive):
    """x * y, and 0 where y is 0 (even where x is inf or NaN)."""

    def __init__(self):
        super().__init__("MulNoNan")

    def __call__(self, x, y):
        prod = C.mul_p(x, y)
        zero = C.equal_p(y, 0) if isinstance(y, Tensor) else C.equal_p(C.zeros_like_p(prod), 0 if y == 0 else 1)
        return C.where_p(zero, C.zeros_like_p(prod), prod)


class SquaredDifference(Primitive):
    """(x - y) ** 2."""

    def __init__(self):
        super().__init__("SquaredDifference")

    def __call__(self, x, y):
        for name, t in (("x", x), ("y", y)):
            # a Python number pairs with a Tensor (the usual scalar promotion), as MindSpore's implicit conversion
            if not isinstance(t, Tensor) and (isinstance(t, bool) or not isinstance(t, (int, float)) or
                                              not isinstance(y if name == "x" else x, Tensor)):
                raise TypeError(f"For 'SquaredDifference', the input '{name}' must be a Tensor or a number with a "
                                f"Tensor partner, but got {type(t).__name__}.")
        if isinstance(x, Tensor) and isinstance(y, Tensor) and x.dtype == mstype.bool_ and y.dtype == mstype.bool_:
            # a bool pair stays bool after promotion, which the kernel refuses; bool with a number type promotes
            raise TypeError("For 'SquaredDifference', the inputs must be Tensors of a number type (a bool input "
                            "needs a number-typed partner), but got Bool and Bool.")
        d = C.sub_p(x, y)
        return C.mul_p(d, d)


class SquareSumAll(Primitive):
    """(sum(x ** 2), sum(y ** 2))."""

    def __init__(self):
        super().__init__("SquareSumAll")

    def __call__(self, x, y):
        check_input_dtypes("SquareSumAll", (mstype.float16, mstype.float32), x=x, y=y)
        if tuple(x.shape) != tuple(y.shape):
            raise ValueError(f"For primitive[SquareSumAll], the x: {list(x.shape)} must be equal to {list(y.shape)}")
        return C.reduce_sum_p(C.mul_p(x, x), axis=None), C.reduce_sum_p(C.mul_p(y, y), axis=None)


class EqualCount(Primitive):
    """The number of equal elements of x and y, as a 1-element tensor of x's dtype."""

    def __init__(self):
        super().__init__("EqualCount")

    def __call__(self, x, y):
        n = C.reduce_sum_p(C.cast_p(C.equal_p(x, y), dtype=x.dtype.name), axis=None, keep_dims=False)
        return C.reshape_p(n, shape=(1,))


class CheckNumerics(Primitive):
    """x itself; raises when x has NaN or infinite values."""

    def __init__(self):
        super().__init__("CheckNumerics")

    def __call__(self, x):
        _tensor("CheckNumerics", x, "x")
        if bool(P.reduce_any_p(P.is_inf_p(x))):
            raise RuntimeError("For 'CheckNumerics', the tensor had Inf values.")
        if bool(P.reduce_any_p(P.is_nan_p(x))):
            raise RuntimeError("For 'CheckNumerics', the tensor had NaN values.")
        return x


class _Segment(Primitive):
    """Reductions over sorted segment ids: the output has max(id) + 1 rows, empty segments hold `_empty`."""
    _prim = None
    _empty = 0

    def __init__(self):
        super().__init__(type(self).__name__)

    def __call__(self, input_x, segment_ids):
        _tensor(self.name, input_x, "input_x")
        _tensor(self.name, segment_ids, "segment_ids")
        if segment_ids.ndim != 1 or segment_ids.shape[0] != input_x.shape[0]:
            raise ValueError(f"For '{self.name}', the 'segment_ids' must be 1-D with {input_x.shape[0]} elements, "
                             f"but got shape {segment_ids.shape}.")
        n = int(segment_ids[-1].item()) + 1 if segment_ids.size else 0
        out = self._reduce(input_x, segment_ids, n)
        counts = P.segment_sum_p(C.ones_like_p(segment_ids), segment_ids, num_segments=n)
        empty = C.reshape_p(C.equal_p(counts, 0), shape=(n,) + (1,) * (out.ndim - 1))
        return C.where_p(empty, C.fill_p(shape=(), value=self._empty, dtype=out.dtype.name), out)

    def _reduce(self, x, ids, n):
        return type(self)._prim(x, ids, num_segments=n)


class SegmentSum(_Segment):
    """Sums of sorted segments."""
    _prim = P.segment_sum_p


class SegmentMax(_Segment):
    """Maxima of sorted segments (0 for an empty one)."""
    _prim = P.segment_max_p


class SegmentMin(_Segment):
    """Minima of sorted segments (0 for an empty one)."""
    _prim = P.segment_min_p


class SegmentProd(_Segment):
    """Products of sorted segments (1 for an empty one)."""
    _prim, _empty = P.segment_prod_p, 1


class SegmentMean(_Segment):
    """Means of sorted segments (0 for an empty one)."""

    def _reduce(self, x, ids, n):
        total = P.segment_sum_p(x, ids, num_segments=n)
        counts = P.segment_sum_p(C.ones_like_p(ids), ids, num_segments=n)
        counts = C.reshape_p(C.maximum_p(counts, 1), shape=(n,) + (1,) * (total.ndim - 1))
        return C.div_p(total, C.cast_p(counts, dtype=total.dtype.name))


class _WithAttrs(Primitive):
    """A primitive class whose constructor arguments are its attributes."""

    def _set(self, **attrs):
        for k, v in attrs.items():
            setattr(self, k, v)
        self.attrs.update(attrs)


class NanToNum(_WithAttrs):
    """NaN and infinities replaced by finite numbers."""

    def __init__(self, nan=None, posinf=None, neginf=None):
        super().__init__("NanToNum")
        self._set(nan=nan, posinf=posinf, neginf=neginf)

    def __call__(self, input):
        return F.nan_to_num(input, self.nan, self.posinf, self.neginf)


class Logit(_WithAttrs):
    """log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps >= 0."""

    def __init__(self, eps=-1.0):
        super().__init__("Logit")
        self._set(eps=eps)

    def __call__(self, input):
        return F.logit(input, self.eps if self.eps >= 0 else None)


class IsClose(_WithAttrs):
    """|x - y| <= atol + rtol * |y|."""

    def __init__(self, rtol=1e-05, atol=1e-08, equal_nan=False):
        super().__init__("IsClose")
        self._set(rtol=rtol, atol=atol, equal_nan=equal_nan)

    def __call__(self, input, other):
        return F.isclose(input, other, self.rtol, self.atol, self.equal_nan)


class ApproximateEqual(_WithAttrs):
    """|x - y| < tolerance."""

    def __init__(self, tolerance=1e-05):
        super().__init__("ApproximateEqual")
        if not isinstance(tolerance, float):
            raise TypeError(f"For 'ApproximateEqual', the type of 'tolerance' should be 'float', but got type "
                            f"'{type(tolerance).__name__}'.")
        self._set(tolerance=tolerance)

    def __call__(self, x, y):
        return F.approximate_equal(x, y, self.tolerance)


Mvlgamma = attr_primitive("Mvlgamma", F.mvlgamma, "The multivariate log-gamma function of dimension p.",
                          (("p", REQUIRED),))


def _axis_value(axis):
    return int(axis.item()) if isinstance(axis, Tensor) else axis


class _Scan(_WithAttrs):
    _prim = None

    def __init__(self, exclusive=False, reverse=False):
        super().__init__()
        self._set(exclusive=exclusive, reverse=reverse)

    def __call__(self, x, axis):
        _tensor(self.name, x, "x")
        if x.dtype == mstype.bool_ and type(self)._prim is not P.logcumsumexp_p:
            raise TypeError(f"For primitive[{self.name}], the input argument[x] must be a Tensor of a number type, but "
                            f"got Tensor[Bool].")
        ax = _axis(self.name, _axis_value(axis), x.ndim)
        prim = type(self)._prim
        # the class keeps x's dtype (the functional cumsum/cumprod widen integers to Int64)
        keep = {} if prim is P.logcumsumexp_p else {"dtype": x.dtype.name}
        return prim(x, axis=ax, exclusive=bool(self.exclusive), reverse=bool(self.reverse), **keep)


_SCAN_DOC = "Cumulative {} along an axis (optionally exclusive and/or reversed)."
CumSum = subclass(_Scan, "CumSum", _SCAN_DOC.format("sum"), _prim=P.cumsum_p)
CumProd = subclass(_Scan, "CumProd", _SCAN_DOC.format("product"), _prim=P.cumprod_p)
CumulativeLogsumexp = subclass(_Scan, "CumulativeLogsumexp", _SCAN_DOC.format("log-sum-exp"), _prim=P.logcumsumexp_p)
Cummax = attr_primitive("Cummax", F.cummax, "(running maximum, index) along `axis`.", (("axis", REQUIRED),))
Cummin = attr_primitive("Cummin", F.cummin, "(running minimum, index) along `axis`.", (("axis", REQUIRED),))


class Median(_WithAttrs):
    """(median, index) along `axis`, or of all elements with `global_median`."""

    def __init__(self, global_median=False, axis=0, keep_dims=False, ignore_nan=False):
        super().__init__("Median")
        self._set(global_median=global_median, axis=axis, keep_dims=keep_dims, ignore_nan=ignore_nan)

    def __call__(self, x):
        fn = F.nanmedian if self.ignore_nan else F.median
        if self.global_median:
            return fn(C.reshape_p(x, shape=(-1,)), 0, False)
        return fn(x, self.axis, self.keep_dims)


class _ArgReduce(_WithAttrs):
    _prim = None

    def __init__(self, axis=-1, output_type=mstype.int32):
        super().__init__()
        self._set(axis=axis, output_type=output_type)

    def __call__(self, input_x):
        _tensor(self.name, input_x, "input_x")
        if self.output_type not in (mstype.int32, mstype.int64):
            raise ValueError(f"{self.name} error: dtype should be Int32 or Int64 but got {self.output_type}")
        return type(self)._prim(input_x, axis=_axis(self.name, self.axis, input_x.ndim), keep_dims=False,
                                dtype=self.output_type.name)


Argmax = subclass(_ArgReduce, "Argmax", "The index of the maximum along `axis`, as `output_type`.", _prim=P.argmax_p)
Argmin = subclass(_ArgReduce, "Argmin", "The index of the minimum along `axis`, as `output_type`.", _prim=P.argmin_p)


class _ArgWithValue(_WithAttrs):
    _prim = None

    def __init__(self, axis=0, keep_dims=False):
        super().__init__()
        self._set(axis=axis, keep_dims=keep_dims)

    def __call__(self, input):
        _tensor(self.name, input)
        return type(self)._prim(input, axis=_axis(self.name, self.axis, input.ndim), keep_dims=bool(self.keep_dims))


_ARGMAX_DOC, _ARGMIN_DOC = "(index, value) of the maximum along `axis`.", "(index, value) of the minimum along `axis`."
ArgMaxWithValue = subclass(_ArgWithValue, "ArgMaxWithValue", _ARGMAX_DOC, _prim=P.argmax_with_value_p)
ArgMinWithValue = subclass(_ArgWithValue, "ArgMinWithValue", _ARGMIN_DOC, _prim=P.argmin_with_value_p)


class _Reduce(_WithAttrs):
    _fn = None

    def __init__(self, keep_dims=False):
        super().__init__()
        self._set(keep_dims=_attr_value(keep_dims))

    def __call__(self, x, axis=()):
        return type(self)._fn(x, _attr_value(axis), self.keep_dims)


ReduceMean = subclass(_Reduce, "ReduceMean", "The mean over `axis` (all axes when empty).", _fn=staticmethod(F.mean))
ReduceMax = subclass(_Reduce, "ReduceMax", "The maximum over `axis` (all axes when empty).", _fn=staticmethod(F.amax))
ReduceMin = subclass(_Reduce, "ReduceMin", "The minimum over `axis` (all axes when empty).", _fn=staticmethod(F.amin))
ReduceAll = subclass(_Reduce, "ReduceAll", "Logical AND over `axis` (all axes when empty).", _fn=staticmethod(F.all))
ReduceAny = subclass(_Reduce, "ReduceAny", "Logical OR over `axis` (all axes when empty).", _fn=staticmethod(F.any))


class ReduceProd(_Reduce):
    """The product over `axis` (all axes when empty), keeping x's dtype."""

    def __call__(self, x, axis=()):
        _tensor("ReduceProd", x, "x")
        axis = _attr_value(axis)
        return P.reduce_prod_p(x, axis=_axes("ReduceProd", axis, x.ndim), keep_dims=bool(self.keep_dims),
                               dtype=x.dtype.name)


class ReduceStd(_WithAttrs):
    """(standard deviation, mean) over `axis` (all axes when empty); `unbiased` divides by N - 1."""

    def __init__(self, axis=(), unbiased=True, keep_dims=False):
        super().__init__("ReduceStd")
        self._set(axis=axis, unbiased=unbiased, keep_dims=keep_dims)

    def __call__(self, x):
        axis = None if self.axis in ((), []) else (tuple(self.axis) if isinstance(self.axis, list) else self.axis)
        return F.std_mean(x, axis, int(bool(self.unbiased)), bool(self.keep_dims))


class CountNonZero(_WithAttrs):
    """The number of nonzero elements over `dims` (all when None), Int64."""

    def __init__(self, dims=None):
        super().__init__("CountNonZero")
        self._set(dims=dims)

    def __call__(self, x):
        dims = () if self.dims is None else (tuple(self.dims) if isinstance(self.dims, list) else self.dims)
        return F.count_nonzero(x, dims, False, mstype.int64)


__all__ = list(_SIMPLE) + [
    "Round", "Quantile", "CheckNumerics", "SegmentSum", "SegmentMax", "SegmentMin", "SegmentProd", "SegmentMean",
    "MulNoNan", "SquaredDifference", "SquareSumAll", "EqualCount", "NanToNum", "Logit", "IsClose",
    "ApproximateEqual", "Mvlgamma", "CumSum", "CumProd", "CumulativeLogsumexp", "Cummax", "Cummin", "Median",
    "Argmax", "Argmin", "ArgMaxWithValue", "ArgMinWithValue", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceAll",
    "ReduceAny", "ReduceProd", "ReduceStd", "CountNonZero",
]
