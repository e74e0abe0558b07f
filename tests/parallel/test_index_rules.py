"""Sharding rules of Getitem / IndexAddGrad (basic indices) and of the elementwise primitives declared with them:
hypothesis tests against the numpy model of the ranks' shards, and networks on simulated meshes that equal the
single-process run (float64, 1e-12) with no call left on whole tensors."""
import math

import numpy as np
import pytest
from _pipeline_model import Net, WithLoss, assert_pipeline_matches
from _shard_model import MESHES, layouts, model_shards
from hypothesis import given, settings
from hypothesis import strategies as st

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops
from mindseed.ops import _sharding as S
from mindseed.ops._prims import core as P
from mindseed.ops._prims import math as M
from mindseed.parallel._layout import TensorLayout, assemble
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld


class _Abstract:
    def __init__(self, shape):
        self.shape = tuple(shape)


# the index of one dim: whole, an aligned stride (k rows apart from start s < k), any other slice, an int
KINDS = ("whole", "stride", "slice", "int")


@st.composite
def index_cases(draw):
    """(mesh shape, x's shape, index, x's cuts): every dim the index keeps may be cut (its pieces dividing it and
    its output), the others not."""
    n = draw(st.sampled_from(sorted(MESHES)))
    mesh_shape = draw(st.sampled_from(MESHES[n]))
    ndim = draw(st.integers(1, 3))
    kinds = [draw(st.sampled_from(KINDS)) for _ in range(ndim)]
    dims, _ = draw(layouts(mesh_shape, ndim, allow_partial=False))
    dims = tuple(d if k in ("whole", "stride") else () for d, k in zip(dims, kinds))
    shape, items = [], []
    for d, kind in zip(dims, kinds):
        cuts = math.prod(mesh_shape[a] for a in d)
        step = draw(st.integers(2, 3)) if kind == "stride" else 1
        size = cuts * step * draw(st.integers(1, 2))
        shape.append(size)
        if kind == "whole":
            items.append(draw(st.sampled_from([slice(None), slice(0, size), slice(-size, None), slice(None, None, 1)])))
        elif kind == "stride":
            items.append(slice(draw(st.integers(0, step - 1)), draw(st.sampled_from([None, size])), step))
        elif kind == "slice":
            start = draw(st.integers(0, size - 1))
            items.append(slice(start, draw(st.integers(start + 1, size)), draw(st.sampled_from([None, 2]))))
        else:
            items.append(draw(st.integers(-size, size - 1)))
    # a None somewhere, and the trailing whole dims written as an Ellipsis
    if draw(st.booleans()):
        items.insert(draw(st.integers(0, len(items))), None)
    if draw(st.booleans()):
        last = max([i for i, it in enumerate(items) if it is not None and not (isinstance(it, slice) and it ==
                                                                                   slice(None))], default=-1)
        items = items[:last + 1] + [Ellipsis]
    return mesh_shape, tuple(shape), tuple(items), dims


def _out_dims(rule, x_dims):
    """The output's cuts: each output dim cut like the input dim carrying its factor."""
    cut = {f: axes for f, axes in zip(rule.ins[0], x_dims) if f is not None}
    return tuple(cut.get(f, ()) for f in rule.outs[0])


@settings(max_examples=150, deadline=None)
@given(index_cases())
def test_getitem_rule_matches_the_numpy_model(case):
    mesh_shape, shape, index, dims = case
    x = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    rule = S.getitem(_Abstract(shape), index=index)
    assert rule.whole == frozenset() and rule.sums == frozenset()
    for f, axes in zip(rule.ins[0], dims):
        assert f is not None or not axes
    want = x[index]
    out_dims = _out_dims(rule, dims)
    expected = model_shards(want, mesh_shape, out_dims)
    local = rule.localize({"index": index}, [e.shape for e in expected])["index"]
    for shard, e in zip(model_shards(x, mesh_shape, dims), expected):
        np.testing.assert_array_equal(shard[local], e)
        # the primitive's kernel on the shard gives the same
        np.testing.assert_array_equal(P.getitem_p(Tensor(shard), index=local).asnumpy(), e)


@settings(max_examples=100, deadline=None)
@given(index_cases())
def test_index_add_grad_rule_matches_the_numpy_model(case):
    mesh_shape, shape, index, dims = case
    dout = np.random.default_rng(0).standard_normal(np.zeros(shape)[index].shape)
    want = np.zeros(shape)
    want[index] = dout
    rule = S.index_add_grad(_Abstract(dout.shape), shape=shape, index=index)
    fwd = S.getitem(_Abstract(shape), index=index)
    assert rule.ins[0] == fwd.outs[0] and rule.outs[0] == fwd.ins[0]
    out_dims = _out_dims(fwd, dims)
    expected = model_shards(want, mesh_shape, dims)
    for g, e in zip(model_shards(dout, mesh_shape, out_dims), expected):
        attrs = rule.localize({"shape": shape, "index": index}, [e.shape])
        got = P.index_add_grad_p(Tensor(g), **attrs).asnumpy()
        np.testing.assert_array_equal(got, e)


def test_index_add_grad_n_keeps_a_dim_every_index_keeps():
    shape = (6, 4, 2)
    indices = ((0,), (slice(None), slice(1, None, 2)), (Ellipsis, slice(0, 2)))
    douts = [np.zeros(shape)[i] for i in indices]
    rule = S.index_add_grad_n(*[_Abstract(d.shape) for d in douts], shape=shape, indices=indices)
    # dim 0: read whole by the int; dim 1: one index reads a stride, another whole; dim 2: kept by all
    assert rule.outs == ((None, "x1", "x2"),)
    assert rule.ins == (("x1", "x2"), (None, "x1", "x2"), (None, "x1", "x2"))
    assert S.index_add_grad_n(_Abstract((2,)), shape=(4,), indices=(np.array([0, 1]),)) is None


def test_advanced_indices_but_integer_arrays_among_full_slices_have_no_rule():
    # several arrays have one (test_more_rules.py): the indexed dims whole, the broadcast dims uncut
    assert S.getitem(_Abstract((4, 3)), index=(np.array([0, 2]), np.array([1, 1]))).outs == ((None,),)
    assert S.getitem(_Abstract((4, 3)), index=(np.array([0, 2]), 1)) is None   # an int mixed in
    assert S.getitem(_Abstract((4, 3)), index=(np.array([True, False, True, True]),)) is None
    assert S.getitem(_Abstract((4, 3)), index=(np.array([0, 2]),)).outs == ((None, "x1"),)   # test_more_rules.py
    assert S.getitem(_Abstract((4, 3)), index=(True,)) is None
    assert S.getitem(_Abstract((4, 3)), index=(0, 0, 0)) is None


# the elementwise primitives of core and math: every one has a rule
ELEMENTWISE = ["Identity", "StopGradient", "Sign", "Greater", "Equal", "Select", "Abs", "Sqrt", "Sin", "Tanh",
               "Sigmoid", "Erf", "Floor", "Atan2", "Hypot", "LogicalAnd", "Clamp", "BesselI0", "IsFinite", "Xlogy"]


def test_elementwise_primitives_declare_the_elementwise_rule():
    prims = {p.name: p for m in (P, M) for p in vars(m).values() if hasattr(p, "sharding") and hasattr(p, "name")}
    assert {n: prims[n].sharding for n in ELEMENTWISE} == {n: S.elementwise for n in ELEMENTWISE}


RNG = np.random.default_rng(0)


class _Strided(nn.Cell):
    """Two interleaved halves of the batch (x[0::2], x[1::2]) through tanh, sigmoid, atan2 and clamp."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(RNG.standard_normal((4, 4))), name="w")
        self.mm = ops.MatMul().shard(((2, 1), (1, 1)))

    def construct(self, x):
        h = self.mm(x, self.w)
        a, b = h[0::2], h[1::2]
        y = ops.tanh(a) * ops.sigmoid(b) + ops.atan2(a, b + 3.0) - ops.clamp(a, -0.5, 0.5)
        return ops.reduce_mean(y[:, 1:] * y[:, 1:])


@pytest.mark.parametrize("n", [2, 4])
def test_strided_halves_keep_the_data_parallel_layout(n):
    net = _Strided()
    x = Tensor(RNG.standard_normal((8, 4)))
    net.mm.shard(((n, 1), (1, 1)))
    program = record(ms.value_and_grad(net, None, net.trainable_params()), x)
    loss, grads = program.result
    world = SimulatedWorld(n)
    ex = execute(program, world, [(x, (n, 1))])
    assert ex.whole_calls == []
    value = ex.value(loss, TensorLayout.replicated(ex.value(loss).layout.mesh, ()))
    np.testing.assert_allclose(value.shards[0], loss.asnumpy(), rtol=0, atol=1e-12)
    layout = ex.layout_of(net.w)
    np.testing.assert_allclose(assemble(ex.value(grads[0], layout).shards, layout), grads[0].asnumpy(), rtol=0,
                               atol=1e-12)
    # the strided halves stay cut by rows: nothing but the loss's mean and w's gradient is reduced
    assert {r.kind for r in world.log} == {"AllReduce"}
    getitems = [p for p in ex.plans if p.call.prim.name == "Getitem" and p.call.args[0] is program.calls[0].outs[0]]
    assert [p.out_layouts[0].dims[0] for p in getitems] == [p.in_layouts[0].dims[0] for p in getitems] != [()] * 2


def test_a_data_parallel_pipeline_cuts_micro_batches_by_rule():
    x, y = Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 4)))
    net = Net((4, 6, 5, 4), ((2, 1), (1, 1)))
    for layer, stage in zip(net.layers, (0, 1, 1)):
        layer.pipeline_stage = stage
    cell = nn.PipelineCell(WithLoss(net), 2)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, x, y)
    run = execute_pipeline(program, 2, 4, [(x, (2, 1)), (y, (2, 1))])
    assert [c.prim.name for ex in run.stages for c in ex.whole_calls] == []
    ref = Net((4, 6, 5, 4))
    ref_cell = nn.PipelineCell(WithLoss(ref), 2)
    ref_loss, ref_grads = ms.value_and_grad(ref_cell, None, ref_cell.trainable_params())(x, y)
    assert_pipeline_matches(run, program, cell, ref_loss, ref_grads)
    # the micro-batch slices cut each rank's own rows (tests/parallel/test_micro_batch_slices.py): nothing gathered
    for ex in run.stages:
        assert [r.kind for r in ex.world.log].count("AllGather") == 0
