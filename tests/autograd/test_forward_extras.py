"""linearize, Taylor-mode jet / derivative, custom_vjp, and the nn.Jvp / nn.Vjp cells, against analytic
derivatives and float64 finite differences."""
import math

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops


def t(a, dtype=np.float64):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def f_np(x):
    s = np.sin(x)
    c = np.cos(s)
    return s + c - np.exp(c)


def f_ms(x):
    s = ops.sin(x)
    c = ops.cos(s)
    return s + c - ops.exp(c)


def fd_derivs(f, x0, order, h=1e-2):
    """d^k/dt^k f(x0 + t) at t = 0 by central differences on a 9-point stencil (float64)."""
    ts = np.arange(-4, 5) * h
    vals = np.stack([f(x0 + s) for s in ts])
    out = []
    for k in range(1, order + 1):
        # least-squares polynomial of degree 8 through the stencil: coefficient k times k!
        coef = np.polynomial.polynomial.polyfit(ts, vals, 8)
        out.append(coef[k] * math.factorial(k))
    return np.stack(out)


def test_jet_matches_finite_differences_along_a_unit_curve():
    x0 = np.array([1.0, 0.3, -0.7])
    series = np.zeros((3, 3))
    series[0] = 1.0
    out, out_series = ops.jet(f_ms, t(x0), t(series))
    np.testing.assert_allclose(out.asnumpy(), f_np(x0), rtol=1e-12)
    assert out_series.shape == (3, 3)
    np.testing.assert_allclose(out_series.asnumpy(), fd_derivs(f_np, x0, 3), rtol=1e-5, atol=1e-6)


def test_jet_second_order_series_moves_the_input_along_a_parabola():
    # x(t) = x0 + a t + b t^2 / 2: d/dt sin(x) = cos(x) a, d2/dt2 = -sin(x) a^2 + cos(x) b
    x0, a, b = np.array([0.4, 1.2]), np.array([0.5, -2.0]), np.array([3.0, 0.25])
    _, s = ops.jet(ops.sin, t(x0), t(np.stack([a, b])))
    np.testing.assert_allclose(s.asnumpy()[0], np.cos(x0) * a, rtol=1e-12)
    np.testing.assert_allclose(s.asnumpy()[1], -np.sin(x0) * a * a + np.cos(x0) * b, rtol=1e-12)


def test_jet_of_two_inputs_and_two_outputs():
    x0, y0 = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    ones = np.stack([np.ones(2), np.zeros(2)])
    out, series = ops.jet(lambda x, y: (x * y, ops.exp(x)), (t(x0), t(y0)), (t(ones), t(ones)))
    np.testing.assert_allclose(out[0].asnumpy(), x0 * y0)
    # (x0 + t)(y0 + t): first derivative x0 + y0, second 2; exp(x0 + t): exp(x0) both
    np.testing.assert_allclose(series[0].asnumpy(), np.stack([x0 + y0, [2.0, 2.0]]), rtol=1e-12)
    np.testing.assert_allclose(series[1].asnumpy(), np.stack([np.exp(x0)] * 2), rtol=1e-12)


def test_derivative_is_the_order_th_derivative():
    x0 = np.array([1.0, 2.5])
    out, d3 = ops.derivative(ops.sin, t(x0), 3)
    np.testing.assert_allclose(out.asnumpy(), np.sin(x0))
    np.testing.assert_allclose(d3.asnumpy(), -np.cos(x0), rtol=1e-12)
    outs, ds = ops.derivative(lambda x, y: (ops.sin(x), ops.cos(y)), (t(x0), t(x0)), 2)
    np.testing.assert_allclose(ds[0].asnumpy(), -np.sin(x0), rtol=1e-12)
    np.testing.assert_allclose(ds[1].asnumpy(), -np.cos(x0), rtol=1e-12)


def test_jet_and_derivative_reject_bad_arguments():
    with pytest.raises(ValueError, match="'jet'.*shape"):
        ops.jet(ops.sin, t([1.0, 2.0]), t([1.0, 2.0]))
    with pytest.raises(ValueError, match="'derivative'.*'order'"):
        ops.derivative(ops.sin, t([1.0]), 0)
    with pytest.raises(TypeError, match="'jet'.*'primals'"):
        ops.jet(ops.sin, [1.0], t([[1.0]]))


def test_linearize_evaluates_once_and_applies_the_jacobian():
    calls = []

    def f(x, y):
        calls.append(1)
        return x * x * y, ops.sin(y)

    x0, y0 = np.array([1.0, -2.0]), np.array([0.5, 3.0])
    out, jvp_fn = ops.linearize(f, (t(x0), t(y0)))
    np.testing.assert_allclose(out[0].asnumpy(), x0 * x0 * y0)
    n = len(calls)
    for vx, vy in (([1.0, 0.0], [0.0, 0.0]), ([0.3, -1.0], [2.0, 0.5])):
        vx, vy = np.array(vx), np.array(vy)
        tx, ty = jvp_fn((t(vx), t(vy)))
        np.testing.assert_allclose(tx.asnumpy(), 2 * x0 * y0 * vx + x0 * x0 * vy, rtol=1e-12)
        np.testing.assert_allclose(ty.asnumpy(), np.cos(y0) * vy, rtol=1e-12)
    assert len(calls) == n  # the jvp_fn does not run f again
    _, single = ops.linearize(ops.exp, t([0.0, 1.0]))
    np.testing.assert_allclose(single(t([2.0, 1.0])).asnumpy(), [2.0, np.e], rtol=1e-12)
    with pytest.raises(ValueError, match="'linearize'.*shape"):
        single(t([1.0]))


def test_custom_vjp_replaces_the_gradient_and_defaults_to_autodiff():
    from mindseed.ops.function.grad.grad_func import custom_vjp

    @custom_vjp
    def mul_add(x, y):
        return 2 * x + y

    x, y = t(1.0), t(2.0)
    assert [g.asnumpy() for g in ops.vjp(mul_add, x, y)[1](t(1.0))] == [2.0, 1.0]  # no backward yet: autodiff
    mul_add.defbwd(lambda x, y, out, dout: (2 * dout, 2 * y))
    gx, gy = ops.vjp(mul_add, x, y)[1](t(1.0))
    assert (gx.asnumpy(), gy.asnumpy()) == (2.0, 4.0)

    @ms.jit
    def inline(x, y):
        return mul_add(x, y) + x + 2 * y

    gx, gy = ops.vjp(inline, x, y)[1](t(1.0))
    assert (gx.asnumpy(), gy.asnumpy()) == (3.0, 6.0)
    with pytest.raises(TypeError, match="custom_vjp"):
        mul_add.defbwd(3)


class TwoOut(nn.Cell):
    def construct(self, x, y):
        return 2 * x, y ** 3


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_nn_jvp_and_vjp_cells(mode):
    ms.set_context(mode=mode)
    try:
        x0, y0 = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.5, -1.0], [2.0, 1.5]])
        v1, v2 = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 0.0], [-1.0, 2.0]])
        out, tangent = nn.Jvp(lambda x: x ** 3)(t(x0), t(v1))
        np.testing.assert_allclose(out.asnumpy(), x0 ** 3)
        np.testing.assert_allclose(tangent.asnumpy(), 3 * x0 ** 2 * v1, rtol=1e-12)
        out, (tx, ty) = nn.Jvp(TwoOut())(t(x0), t(y0), (t(v1), t(v2)))
        np.testing.assert_allclose(tx.asnumpy(), 2 * v1)
        np.testing.assert_allclose(ty.asnumpy(), 3 * y0 ** 2 * v2, rtol=1e-12)
        out, (gx, gy) = nn.Vjp(TwoOut())(t(x0), t(y0), (t(v1), t(v2)))
        np.testing.assert_allclose(out[1].asnumpy(), y0 ** 3)
        np.testing.assert_allclose(gx.asnumpy(), 2 * v1)
        np.testing.assert_allclose(gy.asnumpy(), 3 * y0 ** 2 * v2, rtol=1e-12)
        out, g = nn.Vjp(lambda x: x ** 3)(t(x0), t(v1))
        np.testing.assert_allclose(g.asnumpy(), 3 * x0 ** 2 * v1, rtol=1e-12)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_nn_jvp_rejects_a_vector_per_input_mismatch():
    with pytest.raises(TypeError, match="'Jvp'.*'v'"):
        nn.Jvp(TwoOut())(t([1.0]), t([2.0]), t([1.0]))
    with pytest.raises(TypeError, match="'Vjp'"):
        nn.Vjp(TwoOut())(t([1.0]))


def test_jvp_vjp_cells_refuse_a_wrong_number_of_vectors():
    """One v per network input (Jvp) or output (Vjp), else MindSpore's TypeError."""
    x = t(np.ones((2, 2)))
    with pytest.raises(TypeError, match="For 'Jvp', 'v' must have one Tensor per network input"):
        nn.Jvp(lambda a: a * 2)(x, (x, x))
    with pytest.raises(TypeError, match="For 'Vjp', 'v' must have one Tensor per network output"):
        nn.Vjp(lambda a: a * 2)(x, (x, x))


def test_flatten_order_must_be_a_str():
    with pytest.raises(TypeError, match="For 'Flatten', the 'order' must be a str"):
        t(np.ones((2, 2))).flatten(order=123)
    with pytest.raises(ValueError, match="'order' must be 'C' or 'F'"):
        t(np.ones((2, 2))).flatten(order="X")
