"""Functional losses (MindSpore's names, argument order and defaults; `reduction` in 'mean', 'sum', 'none').

The training hot path (cross_entropy, nll_loss, binary_cross_entropy[_with_logits], mse_loss, l1_loss,
smooth_l1_loss, huber_loss, kl_div) runs one fused kernel forward and one backward; the rarer losses are
compositions of primitives.
"""
from math import log, pi

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import core as P
from mindseed.ops._prims import nn as N
from mindseed.ops._prims import nn_loss as L
from mindseed.ops.functional._core import _check_tensor

__all__ = [
    "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "mse_loss", "l1_loss",
    "smooth_l1_loss", "huber_loss", "kl_div", "cosine_embedding_loss", "margin_ranking_loss", "multi_margin_loss",
    "multilabel_margin_loss", "multilabel_soft_margin_loss", "triplet_margin_loss", "gaussian_nll_loss",
    "soft_margin_loss", "hinge_embedding_loss", "ctc_loss", "ctc_greedy_decoder", "mse_loss_ext", "intopk",
]

_REDUCTIONS = ('mean', 'sum', 'none')


def _check_reduction(op, reduction, allowed=_REDUCTIONS):
    if not isinstance(reduction, str) or reduction not in allowed:
        raise ValueError(f"For '{op}', the 'reduction' must be str and must be in '{list(allowed)}', but got "
                         f"'{reduction}'.")


def _check_float(op, name, x):
    _check_tensor(op, name, x)
    if not mstype.is_float(x.dtype):
        raise TypeError(f"For '{op}', the '{name}' must be a float Tensor, but got {x.dtype}.")


def _check_same_shape(op, n1, x, n2, y):
    if x.shape != y.shape:
        raise ValueError(f"For '{op}', the '{n1}' shape {x.shape} must be the same as the '{n2}' shape {y.shape}.")


def _check_broadcast(op, n1, x, n2, y):
    for a, b in zip(reversed(x.shape), reversed(y.shape)):
        if a != b and a != 1 and b != 1:
            raise ValueError(f"For '{op}', the '{n1}' shape {x.shape} and the '{n2}' shape {y.shape} cannot be "
                             f"broadcast.")


def _reduce(x, reduction):
    if reduction == 'mean':
        return P.mul_p(P.reduce_sum_p(x), 1.0 / max(x.size, 1))
    if reduction == 'sum':
        return P.reduce_sum_p(x)
    return x


def _float(x):
    return x if mstype.is_float(x.dtype) else P.cast_p(x, dtype="Float32")


# ---------------------------------------------------------------- classification
def _class_weight(weight, ndim, class_dim):
    if weight is None or ndim < 2:
        return weight
    return P.reshape_p(weight, shape=(weight.shape[0],) + (1,) * (ndim - 1 - class_dim))


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0):
    """Cross entropy between the logits `input` and class-index or class-probability targets.

    Args:
        input (Tensor): logits, (C,), (N, C) or (N, C, d1, ...).
        target (Tensor): class indices (integer, shape (), (N,) or (N, d1, ...)) or probabilities (float, the
            shape of `input`).
        weight (Tensor, optional): per-class rescaling weights, shape (C,).
        ignore_index (int): target value that contributes nothing (class indices only). Default: ``-100``.
        reduction (str): ``'mean'``, ``'sum'`` or ``'none'``. Default: ``'mean'``.
        label_smoothing (float): in [0, 1]; mixes the targets with the uniform distribution. Default: ``0.0``.

    Returns:
        Tensor: the loss (a scalar unless `reduction` is 'none').

    Raises:
        TypeError: `input` is not a float tensor. ValueError: bad `reduction`, `label_smoothing` or shapes.

    >>> import mindseed as ms
    >>> ms.ops.cross_entropy(ms.ops.zeros((2, 4)), ms.Tensor([0, 3]))
    Tensor(shape=[], dtype=Float32, value= 1.38629)
    """
    _check_tensor("cross_entropy", "input", input)
    _check_tensor("cross_entropy", "target", target)
    _check_reduction("cross_entropy", reduction)
    ls = _check_smoothing(label_smoothing)
    if not mstype.is_float(input.dtype):
        raise TypeError(f"For cross_entropy, the input dtype should be float16, float32 or float64, but got "
                        f"{input.dtype}.")
    class_dim = 0 if input.ndim == 1 else 1
    if mstype.is_float(target.dtype):
        return _cross_entropy_probs(input, target, weight, reduction, ls, class_dim)
    logp = N.log_softmax_p(input, axis=class_dim)
    return _nll(logp, target, weight, ignore_index, reduction, ls, "cross_entropy")


def _check_smoothing(ls):
    if isinstance(ls, bool) or not isinstance(ls, (float, int)) or not 0 <= ls <= 1:
        raise ValueError(f"For 'cross_entropy', the 'label_smoothing' must be a float in range [0, 1], but got "
                         f"{ls}.")
    return float(ls)


def _cross_entropy_probs(input, target, weight, reduction, ls, class_dim):
    _check_same_shape("cross_entropy", "input", input, "target", target)
    n_classes = input.shape[class_dim]
    logp = N.log_softmax_p(input, axis=class_dim)
    if ls > 0:
        target = P.add_p(P.mul_p(target, 1.0 - ls), ls / n_classes)
    term = P.mul_p(logp, target)
    if weight is not None:
        term = P.mul_p(term, _class_weight(weight, input.ndim, class_dim))
    if reduction == 'mean':
        return P.mul_p(P.reduce_sum_p(term), -n_classes / max(input.size, 1))
    if reduction == 'sum':
        return P.neg_p(P.reduce_sum_p(term))
    return P.neg_p(P.reduce_sum_p(term, axis=class_dim))


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction='mean', label_smoothing=0.0):
    """Negative log likelihood of class-index targets given log-probabilities `inputs`.

    Args:
        inputs (Tensor): log-probabilities, (C,), (N, C) or (N, C, d1, ...).
        target (Tensor): integer class indices, (), (N,) or (N, d1, ...).
        weight (Tensor, optional): per-class weights (C,); 'mean' divides by the summed weights of the targets.
        ignore_index (int): target value that contributes nothing. Default: ``-100``.
        reduction (str): ``'mean'``, ``'sum'`` or ``'none'``. Default: ``'mean'``.
        label_smoothing (float): in [0, 1]. Default: ``0.0``.

    Raises:
        TypeError: `target` is not an integer tensor. ValueError: shapes do not match.
    """
    _check_float("nll_loss", "inputs", inputs)
    _check_tensor("nll_loss", "target", target)
    _check_reduction("nll_loss", reduction)
    return _nll(inputs, target, weight, ignore_index, reduction, _check_smoothing(label_smoothing), "nll_loss")


def _nll(logp, target, weight, ignore_index, reduction, ls, op):
    if not mstype.is_integral(target.dtype) or target.dtype == mstype.bool_:
        raise TypeError(f"For '{op}', the 'target' must be an int tensor of class indices (or, for cross_entropy, "
                        f"a float tensor of probabilities), but got {target.dtype}.")
    want = logp.shape[:1] + logp.shape[2:] if logp.ndim >= 2 else ()
    if target.shape != want:
        raise ValueError(f"For '{op}', the 'target' shape must be {want} for the input shape {logp.shape}, but got "
                         f"{target.shape}.")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise TypeError(f"For '{op}', the 'ignore_index' must be an int, but got {type(ignore_index).__name__}.")
    if weight is not None:
        _check_tensor(op, "weight", weight)
        n_classes = logp.shape[1] if logp.ndim >= 2 else logp.shape[0]
        if weight.shape != (n_classes,):
            raise ValueError(f"For '{op}', the 'weight' shape must be ({n_classes},), but got {weight.shape}.")
        if weight.dtype != logp.dtype:
            weight = P.cast_p(weight, dtype=logp.dtype.name)
    loss, total = L.nll_loss_p(logp, target, weight, reduction=reduction, ignore_index=ignore_index)
    if ls == 0:
        return loss
    # MindSpore: (1 - ls) * nll + ls / C * smooth, smooth = -sum_c(w_c logp_c) over non-ignored elements
    class_dim = 1 if logp.ndim >= 2 else 0
    n_classes = logp.shape[class_dim]
    wl = logp if weight is None else P.mul_p(logp, _class_weight(weight, logp.ndim, class_dim))
    smooth = P.neg_p(P.reduce_sum_p(wl, axis=class_dim))
    smooth = P.mul_p(smooth, P.cast_p(P.not_equal_p(target, ignore_index), dtype=logp.dtype.name))
    if reduction == 'sum':
        smooth = P.reduce_sum_p(smooth)
    elif reduction == 'mean':
        smooth = P.div_p(P.reduce_sum_p(smooth), total)
    return P.add_p(P.mul_p(loss, 1.0 - ls), P.mul_p(smooth, ls / n_classes))


def binary_cross_entropy(logits, labels, weight=None, reduction='mean'):
    """-weight * (labels * log(logits) + (1 - labels) * log(1 - logits)), logits being probabilities.

    Raises:
        ValueError: shapes differ or bad `reduction`. TypeError: non-float inputs.
    """
    _check_float("BinaryCrossEntropy", "logits", logits)
    _check_float("BinaryCrossEntropy", "labels", labels)
    _check_reduction("BinaryCrossEntropy", reduction)
    _check_same_shape("BinaryCrossEntropy", "logits", logits, "labels", labels)
    if weight is not None:
        _check_float("BinaryCrossEntropy", "weight", weight)
        _check_broadcast("BinaryCrossEntropy", "logits", logits, "weight", weight)
    return L.bce_p(logits, labels, weight, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction='mean'):
    """Binary cross entropy of sigmoid(input) against target, computed stably from the logits.

    Args:
        input (Tensor): logits.
        target (Tensor): same shape as `input`, values in [0, 1].
        weight (Tensor, optional): rescaling of each element's loss, broadcast to `input`.
        pos_weight (Tensor, optional): weight of the positive term per class, broadcast to `input`.
        reduction (str): ``'mean'``, ``'sum'`` or ``'none'``. Default: ``'mean'``.

    Raises:
        TypeError: non-float inputs. ValueError: shapes cannot be matched or bad `reduction`.

    >>> import mindseed as ms
    >>> ms.ops.binary_cross_entropy_with_logits(ms.ops.zeros(2), ms.ops.ones(2))
    Tensor(shape=[], dtype=Float32, value= 0.693147)
    """
    op = "BCEWithLogitsLoss"
    _check_float(op, "input", input)
    _check_float(op, "target", target)
    _check_reduction(op, reduction)
    _check_same_shape(op, "input", input, "target", target)
    for name, w in (("weight", weight), ("pos_weight", pos_weight)):
        if w is not None:
            _check_float(op, name, w)
            _check_broadcast(op, "input", input, name, w)
    return L.bce_logits_p(input, target, weight, pos_weight, reduction=reduction)


def mse_loss(input, target, reduction='mean'):
    """Mean squared error (input - target)^2, broadcasting; integer inputs are computed in float32."""
    if not isinstance(input, Tensor):
        raise TypeError("For ops.mse_loss, the `input` must be tensor")
    if not isinstance(target, Tensor):
        raise TypeError("For ops.mse_loss, the `target` must be tensor")
    if reduction not in _REDUCTIONS:
        raise ValueError("For ops.mse_loss, `reduction` value should be either 'mean', 'none' or 'sum'.")
    _check_broadcast("mse_loss", "input", input, "target", target)
    return L.mse_p(_float(input), _float(target), reduction=reduction)


def mse_loss_ext(input, target, reduction='mean'):
    """Same as mse_loss."""
    return mse_loss(input, target, reduction)


def l1_loss(input, target, reduction='mean'):
    """Mean absolute error |input - target|, broadcasting."""
    _check_tensor("l1_loss", "input", input)
    _check_tensor("l1_loss", "target", target)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"For l1_loss, the 'reduction' must be in ['mean', 'sum', 'none'], but got {reduction}.")
    _check_broadcast("l1_loss", "input", input, "target", target)
    out = L.l1_p(_float(input), _float(target), reduction=reduction)
    dtype = mstype.promote_types(input.dtype, target.dtype)
    # MindSpore reduces in float32 and casts back: integer (bool) inputs give a truncated integer (bool) loss
    return out if mstype.is_float(dtype) or mstype.is_complex(dtype) else P.cast_p(out, dtype=dtype.name)


def smooth_l1_loss(input, target, beta=1.0, reduction='none'):
    """0.5 (input - target)^2 / beta where |input - target| < beta, else |input - target| - 0.5 beta.

    Raises:
        ValueError: shapes differ, `beta` < 0, or bad `reduction`.
    """
    _check_float("SmoothL1Loss", "input", input)
    _check_float("SmoothL1Loss", "target", target)
    _check_reduction("SmoothL1Loss", reduction)
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta < 0:
        raise ValueError(f"For 'SmoothL1Loss', the 'beta' must be a non-negative float, but got {beta}.")
    _check_same_shape("SmoothL1Loss", "input", input, "target", target)
    if beta == 0:
        return L.l1_p(input, target, reduction=reduction)
    return L.smooth_l1_p(input, target, beta=float(beta), reduction=reduction)


def huber_loss(input, target, reduction='mean', delta=1.0):
    """0.5 (input - target)^2 where |input - target| < delta, else delta (|input - target| - 0.5 delta).

    Raises:
        ValueError: `delta` <= 0, shapes that do not broadcast, or bad `reduction`.
    """
    _check_float("huber_loss", "input", input)
    _check_float("huber_loss", "target", target)
    if isinstance(delta, bool) or not isinstance(delta, (int, float)):
        raise TypeError(f"For 'huber_loss', the 'delta' must be an int or a float, but got {type(delta).__name__}.")
    if delta <= 0:
        raise ValueError(f"For 'huber_loss', the 'delta' must be greater than 0.0, but got {delta}.")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"For 'huber_loss', the 'reduction' must be in ['mean', 'sum', 'none'], but got "
                         f"{reduction}.")
    _check_broadcast("huber_loss", "input", input, "target", target)
    return L.huber_p(input, target, delta=float(delta), reduction=reduction)


def kl_div(logits, labels, reduction='mean'):
    """Kullback-Leibler divergence labels * (log(labels) - logits), `logits` being log-probabilities.

    Args:
        reduction (str): ``'mean'`` (over all elements), ``'batchmean'`` (sum / batch size), ``'sum'`` or
            ``'none'``. Default: ``'mean'``.
    """
    _check_reduction("KLDivLoss", reduction, ('none', 'mean', 'batchmean', 'sum'))
    _check_float("KLDivLoss", "logits", logits)
    _check_float("KLDivLoss", "labels", labels)
    if logits.shape != labels.shape:   # MindSpore's KLDivLoss does not broadcast
        raise ValueError(f"For primitive[KLDivLoss], the x shape: {list(logits.shape)} must be equal to "
                         f"{list(labels.shape)}.")
    labels = P.stop_gradient_p(labels)   # MindSpore's KLDivLoss gradient for the labels is zero
    if reduction == 'batchmean':
        total = L.kl_div_p(logits, labels, reduction='sum')
        return P.mul_p(total, 1.0 / logits.shape[0]) if logits.ndim else total
    return L.kl_div_p(logits, labels, reduction=reduction)


# ---------------------------------------------------------------- margin and embedding losses
def _sqrt(x):
    return P.pow_p(x, 0.5)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(input1, input2) where target is 1; max(0, cos - margin) where target is -1 (cos over axis 1).

    Raises:
        ValueError: `margin` outside [-1, 1] or `target` not of shape input1.shape without axis 1.
    """
    op = "ops.cosine_embedding_loss"
    for name, t in (("input1", input1), ("input2", input2), ("target", target)):
        _check_tensor(op, name, t)
    if input1.dtype != input2.dtype:
        raise TypeError(f"For '{op}', the dtype of 'input1' and 'input2' must be the same, but got {input1.dtype} "
                        f"and {input2.dtype}.")
    if input1.shape[:1] + input1.shape[2:] != target.shape:
        raise ValueError(f"For '{op}', the shape of 'target' must be {input1.shape[:1] + input1.shape[2:]} (input1 "
                         f"without axis 1), but got {target.shape}.")
    _check_reduction(op, reduction)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise TypeError(f"For {op}, 'margin' must be float, but got {type(margin)}")
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"For {op}, the value of 'margin' should be in [-1, 1],but got {float(margin)}.")
    x1, x2 = _float(input1), _float(input2)
    prod = P.reduce_sum_p(P.mul_p(x1, x2), axis=1)
    denom = P.mul_p(_sqrt(P.reduce_sum_p(P.mul_p(x1, x1), axis=1)), _sqrt(P.reduce_sum_p(P.mul_p(x2, x2), axis=1)))
    cos = P.div_p(prod, denom)
    zeros = P.zeros_like_p(cos)
    pos = P.where_p(P.equal_p(target, 1), P.sub_p(1.0, cos), zeros)
    neg = P.where_p(P.equal_p(target, -1), P.relu_p(P.sub_p(cos, float(margin))), zeros)
    return _reduce(P.add_p(pos, neg), reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction='mean'):
    """max(0, -target * (input1 - input2) + margin)."""
    op = "margin_ranking_loss"
    for name, t in (("input1", input1), ("input2", input2), ("target", target)):
        _check_tensor(op, name, t)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)):
        raise TypeError(f"For '{op}', the 'margin' must be float, but got {type(margin).__name__}.")
    if input1.dtype != input2.dtype or target.dtype != input1.dtype:
        raise TypeError(f"For '{op}', the dtypes of 'input1', 'input2' and 'target' must be the same, but got "
                        f"{input1.dtype}, {input2.dtype} and {target.dtype}.")
    _check_reduction(op, reduction)
    x = P.relu_p(P.add_p(P.mul_p(P.neg_p(target), P.sub_p(input1, input2)), float(margin)))
    return _reduce(x, reduction)


def _one_hot_rows(target, n_classes, like):
    """(N, C) one-hot of integer class indices in like's dtype (a constant)."""
    classes = Tensor(np.arange(n_classes))
    hit = P.equal_p(P.reshape_p(target, shape=target.shape + (1,)), classes)
    return P.cast_p(hit, dtype=like.dtype.name)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction='mean'):
    """Multi-class hinge loss: sum over i != y of max(0, margin - x[y] + x[i])^p * weight[y] / C.

    Args:
        input (Tensor): (N, C) scores. target (Tensor): (N,) class indices.
        p (int): 1 or 2. margin (int): the margin. weight (Tensor, optional): (C,) class weights.

    Raises:
        TypeError: `margin` is not an int. ValueError: `p` not 1 or 2, or bad shapes.
    """
    op = "MultiMarginLoss"
    if isinstance(margin, bool) or not isinstance(margin, int):
        raise TypeError(f"For 'multi_margin_loss', the type of 'margin' must be int, but got {type(margin)}.")
    if p not in (1, 2):
        raise ValueError(f"For '{op}', the 'p' must be 1 or 2, but got {p}.")
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    _check_reduction(op, reduction)
    if input.ndim != 2 or target.shape != input.shape[:1]:
        raise ValueError(f"For '{op}', the 'input' must be (N, C) and 'target' (N,), but got {input.shape} and "
                         f"{target.shape}.")
    n_classes = input.shape[1]
    hot = _one_hot_rows(target, n_classes, input)
    xy = P.reduce_sum_p(P.mul_p(input, hot), axis=1, keep_dims=True)
    h = P.mul_p(P.relu_p(P.add_p(P.sub_p(input, xy), float(margin))), P.sub_p(1.0, hot))
    if p == 2:
        h = P.mul_p(h, h)
    loss = P.mul_p(P.reduce_sum_p(h, axis=1), 1.0 / n_classes)
    if weight is not None:
        loss = P.mul_p(loss, P.reduce_sum_p(P.mul_p(hot, weight), axis=1))
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, reduction='mean'):
    """Multi-label hinge loss: for each listed target j and each non-target i, max(0, 1 - (x[j] - x[i])) / C.

    `target` lists class indices per row, ended by the first -1.

    Raises:
        ValueError: `target` shape differs from `input`. TypeError: `target` not an integer tensor.
    """
    op = "MultilabelMarginLoss"
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    _check_reduction(op, reduction)
    _check_same_shape(op, "input", input, "target", target)
    if not mstype.is_integral(target.dtype):
        raise TypeError(f"For '{op}', the 'target' must be an int tensor, but got {target.dtype}.")
    if input.ndim not in (1, 2):
        raise ValueError(f"For '{op}', the 'input' must be 1-D or 2-D, but got shape {input.shape}.")
    n_classes = input.shape[-1]
    x = P.reshape_p(input, shape=(-1, n_classes))
    counts, is_target = L.multilabel_margin_counts_p(target, num_classes=n_classes)
    counts = P.cast_p(counts, dtype=x.dtype.name)
    others = P.sub_p(1.0, P.cast_p(is_target, dtype=x.dtype.name))
    # hinge[n, j, i] = max(0, 1 - x[n, j] + x[n, i]), weighted by count(j) * (i not a target)
    hinge = P.relu_p(P.add_p(P.sub_p(P.reshape_p(x, shape=(-1, 1, n_classes)),
                                     P.reshape_p(x, shape=(-1, n_classes, 1))), 1.0))
    weights = P.mul_p(P.reshape_p(counts, shape=(-1, n_classes, 1)), P.reshape_p(others, shape=(-1, 1, n_classes)))
    loss = P.mul_p(P.reduce_sum_p(P.mul_p(hinge, weights), axis=(1, 2)), 1.0 / n_classes)
    if input.ndim == 1:
        loss = P.reshape_p(loss, shape=())
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction='mean'):
    """mean over classes of target * softplus(-input) + (1 - target) * softplus(input), times weight."""
    op = "multilabel_soft_margin_loss"
    _check_float(op, "input", input)
    if input.ndim == 0:
        raise ValueError(f"For '{op}', the 'input' must have a class dimension, but got a 0-D Tensor.")
    _check_tensor(op, "target", target)
    _check_reduction(op, reduction)
    _check_broadcast(op, "input", input, "target", target)
    pos = N.softplus_p(P.neg_p(input), beta=1.0, threshold=20.0)
    neg = N.softplus_p(input, beta=1.0, threshold=20.0)
    loss = P.add_p(P.mul_p(target, pos), P.mul_p(P.sub_p(1.0, target), neg))
    if weight is not None:
        loss = P.mul_p(loss, weight)
    class_dim = input.ndim - 1
    loss = P.mul_p(P.reduce_sum_p(loss, axis=class_dim), 1.0 / input.shape[class_dim])
    return _reduce(loss, reduction)


def _pairwise_distance(x1, x2, p, eps):
    diff = P.add_p(P.sub_p(x1, x2), eps)
    if p == 2:
        return _sqrt(P.reduce_sum_p(P.mul_p(diff, diff), axis=-1))
    a = P.mul_p(diff, P.sign_p(diff))
    if p == 1:
        return P.reduce_sum_p(a, axis=-1)
    return P.pow_p(P.reduce_sum_p(P.pow_p(a, float(p)), axis=-1), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction='mean'):
    """max(d(anchor, positive) - d(anchor, negative) + margin, 0), d the p-norm of (x - y + eps) on the last axis.

    Raises:
        ValueError: shapes differ, `p` <= 0 or bad `reduction`.
    """
    op = "TripletMarginLoss"
    for name, t in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        _check_float(op, name, t)
    _check_same_shape(op, "anchor", anchor, "positive", positive)
    _check_same_shape(op, "anchor", anchor, "negative", negative)
    _check_reduction(op, reduction)
    if isinstance(p, bool) or not isinstance(p, int) or p <= 0:
        raise ValueError(f"For '{op}', the 'p' must be a positive int, but got {p}.")
    if isinstance(swap, Tensor) or not isinstance(swap, bool):
        raise TypeError(f"For '{op}', the 'swap' must be bool, but got {type(swap).__name__}.")
    if isinstance(margin, Tensor):
        margin = float(margin.item())
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = P.minimum_p(d_neg, _pairwise_distance(positive, negative, p, eps))
    return _reduce(P.relu_p(P.add_p(P.sub_p(d_pos, d_neg), float(margin))), reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-6, reduction='mean'):
    """0.5 (log(max(var, eps)) + (x - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) when `full`).

    Raises:
        TypeError: non-tensor inputs or non-bool `full`. ValueError: `eps` <= 0 or bad `reduction`.
    """
    for name, t in (("x", x), ("target", target), ("var", var)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'gaussian_nll_loss', '{name}' must be a tensor, but got {type(t)}.")
    if not isinstance(full, bool):
        raise TypeError(f"For 'gaussian_nll_loss', 'full' must be a bool, but got {type(full)}.")
    if not isinstance(eps, float) or eps <= 0:
        raise ValueError(f"For 'gaussian_nll_loss', 'eps' must be a positive float, but got {eps}.")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"For 'gaussian_nll_loss', 'reduction' must be one of 'none', 'mean', or 'sum', but got "
                         f"{reduction}.")
    if x.shape != var.shape and x.shape[:-1] == var.shape:
        var = P.reshape_p(var, shape=var.shape + (1,))
    v = P.maximum_p(var, eps)
    d = P.sub_p(x, target)
    loss = P.mul_p(P.add_p(P.log_p(v), P.div_p(P.mul_p(d, d), v)), 0.5)
    if full:
        loss = P.add_p(loss, 0.5 * log(2 * pi))
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, reduction='mean'):
    """log(1 + exp(-target * input)), the two-class logistic loss with targets in {-1, 1}."""
    op = "SoftMarginLoss"
    _check_float(op, "input", input)
    _check_tensor(op, "target", target)
    _check_reduction(op, reduction)
    _check_same_shape(op, "input", input, "target", target)
    loss = N.softplus_p(P.neg_p(P.mul_p(target, input)), beta=1.0, threshold=20.0)
    return _reduce(loss, reduction)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction='mean'):
    """inputs where targets > 0, max(0, margin - inputs) where targets < 0."""
    op = "HingeEmbeddingLoss"
    if isinstance(margin, bool) or not isinstance(margin, (float, int)):
        raise TypeError(f"For '{op}', 'margin' must be a float or int, but got {type(margin)}.")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"For '{op}', 'reduction' must be one of 'none', 'mean', 'sum',but got {reduction}.")
    _check_float(op, "inputs", inputs)
    _check_float(op, "targets", targets)
    _check_broadcast(op, "inputs", inputs, "targets", targets)
    pos = P.mul_p(P.cast_p(P.greater_p(targets, 0.0), dtype=inputs.dtype.name), inputs)
    neg_mask = P.cast_p(P.less_p(targets, 0.0), dtype=inputs.dtype.name)
    neg = P.relu_p(P.mul_p(neg_mask, P.sub_p(float(margin), inputs)))
    return _reduce(P.add_p(pos, neg), reduction)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification loss.

    Args:
        log_probs (Tensor): (T, N, C) log-probabilities.
        targets (Tensor): (N, S) padded target sequences (integers).
        input_lengths (Tensor): (N,) valid lengths of `log_probs`.
        target_lengths (Tensor): (N,) valid lengths of `targets`.
        blank (int): the blank class. Default: ``0``.
        reduction (str): ``'mean'`` (each loss divided by its target length, then averaged), ``'sum'`` or
            ``'none'``. Default: ``'mean'``.
        zero_infinity (bool): replace infinite losses (and their gradients) by zero. Default: ``False``.

    Returns:
        tuple (loss, log_alpha): the loss and the forward variables, (N, T, 2 S + 1).

    Note:
        The loss runs torch's dynamic-programming kernel; its gradient is that kernel's backward, so
        it is differentiable once (a second-order gradient raises RuntimeError).
    """
    op = "ctc_loss"
    if isinstance(blank, bool) or not isinstance(blank, int):
        raise TypeError(f"For '{op}', the 'blank' must be int, but got {type(blank).__name__}.")
    if not isinstance(zero_infinity, bool):
        raise TypeError(f"For '{op}', the 'zero_infinity' must be bool, but got {type(zero_infinity).__name__}.")
    _check_reduction(op, reduction)
    _check_float(op, "log_probs", log_probs)
    for name, t in (("targets", targets), ("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        _check_tensor(op, name, t)
        if not mstype.is_integral(t.dtype):
            raise TypeError(f"For '{op}', the '{name}' must be an int tensor, but got {t.dtype}.")
    if log_probs.ndim != 3 or targets.ndim != 2 or targets.shape[0] != log_probs.shape[1]:
        raise ValueError(f"For '{op}', the 'log_probs' must be (T, N, C) and 'targets' (N, S), but got "
                         f"{log_probs.shape} and {targets.shape}.")
    if not 0 <= blank < log_probs.shape[2]:
        raise ValueError(f"For '{op}', the 'blank' must be in [0, {log_probs.shape[2]}), but got {blank}.")
    loss, log_alpha = L.ctc_loss_p(log_probs, targets, input_lengths, target_lengths, blank=blank,
                                   zero_infinity=zero_infinity)
    if reduction == 'sum':
        loss = P.reduce_sum_p(loss)
    elif reduction == 'mean':
        lengths = P.maximum_p(P.cast_p(target_lengths, dtype=loss.dtype.name), 1.0)
        loss = _reduce(P.div_p(loss, lengths), 'mean')
    return loss, log_alpha


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """Greedy decoding of (max_time, batch, num_classes) logits, the last class being the blank.

    Returns:
        tuple (decoded_indices (K, 2), decoded_values (K,), decoded_shape (2,), log_probability (batch, 1)):
        the decoded labels as a sparse tensor, and minus the sum of each sequence's best logits.

    Raises:
        ValueError: bad ranks or a length above max_time. TypeError: `merge_repeated` not a bool.
    """
    op = "CTCGreedyDecoder"
    if not isinstance(merge_repeated, bool):
        raise TypeError(f"For '{op}', the 'merge_repeated' must be bool, but got {type(merge_repeated).__name__}.")
    _check_float(op, "inputs", inputs)
    _check_tensor(op, "sequence_length", sequence_length)
    if inputs.ndim != 3 or sequence_length.shape != inputs.shape[1:2]:
        raise ValueError(f"For '{op}', the 'inputs' must be (max_time, batch, classes) and 'sequence_length' (batch,),"
                         f" but got {inputs.shape} and {sequence_length.shape}.")
    lengths = sequence_length.asnumpy().reshape(-1)
    if lengths.size and int(lengths.max()) > inputs.shape[0]:      # found by MindSpore's kernel: a RuntimeError
        k = int(np.argmax(lengths > inputs.shape[0]))
        raise RuntimeError(f"For '{op}', sequence_length[{k}] {int(lengths[k])} should be less than "
                           f"{inputs.shape[0]}: the values of 'sequence_length' must not exceed max_time.")
    return L.ctc_greedy_decoder_p(inputs, sequence_length, merge_repeated=merge_repeated)


def intopk(x1, x2, k):
    """Whether the target class x2[i] is among the k largest of x1[i] (bool, shape (N,)).

    Raises:
        ValueError: `x1` is not (N, C) or `x2` not (N,). TypeError: `k` is not an int.
    """
    op = "InTopK"
    _check_float(op, "x1", x1)
    _check_tensor(op, "x2", x2)
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"For '{op}', the 'k' must be int, but got {type(k).__name__}.")
    if x1.ndim != 2 or x2.shape != x1.shape[:1]:
        raise ValueError(f"For '{op}', the 'x1' must be (N, C) and 'x2' (N,), but got {x1.shape} and {x2.shape}.")
    return L.in_top_k_p(x1, x2, k=k)
