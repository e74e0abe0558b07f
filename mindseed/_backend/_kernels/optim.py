"""Kernels of the optimizers: fused, in-place parameter updates on lists of backend tensors.

Every function updates `params` and the optimizer state in place and never writes to `grads`
(gradients may alias each other or the user's tensors). Hyper-parameters are Python numbers.
The update rules are MindSpore's (ApplyMomentum, SGD, Adam, ApplyAdagrad, ...); the names of the
arguments follow the primitives'. `torch._foreach_*` runs one kernel over the whole list.
"""
import math

import torch

from mindseed._backend._core import to_dtype


# ---------------------------------------------------------------- small helpers used by nn.optim
def item(x):
    """A one-element tensor as a Python number."""
    return x.item()


def step_(x):
    """global_step += 1, in place."""
    x.add_(1)


def assign_(dst, value):
    """dst[...] = value (a tensor or a number), in place."""
    if isinstance(value, torch.Tensor):
        value = to_dtype(value, dst.dtype)
        dst.copy_(value.reshape(dst.shape) if value.numel() == dst.numel() else value)
    elif isinstance(value, float) and dst.is_floating_point():
        dst.copy_(torch.tensor(value, dtype=torch.float64))    # beyond the dtype's range: inf, as MindSpore
    else:
        dst.fill_(value)


def mul_scalar_(x, value):
    x.mul_(value)


def gather_item(x, index):
    """x[index] as a Python float (the learning rate of step `index` from a dynamic-lr list)."""
    n = x.shape[0]
    if not 0 <= index < n:
        raise RuntimeError(f"For 'Gather', the 'input_indices' should be in the range [0, {n}), but got {index}: the "
                           f"dynamic learning rate has {n} values and step {index} asks for one more.")
    return x[index].item()


def all_finite(xs):
    """True when no tensor of the list holds inf or nan (one reduction per tensor, one sync)."""
    if not xs:
        return True
    flags = [torch.isfinite(x).all() for x in xs]
    return bool(torch.stack(flags).all().item())


def scaled(xs, factor):
    """New tensors x * factor."""
    return torch._foreach_mul(xs, factor)


def decayed(grads, params, wd):
    """New tensors grad + wd * param (MindSpore's decay_weight)."""
    return torch._foreach_add(grads, params, alpha=wd)


def centralized(g):
    """g - mean(g over all axes but the first): gradient centralization of a conv/dense weight."""
    return g - g.mean(dim=tuple(range(1, g.dim())), keepdim=True)


def neg(xs):
    return torch._foreach_neg(xs)


# ---------------------------------------------------------------- SGD family
# torch's fused SGD kernel reads and writes each element once (the three _foreach passes below move 8 tensors'
# worth of memory, it moves 5). Its vector loop computes exactly what they do (accum * momentum, + grad, then
# var + (-lr) * accum); only its scalar loop, which takes the last numel % (vector width) elements, may round
# differently (a compiler-fused multiply-add). So it takes the tensors whose size is a multiple of 16 (a whole
# number of vectors at every width) and the rest stay on the _foreach path: the numbers do not change.
_FUSED_SGD = getattr(torch, "_fused_sgd_", None)
_FUSED_SGD_DTYPES = (torch.float32, torch.float64)


_CHANNELS_LAST = torch.channels_last


def _channels_last(t):
    return t.dim() == 4 and t.is_contiguous(memory_format=_CHANNELS_LAST)


def _owns_storage(t):
    """Whether t is its storage's only view, whole."""
    return t.storage_offset() == 0 and t.untyped_storage().nbytes() == t.numel() * t.element_size()


def _relayout_(t, memory_format):
    """t's storage replaced, in place, by a copy in `memory_format` (same values, same tensor object); False,
    untouched, when t is part of a larger buffer, which must keep seeing it."""
    if t.is_contiguous(memory_format=memory_format):
        return True
    if not _owns_storage(t):
        return False
    t.set_(t.contiguous(memory_format=memory_format))
    return True


def _memory_order(t):
    """A channels-last tensor as the contiguous (N, H, W, C) view of its storage (aten's fused SGD would copy it)."""
    return t.permute(0, 2, 3, 1)


def _fusable(p, g, a):
    """(p, g, a) as tensors of one dense memory layout, or None when there is none (the fused kernel walks raw
    memory order).

    A parameter takes the layout of its gradient: a convolution weight whose gradient comes channels-last (the
    NHWC convolutions of kernels/conv.py) moves, with its optimizer state, to channels-last storage once, at its
    first update. Its logical shape and values do not change; from then on the convolutions read it without the
    reorder oneDNN otherwise does per call (forward and data gradient), and the update reads the gradient
    without a copy. A parameter set back to NCHW (set_data, a loaded checkpoint) takes its state back with it.
    """
    if p.is_contiguous() and g.is_contiguous() and a.is_contiguous():
        return p, g, a    # the common case, first: this runs for every parameter at every step
    if p.is_contiguous():
        if _channels_last(g) and not g.is_contiguous() and _owns_storage(p) \
                and _relayout_(a, _CHANNELS_LAST):
            _relayout_(p, _CHANNELS_LAST)
            return _memory_order(p), _memory_order(g), _memory_order(a)
        if not _relayout_(a, torch.contiguous_format):
            return None
        # e.g. a strided gradient: one copy beats 3 strided passes
        return p, g.contiguous(), a
    if _channels_last(p) and _relayout_(a, _CHANNELS_LAST):
        return _memory_order(p), _memory_order(g.contiguous(memory_format=_CHANNELS_LAST)), _memory_order(a)
    return None


def _whole_vectors(params, grads, accums):
    """(params, grads, accums) split into the lists fused SGD computes exactly and the rest."""
    fused, rest = ([], [], []), ([], [], [])
    for p, g, a in zip(params, grads, accums):
        # runs every step: cheap attribute checks only (`.device` builds an object; `.is_cpu` does not)
        dt = p.dtype
        matched = None
        # (equal sizes: the fused kernel walks raw memory and does not check them; the _foreach path raises)
        n = p.numel()
        if dt in _FUSED_SGD_DTYPES and g.dtype == dt and a.dtype == dt and n % 16 == 0 and g.numel() == n \
                and a.numel() == n and p.is_cpu and g.is_cpu and a.is_cpu:
            matched = _fusable(p, g, a)
        if matched is None:
            ps, gs, accs = rest
        else:
            ps, gs, accs = fused
            p, g, a = matched
        ps.append(p)
        gs.append(g)
        accs.append(a)
    return fused, rest


def apply_momentum_(params, grads, accums, lr, momentum, use_nesterov=False):
    """ApplyMomentum: accum = accum * momentum + grad; var -= lr * accum (nesterov: lr * (grad + momentum * accum))."""
    if not use_nesterov and _FUSED_SGD is not None:
        (fp, fg, fa), (params, grads, accums) = _whole_vectors(params, grads, accums)
        if fp:
            _FUSED_SGD(fp, fg, fa, weight_decay=0.0, momentum=momentum, lr=lr, dampening=0.0, nesterov=False,
                       maximize=False, is_first_step=False)
        if not params:
            return
    torch._foreach_mul_(accums, momentum)
    torch._foreach_add_(accums, grads)
    if use_nesterov:
        torch._foreach_add_(params, grads, alpha=-lr)
        torch._foreach_add_(params, accums, alpha=-lr * momentum)
    else:
        torch._foreach_add_(params, accums, alpha=-lr)


def sgd_(params, grads, accums, stats, lr, momentum, dampening, nesterov, weight_decay=0.0):
    """MindSpore's SGD primitive: the first step with momentum seeds the buffer with the gradient (stat=1)."""
    if weight_decay > 0:
        grads = torch._foreach_add(grads, params, alpha=weight_decay)
    if momentum > 0:
        # accum = stat > 0 ? grad : momentum * accum + (1 - dampening) * grad, without branching (seed = stat > 0):
        # accum * momentum * (1 - seed) + grad * ((1 - dampening) + dampening * seed)
        seeds = [torch.gt(s, 0).to(s.dtype) for s in stats]
        keep = torch._foreach_neg(seeds)
        torch._foreach_add_(keep, 1.0)
        torch._foreach_mul_(accums, keep)
        torch._foreach_mul_(accums, momentum)
        coef = torch._foreach_mul(seeds, dampening)
        torch._foreach_add_(coef, 1 - dampening)
        torch._foreach_addcmul_(accums, grads, coef)
        torch._foreach_mul_(stats, keep)       # the seeded entries' stat goes to 0, the others are kept
        if nesterov:
            upd = torch._foreach_add(grads, accums, alpha=momentum)
        else:
            upd = accums
        torch._foreach_add_(params, upd, alpha=-lr)
    else:
        torch._foreach_add_(params, grads, alpha=-lr)


# ---------------------------------------------------------------- Adam family
def _adam_moments_(grads, m, v, beta1, beta2):
    torch._foreach_mul_(m, beta1)
    torch._foreach_add_(m, grads, alpha=1 - beta1)
    torch._foreach_mul_(v, beta2)
    torch._foreach_addcmul_(v, grads, grads, value=1 - beta2)


def adam_(params, grads, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, use_nesterov=False):
    """Adam primitive: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t); var -= lr_t * m / (sqrt(v) + eps)."""
    _adam_moments_(grads, m, v, beta1, beta2)
    lr_t = lr * math.sqrt(1 - beta2_power) / (1 - beta1_power)
    denom = torch._foreach_sqrt(v)
    torch._foreach_add_(denom, eps)
    if use_nesterov:
        num = torch._foreach_mul(m, beta1)
        torch._foreach_add_(num, grads, alpha=1 - beta1)
    else:
        num = m
    torch._foreach_addcdiv_(params, num, denom, value=-lr_t)


def adam_amsgrad_(params, grads, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, eps):
    """ApplyAdamWithAmsgradV2: as Adam with v replaced by the running maximum vhat."""
    _adam_moments_(grads, m, v, beta1, beta2)
    torch._foreach_maximum_(vhat, v)
    lr_t = lr * math.sqrt(1 - beta2_power) / (1 - beta1_power)
    denom = torch._foreach_sqrt(vhat)
    torch._foreach_add_(denom, eps)
    torch._foreach_addcdiv_(params, m, denom, value=-lr_t)


def adam_weight_decay_(params, grads, m, v, lr, beta1, beta2, eps, weight_decay):
    """AdamWeightDecay: no bias correction; var -= lr * (m / (sqrt(v) + eps) + weight_decay * var)."""
    _adam_moments_(grads, m, v, beta1, beta2)
    denom = torch._foreach_sqrt(v)
    torch._foreach_add_(denom, eps)
    upd = torch._foreach_div(m, denom)
    if weight_decay:
        torch._foreach_add_(upd, params, alpha=weight_decay)
    torch._foreach_add_(params, upd, alpha=-lr)


def adamw_(params, grads, m, v, vmax, step, lr, beta1, beta2, eps, weight_decay, amsgrad):
    """experimental AdamW: decoupled decay, bias-corrected moments, eps added after the correction."""
    torch._foreach_mul_(params, 1 - lr * weight_decay)
    _adam_moments_(grads, m, v, beta1, beta2)
    bc1 = 1 - beta1 ** step
    bc2_sqrt = math.sqrt(1 - beta2 ** step)
    if amsgrad:
        torch._foreach_maximum_(vmax, v)
        v = vmax
    denom = torch._foreach_sqrt(v)
    torch._foreach_div_(denom, bc2_sqrt)
    torch._foreach_add_(denom, eps)
    torch._foreach_addcdiv_(params, m, denom, value=-lr / bc1)


def ada_max_(params, grads, m, v, beta1_power, lr, beta1, beta2, eps):
    """ApplyAdaMax: v = max(beta2 * v, |grad|); var -= lr / (1 - beta1^t) * m / (v + eps)."""
    torch._foreach_mul_(m, beta1)
    torch._foreach_add_(m, grads, alpha=1 - beta1)
    torch._foreach_mul_(v, beta2)
    torch._foreach_maximum_(v, torch._foreach_abs(grads))
    denom = torch._foreach_add(v, eps)
    torch._foreach_addcdiv_(params, m, denom, value=-lr / (1 - beta1_power))


def adamax_torch_style_(params, grads, m, u, step, lr, beta1, beta2, eps):
    """experimental Adamax: u = max(beta2 * u, |grad| + eps); var -= lr / (1 - beta1^t) * m / u."""
    torch._foreach_mul_(m, beta1)
    torch._foreach_add_(m, grads, alpha=1 - beta1)
    torch._foreach_mul_(u, beta2)
    absg = torch._foreach_abs(grads)
    torch._foreach_add_(absg, eps)
    torch._foreach_maximum_(u, absg)
    torch._foreach_addcdiv_(params, m, u, value=-lr / (1 - beta1 ** step))


def _widest(x):
    """`x` in float32 when it is narrower (float16, bfloat16), else as it is: the norms' precision."""
    return x.float() if x.is_floating_point() and x.element_size() < 4 else x


def _whole_sum(x, dims, reduce=None, of=None):
    """`x` summed over its `dims` (keeping them); with `reduce` (the parallel optimizer's: a rank's slices of a
    parameter) the sum of every slice's along the parameter's dims `of` (default `dims`): `reduce(numpy partial
    sums, parameter dims)` gives their sum over the ranks holding the other pieces of those dims."""
    s = x.sum(dim=dims, keepdim=True)
    if reduce is None:
        return s
    whole = reduce(s.detach().cpu().numpy(), tuple(of if of is not None else dims))
    return torch.as_tensor(whole, dtype=s.dtype).to(s.device).reshape(s.shape)


def _whole_mean(x, dims, reduce=None, of=None):
    """The mean of `x` over its `dims` (keeping them); with `reduce`, when `x` is a slice of a parameter, over the
    whole parameter's dims `of` (default `dims`; their sizes from ``reduce.shape``)."""
    of = tuple(of if of is not None else dims)
    count = math.prod(reduce.shape[d] for d in of) if reduce is not None else math.prod(x.shape[d] for d in dims)
    return _whole_sum(x, dims, reduce, of) / count


def lamb_(param, m, v, grad, lr, beta1, beta2, eps, weight_decay, step, reduce=None):
    """Lamb (MindSpore's GPU kernel): bias-corrected Adam direction plus decay, scaled by ||w|| / ||update||.
    `reduce`: the norms of a parameter held in slices (`_whole_sum`)."""
    m.mul_(beta1).add_(grad, alpha=1 - beta1)
    v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    mm = m / (1 - beta1 ** step)
    vv = v / (1 - beta2 ** step)
    upd = mm / (vv.sqrt() + eps)
    if weight_decay:
        upd.add_(param, alpha=weight_decay)
    every = tuple(range(param.dim()))
    w_norm = _whole_sum(_widest(param).square(), every, reduce).sqrt().reshape(())
    u_norm = _whole_sum(_widest(upd).square(), every, reduce).sqrt().reshape(())
    ratio = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, torch.ones_like(w_norm))
    param.sub_(upd * (ratio * lr).to(param.dtype))


def lars_grad(weight, grad, weight_decay, lr, epsilon, coefficient, use_clip, reduce=None):
    """LARSUpdate: grad' = coeff * (grad + wd * w), coeff = c * ||w|| / (||g|| + wd * ||w|| + eps); `reduce`: the
    sums of squares of a parameter held in slices (`_whole_sum`)."""
    every = tuple(range(weight.dim()))
    return lars_update(weight, grad, _whole_sum(_widest(weight).square(), every, reduce).reshape(()),
                       _whole_sum(_widest(grad).square(), every, reduce).reshape(()), weight_decay, lr, epsilon,
                       coefficient, use_clip)


def lars_update(weight, grad, w_square_sum, g_square_sum, weight_decay, lr, epsilon, hyperpara, use_clip):
    """LARSUpdate from the sums of squares of the weight and the gradient (clip: min(max(coeff / lr, 0), 1)); the
    norms in float32 at least."""
    wide = torch.promote_types(grad.dtype, torch.float32) if grad.is_floating_point() else torch.float32
    w_norm = torch.as_tensor(w_square_sum, dtype=wide).sqrt()
    g_norm = torch.as_tensor(g_square_sum, dtype=wide).sqrt()
    coeff = hyperpara * w_norm / (g_norm + weight_decay * w_norm + epsilon)
    if use_clip:
        coeff = torch.clamp(coeff / lr, 0.0, 1.0)
    return (grad + weight * weight_decay) * coeff.to(grad.dtype)


def gradient_descent_(params, deltas, alpha):
    """ApplyGradientDescent: var -= alpha * delta."""
    torch._foreach_add_(params, deltas, alpha=-alpha)


# ---------------------------------------------------------------- adaptive-rate family
def apply_adagrad_(params, grads, accums, lr, update_slots=True, eps=0.0):
    """ApplyAdagrad(V2): accum += grad^2; var -= lr * grad / (sqrt(accum) + eps)."""
    if update_slots:
        torch._foreach_addcmul_(accums, grads, grads)
    denom = torch._foreach_sqrt(accums)
    if eps:
        torch._foreach_add_(denom, eps)
    torch._foreach_addcdiv_(params, grads, denom, value=-lr)


def apply_adadelta_(params, grads, accums, accum_updates, lr, rho, epsilon):
    """ApplyAdadelta: update = sqrt(accum_update + eps) / sqrt(accum + eps) * grad."""
    torch._foreach_mul_(accums, rho)
    torch._foreach_addcmul_(accums, grads, grads, value=1 - rho)
    num = torch._foreach_add(accum_updates, epsilon)
    torch._foreach_sqrt_(num)
    den = torch._foreach_add(accums, epsilon)
    torch._foreach_sqrt_(den)
    upd = torch._foreach_div(num, den)
    torch._foreach_mul_(upd, grads)
    torch._foreach_mul_(accum_updates, rho)
    torch._foreach_addcmul_(accum_updates, upd, upd, value=1 - rho)
    torch._foreach_add_(params, upd, alpha=-lr)


def apply_rms_prop_(params, grads, ms, moms, lr, decay, momentum, epsilon, mgs=None):
    """ApplyRMSProp / ApplyCenteredRMSProp: mom = momentum * mom + lr * g / sqrt(ms [- mg^2] + eps); var -= mom."""
    torch._foreach_mul_(ms, decay)
    torch._foreach_addcmul_(ms, grads, grads, value=1 - decay)
    if mgs is not None:
        torch._foreach_mul_(mgs, decay)
        torch._foreach_add_(mgs, grads, alpha=1 - decay)
        denom = torch._foreach_addcmul(ms, mgs, mgs, value=-1.0)
        torch._foreach_add_(denom, epsilon)
    else:
        denom = torch._foreach_add(ms, epsilon)
    torch._foreach_sqrt_(denom)
    torch._foreach_mul_(moms, momentum)
    torch._foreach_addcdiv_(moms, grads, denom, value=lr)
    torch._foreach_sub_(params, moms)


def rmsprop_torch_style_(params, grads, ms, mgs, moms, lr, alpha, eps, momentum, centered):
    """experimental RMSprop: avg = sqrt(ms [- mg^2]) + eps; with momentum mom = momentum * mom + g / avg."""
    torch._foreach_mul_(ms, alpha)
    torch._foreach_addcmul_(ms, grads, grads, value=1 - alpha)
    if centered:
        torch._foreach_mul_(mgs, alpha)
        torch._foreach_add_(mgs, grads, alpha=1 - alpha)
        avg = torch._foreach_addcmul(ms, mgs, mgs, value=-1.0)
        torch._foreach_sqrt_(avg)
    else:
        avg = torch._foreach_sqrt(ms)
    torch._foreach_add_(avg, eps)
    if momentum > 0:
        torch._foreach_mul_(moms, momentum)
        torch._foreach_addcdiv_(moms, grads, avg)
        torch._foreach_add_(params, moms, alpha=-lr)
    else:
        torch._foreach_addcdiv_(params, grads, avg, value=-lr)


def apply_proximal_adagrad_(params, grads, accums, lr, l1, l2):
    """ApplyProximalAdagrad: a = lr / sqrt(accum), prox = var - a g, var = sign(prox) max(|prox| - a l1, 0) / (1 + a l2)

    (a, not lr, scales the penalties: MindSpore's kernel, as TensorFlow's.)
    """
    torch._foreach_addcmul_(accums, grads, grads)
    for p, g, acc in zip(params, grads, accums):
        rate = lr * acc.rsqrt()
        prox = p - rate * g
        if l1 > 0:
            prox = torch.sign(prox) * torch.clamp(prox.abs() - rate * l1, min=0)
        p.copy_(prox / (1 + rate * l2))


def apply_ftrl_(params, grads, accums, linears, lr, l1, l2, lr_power, l2_shrinkage=0.0):
    """ApplyFtrl: follow-the-regularized-leader with accumulators `accum` and `linear` (FTRL-V2: the linear term
    sees the gradient plus `2 l2_shrinkage w`). float16 state is computed in float32 (as MindSpore's CPU kernel)."""
    for w16, g16, acc16, lin16 in zip(params, grads, accums, linears):
        w, g, acc, lin = (t.float() if t.dtype == torch.float16 else t for t in (w16, g16, acc16, lin16))
        new_acc = acc + g * g
        if lr_power == -0.5:
            acc_pow, new_pow = acc.sqrt(), new_acc.sqrt()
        else:
            acc_pow, new_pow = acc.pow(-lr_power), new_acc.pow(-lr_power)
        lin = lin + ((g + 2 * l2_shrinkage * w if l2_shrinkage else g) - (new_pow - acc_pow) / lr * w)
        quadratic = new_pow / lr + 2 * l2
        x = torch.clamp(lin, -l1, l1) - lin
        w16.copy_(torch.where(lin.abs() > l1, x / quadratic, torch.zeros_like(w)))
        lin16.copy_(lin)
        acc16.copy_(new_acc)


def asgd_(param, grad, ax, eta, mu, lambd):
    """Averaged SGD step for one parameter with scalar eta, mu (the caller updates those)."""
    param.mul_(1 - lambd * eta).add_(grad, alpha=-eta)
    if mu != 1:
        ax.add_((param - ax) * mu)
    else:
        ax.copy_(param)


def rprop_(param, grad, prev, step_size, lr, first, etaminus, etaplus, step_min, step_max):
    """Rprop: per-element step sizes grow by etaplus while the gradient keeps its sign, shrink by etaminus."""
    if first:
        step_size.fill_(lr)
    sign = torch.sign(grad * prev)
    sign = torch.where(sign > 0, torch.full_like(sign, etaplus), sign)
    sign = torch.where(sign < 0, torch.full_like(sign, etaminus), sign)
    sign = torch.where(sign == 0, torch.ones_like(sign), sign)
    step_size.copy_(torch.clamp(step_size * sign, step_min, step_max))
    g = torch.where(sign == torch.tensor(etaminus, dtype=sign.dtype), torch.zeros_like(grad), grad)
    param.sub_(torch.sign(g) * step_size)
    prev.copy_(g)


def nadam_(param, grad, m, v, mu_product, step, lr, beta1, beta2, eps, momentum_decay):
    """experimental NAdam for one parameter (mu_product is a 0-d state tensor)."""
    bc2 = 1 - beta2 ** step
    mu = beta1 * (1. - 0.5 * 0.96 ** (step * momentum_decay))
    mu_next = beta1 * (1. - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
    mu_product.mul_(mu)
    mp = mu_product.item()
    m.mul_(beta1).add_(grad, alpha=1 - beta1)
    v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    denom = (v / bc2).sqrt_().add_(eps)
    param.addcdiv_(grad, denom, value=-lr * (1. - mu) / (1. - mp))
    param.addcdiv_(m, denom, value=-lr * mu_next / (1. - mp * mu_next))


def radam_(params, grads, m, v, step, lr, beta1, beta2, eps):
    """experimental RAdam: the adaptive step is used once the variance rectification term rho_t > 5."""
    _adam_moments_(grads, m, v, beta1, beta2)
    bc1 = 1 - beta1 ** step
    bc2 = 1 - beta2 ** step
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * beta2 ** step / bc2
    if rho_t > 5.0:
        rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        denom = torch._foreach_sqrt(v)
        torch._foreach_add_(denom, eps)
        torch._foreach_addcdiv_(params, m, denom, value=-lr * rect * math.sqrt(bc2) / bc1)
    else:
        torch._foreach_add_(params, m, alpha=-lr / bc1)


def _rms(x, reduce=None):
    """The root mean square of `x` (of the whole parameter `x` is a slice of with `reduce`: `_whole_mean`)."""
    return _whole_mean(x.square(), tuple(range(x.dim())), reduce).sqrt().reshape(())


def adafactor_(param, grad, exp_avg, row, col, sq, lr, eps1, eps2, clip_threshold, beta1, beta2t, weight_decay,
               scale_parameter, use_first_moment, reduce=None):
    """AdaFactor for one parameter: factored second moments (row/col) for matrices, a full one for vectors.
    `reduce`: the means of a parameter held in slices (`_whole_mean`); the row moments are then `param`'s slices
    without the last dim, the column moments without dim -2."""
    g = grad.float() if grad.dtype == torch.float16 else grad
    p = param.float() if param.dtype == torch.float16 else param
    lr_t = lr * max(eps2, _rms(p, reduce).item()) if scale_parameter else lr
    upd = g * g + eps1
    if g.dim() >= 2:
        last = g.dim() - 1
        row.mul_(beta2t).add_(_whole_mean(upd, (last,), reduce).squeeze(-1).to(row.dtype), alpha=1.0 - beta2t)
        col.mul_(beta2t).add_(_whole_mean(upd, (last - 1,), reduce).squeeze(-2).to(col.dtype),
                              alpha=1.0 - beta2t)
        r = (row / _whole_mean(row, (last - 1,), reduce)).rsqrt().unsqueeze(-1)
        c = col.unsqueeze(-2).rsqrt()
        upd = r * c * g
    else:
        sq.mul_(beta2t).add_(upd.to(sq.dtype), alpha=1.0 - beta2t)
        upd = g * sq.rsqrt()
    upd = upd / max(_rms(upd, reduce).item() / clip_threshold, 1.0) * lr_t
    if use_first_moment:
        exp_avg.mul_(beta1).add_(upd.to(exp_avg.dtype), alpha=1 - beta1)
        upd = exp_avg
    if weight_decay:
        p = p + p * (-weight_decay * lr_t)
    param.copy_(p - upd)
