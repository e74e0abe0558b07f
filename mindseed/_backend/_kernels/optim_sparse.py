"""Optimizer kernels of MindSpore's remaining update primitives: the sign-based rules (AddSign, PowerSign), proximal
gradient descent, Keras momentum, Adagrad-DA, Adam without the parameter update, and the row-sparse forms of the
dense rules (SparseApply*, FusedSparse*)."""
import torch

from mindseed._backend._kernels import optim as D
from mindseed._backend._kernels.array import occurrence_waves


def sparse_rows_(dense_, tensors, grad, indices, *args, skip_outside=False, **kwargs):
    """Apply `dense_([rows of each tensor], [grad rows], *args)` to the rows `indices` of `tensors` (a variable
    and its state, same first dim), then write the rows back. Duplicate indices have their gradients summed
    first (MindSpore's CPU kernels reduce the sparse gradient the same way). An index outside the rows is an error,
    or with `skip_outside` passed over with its gradient row (MindSpore's SparseApplyFtrl / FusedSparseFtrl CPU
    kernel)."""
    idx = indices.reshape(-1).long()
    n = tensors[0].shape[0]
    if idx.numel() and (idx.min() < 0 or idx.max() >= n):
        if not skip_outside:
            raise IndexError(f"indices must be in [0, {n}), but got values in [{int(idx.min())}, {int(idx.max())}]")
        inside = (idx >= 0) & (idx < n)
        grad = grad.reshape((idx.numel(),) + tuple(grad.shape[1:]))[inside]
        idx = idx[inside]
    uniq, inverse = torch.unique(idx, return_inverse=True)
    g = torch.zeros((uniq.numel(),) + tuple(grad.shape[1:]), dtype=grad.dtype, device=grad.device)
    g.index_add_(0, inverse, grad.reshape((idx.numel(),) + tuple(grad.shape[1:])))
    rows = [t.index_select(0, uniq) for t in tensors]
    dense_(*[[r] for r in rows[:1]], [g], *[[r] for r in rows[1:]], *args, **kwargs)
    for t, r in zip(tensors, rows):
        t.index_copy_(0, uniq, r)


def _waves(indices, n):
    """The positions of `indices` in waves of distinct rows (`occurrence_waves`): MindSpore's CPU kernels of
    SparseApplyMomentum, SparseApplyProximalGradientDescent and SparseApplyAdagradDA walk the indices one by one."""
    idx = indices.reshape(-1).long()
    if idx.numel() and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise IndexError(f"values in indices should be in [0, {n}), but got {int(bad)}")
    return occurrence_waves(idx)


def sequential_rows_(step_, tensors, grad, indices, *scalars):
    """Apply `step_(*rows of tensors, grad rows, *scalars)` row by row in the order of `indices` (a repeated row is
    updated again from its new value). The scalars (Python numbers or one-element tensors) are cast to the variable's
    dtype first, as MindSpore's kernels read them, so half precision rounds after each operation as theirs does."""
    var = tensors[0]
    scalars = [torch.as_tensor(s, device=var.device).reshape(()).to(var.dtype) for s in scalars]
    grad = grad.reshape((-1,) + tuple(var.shape[1:])).to(var.dtype)
    for rows, at in _waves(indices, var.shape[0]):
        parts = [t.index_select(0, rows) for t in tensors]
        step_(*parts, grad.index_select(0, at), *scalars)
        for t, r in zip(tensors, parts):
            t.index_copy_(0, rows, r)


def _div(a, b):
    """a / b in the dtype of a (C++ division: integers truncate)."""
    if a.dtype.is_floating_point or a.dtype.is_complex:
        return a / b
    return torch.div(a, b, rounding_mode="trunc")


def _via_double(fn, x):
    """fn computed in float64 and cast back to x's dtype (the kernels' std::fabs / std::sqrt / std::fmax on double)."""
    return fn(x.double()).to(x.dtype)


def momentum_rows_(var, accum, grad, lr, momentum):
    """SparseApplyMomentum's row step: accum = accum * momentum + g; var -= lr * accum. (MindSpore 2.10's CPU kernel
    applies this rule whatever `use_nesterov` says.)"""
    accum.copy_(accum * momentum + grad)
    var.copy_(var - lr * accum)


def proximal_gradient_descent_rows_(var, grad, alpha, l1, l2):
    """SparseApplyProximalGradientDescent's row step: prox = var - g * alpha; var = sign(prox) max(|prox| - alpha l1,
    0) / (1 + l2 alpha) when l1 > 0, else prox / (1 + l2 alpha)."""
    prox = var - grad * alpha
    denom = 1 + l2 * alpha
    if float(l1) > 0:
        shrink = float(alpha) * float(l1)
        prox = torch.sign(prox) * _via_double(lambda p: torch.clamp(p.abs() - shrink, min=0), prox)
    var.copy_(_div(prox, denom))


def adagrad_da_rows_(var, gacc, gsq, grad, lr, l1, l2, global_step):
    """SparseApplyAdagradDA's row step: gacc += g; gsq += g * g; var = -shrink(gacc / t, l1) / (l2 + sqrt(gsq) /
    (t lr)), where shrink(x, l1) = sign(x) max(|x| - l1, 0) when l1 > 0, else x (t = global_step)."""
    gacc.copy_(gacc + grad)
    gsq.copy_(gsq + grad * grad)
    denom = l2 + _div(_via_double(torch.sqrt, gsq), global_step * lr)
    if float(l1) > 0:
        num = torch.sign(gacc) * torch.clamp(_div(gacc.abs(), global_step) - l1, min=0)
    else:
        num = _div(gacc, global_step)
    var.copy_(_div(-num, denom))


def rms_prop_(params, grads, ms, moms, lr, decay, momentum, epsilon):
    """SparseApplyRMSProp's rows, rounded as MindSpore's CPU kernel: in float32 (float16 state is computed in float32
    and rounded once), ms = ms * rho + (g * g) * (1 - rho) only where g != 0 (a zero gradient leaves ms as it is),
    mom = mom * momentum + (lr * g) * (1 / sqrt(ms + eps)), var -= mom."""
    for var, g, m, mom in zip(params, grads, ms, moms):
        wide = torch.float32 if var.dtype in (torch.float16, torch.bfloat16) else var.dtype
        v32, g32, m32, mom32 = (t.to(wide) for t in (var, g, m, mom))
        m32 = torch.where(g32 != 0, m32 * decay + (g32 * g32) * (1 - decay), m32)
        mom32 = mom32 * momentum + (g32 * lr) * torch.reciprocal(torch.sqrt(m32 + epsilon))
        m.copy_(m32)
        mom.copy_(mom32)
        var.copy_(v32 - mom.to(wide))         # the stored (rounded) momentum is what is subtracted


def centered_rms_prop_(params, grads, mgs, mss, moms, lr, rho, momentum, epsilon):
    """SparseApplyCenteredRMSProp's rows (in float32 for half-precision state): ms = rho ms + (1 - rho) g^2,
    mg = rho mg + (1 - rho) g, mom = momentum mom + lr g / sqrt(ms - mg^2 + eps), var -= mom."""
    for var, g, mg, ms, mom in zip(params, grads, mgs, mss, moms):
        wide = torch.float32 if var.dtype in (torch.float16, torch.bfloat16) else var.dtype
        v32, g32, mg32, ms32, mom32 = (t.to(wide) for t in (var, g, mg, ms, mom))
        ms32 = ms32 * rho + (g32 * g32) * (1 - rho)
        mg32 = mg32 * rho + g32 * (1 - rho)
        mom32 = mom32 * momentum + (g32 * lr) / torch.sqrt(ms32 - mg32 * mg32 + epsilon)
        mg.copy_(mg32)
        ms.copy_(ms32)
        mom.copy_(mom32)
        var.copy_(v32 - mom.to(wide))


def add_sign_(var, m, grad, lr, alpha, sign_decay, beta):
    """m = beta m + (1 - beta) g; var -= lr (alpha + sign_decay sign(g) sign(m)) g."""
    m.mul_(beta).add_(grad, alpha=1 - beta)
    var.sub_(lr * (alpha + sign_decay * torch.sign(grad) * torch.sign(m)) * grad)


def power_sign_(var, m, grad, lr, logbase, sign_decay, beta):
    """m = beta m + (1 - beta) g; var -= lr exp(logbase sign_decay sign(g) sign(m)) g."""
    m.mul_(beta).add_(grad, alpha=1 - beta)
    var.sub_(lr * torch.exp(logbase * sign_decay * torch.sign(grad) * torch.sign(m)) * grad)


def proximal_gradient_descent_(var, delta, alpha, l1, l2):
    """prox = var - alpha delta; var = sign(prox) max(|prox| - alpha l1, 0) / (1 + alpha l2)."""
    prox = var - alpha * delta
    if l1 > 0:
        prox = torch.sign(prox) * torch.clamp(prox.abs() - alpha * l1, min=0)
    var.copy_(prox / (1 + alpha * l2))


def keras_momentum_(var, accum, grad, lr, momentum, use_nesterov):
    """accum = momentum accum - lr g; var += accum (Nesterov: var += momentum accum - lr g)."""
    accum.mul_(momentum).sub_(grad, alpha=lr)
    if use_nesterov:
        var.add_(momentum * accum - lr * grad)
    else:
        var.add_(accum)


def adagrad_da_(var, gacc, gsq, grad, lr, l1, l2, global_step):
    """Adagrad dual averaging: gacc += g, gsq += g^2, var = -lr shrink(gacc, l1 t) / (l2 t lr + sqrt(gsq))."""
    gacc.add_(grad)
    gsq.addcmul_(grad, grad)
    shrunk = torch.sign(gacc) * torch.clamp(gacc.abs() - l1 * global_step, min=0) if l1 > 0 else gacc
    var.copy_(-lr * shrunk / (l2 * global_step * lr + gsq.sqrt()))


def adam_delta(m, v, grad, beta1_power, beta2_power, lr, beta1, beta2, eps, use_nesterov):
    """Adam's moments updated in place; returns the update that Adam would add to the parameter."""
    m.mul_(beta1).add_(grad, alpha=1 - beta1)
    v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    rate = lr * (1 - beta2_power) ** 0.5 / (1 - beta1_power)
    num = m * beta1 + (1 - beta1) * grad if use_nesterov else m
    return -rate * num / (v.sqrt() + eps)


def dense_grad(var, grad, indices):
    """The dense gradient of `var`'s shape from row gradients (duplicates summed)."""
    out = torch.zeros_like(var)
    out.index_add_(0, indices.reshape(-1).long(), grad.reshape((-1,) + tuple(var.shape[1:])).to(var.dtype))
    return out


adagrad_ = D.apply_adagrad_
adadelta_ = D.apply_adadelta_
proximal_adagrad_ = D.apply_proximal_adagrad_
ftrl_ = D.apply_ftrl_
adam_ = D.adam_
momentum_ = D.apply_momentum_
