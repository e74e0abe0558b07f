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
