"""NN primitives: activations, softmax, dropout, dense, embedding, distances.

Each activation has a fused gradient primitive G(dout, x) = dout * f'(x) (one kernel in the backward
pass). G is linear in dout, so its own bprop is G again for dout and dout * ddout * f''(x) for x, with
f'' composed of primitives: grad of grad works, and so does any higher order.

Sigmoid and tanh belong to the math family; the second derivatives here use `_sigmoid` and `_tanh`,
composed of this module's Softplus primitive, so this family does not depend on another's internals.
"""
from math import pi, sqrt

from mindseed._backend.kernels import nn as K
from mindseed.ops._prims.core import (add_p, cast_p, concat_p, conj_if_complex, div_p, equal_p, exp_p, greater_p,
                                      less_equal_p, less_p, matmul_p, mul_p, neg_p, pow_p, reduce_sum_p, reshape_p,
                                      sign_p, split_sizes_p, sub_p, transpose_p, where_p, zeros_like_p)
from mindseed.ops import _infer as I
from mindseed.ops import _sharding as S
from mindseed.ops._api import public
from mindseed.ops._registry import Prim, RandomPrim


def _mask(cond, like):
    """A comparison result as 0/1 in like's dtype (no gradient flows through it)."""
    return cast_p(cond, dtype=like.dtype.name)


def _sigmoid(x):
    """sigmoid(x) = exp(-softplus(-x)): stable, and differentiable to any order through Softplus."""
    return exp_p(neg_p(softplus_p(neg_p(x), beta=1.0, threshold=20.0)))


def _tanh(x):
    return sub_p(mul_p(_sigmoid(mul_p(x, 2.0)), 2.0), 1.0)


def _abs(x):
    return mul_p(x, sign_p(x))


def _activation(name, kernel, grad_kernel, grad2=None):
    """The primitive of an elementwise activation and of its gradient (see the module docstring).

    `grad2(x, **attrs)` composes f''(x) of primitives; None when f'' is zero almost everywhere.
    """
    fwd = Prim(name, kernel, infer=I.same, sharding=S.elementwise)
    grad = Prim(name + "Grad", grad_kernel, infer=I.same, sharding=S.elementwise)   # (dout, x): dout's shape

    def bprop(x, out, dout, **attrs):
        return (grad(dout, x, **attrs),)

    def grad_bprop(dout, x, out, ddout, needs, **attrs):
        d_dout = grad(ddout, x, **attrs) if needs[0] else None
        dx = mul_p(mul_p(ddout, dout), grad2(x, **attrs)) if grad2 is not None and needs[1] else None
        return d_dout, dx

    fwd.def_bprop(bprop)
    grad.def_bprop(grad_bprop, takes_needs=True)
    return fwd, grad


# ---------------------------------------------------------------- piecewise-linear activations
relu6_p, relu6_grad_p = _activation("ReLU6", lambda x: K.hardtanh(x, 0.0, 6.0),
                                    lambda dout, x: K.hardtanh_grad(dout, x, 0.0, 6.0))
hardtanh_p, hardtanh_grad_p = _activation("Hardtanh", K.hardtanh, K.hardtanh_grad)
leaky_relu_p, leaky_relu_grad_p = _activation("LeakyReLU", K.leaky_relu, K.leaky_relu_grad)
hshrink_p, hshrink_grad_p = _activation("HShrink", K.hardshrink, K.hardshrink_grad)
softshrink_p, softshrink_grad_p = _activation("SoftShrink", K.softshrink, K.softshrink_grad)
threshold_p, threshold_grad_p = _activation("Threshold", K.threshold, K.threshold_grad)
hsigmoid_p, hsigmoid_grad_p = _activation("HSigmoid", K.hardsigmoid, K.hardsigmoid_grad)


def _hswish_grad2(x):
    return mul_p(mul_p(_mask(greater_p(x, -3.0), x), _mask(less_p(x, 3.0), x)), 1.0 / 3.0)


hswish_p, hswish_grad_p = _activation("HSwish", K.hardswish, K.hardswish_grad, _hswish_grad2)


# ---------------------------------------------------------------- smooth activations
def _elu_grad2(x, alpha, scale, input_scale):
    # f'' = scale * alpha * input_scale^2 * exp(input_scale * x) for x <= 0, else 0
    e = exp_p(mul_p(x, input_scale)) if input_scale != 1.0 else exp_p(x)
    return mul_p(_mask(less_equal_p(x, 0.0), x), mul_p(e, scale * alpha * input_scale * input_scale))


# one primitive for elu, selu (scale, alpha fixed) and celu (input_scale = 1 / alpha)
elu_p, elu_grad_p = _activation("Elu", K.elu, K.elu_grad, _elu_grad2)

_SQRT_2PI = sqrt(2.0 * pi)
_GELU_C = sqrt(2.0 / pi)
_GELU_K = 0.044715


def _gelu_grad2(x, approximate):
    x2 = mul_p(x, x)
    if approximate == "none":
        # f = x Phi(x): f'' = phi(x) (2 - x^2)
        phi = mul_p(exp_p(mul_p(x2, -0.5)), 1.0 / _SQRT_2PI)
        return mul_p(phi, sub_p(2.0, x2))
    # f = x (1 + tanh u) / 2, u = c (x + k x^3): f'' = (1 - t^2) (u' - x t u'^2 + x u'' / 2)
    u = mul_p(add_p(x, mul_p(mul_p(x2, x), _GELU_K)), _GELU_C)
    du = mul_p(add_p(mul_p(x2, 3.0 * _GELU_K), 1.0), _GELU_C)
    t = _tanh(u)
    inner = add_p(sub_p(du, mul_p(mul_p(x, t), mul_p(du, du))), mul_p(x2, 3.0 * _GELU_C * _GELU_K))
    return mul_p(sub_p(1.0, mul_p(t, t)), inner)


gelu_p, gelu_grad_p = _activation("GeLU", K.gelu, K.gelu_grad, _gelu_grad2)


def _swish_grad2(a):
    # f = x sigmoid(a x): f'' = a s (1 - s) (2 + a x (1 - 2 s))
    def grad2(x):
        s = _sigmoid(mul_p(x, a)) if a != 1.0 else _sigmoid(x)
        ds = mul_p(s, sub_p(1.0, s))
        ax = mul_p(x, a) if a != 1.0 else x
        return mul_p(mul_p(ds, a), add_p(mul_p(ax, sub_p(1.0, mul_p(s, 2.0))), 2.0))
    return grad2


fast_gelu_p, fast_gelu_grad_p = _activation("FastGeLU", K.fast_gelu, K.fast_gelu_grad, _swish_grad2(1.702))
silu_p, silu_grad_p = _activation("SiLU", K.silu, K.silu_grad, _swish_grad2(1.0))


def _mish_grad2(x):
    # f = x tp, tp = tanh(softplus x), s = sigmoid x: f'' = (1 - tp^2) s (2 + x (1 - s - 2 tp s))
    s = _sigmoid(x)
    tp = _tanh(softplus_p(x, beta=1.0, threshold=20.0))
    sech2 = sub_p(1.0, mul_p(tp, tp))
    inner = add_p(mul_p(x, sub_p(sub_p(1.0, s), mul_p(mul_p(tp, s), 2.0))), 2.0)
    return mul_p(mul_p(sech2, s), inner)


mish_p, mish_grad_p = _activation("Mish", K.mish, K.mish_grad, _mish_grad2)


def _softplus_grad2(x, beta, threshold):
    # f' = sigmoid(beta x) below the threshold (else 1): f'' = beta s (1 - s) there, else 0
    bx = mul_p(x, beta) if beta != 1.0 else x
    s = _sigmoid(bx)
    return mul_p(mul_p(_mask(less_equal_p(bx, threshold), x), mul_p(s, sub_p(1.0, s))), float(beta))


softplus_p, softplus_grad_p = _activation("Softplus", K.softplus, K.softplus_grad, _softplus_grad2)


def _softsign_grad2(x):
    # f' = 1 / (1 + |x|)^2, f'' = -2 sign(x) / (1 + |x|)^3
    return div_p(mul_p(sign_p(x), -2.0), pow_p(add_p(_abs(x), 1.0), 3))


softsign_p, softsign_grad_p = _activation("Softsign", K.softsign, K.softsign_grad, _softsign_grad2)


def _tanhshrink_grad2(x):
    t = _tanh(x)
    return mul_p(mul_p(t, sub_p(1.0, mul_p(t, t))), 2.0)


tanhshrink_p, tanhshrink_grad_p = _activation("Tanhshrink", K.tanhshrink, K.tanhshrink_grad, _tanhshrink_grad2)


def _logsigmoid_grad2(x):
    s = _sigmoid(x)
    return neg_p(mul_p(s, sub_p(1.0, s)))


logsigmoid_p, logsigmoid_grad_p = _activation("LogSigmoid", K.logsigmoid, K.logsigmoid_grad, _logsigmoid_grad2)

# ---------------------------------------------------------------- GLU
glu_p = Prim("GLU", K.glu)
glu_grad_p = Prim("GLUGrad", K.glu_grad)


@glu_p.def_bprop
def _glu_bprop(x, out, dout, axis):
    return (glu_grad_p(dout, x, axis=axis),)


@glu_grad_p.def_bprop
def _glu_grad_bprop(dout, x, out, ddout, axis):
    # glu = a s, s = sigmoid(b); the gradient is (dout s, dout a s (1 - s)); with ddout = (ca, cb):
    h = x.shape[axis] // 2
    a, b = split_sizes_p(x, sizes=[h, h], axis=axis)
    ca, cb = split_sizes_p(ddout, sizes=[h, h], axis=axis)
    s = _sigmoid(b)
    ds = mul_p(s, sub_p(1.0, s))
    d_dout = add_p(mul_p(ca, s), mul_p(mul_p(cb, a), ds))
    da = mul_p(mul_p(cb, dout), ds)
    db = mul_p(mul_p(dout, ds), add_p(ca, mul_p(mul_p(cb, a), sub_p(1.0, mul_p(s, 2.0)))))
    return d_dout, concat_p(da, db, axis=axis)


# ---------------------------------------------------------------- softmax
softmax_p = Prim("Softmax", K.softmax, infer=I.same, sharding=S.along)
softmax_grad_p = Prim("SoftmaxGrad", K.softmax_grad, infer=I.same, sharding=S.along)


@softmax_p.def_bprop
def _softmax_bprop(x, out, dout, axis):
    return (softmax_grad_p(out, dout, axis=axis),)  # reuses out: y (dout - sum(y dout))


@softmax_grad_p.def_bprop
def _softmax_grad_bprop(y, d, out, c, needs, axis):
    # g = y (d - S), S = sum(y d): dg/dd is g's own map; d/dy = c (d - S) - d sum(c y)
    dd = softmax_grad_p(y, c, axis=axis) if needs[1] else None
    dy = None
    if needs[0]:
        s = reduce_sum_p(mul_p(y, d), axis=axis, keep_dims=True)
        t = reduce_sum_p(mul_p(c, y), axis=axis, keep_dims=True)
        dy = sub_p(mul_p(c, sub_p(d, s)), mul_p(d, t))
    return dy, dd


softmax_grad_p.def_bprop(_softmax_grad_bprop, takes_needs=True)

def _flash_attention_infer(q, k, v, mask=None, *, scale):
    """o: (B, H, T, Dv) of q's dtype; lse: (B, H, T), in float32 for half-precision inputs."""
    lse_dtype = "Float32" if q.dtype in ("Float16", "BFloat16") else q.dtype
    return I.Abstract(tuple(q.shape[:-1]) + (v.shape[-1],), q.dtype), I.Abstract(tuple(q.shape[:-1]), lse_dtype)


# softmax(q @ k^T * scale + mask) @ v in one kernel, -> (out, lse). Produced by the compiler's attention
# fusion pass (passes/fuse_attention.py) from the unfused ops; the mask is a constant of the pattern.
flash_attention_p = Prim("FlashAttention", K.flash_attention, multi_output=True, residual_outputs=(1,), heavy=True,
                         infer=_flash_attention_infer)  # (o, lse)
# first-order only: it appears in graphs after differentiation, which never differentiate it again
flash_attention_grad_p = Prim("FlashAttentionGrad", K.flash_attention_grad, multi_output=True, heavy=True,
                              infer=lambda dout, q, k, v, *rest, **attrs: (q, k, v))  # (dq, dk, dv)


@flash_attention_p.def_bprop
def _flash_attention_bprop(q, k, v, mask, out, dout, scale):
    dq, dk, dv = flash_attention_grad_p(dout[0], q, k, v, out[0], out[1], mask, scale=scale)
    return dq, dk, dv, None


log_softmax_p = Prim("LogSoftmax", K.log_softmax, sharding=S.along)
log_softmax_grad_p = Prim("LogSoftmaxGrad", K.log_softmax_grad, sharding=S.along)


@log_softmax_p.def_bprop
def _log_softmax_bprop(x, out, dout, axis):
    return (log_softmax_grad_p(out, dout, axis=axis),)  # reuses out: dout - exp(y) sum(dout)


def _log_softmax_grad_bprop(y, d, out, c, needs, axis):
    # g = d - exp(y) sum(d): d/dd = c - sum(c exp y); d/dy = -c exp(y) sum(d)
    ey = exp_p(y)
    dd = sub_p(c, reduce_sum_p(mul_p(c, ey), axis=axis, keep_dims=True)) if needs[1] else None
    dy = neg_p(mul_p(mul_p(c, ey), reduce_sum_p(d, axis=axis, keep_dims=True))) if needs[0] else None
    return dy, dd


log_softmax_grad_p.def_bprop(_log_softmax_grad_bprop, takes_needs=True)

# ---------------------------------------------------------------- dropout and noise
def _dropout_replay(args, attrs, first):
    """The first run's mask applied to this run's x: (x * mask / keep, mask), in deterministic ops."""
    mask = first[1]
    keep = 1.0 - attrs["p"]
    return (dropout_grad_p(args[0], mask, keep_prob=keep), mask)


dropout_p = RandomPrim("Dropout", K.dropout, replay=_dropout_replay, multi_output=True)
dropout_grad_p = Prim("DropoutGrad", K.dropout_grad)


@dropout_p.def_bprop
def _dropout_bprop(x, out, dout, p, generator, channel_dims=None):
    # the mask (out[1]) is a constant of x: its cotangent is dropped
    return (dropout_grad_p(dout[0], out[1], keep_prob=1.0 - p),)


@dropout_grad_p.def_bprop
def _dropout_grad_bprop(dout, mask, out, ddout, keep_prob):
    return dropout_grad_p(ddout, mask, keep_prob=keep_prob), None


# random samples with no gradient (the tape does not record primitives without a bprop)
rrelu_slopes_p = RandomPrim("RReLUSlopes", K.uniform_noise)
gumbel_noise_p = RandomPrim("GumbelNoise", K.gumbel_noise)
argmax_one_hot_p = Prim("ArgMaxOneHot", K.argmax_one_hot)

# ---------------------------------------------------------------- dense
dense_p = Prim("Dense", K.dense, fresh=True, heavy=True, sharding=S.dense)


def _dense_bprop(x, w, b, out, dout, needs):
    # y = x w^T + b over the last axis of x
    x, w = conj_if_complex(x), conj_if_complex(w)
    w2 = reshape_p(w, shape=(1, w.shape[0])) if w.ndim == 1 else w
    d2 = reshape_p(dout, shape=dout.shape + (1,)) if w.ndim == 1 else dout
    dx = matmul_p(d2, w2) if needs[0] else None
    if dx is not None and x.ndim == 1 and dx.ndim != 1:
        dx = reshape_p(dx, shape=x.shape)
    dw = None
    if needs[1]:
        n_out, n_in = w2.shape
        dw = matmul_p(reshape_p(d2, shape=(-1, n_out)), reshape_p(x, shape=(-1, n_in)), transpose_a=True)
        if w.ndim == 1:
            dw = reshape_p(dw, shape=w.shape)
    return dx, dw, (dout if needs[2] else None)  # the engine sums db over the leading axes


dense_p.def_bprop(_dense_bprop, takes_needs=True)

# ---------------------------------------------------------------- embedding
embedding_p = Prim("Embedding", K.embedding)
embedding_grad_p = Prim("EmbeddingGrad", K.embedding_grad)
embedding_grad_t_p = Prim("EmbeddingGradTranspose", K.embedding_grad_transpose)
embedding_renorm_p = Prim("EmbeddingRenorm", K.embedding_renorm)


@embedding_p.def_bprop
def _embedding_bprop(indices, weight, out, dout, padding_idx=None, scale_grad_by_freq=False):
    g = embedding_grad_p(dout, indices, num_weights=weight.shape[0], padding_idx=padding_idx,
                         scale_grad_by_freq=scale_grad_by_freq)
    return None, g


@embedding_grad_p.def_bprop
def _embedding_grad_bprop(dout, indices, out, ddw, num_weights, padding_idx, scale_grad_by_freq):
    return embedding_grad_t_p(ddw, indices, padding_idx=padding_idx, scale_grad_by_freq=scale_grad_by_freq), None


@embedding_grad_t_p.def_bprop
def _embedding_grad_t_bprop(ddw, indices, out, c, padding_idx, scale_grad_by_freq):
    g = embedding_grad_p(c, indices, num_weights=ddw.shape[0], padding_idx=padding_idx,
                         scale_grad_by_freq=scale_grad_by_freq)
    return g, None


# ---------------------------------------------------------------- distances
cdist_p = Prim("Cdist", K.cdist)


def _safe_div(num, den):
    """num / den where den > 0, else 0, without inf or nan in either value or gradient."""
    pos = greater_p(den, 0.0)
    safe = where_p(pos, den, 1.0)
    return where_p(pos, div_p(num, safe), zeros_like_p(num))


def _cdist_bprop(x1, x2, out, dout, needs, p):
    if p == 0.0:
        return None, None
    if p == 2.0:
        # d_ij = |x1_i - x2_j|: dx1_i = sum_j w_ij (x1_i - x2_j), w = dout / d
        w = _safe_div(dout, out)
        dx1 = sub_p(mul_p(x1, reduce_sum_p(w, axis=-1, keep_dims=True)), matmul_p(w, x2)) if needs[0] else None
        dx2 = None
        if needs[1]:
            col = reduce_sum_p(w, axis=-2, keep_dims=True)
            dx2 = sub_p(mul_p(x2, _swap_last(col)), matmul_p(w, x1, transpose_a=True))
        return dx1, dx2
    diff = sub_p(reshape_p(x1, shape=x1.shape[:-1] + (1, x1.shape[-1])),
                 reshape_p(x2, shape=x2.shape[:-2] + (1,) + x2.shape[-2:]))   # (..., P, R, M)
    d = reshape_p(out, shape=out.shape + (1,))
    g = reshape_p(dout, shape=dout.shape + (1,))
    if p == 1.0:
        term = mul_p(sign_p(diff), g)
    elif p == float("inf"):
        term = mul_p(mul_p(sign_p(diff), _mask(equal_p(_abs(diff), d), diff)), g)
    else:
        adiff = _abs(diff)
        term = mul_p(mul_p(sign_p(diff), pow_p(adiff, p - 1.0)), _safe_div(g, pow_p(d, p - 1.0)))
    dx1 = reduce_sum_p(term, axis=-2) if needs[0] else None
    dx2 = neg_p(reduce_sum_p(term, axis=-3)) if needs[1] else None
    return dx1, dx2


def _swap_last(t):
    nd = t.ndim
    return transpose_p(t, perm=tuple(range(nd - 2)) + (nd - 1, nd - 2))


cdist_p.def_bprop(_cdist_bprop, takes_needs=True)

band_matrix_p = Prim("LRNBand", K.band_matrix)  # constant: no inputs, no gradient


# the thin public names: functional function (and Tensor method where MindSpore has one)
public(hsigmoid_p, "hardsigmoid(input)", doc="relu6(input + 3) / 6 (a signed integer input: truncated).")
public(hswish_p, "hardswish(input)", doc="input * relu6(input + 3) / 6 (a signed integer input: truncated).")
public(fast_gelu_p, "fast_gelu(x)", check="float",
       doc="x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)), i.e. x * sigmoid(1.702 x).")
public(silu_p, "silu(input)", check="float", doc="input * sigmoid(input).")
public(mish_p, "mish(x)", check="float", doc="x * tanh(softplus(x)).")
public(softsign_p, "softsign(x)", check="float", doc="x / (1 + |x|).")
public(logsigmoid_p, "logsigmoid(x)", check="float", doc="log(sigmoid(x)), computed stably.")
