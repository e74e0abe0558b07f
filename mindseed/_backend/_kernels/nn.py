"""Kernels of the nn family: activations, softmax, losses, normalization, dropout, distances, embedding.

Forward kernels are single ATen calls where one exists; each `*_grad` kernel is the matching fused
backward (ATen's `*_backward` overloads, called through `.default` which skips the overload lookup).
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

from mindseed._backend._core import _TORCH_DTYPES
from mindseed._backend._kernels.core import half_on_cpu
from mindseed._backend._kernels.math import sigmoid_half_steps
from mindseed._backend.kernels.std_engine import KernelEngines, MinstdRand0, minstd_bernoulli, minstd_uniform_float

_A = torch.ops.aten
_NN = torch._C._nn
_REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _scale_dout(dout, shape, numel, reduction):
    """The upstream gradient of a reduced loss spread over the elementwise loss of `shape`."""
    if reduction == "mean":
        return (dout / numel).expand(shape)
    if reduction == "sum":
        return dout.expand(shape)
    return dout


# ---------------------------------------------------------------- piecewise-linear activations
def _in_wider(fn, x, *args):
    """fn on a bool (as float32) or uint8 (as int16) x, cast back: MindSpore's clamping activations take them (a
    negative bound clamps a uint8 to 0, a bool result is the value nonzero)."""
    if x.dtype in (torch.bool, torch.uint8):
        return fn(x.to(torch.float32 if x.dtype == torch.bool else torch.int16), *args).to(x.dtype)
    return fn(x, *args)


# `split_ties`: the gradient of MindSpore's composites max(min(x, lo), hi) and max(alpha * x, x), whose Maximum and
# Minimum give each of two equal operands half the gradient: half on a bound, (1 + alpha) / 2 at 0
def hardtanh(x, min_val, max_val, split_ties=False):
    return _in_wider(_NN.hardtanh, x, min_val, max_val)


_hardtanh_backward = _A.hardtanh_backward.default


def hardtanh_grad(dout, x, min_val, max_val, split_ties=False):
    if not split_ties:
        return _hardtanh_backward(dout, x, min_val, max_val)
    inside = ((x >= min_val) & (x <= max_val)).to(dout.dtype)
    half = 1.0 - 0.5 * (x == min_val).to(dout.dtype)
    return dout * inside * half * (1.0 - 0.5 * (x == max_val).to(dout.dtype))


def leaky_relu(x, alpha, split_ties=False):
    return _NN.leaky_relu(x, alpha)


_leaky_relu_backward = _A.leaky_relu_backward.default


def leaky_relu_grad(dout, x, alpha, split_ties=False):
    g = _leaky_relu_backward(dout, x, alpha, False)
    return torch.where(x == 0, dout * ((1.0 + alpha) / 2), g) if split_ties else g


def hardshrink(x, lambd):
    return torch.hardshrink(x, lambd)


_hardshrink_backward = _A.hardshrink_backward.default


def hardshrink_grad(dout, x, lambd):
    return _hardshrink_backward(dout, x, lambd)


def softshrink(x, lambd):
    return _NN.softshrink(x, lambd)


_softshrink_backward = _A.softshrink_backward.default


def softshrink_grad(dout, x, lambd):
    return _softshrink_backward(dout, x, lambd)


def threshold(x, thr, value):
    return _in_wider(torch.threshold, x, thr, value)


_threshold_backward = _A.threshold_backward.default


def threshold_grad(dout, x, thr, value):
    return _threshold_backward(dout, x, thr)


_SIGNED = (torch.int8, torch.int16, torch.int32, torch.int64)


def _signed_ints_exact(fn, of_shifted):
    """fn, taking signed integer tensors too, computed in the integers as MindSpore's HSwish/HSigmoid integer
    kernels do: t = x + 3 (int8/int16 widened first, int32/int64 wrapping as in C++), clamped to [0, 6], and
    `of_shifted(x, t)` truncated toward zero (hardswish(2) is 10 // 6 = 1, hardswish(-1) 0, hardswish of the int32
    maximum 0 as x + 3 wraps, hardswish(2 ** 53 + 3) exact). Bool and unsigned inputs are refused."""
    def kernel(x):
        if x.dtype in _SIGNED:
            w = x.to(torch.int32) if x.dtype in (torch.int8, torch.int16) else x
            return of_shifted(w, torch.clamp(w + 3, 0, 6)).to(x.dtype)
        if not (x.is_floating_point() or x.is_complex()):
            raise TypeError(f"the kernel does not support inputs of dtype {x.dtype}")
        return fn(x)
    kernel.__name__ = kernel.__qualname__ = fn.__name__
    return kernel


hardsigmoid = _signed_ints_exact(_NN.hardsigmoid, lambda x, t: torch.div(t, 6, rounding_mode="trunc"))
hardsigmoid_grad = _A.hardsigmoid_backward.default  # (dout, x)


hardswish = _signed_ints_exact(
    _NN.hardswish, lambda x, t: torch.where(t == 6, x, torch.div(x * t, 6, rounding_mode="trunc")))
hardswish_grad = _A.hardswish_backward.default  # (dout, x)


# ---------------------------------------------------------------- smooth activations
def elu(x, alpha, scale, input_scale):
    if scale == 1.0 and input_scale == 1.0:
        return _NN.elu(x, alpha)
    return _NN.elu(x, alpha, scale, input_scale)


_elu_backward = _A.elu_backward.default


def elu_grad(dout, x, alpha, scale, input_scale):
    return _elu_backward(dout, alpha, scale, input_scale, False, x)


def gelu(x, approximate):
    return _NN.gelu(x, approximate=approximate)


_gelu_backward = _A.gelu_backward.default


def gelu_grad(dout, x, approximate):
    return _gelu_backward(dout, x, approximate=approximate)


def fast_gelu(x):
    # MindSpore's x / (1 + exp(-1.702|x|)) * exp(0.851 (x - |x|)) is x * sigmoid(1.702 x), written stably
    return x * torch.sigmoid(1.702 * x)


def fast_gelu_grad(dout, x):
    s = torch.sigmoid(1.702 * x)
    return dout * (s + 1.702 * x * s * (1 - s))




def silu(x):
    if x.dtype == torch.float16:
        # MindSpore's CPU SiLU of float16: x * sigmoid(x), the float16 sigmoid (rounded step by step) times x
        # rounded once (torch rounds x * sigmoid(x) computed in float32 once: one value in three differs)
        return (x.float() * sigmoid_half_steps(x).float()).half()
    return _NN.silu(x)


silu_grad = _A.silu_backward.default  # (dout, x)


def mish(x):
    if x.dtype == torch.float16:
        # MindSpore's CPU kernel computes half inputs in float32 as x * tanh(log(exp(x) + 1)); torch's log1p form
        # rounds differently on about one half value in sixty
        xf = x.float()
        return (xf * torch.tanh(torch.log(torch.exp(xf) + 1))).half()
    return _NN.mish(x)


mish_grad = _A.mish_backward.default  # (dout, x)


def softplus(x, beta, threshold):
    return _NN.softplus(x, beta, threshold)


_softplus_backward = _A.softplus_backward.default


def softplus_grad(dout, x, beta, threshold):
    return _softplus_backward(dout, x, beta, threshold)


def softsign(x):
    if x.dtype == torch.float16:
        # MindSpore's CPU kernel computes float16 in float32 and rounds once (torch rounds 1 + |x| first)
        return softsign(x.float()).half()
    return x / (1 + x.abs())


def softsign_grad(dout, x):
    return dout / (1 + x.abs()).square()


def tanhshrink(x):
    return x - torch.tanh(x)


def tanhshrink_grad(dout, x):
    return dout * torch.tanh(x).square()


def logsigmoid(x):
    return _NN.log_sigmoid(x)


def logsigmoid_grad(dout, x):
    return dout * torch.sigmoid(-x)


def glu(x, axis):
    return _NN.glu(x, axis)


_glu_backward = _A.glu_backward.default


def glu_grad(dout, x, axis):
    return _glu_backward(dout, x, axis)


# ---------------------------------------------------------------- softmax
def softmax(x, axis):
    return torch.softmax(x, axis)


def softmax_grad(out, dout, axis):
    return torch._softmax_backward_data(dout, out, axis, out.dtype)


def log_softmax(x, axis):
    return torch.log_softmax(x, axis)


def log_softmax_grad(out, dout, axis):
    return torch._log_softmax_backward_data(dout, out, axis, out.dtype)


# ---------------------------------------------------------------- classification losses
_nll_forward = _A.nll_loss_forward.default
EVERY_CLASS = -2 ** 63     # an NLLLoss ignore_index no label equals: every label counts
_nll_backward = _A.nll_loss_backward.default
_nll2d_forward = _A.nll_loss2d_forward.default
_nll2d_backward = _A.nll_loss2d_backward.default


def _nll_views(logp, target):
    """(N, C, d1, ...) inputs as the (N, C, D, 1) layout of the 2-D kernel; 1-D and 2-D stay as they are."""
    if target.dtype != torch.int64:
        target = target.long()
    if logp.dim() <= 2:
        return logp, target, False
    n, c = logp.shape[0], logp.shape[1]
    return logp.reshape(n, c, -1, 1), target.reshape(n, -1, 1), True


def nll_loss(logp, target, weight, reduction, ignore_index):
    """(loss, total_weight): -weight[t] * logp[t], reduced; total_weight is the divisor of 'mean'."""
    x, t, nd = _nll_views(logp, target)
    if nd:
        loss, total = _nll2d_forward(x, t, weight, _REDUCTION[reduction], ignore_index)
        if reduction == "none":
            loss = loss.reshape(target.shape)
    else:
        loss, total = _nll_forward(x, t, weight, _REDUCTION[reduction], ignore_index)
    return loss, total.to(logp.dtype)


def nll_loss_grad(dout, logp, target, weight, total_weight, reduction, ignore_index):
    x, t, nd = _nll_views(logp, target)
    if nd:
        if reduction == "none":
            dout = dout.reshape(t.shape)
        g = _nll2d_backward(dout, x, t, weight, _REDUCTION[reduction], ignore_index, total_weight)
        return g.reshape(logp.shape)
    return _nll_backward(dout, x, t, weight, _REDUCTION[reduction], ignore_index, total_weight)


def sparse_softmax_cross_entropy(logits, labels):
    """MindSpore's SparseSoftmaxCrossEntropyWithLogits on (N, C) logits and (N,) int64 class indices: (the mean
    over the rows of -log_softmax(logits)[label], log_softmax(logits)), the second kept for the gradient."""
    logp = torch.log_softmax(logits, 1)
    return _nll_forward(logp, labels, None, 1, EVERY_CLASS)[0], logp


def sparse_softmax_cross_entropy_grad(dloss, logits, logp, labels, rows=None):
    """(softmax - one_hot(labels)) * dloss / N from the kept log-probabilities (`logits` is not read: it is
    there for the primitive's own derivative): one exp pass, a scatter of N values, one scaling pass. `rows`: the N
    of the mean (a shard of the rows divides by the whole batch's); default the rows given."""
    g = torch.exp(logp)
    n = g.shape[0]
    if n:
        g.scatter_add_(1, labels.unsqueeze(1), torch.full((1, 1), -1.0, dtype=g.dtype, device=g.device).expand(n, 1))
        g.mul_(dloss / (n if rows is None else rows))
    return g


def softmax_cross_entropy(logits, labels):
    """(loss per row, softmax - labels), MindSpore's SoftmaxCrossEntropyWithLogits."""
    logp = torch.log_softmax(logits, -1)
    return -(labels * logp).sum(-1), torch.exp(logp) - labels


def softmax_cross_entropy_grad(dloss, logits, labels):
    """(d logits, d labels) of sum(dloss * loss)."""
    logp = torch.log_softmax(logits, -1)
    d = dloss.unsqueeze(-1)
    return d * (torch.exp(logp) - labels), -d * logp


# ---------------------------------------------------------------- elementwise losses (value, d/dx, d/dy)
def bce_with_logits(x, y, weight, pos_weight, reduction):
    return torch.binary_cross_entropy_with_logits(x, y, weight, pos_weight, _REDUCTION[reduction])


def bce_with_logits_grad(dout, x, y, weight, pos_weight, reduction):
    shape = torch.broadcast_shapes(x.shape, y.shape)
    d = _scale_dout(dout, shape, _numel(shape), reduction)
    if weight is not None:
        d = d * weight
    s = torch.sigmoid(x)
    if pos_weight is None:
        gx, gy = s - y, -x
    else:
        lw = 1 + (pos_weight - 1) * y
        gx = (1 - y) - lw * (1 - s)
        gy = -x + (pos_weight - 1) * _NN.softplus(-x, 1, 20)
    return d * gx, d * gy


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


_BCE_EPS = 1e-12


def _halving_sum(loss):
    """MindSpore's CPU loss-kernel sum: fold the upper half onto the lower half until one value is left
    (an odd tail goes to element 0). Its rounding differs from torch's vectorized sum in the last bit."""
    t = loss.reshape(-1).clone()
    n = t.numel()
    if n == 0:
        return t.sum()
    if n % 2 == 1:
        t[0] += t[n - 1]
    stride = n // 2
    while stride > 0:
        t[:stride] += t[stride:2 * stride]
        if stride > 2 and stride % 2 == 1:
            t[0] += t[stride - 1]
        stride //= 2
    return t[0]


def binary_cross_entropy(p, y, weight, reduction):
    # NOTE: MindSpore clamps the probabilities at 1e-12 inside the logs (torch clamps the logs at -100)
    loss = -(y * torch.log(p.clamp_min(_BCE_EPS)) + (1 - y) * torch.log((1 - p).clamp_min(_BCE_EPS)))
    if weight is not None:
        loss = loss * weight
    if reduction == "none":
        return loss
    total = _halving_sum(loss)
    return total / loss.numel() if reduction == "mean" else total


def binary_cross_entropy_grad(dout, p, y, weight, reduction):
    shape = torch.broadcast_shapes(p.shape, y.shape)
    d = _scale_dout(dout, shape, _numel(shape), reduction)
    if weight is not None:
        d = d * weight
    gp = (p - y) / (p * (1 - p)).clamp_min(_BCE_EPS)
    gy = torch.log((1 - p).clamp_min(_BCE_EPS)) - torch.log(p.clamp_min(_BCE_EPS))
    return d * gp, d * gy


def mse_loss(x, y, reduction):
    return _reduce(torch.square(x - y), reduction)


def mse_loss_grad(dout, x, y, reduction):
    diff = x - y
    g = 2 * _scale_dout(dout, diff.shape, diff.numel(), reduction) * diff
    return g, -g


def l1_loss(x, y, reduction):
    return _reduce(torch.abs(x - y), reduction)


def l1_loss_grad(dout, x, y, reduction):
    diff = x - y
    g = _scale_dout(dout, diff.shape, diff.numel(), reduction) * torch.sign(diff)
    return g, -g


def smooth_l1_loss(x, y, beta, reduction):
    return _reduce(_NN.smooth_l1_loss(x, y, 0, beta), reduction)


def smooth_l1_loss_grad(dout, x, y, beta, reduction):
    diff = x - y
    g = torch.where(diff.abs() < beta, diff / beta, torch.sign(diff))
    g = _scale_dout(dout, diff.shape, diff.numel(), reduction) * g
    return g, -g


def huber_loss(x, y, delta, reduction):
    return _reduce(_NN.huber_loss(x, y, 0, delta), reduction)


def huber_loss_grad(dout, x, y, delta, reduction):
    diff = x - y
    g = diff.clamp(-delta, delta)
    g = _scale_dout(dout, diff.shape, diff.numel(), reduction) * g
    return g, -g


def kl_div(x, y, reduction):
    # MindSpore's KLDivLoss: y * (log y - x) where y > 0, else 0, each operation in the inputs' dtype (float16
    # rounds after the log, the difference and the product, as MindSpore's kernel)
    pos = y > 0
    loss = torch.where(pos, y * (torch.log(torch.where(pos, y, torch.ones((), dtype=y.dtype))) - x),
                       torch.zeros((), dtype=x.dtype))
    return _reduce(loss, reduction)


def kl_div_grad(dout, x, y, reduction):
    shape = torch.broadcast_shapes(x.shape, y.shape)
    d = _scale_dout(dout, shape, _numel(shape), reduction)
    pos = y > 0
    gy = torch.where(pos, torch.log(y.clamp_min(torch.finfo(y.dtype).tiny)) + 1 - x, torch.zeros((), dtype=y.dtype))
    return -d * y, d * gy       # MindSpore's input gradient is -y * dout everywhere


# ---------------------------------------------------------------- ctc
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    """(per-sample negative log likelihood, log_alpha) of torch's CTC kernel."""
    il, tl = input_lengths.long(), target_lengths.long()
    nll, log_alpha = torch._ctc_loss(log_probs, targets.long(), il, tl, blank, zero_infinity)
    # MindSpore reports -inf past each input's length (torch leaves those steps unwritten)
    past = torch.arange(log_alpha.shape[1], device=il.device)[None, :] >= il[:, None]
    log_alpha = log_alpha.masked_fill(past[:, :, None].to(log_alpha.device), float("-inf"))
    # MindSpore's log_alpha spans the padded targets (N, S): 2 * S + 1 states, not 2 * max(target_lengths) + 1
    width = 2 * targets.shape[-1] + 1 if targets.dim() == 2 else log_alpha.shape[-1]
    if width > log_alpha.shape[-1]:
        log_alpha = F.pad(log_alpha, (0, width - log_alpha.shape[-1]), value=float("-inf"))
    return nll, log_alpha


_ctc_backward = _A._ctc_loss_backward.Tensor


def ctc_loss_grad(dout, log_probs, targets, input_lengths, target_lengths, nll, log_alpha, blank, zero_infinity):
    il, tl = input_lengths.long(), target_lengths.long()
    log_alpha = log_alpha[..., :2 * int(tl.max()) + 1] if tl.numel() else log_alpha    # torch's own width
    return _ctc_backward(dout, log_probs, targets.long(), il, tl, nll, log_alpha, blank, zero_infinity)


def ctc_greedy_decode(inputs, sequence_length, merge_repeated):
    """TensorFlow's greedy CTC decoding (blank = the last class): sparse (indices, values, shape, log prob)."""
    blank = inputs.shape[2] - 1
    best = inputs.argmax(-1).t().tolist()            # (B, T)
    top = inputs.max(-1).values                     # (T, B)
    rows, values, log_prob, width = [], [], [], 0
    for b, length in enumerate(sequence_length.tolist()):
        out, prev = [], None
        for c in best[b][:length]:
            if not (merge_repeated and c == prev) and c != blank:
                out.append(c)
            prev = c
        rows += [[b, i] for i in range(len(out))]
        values += out
        width = max(width, len(out))
        log_prob.append(-top[:length, b].sum())
    dev = inputs.device
    indices = torch.tensor(rows, dtype=torch.int64, device=dev).reshape(-1, 2)
    return (indices, torch.tensor(values, dtype=torch.int64, device=dev),
            torch.tensor([len(best), width], dtype=torch.int64, device=dev),
            torch.stack(log_prob).reshape(-1, 1) if log_prob else inputs.new_zeros((0, 1)))


def in_top_k(x, target, k):
    """Whether each row's target class is among its k largest (fewer than k values strictly greater)."""
    v = x.gather(1, target.long().unsqueeze(1))
    return (x > v).sum(1) < k


def multilabel_margin_counts(target, num_classes):
    """(count of each class in the target list before the first -1, is-target mask), both (N, C) float."""
    t = target.long()
    if t.dim() == 1:
        t = t.unsqueeze(0)
    valid = torch.cumprod((t >= 0).to(torch.int64), dim=-1).bool()
    idx = torch.where(valid, t, torch.zeros_like(t))
    counts = torch.zeros(t.shape[0], num_classes, dtype=torch.float64, device=t.device)
    counts.scatter_add_(1, idx, valid.to(torch.float64))
    return counts, (counts > 0).to(torch.float64)


# ---------------------------------------------------------------- normalization
def layer_norm(x, weight, bias, normalized_shape, eps):
    """(y, mean, rstd); mean and rstd keep the reduced dimensions."""
    return torch.native_layer_norm(x, normalized_shape, weight, bias, eps)


_layer_norm_backward = _A.native_layer_norm_backward.default


def layer_norm_grad(dy, x, weight, mean, rstd, normalized_shape, eps):
    """(dx, dw, db), or (dx,) without a weight."""
    if weight is None:
        return (_layer_norm_backward(dy, x, normalized_shape, mean, rstd, None, None, [True, False, False])[0],)
    return _layer_norm_backward(dy, x, normalized_shape, mean, rstd, weight, weight, [True, True, True])


_batch_norm_functional = _A._native_batch_norm_legit_functional.default
_batch_norm_backward = _A.native_batch_norm_backward.default


def batch_norm_train(x, weight, bias, running_mean, running_var, momentum, eps):
    """(y, batch mean, batch rstd, new running mean, new running var); the running stats are not touched."""
    if running_mean is None:
        c = x.shape[1]
        y, mean, rstd = torch.native_batch_norm(x, weight, bias, None, None, True, momentum, eps)[:3]
        return y, mean, rstd, torch.zeros(c, dtype=x.dtype, device=x.device), torch.ones(c, dtype=x.dtype,
                                                                                         device=x.device)
    return _batch_norm_functional(x, weight, bias, running_mean, running_var, True, momentum, eps)


_batch_norm_update = _A._native_batch_norm_legit.default


def batch_norm_train_(x, weight, bias, running_mean, running_var, momentum, eps):
    """(y, batch mean, batch rstd); the running stats updated in place (batch_norm_train's new ones, no copies)."""
    return _batch_norm_update(x, weight, bias, running_mean, running_var, True, momentum, eps)


def batch_norm_infer(x, weight, bias, running_mean, running_var, eps):
    """Normalization by the running statistics, one fused pass."""
    return torch.batch_norm(x, weight, bias, running_mean, running_var, False, 0.0, eps, False)


def batch_norm_grad(dy, x, weight, mean, rstd, eps):
    """(dx, dw, db), or (dx,) without a weight."""
    if weight is None:
        return (_batch_norm_backward(dy, x, None, None, None, mean, rstd, True, eps, [True, False, False])[0],)
    return _batch_norm_backward(dy, x, weight, None, None, mean, rstd, True, eps, [True, True, True])


def group_norm(x, weight, bias, num_groups, eps):
    n, c = x.shape[0], x.shape[1]
    return torch.native_group_norm(x, weight, bias, n, c, x[0, 0].numel() if x.numel() else 0, num_groups, eps)


_group_norm_backward = _A.native_group_norm_backward.default


def group_norm_grad(dy, x, weight, mean, rstd, num_groups, eps):
    """(dx, dw, db), or (dx,) without a weight.

    Half and single precision accumulate in double, as MindSpore's CPU kernel is accurate to about 1e-7 where a
    float32 accumulation over a group drifts by 1e-6.
    """
    n, c = x.shape[0], x.shape[1]
    hw = x[0, 0].numel()
    dtype = x.dtype
    if dtype in (torch.float16, torch.bfloat16, torch.float32) and x.numel():
        dy, x = dy.double(), x.double()
        groups = x.reshape(n, num_groups, -1)  # the statistics again, in double: float32's rstd is off by 1e-6
        var, mean = torch.var_mean(groups, dim=-1, correction=0)
        mean, rstd = mean.reshape(n, num_groups), torch.rsqrt(var + eps).reshape(n, num_groups)
        weight = None if weight is None else weight.double()
    if weight is None:
        dx = _group_norm_backward(dy, x, mean, rstd, None, n, c, hw, num_groups, [True, False, False])[0]
        return (dx.to(dtype),)
    return tuple(g.to(dtype) for g in
                 _group_norm_backward(dy, x, mean, rstd, weight, n, c, hw, num_groups, [True, True, True]))


# ---------------------------------------------------------------- dropout
def dropout(x, p, generator, channel_dims=None):
    """(x * mask / (1 - p), mask); the mask (x's dtype) is per element, or per (N, C) when `channel_dims`.
    `generator` a `KernelEngines`: MindSpore's CPU Dropout kernel drawing from its engines."""
    if isinstance(generator, KernelEngines):
        return _std_dropout(x, p, generator) if channel_dims is None else _std_dropout_nd(x, p, generator,
                                                                                          channel_dims)
    keep = 1.0 - p
    shape = x.shape if channel_dims is None else x.shape[:channel_dims] + (1,) * (x.dim() - channel_dims)
    g = generator.raw
    mask = torch.empty(shape, dtype=x.dtype if x.is_floating_point() else torch.float32, device=g.device)
    mask.bernoulli_(keep, generator=g)
    if mask.device != x.device:
        mask = mask.to(x.device)
    if keep == 0.0:
        return x * mask, mask.to(x.dtype)
    out = x * mask * (1.0 / keep) if x.is_floating_point() else (x * mask / keep).to(x.dtype)
    return out, mask.to(x.dtype) if mask.dtype != x.dtype else mask


def _std_dropout(x, p, engines):
    """MindSpore's CPU Dropout: mask = (uniform_real_distribution<float> draw < keep_prob) element by element from
    the kernel's minstd_rand0, out = mask * x * (1.f / keep_prob) in x's dtype (float16: the product in float)."""
    keep = np.float32(1.0 - p)
    u = minstd_uniform_float(engines.engine(tuple(x.shape), MinstdRand0), x.numel())
    scale = float(np.float32(1.0) / keep)
    mask = torch.from_numpy((u < keep).reshape(tuple(x.shape))).to(device=x.device, dtype=x.dtype)
    if x.dtype == torch.float16:
        return (x.float() * scale).half() * mask, mask
    return mask * x * scale, mask


def _std_dropout_nd(x, p, engines, channel_dims):
    """MindSpore's CPU Dropout2D / Dropout3D: one std::bernoulli_distribution(keep_prob) draw per channel from the
    kernel's minstd_rand0, a kept channel times 1.f / keep_prob (float32: in float; other dtypes: scale * float(x)
    cast back), the mask per channel in x's dtype."""
    keep = np.float32(1.0 - p)
    shape = x.shape[:channel_dims] + (1,) * (x.dim() - channel_dims)
    channels = math.prod(shape)
    if keep == 0:
        kept = np.zeros(channels, np.bool_)
    else:
        kept = minstd_bernoulli(engines.engine(tuple(x.shape), MinstdRand0), channels, float(keep))
    mask = torch.from_numpy(kept.reshape(shape)).to(x.device)
    scale = float(np.float32(1.0) / keep) if keep else 0.0
    if x.dtype == torch.float32:
        out = x * scale
    else:
        out = (x.float() * scale).to(x.dtype)
    return torch.where(mask, out, torch.zeros((), dtype=x.dtype, device=x.device)), mask.to(x.dtype)


def dropout_grad(dout, mask, keep_prob):
    if keep_prob == 0.0:
        return dout * mask
    return dout * mask * (1.0 / keep_prob)


def uniform_noise(x, lower, upper, generator):
    """Samples of U(lower, upper) shaped and typed like x (rrelu's slopes)."""
    g = generator.raw
    u = torch.empty(x.shape, dtype=x.dtype, device=g.device).uniform_(lower, upper, generator=g)
    return u.to(x.device) if u.device != x.device else u


def gumbel_noise(x, generator):
    """-log(-log(U)) samples shaped and typed like x."""
    g = generator.raw
    u = torch.empty(x.shape, dtype=x.dtype, device=g.device).exponential_(generator=g)
    u = -torch.log(u)
    return u.to(x.device) if u.device != x.device else u


def argmax_one_hot(x, axis):
    """One-hot (x's dtype) of the maximum along `axis`."""
    idx = x.argmax(axis, keepdim=True)
    return torch.zeros_like(x).scatter_(axis, idx, 1.0)


# ---------------------------------------------------------------- dense / embedding / distances
def dense(x, weight, bias):
    if half_on_cpu(x, weight) and (bias is None or half_on_cpu(bias)):     # see half_on_cpu
        return F.linear(x.float(), weight.float(), None if bias is None else bias.float()).half()
    return F.linear(x, weight, bias)


def embedding(indices, weight, padding_idx=None, scale_grad_by_freq=False):
    return F.embedding(indices.long() if indices.dtype != torch.int64 else indices, weight)


_embedding_backward = _A.embedding_dense_backward.default


def embedding_grad(dout, indices, num_weights, padding_idx, scale_grad_by_freq):
    idx = indices.long() if indices.dtype != torch.int64 else indices
    return _embedding_backward(dout, idx, num_weights, -1 if padding_idx is None else padding_idx,
                               scale_grad_by_freq)


def embedding_grad_transpose(ddw, indices, padding_idx, scale_grad_by_freq):
    """Adjoint of embedding_grad with respect to dout: rows of ddw gathered (and scaled like the forward)."""
    idx = indices.long() if indices.dtype != torch.int64 else indices
    out = F.embedding(idx, ddw)
    if scale_grad_by_freq:
        counts = torch.bincount(idx.reshape(-1), minlength=ddw.shape[0]).to(ddw.dtype)
        out = out / counts[idx].unsqueeze(-1)
    if padding_idx is not None:
        out = out * (idx != padding_idx).unsqueeze(-1).to(ddw.dtype)
    return out


def embedding_renorm(weight, indices, max_norm, norm_type):
    """Rows of weight used by indices rescaled to norm <= max_norm (a new tensor)."""
    w = weight.clone()
    idx = indices.long() if indices.dtype != torch.int64 else indices
    return torch.embedding_renorm_(w, idx, max_norm, norm_type)


def cdist(x1, x2, p):
    return torch.cdist(x1, x2, p, compute_mode="donot_use_mm_for_euclid_dist")


def band_matrix(n, radius, dtype):
    """n x n matrix with ones where |i - j| <= radius (LRN's channel window)."""
    from mindseed._backend import _core as _backend  # noqa: PLC0415 -- the current device is chosen at run time
    i = torch.arange(n, device=_backend.device())
    return ((i[:, None] - i[None, :]).abs() <= radius).to(_TORCH_DTYPES[dtype])


# ---------------------------------------------------------------- fused attention (graph fusion target)
def flash_attention_supported(q_dtype, device_type=None):
    """Whether the fused attention kernels below run for this dtype on the current device (CPU flash kernel)."""
    return (device_type or _device_type()) == "cpu" and q_dtype in ("Float32", "Float64", "BFloat16", "Float16")


def _device_type():
    from mindseed._backend._core import device  # noqa: PLC0415 -- the package imports this module
    return device().type


def _masks_a_whole_row(mask):
    """Whether some row of the additive mask is all -inf: softmax gives NaN there, the flash kernel 0."""
    return mask is not None and bool(torch.isneginf(mask).all(-1).any())


def _attention_probs(q, k, mask, scale):
    s = torch.matmul(q, k.transpose(-1, -2)).mul_(scale)
    if mask is not None:
        s = s + mask
    return s, torch.softmax(s, -1)


def flash_attention(q, k, v, mask=None, *, scale):
    """(softmax(q @ k^T * scale + mask) @ v, log-sum-exp per row) as one blocked kernel: the (T, S)
    attention matrix is never materialized. q, k, v: (B, H, T|S, D); mask additive, 2-D or 4-D, broadcastable.
    A mask hiding a whole row takes the unfused ops, whose NaN row the flash kernel would turn into zeros."""
    if mask is not None and mask.dtype != q.dtype:
        mask = mask.to(q.dtype)
    if _masks_a_whole_row(mask):
        s, a = _attention_probs(q, k, mask, scale)
        return torch.matmul(a, v), torch.logsumexp(s, -1)
    return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, False, attn_mask=mask,
                                                                      scale=scale)


def flash_attention_grad(dout, q, k, v, out, lse, mask=None, *, scale):
    """(dq, dk, dv) of flash_attention, recomputing the attention blocks from q, k and the saved lse."""
    if mask is not None and mask.dtype != q.dtype:
        mask = mask.to(q.dtype)
    if _masks_a_whole_row(mask):
        _, a = _attention_probs(q, k, mask, scale)
        da = torch.matmul(dout, v.transpose(-1, -2))
        ds = torch._softmax_backward_data(da, a, -1, a.dtype).mul_(scale)
        return torch.matmul(ds, k), torch.matmul(ds.transpose(-1, -2), q), torch.matmul(a.transpose(-1, -2), dout)
    return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(
        dout, q, k, v, out, lse, 0.0, False, attn_mask=mask, scale=scale)
