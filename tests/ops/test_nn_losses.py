"""nn family, losses: every reduction mode vs numpy, gradients (targets and weights included), bad input."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, OpSpec, ints, make_error_tests, make_tests
import _nn_ref as R

REDUCTIONS = ("mean", "sum", "none")


def _probs(r, s):
    return r.uniform(0.05, 0.95, s)


def _pm1(r, s):
    return r.choice([-1.0, 1.0], s)


def _away(r, s):
    """Standard normal values, kept 0.05 away from 0 (hinge kinks of |x - y| with y = 0)."""
    v = r.standard_normal(s)
    return np.where(np.abs(v) < 0.05, v + 0.1, v)


def _rows_of_probs(r, s):
    p = r.uniform(0.1, 1.0, s)
    return p / p.sum(1, keepdims=True)


def _ignore_some(r, s):
    t = r.randint(0, 3, s).astype(np.int64)
    t.reshape(-1)[1] = -100
    return t


_CTC_NP = (np.array([[1, 2, 2], [3, 1, 0]], np.int32), np.array([6, 5], np.int32), np.array([3, 2], np.int32))
_CTC = tuple(ms.Tensor(a) for a in _CTC_NP)
_CTC_B3_NP = (np.array([[1, 0], [2, 2]], np.int64), np.array([5, 6], np.int64), np.array([2, 2], np.int64))
_CTC_B3 = tuple(ms.Tensor(a) for a in _CTC_B3_NP)
_GREEDY_LEN = np.array([5, 3, 4], np.int32)


def _greedy_logits(r, s):
    """Logits whose best class repeats and is often the blank (the last class)."""
    best = r.choice(s[2], s[:2])
    for t in range(1, s[0]):
        best[t] = np.where(r.uniform(size=s[1]) < 0.4, best[t - 1], best[t])
    return r.uniform(0, 0.5, s) + np.eye(s[2])[best]


def _np_ctc_greedy(x, lengths, merge=True):
    """(indices (K, 2), values (K,), dense shape (2,), -sum of best logits (N, 1)); the blank is the last class."""
    blank, idx, vals, longest = x.shape[2] - 1, [], [], 0
    for b, n in enumerate(lengths):
        path, out = x[:n, b].argmax(1), []
        for t, c in enumerate(path):
            if c != blank and not (merge and t > 0 and path[t - 1] == c):
                out.append(c)
        idx += [[b, i] for i in range(len(out))]
        vals += out
        longest = max(longest, len(out))
    logp = np.array([[-x[:n, b].max(1).sum()] for b, n in enumerate(lengths)])
    return [np.array(idx).reshape(-1, 2), np.array(vals), np.array([x.shape[1], longest]), logp]


SPECS = []
for red in REDUCTIONS:
    SPECS += [
        OpSpec(f"cross_entropy_{red}", lambda x, t, red=red: ops.cross_entropy(x, t, reduction=red),
               lambda x, t, red=red: R.nll(R.log_softmax(x, 1), t, reduction=red), shapes=[(4, 3), (4,)],
               gen=[None, ints(0, 3)], grad2=True),
        OpSpec(f"cross_entropy_weight_ignore_{red}",
               lambda x, t, w, red=red: ops.cross_entropy(x, t, w, reduction=red),
               lambda x, t, w, red=red: R.nll(R.log_softmax(x, 1), t, w, reduction=red),
               shapes=[(5, 3), (5,), (3,)], gen=[None, _ignore_some, _probs], grad_inputs=(0,), grad2=True),
        OpSpec(f"cross_entropy_smoothing_{red}",
               lambda x, t, w, red=red: ops.cross_entropy(x, t, w, reduction=red, label_smoothing=0.2),
               lambda x, t, w, red=red: R.nll(R.log_softmax(x, 1), t, w, reduction=red, label_smoothing=0.2),
               shapes=[(5, 3), (5,), (3,)], gen=[None, _ignore_some, _probs], grad_inputs=(0,)),
        OpSpec(f"cross_entropy_probs_{red}", lambda x, p, red=red: ops.cross_entropy(x, p, reduction=red),
               lambda x, p, red=red: R.cross_entropy_probs(x, p, reduction=red), shapes=[(4, 3), (4, 3)],
               gen=[None, _rows_of_probs], grad2=True),
        OpSpec(f"cross_entropy_probs_weight_smoothing_{red}",
               lambda x, p, w, red=red: ops.cross_entropy(x, p, w, reduction=red, label_smoothing=0.1),
               lambda x, p, w, red=red: R.cross_entropy_probs(x, p, w, red, 0.1), shapes=[(2, 3, 4), (2, 3, 4), (3,)],
               gen=[None, _probs, _probs], grad_inputs=(0, 1)),
        OpSpec(f"cross_entropy_spatial_{red}", lambda x, t, red=red: ops.cross_entropy(x, t, reduction=red),
               lambda x, t, red=red: R.nll(R.log_softmax(x, 1), t, reduction=red), shapes=[(2, 3, 2, 2), (2, 2, 2)],
               gen=[None, ints(0, 3)]),
        OpSpec(f"nll_loss_{red}", lambda x, t, w, red=red: ops.nll_loss(x, t, w, reduction=red),
               lambda x, t, w, red=red: R.nll(x, t, w, reduction=red), shapes=[(2, 3, 4), (2, 4), (3,)],
               gen=[None, ints(0, 3), _probs], grad_inputs=(0,), grad2=True),
        OpSpec(f"binary_cross_entropy_{red}", lambda p, y, w, red=red: ops.binary_cross_entropy(p, y, w, red),
               lambda p, y, w, red=red: R.bce(p, y, w, red), shapes=[(4, 3), (4, 3), (4, 3)],
               gen=[_probs, _probs, _probs], grad2=True),
        OpSpec(f"bce_with_logits_{red}",
               lambda x, y, w, pw, red=red: ops.binary_cross_entropy_with_logits(x, y, w, pw, red),
               lambda x, y, w, pw, red=red: R.bce_logits(x, y, w, pw, red), shapes=[(4, 3), (4, 3), (3,), (3,)],
               gen=[None, _probs, _probs, _probs], grad2=True),
        OpSpec(f"bce_with_logits_plain_{red}",
               lambda x, y, red=red: ops.binary_cross_entropy_with_logits(x, y, reduction=red),
               lambda x, y, red=red: R.bce_logits(x, y, reduction=red), shapes=[(4, 3), (4, 3)],
               gen=[None, _probs], grad2=True),
        OpSpec(f"mse_loss_{red}", lambda x, y, red=red: ops.mse_loss(x, y, red),
               lambda x, y, red=red: R.reduce((x - y) ** 2, red), shapes=[(4, 3), (3,)], grad2=True),
        OpSpec(f"l1_loss_{red}", lambda x, y, red=red: ops.l1_loss(x, y, red),
               lambda x, y, red=red: R.reduce(np.abs(x - y), red), shapes=[(4, 3), (4, 3)], gen=[_away, None],
               grad2=True),
        OpSpec(f"smooth_l1_loss_{red}", lambda x, y, red=red: ops.smooth_l1_loss(x, y, 0.5, red),
               lambda x, y, red=red: R.smooth_l1(x, y, 0.5, red), shapes=[(4, 3), (4, 3)], grad2=True),
        OpSpec(f"huber_loss_{red}", lambda x, y, red=red: ops.huber_loss(x, y, red, 0.7),
               lambda x, y, red=red: R.huber(x, y, 0.7, red), shapes=[(4, 3), (4, 3)], grad2=True),
        # the labels get no gradient (MindSpore's KLDivLoss bprop; tests/ops/test_grad_loss_rules.py)
        OpSpec(f"kl_div_{red}", lambda x, y, red=red: ops.kl_div(x, y, red),
               lambda x, y, red=red: R.kl_div(x, y, red), shapes=[(4, 3), (4, 3)], gen=[None, _probs], grad2=True,
               grad_inputs=(0,)),
        OpSpec(f"cosine_embedding_loss_{red}",
               lambda a, b, t, red=red: ops.cosine_embedding_loss(a, b, t, 0.2, red),
               lambda a, b, t, red=red: R.reduce(_cosine_embedding(a, b, t, 0.2), red),
               shapes=[(4, 3), (4, 3), (4,)], gen=[None, None, _pm1], grad_inputs=(0, 1), grad2=True),
        OpSpec(f"margin_ranking_loss_{red}", lambda a, b, t, red=red: ops.margin_ranking_loss(a, b, t, 0.3, red),
               lambda a, b, t, red=red: R.reduce(np.maximum(-t * (a - b) + 0.3, 0), red),
               shapes=[(4, 3), (4, 3), (4, 3)], gen=[None, None, _pm1], grad_inputs=(0, 1)),
        OpSpec(f"multi_margin_loss_{red}", lambda x, t, red=red: ops.multi_margin_loss(x, t, reduction=red),
               lambda x, t, red=red: R.reduce(_multi_margin(x, t, 1, 1.0, None), red), shapes=[(4, 3), (4,)],
               gen=[None, ints(0, 3)]),
        OpSpec(f"multi_margin_loss_p2_weight_{red}",
               lambda x, t, w, red=red: ops.multi_margin_loss(x, t, 2, 2, w, red),
               lambda x, t, w, red=red: R.reduce(_multi_margin(x, t, 2, 2.0, w), red),
               shapes=[(4, 3), (4,), (3,)], gen=[None, ints(0, 3), _probs], grad_inputs=(0,), grad2=True),
        OpSpec(f"multilabel_margin_loss_{red}", lambda x, t, red=red: ops.multilabel_margin_loss(x, t, red),
               lambda x, t, red=red: R.reduce(_multilabel_margin(x, t), red), shapes=[(4, 3), (4, 3)],
               gen=[None, lambda r, s: np.array([[0, 1, -1], [2, -1, 0], [1, 2, 0], [-1, 0, 0]], np.int32)]),
        OpSpec(f"multilabel_soft_margin_loss_{red}",
               lambda x, y, w, red=red: ops.multilabel_soft_margin_loss(x, y, w, red),
               lambda x, y, w, red=red: R.reduce(((y * R.softplus(-x) + (1 - y) * R.softplus(x)) * w).mean(-1), red),
               shapes=[(4, 3), (4, 3), (3,)], gen=[None, _probs, _probs], grad2=True),
        OpSpec(f"triplet_margin_loss_{red}",
               lambda a, p, n, red=red: ops.triplet_margin_loss(a, p, n, reduction=red),
               lambda a, p, n, red=red: R.reduce(np.maximum(_pd(a, p, 2) - _pd(a, n, 2) + 1.0, 0), red),
               shapes=[(4, 5), (4, 5), (4, 5)], grad2=True),
        OpSpec(f"gaussian_nll_loss_{red}", lambda x, y, v, red=red: ops.gaussian_nll_loss(x, y, v, reduction=red),
               lambda x, y, v, red=red: R.reduce(0.5 * (np.log(v) + (x - y) ** 2 / v), red),
               shapes=[(4, 3), (4, 3), (4, 3)], gen=[None, None, _probs], grad2=True),
        OpSpec(f"soft_margin_loss_{red}", lambda x, y, red=red: ops.soft_margin_loss(x, y, red),
               lambda x, y, red=red: R.reduce(np.log1p(np.exp(-y * x)), red), shapes=[(4, 3), (4, 3)],
               gen=[None, _pm1], grad_inputs=(0,), grad2=True),
        OpSpec(f"hinge_embedding_loss_{red}", lambda x, y, red=red: ops.hinge_embedding_loss(x, y, 0.5, red),
               lambda x, y, red=red: R.reduce(np.where(y > 0, x, np.maximum(0.5 - x, 0)), red),
               shapes=[(4, 3), (4, 3)], gen=[_away, _pm1], grad_inputs=(0,)),
    ]

SPECS += [
    OpSpec("cross_entropy_1d", ops.cross_entropy, lambda x, t: -R.log_softmax(x)[t], shapes=[(5,), ()],
           gen=[None, lambda r, s: np.array(3, np.int64)]),
    OpSpec("kl_div_batchmean", lambda x, y: ops.kl_div(x, y, 'batchmean'), lambda x, y: R.kl_div(x, y, 'batchmean'),
           shapes=[(4, 3), (4, 3)], gen=[None, _probs], grad_inputs=(0,)),
    OpSpec("kl_div_zero_labels", lambda x, y: ops.kl_div(x, y, 'none'), lambda x, y: R.kl_div(x, y, 'none'),
           shapes=[(4, 3), (4, 3)], gen=[None, lambda r, s: np.where(r.rand(*s) > 0.5, r.rand(*s), 0.0)],
           grad_inputs=(0,)),
    OpSpec("smooth_l1_beta0_is_l1", lambda x, y: ops.smooth_l1_loss(x, y, 0.0, 'sum'),
           lambda x, y: np.abs(x - y).sum(), shapes=[(4, 3), (4, 3)], gen=[_away, None]),
    OpSpec("gaussian_nll_full_var_per_row", lambda x, y, v: ops.gaussian_nll_loss(x, y, v, True),
           lambda x, y, v: (0.5 * (np.log(v[:, None]) + (x - y) ** 2 / v[:, None]) + 0.5 * np.log(2 * np.pi)).mean(),
           shapes=[(4, 3), (4, 3), (4,)], gen=[None, None, _probs]),
    OpSpec("triplet_margin_loss_p1_swap", lambda a, p, n: ops.triplet_margin_loss(a, p, n, 0.5, 1, 1e-6, True, 'none'),
           lambda a, p, n: np.maximum(_pd(a, p, 1) - np.minimum(_pd(a, n, 1), _pd(p, n, 1)) + 0.5, 0),
           shapes=[(4, 5), (4, 5), (4, 5)]),
    # fused softmax cross entropy (class API): (loss, softmax - labels); its gradient drops the cotangent of the
    # second output, as MindSpore's does, so the gradient is checked on the loss alone
    OpSpec("SoftmaxCrossEntropyWithLogits", lambda x, y: ops.SoftmaxCrossEntropyWithLogits()(x, y),
           lambda x, y: [-(y * R.log_softmax(x, 1)).sum(1), R.softmax(x, 1) - y], shapes=[(4, 3), (4, 3)],
           gen=[None, _rows_of_probs], grad=False),
    # (the labels' gradient is zero, as MindSpore's rule gives: checked on the logits)
    OpSpec("SoftmaxCrossEntropyWithLogits_loss", lambda x, y: ops.SoftmaxCrossEntropyWithLogits()(x, y)[0],
           lambda x, y: -(y * R.log_softmax(x, 1)).sum(1), shapes=[(4, 3), (4, 3)], gen=[None, _rows_of_probs],
           grad2=True, grad_inputs=(0,)),
    # nn.SoftmaxCrossEntropyWithLogits(sparse=True) of 2-D logits, mean: MindSpore's fused sparse kernel
    OpSpec("nn_sparse_softmax_cross_entropy_mean",
           lambda x, t: ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(x, t),
           lambda x, t: R.nll(R.log_softmax(x, 1), t), shapes=[(5, 4), (5,)], gen=[None, ints(0, 4)], grad2=True),
    # CTC of log-softmax outputs (first-order gradient only: see test_ctc_loss_grad_first_order_and_second_order_raises)
    OpSpec("ctc_loss_none", lambda z: ops.ctc_loss(ops.log_softmax(z), *_CTC, reduction="none")[0],
           lambda z: R.ctc(R.log_softmax(z), *_CTC_NP), shapes=[(6, 2, 4)]),
    OpSpec("ctc_loss_mean_blank", lambda z: ops.ctc_loss(ops.log_softmax(z), *_CTC_B3, blank=3)[0],
           lambda z: (R.ctc(R.log_softmax(z), *_CTC_B3_NP, blank=3) / _CTC_B3_NP[2]).mean(), shapes=[(6, 2, 4)]),
    # integer or boolean results, declared without gradient
    OpSpec("ctc_greedy_decoder", lambda x: ops.ctc_greedy_decoder(x, ms.Tensor(_GREEDY_LEN)),
           lambda x: _np_ctc_greedy(x, _GREEDY_LEN), shapes=[(5, 3, 4)], gen=_greedy_logits, grad=False),
    OpSpec("ctc_greedy_decoder_no_merge", lambda x: ops.ctc_greedy_decoder(x, ms.Tensor(_GREEDY_LEN), False),
           lambda x: _np_ctc_greedy(x, _GREEDY_LEN, False), shapes=[(5, 3, 4)], gen=_greedy_logits, grad=False),
    OpSpec("intopk", lambda x, t: ops.intopk(x, t, 2), lambda x, t: (x > x[np.arange(len(t)), t][:, None]).sum(1) < 2,
           shapes=[(6, 4), (6,)], gen=[None, ints(0, 4, np.int32)], grad=False),
]


def _cosine_embedding(a, b, t, margin):
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return np.where(t == 1, 1 - cos, np.where(t == -1, np.maximum(cos - margin, 0), 0))


def _multi_margin(x, t, p, margin, w):
    n, c = x.shape
    out = np.zeros(n)
    for i in range(n):
        y = int(t[i])
        h = np.maximum(margin - x[i, y] + x[i], 0) ** p
        h[y] = 0
        out[i] = h.sum() / c * (1 if w is None else w[y])
    return out


def _multilabel_margin(x, t):
    n, c = x.shape
    out = np.zeros(n)
    for i in range(n):
        targets = []
        for v in t[i]:
            if v < 0:
                break
            targets.append(int(v))
        others = [k for k in range(c) if k not in targets]
        out[i] = sum(max(0.0, 1 - (x[i, j] - x[i, k])) for j in targets for k in others) / c
    return out


def _pd(a, b, p):
    return (np.abs(a - b + 1e-6) ** p).sum(-1) ** (1 / p)


test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


# ---------------------------------------------------------------- fused softmax cross entropy (class API)
def test_softmax_cross_entropy_with_logits_outputs_and_grads():
    r = np.random.RandomState(0)
    x, y = r.randn(4, 3), R.softmax(r.randn(4, 3))
    loss, backprop = ops.SoftmaxCrossEntropyWithLogits()(ms.Tensor(x), ms.Tensor(y))
    np.testing.assert_allclose(loss.asnumpy(), -(y * R.log_softmax(x)).sum(1), rtol=1e-10)
    np.testing.assert_allclose(backprop.asnumpy(), R.softmax(x) - y, rtol=1e-10)
    spec = OpSpec("sce", lambda a, b: ops.SoftmaxCrossEntropyWithLogits()(a, b)[0], shapes=[(4, 3), (4, 3)],
                  gen=[None, _rows_of_probs], grad_inputs=(0,))
    from _harness import check_grad, check_grad2
    check_grad(spec)
    check_grad2(spec)


def test_softmax_cross_entropy_label_gradient_is_zero():
    # MindSpore's rule gives the labels a zero gradient (the oracle: nn.ForwardValueAndGrad's example prints
    # zeros for them), in PyNative and in a graph
    x = ms.Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
    y = ms.Tensor(np.array([[0.2, 0.3, 0.5]], np.float32))
    for net in (lambda a, b: ops.SoftmaxCrossEntropyWithLogits()(a, b)[0].sum(),
                lambda a, b: ms.nn.SoftmaxCrossEntropyWithLogits()(a, b).sum()):
        for grad in (ms.grad(net, grad_position=(0, 1)), ms.jit(ms.grad(net, grad_position=(0, 1)))):
            dx, dy = grad(x, y)
            np.testing.assert_allclose(dx.asnumpy(), [[-0.10996943, -0.05527154, 0.16524094]], rtol=1e-5)
            np.testing.assert_array_equal(dy.asnumpy(), np.zeros((1, 3), np.float32))


def test_sparse_softmax_cross_entropy_loss_and_is_grad():
    r = np.random.RandomState(1)
    x, t = r.randn(5, 4), np.array([0, 3, 1, 1, 2])
    loss = ops.SparseSoftmaxCrossEntropyWithLogits()(ms.Tensor(x), ms.Tensor(t, ms.int32))
    np.testing.assert_allclose(loss.asnumpy(), R.nll(R.log_softmax(x, 1), t), rtol=1e-10)
    g = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(ms.Tensor(x), ms.Tensor(t, ms.int32))
    np.testing.assert_allclose(g.asnumpy(), (R.softmax(x) - np.eye(4)[t]) / 5, rtol=1e-10)


def test_nll_loss_class_returns_total_weight():
    x = ms.Tensor(np.log(np.full((3, 2), 0.5)))
    loss, total = ops.NLLLoss()(x, ms.Tensor([0, 1, 1], ms.int32), ms.Tensor([1.0, 3.0], ms.float64))
    np.testing.assert_allclose(loss.asnumpy(), np.log(2), rtol=1e-12)
    np.testing.assert_allclose(total.asnumpy(), 7.0)


def test_binary_cross_entropy_with_logits_positional_weights_of_compat_scripts():
    z = ms.Tensor(np.array([[-0.8, 1.2, 0.7], [-0.1, -0.4, 0.7]], np.float32))
    y = ms.Tensor(np.array([[0.3, 0.8, 1.2], [-0.6, 0.1, 2.2]], np.float32))
    out = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
    np.testing.assert_allclose(out.asnumpy(), 0.3463612, rtol=1e-6)   # MindSpore's documented example


def test_binary_cross_entropy_clamps_probabilities_like_mindspore():
    out = ops.binary_cross_entropy(ms.Tensor([0.0, 1.0]), ms.Tensor([1.0, 0.0]))
    np.testing.assert_allclose(out.asnumpy(), -np.log(1e-12), rtol=1e-6)


@pytest.mark.parametrize("n, dtype, mean, total", [
    # the last bit as MindSpore 2.10 CPU gives it (its kernel sums by folding halves, not left to right)
    (20, np.float32, 0.5077903866767883, 10.155807495117188),
    (7, np.float32, 0.3896179795265198, 2.727325916290283),
    (33, np.float16, 0.7158203125, 23.625),
])
def test_binary_cross_entropy_reduction_rounds_like_mindspore(n, dtype, mean, total):
    r = np.random.RandomState(n)
    p, y, w = (ms.Tensor(r.rand(n).astype(dtype)) for _ in range(3))
    assert ops.binary_cross_entropy(p, y, w, "mean").asnumpy().item() == mean
    assert ops.binary_cross_entropy(p, y, w, "sum").asnumpy().item() == total
    ref = -(y.asnumpy().astype(np.float64) * np.log(p.asnumpy()) + (1 - y.asnumpy()) * np.log(1 - p.asnumpy()))
    np.testing.assert_allclose(total, (ref * w.asnumpy()).sum(), rtol=1e-3)


# ---------------------------------------------------------------- CTC
def _ctc_inputs():
    r = np.random.RandomState(0)
    log_probs = R.log_softmax(r.randn(6, 2, 4), -1)
    targets = np.array([[1, 2, 2], [3, 1, 0]], np.int32)
    return log_probs, targets, np.array([6, 5], np.int32), np.array([3, 2], np.int32)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_ctc_loss_value(reduction):
    lp, t, il, tl = _ctc_inputs()
    loss, log_alpha = ops.ctc_loss(ms.Tensor(lp), ms.Tensor(t), ms.Tensor(il), ms.Tensor(tl), reduction=reduction)
    want = R.ctc(lp, t, il, tl)
    want = {"none": want, "sum": want.sum(), "mean": (want / tl).mean()}[reduction]
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-10)
    assert log_alpha.shape == (2, 6, 7)
    assert np.isneginf(log_alpha.asnumpy()[1, 5]).all()      # past the second input's length


def test_ctc_loss_v2_log_alpha_spans_the_padded_targets():
    # MindSpore 2.10 (oracle): log_alpha has 2 * targets.shape[1] + 1 states, -inf past each target's own
    lp = ms.Tensor(np.array([[[0.3, 0.6, 0.6]], [[0.9, 0.4, 0.2]]], np.float32))
    nll, log_alpha = ops.CTCLossV2(blank=0, reduction="none")(lp, ms.Tensor([[0, 1]], ms.int32),
                                                              ms.Tensor([2], ms.int32), ms.Tensor([1], ms.int32))
    np.testing.assert_allclose(nll.asnumpy(), [-2.2986124], rtol=1e-6)
    inf = -np.inf
    np.testing.assert_allclose(log_alpha.asnumpy(), [[[0.3, 0.3, inf, inf, inf], [1.2, 1.8931472, 1.2, inf, inf]]],
                               rtol=1e-6)
    # the gradient reads the same states
    g = ms.grad(lambda x: ops.CTCLossV2(blank=0)(x, ms.Tensor([[0, 1]], ms.int32), ms.Tensor([2], ms.int32),
                                                  ms.Tensor([1], ms.int32))[0].sum())(lp)
    assert g.shape == (2, 1, 3) and np.isfinite(g.asnumpy()).all()


def test_ctc_loss_grad_first_order_and_second_order_raises():
    lp, t, il, tl = _ctc_inputs()
    logits = np.random.RandomState(3).randn(6, 2, 4)

    def f(z):
        return ops.ctc_loss(ops.log_softmax(z), ms.Tensor(t), ms.Tensor(il), ms.Tensor(tl))[0]
    got = ms.grad(f)(ms.Tensor(logits)).asnumpy()
    eps, want = 1e-6, np.zeros_like(logits)
    for i in np.ndindex(logits.shape):
        zp, zm = logits.copy(), logits.copy()
        zp[i] += eps
        zm[i] -= eps
        want[i] = (f(ms.Tensor(zp)).asnumpy() - f(ms.Tensor(zm)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(got, want, atol=1e-6)
    with pytest.raises(RuntimeError, match="second-order"):
        ms.grad(lambda z: ms.grad(f)(z).sum())(ms.Tensor(logits))


ERRORS = [
    ErrorSpec("ce_bad_reduction", lambda: ops.cross_entropy(ops.ones((2, 3)), ms.Tensor([0, 1]), reduction='avg'),
              ValueError, "'reduction'"),
    ErrorSpec("ce_target_shape", lambda: ops.cross_entropy(ops.ones((4, 3)), ms.Tensor([0, 1])), ValueError,
              "For 'cross_entropy', the 'target' shape must be (4,)"),
    ErrorSpec("ce_prob_target_shape", lambda: ops.cross_entropy(ops.ones((4, 3)), ops.ones((4, 2))), ValueError,
              "For 'cross_entropy'"),
    ErrorSpec("ce_int_input", lambda: ops.cross_entropy(ms.Tensor([[1, 2]]), ms.Tensor([0])), TypeError,
              "For cross_entropy"),
    ErrorSpec("ce_smoothing", lambda: ops.cross_entropy(ops.ones((2, 3)), ms.Tensor([0, 1]), label_smoothing=1.5),
              ValueError, "'label_smoothing'"),
    ErrorSpec("ce_class_out_of_range", lambda: ops.cross_entropy(ops.ones((2, 3)), ms.Tensor([0, 5])), IndexError,
              "For 'NLLLoss'"),
    ErrorSpec("nll_float_target", lambda: ops.nll_loss(ops.ones((2, 3)), ops.ones(2)), TypeError, "For 'nll_loss'"),
    ErrorSpec("nll_weight_shape", lambda: ops.nll_loss(ops.ones((2, 3)), ms.Tensor([0, 1]), ops.ones(2)),
              ValueError, "'weight' shape"),
    ErrorSpec("bce_shapes", lambda: ops.binary_cross_entropy(ops.ones((2, 3)), ops.ones(3)), ValueError,
              "For 'BinaryCrossEntropy'"),
    ErrorSpec("bce_logits_reduction", lambda: ops.binary_cross_entropy_with_logits(ops.ones(2), ops.ones(2),
                                                                                    reduction='max'),
              ValueError, "For 'BCEWithLogitsLoss'"),
    ErrorSpec("bce_logits_int", lambda: ops.binary_cross_entropy_with_logits(ms.Tensor([1]), ms.Tensor([1])),
              TypeError, "For 'BCEWithLogitsLoss'"),
    ErrorSpec("bce_logits_weight_bcast", lambda: ops.binary_cross_entropy_with_logits(ops.ones((2, 3)),
                                                                                       ops.ones((2, 3)), ops.ones(2)),
              ValueError, "cannot be broadcast"),
    ErrorSpec("mse_reduction", lambda: ops.mse_loss(ops.ones(2), ops.ones(2), 'avg'), ValueError, "ops.mse_loss"),
    ErrorSpec("mse_shapes", lambda: ops.mse_loss(ops.ones(2), ops.ones(3)), ValueError, "For 'mse_loss'"),
    ErrorSpec("l1_reduction", lambda: ops.l1_loss(ops.ones(2), ops.ones(2), 'x'), ValueError, "For l1_loss"),
    ErrorSpec("smooth_l1_shapes", lambda: ops.smooth_l1_loss(ops.ones((2, 3)), ops.ones(3)), ValueError,
              "For 'SmoothL1Loss'"),
    ErrorSpec("huber_delta", lambda: ops.huber_loss(ops.ones(2), ops.ones(2), delta=0), ValueError,
              "For 'huber_loss'"),
    ErrorSpec("kl_reduction", lambda: ops.kl_div(ops.ones(2), ops.ones(2), 'avg'), ValueError,
              "['none', 'mean', 'batchmean', 'sum']"),
    ErrorSpec("cosine_margin", lambda: ops.cosine_embedding_loss(ops.ones((2, 3)), ops.ones((2, 3)), ops.ones(2), 2.0),
              ValueError, "'margin' should be in [-1, 1]"),
    ErrorSpec("cosine_target_shape", lambda: ops.cosine_embedding_loss(ops.ones((2, 3)), ops.ones((2, 3)),
                                                                        ops.ones(3)),
              ValueError, "the shape of 'target'"),
    ErrorSpec("margin_ranking_dtype", lambda: ops.margin_ranking_loss(ops.ones(2), ops.ones(2, ms.float64),
                                                                       ops.ones(2)),
              TypeError, "For 'margin_ranking_loss'"),
    ErrorSpec("multi_margin_margin_type", lambda: ops.multi_margin_loss(ops.ones((2, 3)), ms.Tensor([0, 1]),
                                                                         margin=1.5),
              TypeError, "'margin' must be int"),
    ErrorSpec("multi_margin_p", lambda: ops.multi_margin_loss(ops.ones((2, 3)), ms.Tensor([0, 1]), p=3), ValueError,
              "'p' must be 1 or 2"),
    ErrorSpec("multilabel_target_dtype", lambda: ops.multilabel_margin_loss(ops.ones((2, 3)), ops.ones((2, 3))),
              TypeError, "For 'MultilabelMarginLoss'"),
    ErrorSpec("triplet_shapes", lambda: ops.triplet_margin_loss(ops.ones((2, 3)), ops.ones((2, 3)), ops.ones((2, 4))),
              ValueError, "For 'TripletMarginLoss'"),
    ErrorSpec("gaussian_eps", lambda: ops.gaussian_nll_loss(ops.ones(2), ops.ones(2), ops.ones(2), eps=0.0),
              ValueError, "'eps' must be a positive float"),
    ErrorSpec("hinge_reduction", lambda: ops.hinge_embedding_loss(ops.ones(2), ops.ones(2), reduction='x'),
              ValueError, "For 'HingeEmbeddingLoss'"),
    ErrorSpec("ctc_reduction", lambda: ops.ctc_loss(ops.ones((3, 1, 2)), ms.Tensor([[1]]), ms.Tensor([3]),
                                                    ms.Tensor([1]), reduction='x'), ValueError, "For 'ctc_loss'"),
    ErrorSpec("ctc_float_targets", lambda: ops.ctc_loss(ops.ones((3, 1, 2)), ops.ones((1, 1)), ms.Tensor([3]),
                                                        ms.Tensor([1])), TypeError, "'targets' must be an int"),
    ErrorSpec("sce_shapes", lambda: ops.SoftmaxCrossEntropyWithLogits()(ops.ones((2, 3)), ops.ones((2, 2))),
              ValueError, "For 'SoftmaxCrossEntropyWithLogits'"),
]
test_bad_input = make_error_tests(ERRORS)


def test_kl_div_is_zero_where_labels_are_not_positive():
    # MindSpore's KLDivLoss: y * (log y - x) where y > 0, else 0 (negative labels included)
    x = np.log(np.array([[0.3, 0.7], [0.5, 0.5]], np.float32))
    y = np.array([[-1, 1], [1, -1]], np.float32)
    out = ops.KLDivLoss("none")(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    np.testing.assert_allclose(out, [[0, -np.log(0.7)], [-np.log(0.5), 0]], rtol=1e-6)


def test_sparse_softmax_cross_entropy_with_logits_v2_loss_and_backprop():
    from mindseed.ops.operations.nn_ops import SparseSoftmaxCrossEntropyWithLogitsV2
    x = np.array([[2.0, 3.0, 1.0, 4.0, 5.0], [2.0, 1.0, 2.0, 4.0, 3.0]], np.float32)
    labels = np.array([0, 1], np.int32)
    loss, backprop = SparseSoftmaxCrossEntropyWithLogitsV2()(ms.Tensor(x), ms.Tensor(labels))
    p = np.exp(x - x.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    np.testing.assert_allclose(loss.asnumpy(), -np.log(p[[0, 1], labels]), rtol=1e-6)
    np.testing.assert_allclose(backprop.asnumpy(), p - np.eye(5)[labels], rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="batch x classes"):
        SparseSoftmaxCrossEntropyWithLogitsV2()(ms.Tensor(x), ms.Tensor(labels[:1]))
    with pytest.raises(TypeError, match="'labels' must be a Tensor of int32 or int64"):
        SparseSoftmaxCrossEntropyWithLogitsV2()(ms.Tensor(x), ms.Tensor(labels.astype(np.float32)))
