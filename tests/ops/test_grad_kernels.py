"""The backward kernels of ops.auto_generate (SqrtGrad, GeLUGrad, MaximumGrad, ...) against numpy closed forms
and float64 finite differences of their forward ops."""
import math

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops import auto_generate as G

RNG = np.random.default_rng(7)


def t(a):
    return ms.Tensor(np.asarray(a, np.float64))


def fd(f, x, dy, eps=1e-6):
    """Finite-difference vector-Jacobian product of an elementwise numpy function."""
    return dy * (f(x + eps) - f(x - eps)) / (2 * eps)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def fast_gelu(x):
    return x / (1 + np.exp(-1.702 * x))


@pytest.mark.parametrize("prim, fwd, inv", [
    (G.SqrtGrad, np.sqrt, lambda y: y * y),
    (G.RsqrtGrad, lambda x: 1 / np.sqrt(x), lambda y: 1 / (y * y)),
    (G.TanhGrad, np.tanh, np.arctanh),
    (G.SigmoidGrad, lambda x: 1 / (1 + np.exp(-x)), lambda y: np.log(y / (1 - y))),
    (G.ReciprocalGrad, lambda x: 1 / x, lambda y: 1 / y),
])
def test_grads_from_the_forward_output(prim, fwd, inv):
    x = RNG.uniform(0.2, 0.9, (2, 3))
    y, dy = fwd(x), RNG.normal(size=(2, 3))
    out = prim()(t(y), t(dy))
    np.testing.assert_allclose(out.asnumpy(), fd(fwd, inv(y), dy), rtol=1e-6)


def test_gelu_and_fast_gelu_grads():
    x, dy = RNG.normal(size=(5,)) * 2, RNG.normal(size=(5,))
    np.testing.assert_allclose(G.GeLUGrad()(t(dy), t(x), t(gelu_tanh(x))).asnumpy(), fd(gelu_tanh, x, dy), rtol=1e-6)
    np.testing.assert_allclose(G.FastGeLUGrad()(t(dy), t(x)).asnumpy(), fd(fast_gelu, x, dy), rtol=1e-6)
    # the kernels are differentiable themselves (a second-order gradient)
    g2 = ms.grad(lambda v: G.FastGeLUGrad()(t(np.ones(5)), v).sum())(t(x))
    np.testing.assert_allclose(g2.asnumpy(), (fast_gelu(x + 1e-4) - 2 * fast_gelu(x) + fast_gelu(x - 1e-4)) / 1e-8,
                               rtol=1e-4)


def test_hshrink_grad():
    f, g = np.array([-1.0, -0.5, 0.2, 0.6, 2.0]), np.arange(1.0, 6.0)
    np.testing.assert_array_equal(G.HShrinkGrad()(t(g), t(f)).asnumpy(), [1.0, 0.0, 0.0, 4.0, 5.0])
    np.testing.assert_array_equal(G.HShrinkGrad(lambd=1.5)(t(g), t(f)).asnumpy(), [0, 0, 0, 0, 5.0])


def test_hsigmoid_and_hswish_grads():
    x, g = np.array([-4.0, -3.0, -1.0, 0.0, 2.0, 3.0, 4.0]), np.arange(1.0, 8.0)
    # hsigmoid: 1/6 strictly inside (-3, 3); hswish: (2x + 3) / 6 on [-3, 3], 1 above
    np.testing.assert_allclose(G.HSigmoidGrad()(t(g), t(x)).asnumpy(), g * (np.abs(x) < 3) / 6)
    hswish = np.where(x < -3, 0.0, np.where(x > 3, 1.0, (2 * x + 3) / 6))
    np.testing.assert_allclose(G.HSwishGrad()(t(g), t(x)).asnumpy(), g * hswish)
    # inside the interval: finite differences of the forward ops
    xi, gi = x[2:5], g[2:5]
    np.testing.assert_allclose(G.HSigmoidGrad()(t(gi), t(xi)).asnumpy(),
                               fd(lambda v: np.clip(v + 3, 0, 6) / 6, xi, gi), rtol=1e-6)
    np.testing.assert_allclose(G.HSwishGrad()(t(gi), t(xi)).asnumpy(),
                               fd(lambda v: v * np.clip(v + 3, 0, 6) / 6, xi, gi), rtol=1e-6)
    ints = ms.Tensor(np.array([6, 6]), ms.int32)
    assert G.HSigmoidGrad()(ints, ms.Tensor(np.array([0, 5]), ms.int32)).asnumpy().tolist() == [1, 0]
    with pytest.raises(ValueError, match="The 0th dim of x\\(4\\) and dout\\(3\\) not equal"):
        G.HSigmoidGrad()(t(np.ones(3)), t(np.ones(4)))


def test_maximum_and_minimum_grads_split_ties_and_sum_broadcast_axes():
    x1 = np.array([[1.0, 5.0, 3.0], [4.0, 0.0, 3.0]])
    x2 = np.array([2.0, 2.0, 3.0])
    grads = np.array([[1.0, 2.0, 4.0], [8.0, 16.0, 32.0]])
    dx1, dx2 = G.MaximumGrad()(t(x1), t(x2), t(grads))
    np.testing.assert_array_equal(dx1.asnumpy(), [[0, 2, 2], [8, 0, 16]])
    np.testing.assert_array_equal(dx2.asnumpy(), [1 + 0, 0 + 16, 2 + 16])
    # the same as autodiff of ops.maximum
    ref = ms.grad(lambda a, b: (ops.maximum(a, b) * t(grads)).sum(), (0, 1))(t(x1), t(x2))
    np.testing.assert_array_equal(dx1.asnumpy(), ref[0].asnumpy())
    np.testing.assert_array_equal(dx2.asnumpy(), ref[1].asnumpy())
    dx1, dx2 = G.MinimumGrad(grad_y=False)(t(x1), t(x2), t(grads))
    np.testing.assert_array_equal(dx1.asnumpy(), [[1, 0, 2], [0, 16, 16]])
    np.testing.assert_array_equal(dx2.asnumpy(), [0, 0, 0])


def test_maximum_and_minimum_grad_grads_are_the_derivative_in_grads():
    x1, x2 = np.array([1.0, 2.0, 4.0, 3.0]), np.array([2.0, 4.0, 3.0, 3.0])
    d1, d2 = np.array([0.0, 5.0, 3.0, 2.0]), np.array([1.0, 2.0, 7.0, 4.0])
    zx1, zx2, sopd = G.MaximumGradGrad()(t(x1), t(x2), t(d1), t(d2))
    assert not zx1.asnumpy().any() and not zx2.asnumpy().any()
    np.testing.assert_array_equal(sopd.asnumpy(), [1.0, 2.0, 3.0, 3.0])    # a tie: the mean
    # the vjp of MaximumGrad w.r.t. its grads, cotangents (d1, d2)
    ref = ms.grad(lambda g: (G.MaximumGrad()(t(x1), t(x2), g)[0] * t(d1)).sum()
                  + (G.MaximumGrad()(t(x1), t(x2), g)[1] * t(d2)).sum())(t(np.ones(4)))
    np.testing.assert_array_equal(sopd.asnumpy(), ref.asnumpy())
    _, _, sopd = ms.jit(lambda *a: G.MinimumGradGrad()(*a))(t(x1), t(x2), t(d1), t(d2))
    np.testing.assert_array_equal(sopd.asnumpy(), [0.0, 5.0, 7.0, 3.0])
    with pytest.raises(TypeError, match="'dx2' must be a Tensor"):
        G.MaximumGradGrad()(t(x1), t(x2), t(d1), 1.0)


def test_nll_loss_grad_class_matches_the_gradient_of_nll_loss():
    x = np.array([[0.53, 0.74, -2.12], [1.29, -0.34, -1.13]], np.float32)
    target, weight = np.array([0, 1], np.int32), np.array([0.45, -0.32, 1.21], np.float32)
    for reduction in ("none", "mean", "sum"):
        loss, total = ops.NLLLoss(reduction)(t(x), ms.Tensor(target), t(weight))
        dloss = np.array([3.24, -2.13], np.float32) if reduction == "none" else np.array(1.23, np.float32)
        got = G.NLLLossGrad(reduction)(t(x), t(dloss), ms.Tensor(target), t(weight), total)
        want = np.zeros_like(x)
        scale = dloss if reduction == "none" else np.full(2, dloss / (weight[target].sum() if reduction == "mean"
                                                                      else 1.0))
        want[[0, 1], target] = -weight[target] * scale
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)
        ref = ms.grad(lambda a, d=dloss, r=reduction: (ops.NLLLoss(r)(a, ms.Tensor(target), t(weight))[0]
                                                       * t(d)).sum())(t(x))
        np.testing.assert_allclose(got.asnumpy(), ref.asnumpy(), rtol=1e-5)
    with pytest.raises(ValueError, match="'reduction'"):
        G.NLLLossGrad("avg")


def test_bias_add_grad_sums_all_but_the_channel_axis():
    d = RNG.normal(size=(2, 3, 4, 5))
    np.testing.assert_allclose(G.BiasAddGrad()(t(d)).asnumpy(), d.sum(axis=(0, 2, 3)))
    np.testing.assert_allclose(G.BiasAddGrad("NHWC")(t(d)).asnumpy(), d.sum(axis=(0, 1, 2)))
    with pytest.raises(ValueError, match="'BiasAddGrad'.*'data_format'"):
        G.BiasAddGrad("NCW")


def test_prelu_grad_matches_autodiff_of_prelu():
    x, w, dy = RNG.normal(size=(2, 3, 4)), np.array([0.1, -0.5, 2.0]), RNG.normal(size=(2, 3, 4))
    dx, dw = G.PReLUGrad()(t(dy), t(x), t(w))
    rx, rw = ms.grad(lambda a, b: (ops.prelu(a, b) * t(dy)).sum(), (0, 1))(t(x), t(w))
    np.testing.assert_allclose(dx.asnumpy(), rx.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(dw.asnumpy(), rw.asnumpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="'PReLUGrad'"):
        G.PReLUGrad()(t(dy), t(x), t([1.0, 2.0]))


def test_grad_kernels_reject_mismatched_or_integer_inputs():
    with pytest.raises(ValueError, match="'SqrtGrad'.*same shape"):
        G.SqrtGrad()(t([1.0]), t([1.0, 2.0]))
    with pytest.raises(TypeError, match="'TanhGrad'.*'y'"):
        G.TanhGrad()(ms.Tensor([1]), t([1.0]))
    assert not hasattr(ops.operations, "SqrtGrad")  # MindSpore keeps them out of ops.operations too


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("dim", [-1, 0])
def test_softmax_backward_is_the_vjp_of_softmax_and_differentiable(dim):
    x, dy = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    y = _softmax(x, dim)
    # vjp by central differences of sum(dy * softmax(x)) in float64
    eps, fd_dx = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        fd_dx[i] = ((dy * _softmax(x + e, dim)).sum() - (dy * _softmax(x - e, dim)).sum()) / (2 * eps)
    out = G.SoftmaxBackward()(t(dy), t(y), dim)
    np.testing.assert_allclose(out.asnumpy(), fd_dx, rtol=1e-6, atol=1e-9)
    # its own gradients: d/d dout = out (1 - sum out) and d/d out = dout - s - (sum out) dout, s = sum(dout out)
    d_dout, d_out = ms.grad(lambda a, b: G.SoftmaxBackward()(a, b, dim), (0, 1))(t(dy), t(y))
    total, s = y.sum(dim, keepdims=True), (dy * y).sum(dim, keepdims=True)
    np.testing.assert_allclose(d_dout.asnumpy(), y * (1 - total), atol=1e-12)
    np.testing.assert_allclose(d_out.asnumpy(), dy - s - total * dy, rtol=1e-12, atol=1e-12)


def test_softmax_backward_rejects_bad_arguments():
    with pytest.raises(ValueError, match="'SoftmaxBackward'.*same shape"):
        G.SoftmaxBackward()(t([1.0, 2.0]), t([0.5]))
    with pytest.raises(TypeError, match="'SoftmaxBackward'.*'dim' must be an int"):
        G.SoftmaxBackward()(t([1.0]), t([1.0]), 0.5)
    with pytest.raises(ValueError, match="'SoftmaxBackward'.*axis"):
        G.SoftmaxBackward()(t([1.0]), t([1.0]), 1)
