"""Sharding rules of the convolutions, the pooling and BatchNorm (see `ops._sharding` for what a rule is).

MindSpore's strategies (its parallel Conv2DInfo, MaxPoolInfo / AvgPoolInfo and BatchNormInfo):

* a convolution ((n, i, h, w), (o, i, 1, 1)): the batch `n` and the output channels `o` cut freely; the input
  channels `i`, cut alike in x and the weight, leave partial sums (the bias is added on one rank of the sum); the
  kernel dims are never cut; with groups the channels are whole. Its gradients (ConvBackpropInput: a transposed
  convolution ((n, o, h, w), (o, i, 1, 1)), ConvBackpropFilter) follow: the output channels of the transposed
  convolution are contracted, the filter's gradient sums over the batch. The spatial dims are whole (MindSpore cuts
  them with neighbour exchanges of the overlaps, which the executor has not: refused);
* pooling: the (N, C) planes cut, the pooled dims whole;
* BatchNorm (training) ((n, c, h, w), (c,), (c,), (c,), (c,)): the channels cut freely; cut batch or spatial dims
  share the batch statistics, all-reduced (`Sync`, MindSpore's SyncBatchNorm), and so does its gradient.
"""
from mindseed.ops._sharding import ShardingRule, Sync, _shape, _shape_local

__all__ = ["conv", "conv_backprop_input", "conv_backprop_filter", "planes", "pool", "max_pool", "pool_grad",
           "index_scatter", "adaptive_pool", "adaptive_pool_grad", "batch_norm", "batch_norm_grad", "batch_norm_infer",
           "group_norm", "group_norm_grad"]

_KERNEL = "the kernel size can not be split"
_SPATIAL = "splitting the spatial dims (exchanging the overlaps of neighbouring pieces) is not supported"


def _group_reason(groups):
    return f"the group is {groups}, the cout and cin can not be split"


def _channels(groups):
    """(input channel factor, output channel factor, whole, reasons) of a convolution with `groups`."""
    if groups == 1:
        return "i", "o", (), {}
    why = _group_reason(groups)
    return "gi", "go", ("gi", "go"), {"gi": why, "go": why}


def _spatial(prefix, nd):
    return tuple(f"{prefix}{j}" for j in range(nd))


def _reasons(extra, spatial, kernel):
    return {**{f: _SPATIAL for f in spatial}, **{f: _KERNEL for f in kernel}, **extra}


def conv(x, w, b=None, stride=(), pads=(), dilation=(), groups=1, **attrs):
    """Convolution (x (n, i, *s), w (o, i / groups, *k), b (o,)) -> (n, o, *s'): `i` cut leaves partial sums, the bias
    added on one rank of the sum."""
    nd = len(_shape(x)) - 2
    ci, co, whole, extra = _channels(groups)
    s, k = _spatial("s", nd), _spatial("k", nd)
    b_dims = None if _shape(b) is None else (co,)
    return ShardingRule(((("n", ci) + s), (co, ci) + k, b_dims), (("n", co) + (None,) * nd,),
                        sums=("i",) if groups == 1 else (), whole=whole + s + k, addends=(2,),
                        reasons=_reasons(extra, s, k))


def conv_backprop_input(dy, w, input_shape=(), stride=(), pads=(), dilation=(), groups=1, **attrs):
    """ConvBackpropInput (dy (n, o, *s'), w (o, i / groups, *k)) -> (n, i, *s) (Conv2DTranspose): `o` cut leaves
    partial sums."""
    nd = len(_shape(dy)) - 2
    ci, co, whole, extra = _channels(groups)
    s, k = _spatial("s", nd), _spatial("k", nd)
    return ShardingRule((("n", co) + s, (co, ci) + k), (("n", ci) + (None,) * nd,),
                        sums=("o",) if groups == 1 else (), whole=whole + s + k, reasons=_reasons(extra, s, k),
                        localize=lambda attrs, shapes: {**attrs, "input_shape": tuple(shapes[0])})


def conv_backprop_filter(x, dy, weight_shape=(), stride=(), pads=(), dilation=(), groups=1, **attrs):
    """ConvBackpropFilter (x (n, i, *s), dy (n, o, *s')) -> (o, i / groups, *k): the batch cut leaves partial sums."""
    nd = len(_shape(x)) - 2
    ci, co, whole, extra = _channels(groups)
    s, t = _spatial("s", nd), _spatial("t", nd)
    return ShardingRule((("n", ci) + s, ("n", co) + t), ((co, ci) + (None,) * nd,), sums=("n",),
                        whole=whole + s + t, reasons=_reasons(extra, s + t, ()),
                        localize=lambda attrs, shapes: {**attrs, "weight_shape": tuple(shapes[0])})


def _planes(shape, lead):
    return tuple(f"p{j}" if j < lead else None for j in range(len(shape)))


def planes(*inputs, **attrs):
    """An op on the (N, C) planes of same-rank operands (MaxPool2x2 and its gradients, IndexGatherPlane): the first
    two dims cut freely, the others whole; one output, of the operands' rank."""
    ins = tuple(None if _shape(x) is None else _planes(_shape(x), 2) for x in inputs)
    return ShardingRule(ins, (_planes(_shape(inputs[0]), 2),))


def pool(x, kernel=(), output_size=(), **attrs):
    """AvgPool3D, AdaptiveAvgPool: the dims before the pooled dims (those of `kernel`, or `output_size`) cut freely,
    the pooled dims whole."""
    shape = _shape(x)
    dims = _planes(shape, len(shape) - len(kernel or output_size))
    return ShardingRule((dims,), (dims,))


def max_pool(x, kernel=(), **attrs):
    """MaxPoolWithArgmaxV2 ((values, argmax: flat indices in each plane)): as `pool`."""
    rule = pool(x, kernel)
    return ShardingRule(rule.ins, rule.outs * 2)


def _kept(in_shape, out_shape):
    """Adaptive pooling's windows are separable, one per dim: along a dim whose output is as long as its input each
    output element reads its own element (a window of one), so that dim cuts freely; the others are whole."""
    return tuple(f"p{j}" if o == n else None for j, (n, o) in enumerate(zip(in_shape, out_shape)))


def adaptive_pool(x, output_size=(), **attrs):
    """AdaptiveAvgPool: the leading dims, and a pooled dim kept at its length, cut freely."""
    shape = _shape(x)
    lead = len(shape) - len(output_size)
    dims = _kept(shape, shape[:lead] + tuple(output_size))
    return ShardingRule((dims,), (dims,), localize=lambda attrs, shapes: {**attrs,
                                                                          "output_size": tuple(shapes[0][lead:])})


def adaptive_pool_grad(dout, shape=(), **attrs):
    """AdaptiveAvgPoolGrad (dout spread back over `shape`): as AdaptiveAvgPool, from dout's and `shape`'s lengths."""
    dims = _kept(tuple(shape), _shape(dout))
    return ShardingRule((dims,), (dims,), localize=_shape_local)


def pool_grad(dout, shape=(), kernel=(), **attrs):
    """AvgPoolGrad / AdaptiveAvgPoolGrad (dout scattered back into `shape`): the leading dims keep their cuts."""
    nd = len(kernel) if kernel else len(shape) - 2
    dims = _planes(shape, len(shape) - nd)
    return ShardingRule((dims,), (dims,), localize=_shape_local)


def index_scatter(dout, idx, shape=(), **attrs):
    """IndexScatterPlane (dout added into zeros of `shape` at flat per-(N, C)-plane indices): the planes cut."""
    dims = _planes(shape, 2)
    return ShardingRule((_planes(_shape(dout), 2), _planes(_shape(idx), 2)), (dims,), localize=_shape_local)


def _bn_dims(x):
    nd = len(_shape(x))
    return ("n", "c") + _spatial("s", nd - 2)


def batch_norm(x, w, b, running_mean, running_var, sync=(), **attrs):
    """BatchNorm (training: (y, mean, rstd, new running mean, new running var)): the channels cut freely; the batch
    and spatial dims cut share the batch statistics (`sync`: the (partials, finish) of a `Sync` over them, whose
    statistics are (3, C) per-channel sums: of x, of x^2 and the element count; of dy and dy x_hat for the gradient)."""
    dims = _bn_dims(x)
    chan = lambda t: None if _shape(t) is None else ("c",)  # noqa: E731
    return ShardingRule((dims, chan(w), chan(b), chan(running_mean), chan(running_var)), (dims,) + (("c",),) * 4,
                        sync=Sync(set(dims) - {"c"}, (3, "c"), *sync))


def batch_norm_grad(dy, x, w, mean, rstd, sync=(), **attrs):
    """BatchNormGrad ((dx, dw, db), or (dx,) without a weight): as BatchNorm; dw and db are the all-reduced sums."""
    dims = _bn_dims(x)
    chan = None if _shape(w) is None else ("c",)
    outs = (dims,) if chan is None else (dims, ("c",), ("c",))
    return ShardingRule((dims, dims, chan, ("c",), ("c",)), outs, sync=Sync(set(dims) - {"c"}, (3, "c"), *sync))


def batch_norm_infer(x, w, b, mean, var, **attrs):
    """BatchNormInference (normalization by the running statistics): every dim cuts freely, the per-channel operands
    with the channels."""
    dims = _bn_dims(x)
    chan = lambda t: None if _shape(t) is None else ("c",)  # noqa: E731
    return ShardingRule((dims, chan(w), chan(b), chan(mean), chan(var)), (dims,))


def _group_dims(x):
    """GroupNorm's dims: the batch cuts freely; the channels (and so the groups) and the spatial dims are whole."""
    nd = len(_shape(x))
    return ("n",) + tuple(f"g{j}" for j in range(1, nd))


def group_norm(x, w, b, num_groups=1, eps=1e-5, **attrs):
    """GroupNorm ((y, mean, rstd), the statistics (N, groups)): per sample, so the batch cuts freely; the rest is
    whole."""
    dims = _group_dims(x)
    param = lambda t: None if _shape(t) is None else ("g1",)  # noqa: E731
    return ShardingRule((dims, param(w), param(b)), (dims, ("n", None), ("n", None)), whole=dims[1:])


def group_norm_grad(dy, x, w, mean, rstd, num_groups=1, eps=1e-5, **attrs):
    """GroupNormGrad ((dx, dw, db), or (dx,) without a weight): dw and db sum over the batch (partial sums when it is
    cut)."""
    dims = _group_dims(x)
    stats = ("n", None)
    if _shape(w) is None:
        return ShardingRule((dims, dims, None, stats, stats), (dims,), whole=dims[1:])
    return ShardingRule((dims, dims, ("g1",), stats, stats), (dims, ("g1",), ("g1",)), sums=("n",), whole=dims[1:])
