"""Sharding rules of the convolutions, the pooling and BatchNorm (see `ops._sharding` for what a rule is).

MindSpore's strategies (its parallel Conv2DInfo, MaxPoolInfo / AvgPoolInfo and BatchNormInfo):

* a convolution ((n, i, h, w), (o, i, 1, 1)): the batch `n` and the output channels `o` cut freely; the input
  channels `i`, cut alike in x and the weight, leave partial sums (the bias is added on one rank of the sum); the
  kernel dims are never cut; with groups the channels are whole. Its gradients (ConvBackpropInput: a transposed
  convolution ((n, o, h, w), (o, i, 1, 1)), ConvBackpropFilter) follow: the output channels of the transposed
  convolution are contracted, the filter's gradient sums over the batch. A 2-d convolution's H and W cut under
  MindSpore's conditions (Conv2DInfo::CheckHWStrategy: 'same' and 'valid' padding, stride and kernel conditions;
  `_spatial_cut`): each piece reads the overlapping rows of its neighbours (`Halo`: the executor exchanges them),
  and runs unpadded along the cut dims; the input gradient's overlaps are added back into the neighbours' pieces and
  the filter's gradient sums over the pieces. Other spatial dims (1-d and 3-d convolutions) are whole;
* pooling: the (N, C) planes cut; a 2-d pooling's H and W (MaxPool2x2 and its gradients, AvgPool3D / AvgPoolGrad)
  when the kernel is no larger than the stride and the length divisible by it, as MindSpore's MaxPoolInfo /
  AvgPoolInfo: each piece pools its own rows (no exchange); MaxPoolWithArgmaxV2's pooled dims whole;
* BatchNorm (training) ((n, c, h, w), (c,), (c,), (c,), (c,)): the channels cut freely; cut batch or spatial dims
  share the batch statistics, all-reduced (`Sync`, MindSpore's SyncBatchNorm), and so does its gradient.
"""
from mindseed.ops._sharding import Halo, ShardingRule, Sync, _shape, _shape_local

__all__ = ["conv", "conv_backprop_input", "conv_backprop_filter", "planes", "pool_2x2", "pool", "max_pool", "pool_grad",
           "index_scatter", "adaptive_pool", "adaptive_pool_grad", "batch_norm", "batch_norm_grad", "batch_norm_infer",
           "group_norm", "group_norm_grad"]

_KERNEL = "the kernel size can not be split"
_SPATIAL = "only the H and W of a 2-d convolution can be split (with exchanges of the overlapping rows)"
_POOL_ND = "only the H and W of a 2-d pooling can be split"


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


def _mode(in_spatial, kernel, stride, dilation, pads):
    """MindSpore's pad_mode of a convolution from its explicit pads: 'valid' (none), 'same' (TF's), else 'pad'."""
    if not any(pads):
        return "valid"
    same = []
    for n, k, st, d in zip(in_spatial, kernel, stride, dilation):
        total = max((-(-n // st) - 1) * st + (k - 1) * d + 1 - n, 0)
        same += [total // 2, total - total // 2]
    return "same" if tuple(pads) == tuple(same) else "pad"


def _spatial_cut(in_spatial, kernel, stride, dilation, pads):
    """Per spatial dim of a 2-d convolution, (before, after, why) of the overlaps of neighbouring pieces when it is
    cut (`Halo`), or (None, None, reason) when MindSpore refuses to cut it (Conv2DInfo::CheckHWStrategy's wording).
    A piece of the output (Ho / cuts rows, Ho = H / stride) reads rows [i L - pad_lo, (i + 1) L - stride - pad_lo +
    k_dilated) of the input (L = H / cuts): `pad_lo` rows of the previous piece and `k_dilated - stride - pad_lo`
    of the next (negative: its own last rows are not read)."""
    if len(in_spatial) != 2:
        return [(None, None, _SPATIAL)] * len(in_spatial)
    mode = _mode(in_spatial, kernel, stride, dilation, pads)
    out = []
    for j, (n, k, st, d) in enumerate(zip(in_spatial, kernel, stride, dilation)):
        dim = "HW"[j]
        kd = d * (k - 1) + 1
        if mode == "pad":
            out.append((None, None, "The 'pad' mode do not support to split H or W"))
        elif mode == "valid" and kd > st:
            out.append((None, None, "The 'valid' mode do not support to split H or W when kernel_size_use_dilation_ "
                                    "> stride"))
        elif kd <= st and n % st:
            out.append((None, None, f"The '{mode}' mode do not support to split {dim} when "
                                    f"kernel_size_use_dilation_ <= stride but slice shape is not divisible by stride"))
        elif n % st:
            out.append((None, None, f"The 'same' mode do not support to split {dim} when kernel_size_use_dilation_ > "
                                    f"stride but input shape is not divisible by stride"))
        else:
            lo = pads[2 * j]
            out.append((lo, kd - st - lo, f"The '{mode}' mode do not support to split {dim} when "
                                          f"kernel_size_use_dilation_ > stride but slice shape <= (k - s + 1) / 2"))
    return out


def _unpadded(j):
    """The local call's attributes along a cut spatial dim `j`: no padding (the overlaps and the zeros past the ends
    are in the extended piece)."""
    def local(attrs):
        pads = list(attrs["pads"])
        pads[2 * j:2 * j + 2] = [0, 0]
        return {**attrs, "pads": tuple(pads)}
    return local


def _halos(cuts, index, out=False, extend=None):
    """The `Halo`s of a convolution's cuttable spatial dims (`_spatial_cut`): of input (or output) `index`;
    `extend`: the attribute holding the local output shape, which the overlaps lengthen (ConvBackpropInput)."""
    halos = []
    for j, (before, after, why) in enumerate(cuts):
        if before is None:
            continue
        pad = _unpadded(j)
        if extend is not None:
            def local(attrs, j=j, pad=pad, grow=before + after):
                shape = list(attrs[extend])
                shape[2 + j] += grow
                return pad({**attrs, extend: tuple(shape)})
        else:
            local = pad
        halos.append(Halo(f"s{j}", index, 2 + j, before, after, out=out, why=why, local=local))
    return halos


def _spatial_factors(cuts):
    """(factors of the spatial dims, those whole, {whole factor: reason})."""
    fs = _spatial("s", len(cuts))
    whole = tuple(f for f, (before, _, _) in zip(fs, cuts) if before is None)
    return fs, whole, {f: why for f, (before, _, why) in zip(fs, cuts) if before is None}


def conv(x, w, b=None, stride=(), pads=(), dilation=(), groups=1, **attrs):
    """Convolution (x (n, i, *s), w (o, i / groups, *k), b (o,)) -> (n, o, *s'): `i` cut leaves partial sums, the bias
    added on one rank of the sum; a 2-d convolution's spatial dims cut with overlaps (`_spatial_cut`)."""
    nd = len(_shape(x)) - 2
    ci, co, whole, extra = _channels(groups)
    cuts = _spatial_cut(_shape(x)[2:], _shape(w)[2:], stride, dilation, pads)
    s, spatial_whole, why = _spatial_factors(cuts)
    k = _spatial("k", nd)
    b_dims = None if _shape(b) is None else (co,)
    return ShardingRule(((("n", ci) + s), (co, ci) + k, b_dims), (("n", co) + s,),
                        sums=("i",) if groups == 1 else (), whole=whole + spatial_whole + k, addends=(2,),
                        reasons={**_reasons(extra, (), k), **why}, halos=_halos(cuts, 0))


def conv_backprop_input(dy, w, input_shape=(), stride=(), pads=(), dilation=(), groups=1, **attrs):
    """ConvBackpropInput (dy (n, o, *s'), w (o, i / groups, *k)) -> (n, i, *s) (Conv2DTranspose): `o` cut leaves
    partial sums; the spatial dims cut as the convolution's, each piece's overlaps added into its neighbours'."""
    nd = len(_shape(dy)) - 2
    ci, co, whole, extra = _channels(groups)
    cuts = _spatial_cut(tuple(input_shape)[2:], _shape(w)[2:], stride, dilation, pads)
    s, spatial_whole, why = _spatial_factors(cuts)
    k = _spatial("k", nd)
    return ShardingRule((("n", co) + s, (co, ci) + k), (("n", ci) + s,),
                        sums=("o",) if groups == 1 else (), whole=whole + spatial_whole + k,
                        reasons={**_reasons(extra, (), k), **why}, halos=_halos(cuts, 0, out=True,
                                                                                extend="input_shape"),
                        localize=lambda attrs, shapes: {**attrs, "input_shape": tuple(shapes[0])})


def conv_backprop_filter(x, dy, weight_shape=(), stride=(), pads=(), dilation=(), groups=1, **attrs):
    """ConvBackpropFilter (x (n, i, *s), dy (n, o, *s')) -> (o, i / groups, *k): the batch cut, and the spatial dims
    cut as the convolution's (x's pieces extended by their overlaps), leave partial sums."""
    nd = len(_shape(x)) - 2
    ci, co, whole, extra = _channels(groups)
    cuts = _spatial_cut(_shape(x)[2:], tuple(weight_shape)[2:], stride, dilation, pads)
    s, spatial_whole, why = _spatial_factors(cuts)
    return ShardingRule((("n", ci) + s, ("n", co) + s), ((co, ci) + (None,) * nd,),
                        sums=("n",) + tuple(f for f in s if f not in spatial_whole),
                        whole=whole + spatial_whole, reasons={**_reasons(extra, (), ()), **why},
                        halos=_halos(cuts, 0),
                        localize=lambda attrs, shapes: {**attrs, "weight_shape": tuple(shapes[0])})


def _planes(shape, lead):
    return tuple(f"p{j}" if j < lead else None for j in range(len(shape)))


def planes(*inputs, **attrs):
    """An op on the (N, C) planes of same-rank operands (IndexGatherPlane): the first two dims cut freely, the others
    whole; one output, of the operands' rank."""
    ins = tuple(None if _shape(x) is None else _planes(_shape(x), 2) for x in inputs)
    return ShardingRule(ins, (_planes(_shape(inputs[0]), 2),))


def _pool_cuts(in_spatial, kernel, stride, pads=()):
    """Per pooled dim of a 2-d pooling, (after, reason) when cut (MaxPoolInfo / AvgPoolInfo::CheckHWStrategy): with
    the kernel no larger than the stride and the length divisible by it, each piece pools its own rows, the last
    stride - kernel of each unread (`after` = kernel - stride, a `Halo` dropping them); else (None, MindSpore's
    reason). Other poolings keep their pooled dims whole."""
    if len(in_spatial) != 2:
        return [(None, _POOL_ND)] * len(in_spatial)
    out = []
    for j, (n, k, st) in enumerate(zip(in_spatial, kernel, stride)):
        dim = "HW"[j]
        if k > st:
            out.append((None, f"It does not support to split {dim} dimension when kernel_size > stride"))
        elif n % st:
            out.append((None, f"It does not support to split {dim} dimension when kernel_size <= stride but slice "
                              f"shape is not divisible by stride"))
        elif any(pads[2 * j:2 * j + 2]):
            out.append((None, f"splitting {dim} of a padded pooling is not supported"))
        else:
            out.append((k - st, None))
    return out


def _pool_rule(shape, cuts, n_ins=1, out=False, extend=None):
    """The rule of a pooling (or its gradient, `out`: the overlaps on the output) of `n_ins` operands shaped like
    `shape`'s leading dims and pooled dims: the planes cut freely, the pooled dims as `cuts` (`_pool_cuts`)."""
    lead = len(shape) - len(cuts)
    dims = _planes(shape, lead)[:lead] + tuple(f"q{j}" for j in range(len(cuts)))
    whole = tuple(f"q{j}" for j, (after, _) in enumerate(cuts) if after is None)
    reasons = {f"q{j}": why for j, (after, why) in enumerate(cuts) if after is None}
    halos = []
    for j, (after, _) in enumerate(cuts):
        if after:   # kernel < stride: the rows a piece does not read (dropped; zeros in the gradient)
            local = None
            if extend is not None:
                def local(attrs, d=lead + j, grow=after):
                    value = list(attrs[extend])
                    value[d] += grow
                    return {**attrs, extend: tuple(value)}
            halos.append(Halo(f"q{j}", 0, lead + j, 0, after, out=out, local=local))
    return ShardingRule((dims,) * n_ins, (dims,), whole=whole, reasons=reasons, halos=halos)


def pool_2x2(*inputs, **attrs):
    """MaxPool2x2 (x), MaxPool2x2Grad (x, y, dout) and MaxPool2x2GradGrad (x, y, ddx): 2x2 windows at stride 2 on
    the last two dims: the planes cut freely, H and W too when even (each piece pools its own rows)."""
    shape = _shape(inputs[0])
    return _pool_rule(shape, _pool_cuts(shape[-2:], (2, 2), (2, 2)), n_ins=len(inputs))


def pool(x, kernel=(), stride=(), pads=(), **attrs):
    """AvgPool3D: the dims before the pooled dims (those of `kernel`) cut freely; a 2-d pooling's pooled dims too
    when the kernel is no larger than the stride and the length divisible by it (`_pool_cuts`)."""
    shape = _shape(x)
    return _pool_rule(shape, _pool_cuts(shape[len(shape) - len(kernel):], kernel, stride or kernel, pads))


def max_pool(x, kernel=(), stride=(), pads=(), **attrs):
    """MaxPoolWithArgmaxV2 ((values, argmax: flat indices in each plane)): the planes cut freely, the pooled dims
    whole (a piece's argmax would index its own rows; MaxPool2x2 cuts them)."""
    shape = _shape(x)
    lead = len(shape) - len(kernel)
    dims = _planes(shape, lead)[:lead] + tuple(f"q{j}" for j in range(len(kernel)))
    cuts = _pool_cuts(shape[lead:], kernel, stride or kernel, pads)
    reasons = {f"q{j}": why or "the argmax indices of a piece would index its own rows"
               for j, (_, why) in enumerate(cuts)}
    return ShardingRule((dims,), (dims,) * 2, whole=tuple(reasons), reasons=reasons)


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


def pool_grad(dout, shape=(), kernel=(), stride=(), pads=(), **attrs):
    """AvgPoolGrad (dout scattered back into `shape`): the leading dims keep their cuts, the pooled dims as the
    pooling's (a piece's unread rows get zeros)."""
    shape = tuple(shape)
    nd = len(kernel) if kernel else len(shape) - 2
    rule = _pool_rule(shape, _pool_cuts(shape[len(shape) - nd:], kernel, stride or kernel, pads), out=True,
                      extend="shape")
    return ShardingRule(rule.ins, rule.outs, whole=rule.whole, reasons=rule.reasons, halos=rule.halos,
                        localize=_shape_local)


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
