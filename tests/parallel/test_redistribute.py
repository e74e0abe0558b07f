"""The simulated world's collectives and the redistribution planner, against numpy (every layout pair exact)."""
import numpy as np
import pytest
from _shard_model import MESHES, layouts, model_shards
from hypothesis import given, settings
from hypothesis import strategies as st

from mindseed.parallel._layout import DeviceMesh, TensorLayout, assemble, shard_array
from mindseed.parallel._redistribute import common_mesh, plan
from mindseed.parallel._world import SimulatedWorld


def _ranks(n, shape=(2, 4)):
    rng = np.random.default_rng(n)
    return [rng.integers(-9, 9, size=shape).astype(np.float64) for _ in range(n)]


# ---------------------------------------------------------------- collectives
def test_all_reduce_sums_each_group():
    w = SimulatedWorld(4)
    x = _ranks(4)
    out = w.all_reduce(x, [[0, 2], [1, 3]])
    np.testing.assert_array_equal(out[0], x[0] + x[2])
    np.testing.assert_array_equal(out[2], x[0] + x[2])
    np.testing.assert_array_equal(out[3], x[1] + x[3])
    assert w.log[0].kind == "AllReduce" and w.log[0].input_bytes == 64 and w.log[0].sent_bytes == 64
    out = w.all_reduce(x, [[0, 1, 2, 3]], op="max")
    np.testing.assert_array_equal(out[1], np.max(np.stack(x), axis=0))


def test_all_gather_reduce_scatter_all_to_all_broadcast():
    w = SimulatedWorld(4)
    x = _ranks(4)
    g = w.all_gather(x, [[0, 1, 2, 3]], axis=1)
    np.testing.assert_array_equal(g[3], np.concatenate(x, axis=1))
    rs = w.reduce_scatter(x, [[3, 1], [0, 2]], axis=1)
    total = x[3] + x[1]
    np.testing.assert_array_equal(rs[3], total[:, :2])
    np.testing.assert_array_equal(rs[1], total[:, 2:])
    a2a = w.all_to_all(x, [[0, 1, 2, 3]], split_axis=1, concat_axis=0)
    np.testing.assert_array_equal(a2a[2], np.concatenate([xi[:, 2:3] for xi in x], axis=0))
    b = w.broadcast(x, [[2, 0], [1, 3]], root=0)
    np.testing.assert_array_equal(b[0], x[2])
    np.testing.assert_array_equal(b[3], x[1])
    # ring bytes per rank: AllGather (n-1) S, ReduceScatter and AllToAll (n-1)/n S, Broadcast S
    assert [r.sent_bytes for r in w.log] == [3 * 64, 64 // 2, 3 * 64 // 4, 64]


@pytest.mark.parametrize("call, message", [
    (lambda w, x: w.all_reduce(x[:3], [[0, 1]]), "one array per rank"),
    (lambda w, x: w.all_gather(x, [[0, 1], [1, 2]]), "disjoint"),
    (lambda w, x: w.all_gather(x, [[0, 1], [2]]), "same size"),
    (lambda w, x: w.reduce_scatter(x, [[0, 1, 2]], axis=0), "divisible by the group size 3"),
])
def test_collectives_check_their_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call(SimulatedWorld(4), _ranks(4))


# ---------------------------------------------------------------- planner
@st.composite
def pairs(draw):
    n = draw(st.sampled_from(sorted(MESHES)))
    src_mesh, dst_mesh = draw(st.sampled_from(MESHES[n])), draw(st.sampled_from(MESHES[n]))
    ndim = draw(st.integers(1, 3))
    # a shape every layout of either mesh divides: each dim a multiple of n
    shape = tuple(n * draw(st.integers(1, 2)) for _ in range(ndim))
    return src_mesh, draw(layouts(src_mesh, ndim)), dst_mesh, draw(layouts(dst_mesh, ndim)), shape


@settings(max_examples=250, deadline=None)
@given(pairs())
def test_every_layout_pair_redistributes_exactly(case):
    src_mesh, (src_dims, src_partial), dst_mesh, (dst_dims, dst_partial), shape = case
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) - 7
    src = TensorLayout(DeviceMesh(src_mesh), shape, src_dims, src_partial)
    dst = TensorLayout(DeviceMesh(dst_mesh), shape, dst_dims, dst_partial)
    world = SimulatedWorld(src.mesh.size)
    moves = plan(src, dst, itemsize=8)
    out = moves.run(shard_array(x, src), world)
    np.testing.assert_array_equal(assemble(out, dst), x)
    if not dst.partial:
        for got, want in zip(out, model_shards(x, dst_mesh, dst.dims)):
            np.testing.assert_array_equal(got, want)
    # the planner's byte count is what the world logged
    assert moves.sent_bytes == sum(r.sent_bytes for r in world.log)
    assert [s.kind for s in moves.collectives()] == [r.kind for r in world.log]


def _kinds(src, dst):
    return [s.kind for s in plan(src, dst).steps]


def test_partial_to_sharded_is_a_reduce_scatter_and_to_replicated_an_all_reduce():
    mesh = DeviceMesh((2, 2), ("dp", "mp"))
    partial = TensorLayout(mesh, (4, 8), ((0,), ()), partial=(1,))
    assert _kinds(partial, TensorLayout(mesh, (4, 8), ((0,), (1,)))) == ["ReduceScatter"]
    assert _kinds(partial, TensorLayout(mesh, (4, 8), ((0, 1), ()))) == ["ReduceScatter"]
    assert _kinds(partial, TensorLayout(mesh, (4, 8), ((0,), ()))) == ["AllReduce"]
    # the reduce-scatter moves half the bytes of the all-reduce
    rs = plan(partial, TensorLayout(mesh, (4, 8), ((0,), (1,))), 4)
    ar = plan(partial, TensorLayout(mesh, (4, 8), ((0,), ())), 4)
    assert rs.sent_bytes * 2 == ar.sent_bytes == 64


def test_moving_a_cut_between_dims_is_an_all_to_all_and_cutting_is_free():
    mesh = DeviceMesh((4,), ("mp",))
    rows = TensorLayout(mesh, (8, 8), ((0,), ()))
    cols = TensorLayout(mesh, (8, 8), ((), (0,)))
    assert _kinds(rows, cols) == ["AllToAll"]
    assert _kinds(TensorLayout.replicated(mesh, (8, 8)), cols) == ["Slice"]
    assert _kinds(rows, TensorLayout.replicated(mesh, (8, 8))) == ["AllGather"]
    assert _kinds(rows, rows) == []


def test_meshes_without_a_common_refinement_go_through_the_whole_tensor():
    assert common_mesh(DeviceMesh((2, 3)), DeviceMesh((3, 2))) is None
    mesh, a, b = common_mesh(DeviceMesh((2, 4)), DeviceMesh((4, 2)))
    assert mesh.shape == (2, 2, 2) and a == [(0,), (1, 2)] and b == [(0, 1), (2,)]
    src = TensorLayout(DeviceMesh((2, 3)), (6, 6), ((0,), (1,)))
    dst = TensorLayout(DeviceMesh((3, 2)), (6, 6), ((1,), (0,)))
    x = np.arange(36.0).reshape(6, 6)
    assert _kinds(src, dst) == ["AllGather", "AllGather", "Slice", "Slice"]
    np.testing.assert_array_equal(assemble(plan(src, dst).run(shard_array(x, src), SimulatedWorld(6)), dst), x)


def test_plan_checks_its_layouts():
    a = TensorLayout(DeviceMesh((2,)), (4,), ((0,),))
    with pytest.raises(ValueError, match="different global shapes"):
        plan(a, TensorLayout(DeviceMesh((2,)), (6,), ((0,),)))
    with pytest.raises(ValueError, match="on 2 and 4 ranks"):
        plan(a, TensorLayout(DeviceMesh((4,)), (4,), ((0,),)))


def test_a_free_axis_is_sliced_in_first_when_that_sends_less():
    """(a0, -) -> (a1, -): gathering the rows over a0 sends a 4 x 8 shard; slicing the columns by the free a1 first
    leaves a 4 x 2 shard to gather, then one AllToAll over a1 moves the cut from the columns to the rows."""
    mesh = DeviceMesh((2, 4))
    src, dst = TensorLayout(mesh, (8, 8), ((0,), ())), TensorLayout(mesh, (8, 8), ((1,), ()))
    r = plan(src, dst, 8)
    assert [s.kind for s in r.steps] == ["Slice", "AllGather", "AllToAll"]
    assert r.sent_bytes == (2 - 1) * 4 * 2 * 8 + 3 * (8 * 2 * 8) // 4 < (2 - 1) * 4 * 8 * 8
    x = np.arange(64.0).reshape(8, 8)
    world = SimulatedWorld(8)
    out = r.run(shard_array(x, src), world)
    np.testing.assert_array_equal(assemble(out, dst), x)
    for rank in range(8):
        np.testing.assert_array_equal(out[rank], shard_array(x, dst)[rank])
    assert sum(rec.sent_bytes for rec in world.log) == r.sent_bytes
