"""Gradients on ties and boundaries of the clipping activations, as MindSpore 2.10 computes them.

ops.hardtanh, ops.leaky_relu (and nn.Hardtanh / nn.LeakyReLU) and ops.clip_by_value are MindSpore composites of
Maximum/Minimum, which hand each of two equal operands half the gradient; ops.clamp and the mint forms do not.
Expected values are real MindSpore 2.10's, in PyNative and under @ms.jit.
"""
import numpy as np
import pytest

import mindseed as ms
from mindseed import mint, nn, ops

X = np.array([-2., -1., -0.5, 0., 0.5, 1., 2.], np.float32)

CASES = {
    "hardtanh": (lambda a: ops.hardtanh(a), [0., 0.5, 1., 1., 1., 0.5, 0.]),
    "nn.Hardtanh": (nn.Hardtanh(), [0., 0.5, 1., 1., 1., 0.5, 0.]),
    "clip_by_value": (lambda a: ops.clip_by_value(a, -1.0, 1.0), [0., 0.5, 1., 1., 1., 0.5, 0.]),
    "leaky_relu": (lambda a: ops.leaky_relu(a, 0.2), [0.2, 0.2, 0.2, 0.6, 1., 1., 1.]),
    "leaky_relu_gt1": (lambda a: ops.leaky_relu(a, 2.0), [2., 2., 2., 1.5, 1., 1., 1.]),
    "nn.LeakyReLU": (nn.LeakyReLU(0.2), [0.2, 0.2, 0.2, 0.6, 1., 1., 1.]),
    "clamp": (lambda a: ops.clamp(a, -1, 1), [0., 1., 1., 1., 1., 1., 0.]),
    "mint.hardtanh": (lambda a: mint.nn.functional.hardtanh(a), [0., 0., 1., 1., 1., 0., 0.]),
    "mint.leaky_relu": (lambda a: mint.nn.functional.leaky_relu(a, 0.2), [0.2, 0.2, 0.2, 0.2, 1., 1., 1.]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("jit", [False, True])
def test_tie_gradients(name, jit):
    fn, expected = CASES[name]
    g = ms.grad(fn)
    if jit:
        g = ms.jit(g)
    np.testing.assert_allclose(g(ms.Tensor(X)).asnumpy(), expected, rtol=1e-6, atol=1e-7)


def test_clip_by_value_tensor_bound_shares_the_gradient():
    # MindSpore 2.10: max(x, lo) gives x and lo half each where they are equal; lo broadcasts and sums
    x = ms.Tensor(np.array([[0., 1.], [2., 0.]], np.float32))
    lo = ms.Tensor(np.array([0., 1.], np.float32))
    gx, glo = ms.grad(lambda a, b: ops.clip_by_value(a, b, 1.5), (0, 1))(x, lo)
    np.testing.assert_allclose(gx.asnumpy(), [[0.5, 0.5], [0., 0.]])
    np.testing.assert_allclose(glo.asnumpy(), [0.5, 1.5])


def test_hardtanh_second_order_and_float64():
    x = ms.Tensor(X.astype(np.float64))
    g = ms.grad(lambda a: ops.hardtanh(a * 1.0))(x)
    assert g.dtype == ms.float64
    np.testing.assert_allclose(g.asnumpy(), [0., 0.5, 1., 1., 1., 0.5, 0.])
    np.testing.assert_allclose(ms.grad(ms.grad(lambda a: ops.leaky_relu(a, 0.2) * a))(ms.Tensor(X)).asnumpy(),
                               [0.4, 0.4, 0.4, 1.2, 2., 2., 2.])


@pytest.mark.parametrize("jit", [False, True])
def test_rrelu_gradient_is_its_mask(jit):
    # MindSpore 2.10's rrelu is input * mask with mask = slope below 0, 1 above, 0 at 0 (lower == upper: no draw
    # spread): its gradient at 0 is 0
    g = ms.grad(nn.RReLU(0.2, 0.2))
    got = (ms.jit(g) if jit else g)(ms.Tensor(np.array([-1.0, 0.0, 1.0], np.float32)))
    np.testing.assert_allclose(got.asnumpy(), [0.2, 0.0, 1.0], rtol=1e-6)
    out = ops.rrelu(ms.Tensor(np.array([-2.0, 0.0, 3.0], np.float32)), 0.25, 0.25)
    np.testing.assert_allclose(out.asnumpy(), [-0.5, 0.0, 3.0])
