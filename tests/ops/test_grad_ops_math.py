"""Backward kernels of the elementwise math / activation ops, losses, Slice, LRN and PadV3
(`ops.operations._grad_ops`): values against numpy closed forms and finite differences, and bad input."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops.operations import _grad_ops as G
from _harness import central_difference as _fd

RS = np.random.RandomState(0)
T = lambda a, dt=ms.float64: ms.Tensor(np.asarray(a), dt)  # noqa: E731


@pytest.mark.parametrize("op, fwd, at_output", [
    (G.ACosGrad, np.arccos, False), (G.AsinGrad, np.arcsin, False), (G.AtanGrad, np.arctan, False),
    (G.AcoshGrad, np.arccosh, True), (G.AsinhGrad, np.arcsinh, True)])
def test_inverse_trig_grads_match_finite_differences(op, fwd, at_output):
    x = RS.uniform(1.2, 3.0, 5) if fwd is np.arccosh else RS.uniform(-0.8, 0.8, 5)
    dout = RS.randn(5)
    arg = fwd(x) if at_output else x
    want = _fd(lambda t: (fwd(t) * dout).sum(), x)
    np.testing.assert_allclose(op()(T(arg), T(dout)).asnumpy(), want, rtol=1e-6, atol=1e-8)


def test_atan_grad_conjugates_complex_inputs():
    x = np.array([-0.5, 0.25, 0.5]) * (1 + 0.5j)
    dy = np.array([1.0, 0.5, -1.0]) * (1 + 0.3j)
    out = G.AtanGrad()(T(x, ms.complex128), T(dy, ms.complex128))
    np.testing.assert_allclose(out.asnumpy(), dy / np.conj(1 + x * x), rtol=1e-12)


def test_inv_grad_is_minus_grad_times_output_squared_for_ints_too():
    y, dy = np.array([[-1, 1, 5], [3, 2, -1]]), np.array([[29, 1, -2], [2, -1, 12]])
    out = G.InvGrad()(T(y, ms.int32), T(dy, ms.int32))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), -dy * y * y)


def test_activation_grads_from_their_masks_and_outputs():
    y = np.array([-0.3, 1.0, -0.6, 2.0, -2.0])
    dy = np.array([-11.0, 2.0, 1.0, 4.0, -4.0])
    np.testing.assert_allclose(G.EluGrad()(T(dy), T(y)).asnumpy(), [-7.7, 2.0, 0.4, 4.0, 4.0], rtol=1e-12)
    x = np.array([-1.0, 0.0, 3.0, 6.0, 6.1])
    np.testing.assert_array_equal(G.ReLU6Grad()(T(np.ones(5)), T(x)).asnumpy(), [0, 0, 1, 1, 0])
    np.testing.assert_array_equal(G.SoftShrinkGrad(0.5)(T(dy), T([0.6, -0.4, -0.7, 0.5, 2.0])).asnumpy(),
                                  [-11.0, 0.0, 1.0, 0.0, -4.0])
    feats = RS.randn(4)
    np.testing.assert_allclose(G.SoftplusGrad()(T(dy[:4]), T(feats)).asnumpy(),
                               dy[:4] * _fd(lambda t: np.log1p(np.exp(t)).sum(), feats), rtol=1e-6)
    logits, labels = RS.randn(3, 2), RS.rand(3, 2)
    np.testing.assert_allclose(G.SigmoidCrossEntropyWithLogitsGrad()(T(logits), T(labels), T(np.ones((3, 2))))
                               .asnumpy(), 1 / (1 + np.exp(-logits)) - labels, rtol=1e-12)


def test_softplus_grad_is_differentiable():
    x, dy = RS.randn(4), RS.randn(4)
    d2x = ms.grad(lambda a: G.SoftplusGrad()(T(dy), a).sum())(T(x))
    np.testing.assert_allclose(d2x.asnumpy(), dy * np.exp(-x) / (1 + np.exp(-x)) ** 2, rtol=1e-10)


def test_dropout_grad_scales_the_kept_gradient():
    out = G.DropoutGrad(0.5)(T([[3.0, 1.0, 2.0]], ms.float32), T([[1.0, 0.0, 1.0]], ms.float32))
    np.testing.assert_array_equal(out.asnumpy(), [[6.0, 0.0, 4.0]])
    with pytest.raises(ValueError, match="keep_prob"):
        G.DropoutGrad(0.0)


@pytest.mark.parametrize("reduction, scale", [("none", 1.0), ("sum", 1.0), ("mean", 0.25), ("batchmean", 0.5)])
def test_kl_div_loss_grad_per_reduction(reduction, scale):
    x, target = np.array([[0.3, 0.7], [0.5, 0.5]]), np.array([[-1.0, 1.0], [1.0, -1.0]])
    dy = RS.randn(2, 2) if reduction == "none" else np.array([-1.0])
    out = G.KLDivLossGrad(reduction)(T(dy), T(x), T(target))
    np.testing.assert_allclose(out.asnumpy(), -target * dy * scale, rtol=1e-12)


def test_kl_div_loss_grad_rejects_an_unknown_reduction():
    with pytest.raises(ValueError, match="reduction"):
        G.KLDivLossGrad("error")
    with pytest.raises(ValueError, match="reduction"):
        G.KLDivLossGrad(1.0)


def test_l2_normalize_grad_matches_finite_differences():
    x, dout = RS.randn(2, 3, 4), RS.randn(2, 3, 4)
    norm = lambda t: t / np.sqrt((t * t).sum(1, keepdims=True))  # noqa: E731
    out = G.L2NormalizeGrad(1)(T(x), T(norm(x)), T(dout))
    np.testing.assert_allclose(out.asnumpy(), _fd(lambda t: (norm(t) * dout).sum(), x), rtol=1e-6, atol=1e-9)


def test_lrn_grad_is_the_vjp_of_lrn():
    x, dy = RS.randn(1, 3, 2, 2), RS.randn(1, 3, 2, 2)
    lrn = ops.LRN(depth_radius=2, bias=1.0, alpha=0.5, beta=0.75)
    y = lrn(T(x))
    out = G.LRNGrad(depth_radius=2, bias=1.0, alpha=0.5, beta=0.75)(T(dy), T(x), y)
    want = _fd(lambda t: (lrn(T(t)).asnumpy() * dy).sum(), x)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-7)


def test_slice_grad_places_dy_at_the_slice():
    x = np.zeros((3, 2, 3))
    dy = np.array([[[3.0, 1.0, 2.0]], [[4.0, 1.0, 4.0]]])
    out = G.SliceGrad()(T(dy), T(x), (0, 1, 0), (2, -1, 3)).asnumpy()
    want = np.zeros((3, 2, 3))
    want[0:2, 1:2, :] = dy
    np.testing.assert_array_equal(out, want)
    with pytest.raises(ValueError, match="SliceGrad"):
        G.SliceGrad()(T(dy), T(x), (0, 1, 0), (2, 1, 2))


def test_strided_slice_grad_reads_dy_flat():
    out = G.StridedSliceGrad()(T([3.0, 2.0, 1.0]), (3, 2, 3), (1, 0, 0), (2, 1, 3), (1, 1, 1)).asnumpy()
    want = np.zeros((3, 2, 3))
    want[1, 0] = [3.0, 2.0, 1.0]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("mode, np_mode", [("circular", "wrap"), ("reflect", "reflect"), ("edge", "edge")])
def test_pad_v3_grad_sums_what_each_input_element_fed(mode, np_mode):
    x = RS.randn(1, 1, 3, 4)
    pads = (1, 2, 1, 0)            # last dim (left, right), then the one before
    np_pads = ((0, 0), (0, 0), (1, 0), (1, 2))
    dy = RS.randn(*np.pad(x, np_pads, mode=np_mode).shape)
    out = G.PadV3Grad(mode)(T(dy), T(np.array(pads), ms.int64))
    want = _fd(lambda t: (np.pad(t, np_pads, mode=np_mode) * dy).sum(), x)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6, atol=1e-8)


def test_grad_kernels_name_the_op_on_bad_input():
    with pytest.raises(TypeError, match="For 'AsinGrad', 'x' must be a float or complex Tensor"):
        G.AsinGrad()(T([1, 2], ms.int32), T([1, 2], ms.int32))
    with pytest.raises(ValueError, match="For 'EluGrad', 'dout' and 'out' must have the same shape"):
        G.EluGrad()(T([1.0, 2.0]), T([1.0]))
