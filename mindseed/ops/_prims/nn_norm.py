"""Normalization primitives: LayerNorm, BatchNorm (training) and GroupNorm, with fused gradients.

Each forward primitive also returns its statistics (mean, rstd), which the fused gradient kernel reuses.
Gradients flow only through the normalized output: the cotangents of the statistics outputs are dropped,
as in MindSpore. The gradient primitives share one second-order rule, `_norm_double_backward`: it
recomputes the statistics from x with primitives, so third and higher orders are exact as well.
"""
from mindseed._backend.kernels import nn as K
from mindseed.ops import _infer as I
from mindseed.ops import _sharding as S
from mindseed.ops import _sharding_nn as SN
from mindseed.ops._prims.core import add_p, div_p, getitem_p, mul_p, neg_p, ones_like_p, pow_p, reduce_sum_p, \
    reshape_p, stack_p, sub_p
from mindseed.ops._registry import Prim


def _prod(xs):
    n = 1
    for v in xs:
        n *= v
    return n


def _norm_double_backward(dy, x, w, eps, layout, cot, needs):
    """Bprop of a normalization gradient G(dy, x, w) = (dx, dw, db).

    With x_hat = (x - mean) * r over each statistics group (r = (var + eps)^-1/2), g = w * dy, and
    P(v) = v - <v> - x_hat <v x_hat> (<.> the group mean), the gradient is dx = r P(g),
    dw = sum(dy x_hat), db = sum(dy). `layout` = (stats_shape, stat_axes, w_shape, param_axes): x viewed
    as stats_shape (None: as it is) has each group along stat_axes; w viewed as w_shape broadcasts against
    x; param_axes of x are summed for dw. Returns the gradients for (dy, x, w).
    """
    shape = x.shape
    sshape, axes, w_shape, param_axes = layout
    m = 1.0 / _prod((sshape or shape)[a] for a in axes)

    def view(v):
        return reshape_p(v, shape=sshape) if sshape is not None else v

    def back(v):
        return reshape_p(v, shape=shape) if sshape is not None else v

    def mean(v):
        return mul_p(reduce_sum_p(v, axis=axes, keep_dims=True), m)

    def proj(v):
        return sub_p(sub_p(v, mean(v)), mul_p(xh, mean(mul_p(v, xh))))

    xv = view(x)
    xc = sub_p(xv, mean(xv))
    r = pow_p(add_p(mean(mul_p(xc, xc)), eps), -0.5)
    xh = mul_p(xc, r)
    wb = reshape_p(w, shape=w_shape) if w is not None else None
    g = view(mul_p(dy, wb) if wb is not None else dy)
    a = mean(mul_p(g, xh))
    big_d = sub_p(sub_p(g, mean(g)), mul_p(xh, a))

    c = view(cot[0])
    pc = proj(c)
    rpc = back(mul_p(r, pc))
    ddy = mul_p(rpc, wb) if wb is not None else rpc
    dx = dw = None
    if needs[1]:
        inner = add_p(add_p(mul_p(xh, mean(mul_p(c, big_d))), mul_p(a, pc)), mul_p(big_d, mean(mul_p(c, xh))))
        dx = back(neg_p(mul_p(mul_p(r, r), inner)))
    if wb is not None:
        if needs[2]:
            dw = reshape_p(reduce_sum_p(mul_p(dy, rpc), axis=param_axes), shape=w.shape)
        gwb = reshape_p(cot[1], shape=w_shape)
        ddy = add_p(add_p(ddy, mul_p(back(xh), gwb)), reshape_p(cot[2], shape=w_shape))
        if needs[1]:
            dx = add_p(dx, back(mul_p(r, proj(view(mul_p(dy, gwb))))))
    return (ddy if needs[0] else None), dx, dw


def _norm_pair(name, kernel, grad_kernel, layout_of, fresh=False, fresh_grad=False):
    """Forward primitive (y, mean, rstd, ...) and gradient primitive (dx, dw, db) of a normalization."""
    fwd = Prim(name, kernel, multi_output=True, fresh=fresh)
    grad = Prim(name + "Grad", grad_kernel, multi_output=True, fresh=fresh_grad)

    def grad_bprop(dy, x, w, mean, rstd, out, dout, needs, **attrs):
        ddy, dx, dw = _norm_double_backward(dy, x, w, attrs["eps"], layout_of(x, w, **attrs), dout, needs)
        return ddy, dx, dw, None, None

    grad.def_bprop(grad_bprop, takes_needs=True)
    return fwd, grad


def _layer_norm_layout(x, w, normalized_shape, eps):
    nd, k = x.ndim, len(normalized_shape)
    return None, tuple(range(nd - k, nd)), tuple(normalized_shape), tuple(range(nd - k))


def _channel_layout(x):
    nd = x.ndim
    return (x.shape[1],) + (1,) * (nd - 2), (0,) + tuple(range(2, nd))


def _batch_norm_layout(x, w, eps):
    w_shape, axes = _channel_layout(x)
    return None, axes, w_shape, axes


def _group_norm_layout(x, w, num_groups, eps):
    w_shape, param_axes = _channel_layout(x)
    n = x.shape[0]
    return (n, num_groups, _prod(x.shape[1:]) // num_groups), (2,), w_shape, param_axes


# ---------------------------------------------------------------- LayerNorm
layer_norm_p, layer_norm_grad_p = _norm_pair("LayerNorm", K.layer_norm, K.layer_norm_grad, _layer_norm_layout,
                                             fresh_grad=True)
layer_norm_p.sharding, layer_norm_grad_p.sharding = S.layer_norm, S.layer_norm_grad
layer_norm_p.infer, layer_norm_grad_p.infer = I.layer_norm, I.layer_norm_grad


@layer_norm_p.def_bprop
def _layer_norm_bprop(x, w, b, out, dout, needs, normalized_shape, eps):
    grads = layer_norm_grad_p(dout[0], x, w, out[1], out[2], normalized_shape=normalized_shape, eps=eps)
    dw = grads[1] if w is not None and needs[1] else None
    db = None
    if b is not None and needs[2]:
        db = grads[2] if w is not None else reduce_sum_p(dout[0], axis=tuple(range(x.ndim - len(normalized_shape))))
    return grads[0], dw, db


layer_norm_p.def_bprop(_layer_norm_bprop, takes_needs=True)

# ---------------------------------------------------------------- BatchNorm (training mode; inference is composite)
batch_norm_p, batch_norm_grad_p = _norm_pair("BatchNorm", K.batch_norm_train, K.batch_norm_grad, _batch_norm_layout,
                                             fresh=True, fresh_grad=True)


def _batch_norm_bprop(x, w, b, running_mean, running_var, out, dout, needs, momentum, eps):
    grads = batch_norm_grad_p(dout[0], x, w, out[1], out[2], eps=eps)
    dw = grads[1] if w is not None and needs[1] else None
    db = None
    if b is not None and needs[2]:
        db = grads[2] if w is not None else reduce_sum_p(dout[0], axis=_channel_layout(x)[1])
    return grads[0], dw, db, None, None


batch_norm_p.def_bprop(_batch_norm_bprop, takes_needs=True)
# BatchNorm whose new running statistics are written back to the ones it read (compiler pass
# update_stats_in_place): they are updated in place, and the node has only (y, mean, rstd)
batch_norm_update_p = Prim("BatchNormUpdate", K.batch_norm_train_, multi_output=True, side_effect=True, fresh=True)

# inference: y = (x - mean) * rstd * w + b with rstd = (var + eps)^-1/2, all per channel, in one kernel
batch_norm_infer_p = Prim("BatchNormInference", K.batch_norm_infer)


def _batch_norm_infer_bprop(x, w, b, mean, var, out, dout, needs, eps):
    shape, axes = _channel_layout(x)
    rstd = pow_p(add_p(var, eps), -0.5)
    scale = rstd if w is None else mul_p(rstd, w)
    dx = mul_p(dout, reshape_p(scale, shape=shape)) if needs[0] else None
    dsum = reduce_sum_p(dout, axis=axes) if any(needs[2:4]) else None
    dxc = None
    if (w is not None and needs[1]) or needs[4]:
        dxc = reduce_sum_p(mul_p(dout, sub_p(x, reshape_p(mean, shape=shape))), axis=axes)  # sum dout*(x-mean)
    dw = mul_p(dxc, rstd) if w is not None and needs[1] else None
    db = dsum if b is not None and needs[2] else None
    dmean = neg_p(mul_p(dsum, scale)) if needs[3] else None
    dvar = None
    if needs[4]:
        k = mul_p(pow_p(rstd, 3.0), -0.5)
        dvar = mul_p(mul_p(dxc, k), w) if w is not None else mul_p(dxc, k)
    return dx, dw, db, dmean, dvar


batch_norm_infer_p.def_bprop(_batch_norm_infer_bprop, takes_needs=True)



# ---------------------------------------------------------------- BatchNorm on shards of the batch
# Cut batch (or spatial) dims share the batch statistics as MindSpore's SyncBatchNorm shares them: each shard's
# per-channel sums (of x and x^2; of dy and dy x_hat for the gradient) and element counts, summed over the cuts
# (ops/_sharding_nn.batch_norm's Sync, all-reduced by the partitioner), give every shard the whole batch's.
def _sums(x, *values):
    """(k + 1, C): the per-channel sums of `values` (each shaped like x) and the number of elements summed."""
    _, axes = _channel_layout(x)
    sums = [reduce_sum_p(v, axis=axes) for v in values]
    count = mul_p(ones_like_p(sums[0]), float(_prod(x.shape[a] for a in axes)))
    return stack_p(*sums, count, axis=0)


def _rows(stats, k):
    return [getitem_p(stats, index=i) for i in range(k)]


def _bn_partials(x, w, b, running_mean, running_var, momentum, eps):
    return _sums(x, x, mul_p(x, x))


def _bn_finish(stats, x, w, b, running_mean, running_var, momentum, eps):
    total, squares, count = _rows(stats, 3)
    mean = div_p(total, count)
    var = sub_p(div_p(squares, count), mul_p(mean, mean))
    y = batch_norm_infer_p(x, w, b, mean, var, eps=eps)
    rstd = pow_p(add_p(var, eps), -0.5)
    if running_mean is None:
        return y, mean, rstd, mul_p(mean, 0.0), add_p(mul_p(mean, 0.0), 1.0)
    unbiased = div_p(mul_p(var, count), sub_p(count, 1.0))
    new_mean = add_p(mul_p(running_mean, 1.0 - momentum), mul_p(mean, momentum))
    new_var = add_p(mul_p(running_var, 1.0 - momentum), mul_p(unbiased, momentum))
    return y, mean, rstd, new_mean, new_var


def _normalized(x, mean, rstd):
    shape, _ = _channel_layout(x)
    return mul_p(sub_p(x, reshape_p(mean, shape=shape)), reshape_p(rstd, shape=shape))


def _bn_grad_partials(dy, x, w, mean, rstd, eps):
    return _sums(x, dy, mul_p(dy, _normalized(x, mean, rstd)))


def _bn_grad_finish(stats, dy, x, w, mean, rstd, eps):
    total, dot, count = _rows(stats, 3)
    shape, _ = _channel_layout(x)
    scale = rstd if w is None else mul_p(rstd, w)
    centered = sub_p(dy, reshape_p(div_p(total, count), shape=shape))
    dx = mul_p(sub_p(centered, mul_p(_normalized(x, mean, rstd), reshape_p(div_p(dot, count), shape=shape))),
               reshape_p(scale, shape=shape))
    return (dx,) if w is None else (dx, dot, total)


batch_norm_p.sharding = lambda *args, **attrs: SN.batch_norm(*args, sync=(_bn_partials, _bn_finish), **attrs)
batch_norm_grad_p.sharding = lambda *args, **attrs: SN.batch_norm_grad(
    *args, sync=(_bn_grad_partials, _bn_grad_finish), **attrs)
batch_norm_infer_p.sharding = SN.batch_norm_infer

# ---------------------------------------------------------------- GroupNorm
group_norm_p, group_norm_grad_p = _norm_pair("GroupNorm", K.group_norm, K.group_norm_grad, _group_norm_layout)
group_norm_p.sharding, group_norm_grad_p.sharding = SN.group_norm, SN.group_norm_grad


def _group_norm_bprop(x, w, b, out, dout, needs, num_groups, eps):
    grads = group_norm_grad_p(dout[0], x, w, out[1], out[2], num_groups=num_groups, eps=eps)
    dw = grads[1] if w is not None and needs[1] else None
    db = None
    if b is not None and needs[2]:
        db = grads[2] if w is not None else reduce_sum_p(dout[0], axis=_channel_layout(x)[1])
    return grads[0], dw, db


group_norm_p.def_bprop(_group_norm_bprop, takes_needs=True)
