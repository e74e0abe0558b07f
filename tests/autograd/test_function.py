"""mindspore.common._grad_function._Function, the custom autograd function of PyNative mode (torch's
autograd.Function form, used by mindformers' PyNative layers): the forward's value, the backward's gradients in
ms.grad (oracle, MindSpore 2.10: [9 24]; ([10 10], [0 0]); [8 8] below), context saved from forward or by
setup_context, keyword arguments, a backward returning too few gradients."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.common._grad_function import _Function


class _Scale(_Function):
    @staticmethod
    def forward(ctx, x, y, k=3.0):
        ctx.save_for_backward(x, y)
        ctx.k = k
        return x * y * k

    @staticmethod
    def backward(ctx, dout):
        x, y = ctx.saved_tensors
        assert ctx.k == 3.0 and ctx.needs_input_grad[:2] == (True, True)
        return dout * 10.0, None, None


class _Two(_Function):
    @staticmethod
    def forward(x):
        return x * 2, x * 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.n = 7.0

    @staticmethod
    def backward(ctx, d1, d2):
        return d1 * ctx.n + d2


_X = ms.Tensor(np.array([1.0, 2.0], np.float32))
_Y = ms.Tensor(np.array([3.0, 4.0], np.float32))


def test_forward_value_and_custom_gradients():
    np.testing.assert_array_equal(_Scale.apply(_X, _Y).asnumpy(), [9.0, 24.0])
    gx, gy = ms.grad(lambda a, b: _Scale.apply(a, b).sum(), grad_position=(0, 1))(_X, _Y)
    np.testing.assert_array_equal(gx.asnumpy(), [10.0, 10.0])
    np.testing.assert_array_equal(gy.asnumpy(), [0.0, 0.0])          # None: no gradient, zeros
    gx = ms.grad(lambda a: _Scale.apply(a, _Y, k=3.0).sum())(_X)       # keyword arguments bound to forward's
    np.testing.assert_array_equal(gx.asnumpy(), [10.0, 10.0])


def test_setup_context_and_several_outputs():
    g = ms.grad(lambda a: sum(t.sum() for t in _Two.apply(a)))(_X)
    np.testing.assert_array_equal(g.asnumpy(), [8.0, 8.0])


def test_backward_must_give_a_gradient_per_input():
    class Short(_Scale):
        @staticmethod
        def backward(ctx, dout):
            return (dout,)

    with pytest.raises(ValueError, match=r"For 'Short.backward', one gradient per input of forward \(3\)"):
        ms.grad(lambda a: Short.apply(a, _Y, 3.0).sum())(_X)
