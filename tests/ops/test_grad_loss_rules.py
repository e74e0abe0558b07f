"""Gradients of losses whose MindSpore bprop differs from the textbook one (real MindSpore 2.10's values)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops

LOGP = np.array([[-1.2, -0.7, -2.0], [-0.3, -1.5, -0.9]], np.float32)
TARGET = np.array([[0.2, 0.5, 0.3], [0.6, 0.0, 0.4]], np.float32)


@pytest.mark.parametrize("reduction, scale", [("batchmean", 0.5), ("sum", 1.0), ("mean", 1 / 6), ("none", 1.0)])
@pytest.mark.parametrize("jit", [False, True])
def test_kl_div_labels_get_no_gradient(reduction, scale, jit):
    g = ms.grad(lambda x, y: ops.kl_div(x, y, reduction), (0, 1))
    gx, gy = (ms.jit(g) if jit else g)(ms.Tensor(LOGP), ms.Tensor(TARGET))
    np.testing.assert_allclose(gx.asnumpy(), -TARGET * scale, rtol=1e-6)
    np.testing.assert_array_equal(gy.asnumpy(), np.zeros((2, 3), np.float32))


def test_kl_div_loss_cell_through_softmax_labels():
    # labels computed from a tensor being differentiated: MindSpore gives that tensor no gradient through them
    b = ms.Tensor(np.array([[0.3, -0.2, 0.1]], np.float32))
    g = ms.grad(lambda u: nn.KLDivLoss('sum')(ops.log_softmax(ms.Tensor(LOGP[:1]), -1), ops.softmax(u, -1)))(b)
    np.testing.assert_array_equal(g.asnumpy(), np.zeros((1, 3), np.float32))


def test_kl_div_needs_equal_shapes():
    # MindSpore 2.10's KLDivLoss does not broadcast
    a, b = ms.Tensor(np.zeros((2, 1, 3), np.float32)), ms.Tensor(np.full((3,), 0.5, np.float32))
    with pytest.raises(ValueError, match=r"For primitive\[KLDivLoss\], the x shape: \[2, 1, 3\] must be equal to "
                                         r"\[3\]"):
        ops.kl_div(a, b)
    with pytest.raises(ValueError, match="must be equal to"):
        nn.KLDivLoss()(b, a)
    np.testing.assert_allclose(ops.kl_div(a[0], b.reshape(1, 3)).asnumpy(), -0.3465736, rtol=1e-6)
