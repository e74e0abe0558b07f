"""Reductions and scans: values vs numpy, gradients vs finite differences, bad input, random shapes/axes fuzz."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, OpSpec, bools, ints, make_error_tests, make_tests, positive

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _with_zeros(r, s):
    a = r.standard_normal(s)
    a.reshape(-1)[::5] = 0.0
    return a


def _with_nans(r, s):
    a = r.standard_normal(s)
    a.reshape(-1)[::5] = np.nan
    return a


def _stable_logsumexp(x, axis):
    m = np.max(x, axis, keepdims=True)
    return np.squeeze(m, axis) + np.log(np.exp(x - m).sum(axis))


def _lower_median(x, axis, keepdims=False):
    s = np.sort(x, axis=axis)
    idx = (x.shape[axis] - 1) // 2
    return np.take(s, [idx] if keepdims else idx, axis=axis)


def _running_arg(x, axis, largest):
    """(running max/min, its index) along axis, for inputs without ties."""
    values = (np.maximum if largest else np.minimum).accumulate(x, axis=axis)
    index = np.argmax(np.expand_dims(values, axis + 1) == np.expand_dims(x, axis), axis=axis + 1)
    return values, index


def _exclusive_logcumsumexp_reverse(x):
    c = _cum_exclusive(np.exp(np.flip(x, 0)), 0, False)
    with np.errstate(divide="ignore"):
        out = np.where(c == 0, np.finfo(x.dtype).min, np.log(c))
    return np.flip(out, 0)


def _logcumsumexp(x, axis):
    return np.log(np.cumsum(np.exp(x), axis=axis))


def _cum_exclusive(x, axis, reverse, prod=False):
    if reverse:
        x = np.flip(x, axis)
    c = (np.cumprod if prod else np.cumsum)(x, axis=axis)
    fill = np.ones_like(np.take(c, [0], axis=axis)) if prod else np.zeros_like(np.take(c, [0], axis=axis))
    c = np.concatenate([fill, np.take(c, range(x.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(c, axis) if reverse else c


S3 = [(2, 3, 4)]
SPECS = [
    OpSpec("mean_all", ops.mean, np.mean, grad2=True),
    OpSpec("mean_axis", lambda x: ops.mean(x, 1), lambda x: x.mean(1), shapes=S3),
    OpSpec("mean_axes_keep", lambda x: ops.mean(x, (0, -1), True), lambda x: x.mean((0, 2), keepdims=True),
           shapes=S3, grad2=True),
    OpSpec("reduce_mean", lambda x: ops.reduce_mean(x, ()), np.mean),
    OpSpec("reduce_sum", lambda x: ops.reduce_sum(x, 0), lambda x: x.sum(0)),
    OpSpec("prod_all", ops.prod, np.prod, shapes=[(2, 3)], grad2=True),
    OpSpec("prod_axes", lambda x: ops.prod(x, (0, 2), True), lambda x: np.prod(x, (0, 2), keepdims=True),
           shapes=S3, grad2=True),
    OpSpec("prod_with_zeros", lambda x: ops.prod(x, 1), lambda x: x.prod(1), shapes=[(3, 5)], gen=_with_zeros),
    OpSpec("amax", lambda x: ops.amax(x, 1), lambda x: x.max(1), shapes=S3, grad2=True),
    OpSpec("amax_tuple_keep", lambda x: ops.amax(x, (0, 2), keepdims=True), lambda x: x.max((0, 2), keepdims=True),
           shapes=S3),
    OpSpec("amin_all", ops.amin, np.min, shapes=S3),
    OpSpec("amax_initial", lambda x: ops.amax(x, 1, initial=0.5), lambda x: np.maximum(x.max(1), 0.5)),
    OpSpec("amax_where", lambda x, m: ops.amax(x, 1, where=m, initial=-5.0),
           lambda x, m: np.max(x, 1, where=m, initial=-5.0), shapes=[(3, 4), (3, 4)], gen=[None, bools]),
    OpSpec("amin_where", lambda x, m: ops.amin(x, 0, where=m, initial=5.0),
           lambda x, m: np.min(x, 0, where=m, initial=5.0), shapes=[(3, 4), (3, 4)], gen=[None, bools]),
    OpSpec("reduce_max", lambda x: ops.reduce_max(x, 0), lambda x: x.max(0)),
    OpSpec("reduce_min", lambda x: ops.reduce_min(x), np.min),
    OpSpec("max_axis", lambda x: ops.max(x, 1), lambda x: (x.max(1), x.argmax(1)), shapes=S3, grad2=True),
    OpSpec("max_keep", lambda x: ops.max(x, -1, True), lambda x: (x.max(-1, keepdims=True),
                                                                 x.argmax(-1)[..., None]), shapes=S3),
    OpSpec("min_axis", lambda x: ops.min(x, 0), lambda x: (x.min(0), x.argmin(0)), shapes=S3),
    OpSpec("max_all", ops.max, lambda x: (x.max(), 0)),
    OpSpec("aminmax", lambda x: ops.aminmax(x, axis=1), lambda x: (x.min(1), x.max(1)), shapes=S3),
    # the gradient of max along an axis as a row of its own: its gradient (w.r.t. w) takes w back at the argmax
    OpSpec("max_axis_grad", lambda x, w: ms.grad(lambda y: (ops.max(y, 1)[0] * w).sum())(x),
           lambda x, w: np.eye(4)[x.argmax(1)] * w[:, None], shapes=[(3, 4), (3,)]),
    OpSpec("argmax", lambda x: ops.argmax(x, 1), lambda x: x.argmax(1), shapes=S3, grad=False),
    OpSpec("argmax_flat", ops.argmax, np.argmax, shapes=S3, grad=False),
    OpSpec("argmin_keep", lambda x: ops.argmin(x, 2, True), lambda x: x.argmin(2)[..., None], shapes=S3, grad=False),
    OpSpec("all", lambda x: ops.all(x, 1), lambda x: x.all(1), gen=bools, grad=False),
    OpSpec("any_keep", lambda x: ops.any(x, (0, 1), True), lambda x: x.any((0, 1), keepdims=True), gen=bools,
           grad=False),
    OpSpec("all_float", lambda x: ops.all(x > 0), lambda x: (x > 0).all(), grad=False),
    OpSpec("count_nonzero", lambda x: ops.count_nonzero(x, 1), lambda x: np.count_nonzero(x, 1), gen=ints(0, 3),
           grad=False, dtypes=("float64",)),
    OpSpec("var", ops.var, np.var, grad2=True),
    OpSpec("var_axis_ddof", lambda x: ops.var(x, 1, ddof=1), lambda x: x.var(1, ddof=1), shapes=S3, grad2=True),
    OpSpec("std", lambda x: ops.std(x, (0, 2), 1, True), lambda x: x.std((0, 2), ddof=1, keepdims=True),
           shapes=S3, grad2=True),
    OpSpec("std_mean", lambda x: ops.std_mean(x, 0), lambda x: (x.std(0), x.mean(0))),
    OpSpec("var_mean", lambda x: ops.var_mean(x, 1, 1, True), lambda x: (x.var(1, ddof=1, keepdims=True),
                                                                        x.mean(1, keepdims=True))),
    OpSpec("logsumexp", lambda x: ops.logsumexp(x, 1), lambda x: np.log(np.exp(x).sum(1)), shapes=S3, grad2=True),
    OpSpec("logsumexp_keep_tuple", lambda x: ops.logsumexp(x, (0, 1), True),
           lambda x: np.log(np.exp(x).sum((0, 1), keepdims=True)), shapes=S3),
    OpSpec("logsumexp_large", lambda x: ops.logsumexp(x * 1000, 1), lambda x: _stable_logsumexp(x * 1000, 1),
           grad=False),
    OpSpec("cumsum", lambda x: ops.cumsum(x, 1), lambda x: np.cumsum(x, 1), shapes=S3, grad2=True),
    OpSpec("cumsum_exclusive_reverse", lambda x: ops.CumSum(exclusive=True, reverse=True)(x, 1),
           lambda x: _cum_exclusive(x, 1, True), shapes=S3, grad2=True),
    OpSpec("cumprod", lambda x: ops.cumprod(x, 0), lambda x: np.cumprod(x, 0), gen=positive, grad2=True),
    OpSpec("cumprod_exclusive", lambda x: ops.CumProd(exclusive=True)(x, 1),
           lambda x: _cum_exclusive(x, 1, False, prod=True), gen=positive, grad2=True),
    OpSpec("cummax", lambda x: ops.cummax(x, 1), lambda x: _running_arg(x, 1, True), shapes=S3),
    OpSpec("cummin", lambda x: ops.cummin(x, 0), lambda x: _running_arg(x, 0, False), shapes=S3),
    OpSpec("logcumsumexp", lambda x: ops.logcumsumexp(x, 1), lambda x: _logcumsumexp(x, 1), shapes=S3, grad2=True),
    OpSpec("logcumsumexp_exclusive_reverse", lambda x: ops.CumulativeLogsumexp(True, True)(x, 0),
           _exclusive_logcumsumexp_reverse, grad=False),
    # the last row holds the dtype's lowest value (as MindSpore), which would swamp a finite-difference objective
    OpSpec("logcumsumexp_exclusive_reverse_grad", lambda x: ops.CumulativeLogsumexp(True, True)(x, 0)[:-1],
           lambda x: _exclusive_logcumsumexp_reverse(x)[:-1], grad2=True),
    OpSpec("median", lambda x: ops.median(x, 1)[0], lambda x: _lower_median(x, 1), shapes=[(3, 4, 5)], grad2=True),
    OpSpec("median_keep", lambda x: ops.median(x, 0, True)[0], lambda x: _lower_median(x, 0, True), shapes=S3),
    OpSpec("nanmedian", lambda x: ops.nanmedian(x, 1)[0], lambda x: _lower_median(x, 1), shapes=[(3, 4)]),
    OpSpec("nansum", lambda x: ops.nansum(x, 1), lambda x: np.nansum(x, 1), gen=_with_nans),
    OpSpec("nansum_all", ops.nansum, np.nansum, gen=_with_nans),
    OpSpec("nanmean", lambda x: ops.nanmean(x, 0, True), lambda x: np.nanmean(x, 0, keepdims=True), gen=_with_nans),
]

test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)

_x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
ERRORS = [
    ErrorSpec("mean_axis", lambda: ops.mean(_x, 2), ValueError, "For 'ReduceMean', the 'axis' must be in range"),
    ErrorSpec("mean_axis_dup", lambda: ops.mean(_x, (1, -1)), ValueError, "duplicated"),
    ErrorSpec("mean_axis_type", lambda: ops.mean(_x, 1.5), TypeError, "For 'ReduceMean', the 'axis'"),
    ErrorSpec("mean_keep_dims", lambda: ops.mean(_x, 1, "yes"), TypeError, "'keep_dims' must be a bool"),
    ErrorSpec("mean_list", lambda: ops.mean([1.0, 2.0]), TypeError, "For 'ReduceMean', the 'x' must be a Tensor"),
    ErrorSpec("prod_axis", lambda: ops.prod(_x, 3), ValueError, "For 'ReduceProd'"),
    ErrorSpec("max_axis", lambda: ops.max(_x, 2), ValueError, "For 'max', the 'axis'"),
    ErrorSpec("max_axis_tuple", lambda: ops.max(_x, (0, 1)), TypeError, "For 'max', the 'axis' must be an int"),
    ErrorSpec("max_where_dtype", lambda: ops.amax(_x, 1, where=_x), TypeError, "'where' must be a Tensor of bool"),
    ErrorSpec("amax_axis", lambda: ops.amax(_x, -3), ValueError, "For 'ReduceMax'"),
    ErrorSpec("argmax_axis", lambda: ops.argmax(_x, 2), ValueError, "For 'Argmax'"),
    ErrorSpec("argmin_complex", lambda: ops.argmin(ms.Tensor([1j, 2j])), TypeError, "For 'Argmin'"),
    ErrorSpec("all_axis", lambda: ops.all(_x, 5), ValueError, "For 'ReduceAll'"),
    ErrorSpec("std_int", lambda: ops.std(ms.Tensor([1, 2, 3])), TypeError, "For 'std', the 'input' must be"),
    ErrorSpec("var_ddof", lambda: ops.var(_x, ddof=1.5), TypeError, "the type of 'ddof' should be"),
    ErrorSpec("var_axis", lambda: ops.var(_x, 2), ValueError, "For 'var'"),
    ErrorSpec("logsumexp_axis", lambda: ops.logsumexp(_x, 2), ValueError, "For 'LogSumExp'"),
    ErrorSpec("cumsum_axis", lambda: ops.cumsum(_x, 2), ValueError, "For 'CumSum', the 'axis' must be in range"),
    ErrorSpec("cumsum_axis_none", lambda: ops.cumsum(_x, None), TypeError, "For 'CumSum', the 'axis' must be an int"),
    ErrorSpec("cumprod_axis", lambda: ops.cumprod(_x, -3), ValueError, "For 'CumProd'"),
    ErrorSpec("cummax_axis", lambda: ops.cummax(_x, 4), ValueError, "For 'Cummax'"),
    ErrorSpec("median_axis", lambda: ops.median(_x, 3), ValueError, "For 'Median'"),
    ErrorSpec("nanmean_int", lambda: ops.nanmean(ms.Tensor([1, 2])), TypeError, "For 'nanmean'"),
    ErrorSpec("count_nonzero_dtype", lambda: ops.count_nonzero(_x, dtype="int"), TypeError, "For 'CountNonZero'"),
]
test_bad_input = make_error_tests(ERRORS)


# ---------------------------------------------------------------- dtypes and MindSpore conventions
def test_reduction_dtypes():
    i = ms.Tensor([[1, 5, 3], [4, 2, 6]], ms.int32)
    assert ops.mean(i).dtype == ms.int32 and ops.mean(i).asnumpy().item() == 3
    assert ops.mean(i, 1).asnumpy().tolist() == [3, 4]
    assert ops.prod(i).dtype == ms.int64 and ops.prod(i).asnumpy().item() == 720
    assert ops.prod(i, dtype=ms.float32).dtype == ms.float32
    assert ops.cumsum(i, 1).dtype == ms.int32
    assert ops.cumprod(i, 1).dtype == ms.int64
    assert ops.cumsum(i, 1, dtype=ms.float64).dtype == ms.float64
    assert ops.argmax(i, 1).dtype == ms.int64 and ops.argmin(i, 1).dtype == ms.int32
    assert ops.max(i, 1)[0].dtype == ms.int32 and ops.max(i, 1)[1].dtype == ms.int64
    assert ops.cummin(i, 1)[1].dtype == ms.int32 and ops.cummax(i, 1)[1].dtype == ms.int64
    assert ops.count_nonzero(i).dtype == ms.int32
    assert ops.all(i).dtype == ms.bool_ and ops.any(i, 1).shape == (2,)
    assert ops.nansum(i).dtype == ms.int32
    assert ops.amax(ms.Tensor([True, False])).asnumpy().item() is True


@pytest.mark.parametrize("reduce, ref", [(ms.mint.sum, np.sum), (ms.mint.prod, np.prod)])
@pytest.mark.parametrize("dtype", [ms.int8, ms.uint8, ms.int16])
@pytest.mark.parametrize("axis", [-1, None])
def test_sum_and_prod_keep_a_narrow_integer_dtype_asked_for(reduce, ref, dtype, axis):
    x = np.random.default_rng(3).uniform(-4, 4, (2, 3, 4)).astype(np.float16)
    out = reduce(ms.Tensor(x), axis, False, dtype=dtype)
    assert out.dtype == dtype       # not the Int64 the kernel accumulates in
    nptype = ms.dtype_to_nptype(dtype)
    np.testing.assert_array_equal(out.asnumpy(), ref(x.astype(nptype), axis=axis, dtype=nptype))
    g = ms.grad(lambda v: reduce(v, axis, False, dtype=dtype))(ms.Tensor(x))
    assert g.dtype == ms.float16 and g.shape == x.shape


def test_keep_dims_may_be_a_mutable_bool():
    x = np.arange(24.0).reshape(2, 3, 4)
    for keep in (True, False):
        flag = ms.mutable(keep)
        np.testing.assert_allclose(ops.mean(ms.Tensor(x), (0, -1), flag).asnumpy(), x.mean((0, -1), keepdims=keep))
        np.testing.assert_allclose(ops.prod(ms.Tensor(x), 1, flag).asnumpy(), x.prod(1, keepdims=keep))
    with pytest.raises(TypeError, match="For 'ReduceMean', the 'keep_dims' must be a bool, but got int"):
        ops.mean(ms.Tensor(x), 0, 1)


def test_max_initial_and_index():
    x = ms.Tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    v, i = ops.max(x, 1, initial=5.5)
    assert v.asnumpy().tolist() == [5.5, 6.0] and i.asnumpy().tolist() == [0, 2]
    v, i = ops.max(x, 1, where=ms.Tensor([[True, False, True], [True, True, False]]), initial=0.0)
    assert v.asnumpy().tolist() == [3.0, 4.0] and i.asnumpy().tolist() == [2, 0]
    v, i = ops.max(x)
    assert v.asnumpy().item() == 6.0 and i.asnumpy().item() == 0


def test_amax_ties_share_gradient():
    x = ms.Tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    g = ms.grad(lambda v: ops.amax(v, 1).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-6)
    g = ms.grad(lambda v: ops.max(v, 1)[0].sum())(x)
    np.testing.assert_allclose(g.asnumpy().sum(1), [1.0, 1.0])


def test_prod_grad_exact_with_zeros():
    x = ms.Tensor([[2.0, 0.0, 3.0], [0.0, 0.0, 4.0]], ms.float64)
    g = ms.grad(lambda v: ops.prod(v, 1).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0]])


def test_cummax_grad_goes_to_running_argmax():
    x = ms.Tensor([1.0, 3.0, 2.0, 5.0])
    g = ms.grad(lambda v: ops.cummax(v, 0)[0].sum())(x)
    assert g.asnumpy().tolist() == [1.0, 2.0, 0.0, 1.0]


# ---------------------------------------------------------------- fuzz over random shapes and axes
_FUZZ = [
    (lambda x, a, k: ops.mean(x, a, k), lambda x, a, k: x.mean(a, keepdims=k)),
    (lambda x, a, k: ops.amax(x, a, k), lambda x, a, k: x.max(a, keepdims=k)),
    (lambda x, a, k: ops.prod(x, a, k), lambda x, a, k: x.prod(a, keepdims=k)),
    (lambda x, a, k: ops.var(x, a, 0, k), lambda x, a, k: x.var(a, keepdims=k)),
    (lambda x, a, k: ops.logsumexp(x, a, k), lambda x, a, k: np.log(np.exp(x).sum(a, keepdims=k))),
    (lambda x, a, k: ops.nansum(x, a, k), lambda x, a, k: np.nansum(x, a, keepdims=k)),
]


@st.composite
def _shape_and_axes(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    axes = draw(st.one_of(st.none(), st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True)))
    if axes is not None:
        axes = tuple(a - len(shape) if draw(st.booleans()) else a for a in axes)
    return shape, axes


@settings(max_examples=30, deadline=None)
@given(case=_shape_and_axes(), keep=st.booleans(), which=st.integers(0, len(_FUZZ) - 1), seed=st.integers(0, 999))
def test_reductions_fuzz(case, keep, which, seed):
    shape, axes = case
    fn, ref = _FUZZ[which]
    a = np.random.RandomState(seed).standard_normal(shape)
    x = ms.Tensor(a)
    out = fn(x, axes, keep)
    want = ref(a, axes, keep)
    assert out.shape == np.shape(want)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6, atol=1e-9)
    g = ms.grad(lambda v: fn(v, axes, keep).sum())(x)
    assert g.shape == shape and np.isfinite(g.asnumpy()).all()


# ---------------------------------------------------------------- quantiles and trapz
_np_trapezoid = getattr(np, "trapezoid", None) or np.trapz    # numpy < 2 names it trapz


def _np_quantile_grad(x, q, w):
    """d/dx of sum(w * quantile(x, q, axis=1)) with linear interpolation (no ties)."""
    out = np.zeros_like(x)
    pos = q * (x.shape[1] - 1)
    lo, frac = int(np.floor(pos)), pos - np.floor(pos)
    order = np.argsort(x, 1)
    for i in range(x.shape[0]):
        out[i, order[i, lo]] += (1 - frac) * w[i]
        out[i, order[i, min(lo + 1, x.shape[1] - 1)]] += frac * w[i]
    return out


QUANTILE = [
    OpSpec("quantile_all", lambda x: ops.quantile(x, 0.3), lambda x: np.quantile(x, 0.3), grad2=True),
    OpSpec("quantile_axis_many", lambda x: ops.quantile(x, ms.Tensor([0.2, 0.5, 1.0]), axis=1),
           lambda x: np.quantile(x, [0.2, 0.5, 1.0], axis=1), shapes=[(2, 5, 3)], grad2=True),
    OpSpec("quantile_keep", lambda x: ops.quantile(x, 0.75, axis=0, keepdims=True),
           lambda x: np.quantile(x, 0.75, axis=0, keepdims=True), shapes=[(4, 3)]),
    OpSpec("quantile_many_keep_none", lambda x: ops.quantile(x, ms.Tensor([0.1, 0.9]), keepdims=True),
           lambda x: np.quantile(x, [0.1, 0.9], keepdims=True), shapes=[(2, 3)]),
    OpSpec("nanquantile", lambda x: ops.nanquantile(x, 0.4, axis=1), lambda x: np.nanquantile(x, 0.4, axis=1),
           shapes=[(3, 5)], gen=_with_nans),
    # the gradient of quantile as a row of its own: w spread over the two order statistics around the quantile
    OpSpec("quantile_grad", lambda x, w: ms.grad(lambda y: (ops.quantile(y, 0.3, axis=1) * w).sum())(x),
           lambda x, w: _np_quantile_grad(x, 0.3, w), shapes=[(3, 5), (3,)]),
    OpSpec("trapz", ops.trapz, lambda y: _np_trapezoid(y, axis=-1), shapes=S3, grad2=True),
    OpSpec("trapz_x", lambda y, x: ops.trapz(y, x, dim=1), lambda y, x: _np_trapezoid(y, x, axis=1),
           shapes=[(2, 3, 4), (2, 3, 4)], grad2=True),
    OpSpec("trapz_x_1d", lambda y, x: ops.trapz(y, x, dim=0), lambda y, x: _np_trapezoid(y, x[:, None, None], axis=0),
           shapes=[(3, 2, 2), (3,)]),
    OpSpec("trapz_dx", lambda y: ops.trapz(y, dx=0.5, dim=0), lambda y: _np_trapezoid(y, dx=0.5, axis=0)),
]
test_quantile_value, test_quantile_grad, test_quantile_grad2, test_quantile_graph = make_tests(QUANTILE)

test_quantile_bad_input = make_error_tests([
    ErrorSpec("quantile_q_range", lambda: ops.quantile(_x, 1.5), ValueError, "For 'quantile', the 'q' values"),
    ErrorSpec("quantile_q_type", lambda: ops.quantile(_x, 1), TypeError, "For 'quantile', the 'q'"),
    ErrorSpec("quantile_int", lambda: ops.quantile(ms.Tensor([1, 2]), 0.5), TypeError, "float32 or float64"),
    ErrorSpec("quantile_axis", lambda: ops.quantile(_x, 0.5, axis=2), ValueError, "For 'quantile', the 'axis'"),
    ErrorSpec("trapz_x_size", lambda: ops.trapz(_x, ms.Tensor([1.0, 2.0])), ValueError, "For 'trapz'"),
])


def test_quantile_nan_rows():
    x = ms.Tensor([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    out = ops.nanquantile(x, 0.5, axis=1).asnumpy()
    assert out[0] == 2.0 and np.isnan(out[1])
    assert np.isnan(ops.quantile(x, 0.5, axis=1).asnumpy()).all()


# ---------------------------------------------------------------- segment reductions, diff, sum_to_size
_IDS = np.array([0, 2, 0, 1, 2, 0])


def _np_segment(fn, init):
    def ref(x):
        out = np.full((4,) + x.shape[1:], init, dtype=x.dtype)
        for k in range(4):
            rows = x[_IDS == k]
            if len(rows):
                out[k] = fn(rows, axis=0)
        return out
    return ref


SEGMENTS = [
    OpSpec("segment_sum", lambda x: ops.unsorted_segment_sum(x, ms.Tensor(_IDS), 4), _np_segment(np.sum, 0),
           shapes=[(6, 3)], grad2=True),
    OpSpec("segment_max", lambda x: ops.unsorted_segment_max(x, ms.Tensor(_IDS), 4)[:3],
           lambda x: _np_segment(np.max, 0)(x)[:3], shapes=[(6, 3)], grad2=True),
    OpSpec("segment_min", lambda x: ops.unsorted_segment_min(x, ms.Tensor(_IDS, ms.int32), 3),
           lambda x: _np_segment(np.min, 0)(x)[:3], shapes=[(6, 2)]),
    OpSpec("segment_prod", lambda x: ops.unsorted_segment_prod(x, ms.Tensor(_IDS), 4), _np_segment(np.prod, 1),
           shapes=[(6, 3)], grad2=True),
    OpSpec("segment_prod_zeros", lambda x: ops.unsorted_segment_prod(x, ms.Tensor(_IDS), 4), _np_segment(np.prod, 1),
           shapes=[(6, 3)], gen=lambda r, s: r.choice([0.0, 0.5, -1.5, 2.0], s)),
    OpSpec("segment_sum_2d_ids", lambda x: ops.unsorted_segment_sum(x, ms.Tensor([[1, 0, -1], [1, 1, 0]]), 2),
           lambda x: np.stack([x[0, 1] + x[1, 2], x[0, 0] + x[1, 0] + x[1, 1]]), shapes=[(2, 3, 2)]),
    OpSpec("diff", ops.diff, lambda x: np.diff(x), shapes=S3, grad2=True),
    OpSpec("diff_n2_axis0_edges", lambda x, p: ops.diff(x, 2, 0, prepend=p, append=p),
           lambda x, p: np.diff(x, 2, 0, prepend=p, append=p), shapes=[(4, 3), (1, 3)]),
    OpSpec("sum_to_size", lambda x: x.sum_to_size(3, 1), lambda x: x.sum(0).sum(-1, keepdims=True), shapes=S3),
]
test_segment_value, test_segment_grad, test_segment_grad2, test_segment_graph = make_tests(SEGMENTS)

test_segment_bad_input = make_error_tests([
    ErrorSpec("segment_ids_float", lambda: ops.unsorted_segment_sum(_x, ms.Tensor([0.0, 1.0]), 2), TypeError,
              "For 'UnsortedSegmentSum', the 'segment_ids' must be a Tensor of int"),
    ErrorSpec("segment_ids_shape", lambda: ops.unsorted_segment_sum(_x, ms.Tensor([0, 1, 1]), 2), ValueError,
              "must be a prefix"),
    ErrorSpec("segment_ids_range", lambda: ops.unsorted_segment_max(_x, ms.Tensor([0, 3]), 2), RuntimeError,
              "less than 'num_segments'"),
    ErrorSpec("diff_n", lambda: ops.diff(_x, -1), ValueError, "For 'diff', the 'n'"),
    ErrorSpec("sum_to_size", lambda: _x.sum_to_size(3, 2), ValueError, "For 'sum_to_size'"),
])


def test_segment_empty_and_int():
    out = ops.unsorted_segment_max(ms.Tensor([1, 5, 3], ms.int32), ms.Tensor([0, 0, 2]), 3)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [5, -2 ** 31, 3]
    assert ops.unsorted_segment_sum(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([0, -1, 2]), 3).asnumpy().tolist() == [
        1.0, 0.0, 3.0]
    x, ids = ms.Tensor([1.0, 2.0, 3.0, 4.0]), ms.Tensor([0, 0, 1, 3])
    assert ops.SegmentSum()(x, ids).asnumpy().tolist() == [3.0, 3.0, 0.0, 4.0]
    assert ops.SegmentMax()(x, ids).asnumpy().tolist() == [2.0, 3.0, 0.0, 4.0]
    assert ops.SegmentMean()(x, ids).asnumpy().tolist() == [1.5, 3.0, 0.0, 4.0]
    assert ops.SegmentProd()(x, ids).asnumpy().tolist() == [2.0, 3.0, 1.0, 4.0]


def test_segment_max_ties_share_gradient():
    x = ms.Tensor([2.0, 2.0, 1.0])
    g = ms.grad(lambda v: ops.unsorted_segment_max(v, ms.Tensor([0, 0, 0]), 1).sum())(x)
    assert g.asnumpy().tolist() == [0.5, 0.5, 0.0]


def test_diff_bool_and_int():
    assert ops.diff(ms.Tensor([True, False, False])).asnumpy().tolist() == [True, False]
    assert ops.diff(ms.Tensor([1, 3, 7])).asnumpy().tolist() == [2, 4]
    assert ms.Tensor([[1.0, 4.0]]).diff().asnumpy().tolist() == [[3.0]]


def test_axis_given_as_an_integer_tensor():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = ms.Tensor(x)
    np.testing.assert_allclose(ops.reduce_sum(t, ms.Tensor(np.array([0, 1]))).asnumpy(), x.sum((0, 1)))
    np.testing.assert_allclose(ops.ReduceMean(keep_dims=True)(t, ms.Tensor(np.array([-1]))).asnumpy(),
                               x.mean(-1, keepdims=True))
    with pytest.raises(ValueError, match="ReduceSum.*duplicated"):
        ops.reduce_sum(t, ms.Tensor(np.array([1, 1])))


def test_half_cumsum_rounds_the_running_sum_at_every_step_as_numpy():
    x = np.random.RandomState(3).rand(2, 3, 40).astype(np.float16)
    for axis, kwargs in ((2, {}), (1, {}), (-1, {"reverse": True})):
        got = ops.CumSum(**kwargs)(ms.Tensor(x), axis).asnumpy()
        want = np.flip(np.cumsum(np.flip(x, axis), axis=axis), axis) if kwargs else np.cumsum(x, axis=axis)
        assert got.dtype == np.float16
        np.testing.assert_array_equal(got, want)


def test_half_cumprod_rounds_the_running_product_at_every_step_as_numpy():
    x = (np.random.RandomState(4).rand(2, 3, 40) + 0.5).astype(np.float16)
    for axis, kwargs in ((2, {}), (1, {}), (-1, {"reverse": True})):
        got = ops.CumProd(**kwargs)(ms.Tensor(x), axis).asnumpy()
        want = np.flip(np.cumprod(np.flip(x, axis), axis=axis), axis) if kwargs else np.cumprod(x, axis=axis)
        assert got.dtype == np.float16
        np.testing.assert_array_equal(got, want)
    got = ops.CumProd(exclusive=True)(ms.Tensor(x), 2).asnumpy()
    np.testing.assert_array_equal(got[..., 1:], np.cumprod(x, axis=2)[..., :-1])
    np.testing.assert_array_equal(got[..., 0], np.ones((2, 3), np.float16))


def test_unsorted_segment_min_max_of_uint64_use_the_whole_range():
    big = 2 ** 63 + 4
    x = ms.Tensor(np.array([[1, 2], [3, big], [5, 6]], np.uint64))
    ids = ms.Tensor(np.array([0, 0, 2], np.int32))
    assert ops.unsorted_segment_min(x, ids, 4).asnumpy().tolist() == [[1, 2], [2 ** 64 - 1] * 2, [5, 6],
                                                                       [2 ** 64 - 1] * 2]
    assert ops.unsorted_segment_max(x, ids, 4).asnumpy().tolist() == [[3, big], [0, 0], [5, 6], [0, 0]]


def test_arg_with_value_over_all_elements():
    x = ms.Tensor(np.array([[9, 3, 4, 5], [5, 2, 7, 4], [8, 1, 3, 6]]))
    # MindSpore 2.10: axis=None reduces every element to 0-D results, keep_dims or not
    values, index = x.argmax_with_value(axis=None, keep_dims=True)
    assert values.shape == () and index.shape == () and values.item() == 9 and index.item() == 0
    values, index = x.argmin_with_value(None)
    assert values.shape == () and values.item() == 1 and index.item() == 9     # the flat position of the minimum
    values, index = x.argmax_with_value()
    assert values.asnumpy().tolist() == [9, 3, 7, 6] and index.asnumpy().tolist() == [0, 0, 1, 2]
