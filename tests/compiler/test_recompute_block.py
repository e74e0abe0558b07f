"""ops.recompute_block(block, output_recompute): the block's values and gradients are those of the plain call,
eager and compiled."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops


def _f(x):
    return ops.sin(x) * x


@pytest.mark.parametrize("output_recompute", [False, True])
@pytest.mark.parametrize("compiled", [False, True])
def test_recompute_block_function_value_and_grad_vs_numpy(output_recompute, compiled):
    x = np.linspace(-2, 2, 7)
    run = ops.recompute_block(_f, output_recompute)

    def loss(t):
        return (run(t) ** 2).sum()
    fn = ms.value_and_grad(loss)
    if compiled:
        fn = ms.jit(fn)
    value, grad = fn(ms.Tensor(x))
    f = np.sin(x) * x
    np.testing.assert_allclose(value.asnumpy(), (f ** 2).sum(), rtol=1e-12)
    np.testing.assert_allclose(grad.asnumpy(), 2 * f * (np.cos(x) * x + np.sin(x)), rtol=1e-12)


class _Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 4)

    def construct(self, x):
        return ops.tanh(self.dense(x))


def test_recompute_block_cell_weight_grads_equal_the_plain_call():
    block = _Block()
    x = ms.Tensor(np.random.RandomState(0).standard_normal((5, 3)).astype(np.float32))
    weights = block.trainable_params()
    run = ops.recompute_block(block)
    plain = ms.value_and_grad(lambda t: block(t).sum(), None, weights)(x)
    recomputed = ms.value_and_grad(lambda t: run(t).sum(), None, weights)(x)
    np.testing.assert_allclose(recomputed[0].asnumpy(), plain[0].asnumpy(), rtol=1e-6)
    for a, b in zip(recomputed[1], plain[1]):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)


def test_recompute_block_bad_input():
    with pytest.raises(TypeError, match="recompute_block.*'block' must be a Cell or a function"):
        ops.recompute_block(3)
    with pytest.raises(TypeError, match="recompute_block.*'output_recompute' must be a bool"):
        ops.recompute_block(_f, 1)
