"""Loss primitives: fused kernels for the losses on the training hot path, each with a fused gradient.

* NLLLoss <-> NLLLossGrad: NLLLoss is linear in its input, so the gradient primitive's own bprop is
  NLLLoss again (any order).
* SparseSoftmaxCrossEntropyWithLogits (mean over rows) -> SparseSoftmaxCrossEntropyWithLogitsGrad, whose bprop
  is composed of softmax primitives (any order).
* SoftmaxCrossEntropyWithLogits <-> SoftmaxCrossEntropyWithLogitsGrad.
* Elementwise losses L = reduce(w * l(x, y)) (BCE, BCE with logits, MSE, L1, smooth L1, Huber, KL):
  G(dout, x, y, ...) = (dL/dx, dL/dy) is one kernel; G's bprop uses the second derivatives of l,
  composed of primitives.
* CTCLoss: torch's dynamic-programming kernel and its kernel backward. First order only: CTCLossGrad
  has a bprop that raises, because differentiating the alpha/beta recursions again is not practical.
"""
from mindseed._backend.kernels import nn as K
from mindseed.ops._prims.core import (add_p, cast_p, div_p, greater_p, less_p, mul_p, neg_p, ones_like_p, reduce_sum_p,
                                      reshape_p, sign_p, sub_p, where_p, zeros_like_p)
from mindseed.ops._prims.nn import (_sigmoid, log_softmax_p, softmax_grad_p, softmax_p, softplus_p)
from mindseed.ops import _sharding as S
from mindseed.ops._registry import Prim

# ---------------------------------------------------------------- NLL
nll_loss_p = Prim("NLLLoss", K.nll_loss, multi_output=True, residual_outputs=(1,))  # -> (loss, total_weight)
nll_loss_grad_p = Prim("NLLLossGrad", K.nll_loss_grad)


@nll_loss_p.def_bprop
def _nll_loss_bprop(logp, target, weight, out, dout, reduction, ignore_index):
    # NOTE: class weights get no gradient (they are constants of the loss, as in MindSpore)
    g = nll_loss_grad_p(dout[0], logp, target, weight, out[1], reduction=reduction, ignore_index=ignore_index)
    return g, None, None


@nll_loss_grad_p.def_bprop
def _nll_loss_grad_bprop(dout, logp, target, weight, total_weight, out, ddout, reduction, ignore_index):
    # the gradient is linear in dout and does not depend on logp's values: its adjoint is NLLLoss itself
    d_dout = nll_loss_p(ddout, target, weight, reduction=reduction, ignore_index=ignore_index)[0]
    return d_dout, None, None, None, None


# ---------------------------------------------------------------- sparse softmax cross entropy (mean)
# (loss, log-probabilities): the second output is kept for the gradient, never read by user code
sparse_sce_p = Prim("SparseSoftmaxCrossEntropyWithLogits", K.sparse_softmax_cross_entropy, multi_output=True,
                   residual_outputs=(1,), sharding=S.sparse_cross_entropy)
# (dloss, logits, logp, labels) -> dlogits; the kernel reads logp, the bprop differentiates through logits
sparse_sce_grad_p = Prim("SparseSoftmaxCrossEntropyWithLogitsGrad", K.sparse_softmax_cross_entropy_grad,
                         sharding=S.sparse_cross_entropy_grad)


@sparse_sce_p.def_bprop
def _sparse_sce_bprop(logits, labels, out, dout):
    # out[1] is a residual (dout[1] is None): no cotangent needs to reach it, because the gradient primitive
    # below is differentiated with respect to the logits (the log-probabilities are a function of them)
    return sparse_sce_grad_p(dout[0], logits, out[1], labels), None


def _sparse_sce_grad_bprop(dloss, logits, logp, labels, out, c, needs):
    # G = dloss / N (p - onehot), p = softmax(logits): d/ddloss = <c, G(1)>; d/dlogits = softmax_grad(p, c dloss / N)
    d_dloss = d_logits = None
    if needs[0]:
        d_dloss = reduce_sum_p(mul_p(c, sparse_sce_grad_p(ones_like_p(dloss), logits, logp, labels)))
    if needs[1]:
        p = softmax_p(logits, axis=-1)
        d_logits = softmax_grad_p(p, mul_p(c, div_p(dloss, float(logits.shape[0]))), axis=-1)
    return d_dloss, d_logits, None, None


sparse_sce_grad_p.def_bprop(_sparse_sce_grad_bprop, takes_needs=True)


# ---------------------------------------------------------------- softmax cross entropy
sce_p = Prim("SoftmaxCrossEntropyWithLogits", K.softmax_cross_entropy, multi_output=True,  # (loss, backprop)
             sharding=S.cross_entropy)
sce_grad_p = Prim("SoftmaxCrossEntropyWithLogitsGrad", K.softmax_cross_entropy_grad, multi_output=True,
                  sharding=S.cross_entropy_grad)


@sce_p.def_bprop
def _sce_bprop(logits, labels, out, dout):
    # NOTE: the cotangent of the `backprop` output is dropped, and the labels get a zero gradient, as in MindSpore
    # (its rule treats them as constants; `ms.grad` with respect to them gives zeros)
    dlogits, _ = sce_grad_p(dout[0], logits, labels)
    return dlogits, None


def _sce_grad_bprop(dl, z, y, out, dout, needs):
    # G = (dl (s - y), -dl logp) with s = softmax z; cotangents (c1, c2)
    c1, c2 = dout
    s = softmax_p(z, axis=-1)
    logp = log_softmax_p(z, axis=-1)
    d_dl = None
    if needs[0]:
        d_dl = reduce_sum_p(sub_p(mul_p(c1, sub_p(s, y)), mul_p(c2, logp)), axis=-1)
    dlb = reshape_p(dl, shape=dl.shape + (1,))
    dz = None
    if needs[1]:
        dz = mul_p(dlb, add_p(sub_p(softmax_grad_p(s, c1, axis=-1), c2),
                              mul_p(s, reduce_sum_p(c2, axis=-1, keep_dims=True))))
    dy = neg_p(mul_p(dlb, c1)) if needs[2] else None
    return d_dl, dz, dy


sce_grad_p.def_bprop(_sce_grad_bprop, takes_needs=True)


# ---------------------------------------------------------------- elementwise losses
def _elementwise_loss(name, kernel, grad_kernel, second, n_weights=0):
    """Loss primitive L(x, y, *weights) and gradient primitive G(dout, x, y, *weights) -> (dx, dy).

    `second(x, y, *weights, **attrs)` -> (lxx, lxy, lyy): the second derivatives of the elementwise loss
    (None entries are zero), composed of primitives. Weights multiply the elementwise loss; their own
    gradients come from `weight_grads(dscaled, x, y, *weights, **attrs)` when asked for.
    """
    fwd = Prim(name, kernel)
    grad = Prim(name + "Grad", grad_kernel, multi_output=True)

    def bprop(x, y, *rest, needs, **attrs):
        weights, (_out, dout) = rest[:n_weights], rest[n_weights:]
        dx, dy = grad(dout, x, y, *weights, **attrs)
        wgrads = ()
        if n_weights:
            wgrads = _weight_grads(name, dout, x, y, weights, needs[2:], attrs, fwd)
        return (dx if needs[0] else None, dy if needs[1] else None) + wgrads

    def grad_bprop(dout, x, y, *rest, needs, **attrs):
        weights, (_out, (cx, cy)) = rest[:n_weights], rest[n_weights:]
        reduction = attrs["reduction"]
        d_dout = None
        if needs[0]:
            # G is linear in dout: G(dout) = dout * G(1)
            gx1, gy1 = grad(ones_like_p(dout), x, y, *weights, **attrs)
            t = add_p(mul_p(cx, gx1), mul_p(cy, gy1))
            d_dout = t if reduction == "none" else reduce_sum_p(t)
        dx = dy = None
        if needs[1] or needs[2]:
            lxx, lxy, lyy = second(x, y, *weights, **attrs)
            scale = _scaled_dout(dout, x, y, weights, reduction)
            if needs[1]:
                dx = mul_p(scale, _sum2(cx, lxx, cy, lxy, x))
            if needs[2]:
                dy = mul_p(scale, _sum2(cx, lxy, cy, lyy, y))
        wgrads = (None,) * n_weights
        if n_weights and any(needs[3:]):
            wgrads = _weight_second(grad, dout, x, y, weights, (cx, cy), needs[3:], attrs)
        return (d_dout, dx, dy) + wgrads

    fwd.def_bprop(bprop, takes_needs=True)
    grad.def_bprop(grad_bprop, takes_needs=True)
    return fwd, grad


def _sum2(a, fa, b, fb, like):
    terms = [mul_p(a, fa) if fa is not None else None, mul_p(b, fb) if fb is not None else None]
    terms = [t for t in terms if t is not None]
    if not terms:
        return zeros_like_p(like)
    return terms[0] if len(terms) == 1 else add_p(terms[0], terms[1])


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _bshape(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return tuple(max(i, j) for i, j in zip(a, b))


def _scaled_dout(dout, x, y, weights, reduction):
    """dout as it reaches each element of the unreduced loss (times the elementwise weight)."""
    d = mul_p(dout, 1.0 / _numel(_bshape(x.shape, y.shape))) if reduction == "mean" else dout
    if weights and weights[0] is not None:
        d = mul_p(d, weights[0])
    return d


def _weight_grads(name, dout, x, y, weights, needs, attrs, fwd):
    weight, pos_weight = (weights + (None,))[:2]
    dw = dpw = None
    if weight is not None and needs[0]:
        plain = dict(attrs, reduction="none")
        d = _scaled_dout(dout, x, y, (), attrs["reduction"])
        dw = mul_p(d, fwd(x, y, None, pos_weight, **plain) if len(weights) == 2 else fwd(x, y, None, **plain))
    if pos_weight is not None and len(needs) > 1 and needs[1]:
        # l = (1 - y) x + (1 + (pw - 1) y) softplus(-x): dl/dpw = y softplus(-x)
        d = _scaled_dout(dout, x, y, (), attrs["reduction"])
        dpw = mul_p(mul_p(d, y), softplus_p(neg_p(x), beta=1.0, threshold=20.0))
        if weight is not None:
            dpw = mul_p(dpw, weight)
    return (dw, dpw)[:len(weights)]


def _weight_second(grad, dout, x, y, weights, cot, needs, attrs):
    """Gradients of <cot, G> for G's weight inputs (G is linear in the elementwise weight)."""
    weight, pos_weight = (weights + (None,))[:2]
    cx, cy = cot
    dw = dpw = None
    if weight is not None and needs[0]:
        gx, gy = grad(dout, x, y, *((None, pos_weight) if len(weights) == 2 else (None,)), **attrs)
        dw = add_p(mul_p(cx, gx), mul_p(cy, gy))
    if pos_weight is not None and len(needs) > 1 and needs[1]:
        # dgx/dpw = -d y sigmoid(-x), dgy/dpw = d softplus(-x)
        d = _scaled_dout(dout, x, y, (weight,), attrs["reduction"])
        nx = neg_p(x)
        dpw = mul_p(d, sub_p(mul_p(cy, softplus_p(nx, beta=1.0, threshold=20.0)), mul_p(mul_p(cx, y), _sigmoid(nx))))
    return (dw, dpw)[:len(weights)]


def _bce_logits_second(x, y, weight, pos_weight, reduction):
    s = _sigmoid(x)
    sn = sub_p(1.0, s)
    if pos_weight is None:
        return mul_p(s, sn), neg_p(ones_like_p(x)), None
    pm1 = sub_p(pos_weight, 1.0)
    lw = add_p(mul_p(pm1, y), 1.0)
    return mul_p(lw, mul_p(s, sn)), sub_p(neg_p(mul_p(pm1, sn)), 1.0), None


bce_logits_p, bce_logits_grad_p = _elementwise_loss("BCEWithLogitsLoss", K.bce_with_logits, K.bce_with_logits_grad,
                                                    _bce_logits_second, n_weights=2)


def _bce_second(p, y, weight, reduction):
    q = sub_p(1.0, p)
    lpp = add_p(div_p(y, mul_p(p, p)), div_p(sub_p(1.0, y), mul_p(q, q)))
    return lpp, neg_p(div_p(1.0, mul_p(p, q))), None


bce_p, bce_grad_p = _elementwise_loss("BinaryCrossEntropy", K.binary_cross_entropy, K.binary_cross_entropy_grad,
                                      _bce_second, n_weights=1)


def _mse_second(x, y, reduction):
    two = mul_p(ones_like_p(x), 2.0)
    return two, neg_p(two), two


mse_p, mse_grad_p = _elementwise_loss("MSELoss", K.mse_loss, K.mse_loss_grad, _mse_second)
l1_p, l1_grad_p = _elementwise_loss("L1Loss", K.l1_loss, K.l1_loss_grad, lambda x, y, reduction: (None, None, None))


def _inside(x, y, bound):
    """1 where |x - y| < bound, else 0 (x's dtype)."""
    d = sub_p(x, y)
    return cast_p(less_p(mul_p(d, sign_p(d)), bound), dtype=x.dtype.name)


def _smooth_l1_second(x, y, beta, reduction):
    m = mul_p(_inside(x, y, beta), 1.0 / beta)
    return m, neg_p(m), m


smooth_l1_p, smooth_l1_grad_p = _elementwise_loss("SmoothL1Loss", K.smooth_l1_loss, K.smooth_l1_loss_grad,
                                                  _smooth_l1_second)


def _huber_second(x, y, delta, reduction):
    m = _inside(x, y, delta)
    return m, neg_p(m), m


huber_p, huber_grad_p = _elementwise_loss("HuberLoss", K.huber_loss, K.huber_loss_grad, _huber_second)


def _kl_second(x, y, reduction):
    # l = y log y - y x: lxx = 0, lxy = -1, lyy = 1 / y (0 where y == 0)
    pos = greater_p(y, 0.0)
    lyy = where_p(pos, div_p(1.0, where_p(pos, y, 1.0)), zeros_like_p(y))
    return None, neg_p(ones_like_p(x)), lyy


kl_div_p, kl_div_grad_p = _elementwise_loss("KLDivLoss", K.kl_div, K.kl_div_grad, _kl_second)

# ---------------------------------------------------------------- CTC
ctc_loss_p = Prim("CTCLossV2", K.ctc_loss, multi_output=True)        # -> (neg log likelihood, log_alpha)
ctc_loss_grad_p = Prim("CTCLossV2Grad", K.ctc_loss_grad)


@ctc_loss_p.def_bprop
def _ctc_loss_bprop(log_probs, targets, input_lengths, target_lengths, out, dout, blank, zero_infinity):
    g = ctc_loss_grad_p(dout[0], log_probs, targets, input_lengths, target_lengths, out[0], out[1], blank=blank,
                        zero_infinity=zero_infinity)
    return g, None, None, None


@ctc_loss_grad_p.def_bprop
def _ctc_loss_grad_bprop(*args, **attrs):
    raise RuntimeError("For 'ctc_loss', the second-order gradient is not supported: the loss is computed by a "
                       "dynamic-programming kernel whose backward is only differentiable once.")


# which classes each row of a multilabel target lists (constants of the loss: no gradient)
multilabel_margin_counts_p = Prim("MultilabelMarginCounts", K.multilabel_margin_counts, multi_output=True)
ctc_greedy_decoder_p = Prim("CTCGreedyDecoder", K.ctc_greedy_decode, multi_output=True)   # no gradient
in_top_k_p = Prim("InTopK", K.in_top_k)
