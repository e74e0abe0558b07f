"""mindseed.numpy (mindspore.numpy): values against numpy, dtypes against MindSpore 2.10's defaults."""
import numpy as onp
import pytest

import mindseed as ms
import mindseed.numpy as mnp

RNG = onp.random.default_rng(0)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((4, 2))
POS = onp.abs(A) + 0.5


def close(got, want, rtol=1e-5, atol=1e-6):
    g = got.asnumpy() if isinstance(got, ms.Tensor) else onp.asarray(got)
    onp.testing.assert_allclose(g, want, rtol=rtol, atol=atol)


def T(a, dtype):
    return ms.Tensor(onp.asarray(a, dtype=dtype))


# ---------------------------------------------------------------- creation and default dtypes
@pytest.mark.parametrize("call, dtype, want", [
    (lambda: mnp.arange(5), ms.int32, onp.arange(5)),
    (lambda: mnp.arange(5.0), ms.float32, onp.arange(5.0)),
    (lambda: mnp.arange(1, 2, 0.5), ms.float32, onp.arange(1, 2, 0.5)),
    (lambda: mnp.arange(5, 1, -1), ms.int32, onp.arange(5, 1, -1)),
    (lambda: mnp.arange(5, dtype=mnp.float64), ms.float64, onp.arange(5.0)),
    (lambda: mnp.array([1, 2]), ms.int32, [1, 2]),
    (lambda: mnp.array([1.0, 2.0]), ms.float32, [1.0, 2.0]),
    (lambda: mnp.array([True]), ms.bool_, [True]),
    (lambda: mnp.array(onp.array([1.0, 2.0])), ms.float32, [1.0, 2.0]),
    (lambda: mnp.array([1, 2], ndmin=3), ms.int32, [[[1, 2]]]),
    (lambda: mnp.asarray([1, 2], mnp.float32), ms.float32, [1.0, 2.0]),
    (lambda: mnp.asarray([1, 2], "float64"), ms.float64, [1.0, 2.0]),
    (lambda: mnp.zeros((2, 3)), ms.float32, onp.zeros((2, 3))),
    (lambda: mnp.zeros(3, mnp.int32), ms.int32, onp.zeros(3)),
    (lambda: mnp.ones(2), ms.float32, onp.ones(2)),
    (lambda: mnp.empty((2,)), ms.float32, onp.zeros(2)),
    (lambda: mnp.full((2,), 3), ms.int32, [3, 3]),
    (lambda: mnp.full((2,), 3.5), ms.float32, [3.5, 3.5]),
    (lambda: mnp.full((2,), True), ms.bool_, [True, True]),
    (lambda: mnp.full((2, 2), [1.0, 2.0]), ms.float32, [[1.0, 2.0], [1.0, 2.0]]),
    (lambda: mnp.linspace(0, 1, 5), ms.float32, onp.linspace(0, 1, 5)),
    (lambda: mnp.linspace(0, 1, 5, endpoint=False), ms.float32, onp.linspace(0, 1, 5, endpoint=False)),
    (lambda: mnp.linspace(2, 3, 1), ms.float32, onp.linspace(2, 3, 1)),
    (lambda: mnp.logspace(0, 2, 3), ms.float32, onp.logspace(0, 2, 3)),
    (lambda: mnp.geomspace(1, 1000, 4), ms.float32, onp.geomspace(1, 1000, 4)),
    (lambda: mnp.eye(3), ms.float32, onp.eye(3)),
    (lambda: mnp.eye(2, 3, 1), ms.float32, onp.eye(2, 3, 1)),
    (lambda: mnp.eye(3, 2, -1), ms.float32, onp.eye(3, 2, -1)),
    (lambda: mnp.identity(2), ms.float32, onp.identity(2)),
    (lambda: mnp.zeros_like(mnp.array([1, 2])), ms.int32, [0, 0]),
    (lambda: mnp.ones_like(mnp.array([1, 2]), mnp.float32), ms.float32, [1.0, 1.0]),
    (lambda: mnp.full_like(mnp.array([1.0, 2.0]), 7), ms.float32, [7.0, 7.0]),
    (lambda: mnp.tri(3, 4, 1), ms.float32, onp.tri(3, 4, 1)),
])
def test_creation_values_and_dtypes(call, dtype, want):
    out = call()
    assert out.dtype == dtype
    close(out, want)


def test_linspace_retstep_and_dtype_names():
    out, step = mnp.linspace(0, 1, 5, retstep=True)
    close(out, onp.linspace(0, 1, 5))
    close(step, 0.25)
    assert mnp.float32 == ms.float32 and mnp.int_ == ms.int32 and mnp.float_ == ms.float32
    assert mnp.int64 == ms.int64 and mnp.bool_ == ms.bool_ and mnp.uint8 == ms.uint8


# ---------------------------------------------------------------- shape manipulation
@pytest.mark.parametrize("dtype", [onp.float32, onp.float64])
def test_manipulation_matches_numpy(dtype):
    a = A.astype(dtype)
    x = T(a, dtype)
    close(mnp.reshape(x, (4, 3)), a.reshape(4, 3))
    close(mnp.reshape(x, -1), a.reshape(-1))
    close(mnp.ravel(x), a.ravel())
    close(mnp.transpose(x), a.T)
    close(mnp.transpose(T(onp.ones((2, 3, 4)), dtype), (1, 0, 2)), onp.ones((3, 2, 4)))
    close(mnp.concatenate((x, x), 1), onp.concatenate((a, a), 1))
    close(mnp.concatenate((x, mnp.ones(2)), axis=None), onp.concatenate((a, onp.ones(2)), axis=None))
    close(mnp.stack((x, x), axis=1), onp.stack((a, a), axis=1))
    close(mnp.hstack((x, x)), onp.hstack((a, a)))
    close(mnp.vstack((x[0], x[1])), onp.vstack((a[0], a[1])))
    for got, want in zip(mnp.split(x, 2, axis=1), onp.split(a, 2, axis=1)):
        close(got, want)
    for got, want in zip(mnp.split(x, [1, 3], axis=1), onp.split(a, [1, 3], axis=1)):
        close(got, want)
    for got, want in zip(mnp.array_split(x, 3, axis=1), onp.array_split(a, 3, axis=1)):
        close(got, want)
    close(mnp.tile(x[0], 2), onp.tile(a[0], 2))
    close(mnp.tile(x, (2, 1, 2)), onp.tile(a, (2, 1, 2)))
    close(mnp.repeat(x, 2), onp.repeat(a, 2))
    close(mnp.repeat(x, [1, 2, 0], axis=0), onp.repeat(a, [1, 2, 0], axis=0))
    close(mnp.expand_dims(x, 0), onp.expand_dims(a, 0))
    close(mnp.expand_dims(x, (0, 3)), onp.expand_dims(a, (0, 3)))
    close(mnp.squeeze(T(onp.ones((1, 2, 1)), dtype)), onp.ones(2))
    close(mnp.squeeze(T(onp.ones((1, 2, 1)), dtype), 2), onp.ones((1, 2)))
    close(mnp.flip(x), onp.flip(a))
    close(mnp.flip(x, 0), onp.flip(a, 0))
    close(mnp.fliplr(x), onp.fliplr(a))
    close(mnp.roll(x, 2), onp.roll(a, 2))
    close(mnp.roll(x, 1, 1), onp.roll(a, 1, 1))
    close(mnp.moveaxis(T(onp.ones((2, 3, 4)), dtype), 0, -1), onp.ones((3, 4, 2)))
    close(mnp.swapaxes(x, 0, 1), a.swapaxes(0, 1))
    close(mnp.broadcast_to(x[0], (2, 4)), onp.broadcast_to(a[0], (2, 4)))
    close(mnp.atleast_2d(x[0]), onp.atleast_2d(a[0]))
    close(mnp.atleast_3d(x), onp.atleast_3d(a))
    close(mnp.where(x > 0, x, 0.0), onp.where(a > 0, a, 0.0))
    close(mnp.where(x > 0)[1], onp.where(a > 0)[1])
    close(mnp.take(x, T([0, 3], onp.int32)), onp.take(a, [0, 3]))
    close(mnp.take(x, T([0, 2], onp.int32), axis=1), onp.take(a, [0, 2], axis=1))
    idx = onp.argsort(a, axis=1)
    close(mnp.take_along_axis(x, T(idx, onp.int64), 1), onp.take_along_axis(a, idx, 1))
    close(mnp.sort(x), onp.sort(a))
    close(mnp.sort(x, axis=0), onp.sort(a, axis=0))
    close(mnp.sort(x, axis=None), onp.sort(a, axis=None))
    close(mnp.argsort(x), onp.argsort(a))
    close(mnp.diag(x), onp.diag(a))
    close(mnp.diag(x, 1), onp.diag(a, 1))
    close(mnp.diag(x[0], -1), onp.diag(a[0], -1))
    close(mnp.tril(x), onp.tril(a))
    close(mnp.triu(x, 1), onp.triu(a, 1))
    close(mnp.tril(x, -1), onp.tril(a, -1))
    gx, gy = mnp.meshgrid(mnp.arange(3), mnp.arange(2))
    nx, ny = onp.meshgrid(onp.arange(3), onp.arange(2))
    close(gx, nx)
    close(gy, ny)
    assert mnp.size(x) == 12 and mnp.ndim(x) == 2 and mnp.shape(x) == (3, 4)


def test_unique_in_first_appearance_order_with_inverse():
    # MindSpore 2.10's Unique kernel keeps the order of first appearance (numpy sorts)
    a = onp.array([3, 1, 3, 2, 1])
    vals, inv = mnp.unique(mnp.array(a), return_inverse=True)
    assert vals.dtype == ms.int32 and inv.dtype == ms.int32
    assert vals.asnumpy().tolist() == [3, 1, 2] and inv.asnumpy().tolist() == [0, 1, 0, 2, 1]
    assert mnp.unique(mnp.array([5, 5, -1, 7, 0, -1, 9, 2])).asnumpy().tolist() == [5, -1, 7, 0, 9, 2]
    close(mnp.unique(mnp.array([[2.0, 1.0], [2.0, 0.5]])), [2.0, 1.0, 0.5])
    # setdiff1d still sorts its unique values, as MindSpore's
    assert mnp.setdiff1d(mnp.array([5, 1, 3, 5, 0]), mnp.array([1])).asnumpy().tolist() == [0, 3, 5]


# ---------------------------------------------------------------- math
@pytest.mark.parametrize("dtype", [onp.float32, onp.float64])
def test_math_matches_numpy(dtype):
    a, p, b = A.astype(dtype), POS.astype(dtype), B.astype(dtype)
    x, xp, y = T(a, dtype), T(p, dtype), T(b, dtype)
    rtol = 1e-5 if dtype == onp.float32 else 1e-12
    for name in ("exp", "sqrt", "abs", "square", "log", "log2", "log10", "log1p", "sin", "cos", "tanh", "floor",
                 "ceil", "negative", "sign", "expm1", "reciprocal"):
        close(getattr(mnp, name)(xp if name.startswith(("log", "sqrt")) else x), getattr(onp, name)(
            p if name.startswith(("log", "sqrt")) else a), rtol=rtol)
    close(mnp.power(xp, 1.5), onp.power(p, 1.5), rtol=rtol)
    close(mnp.power(xp, x), onp.power(p, a), rtol=rtol)
    close(mnp.add(x, 1), a + 1, rtol=rtol)
    close(mnp.subtract(x, xp), a - p, rtol=rtol)
    close(mnp.multiply(x, xp), a * p, rtol=rtol)
    close(mnp.divide(x, xp), a / p, rtol=rtol)
    close(mnp.arctan2(x, xp), onp.arctan2(a, p), rtol=rtol)
    close(mnp.maximum(x, 0.0), onp.maximum(a, 0.0))
    close(mnp.clip(x, -0.5, 0.5), onp.clip(a, -0.5, 0.5))
    close(mnp.clip(x, None, 0.5), onp.clip(a, None, 0.5))
    close(mnp.dot(x, y), onp.dot(a, b), rtol=rtol)
    close(mnp.dot(x[0], y[:, 0]), onp.dot(a[0], b[:, 0]), rtol=rtol)
    close(mnp.dot(T(onp.ones((2, 3, 4)), dtype), y), onp.dot(onp.ones((2, 3, 4)), b), rtol=rtol)
    close(mnp.matmul(T(onp.ones((2, 3, 4)), dtype), y), onp.matmul(onp.ones((2, 3, 4)), b), rtol=rtol)
    close(mnp.inner(x, x), onp.inner(a, a), rtol=rtol)
    close(mnp.outer(x[0], x[1]), onp.outer(a[0], a[1]), rtol=rtol)
    close(mnp.tensordot(x, y, 1), onp.tensordot(a, b, 1), rtol=rtol)
    close(mnp.kron(x[0], x[1]), onp.kron(a[0], a[1]), rtol=rtol)
    close(mnp.cross(x[:, :3], xp[:, :3]), onp.cross(a[:, :3], p[:, :3]), rtol=rtol)
    close(mnp.trace(x), onp.trace(a), rtol=rtol)
    close(mnp.cumsum(x), onp.cumsum(a), rtol=rtol)
    close(mnp.cumsum(x, axis=0), onp.cumsum(a, axis=0), rtol=rtol)
    close(mnp.cumprod(x, axis=1), onp.cumprod(a, axis=1), rtol=rtol)
    close(mnp.diff(x), onp.diff(a), rtol=rtol)


@pytest.mark.parametrize("dtype", [onp.float32, onp.float64])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_match_numpy(dtype, axis, keepdims):
    a = A.astype(dtype)
    x = T(a, dtype)
    rtol = 1e-5 if dtype == onp.float32 else 1e-12
    for name in ("sum", "mean", "amax", "amin", "max", "min", "prod", "std", "var", "ptp"):
        want = getattr(onp, name)(a, axis=axis, keepdims=keepdims)
        close(getattr(mnp, name)(x, axis=axis, keepdims=keepdims), want, rtol=rtol, atol=1e-6)
    if axis is None or isinstance(axis, int):
        close(mnp.argmax(x, axis), onp.argmax(a, axis))
        close(mnp.argmin(x, axis), onp.argmin(a, axis))


def test_reduction_dtypes_as_mindspore():
    i = mnp.array([1, 2])
    assert mnp.sum(i).dtype == ms.int64 and mnp.sum(mnp.array([True, True])).item() == 2
    # MindSpore's ReduceMean keeps an integer dtype (the quotient truncated): mean([1, 2]) is Int32 1
    assert mnp.mean(i).dtype == ms.int32 and mnp.mean(i).item() == 1
    assert mnp.max(mnp.array([[1, 5], [3, 2]]), axis=0).dtype == ms.int32
    assert mnp.argmax(mnp.array([[1, 5], [3, 2]])).dtype == ms.int64
    assert mnp.argmin(mnp.array([1.0, 0.0, 3.0])).dtype == ms.int32
    assert mnp.exp(i).dtype == ms.float32 and mnp.sqrt(mnp.array([1, 4])).asnumpy().tolist() == [1.0, 2.0]
    assert mnp.abs(mnp.array([-1, 2])).dtype == ms.int32 and mnp.power(mnp.array([2, 3]), 2).dtype == ms.int32
    assert mnp.dot(i, i).dtype == ms.int32 and mnp.dot(i, i).item() == 5
    assert mnp.clip(mnp.array([1, 5, 9]), 2, 6).asnumpy().tolist() == [2, 5, 6]
    assert mnp.cumsum(mnp.array([True, True])).dtype == ms.int32
    assert mnp.divide(i, i).dtype == ms.float32
    close(mnp.amax(mnp.array([1.0, 2.0]), initial=5.0), 5.0)
    close(mnp.sum(mnp.ones((2, 2)), initial=1.0), 5.0)


def test_comparisons():
    a = onp.array([1.0, 2.0, onp.nan])
    b = onp.array([1.0, 2.1, onp.nan])
    close(mnp.isclose(mnp.array(a), mnp.array(b)), onp.isclose(a, b))
    close(mnp.isclose(mnp.array(a), mnp.array(b), equal_nan=True), onp.isclose(a, b, equal_nan=True))
    assert mnp.allclose(mnp.array([1.0, 2.0]), mnp.array([1.0, 2.0 + 1e-7])) is True
    assert mnp.allclose(mnp.array([1.0, 2.0]), mnp.array([1.0, 2.1])) is False
    assert mnp.allclose(mnp.array([1, 2]), mnp.array([1, 2])) is True
    assert bool(mnp.array_equal(mnp.array([1, 2]), mnp.array([1, 2])))
    assert not bool(mnp.array_equal(mnp.array([1, 2]), mnp.array([1, 2, 3])))
    close(mnp.isnan(mnp.array(a)), onp.isnan(a))
    close(mnp.count_nonzero(mnp.array([1, 0, 2])), 2)
    close(mnp.average(mnp.array([1.0, 2.0, 3.0]), weights=mnp.array([1.0, 1.0, 2.0])), 2.25)
    close(mnp.searchsorted(mnp.array([1, 2, 3]), mnp.array([2, 5])), [1, 3])
    close(mnp.searchsorted(mnp.array([1, 2, 3]), mnp.array([2]), side="right"), [2])


def test_errors():
    with pytest.raises(ValueError, match="equal division"):
        mnp.split(mnp.arange(5), 2)
    with pytest.raises(ValueError, match="size not equal to one"):
        mnp.squeeze(mnp.ones((2, 1)), 0)
    with pytest.raises(ValueError, match="out of range"):
        mnp.sum(mnp.ones((2, 2)), axis=2)
    with pytest.raises(ValueError, match="both or neither"):
        mnp.where(mnp.array([True]), 1.0)
    with pytest.raises(ValueError, match="'step' must not be 0"):
        mnp.arange(0, 3, 0)
    with pytest.raises(TypeError, match="'stop' must be int or float"):
        mnp.arange("a")
    with pytest.raises(ValueError, match="cannot both be None"):
        mnp.clip(mnp.ones(2), None, None)
    with pytest.raises(ValueError, match="1-D or 2-D"):
        mnp.diag(mnp.ones((2, 2, 2)))


def test_gradients_flow_through_numpy_functions():
    x = ms.Tensor(onp.array([0.5, 1.0, 2.0]))

    def f(a):
        return mnp.sum(mnp.exp(a) * mnp.power(a, 2.0)) + mnp.mean(mnp.clip(a, 0.6, 1.5))
    g = ms.grad(f)(x).asnumpy()
    a = onp.array([0.5, 1.0, 2.0])
    want = onp.exp(a) * a ** 2 + onp.exp(a) * 2 * a + onp.array([0.0, 1.0, 0.0]) / 3
    onp.testing.assert_allclose(g, want, rtol=1e-10)
