"""Loss cells: values vs numpy for each reduction (the references were checked against MindSpore 2.10),
gradients vs finite differences, LossBase.get_loss, defaults and errors."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from _harness import ErrorSpec, make_error_tests
from _layer_checks import check_cell_grad

R = np.random.RandomState(0)
LG = R.standard_normal((3, 4))
LAB = np.array([1, 0, 3], np.int32)
PROB = np.abs(R.standard_normal((3, 4)))
PROB /= PROB.sum(1, keepdims=True)
P01 = R.uniform(0.05, 0.95, (3, 4))
Y01 = (R.uniform(size=(3, 4)) > 0.5).astype(np.float64)
PM1 = np.where(R.uniform(size=(3,)) > 0.5, 1.0, -1.0)
W4 = np.array([1.0, 2.0, 0.5, 1.0])
REDS = ("mean", "sum", "none")


def reduce(x, red):
    return x.mean() if red == "mean" else x.sum() if red == "sum" else x


def log_softmax(x, axis=1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def sig(x):
    return 1 / (1 + np.exp(-x))


def T(a):
    return ms.Tensor(np.asarray(a))


def check(cell, args, want, grad=True, grad_inputs=None, **tol):
    """Value in float64 and float32 (inputs cast), then gradients in float64."""
    got = cell(*[T(a) for a in args]).asnumpy()
    np.testing.assert_allclose(got, want, rtol=tol.get("rtol", 1e-9), atol=tol.get("atol", 1e-12))
    args32 = [a.astype(np.float32) if a.dtype == np.float64 else a for a in args]
    np.testing.assert_allclose(cell(*[T(a) for a in args32]).asnumpy(), want, rtol=1e-4, atol=1e-5)
    if grad:
        check_cell_grad(cell, list(args), grad_inputs=grad_inputs)


@pytest.mark.parametrize("red", REDS)
def test_elementwise_regression_losses(red):
    d = LG - PROB
    check(nn.L1Loss(red), [LG, PROB], reduce(np.abs(d), red), grad=red == "mean")
    check(nn.MAELoss(red), [LG, PROB], reduce(np.abs(d), red), grad=red == "mean")
    check(nn.MSELoss(red), [LG, PROB], reduce(d ** 2, red), grad=red == "mean")
    check(nn.SmoothL1Loss(0.5, red), [LG, PROB], reduce(np.where(np.abs(d) < 0.5, d * d, np.abs(d) - 0.25), red),
          grad=red == "mean")
    check(nn.HuberLoss(red, 0.7), [LG, PROB],
          reduce(np.where(np.abs(d) <= 0.7, 0.5 * d * d, 0.7 * (np.abs(d) - 0.35)), red), grad=red == "mean")
    check(nn.SoftMarginLoss(red), [LG, np.sign(PROB - 0.25)], reduce(np.log1p(np.exp(-np.sign(PROB - 0.25) * LG)), red),
          grad=red == "mean")


def test_rmse_and_defaults():
    check(nn.RMSELoss(), [LG, PROB], np.sqrt(((LG - PROB) ** 2).mean()))
    assert nn.SmoothL1Loss().reduction == "none" and nn.SoftmaxCrossEntropyWithLogits().reduction == "none"
    out = nn.SmoothL1Loss()(T(LG), T(PROB))
    assert out.shape == (3, 4)


def ce_ref(logits, target, weight=None, ignore=-100, red="mean", ls=0.0):
    c = logits.shape[1]
    w = np.ones(c) if weight is None else weight
    logp = log_softmax(logits)
    if target.dtype.kind == "f":
        t = target * (1 - ls) + ls / c
        loss = -(logp * t * w.reshape((1, -1) + (1,) * (logits.ndim - 2))).sum(1)
        return reduce(loss, red)
    moved = np.moveaxis(logp, 1, -1)
    valid = target != ignore
    safe = np.where(valid, target, 0)
    nll = -np.take_along_axis(moved, safe[..., None], -1)[..., 0] * w[safe] * valid
    smooth = -(moved * w).sum(-1) * valid
    loss = (1 - ls) * nll + ls / c * smooth
    if red == "none":
        return loss
    if red == "sum":
        return loss.sum()
    return loss.sum() / (w[safe] * valid).sum()


@pytest.mark.parametrize("red", REDS)
def test_cross_entropy(red):
    check(nn.CrossEntropyLoss(reduction=red), [LG, LAB], ce_ref(LG, LAB, red=red), grad=red == "mean")
    check(nn.CrossEntropyLoss(reduction=red), [LG, PROB], ce_ref(LG, PROB, red=red), grad=red == "mean")
    check(nn.CrossEntropyLoss(weight=T(W4.astype(np.float32)), ignore_index=0, label_smoothing=0.1, reduction=red),
          [LG, LAB], ce_ref(LG, LAB, W4, 0, red, 0.1), grad=False)
    check(nn.CrossEntropyLoss(weight=T(W4.astype(np.float32)), label_smoothing=0.2, reduction=red), [LG, PROB],
          ce_ref(LG, PROB, W4, red=red, ls=0.2), grad=False)
    x3, t3 = LG.reshape(3, 2, 2), np.array([[0, 1], [1, 1], [0, 0]], np.int32)
    check(nn.CrossEntropyLoss(reduction=red), [x3, t3], ce_ref(x3, t3, red=red), grad=red == "mean")


def test_cross_entropy_matches_mindspore_tutorial():
    logits = np.array([[1.2, -0.3, 0.4, 0.0], [-0.5, 2.0, 0.1, 0.3], [0.0, 0.0, 0.0, 3.0]], np.float32)
    idx = np.array([0, 1, 2], np.int32)
    assert abs(float(nn.CrossEntropyLoss()(T(logits), T(idx))) - 1.3886) < 1e-4
    assert abs(float(nn.CrossEntropyLoss(weight=T(np.array([1.0, 2.0, 0.5, 1.0], np.float32)))(
        T(logits), T(idx))) - 0.8408) < 1e-4
    assert abs(float(nn.CrossEntropyLoss(ignore_index=1)(T(logits), T(idx))) - 1.9095) < 1e-4
    assert abs(float(nn.CrossEntropyLoss(label_smoothing=0.2)(T(logits), T(idx))) - 1.4986) < 1e-4


@pytest.mark.parametrize("red", REDS)
def test_nll_and_softmax_cross_entropy(red):
    logp = log_softmax(LG)
    valid = LAB != 3
    loss = -logp[np.arange(3), LAB] * W4[LAB] * valid
    want = loss if red == "none" else loss.sum() if red == "sum" else loss.sum() / (W4[LAB] * valid).sum()
    check(nn.NLLLoss(weight=T(W4.astype(np.float32)), ignore_index=3, reduction=red), [logp, LAB], want, grad=False)
    check(nn.NLLLoss(reduction=red), [logp, LAB], reduce(-logp[np.arange(3), LAB], red), grad=red == "mean")
    check(nn.SoftmaxCrossEntropyWithLogits(True, red), [LG, LAB], reduce(-logp[np.arange(3), LAB], red),
          grad=red == "mean")
    # the labels get a zero gradient, as MindSpore's rule gives them (test_softmax_cross_entropy_label_gradient_is_zero)
    check(nn.SoftmaxCrossEntropyWithLogits(False, red), [LG, PROB], reduce(-(PROB * logp).sum(1), red),
          grad=red == "mean", grad_inputs=(0,))


@pytest.mark.parametrize("red", REDS)
def test_binary_losses(red):
    bce = -W4 * (Y01 * np.log(P01) + (1 - Y01) * np.log(1 - P01))
    check(nn.BCELoss(T(W4.astype(np.float32)), red), [P01, Y01], reduce(bce, red), grad_inputs=(0,), grad=red == "mean")
    pw = np.array([2.0, 0.5, 1.0, 1.0])
    bcel = -W4 * (pw * Y01 * np.log(sig(LG)) + (1 - Y01) * np.log(1 - sig(LG)))
    check(nn.BCEWithLogitsLoss(red, T(W4.astype(np.float32)), T(pw.astype(np.float32))), [LG, Y01],
          reduce(bcel, red), grad_inputs=(0,), grad=red == "mean")
    mlsm = -(W4 * (Y01 * np.log(sig(LG)) + (1 - Y01) * np.log(1 - sig(LG)))).mean(1)
    check(nn.MultiLabelSoftMarginLoss(T(W4.astype(np.float32)), red), [LG, Y01], reduce(mlsm, red),
          grad_inputs=(0,), grad=red == "mean")


def test_bce_with_logits_matches_mindspore_tutorial():
    x = np.array([[0.3, -1.2], [2.0, 0.1], [-0.4, -0.9]], np.float32)
    y = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], np.float32)
    assert abs(float(nn.BCEWithLogitsLoss()(T(x), T(y))) - 0.5572) < 1e-4
    pw = T(np.array([3.0, 0.5], np.float32))
    assert abs(float(nn.BCEWithLogitsLoss(pos_weight=pw)(T(x), T(y))) - 0.6272) < 1e-4


@pytest.mark.parametrize("red", REDS + ("batchmean",))
def test_kl_div(red):
    lp = np.log(P01)
    loss = PROB * (np.log(PROB) - lp)
    want = loss.sum() / 3 if red == "batchmean" else reduce(loss, red)
    check(nn.KLDivLoss(red), [lp, PROB], want, grad_inputs=(0,), grad=red == "mean")


@pytest.mark.parametrize("red", REDS)
def test_embedding_and_ranking_losses(red):
    cos = (LG * PROB).sum(1) / np.sqrt((LG ** 2).sum(1) * (PROB ** 2).sum(1))
    ce = np.where(PM1 == 1, 1 - cos, np.maximum(cos - 0.2, 0))
    check(nn.CosineEmbeddingLoss(0.2, red), [LG, PROB, PM1], reduce(ce, red), grad_inputs=(0, 1), grad=red == "mean")
    mr = np.maximum(0, -PM1 * (LG[:, 0] - LG[:, 1]) + 0.3)
    check(nn.MarginRankingLoss(0.3, red), [LG[:, 0].copy(), LG[:, 1].copy(), PM1], reduce(mr, red),
          grad_inputs=(0, 1), grad=red == "mean")
    hinge_y = np.sign(PROB - 0.25)
    he = np.where(hinge_y == 1, LG, np.maximum(0, 0.5 - LG))
    check(nn.HingeEmbeddingLoss(0.5, red), [LG, hinge_y], reduce(he, red), grad_inputs=(0,), grad=red == "mean")


@pytest.mark.parametrize("red", REDS)
def test_multi_margin(red):
    xy = LG[np.arange(3), LAB][:, None]
    h = np.maximum(0, 0.8 - xy + LG) ** 2
    h[np.arange(3), LAB] = 0
    loss = h.sum(1) / 4 * W4[LAB]
    check(nn.MultiMarginLoss(2, 0.8, red, T(W4)), [LG, LAB.astype(np.int64)], reduce(loss, red), grad=red == "mean")
    ml_t = np.array([[1, 2, -1, 0], [0, -1, 0, 0], [3, 0, -1, 1]], np.int64)
    loss = np.zeros(3)
    for i in range(3):
        tg = []
        for v in ml_t[i]:
            if v < 0:
                break
            tg.append(v)
        for j in tg:
            for k in set(range(4)) - set(tg):
                loss[i] += max(0, 1 - (LG[i, j] - LG[i, k])) / 4
    check(nn.MultilabelMarginLoss(red), [LG, ml_t], reduce(loss, red), grad=red == "mean")


def _pdist(a, b, p, eps=1e-6):
    return (np.abs(a - b + eps) ** p).sum(-1) ** (1 / p)


@pytest.mark.parametrize("red", REDS)
def test_triplet_losses(red):
    dp, dn, ds = _pdist(LG, PROB, 1), _pdist(LG, P01, 1), _pdist(PROB, P01, 1)
    want = np.maximum(dp - np.minimum(dn, ds) + 0.5, 0)
    check(nn.TripletMarginLoss(p=1, swap=True, reduction=red, margin=0.5), [LG, PROB, P01], reduce(want, red),
          grad=red == "mean")
    d2 = lambda a, b: np.sqrt(((a - b) ** 2).sum(1))  # noqa: E731
    want = np.maximum(d2(LG, PROB) - np.minimum(d2(LG, P01), d2(PROB, P01)) + 0.5, 0)
    check(nn.TripletMarginWithDistanceLoss(swap=True, reduction=red, margin=0.5), [LG, PROB, P01], reduce(want, red),
          grad=red == "mean")
    l1 = lambda a, b: np.abs(a - b).sum(1)  # noqa: E731
    custom = nn.TripletMarginWithDistanceLoss(lambda a, b: ms.ops.abs(a - b).sum(1), reduction=red)
    check(custom, [LG, PROB, P01], reduce(np.maximum(l1(LG, PROB) - l1(LG, P01) + 1.0, 0), red), grad=red == "mean")


@pytest.mark.parametrize("red", REDS)
def test_likelihood_losses(red):
    t = PROB * 3
    check(nn.PoissonNLLLoss(reduction=red), [LG, t], reduce(np.exp(LG) - t * LG, red), grad_inputs=(0,),
          grad=red == "mean")
    x = P01 * 3
    stirling = np.where(t > 1, t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t), 0)
    check(nn.PoissonNLLLoss(False, True, reduction=red), [x, t], reduce(x - t * np.log(x + 1e-8) + stirling, red),
          grad_inputs=(0,), grad=red == "mean")
    var = P01
    gl = 0.5 * (np.log(var) + (LG - PROB) ** 2 / var) + 0.5 * np.log(2 * np.pi)
    check(nn.GaussianNLLLoss(full=True, reduction=red), [LG, PROB, var], reduce(gl, red), grad=red == "mean")


@pytest.mark.parametrize("red", REDS)
def test_focal_loss(red):
    logp = log_softmax(LG)
    lp = logp[np.arange(3), LAB] * W4[LAB]
    p = np.exp(logp[np.arange(3), LAB])
    want = reduce(-(1 - p) ** 1.5 * lp, red)
    check(nn.FocalLoss(T(W4.astype(np.float32)), 1.5, red), [LG, LAB.reshape(3, 1)], want.reshape(np.shape(want)),
          grad=red == "mean")
    oh = np.eye(4)[LAB]
    per = -(1 - np.exp(logp)) ** 2 * oh * logp  # one-hot labels: averaged over the trailing (spatial) axis only
    want = reduce(per, red)
    check(nn.FocalLoss(gamma=2.0, reduction=red), [LG.reshape(3, 4, 1), oh.reshape(3, 4, 1)], want,
          grad_inputs=(0,), grad=red == "mean")


def test_focal_loss_matches_mindspore():
    np.random.seed(0)
    lg = np.random.randn(3, 4).astype(np.float32)
    lab = np.array([[1], [0], [3]], np.int32)
    assert abs(float(nn.FocalLoss(weight=T(np.array([1.0, 2, 3, 4], np.float32)))(T(lg), T(lab))) - 1.6447872) < 1e-5
    assert abs(float(nn.FocalLoss()(T(lg.reshape(3, 4, 1)), T(lab.reshape(3, 1, 1)))) - 0.7913778) < 1e-5


def test_dice_losses():
    inter, union = (P01 * Y01).sum(), (P01 ** 2).sum() + (Y01 ** 2).sum()
    check(nn.DiceLoss(), [P01, Y01], 1 - 2 * inter / (union + 1e-5), grad_inputs=(0,))
    w = np.array([[1.0, 2.0, 1.0, 0.5]])
    total = 0
    for i in range(4):
        if i == 1:
            continue
        a, b = sig(LG[:, i]), Y01[:, i]
        dice = 1 - 2 * (a * b).sum() / ((a * a).sum() + (b * b).sum() + 1e-5)
        total += dice * w[0, i]
    cell = nn.MultiClassDiceLoss(T(np.array([[1.0], [2.0], [1.0], [0.5]])), 1, "sigmoid")
    check(cell, [LG, Y01], total / 4, grad_inputs=(0,))


def _np_ctc(lp, target, blank=0):
    ext = [blank]
    for t in target:
        ext += [t, blank]
    steps, s = lp.shape[0], len(ext)
    alpha = np.full((steps, s), -np.inf)
    alpha[0, 0] = lp[0, blank]
    if s > 1:
        alpha[0, 1] = lp[0, ext[1]]
    for t in range(1, steps):
        for i in range(s):
            terms = [alpha[t - 1, i]]
            if i > 0:
                terms.append(alpha[t - 1, i - 1])
            if i > 1 and ext[i] != blank and ext[i] != ext[i - 2]:
                terms.append(alpha[t - 1, i - 2])
            alpha[t, i] = np.logaddexp.reduce(terms) + lp[t, ext[i]]
    return -np.logaddexp(alpha[-1, -1], alpha[-1, -2] if s > 1 else -np.inf)


@pytest.mark.parametrize("red", REDS)
def test_ctc_loss(red):
    lp = log_softmax(R.standard_normal((6, 2, 5)), 2)
    tg = np.array([[1, 2, 2], [3, 1, 0]], np.int32)
    in_len, tg_len = np.array([6, 5], np.int32), np.array([3, 2], np.int32)
    per = np.array([_np_ctc(lp[:in_len[b], b], tg[b, :tg_len[b]]) for b in range(2)])
    want = (per / tg_len).mean() if red == "mean" else per.sum() if red == "sum" else per
    got = nn.CTCLoss(0, red)(T(lp), T(tg), T(in_len), T(tg_len)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-9)
    single = nn.CTCLoss()(T(lp[:, 0]), T(tg[0]), T(in_len[:1]), T(tg_len[:1]))
    assert single.shape == ()
    np.testing.assert_allclose(single.asnumpy(), per[0] / 3, rtol=1e-9)


def test_sampled_softmax_loss_with_given_samples():
    w, b = R.standard_normal((7, 3)), R.standard_normal(7)
    h = R.standard_normal((2, 3))
    labels = np.array([[1], [4]], np.int32)
    sampled = np.array([0, 2, 5], np.int32)
    tec, sec = np.array([[0.5], [0.25]]), np.array([0.4, 0.4, 0.2])
    cell = nn.SampledSoftmaxLoss(3, 7, sampled_values=(T(sampled), T(tec), T(sec)))
    out = cell(T(w), T(b), T(labels), T(h)).asnumpy()
    true_logit = (h * w[labels[:, 0]]).sum(1, keepdims=True) + b[labels] - np.log(tec)
    samp = h @ w[sampled].T + b[sampled] - np.log(sec)
    logits = np.concatenate([true_logit, samp], 1)
    np.testing.assert_allclose(out, -log_softmax(logits)[:, 0], rtol=1e-9)


# ---------------------------------------------------------------- LossBase
class WeightedAbs(nn.LossBase):
    def construct(self, p, t, w):
        return self.get_loss(ms.ops.abs(p - t), w)


def test_lossbase_get_loss():
    p = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
    t = np.array([[1.0, -0.5, 0.0], [1.0, 2.25, -0.7]], np.float32)
    w = np.array([[2.0, 0.0, 1.0]], np.float32)
    np.testing.assert_allclose(float(WeightedAbs()(T(p), T(t), T(w))), 0.675, rtol=1e-6)
    np.testing.assert_allclose(float(WeightedAbs("sum")(T(p), T(t), T(w))), 4.05, rtol=1e-6)
    assert WeightedAbs("none")(T(p), T(t), T(w)).shape == (2, 3)
    base = nn.LossBase()
    x16 = T(p.astype(np.float16))
    out = base.get_loss(x16)
    assert out.dtype == ms.float16 and abs(float(out) - p.mean()) < 1e-3
    assert nn.LossBase("sum").get_loss(T(p), 2.0).asnumpy() == pytest.approx(2 * p.sum(), rel=1e-6)
    assert base.get_axis(T(p)) == (0, 1)
    g = ms.grad(lambda a: WeightedAbs()(a, T(t), T(w)))(T(p))
    np.testing.assert_allclose(g.asnumpy(), np.sign(p - t) * w / 6, rtol=1e-6)


def test_loss_in_training_step_grad():
    net = nn.Dense(3, 2)
    loss = nn.CrossEntropyLoss()
    x = T(R.standard_normal((4, 3)).astype(np.float32))
    y = T(np.array([0, 1, 1, 0], np.int32))
    grads = ms.grad(lambda a, b: loss(net(a), b), grad_position=None, weights=net.trainable_params())(x, y)
    assert [g.shape for g in grads] == [(2, 3), (2,)]


ERRORS = [
    ErrorSpec("reduction", lambda: nn.L1Loss(reduction="average"), ValueError,
              "For 'L1Loss', the 'reduction' must be in ['mean', 'sum', 'none'], but got average."),
    ErrorSpec("ce_smoothing", lambda: nn.CrossEntropyLoss(label_smoothing=1.5), ValueError, "label_smoothing"),
    ErrorSpec("ce_ignore_type", lambda: nn.CrossEntropyLoss(ignore_index=1.0), TypeError, "ignore_index"),
    ErrorSpec("ce_weight_type", lambda: nn.CrossEntropyLoss(weight=[1.0]), TypeError, "weight"),
    ErrorSpec("ce_label_dtype", lambda: nn.CrossEntropyLoss()(ms.ops.ones((2, 3)), ms.Tensor([1.0, 0.0])),
              TypeError, "For 'CrossEntropyLoss'"),
    ErrorSpec("ce_shapes", lambda: nn.CrossEntropyLoss()(ms.ops.ones((2, 3)), ms.ops.ones((2, 4))), ValueError,
              "For 'CrossEntropyLoss'"),
    ErrorSpec("ce_rank", lambda: nn.CrossEntropyLoss()(ms.ops.ones((2, 3)), ms.Tensor(np.zeros((2, 3, 1), np.int32))),
              ValueError, "rank"),
    ErrorSpec("mse_type", lambda: nn.MSELoss()([1.0], ms.ops.ones((1,))), TypeError, "For 'MSELoss'"),
    ErrorSpec("sce_sparse", lambda: nn.SoftmaxCrossEntropyWithLogits(sparse=1), TypeError, "sparse"),
    ErrorSpec("sce_label_dtype", lambda: nn.SoftmaxCrossEntropyWithLogits()(ms.ops.ones((2, 3)),
                                                                             ms.ops.ones((2, 3), ms.int32)),
              TypeError, "For primitive[SoftmaxCrossEntropyWithLogits], the input type must be same"),
    ErrorSpec("sce_float_labels",
              lambda: nn.SoftmaxCrossEntropyWithLogits(True)(ms.ops.ones((2, 3)), ms.ops.ones((2,))),
              TypeError, "'labels' must be an int"),
    ErrorSpec("bcel_param", lambda: nn.BCEWithLogitsLoss(weight=ms.Parameter(ms.ops.ones((2,)))), TypeError,
              "Parameter"),
    ErrorSpec("cosemb_margin", lambda: nn.CosineEmbeddingLoss(2.0), ValueError, "margin"),
    ErrorSpec("focal_gamma", lambda: nn.FocalLoss(gamma=2), TypeError, "gamma"),
    ErrorSpec("focal_rank", lambda: nn.FocalLoss()(ms.ops.ones((2, 3)), ms.ops.ones((2, 3, 1))), ValueError,
              "FocalLoss"),
    ErrorSpec("dice_shape", lambda: nn.DiceLoss()(ms.ops.ones((2, 3)), ms.ops.ones((2, 2))), ValueError,
              "DiceLoss"),
    ErrorSpec("dice_smooth", lambda: nn.DiceLoss(0.0), ValueError, "smooth"),
    ErrorSpec("mcdice_activation", lambda: nn.MultiClassDiceLoss(activation="gelu"), ValueError, "activation"),
    ErrorSpec("sampled_num", lambda: nn.SampledSoftmaxLoss(10, 5), ValueError, "num_sampled"),
    ErrorSpec("gaussian_eps", lambda: nn.GaussianNLLLoss(eps=0.0), ValueError, "eps"),
    ErrorSpec("hinge_margin", lambda: nn.HingeEmbeddingLoss("a"), TypeError, "margin"),
    ErrorSpec("multimargin_p", lambda: nn.MultiMarginLoss(p=3), ValueError, "'p'"),
    ErrorSpec("nll_ignore", lambda: nn.NLLLoss(ignore_index=None), TypeError, "ignore_index"),
    ErrorSpec("kl_reduction", lambda: nn.KLDivLoss("avg"), ValueError, "reduction"),
]
test_bad_input = make_error_tests(ERRORS)


@pytest.mark.parametrize("compiled", [False, True])
def test_sparse_softmax_ce_on_class_last_logits_and_its_kernels(compiled):
    # (batch, seq, classes) logits, class indices on the last axis: -log_softmax[label], its gradient
    # (softmax - onehot) / n; one NLLLoss kernel forward and one NLLLossGrad backward
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 7)).astype(np.float32)
    lab = rng.integers(0, 7, (2, 3)).astype(np.int32)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    fn = ms.value_and_grad(lambda a: loss(a, T(lab)))
    if compiled:
        fn = ms.jit(fn)
    val, g = fn(T(x))
    lp = x - np.log(np.exp(x.astype(np.float64)).sum(-1, keepdims=True))
    want = -np.take_along_axis(lp, lab[..., None].astype(np.int64), -1)[..., 0]
    np.testing.assert_allclose(val.asnumpy(), want.mean(), rtol=1e-6)
    np.testing.assert_allclose(g.asnumpy(), (np.exp(lp) - np.eye(7)[lab]) / lab.size, rtol=1e-5, atol=1e-7)
    if compiled:
        (graph,) = fn.graphs()
        names = [n.prim.name for n in graph.nodes]
        assert names.count("NLLLoss") == 1 and names.count("NLLLossGrad") == 1 and "GatherD" not in names


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_softmax_ce_mean_is_one_fused_kernel_each_way(compiled, dtype):
    # 2-D logits, reduction 'mean': MindSpore's SparseSoftmaxCrossEntropyWithLogits; the gradient (softmax -
    # onehot) / n * dloss is one kernel reading the kept log-probabilities
    rng = np.random.default_rng(6)
    x = rng.standard_normal((9, 5)).astype(dtype)
    lab = rng.integers(0, 5, 9).astype(np.int32)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    fn = ms.value_and_grad(lambda a: loss(a, T(lab)) * 3.0)
    if compiled:
        fn = ms.jit(fn)
    val, g = fn(T(x))
    lp = x - np.log(np.exp(x.astype(np.float64)).sum(-1, keepdims=True))
    want = -lp[np.arange(9), lab].mean() * 3.0
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(val.asnumpy(), want, rtol=tol)
    np.testing.assert_allclose(g.asnumpy(), 3.0 * (np.exp(lp) - np.eye(5)[lab]) / 9, rtol=10 * tol, atol=tol)
    if compiled:
        (graph,) = fn.graphs()
        names = [n.prim.name for n in graph.nodes]
        assert names.count("SparseSoftmaxCrossEntropyWithLogits") == 1
        assert names.count("SparseSoftmaxCrossEntropyWithLogitsGrad") == 1
        assert not {"NLLLoss", "NLLLossGrad", "LogSoftmaxGrad"} & set(names)


@pytest.mark.parametrize("compiled", [False, True])
def test_sparse_softmax_ce_second_order_matches_finite_differences(compiled):
    # the gradient primitive is differentiated through the logits (the kept log-probabilities are a function of
    # them): a Hessian-vector product and the derivative of the gradient w.r.t. the loss scale, float64
    rng = np.random.default_rng(7)
    x0 = rng.standard_normal((4, 6))
    lab = rng.integers(0, 6, 4).astype(np.int64)
    c = rng.standard_normal((4, 6))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def hvp(x, s):
        g = ms.grad(lambda a: loss(a, T(lab)) * s)(x)
        return (g * T(c)).sum()
    fn = ms.grad(hvp, (0, 1))
    if compiled:
        fn = ms.jit(fn)
    gx, gs = fn(T(x0), T(np.array(1.7)))

    def hvp_np(x, s):
        lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
        return float(((np.exp(lp) - np.eye(6)[lab]) / 4 * s * c).sum())
    eps = 1e-6
    fd = np.zeros_like(x0)
    for i in np.ndindex(*x0.shape):
        e = np.zeros_like(x0)
        e[i] = eps
        fd[i] = (hvp_np(x0 + e, 1.7) - hvp_np(x0 - e, 1.7)) / (2 * eps)
    np.testing.assert_allclose(gx.asnumpy(), fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gs.asnumpy(), (hvp_np(x0, 1.7 + eps) - hvp_np(x0, 1.7 - eps)) / (2 * eps), rtol=1e-6)


def test_sparse_softmax_ce_bad_label_names_the_primitive():
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    with pytest.raises(IndexError, match="SparseSoftmaxCrossEntropyWithLogits.*out of bounds"):
        loss(T(np.zeros((2, 3), np.float32)), T(np.array([0, 3], np.int32)))


def test_focal_loss_labels_with_fewer_rows_gather_from_the_first_logits():
    # MindSpore's FocalLoss gathers the class of each label row from the same row of the logits (GatherD), so labels
    # with fewer rows than the logits score only those first rows
    logits = np.array([[0.8, 1.4], [0.5, 0.9], [1.2, 0.9]], np.float32)
    log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    want = -(1 - np.exp(log_p[0, 1])) ** 2 * log_p[0, 1]
    out = nn.FocalLoss(gamma=2.0, reduction="none")(ms.Tensor(logits), ms.Tensor([[1]], ms.int32))
    assert out.shape == (1,)
    np.testing.assert_allclose(out.asnumpy(), [want], rtol=1e-5)
    out = nn.FocalLoss(gamma=2.0, reduction="mean")(ms.Tensor(logits), ms.Tensor([[1]], ms.int32))
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)


def test_softmax_cross_entropy_gradient_is_the_fused_kernels_softmax_minus_labels():
    """Non-sparse labels go through MindSpore's fused kernel, whose gradient is softmax - labels: the exact one for
    rows summing to 1, MindSpore's (not -sum(labels) * dlog_softmax) for soft labels that do not (oracle values)."""
    x = ms.Tensor(np.array([[1., 2., 3.], [0.5, -1., 2.]], np.float32))
    labels = ms.Tensor(np.array([[1., 1., 1.], [0.2, 0.3, 0.1]], np.float32))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction="none")
    np.testing.assert_allclose(loss(x, labels).asnumpy(), [4.222818, 1.3447869], rtol=1e-6)
    grad = ms.grad(lambda a: loss(a, labels).sum())(x).asnumpy()
    np.testing.assert_allclose(grad, [[-0.90996945, -0.75527155, -0.33475906], [-0.02470961, -0.26088744, 0.685597]],
                               rtol=1e-5, atol=1e-7)
    mean = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction="mean")
    np.testing.assert_allclose(ms.grad(lambda a: mean(a, labels))(x).asnumpy(), grad / 2, rtol=1e-5, atol=1e-7)
    # one-hot labels: the exact gradient
    onehot = ms.Tensor(np.eye(3, dtype=np.float32)[[2, 0]])
    sm = np.exp(x.asnumpy()) / np.exp(x.asnumpy()).sum(1, keepdims=True)
    np.testing.assert_allclose(ms.grad(lambda a: loss(a, onehot).sum())(x).asnumpy(), sm - onehot.asnumpy(),
                               rtol=1e-5, atol=1e-7)
