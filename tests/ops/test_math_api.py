"""The math family's Tensor methods (MindSpore's method signatures), in-place methods and class API."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

A = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], np.float32)


def _x():
    return ms.Tensor(A)


def _np(v):
    return [_np(t) for t in v] if isinstance(v, tuple) else v.asnumpy()


# ---------------------------------------------------------------- Tensor methods vs numpy
@pytest.mark.parametrize("call,want", [
    (lambda x: x.max(), A.max()),
    (lambda x: x.max(axis=1), A.max(1)),
    (lambda x: x.max(axis=(0, 1)), A.max()),
    (lambda x: x.max(axis=1, initial=5.5), np.maximum(A.max(1), 5.5)),
    (lambda x: x.max(0), [A.max(0), A.argmax(0)]),
    (lambda x: x.max(1, True), [A.max(1, keepdims=True), A.argmax(1)[:, None]]),
    (lambda x: x.max(dim=1), [A.max(1), A.argmax(1)]),
    (lambda x: x.max(axis=1, return_indices=True), [A.max(1), A.argmax(1)]),
    (lambda x: x.min(), A.min()),
    (lambda x: x.min(axis=0, keepdims=True), A.min(0, keepdims=True)),
    (lambda x: x.min(0), [A.min(0), A.argmin(0)]),
    (lambda x: x.mean(), A.mean()),
    (lambda x: x.mean(1, True), A.mean(1, keepdims=True)),
    (lambda x: x.mean(axis=0), A.mean(0)),
    (lambda x: x.mean(dim=1, keepdim=True), A.mean(1, keepdims=True)),
    (lambda x: x.prod(1), A.prod(1)),
    (lambda x: x.prod(1, True), A.prod(1, keepdims=True)),
    (lambda x: x.argmax(), A.argmax()),
    (lambda x: x.argmax(1), A.argmax(1)),
    (lambda x: x.argmax(dim=1, keepdim=True), A.argmax(1)[:, None]),
    (lambda x: x.argmin(axis=1, keepdims=True), A.argmin(1)[:, None]),
    (lambda x: x.argmax_with_value(), [A.max(0), A.argmax(0)]),
    (lambda x: x.argmin_with_value(1, True), [A.min(1, keepdims=True), A.argmin(1)[:, None]]),
    (lambda x: (x > 2).all(), (A > 2).all()),
    (lambda x: (x > 2).all(1), (A > 2).all(1)),
    (lambda x: (x > 2).any(axis=0, keep_dims=True), (A > 2).any(0, keepdims=True)),
    (lambda x: x.std(), A.std()),
    (lambda x: x.std(1, 1), A.std(1, ddof=1)),
    (lambda x: x.var(axis=0, ddof=1, keepdims=True), A.var(0, ddof=1, keepdims=True)),
    (lambda x: x.cumsum(), np.cumsum(A)),
    (lambda x: x.cumsum(1), np.cumsum(A, 1)),
    (lambda x: x.cumsum(axis=0), np.cumsum(A, 0)),
    (lambda x: x.cumprod(1), np.cumprod(A, 1)),
    (lambda x: x.cummax(1)[0], np.maximum.accumulate(A, 1)),
    (lambda x: x.cummin(0)[0], np.minimum.accumulate(A, 0)),
    (lambda x: x.logcumsumexp(1), np.log(np.cumsum(np.exp(A), 1))),
    (lambda x: x.logsumexp(1), np.log(np.exp(A).sum(1))),
    (lambda x: x.logsumexp(1, True), np.log(np.exp(A).sum(1, keepdims=True))),
    (lambda x: x.count_nonzero(), np.count_nonzero(A)),
    (lambda x: x.count_nonzero(1), np.count_nonzero(A, 1)),
    (lambda x: x.nansum(1), A.sum(1)),
    (lambda x: x.nanmean(1), A.mean(1)),
    (lambda x: x.median(), [np.array([3.0, 4.0]), np.array([2, 0])]),
    (lambda x: x.median(0, True)[0], np.array([[1.0, 2.0, 3.0]])),
    (lambda x: x.ptp(1), np.ptp(A, 1)),
    (lambda x: x.amax(1), A.max(1)),
    (lambda x: x.amin((0, 1)), A.min()),
    (lambda x: x.aminmax(axis=1), [A.min(1), A.max(1)]),
    (lambda x: x.clip(2, 4), np.clip(A, 2, 4)),
    (lambda x: x.clamp(min=2.5), np.maximum(A, 2.5)),
    (lambda x: (x / 3).round(), np.round(A / 3)),
    (lambda x: (x / 3).round(2), np.round(A / 3, 2)),
    (lambda x: x.abs(), np.abs(A)), (lambda x: x.sqrt(), np.sqrt(A)), (lambda x: x.rsqrt(), 1 / np.sqrt(A)),
    (lambda x: x.square(), A ** 2), (lambda x: x.reciprocal(), 1 / A), (lambda x: x.sigmoid(), 1 / (1 + np.exp(-A))),
    (lambda x: x.tanh(), np.tanh(A)), (lambda x: x.log1p(), np.log1p(A)), (lambda x: x.log2(), np.log2(A)),
    (lambda x: x.floor_divide(2), A // 2), (lambda x: x.remainder(4), A % 4), (lambda x: x.fmod(4), np.fmod(A, 4)),
    (lambda x: x.atan2(x + 1), np.arctan2(A, A + 1)), (lambda x: x.hypot(x), np.hypot(A, A)),
    (lambda x: x.xlogy(x), A * np.log(A)), (lambda x: x.lerp(x * 2, 0.5), A * 1.5),
    (lambda x: x.addcmul(x, x, 2), A + 2 * A * A), (lambda x: x.addcdiv(x, x, value=2), A + 2),
    (lambda x: x.logaddexp(x), np.logaddexp(A, A)), (lambda x: x.isclose(x + 1e-7), np.ones_like(A, bool)),
    (lambda x: (x / 10).logit(), np.log(A / (10 - A))), (lambda x: x.nan_to_num(), A),
    (lambda x: x.float_power(2), A.astype(np.float64) ** 2), (lambda x: x.copysign(-1.0), -A),
    (lambda x: x.isnan(), np.isnan(A)), (lambda x: x.isfinite(), np.isfinite(A)),
    (lambda x: x.sgn(), np.sign(A)), (lambda x: x.signbit(), np.signbit(A)), (lambda x: x.frac(), A - np.trunc(A)),
    (lambda x: x.deg2rad(), np.deg2rad(A)), (lambda x: x.arctan(), np.arctan(A)), (lambda x: x.exp2(), 2 ** A),
])
def test_tensor_method(call, want):
    got = _np(call(_x()))
    if isinstance(want, list):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_tensor_method_dtypes():
    x = _x()
    assert x.argmax().dtype == ms.int64 and x.argmin(1).dtype == ms.int32
    assert x.max(0)[1].dtype == ms.int64
    assert x.mean(dtype=ms.float64).dtype == ms.float64
    assert ms.Tensor([[1, 2], [3, 4]], ms.int32).prod(dtype=ms.float32).dtype == ms.float32
    assert x.count_nonzero().dtype == ms.int32


def test_integer_tensor_methods():
    i = ms.Tensor([12, 10], ms.int32)
    assert i.gcd(ms.Tensor([8, 4], ms.int32)).asnumpy().tolist() == [4, 2]
    assert i.lcm(ms.Tensor([8, 4], ms.int32)).asnumpy().tolist() == [24, 20]
    assert i.bitwise_and(6).asnumpy().tolist() == [4, 2]
    assert i.bitwise_left_shift(1).asnumpy().tolist() == [24, 20]
    assert i.bitwise_not().asnumpy().tolist() == [-13, -11]
    assert i.invert().asnumpy().tolist() == [-13, -11]
    assert ms.Tensor([True, False]).logical_xor(ms.Tensor([True, True])).asnumpy().tolist() == [False, True]


# ---------------------------------------------------------------- in-place methods
def test_inplace_methods_update_self():
    x = ms.Tensor([[0.5, -2.0], [3.0, 0.25]])
    y = x.clamp_(0.0, 1.0)
    assert y is x and x.asnumpy().tolist() == [[0.5, 0.0], [1.0, 0.25]]
    x = ms.Tensor([1.7, -1.2])
    x.floor_()
    assert x.asnumpy().tolist() == [1.0, -2.0]
    x = ms.Tensor([7, -7])
    x.remainder_(3)
    assert x.asnumpy().tolist() == [1, 2]
    x.floor_divide_(2)
    assert x.asnumpy().tolist() == [0, 1]
    x = ms.Tensor([0.0, 1.0])
    x.sigmoid_()
    np.testing.assert_allclose(x.asnumpy(), [0.5, 1 / (1 + np.exp(-1.0))], rtol=1e-6)
    x = ms.Tensor([1.0, 2.0])
    x.add_(ms.Tensor([1.0, 1.0]), alpha=2)
    x.mul_(2)
    x.sub_(1.0)
    x.div_(ms.Tensor([5.0, 7.0]))
    assert x.asnumpy().tolist() == [1.0, 1.0]
    i = ms.Tensor([1, 2], ms.int32)
    i.mul_(1.5)  # in-place keeps the tensor's dtype
    assert i.dtype == ms.int32


def test_inplace_method_gradient():
    def f(w):
        y = w * 3
        y.tanh_()
        y.clamp_(max=0.9)
        return y.sum()
    w = ms.Tensor([0.1, 0.5], ms.float64)
    g = ms.grad(f)(w).asnumpy()
    t = np.tanh(3 * np.array([0.1, 0.5]))
    np.testing.assert_allclose(g, np.where(t <= 0.9, 3 * (1 - t ** 2), 0.0), rtol=1e-10)


# ---------------------------------------------------------------- class API
def test_class_api_unary_and_binary():
    x = _x()
    np.testing.assert_allclose(ops.Sqrt()(x).asnumpy(), np.sqrt(A), rtol=1e-6)
    np.testing.assert_allclose(ops.Abs()(-x).asnumpy(), A)
    np.testing.assert_allclose(ops.Sigmoid()(x).asnumpy(), 1 / (1 + np.exp(-A)), rtol=1e-6)
    np.testing.assert_allclose(ops.FloorDiv()(x, 2.0).asnumpy(), A // 2)
    np.testing.assert_allclose(ops.FloorMod()(x, 4.0).asnumpy(), A % 4)
    np.testing.assert_allclose(ops.SquaredDifference()(x, x * 2).asnumpy(), A ** 2)
    np.testing.assert_allclose(ops.DivNoNan()(x, ms.Tensor([0.0, 1.0, 2.0])).asnumpy(), np.where(
        [0.0, 1.0, 2.0] == np.zeros(3), 0.0, A / np.array([1.0, 1.0, 2.0])))
    np.testing.assert_allclose(ops.MulNoNan()(ms.Tensor([np.inf, 2.0]), ms.Tensor([0.0, 3.0])).asnumpy(), [0.0, 6.0])
    a, b = ops.SquareSumAll()(x, x)
    assert a.asnumpy().item() == b.asnumpy().item() == (A ** 2).sum()
    assert ops.EqualCount()(x, ms.Tensor(A * [[1, 0, 1], [1, 1, 0]])).asnumpy().tolist() == [4.0]
    assert ops.Rint()(ms.Tensor([0.5, 1.5, -2.5])).asnumpy().tolist() == [0.0, 2.0, -2.0]
    assert ops.Round()(ms.Tensor([1.26]), 1).asnumpy().tolist() == [np.float32(1.3)]
    assert ops.IsClose(rtol=0.1)(x, x * 1.05).asnumpy().all()
    assert ops.ApproximateEqual(2.0)(x, x + 1).asnumpy().all()
    np.testing.assert_allclose(ops.AddN()([x, x, x]).asnumpy(), 3 * A)
    np.testing.assert_allclose(ops.Logit()(ms.Tensor([0.5, 0.25])).asnumpy(), [0.0, np.log(1 / 3)], rtol=1e-6)
    np.testing.assert_allclose(ops.NanToNum(nan=1.0)(ms.Tensor([np.nan])).asnumpy(), [1.0])


def test_class_api_reductions():
    x = _x()
    np.testing.assert_allclose(ops.ReduceMean(keep_dims=True)(x, 1).asnumpy(), A.mean(1, keepdims=True))
    np.testing.assert_allclose(ops.ReduceMean()(x).asnumpy(), A.mean())
    np.testing.assert_allclose(ops.ReduceMax()(x, (0, 1)).asnumpy(), A.max())
    np.testing.assert_allclose(ops.ReduceMin(True)(x, 0).asnumpy(), A.min(0, keepdims=True))
    np.testing.assert_allclose(ops.ReduceProd()(x, 1).asnumpy(), A.prod(1))
    assert ops.ReduceAll(keep_dims=True)(x > 2, 1).asnumpy().tolist() == [[False], [False]]
    assert ops.ReduceAny()(x > 5).asnumpy().item() is True
    index, value = ops.ArgMaxWithValue(axis=1)(x)
    assert index.asnumpy().tolist() == [1, 2] and value.asnumpy().tolist() == [5.0, 6.0]
    index, value = ops.ArgMinWithValue(keep_dims=True)(x)
    assert index.asnumpy().tolist() == [[0, 1, 0]] and value.asnumpy().tolist() == [[1.0, 2.0, 3.0]]
    out = ops.Argmax()(x)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [1, 2]
    assert ops.Argmin(axis=0, output_type=ms.int64)(x).asnumpy().tolist() == [0, 1, 0]
    std, mean = ops.ReduceStd(axis=1)(x)
    np.testing.assert_allclose(std.asnumpy(), A.std(1, ddof=1), rtol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), A.mean(1))
    np.testing.assert_allclose(ops.CumSum(exclusive=True, reverse=True)(x, 1).asnumpy(), [[8, 3, 0], [8, 6, 0]])
    np.testing.assert_allclose(ops.CumProd(exclusive=True)(x, 1).asnumpy(), [[1, 1, 5], [1, 4, 8]])
    v, i = ops.Cummax(axis=1)(x)
    assert v.asnumpy().tolist() == [[1, 5, 5], [4, 4, 6]] and i.asnumpy().tolist() == [[0, 1, 1], [0, 0, 2]]
    v, i = ops.Median(axis=1)(x)
    assert v.asnumpy().tolist() == [3.0, 4.0] and i.asnumpy().tolist() == [2, 0]
    v, _ = ops.Median(global_median=True)(x)
    assert v.asnumpy().item() == 3.0
    assert ops.CountNonZero(dims=[1])(ms.Tensor([[1, 0, 3], [0, 0, 1]])).asnumpy().tolist() == [2, 1]


def test_class_api_gradients():
    x = ms.Tensor(A.astype(np.float64))
    g = ms.grad(lambda v: ops.ReduceMean(keep_dims=True)(v, 1).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), np.full(A.shape, 1 / 3))
    g = ms.grad(lambda v: ops.ArgMaxWithValue(axis=1)(v)[1].sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [[0, 1, 0], [0, 0, 1]])


def test_class_api_misc():
    x = _x()
    np.testing.assert_allclose(ops.TensorAdd()(x, x).asnumpy(), 2 * A)
    np.testing.assert_allclose(ops.Quantile(dim=1)(x, ms.Tensor(0.5)).asnumpy(), np.quantile(A, 0.5, axis=1))
    z = ops.Complex()(ms.Tensor([3.0]), ms.Tensor([4.0]))
    assert z.dtype == ms.complex64 and z.asnumpy().tolist() == [3 + 4j]
    np.testing.assert_allclose(ops.polar(ms.Tensor([2.0]), ms.Tensor([0.5])).asnumpy(), [2 * np.exp(0.5j)], rtol=1e-6)
    assert ops.CheckNumerics()(x) is x
    with pytest.raises(RuntimeError, match="CheckNumerics"):
        ops.CheckNumerics()(x / 0)


def test_complex_gradient_of_parts():
    g = ms.grad(lambda a, b: ops.abs(ops.Complex()(a, b)).sum(), grad_position=(0, 1))(ms.Tensor([3.0]),
                                                                                       ms.Tensor([4.0]))
    np.testing.assert_allclose([g[0].asnumpy()[0], g[1].asnumpy()[0]], [0.6, 0.8], rtol=1e-6)


@pytest.mark.parametrize("fn,args,want", [
    (ops.scalar_add, (1, 2.5), 3.5), (ops.scalar_sub, (1, 2), -1), (ops.scalar_mul, (3, 2), 6),
    (ops.scalar_div, (3, 2), 1.5), (ops.scalar_floordiv, (-7.5, 2), -4.0), (ops.scalar_mod, (7, -2), -1),
    (ops.scalar_pow, (2, 3), 8), (ops.scalar_eq, (1, 1.0), True), (ops.scalar_lt, (1, 2), True),
    (ops.scalar_ge, (1, 2), False), (ops.scalar_max, (1, 2.5), 2.5), (ops.scalar_min, (1, 2.5), 1),
    (ops.scalar_uadd, (3,), 3), (ops.scalar_usub, (2,), -2), (ops.scalar_log, (1.0,), 0.0),
    (ops.scalar_cast, (3.7, ms.int64), 3), (ops.scalar_cast, (1, ms.bool_), True),
])
def test_scalar_ops(fn, args, want):
    got = fn(*args)
    assert got == want and type(got) is type(want)


def test_scalar_ops_bad_input():
    with pytest.raises(TypeError, match="For 'scalar_add'"):
        ops.scalar_add(ms.Tensor(1), 2)
    with pytest.raises(ValueError, match="ScalarCast"):
        ops.scalar_cast(1, ms.float32)


def test_max_overloads():
    x = _x()
    assert not isinstance(x.max(0, keepdims=True), tuple)
    assert x.max(0, keepdims=True).shape == (1, 3)
    assert isinstance(x.min(1, keepdim=True), tuple)
    assert x.max(None).asnumpy().item() == 6.0
    # no signature takes three positional arguments: MindSpore's text for the one whose count fitted
    with pytest.raises(TypeError, match=r"^max\(\) takes 2 positional arguments but 3 were given\.$"):
        x.max(0, True, 1)


def test_square_sum_all_checks_its_inputs_as_mindspore():
    f32 = ms.Tensor(np.array([1.0, 2.0, 4.0], np.float32))
    with pytest.raises(TypeError, match="the input type must be same"):
        ops.SquareSumAll()(f32.astype(ms.float16), f32)
    with pytest.raises(TypeError, match=r"must be a type of \{Tensor\[Float16\], Tensor\[Float32\]\}"):
        ops.SquareSumAll()(f32.astype(ms.float64), f32.astype(ms.float64))
    with pytest.raises(ValueError, match=r"the x: \[3\] must be equal to \[2\]"):
        ops.SquareSumAll()(f32, f32[:2])


def test_remainders_give_unsigned_zero():
    # MindSpore 2.10 prints 0. (never -0.) for a zero remainder of a negative dividend or divisor
    x = ms.Tensor([-3.0, -2, -1, 3, 4, 5])
    assert str(ops.fmod(x, 2)) == "[-1.  0. -1.  1.  0.  1.]"
    assert str(ops.fmod(x, ms.Tensor([-1.0, 1, 2, 2.5, 1.5, 1.7]))) == \
        "[ 0.         0.        -1.         0.5        1.         1.5999999]"
    assert str(ops.remainder(ms.Tensor([-4.0, 4.0]), -2.0)) == "[0. 0.]"
    assert str(ms.Tensor([-4.0, 4.0]) % 2.0) == "[0. 0.]"
    assert np.signbit(ops.fmod(ms.Tensor([-0.0, -4.0], ms.float64), 2.0).asnumpy()).tolist() == [False, False]
    np.testing.assert_array_equal(ops.fmod(ms.Tensor([-7, 7]), 3).asnumpy(), [-1, 1])
