"""Sharding rules of the losses, sorting, segment, Setitem and advanced Getitem primitives: networks using them
(forward and backward) on meshes (2), (4), (8) (data parallel) and (2, 2), (2, 4) (data x column tensor parallel) run
no call on whole tensors and give the single-process loss and gradients (float64, 1e-12); the softmax cross-entropy
of a data-parallel batch reduces only its partial mean and the gradients."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops
from mindseed.parallel._layout import assemble
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld

RNG = np.random.default_rng(41)
N, D, F, C = 16, 4, 8, 6
X = Tensor(RNG.standard_normal((N, D)))
LABELS = Tensor(RNG.integers(0, C, (N,)).astype(np.int32))
ONE_HOT = Tensor(np.eye(C)[LABELS.asnumpy()])
IDS = Tensor(RNG.integers(0, 3, (N,)).astype(np.int32))
COLUMNS = Tensor(np.array([0, 2, 2, 5], np.int64))
# mesh: (devices, dp, mp)
MESHES = {"2": (2, 2, 1), "4": (4, 4, 1), "8": (8, 8, 1), "2x2": (4, 2, 2), "2x4": (8, 2, 4)}


class _Body(nn.Cell):
    """x @ w (column-cut by mp), tanh, then @ v back to rows."""

    def __init__(self, dp, mp):
        super().__init__()
        rng = np.random.default_rng(42)
        self.w = Parameter(Tensor(rng.standard_normal((D, F)) / 2), name="w")
        self.v = Parameter(Tensor(rng.standard_normal((F, C)) / 2), name="v")
        self.mm1, self.mm2 = ops.MatMul(), ops.MatMul()
        if dp * mp > 1:
            self.mm1.shard(((dp, 1), (1, mp)))

    def hidden(self, x):
        return ops.tanh(self.mm1(x, self.w))


class SparseLoss(_Body):
    def __init__(self, dp, mp, sparse=True):
        super().__init__(dp, mp)
        # sparse: nn's loss (SparseSoftmaxCrossEntropyWithLogits); dense: the operator (loss per row, backprop)
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean") if sparse else None
        self.dense = ops.SoftmaxCrossEntropyWithLogits()

    def construct(self, x, labels):
        logits = self.mm2(self.hidden(x), self.v)
        if self.loss is not None:
            return self.loss(logits, labels)
        return ops.reduce_mean(self.dense(logits, labels)[0])


class Ops(_Body):
    """Sort, TopK, the segment reductions, Setitem and an advanced Getitem on the hidden rows, and their
    gradients."""

    def construct(self, x, ids, columns):
        h = self.hidden(x)
        values, _ = ops.sort(h, axis=-1, descending=True)
        top, _ = ops.topk(h, 3)
        sums = ops.unsorted_segment_sum(h, ids, 3)
        peaks = ops.unsorted_segment_max(h, ids, 3)
        put = h * 1.0
        put[:, 1:3] = h[:, 0:2] * 2.0
        picked = h[:, columns]
        rows = h[columns]
        parts = (values * values, top, sums * sums, peaks, put * put, picked * 3.0)
        return sum(ops.reduce_mean(p) for p in parts) + ops.reduce_sum(rows * rows) + \
            ops.reduce_mean(self.mm2(h, self.v))


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-12)


def _check(net, ref, args, mesh):
    n, dp, _ = MESHES[mesh]
    program = record(ms.value_and_grad(net, None, net.trainable_params()), *args)
    world = SimulatedWorld(n)
    ex = execute(program, world, [(args[0], (dp, 1))] + [(a, (dp,)) for a in args[1:2] if a.ndim == 1] +
                 [(a, (dp, 1)) for a in args[1:2] if a.ndim == 2])
    loss, grads = program.result
    want_loss, want_grads = ms.value_and_grad(ref, None, ref.trainable_params())(*args)
    value = ex.value(loss)
    _close(assemble(value.shards, value.layout), want_loss.asnumpy())
    for p, g, w in zip(net.trainable_params(), grads, want_grads):
        v = ex.value(g, ex.layout_of(p))
        _close(assemble(v.shards, v.layout), w.asnumpy())
    assert ex.whole_calls == []
    return program, ex, world


@pytest.mark.parametrize("mesh", sorted(MESHES))
@pytest.mark.parametrize("sparse", [True, False])
def test_softmax_cross_entropy_runs_on_row_shards(mesh, sparse):
    n, dp, mp = MESHES[mesh]
    labels = LABELS if sparse else ONE_HOT
    _, ex, world = _check(SparseLoss(dp, mp, sparse), SparseLoss(1, 1, sparse), (X, labels), mesh)
    names = {p.call.prim.name for p in ex.plans}
    assert ("SparseSoftmaxCrossEntropyWithLogitsGrad" if sparse else "SoftmaxCrossEntropyWithLogitsGrad") in names
    if mp == 1:
        # the rows stay cut throughout: the loss's partial mean (sparse: one scalar; dense: the rows' losses are
        # averaged by ReduceMean) and the two weights' gradients are reduced, nothing is gathered
        assert [r.kind for r in world.log] == ["AllReduce"] * 3


@pytest.mark.parametrize("mesh", sorted(MESHES))
def test_sort_topk_segments_setitem_and_advanced_getitem_run_on_shards(mesh):
    n, dp, mp = MESHES[mesh]
    program, ex, world = _check(Ops(dp, mp), Ops(1, 1), (X, IDS, COLUMNS), mesh)
    ran = {p.call.prim.name for p in ex.plans}
    assert {"Sort", "TopK", "TensorScatterElements", "UnsortedSegmentSum", "UnsortedSegmentMax", "SegmentGather",
            "Setitem", "SetitemZero", "Getitem", "IndexAddGrad"} <= ran
    if mp == 1:
        plans = {}
        for p in ex.plans:      # each primitive's first (forward) call
            plans.setdefault(p.call.prim.name, p)
        # rows keep their cut through the sort, the top k, Setitem, the column pick and their gradients
        for name in ("Sort", "TopK", "Setitem", "TensorScatterElements", "SetitemZero"):
            assert plans[name].out_layouts[0].cuts(0) == dp
        picks = [p for p in ex.plans if p.call.prim.name == "Getitem" and p.call.attrs["index"][-1] is not None
                 and getattr(p.call.attrs["index"], "__len__", None) and len(p.call.attrs["index"]) == 2
                 and not isinstance(p.call.attrs["index"][1], slice)]
        assert picks and all(p.out_layouts[0].cuts(0) == dp for p in picks)
        # the segment sum leaves partial sums (reduced), the segment max reads its rows whole (gathered), the rows
        # picked by an index array read the rows whole (gathered)
        assert plans["UnsortedSegmentSum"].out_layouts[0].partial
        assert plans["UnsortedSegmentMax"].in_layouts[0].cuts(0) == 1
        assert {r.kind for r in world.log} == {"AllReduce", "AllGather"}


def test_the_rules_name_the_dims_that_stay_whole():
    from mindseed.ops import _sharding as S
    from mindseed.ops._infer import Abstract

    def t(*shape):
        return Abstract(shape, "Float64")

    rule = S.sparse_cross_entropy(t(8, 5), t(8))
    assert rule.outs == ((), ("n", "c")) and rule.means == {"n"} and rule.whole == {"c"}
    assert S.sparse_cross_entropy_grad(t(), t(8, 5), t(8, 5), t(8)).localize({}, [(2, 5)]) == {"rows": 8}
    assert S.topk(t(4, 6), k=2).outs == (("a0", None),) * 2 and S.topk(t(4, 6), k=2).whole == {"a1"}
    assert S.sort(t(4, 6), axis=0).whole == {"a0"}
    assert S.scatter_elements(t(4, 6), t(4, 2), t(4, 2), axis=1).ins[1] == ("a0", None)
    assert S.scatter_elements(t(4, 6), t(2, 2), t(2, 2), axis=1) is None        # a smaller index: whole
    assert S.segment_sum(t(8, 3), t(8)).sums == {"s0"} and S.segment_sum(t(8, 3), t(8)).outs == ((None, "r0"),)
    assert S.segment_reduce(t(8, 3), t(8)).whole == {"s0"}
    # one index array among full slices (and an Ellipsis before it): the indexed dim whole, its dims uncut
    index = np.array([[0, 1], [2, 2]])
    assert S.getitem(t(4, 6, 5), index=(Ellipsis, index)).outs == (("x0", "x1", None, None),)
    assert S.getitem(t(4, 6, 5), index=(slice(None), index)).outs == (("x0", None, None, "x2"),)
    assert S.getitem(t(4, 6), index=(np.array([True, False, True, True]),)) is None      # a mask: whole
    assert S.getitem(t(4, 6), index=(slice(1, 3), np.array([0, 1]))) is None            # a partial slice
    # Setitem: a value broadcast along a kept dim is uncut there
    rule = S.setitem(t(4, 6), t(1, 2), index=(slice(None), slice(1, 3)))
    assert rule.ins == (("x0", None), (None, None)) and rule.outs == (("x0", None),)


class _MultiArray(_Body):
    """Getitem with several integer arrays (adjacent: their broadcast dims in place; apart: first) and its gradient
    IndexAddGrad, on the hidden rows viewed as (N, 2, F / 2)."""

    def construct(self, x):
        h = ops.reshape(self.hidden(x), (N, 2, F // 2))
        rows = Tensor(np.array([[0], [1]], np.int64))
        cols = Tensor(np.array([1, 3, 3], np.int64))
        adjacent = h[:, rows, cols]             # (N, 2, 3): the rows keep their cut
        apart = h[Tensor(np.array([2, 5, 5], np.int64)), :, cols]   # (3, 2): the rows read whole
        return ops.reduce_mean(adjacent * adjacent) + ops.reduce_sum(ops.sin(apart)) + \
            ops.reduce_mean(self.mm2(ops.reshape(h, (N, F)), self.v))


@pytest.mark.parametrize("mesh", sorted(MESHES))
def test_getitem_with_several_integer_arrays_runs_on_shards(mesh):
    n, dp, mp = MESHES[mesh]
    program, ex, world = _check(_MultiArray(dp, mp), _MultiArray(1, 1), (X,), mesh)
    reads = [p for p in ex.plans if p.call.prim.name == "Getitem"]
    assert len(reads) == 2 and any(p.call.prim.name == "IndexAddGrad" for p in ex.plans)
    adjacent, apart = reads
    assert adjacent.out_layouts[0].shape == (N, 2, 3) and apart.out_layouts[0].shape == (3, 2)
    if mp == 1:   # the rows keep their cut through the adjacent arrays, the apart ones read them whole
        assert adjacent.in_layouts[0].dims[0] and adjacent.out_layouts[0].dims[0]
        assert not apart.in_layouts[0].dims[0]


def test_the_multi_array_getitem_rule_places_the_broadcast_dims_as_numpy():
    from mindseed.ops import _sharding as S   # noqa: PLC0415
    x = np.zeros((4, 5, 6, 7))
    i, j = np.zeros((2, 3), np.int64), np.zeros((3,), np.int64)
    for index in [(slice(None), Tensor(i), Tensor(j)), (Tensor(i), slice(None), Tensor(j)),
                  (Ellipsis, Tensor(i), Tensor(j)), (Tensor(j), Ellipsis, Tensor(i))]:
        rule = S.getitem(Tensor(x), index=index)
        want = x[tuple(a.asnumpy() if isinstance(a, Tensor) else a for a in index)].shape
        assert len(rule.outs[0]) == len(want)
        kept = [f for f in rule.outs[0] if f is not None]
        assert all(want[rule.outs[0].index(f)] == x.shape[int(f[1:])] for f in kept)
    assert S.getitem(Tensor(x), index=(Tensor(x > 0),)) is None   # a mask runs whole


class _MultiArraySet(_Body):
    """Setitem with several integer arrays (a tensor value keeping the rows' cut, a number) and its gradients
    (SetitemZero, and the value's Getitem)."""

    def construct(self, x):
        h = ops.reshape(self.hidden(x), (N, 2, F // 2))
        rows = Tensor(np.array([[0], [1]], np.int64))
        cols = Tensor(np.array([1, 2, 3], np.int64))
        put = h * 1.0
        put[:, rows, cols] = h[:, rows, cols] * h[:, rows, cols]
        put[Tensor(np.array([2, 5], np.int64)), :, Tensor(np.array([0, 3], np.int64))] = 0.5
        return ops.reduce_mean(ops.sin(put) * put)


@pytest.mark.parametrize("mesh", sorted(MESHES))
def test_setitem_with_several_integer_arrays_runs_on_shards(mesh):
    n, dp, mp = MESHES[mesh]
    _, ex, _ = _check(_MultiArraySet(dp, mp), _MultiArraySet(1, 1), (X,), mesh)
    sets = [p for p in ex.plans if p.call.prim.name == "Setitem"]
    assert len(sets) == 2 and any(p.call.prim.name == "SetitemZero" for p in ex.plans)
    if mp == 1:   # the arrays at dims 1, 2 keep the rows' cut; those at dims 0, 2 read the rows whole
        assert sets[0].in_layouts[0].dims[0] and sets[0].in_layouts[1].dims[0]
        assert not sets[1].in_layouts[0].dims[0]
