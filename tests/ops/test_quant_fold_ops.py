"""ops.operations._quant_ops: learned-scale fake quantization and batch-norm folding against numpy references of
MindSpore's GPU kernels; their automatic gradients against the `...Grad` primitives, the references and float64
finite differences."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.ops.operations import _quant_ops as Q
from _harness import central_difference

RNG = np.random.default_rng(7)


def _lsq_ref(x, alpha, qmax, neg_trunc, axis=None):
    """(out, dx mask, dalpha per element) as the kernels compute them, in float32."""
    if axis is not None:
        shape = [1] * x.ndim
        shape[axis] = -1
        alpha = alpha.reshape(shape)
    r = x / alpha
    lower = np.float32(0 if neg_trunc else -1)
    q = np.floor(np.clip(r, lower, 1) * qmax + np.float32(0.5)) / qmax
    inside = (r >= lower) & (r <= 1)
    coef = np.where(r > 1, 1, np.where(r < lower, -1, q - r))
    return q * alpha, inside, coef


@pytest.mark.parametrize("neg_trunc", [False, True])
def test_learned_scale_per_layer_values_and_gradients(neg_trunc):
    x = RNG.uniform(-2, 2, (3, 4, 5)).astype(np.float32)
    alpha, qmax = np.array([1.3], np.float32), np.array([7.0], np.float32)
    op = Q.FakeLearnedScaleQuantPerLayer(neg_trunc=neg_trunc)
    out = op(ms.Tensor(x), ms.Tensor(alpha), ms.Tensor(qmax)).asnumpy()
    ref, inside, coef = _lsq_ref(x, alpha, qmax[0], neg_trunc)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-6)
    assert len(np.unique(out)) <= (8 if neg_trunc else 15) and np.abs(out).max() <= 1.3 + 1e-6
    dout = RNG.normal(size=x.shape).astype(np.float32)
    f = lambda a, b: (op(a, b, ms.Tensor(qmax)) * ms.Tensor(dout)).sum()  # noqa: E731
    dx, dalpha = ms.grad(f, grad_position=(0, 1))(ms.Tensor(x), ms.Tensor(alpha))
    np.testing.assert_allclose(dx.asnumpy(), dout * inside, rtol=0, atol=1e-6)
    np.testing.assert_allclose(dalpha.asnumpy(), [(dout * coef).sum()], rtol=1e-5)
    gdx, gdalpha = Q.FakeLearnedScaleQuantPerLayerGrad(neg_trunc=neg_trunc)(
        ms.Tensor(dout), ms.Tensor(x), ms.Tensor(alpha), ms.Tensor(qmax))
    np.testing.assert_allclose(gdx.asnumpy(), dx.asnumpy(), rtol=0, atol=0)
    np.testing.assert_allclose(gdalpha.asnumpy(), dalpha.asnumpy(), rtol=1e-6)


def test_learned_scale_per_channel_and_quant_delay():
    x = RNG.uniform(-1, 1, (4, 3, 2, 2)).astype(np.float32)
    alpha, qmax = np.array([0.5, 0.8, 1.0, 0.2], np.float32), np.array([127.0], np.float32)
    op = Q.FakeLearnedScaleQuantPerChannel(channel_axis=0)
    out = op(ms.Tensor(x), ms.Tensor(alpha), ms.Tensor(qmax)).asnumpy()
    ref, inside, coef = _lsq_ref(x, alpha, qmax[0], False, axis=0)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-6)
    f = lambda b: op(ms.Tensor(x), b, ms.Tensor(qmax)).sum()  # noqa: E731
    np.testing.assert_allclose(ms.grad(f)(ms.Tensor(alpha)).asnumpy(), coef.sum(axis=(1, 2, 3)), rtol=1e-5, atol=1e-6)
    _, gd = Q.FakeLearnedScaleQuantPerChannelGrad(channel_axis=0)(ms.Tensor(np.ones_like(x)), ms.Tensor(x),
                                                                  ms.Tensor(alpha), ms.Tensor(qmax))
    np.testing.assert_allclose(gd.asnumpy(), coef.sum(axis=(1, 2, 3)), rtol=1e-5, atol=1e-6)
    delayed = Q.FakeLearnedScaleQuantPerLayer(quant_delay=2)
    args = (ms.Tensor(x), ms.Tensor([0.5]), ms.Tensor([3.0]))
    assert [np.array_equal(delayed(*args).asnumpy(), x) for _ in range(3)] == [True, True, False]
    grad_op = Q.FakeLearnedScaleQuantPerLayerGrad(quant_delay=1)
    first = grad_op(ms.Tensor(x), *args)
    assert np.array_equal(first[0].asnumpy(), x) and first[1].asnumpy().tolist() == [0.0]
    assert not np.array_equal(grad_op(ms.Tensor(x), *args)[0].asnumpy(), x)
    with pytest.raises(ValueError, match="alpha rank"):
        op(ms.Tensor(x), ms.Tensor(alpha[:3]), ms.Tensor(qmax))
    with pytest.raises(TypeError, match="quant_max"):
        op(ms.Tensor(x), ms.Tensor(alpha), ms.Tensor([127], ms.int32))
    with pytest.raises(ValueError, match="quant_delay"):
        Q.FakeLearnedScaleQuantPerLayer(quant_delay=-1)


def _bn_fold_inputs(n=4, c=3, hw=3):
    x = RNG.normal(1.0, 2.0, (n, c, hw, hw)).astype(np.float32)
    mean = ms.Parameter(ms.Tensor(RNG.normal(size=c).astype(np.float32)), name="mean")
    var = ms.Parameter(ms.Tensor(RNG.uniform(0.5, 2, c).astype(np.float32)), name="var")
    return x, mean, var


def test_batch_norm_fold_statistics_update_and_freeze():
    x, mean, var = _bn_fold_inputs()
    m0, v0 = mean.asnumpy().copy(), var.asnumpy().copy()
    op = Q.BatchNormFold(momentum=0.9, epsilon=1e-5, freeze_bn=5)
    bm, bs, rm, rs = (o.asnumpy() for o in op(ms.Tensor(x), mean, var, ms.Tensor([2], ms.int32)))
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(bm, x64.mean((0, 2, 3)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bs, np.sqrt(x64.var((0, 2, 3)) + 1e-5), rtol=1e-5)
    np.testing.assert_allclose(rm, m0, rtol=0, atol=0)                  # before the update
    np.testing.assert_allclose(rs, np.sqrt(v0 + 1e-5), rtol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), 0.9 * m0 + 0.1 * x64.mean((0, 2, 3)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), 0.9 * v0 + 0.1 * x64.var((0, 2, 3), ddof=1), rtol=1e-5)
    m1 = mean.asnumpy().copy()
    frozen = [o.asnumpy() for o in op(ms.Tensor(x), mean, var, ms.Tensor([5], ms.int32))]
    assert frozen[0].tolist() == [0.0] * 3 and frozen[1].tolist() == [1.0] * 3
    assert np.array_equal(mean.asnumpy(), m1)                           # no update once frozen
    infer = Q.BatchNormFold(is_training=False, freeze_bn=5)(ms.Tensor(x), mean, var, ms.Tensor([0], ms.int32))
    assert infer[0].asnumpy().tolist() == [0.0] * 3 and np.array_equal(mean.asnumpy(), m1)
    with pytest.raises(ValueError, match="global step shape len"):
        op(ms.Tensor(x), mean, var, ms.Tensor(0, ms.int32))
    with pytest.raises(ValueError, match="input channel"):
        op(ms.Tensor(x[:, :2]), mean, var, ms.Tensor([0], ms.int32))
    with pytest.raises(TypeError, match="global_step"):
        op(ms.Tensor(x), mean, var, ms.Tensor([0.0]))


def test_batch_norm_fold_gradient():
    x, mean, var = _bn_fold_inputs(n=2, c=2, hw=2)
    w_mean, w_std = RNG.normal(size=2), RNG.normal(size=2)
    op = Q.BatchNormFold(freeze_bn=10)
    step = ms.Tensor([0], ms.int32)

    def loss(t):
        bm, bs, _, _ = op(t, mean, var, step)
        return (bm * ms.Tensor(w_mean, ms.float32)).sum() + (bs * ms.Tensor(w_std, ms.float32)).sum()

    dx = ms.grad(loss)(ms.Tensor(x)).asnumpy()

    def ref(x64):
        return (x64.mean((0, 2, 3)) * w_mean).sum() + (np.sqrt(x64.var((0, 2, 3)) + 1e-5) * w_std).sum()

    np.testing.assert_allclose(dx, central_difference(ref, x.astype(np.float64)), rtol=1e-4, atol=1e-5)
    bm, bs, _, _ = op(ms.Tensor(x), mean, var, step)
    grad_op = Q.BatchNormFoldGrad(freeze_bn=10)
    gdx = grad_op(ms.Tensor(w_mean, ms.float32), ms.Tensor(w_std, ms.float32), ms.Tensor(x), bm, bs, step)
    np.testing.assert_allclose(gdx.asnumpy(), dx, rtol=1e-5, atol=1e-7)
    frozen = grad_op(ms.Tensor(w_mean, ms.float32), ms.Tensor(w_std, ms.float32), ms.Tensor(x), bm, bs,
                     ms.Tensor([10], ms.int32))
    assert not frozen.asnumpy().any()


def test_correction_mul_and_gradient():
    w = RNG.normal(size=(3, 2, 2, 2)).astype(np.float32)
    bstd, rstd = np.array([1.5, 0.5, 2.0], np.float32), np.array([1.2, 0.4, 3.0], np.float32)
    op = Q.CorrectionMul(channel_axis=0)
    out = op(ms.Tensor(w), ms.Tensor(bstd), ms.Tensor(rstd)).asnumpy()
    np.testing.assert_allclose(out, w * (bstd / rstd).reshape(3, 1, 1, 1), rtol=1e-6)
    dout = RNG.normal(size=w.shape).astype(np.float32)
    f = lambda a, b, c: (op(a, b, c) * ms.Tensor(dout)).sum()  # noqa: E731
    dw, db, dr = ms.grad(f, grad_position=(0, 1, 2))(ms.Tensor(w), ms.Tensor(bstd), ms.Tensor(rstd))
    ref_db = (dout * w).sum(axis=(1, 2, 3)) / rstd
    np.testing.assert_allclose(dw.asnumpy(), dout * (bstd / rstd).reshape(3, 1, 1, 1), rtol=1e-6)
    np.testing.assert_allclose(db.asnumpy(), ref_db, rtol=1e-5)
    assert not dr.asnumpy().any()                                       # MindSpore's bprop: none for running_std
    gdw, gdb = Q.CorrectionMulGrad(0)(ms.Tensor(dout), ms.Tensor(w), ms.Tensor(bstd), ms.Tensor(rstd))
    np.testing.assert_allclose(gdw.asnumpy(), dw.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(gdb.asnumpy(), ref_db, rtol=1e-5)
    reduced = Q.CorrectionMulGradReduce(0)(ms.Tensor(dout * w / rstd.reshape(3, 1, 1, 1))).asnumpy()
    np.testing.assert_allclose(reduced, ref_db, rtol=1e-5)
    with pytest.raises(ValueError, match="x_shape channel size"):
        op(ms.Tensor(w[:2]), ms.Tensor(bstd), ms.Tensor(rstd))


@pytest.mark.parametrize("step", [3, 7])
def test_batch_norm_fold2_values_and_gradients(step):
    x = RNG.normal(size=(2, 3, 2, 2)).astype(np.float32)
    beta, gamma, bstd, bmean, rstd, rmean = (RNG.uniform(0.5, 1.5, 3).astype(np.float32) for _ in range(6))
    op = Q.BatchNormFold2(freeze_bn=5)
    gs = ms.Tensor([step], ms.int32)
    c = lambda v: v.reshape(1, 3, 1, 1)  # noqa: E731
    vecs = [ms.Tensor(v) for v in (beta, gamma, bstd, bmean, rstd, rmean)]
    out = op(ms.Tensor(x), *vecs, gs).asnumpy()
    if step < 5:
        ref = x * c(rstd / bstd) + c(beta - gamma * bmean / bstd)
    else:
        ref = x + c(beta - gamma * rmean / rstd)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    dout = RNG.normal(size=x.shape).astype(np.float32)
    f = lambda *a: (op(*a, gs) * ms.Tensor(dout)).sum()  # noqa: E731
    grads = ms.grad(f, grad_position=(0, 1, 2, 3, 4, 5, 6))(ms.Tensor(x), *vecs)
    d_x, d_beta, d_gamma, d_bstd, d_bmean, d_rstd, d_rmean = (g.asnumpy() for g in grads)
    expected = Q.BatchNormFold2Grad(freeze_bn=5)(ms.Tensor(dout), ms.Tensor(x), vecs[1], vecs[2], vecs[3], vecs[4],
                                                 vecs[5], gs)
    for got, want in zip((d_bstd, d_bmean, d_beta, d_gamma, d_x), expected):
        np.testing.assert_allclose(got, want.asnumpy(), rtol=1e-5, atol=1e-6)
    assert not d_rstd.any() and not d_rmean.any()
    np.testing.assert_allclose(d_beta, dout.sum(axis=(0, 2, 3)), rtol=1e-5)
    if step < 5:                    # the batch-std gradient against float64 finite differences
        def ref_loss(bs):
            return ((x * c(rstd / bs) + c(beta - gamma * bmean / bs)) * dout).sum()
        np.testing.assert_allclose(d_bstd, central_difference(ref_loss, bstd.astype(np.float64)), rtol=1e-4)
    else:
        assert not d_bstd.any() and not d_bmean.any()


def test_folded_cell_runs_the_same_in_graph_mode():
    class Fold(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.mean = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="mean", requires_grad=False)
            self.var = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="var", requires_grad=False)
            self.beta = ms.Parameter(ms.Tensor(np.full(3, 0.1, np.float32)), name="beta")
            self.gamma = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="gamma")
            self.alpha = ms.Parameter(ms.Tensor(np.array([2.0], np.float32)), name="alpha")
            self.fold, self.fold2 = Q.BatchNormFold(freeze_bn=100), Q.BatchNormFold2(freeze_bn=100)
            self.lsq = Q.FakeLearnedScaleQuantPerLayer()
            self.step, self.qmax = ms.Tensor([0], ms.int32), ms.Tensor([127.0])

        def construct(self, x):
            bm, bs, rm, rs = self.fold(x, self.mean, self.var, self.step)
            return self.lsq(self.fold2(x, self.beta, self.gamma, bs, bm, rs, rm, self.step), self.alpha, self.qmax)

    x = RNG.normal(size=(4, 3, 2, 2)).astype(np.float32)
    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            net = Fold()
            out = net(ms.Tensor(x)).asnumpy()
            grads = ms.grad(net, grad_position=None, weights=net.trainable_params())(ms.Tensor(x))
            results.append((out, net.mean.asnumpy(), [g.asnumpy() for g in grads]))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    (out, mean, grads), (g_out, g_mean, g_grads) = results
    # the batch is normalized per channel (gamma 1, beta 0.1), then quantized in steps of 2 / 127
    norm = (x - x.mean((0, 2, 3), keepdims=True)) / np.sqrt(x.var((0, 2, 3), keepdims=True) + 1e-5) + 0.1
    np.testing.assert_allclose(out, np.floor(np.clip(norm / 2, -1, 1) * 127 + 0.5) / 127 * 2, rtol=0, atol=1e-5)
    np.testing.assert_allclose(g_out, out, rtol=0, atol=1e-6)
    np.testing.assert_allclose(g_mean, mean, rtol=1e-6)     # two updates each: the call and the gradient's
    np.testing.assert_allclose(mean, 0.19 * x.mean((0, 2, 3)), rtol=1e-4, atol=1e-6)
    for a, b in zip(grads, g_grads):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert np.abs(grads[2]).sum() > 0                        # alpha learns
