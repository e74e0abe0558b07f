"""numpy references for the nn family (formulas as MindSpore documents them)."""
import math

import numpy as np

_erf = np.vectorize(math.erf)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softplus(x, beta=1.0, threshold=20.0):
    bx = beta * x
    return np.where(bx > threshold, x, np.log1p(np.exp(np.minimum(bx, threshold))) / beta)


def elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * (np.exp(np.minimum(x, 0)) - 1))


SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def gelu(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def log_softmax(x, axis=-1):
    z = x - x.max(axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis, keepdims=True))


def reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def nll(logp, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    c = logp.shape[1] if logp.ndim > 1 else logp.shape[0]
    lp = logp[None] if logp.ndim == 1 else np.moveaxis(logp, 1, -1).reshape(-1, c)
    tt = np.asarray(target).reshape(-1)
    w = np.ones(c) if weight is None else weight
    valid = tt != ignore_index
    ts = np.where(valid, tt, 0)
    per = -lp[np.arange(len(ts)), ts] * w[ts] * valid
    smooth = -(lp * w).sum(-1) * valid
    wsum = (w[ts] * valid).sum()
    if reduction == "none":
        out, sm = per.reshape(np.shape(target)), smooth.reshape(np.shape(target))
    elif reduction == "sum":
        out, sm = per.sum(), smooth.sum()
    else:
        out, sm = per.sum() / wsum, smooth.sum() / wsum
    return (1 - label_smoothing) * out + label_smoothing / c * sm


def cross_entropy_probs(x, target, weight=None, reduction="mean", label_smoothing=0.0):
    class_dim = 0 if x.ndim == 1 else 1
    c = x.shape[class_dim]
    lp = log_softmax(x, class_dim)
    if label_smoothing:
        target = target * (1 - label_smoothing) + label_smoothing / c
    w = 1 if weight is None else weight.reshape((c,) + (1,) * (x.ndim - 1 - class_dim))
    term = lp * target * w
    if reduction == "mean":
        return -term.sum() / (x.size / c)
    if reduction == "sum":
        return -term.sum()
    return -term.sum(class_dim)


def bce(p, y, weight=None, reduction="mean"):
    eps = 1e-12
    loss = -(y * np.log(np.maximum(p, eps)) + (1 - y) * np.log(np.maximum(1 - p, eps)))
    return reduce(loss * (1 if weight is None else weight), reduction)


def bce_logits(x, y, weight=None, pos_weight=None, reduction="mean"):
    lw = 1 if pos_weight is None else 1 + (pos_weight - 1) * y
    loss = (1 - y) * x + lw * softplus(-x)
    return reduce(loss * (1 if weight is None else weight), reduction)


def smooth_l1(x, y, beta=1.0, reduction="none"):
    d = np.abs(x - y)
    return reduce(np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta), reduction)


def huber(x, y, delta=1.0, reduction="mean"):
    d = np.abs(x - y)
    return reduce(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


def kl_div(x, y, reduction="mean"):
    loss = np.where(y > 0, y * np.log(np.where(y > 0, y, 1)) - y * x, 0)     # 0 where y <= 0 (MindSpore)
    if reduction == "batchmean":
        return loss.sum() / x.shape[0]
    return reduce(loss, reduction)


def ctc(log_probs, targets, input_lengths, target_lengths, blank=0):
    """Per-sample negative log likelihood by the alpha recursion, in log space."""
    out = []
    for b in range(log_probs.shape[1]):
        t_len, s_len = int(input_lengths[b]), int(target_lengths[b])
        ext = [blank]
        for s in targets[b][:s_len]:
            ext += [int(s), blank]
        lp = log_probs[:t_len, b]
        alpha = np.full(len(ext), -np.inf)
        alpha[0] = lp[0, ext[0]]
        if len(ext) > 1:
            alpha[1] = lp[0, ext[1]]
        for t in range(1, t_len):
            new = np.full(len(ext), -np.inf)
            for s in range(len(ext)):
                cands = [alpha[s]]
                if s >= 1:
                    cands.append(alpha[s - 1])
                if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                    cands.append(alpha[s - 2])
                m = max(cands)
                new[s] = (m + np.log(sum(np.exp(c - m) for c in cands)) if m > -np.inf else -np.inf) + lp[t, ext[s]]
            alpha = new
        tail = alpha[-2:] if len(ext) > 1 else alpha[-1:]
        m = tail.max()
        out.append(-(m + np.log(np.exp(tail - m).sum())))
    return np.array(out)


def layer_norm(x, k, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axes, keepdims=True)
    var = x.var(axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    return y * (1 if w is None else w) + (0 if b is None else b)


def batch_norm_train(x, w, b, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (x.shape[1],) + (1,) * (x.ndim - 2)
    mean = x.mean(axes, keepdims=True)
    var = x.var(axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w.reshape(shape) + b.reshape(shape)


def group_norm(x, g, w=None, b=None, eps=1e-5):
    n, c = x.shape[:2]
    xg = x.reshape(n, g, -1)
    y = ((xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + eps)).reshape(x.shape)
    shape = (c,) + (1,) * (x.ndim - 2)
    return y * (1 if w is None else w.reshape(shape)) + (0 if b is None else b.reshape(shape))


def cdist(x1, x2, p=2.0):
    d = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(x1.dtype)
    if p == np.inf:
        return d.max(-1)
    return (d ** p).sum(-1) ** (1 / p)
