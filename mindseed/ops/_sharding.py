"""Sharding rules: how a primitive's dims correspond, so a partitioner can run it on shards.

A rule names every dim of every input and output by a *factor* (Shardy's and MindSpore's "tensor map" idea):
a factor sharded over some devices is cut the same way in every tensor that carries it.

    matmul_p = Prim("MatMul", K.matmul, ..., sharding=S.matmul)
    S.matmul(x(8, 4), w(4, 3))  ->  ins (("m", "k"), ("k", "n")), outs (("m", "n"),), sums {"k"}

* A factor of the inputs missing from an output is contracted for it. When it is sharded the local results add up
  to the global one (`sums`: that output is a partial sum), or their mean does (`means`: a local mean, scaled by
  1/shards, is a partial sum); a factor missing from every output and in neither set is `whole`.
* `whole` factors must not be sharded (the softmax axis, the normalized axes of a layer norm).
* `localize(attrs, local_out_shapes)` gives the attributes of the local call when an attribute is a shape
  (Reshape, BroadcastTo); None when the attributes hold for shards as they are.
* `addends` are the inputs added to the outputs after the contraction (Dense's and a convolution's bias): where the
  outputs are partial sums, such an input is held by the first rank of the sum only (the others add zeros).
* `sync` (a `Sync`) is how an op whose shards need statistics of the whole tensor runs cut (BatchNorm's batch
  statistics, MindSpore's SyncBatchNorm): the local partial sums are all-reduced over the cuts of `sync.factors`
  before each shard finishes its outputs.
* `reasons` gives, per whole factor, why it must stay uncut (the text of the error refusing a strategy that cuts it).
* `halos` (`Halo`s) are the overlaps of neighbouring pieces of a cut factor (a convolution's rows cut, MindSpore's
  exchange of the overlaps between neighbour ranks): an input's piece is extended by the ends of its neighbours'
  before the local call, or an output's local result carries overlaps that are added into its neighbours' pieces.

A rule is `sharding(*inputs, **attrs) -> ShardingRule`, where a tensor input is anything with a `shape` (an
`Abstract`, a Tensor) and a non-tensor input (a Python number, None) has no dims. The parallel package reads
rules; nothing here knows about devices.
"""
__all__ = ["ShardingRule", "Sync", "Halo", "elementwise", "matmul", "dense", "reduction", "reduction_mean", "along",
           "reshape", "transpose", "broadcast_to", "reduction_whole", "arg_reduction", "arg_with_value",
           "arg_reduce_grad", "arg_reduce_take", "scan", "scan_pair", "concat", "stack", "split", "unstack",
           "layer_norm", "layer_norm_grad", "gather", "gather_grad", "getitem", "index_add_grad", "index_add_grad_n",
           "micro_slice", "micro_slice_grad", "sparse_cross_entropy", "sparse_cross_entropy_grad", "cross_entropy",
           "cross_entropy_grad", "sort", "topk", "scatter_elements", "segment_reduce", "segment_sum", "segment_gather",
           "setitem", "setitem_zero"]


class ShardingRule:
    """The factors of an op's dims (see the module docstring).

    Args:
        ins (tuple): per input, a tuple with one factor name (or None: never sharded) per dim; None for an input
            that is not a tensor.
        outs (tuple): per output, the same.
        sums (Iterable[str]): contracted factors whose local results add up.
        means (Iterable[str]): contracted factors whose local results average.
        whole (Iterable[str]): factors that must stay unsharded.
        localize (callable): `(attrs, local_out_shapes) -> attrs` for the local call, or None.
        addends (Iterable[int]): the inputs added to the outputs after the contraction (a bias).
        sync (Sync): the statistics all-reduced inside the op when its `factors` are cut, or None.
        reasons (dict): {whole factor: why it must stay uncut}.
        halos (Iterable[Halo]): the overlaps of neighbouring pieces when their factors are cut.
    """

    __slots__ = ("ins", "outs", "sums", "means", "whole", "localize", "addends", "sync", "reasons", "halos")

    def __init__(self, ins, outs, sums=(), means=(), whole=(), localize=None, addends=(), sync=None, reasons=None,
                 halos=()):
        self.ins, self.outs = tuple(ins), tuple(outs)
        in_factors = {f for dims in self.ins if dims for f in dims if f is not None}
        out_factors = {f for dims in self.outs for f in dims if f is not None}
        self.sums, self.means = frozenset(sums), frozenset(means)
        self.whole = frozenset(whole) | (in_factors - out_factors - self.sums - self.means)
        self.localize = localize
        self.addends, self.sync, self.reasons = tuple(addends), sync, dict(reasons or {})
        self.halos = tuple(halos)

    def contracted(self, k):
        """(sums, means): the factors output `k` is a partial sum (a partial mean) over when they are cut."""
        mine = set(self.outs[k])
        return self.sums - mine, self.means - mine

    def factors(self):
        """Every factor, in order of first appearance (inputs, then outputs)."""
        seen = {}
        for dims in self.ins + self.outs:
            for f in dims or ():
                if f is not None:
                    seen.setdefault(f, None)
        return tuple(seen)

    def __repr__(self):
        fmt = lambda t: "(" + ", ".join("None" if d is None else "".join(f or "_" for f in d) for d in t) + ")"  # noqa: E731
        return f"ShardingRule({fmt(self.ins)} -> {fmt(self.outs)}, sums={sorted(self.sums)}, " \
               f"means={sorted(self.means)}, whole={sorted(self.whole)})"


class Halo:
    """The overlap of neighbouring pieces along dim `dim` of input (or, `out`, output) `index` when `factor` is cut.

    An input's local piece is extended before the local call by the last `before` elements of the previous piece
    and the first `after` of the next (zeros past the first and last pieces: the op's own padding there); a
    negative count drops that many of the piece's own elements at that end. An output's local result is longer by
    `before` and `after`: its overlaps are added into the neighbours' pieces (the gradient of an extension; a
    negative count: zeros appended), and it is cut back to its piece.

    Args:
        factor (str): the cut factor.
        index (int): the input (or output) index.
        dim (int): its dim along the factor.
        before (int): overlap with the previous piece.
        after (int): overlap with the next piece.
        out (bool): an output's overlaps (added into the neighbours) rather than an input's (read from them).
        why (str): the error's text when a piece is not longer than the overlaps (MindSpore's wording).
        local (callable): `attrs -> attrs` of the local call when the factor is cut (after the rule's `localize`),
            or None.
    """

    __slots__ = ("factor", "index", "dim", "before", "after", "out", "why", "local")

    def __init__(self, factor, index, dim, before, after, out=False, why="", local=None):
        self.factor, self.index, self.dim, self.out, self.why, self.local = factor, index, dim, out, why, local
        self.before, self.after = int(before), int(after)

    def __repr__(self):
        return f"Halo({self.factor}: {'output' if self.out else 'input'} {self.index} dim {self.dim}, " \
               f"{self.before} before, {self.after} after)"


class Sync:
    """The statistics an op's shards share when its `factors` are cut (see the module docstring).

    Args:
        factors (Iterable[str]): the factors whose cuts the statistics are all-reduced over.
        dims (tuple): per dim of the statistics (one array per rank), its factor, or its size (an int) when uncut.
        partials (callable): `(*local_args, **attrs) -> Tensor`: a shard's statistics, to be summed.
        finish (callable): `(stats, *local_args, **attrs) -> outputs`: a shard's outputs from the summed statistics.
    """

    __slots__ = ("factors", "dims", "partials", "finish")

    def __init__(self, factors, dims, partials, finish):
        self.factors, self.dims, self.partials, self.finish = frozenset(factors), tuple(dims), partials, finish


def _shape(x):
    shape = getattr(x, "shape", None)
    return None if shape is None else tuple(shape)


def _broadcast_dims(shapes, prefix="e"):
    """Factors of operands broadcast together: output dim i is factor `prefix+i`; a size-1 dim that broadcasts
    against a larger one gets None."""
    rank = max((len(s) for s in shapes if s is not None), default=0)
    out_shape = [1] * rank
    for s in shapes:
        if s is not None:
            for j, d in enumerate(s):
                if d != 1:
                    out_shape[j + rank - len(s)] = d
    ins = []
    for s in shapes:
        if s is None:
            ins.append(None)
            continue
        lead = rank - len(s)
        ins.append(tuple(f"{prefix}{j + lead}" if d == out_shape[j + lead] != 1 else None for j, d in enumerate(s)))
    return ins, tuple(f"{prefix}{i}" if d != 1 else None for i, d in enumerate(out_shape))


def elementwise(*inputs, **attrs):
    """Elementwise on broadcast operands (Add, Mul, ReLU, ReluGrad, Cast, OnesLike): every output dim one factor."""
    ins, out = _broadcast_dims([_shape(x) for x in inputs])
    return ShardingRule(ins, (out,))


def _axes(axis, ndim):
    if axis is None or axis == ():
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(sorted({a % max(ndim, 1) for a in axes}))


def _reduce(x, axis, keep_dims, kind):
    nd = len(x.shape)
    axes = _axes(axis, nd)
    ins = tuple(f"r{i}" for i in range(nd))
    out = tuple(None if i in axes else f for i, f in enumerate(ins)) if keep_dims else \
        tuple(f for i, f in enumerate(ins) if i not in axes)
    reduced = [ins[i] for i in axes]
    return ShardingRule((ins,), (out,), **{kind: reduced})


def reduction(x, axis=None, keep_dims=False, **attrs):
    """ReduceSum: a sharded reduced axis leaves partial sums."""
    return _reduce(x, axis, keep_dims, "sums")


def reduction_mean(x, axis=None, keep_dims=False, **attrs):
    """ReduceMean: a sharded reduced axis leaves local means, averaged across the shards."""
    return _reduce(x, axis, keep_dims, "means")


def reduction_whole(x, axis=None, keep_dims=False, **attrs):
    """ReduceMax / ReduceMin / ReduceProd / ReduceAll / ReduceAny: the reduced axes are whole (their shards'
    results do not combine by a sum), the other dims keep their cuts."""
    return _reduce(x, axis, keep_dims, "whole")


def arg_reduction(x, axis=None, keep_dims=False, **attrs):
    """Argmax / Argmin: an index along the reduced axes, which are whole."""
    return _reduce(x, axis, keep_dims, "whole")


def arg_with_value(x, axis=0, keep_dims=False, **attrs):
    """ArgMaxWithValue / ArgMinWithValue: (index, value), both reduced along the whole `axis`."""
    rule = _reduce(x, axis, keep_dims, "whole")
    return ShardingRule(rule.ins, rule.outs * 2, whole=rule.whole)


def arg_reduce_grad(dout, index, shape=(), axis=0, keep_dims=False, **attrs):
    """ArgReduceGrad: dout scattered into zeros of `shape` at `index` along the whole `axis`; the other dims keep
    their cuts."""
    rule = _reduce(_Shape(shape), axis, keep_dims, "whole")
    return ShardingRule((rule.outs[0], rule.outs[0]), rule.ins, whole=rule.whole, localize=_shape_local)


def arg_reduce_take(x, index, axis=0, keep_dims=False, **attrs):
    """ArgReduceTake: x read at `index` along the whole `axis` (ArgReduceGrad's adjoint)."""
    rule = _reduce(x, axis, keep_dims, "whole")
    return ShardingRule((rule.ins[0], rule.outs[0]), rule.outs, whole=rule.whole)


class _Shape:
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = tuple(shape)


def scan(x, axis=0, **attrs):
    """CumSum / CumProd / Cummax / Cummin: a running result along the whole `axis`; the other dims keep their
    cuts (one output per output of the op)."""
    nd = len(x.shape)
    dims = tuple(f"c{i}" for i in range(nd))
    whole = {dims[a] for a in _axes(axis, nd)} if nd else set()
    return ShardingRule((dims,), (dims,), whole=whole)


def scan_pair(x, axis=0, **attrs):
    """Cummax / Cummin: (values, indices), both running along the whole `axis`."""
    rule = scan(x, axis)
    return ShardingRule(rule.ins, rule.outs * 2, whole=rule.whole)


def _joined(shapes, axis):
    """Factors of same-rank operands joined along `axis` (Concat, Stack's output): `axis` never cut."""
    nd = len(shapes[0])
    a = axis % max(nd, 1)
    return tuple(None if i == a else f"j{i}" for i in range(nd))


def concat(*xs, axis=0, **attrs):
    """Concat: the operands' dims other than `axis` are one factor each; `axis` is whole (never cut)."""
    dims = _joined([_shape(x) for x in xs], axis)
    return ShardingRule((dims,) * len(xs), (dims,))


def stack(*xs, axis=0, **attrs):
    """Stack: each operand dim keeps its factor in the output; the new `axis` is never cut."""
    nd = len(xs[0].shape)
    dims = tuple(f"j{i}" for i in range(nd))
    a = axis % (nd + 1)
    return ShardingRule((dims,) * len(xs), (dims[:a] + (None,) + dims[a:],))


def split(x, sizes=(), axis=0, **attrs):
    """SplitV: the pieces keep the cuts of the dims other than `axis`; `axis` is whole."""
    dims = _joined([_shape(x)], axis)
    return ShardingRule((dims,), (dims,) * len(sizes))


def unstack(x, axis=0, **attrs):
    """Unstack: the pieces keep the cuts of the dims other than `axis`, which is whole."""
    nd = len(x.shape)
    a = axis % nd
    dims = tuple(f"j{i}" for i in range(nd))
    return ShardingRule((dims,), (dims[:a] + dims[a + 1:],) * x.shape[a], whole={dims[a]})


def along(*inputs, axis=-1, **attrs):
    """Same-shape operands reduced along `axis` inside the op (Softmax, SoftmaxGrad): those dims are whole."""
    rule = elementwise(*inputs)
    out = rule.outs[0]
    whole = {out[a] for a in _axes(axis, len(out))} - {None}
    return ShardingRule(rule.ins, rule.outs, whole=whole)


def matmul(x, y, transpose_a=False, transpose_b=False, **attrs):
    """MatMul / BatchMatMul (aten's matmul): batch dims broadcast, m x k @ k x n; k sharded leaves partial sums.
    A 1-D operand is a row (x) or a column (y), dropped from the result."""
    a, b = _shape(x), _shape(y)
    a_rows = ("m", "k")[::-1] if transpose_a else ("m", "k")
    b_rows = ("n", "k") if transpose_b else ("k", "n")
    a_batch, b_batch = a[:-2] if len(a) > 1 else (), b[:-2] if len(b) > 1 else ()
    (fa, fb), fo = _broadcast_dims([a_batch, b_batch], prefix="b")
    x_dims = ("k",) if len(a) == 1 else fa + a_rows
    y_dims = ("k",) if len(b) == 1 else fb + b_rows
    out = fo + (() if len(a) == 1 else ("m",)) + (() if len(b) == 1 else ("n",))
    return ShardingRule((x_dims, y_dims), (out,), sums=("k",))


def dense(x, w, b=None, **attrs):
    """Dense: y = x @ w.T + b over the last axis of x; the input features sharded leave partial sums."""
    lead = tuple(f"b{i}" for i in range(len(x.shape) - 1))
    w_dims = ("k",) if len(w.shape) == 1 else ("n", "k")
    out = lead + (() if len(w.shape) == 1 else ("n",))
    b_dims = None if _shape(b) is None else (("n",) if len(b.shape) else ())
    return ShardingRule((lead + ("k",), w_dims, b_dims), (out,), sums=("k",), addends=(2,))


def transpose(x, perm, **attrs):
    """Transpose: the factors permuted."""
    ins = tuple(f"t{i}" for i in range(len(x.shape)))
    return ShardingRule((ins,), (tuple(ins[p] for p in perm),))


def _shape_local(attrs, local_out_shapes):
    return {**attrs, "shape": tuple(local_out_shapes[0])}


def broadcast_to(x, shape, **attrs):
    """BroadcastTo: x's dims aligned to the right of `shape`; the new dims are never sharded."""
    src = _shape(x)
    target = tuple(s if s != -1 else src[i - len(shape) + len(src)] for i, s in enumerate(shape))
    lead = len(target) - len(src)
    ins = tuple(f"e{j + lead}" if d == target[j + lead] else None for j, d in enumerate(src))
    out = tuple(f"e{i}" if i >= lead and src[i - lead] == d else None for i, d in enumerate(target))
    return ShardingRule((ins,), (out,), localize=_shape_local)


def reshape(x, shape, **attrs):
    """Reshape: input and output dims are grouped into runs of equal size; in each run only the major dim may be
    sharded, and the shards follow it into the major dim of the output run."""
    src = _shape(x)
    total = 1
    for d in src:
        total *= d
    known = 1
    for d in shape:
        if d != -1:
            known *= d
    dst = tuple(total // known if d == -1 and known else d for d in shape)
    ins, out = [None] * len(src), [None] * len(dst)
    i = j = 0
    while i < len(src) or j < len(dst):
        # skip size-1 dims: they carry no data to shard
        if i < len(src) and src[i] == 1:
            i += 1
            continue
        if j < len(dst) and dst[j] == 1:
            j += 1
            continue
        i0, j0, a, b = i, j, src[i], dst[j]
        i, j = i + 1, j + 1
        while a != b:
            if a < b:
                a *= src[i]
                i += 1
            else:
                b *= dst[j]
                j += 1
        ins[i0] = out[j0] = f"g{i0}"
    return ShardingRule((tuple(ins),), (tuple(out),), localize=_shape_local)


def _layer_norm_dims(x, normalized_shape):
    nd, k = len(x.shape), len(normalized_shape)
    lead = tuple(f"b{i}" for i in range(nd - k))
    norm = tuple(f"n{i}" for i in range(k))
    return lead, norm


def layer_norm(x, w, b, normalized_shape, eps, **attrs):
    """LayerNorm (y, mean, rstd): the leading dims shard freely, the normalized ones are whole."""
    lead, norm = _layer_norm_dims(x, normalized_shape)
    param = lambda t: None if _shape(t) is None else norm  # noqa: E731
    stats = lead + (None,) * len(norm)
    return ShardingRule((lead + norm, param(w), param(b)), (lead + norm, stats, stats), whole=norm)


def layer_norm_grad(dy, x, w, mean, rstd, normalized_shape, eps, **attrs):
    """LayerNormGrad (dx, dw, db): dw and db sum over the leading dims (partial sums when they are sharded)."""
    lead, norm = _layer_norm_dims(x, normalized_shape)
    stats = lead + (None,) * len(norm)
    if _shape(w) is None:
        return ShardingRule((lead + norm, lead + norm, None, stats, stats), (lead + norm,), whole=norm)
    return ShardingRule((lead + norm, lead + norm, norm, stats, stats), (lead + norm, norm, norm), sums=lead,
                        whole=norm)


def _gather_dims(x_shape, indices, axis):
    axis %= len(x_shape)
    x_dims = tuple(None if i == axis else f"x{i}" for i in range(len(x_shape)))
    idx = tuple(f"i{j}" for j in range(len(_shape(indices))))
    return x_dims, idx, x_dims[:axis] + idx + x_dims[axis + 1:]


def gather(x, indices, axis=0, batch_dims=0, **attrs):
    """Gather (an embedding lookup): the indices' dims and x's other dims shard freely; the gathered axis of x
    stays whole. With `batch_dims` no rule (None: the call runs on whole tensors)."""
    if batch_dims:
        return None
    x_dims, idx, out = _gather_dims(_shape(x), indices, axis)
    return ShardingRule((x_dims, idx), (out,))


def gather_grad(dout, indices, shape, axis=0, batch_dims=0, **attrs):
    """GatherGrad: dout scattered into zeros of `shape`; with the indices' dims sharded each rank adds its rows,
    a partial sum."""
    if batch_dims:
        return None
    x_dims, idx, d_dims = _gather_dims(tuple(shape), indices, axis)
    return ShardingRule((d_dims, idx), (x_dims,), sums=idx, localize=_shape_local)


def _basic_item(item):
    return item is None or item is Ellipsis or isinstance(item, slice) or \
        (isinstance(item, int) and not isinstance(item, bool))


def _index_parts(shape, index):
    """x[index] for a basic index (ints, slices, None, Ellipsis) dim by dim: (x_dims, out_dims, local_index), or
    None for any other index (arrays, masks, bools).

    A dim the index takes whole keeps its factor `x<j>`, and so does an aligned strided slice (x[s::k] with k
    times its length the dim's size: each of d shards holds every k-th row from its start, the same local slice
    `s::k`, whenever the output's d pieces divide it). Any other slice, and an int, reads the dim whole (None: a
    cut dim is gathered first); a None index adds an output dim of size 1."""
    items = index if isinstance(index, tuple) else (index,)
    if not all(_basic_item(i) for i in items) or sum(i is Ellipsis for i in items) > 1:
        return None
    taken = sum(1 for i in items if i is not None and i is not Ellipsis)
    if taken > len(shape):
        return None
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items = items[:at] + (slice(None),) * (len(shape) - taken) + items[at + 1:]
    else:
        items = items + (slice(None),) * (len(shape) - taken)
    x_dims, out_dims, local = [], [], []
    j = 0
    for item in items:
        if item is None:
            out_dims.append(None)
            local.append(None)
            continue
        n, f = shape[j], f"x{j}"
        j += 1
        if not isinstance(item, slice):
            x_dims.append(None)
            local.append(item)
            continue
        start, stop, step = item.indices(n)
        length = len(range(start, stop, step))
        if step == 1 and length == n:
            x_dims.append(f)
            out_dims.append(f)
            local.append(slice(None))
        elif step > 1 and length * step == n:
            x_dims.append(f)
            out_dims.append(f)
            local.append(slice(start, None, step))
        else:
            x_dims.append(None)
            out_dims.append(None)
            local.append(item)
    return tuple(x_dims), tuple(out_dims), tuple(local)


def _int_array(item):
    """The number of dims of an integer index array (a list of ints, an integer tensor), or None for anything else."""
    if isinstance(item, list):
        return 1 if all(isinstance(v, int) and not isinstance(v, bool) for v in item) else None
    if getattr(item, "shape", None) is not None and "bool" not in str(getattr(item, "dtype", "")).lower():
        return len(item.shape)
    return None


def _advanced_parts(shape, index):
    """x[index] for integer arrays (lists, tensors) among full slices and an Ellipsis: (x_dims, out_dims) — the
    indexed dims read whole, the arrays' broadcast dims (uncut) in the output where numpy puts them (in place of
    adjacent arrays, else first), every other dim keeping its factor; None for any other index (masks, partial
    slices, ints mixed in: data-dependent or mixed shapes)."""
    items = index if isinstance(index, tuple) else (index,)
    if sum(item is Ellipsis for item in items) > 1:
        return None
    ndims = [_int_array(item) for item in items]
    if not any(n is not None for n in ndims):
        return None
    if not all(n is not None or item is Ellipsis or item == slice(None) for n, item in zip(ndims, items)):
        return None
    taken = len(items) - sum(item is Ellipsis for item in items)
    if taken > len(shape):
        return None
    expanded = []
    for n, item in zip(ndims, items):
        expanded += [None] * (len(shape) - taken) if item is Ellipsis else [n]
    expanded += [None] * (len(shape) - len(expanded))
    at = [j for j, n in enumerate(expanded) if n is not None]
    broadcast = (None,) * max(expanded[j] for j in at)
    x_dims = tuple(None if j in at else f"x{j}" for j in range(len(shape)))
    rest = tuple(f for j, f in enumerate(x_dims) if j not in at)
    if at == list(range(at[0], at[-1] + 1)):   # adjacent arrays: the broadcast dims take their place
        return x_dims, x_dims[:at[0]] + broadcast + x_dims[at[-1] + 1:]
    return x_dims, broadcast + rest


def getitem(x, index=None, **attrs):
    """Getitem (x[index]). A basic index: the dims the index takes whole, or in aligned strides, keep their cuts;
    the others are read whole (see `_index_parts`). Integer arrays among full slices: the indexed dims whole, the
    others keep their cuts (`_advanced_parts`). None for another advanced index (a mask: the call runs on whole
    tensors)."""
    parts = _index_parts(_shape(x), index)
    if parts is None:
        advanced = _advanced_parts(_shape(x), index)
        return None if advanced is None else ShardingRule((advanced[0],), (advanced[1],))
    x_dims, out_dims, local = parts
    return ShardingRule((x_dims,), (out_dims,), localize=lambda attrs, shapes: {**attrs, "index": local})


def index_add_grad(dout, shape=None, index=None, **attrs):
    """IndexAddGrad (Getitem's gradient: dout written into zeros of `shape` at `index`): Getitem's rule reversed
    (integer arrays: each shard adds its part of dout at the arrays' positions of its own part)."""
    parts = _index_parts(tuple(shape), index)
    if parts is None:
        advanced = _advanced_parts(tuple(shape), index)
        if advanced is None:
            return None
        return ShardingRule((advanced[1],), (advanced[0],),
                            localize=lambda attrs, shapes: {**attrs, "shape": tuple(shapes[0])})
    x_dims, out_dims, local = parts
    return ShardingRule((out_dims,), (x_dims,),
                        localize=lambda attrs, shapes: {**attrs, "shape": tuple(shapes[0]), "index": local})


def index_add_grad_n(*douts, shape=None, indices=(), **attrs):
    """IndexAddGradN (the sum of IndexAddGrad over several indices): a dim of `shape` keeps its cuts when every
    index keeps them."""
    shape = tuple(shape)
    parts = [_index_parts(shape, index) for index in indices]
    if any(p is None for p in parts):
        return None
    kept = [f"x{j}" if all(p[0][j] is not None for p in parts) else None for j in range(len(shape))]
    ins = tuple(tuple(f if f in kept else None for f in p[1]) for p in parts)
    local = tuple(p[2] for p in parts)
    return ShardingRule(ins, (tuple(kept),),
                        localize=lambda attrs, shapes: {**attrs, "shape": tuple(shapes[0]), "indices": local})


def _micro_local(index, batch, local_batch):
    """The local index of a micro-batch slice `index` (rows [i L, (i + 1) L) of a batch of `batch` rows) on a shard
    holding `local_batch` rows: the same micro-batch number i of the shard's own rows."""
    start, stop, _ = index[0].indices(batch)
    micro = batch // (stop - start)
    rows = local_batch // micro
    i = start // (stop - start)
    return (slice(i * rows, (i + 1) * rows),) + tuple(index[1:])


def micro_slice(x, index=None, **attrs):
    """MicroBatchSlice (micro-batch i of `x`'s rows, MindSpore's StridedSlice of `_MicroBatch` with its
    ``strided_slice_flag``): every dim keeps its cuts, and a cut batch dim is sliced locally: each shard gives
    micro-batch i of its own rows, so the ranks' micro-batch i is another grouping of the samples than rows
    [i L, (i + 1) L) of the whole batch (MindSpore's regrouping), and no row is gathered."""
    shape = _shape(x)
    dims = tuple(f"x{j}" for j in range(len(shape)))
    micro = shape[0] // len(range(*index[0].indices(shape[0])))
    return ShardingRule((dims,), (dims,), localize=lambda attrs, shapes: {
        **attrs, "index": _micro_local(attrs["index"], shape[0], shapes[0][0] * micro)})


def micro_slice_grad(dout, shape=None, index=None, **attrs):
    """MicroBatchSliceGrad (MicroBatchSlice's gradient: dout written into zeros of `shape` at its rows): the slice's
    rule reversed, each shard writing its micro-batch rows into its own rows."""
    shape = tuple(shape)
    dims = tuple(f"x{j}" for j in range(len(shape)))
    return ShardingRule((dims,), (dims,), localize=lambda attrs, shapes: {
        **attrs, "shape": tuple(shapes[0]), "index": _micro_local(attrs["index"], shape[0], shapes[0][0])})


def sparse_cross_entropy(logits, labels, **attrs):
    """SparseSoftmaxCrossEntropyWithLogits ((the mean over the rows of the loss, the log-probabilities)): the classes
    whole; cut rows leave the loss a partial mean."""
    return ShardingRule((("n", "c"), ("n",)), ((), ("n", "c")), means={"n"}, whole={"c"})


def sparse_cross_entropy_grad(dloss, logits, logp, labels, **attrs):
    """SparseSoftmaxCrossEntropyWithLogitsGrad: per row, the classes whole; the local call divides by the whole
    batch's rows (`rows`), as the mean did."""
    rows = _shape(logits)[0]
    return ShardingRule(((), ("n", "c"), ("n", "c"), ("n",)), (("n", "c"),), whole={"c"},
                        localize=lambda attrs, shapes: {**attrs, "rows": rows})


def cross_entropy(logits, labels, **attrs):
    """SoftmaxCrossEntropyWithLogits ((loss per row, softmax - labels)): the classes whole, the rows keep their
    cuts."""
    return ShardingRule((("n", "c"), ("n", "c")), (("n",), ("n", "c")), whole={"c"})


def cross_entropy_grad(dloss, logits, labels, **attrs):
    """SoftmaxCrossEntropyWithLogitsGrad ((d logits, d labels)): per row, the classes whole."""
    return ShardingRule((("n",), ("n", "c"), ("n", "c")), (("n", "c"), ("n", "c")), whole={"c"})


def _along_one(shape, axis, prefix="a"):
    dims = tuple(f"{prefix}{i}" for i in range(len(shape)))
    return dims, ({dims[axis % len(shape)]} if shape else set())


def sort(x, axis=-1, **attrs):
    """Sort ((values, indices)): along the whole `axis`; the other dims keep their cuts."""
    dims, whole = _along_one(_shape(x), axis)
    return ShardingRule((dims,), (dims, dims), whole=whole)


def topk(x, k=1, dim=-1, **attrs):
    """TopK ((values, indices)): the `k` of the whole `dim` (its own uncut dim in the outputs); the other dims keep
    their cuts."""
    dims, whole = _along_one(_shape(x), dim)
    out = tuple(None if f in whole else f for f in dims)
    return ShardingRule((dims,), (out, out), whole=whole)


def scatter_elements(x, index, updates, axis=0, **attrs):
    """TensorScatterElements (x with updates written at index along `axis`): the whole `axis`; every other dim keeps
    its cuts when the index and the updates are as large as x there (else None: the call runs whole)."""
    shape, ishape = _shape(x), _shape(index)
    if ishape != _shape(updates) or len(ishape) != len(shape):
        return None
    a = axis % len(shape)
    if any(i != j for d, (i, j) in enumerate(zip(shape, ishape)) if d != a):
        return None
    dims = tuple(f"a{i}" for i in range(len(shape)))
    sub = tuple(None if i == a else f for i, f in enumerate(dims))
    return ShardingRule((dims, sub, sub), (dims,), whole={dims[a]})


def _segment_dims(x, ids):
    k = len(_shape(ids))
    rest = tuple(f"r{j}" for j in range(len(_shape(x)) - k))
    seg = tuple(f"s{i}" for i in range(k))
    return seg, rest


def segment_sum(x, ids, **attrs):
    """UnsortedSegmentSum (out[s] = the sum of x's rows with id s): the rows' dims (the ids' dims) cut leave partial
    sums (an empty segment adds nothing); the segments dim is uncut; x's other dims keep their cuts."""
    seg, rest = _segment_dims(x, ids)
    return ShardingRule((seg + rest, seg), ((None,) + rest,), sums=seg)


def segment_reduce(x, ids, **attrs):
    """UnsortedSegmentMax / Min / Prod: the rows whole (the local extremes do not add up); x's other dims keep
    their cuts."""
    seg, rest = _segment_dims(x, ids)
    return ShardingRule((seg + rest, seg), ((None,) + rest,), whole=seg)


def segment_gather(v, ids, **attrs):
    """SegmentGather (v[ids], UnsortedSegmentSum's gradient): the segments dim read whole, the ids' dims keep their
    cuts in the output, v's other dims theirs."""
    seg = tuple(f"s{i}" for i in range(len(_shape(ids))))
    rest = tuple(f"r{j}" for j in range(len(_shape(v)) - 1))
    return ShardingRule(((None,) + rest, seg), (seg + rest,))


def _setitem_dims(shape, index):
    """(x's dims, x[index]'s dims, local index) of a basic index: the kept dims of `_index_parts`."""
    parts = _index_parts(shape, index)
    if parts is None:
        return None
    x_dims, out_dims, local = parts
    return x_dims, out_dims, local


def _array_shapes(index):
    items = index if isinstance(index, tuple) else (index,)
    return [(len(item),) if isinstance(item, list) else tuple(item.shape) for item in items
            if _int_array(item) is not None]


def _advanced_setitem(x, value, index):
    """Setitem / SetitemZero with integer arrays among full slices (`_advanced_parts`): the indexed dims whole, the
    others keep their cuts in x, the output and the value (aligned from the right to x[index]'s shape; the arrays'
    dims and a broadcast dim of the value uncut); None for another index."""
    shape = _shape(x)
    parts = _advanced_parts(shape, index)
    if parts is None:
        return None
    x_dims, out_dims = parts
    if value is None:
        return ShardingRule((x_dims,), (x_dims,))
    vshape = _shape(value)
    if vshape is None:
        return ShardingRule((x_dims, None), (x_dims,))
    arrays = _array_shapes(index)
    rank = max(len(a) for a in arrays)
    broadcast = [max((a[j - rank + len(a)] for a in arrays if j - rank + len(a) >= 0), default=1) for j in range(rank)]
    sub = [shape[int(f[1:])] if f is not None else None for f in out_dims]
    k = 0
    for j, f in enumerate(out_dims):   # the broadcast dims (the None entries of out_dims) in order
        if f is None:
            sub[j], k = broadcast[k], k + 1
    if len(vshape) > len(sub):
        return None
    lead = len(sub) - len(vshape)
    v_dims = tuple(out_dims[lead + j] if d == sub[lead + j] else None for j, d in enumerate(vshape))
    return ShardingRule((x_dims, v_dims), (x_dims,))


def setitem(x, value, index=None, **attrs):
    """Setitem (x with x[index] = value). A basic index: the dims the index takes whole, or in aligned strides, keep
    their cuts in x, the output and the value (aligned from the right; a broadcast dim of the value uncut), the
    others are whole. Integer arrays among full slices: `_advanced_setitem`. None for another index (a mask: the
    call runs whole)."""
    parts = _setitem_dims(_shape(x), index)
    if parts is None:
        return _advanced_setitem(x, value, index)
    x_dims, out_dims, local = parts
    vshape = _shape(value)
    if vshape is None:
        v_dims = None
    else:
        sub = _index_out_shape(_shape(x), index)
        if len(vshape) > len(sub):
            return None
        lead = len(sub) - len(vshape)
        v_dims = tuple(out_dims[lead + j] if d == sub[lead + j] else None for j, d in enumerate(vshape))
    return ShardingRule((x_dims, v_dims), (x_dims,), localize=lambda attrs, shapes: {**attrs, "index": local})


def setitem_zero(x, index=None, **attrs):
    """SetitemZero (x with x[index] = 0, Setitem's gradient): as Setitem."""
    parts = _setitem_dims(_shape(x), index)
    if parts is None:
        return _advanced_setitem(x, None, index)
    x_dims, _, local = parts
    return ShardingRule((x_dims,), (x_dims,), localize=lambda attrs, shapes: {**attrs, "index": local})


def _index_out_shape(shape, index):
    """The shape of x[index] for a basic index."""
    items = index if isinstance(index, tuple) else (index,)
    taken = sum(1 for i in items if i is not None and i is not Ellipsis)
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items = items[:at] + (slice(None),) * (len(shape) - taken) + items[at + 1:]
    else:
        items = items + (slice(None),) * (len(shape) - taken)
    out, j = [], 0
    for item in items:
        if item is None:
            out.append(1)
            continue
        if isinstance(item, slice):
            out.append(len(range(*item.indices(shape[j]))))
        j += 1
    return tuple(out)
