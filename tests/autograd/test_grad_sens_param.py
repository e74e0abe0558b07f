"""grad / value_and_grad with sens_param: the last argument is the output's sensitivity (MindSpore 2.10's values)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops

X = ms.Tensor(np.array([[1.0, -2.0], [3.0, 4.0]], np.float32))
S = ms.Tensor(np.array([[1.0, 2.0], [0.5, -1.0]], np.float32))


def _f(a, b):
    return a * b + a * a


def _g(a):
    return a * 3, a.sum()


def test_sens_weighs_the_output():
    # d/da (a*b + a*a) = b + 2a, times the sensitivity
    np.testing.assert_allclose(ops.grad(_f, sens_param=True)(X, X * 2, S).asnumpy(),
                               ((X * 2 + 2 * X) * S).asnumpy())
    ga, gb = ops.grad(_f, grad_position=(0, 1), sens_param=True)(X, X * 2, S)
    np.testing.assert_allclose(gb.asnumpy(), (X * S).asnumpy())
    value, g = ops.value_and_grad(_f, sens_param=True)(X, X, S)
    np.testing.assert_allclose(value.asnumpy(), (2 * X * X).asnumpy())
    np.testing.assert_allclose(g.asnumpy(), [[4.0, -16.0], [6.0, -16.0]])   # PyNative: x passed twice


def test_sens_with_aux_weights_and_graph_mode():
    g, aux = ops.grad(_g, has_aux=True, sens_param=True)(X, S)
    np.testing.assert_allclose(g.asnumpy(), (3 * S).asnumpy())
    assert float(aux[0].asnumpy()) == 6.0
    net = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
    wg, bg = ops.grad(net, None, net.trainable_params(), sens_param=True)(X, S)
    np.testing.assert_allclose(wg.asnumpy(), [[2.5, 0.0], [-1.0, -8.0]])
    np.testing.assert_allclose(bg.asnumpy(), [1.5, 1.0])

    @ms.jit
    def jitted(a, b):
        return ops.grad(_f, sens_param=True)(a, a, b)
    np.testing.assert_allclose(jitted(X, S).asnumpy(), [[3.0, -12.0], [4.5, -12.0]])  # a graph: per position
    # two outputs need two sensitivities
    both = ops.grad(_g, sens_param=True)(X, (S, ms.Tensor(2.0)))
    np.testing.assert_allclose(both.asnumpy(), [[5.0, 8.0], [3.5, -1.0]])
    with pytest.raises(RuntimeError, match="sens gradient's size should be same as out of network"):
        ops.grad(_g, sens_param=True)(X, S)


# ---- what MindSpore 2.10 accepts as a sensitivity (GradOperation(sens_param=True) and grad(sens_param=True))
_ONES = np.ones((2, 3), np.float32)


def _times2(a):
    return a * 2


def _sum2(a):
    return (a * 2).sum()


@pytest.mark.parametrize("sens", [ms.Tensor(2.0, ms.float64), ms.Tensor(2.0, ms.float16), ms.Tensor([2.0]),
                                  ms.Tensor(2), 2.0, 2])
def test_a_scalar_output_takes_any_one_element_sensitivity(sens):
    g = ops.GradOperation(sens_param=True)(_sum2)(ms.Tensor(_ONES), sens)
    assert g.dtype == ms.float32
    np.testing.assert_allclose(g.asnumpy(), np.full((2, 3), 4.0))


@pytest.mark.parametrize("sens, err, msg", [
    (ms.Tensor(_ONES.astype(np.float64)), TypeError, "The dtype should be Float32, but got Float64"),
    (ms.Tensor(_ONES.astype(np.int32)), TypeError, "The dtype should be Float32, but got Int32"),
    (ms.Tensor(_ONES[0]), ValueError, r"The shape should be \[2, 3\], but got \[3\]"),
    (ms.Tensor(_ONES[:1]), ValueError, r"The shape should be \[2, 3\], but got \[1, 3\]"),
    (2.0, RuntimeError, r"grad tensor should be broadcast to expected shape, but got \[\] vs \[2, 3\]"),
    (ms.Tensor(2.0), RuntimeError, r"grad tensor should be broadcast to expected shape"),
])
def test_a_tensor_output_needs_its_dtype_and_shape(sens, err, msg):
    with pytest.raises(err, match=msg):
        ops.GradOperation(sens_param=True)(_times2)(ms.Tensor(_ONES), sens)
    with pytest.raises(err, match=msg):
        ms.grad(_times2, sens_param=True)(ms.Tensor(_ONES), sens)


def test_each_output_of_a_tuple_is_checked():
    x = ms.Tensor(_ONES)
    with pytest.raises(TypeError, match="The dtype should be Float32, but got Float64"):
        ops.GradOperation(sens_param=True)(lambda a: (a * 2, a))(x, (x, ms.Tensor(_ONES.astype(np.float64))))
    with pytest.raises(TypeError, match="The dtype should be Float16, but got Float32"):
        ops.GradOperation(sens_param=True)(lambda a: (a * 2).astype(ms.float16))(x, x)


def test_sens_dtype_is_checked_under_jit():
    x = ms.Tensor(_ONES)

    @ms.jit
    def f(a, s):
        return ops.GradOperation(sens_param=True)(_times2)(a, s)

    np.testing.assert_allclose(f(x, x * 3).asnumpy(), np.full((2, 3), 6.0))
    with pytest.raises(TypeError, match="The dtype should be Float32, but got Float64"):
        f(x, ms.Tensor(_ONES.astype(np.float64)))


def _exp_x(a):
    return ops.exp(a) * a


def test_vjp_cotangent_is_checked_and_jvp_tangent_broadcasts():
    x = ms.Tensor(np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]], np.float32))
    v = ms.Tensor(np.array([1.0, 2.0, -1.0], np.float32))
    _, fn = ms.vjp(_exp_x, x)
    with pytest.raises(ValueError, match=r"The shape should be \[2, 3\], but got \[3\]"):
        fn(v)
    with pytest.raises(TypeError, match="The dtype should be Float32, but got Float64"):
        fn(ms.Tensor(np.ones((2, 3))))
    # MindSpore 2.10 broadcasts a jvp tangent to its input: d/dx (x e^x) = (1 + x) e^x, times the tangent
    out, tangent = ms.jvp(_exp_x, x, v)
    xn = x.asnumpy()
    np.testing.assert_allclose(tangent.asnumpy(), (1 + xn) * np.exp(xn) * v.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), xn * np.exp(xn), rtol=1e-6)
