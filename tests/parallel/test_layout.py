"""Device meshes and tensor layouts against the numpy model of the ranks' shards (random meshes and layouts)."""
import numpy as np
import pytest
from _shard_model import MESHES, layouts, model_shards, shape_for
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from mindseed.parallel import Layout
from mindseed.parallel._layout import DeviceMesh, TensorLayout, assemble, shard_array


@st.composite
def cases(draw, allow_partial=True):
    n = draw(st.sampled_from(sorted(MESHES)))
    mesh_shape = draw(st.sampled_from(MESHES[n]))
    ndim = draw(st.integers(0, 3))
    dims, partial = draw(layouts(mesh_shape, ndim, allow_partial))
    shape = shape_for(mesh_shape, dims, draw)
    return mesh_shape, dims, partial, shape


@settings(max_examples=150, deadline=None)
@given(cases())
def test_shards_match_the_numpy_model(case):
    mesh_shape, dims, partial, shape = case
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    layout = TensorLayout(DeviceMesh(mesh_shape), shape, dims, partial)
    got = shard_array(x, layout)
    want = model_shards(x, mesh_shape, layout.dims, layout.partial)
    assert len(got) == len(want) == int(np.prod(mesh_shape))
    for g, w in zip(got, want):
        assert g.shape == layout.local_shape
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(assemble(got, layout), x)


@settings(max_examples=60, deadline=None)
@given(cases(), st.randoms(use_true_random=False))
def test_partial_sums_assemble_to_the_global_array(case, rnd):
    mesh_shape, dims, partial, shape = case
    assume(any(mesh_shape[a] > 1 for a in partial))
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    layout = TensorLayout(DeviceMesh(mesh_shape), shape, dims, partial)
    # integer pieces that add up exactly: every rank but the first along the partial axes holds a random part
    mesh = layout.mesh
    first = {}

    def parts(rank, piece):
        key = tuple(c for a, c in enumerate(mesh.coords(rank)) if a not in layout.partial)
        noise = np.array([rnd.randint(-5, 5) for _ in range(piece.size)], dtype=np.float64).reshape(piece.shape)
        if mesh.index_along(rank, layout.partial)[0] == 0:
            first[key] = rank
            return piece
        return noise

    shards = shard_array(x, layout, parts)
    # give the first rank along the partial axes the value minus what the others hold
    for rank in range(mesh.size):
        key = tuple(c for a, c in enumerate(mesh.coords(rank)) if a not in layout.partial)
        if rank != first[key]:
            shards[first[key]] = shards[first[key]] - shards[rank]
    np.testing.assert_array_equal(assemble(shards, layout), x)


def test_mesh_ranks_are_row_major():
    mesh = DeviceMesh((2, 3, 2), ("dp", "mp", "sp"))
    for r in range(12):
        assert mesh.coords(r) == tuple(np.unravel_index(r, (2, 3, 2)))
        assert mesh.rank(mesh.coords(r)) == r
    assert mesh.groups((1,)) == [[0, 2, 4], [1, 3, 5], [6, 8, 10], [7, 9, 11]]
    assert mesh.groups((0, 2)) == [[0, 1, 6, 7], [2, 3, 8, 9], [4, 5, 10, 11]]
    assert mesh.index_along(11, (2, 0)) == (3, 4)


@pytest.mark.parametrize("shape, strategy, n, local, mesh", [
    ((8, 6), (4, 1), 4, (2, 6), (4,)),
    ((8, 6), (2, 3), 12, (4, 2), (2, 3, 2)),
    ((8,), (1,), 2, (8,), (2,)),
    ((8, 6), (1, 1), 1, (8, 6), (1,)),
])
def test_strategy_tuples_compile(shape, strategy, n, local, mesh):
    layout = TensorLayout.from_strategy(shape, strategy, n)
    assert layout.local_shape == local
    assert layout.mesh.shape == mesh
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    # the repeated-calculation axis is the last one: neighbouring ranks hold the same piece
    want = model_shards(x, layout.mesh.shape, layout.dims)
    for g, w in zip(shard_array(x, layout), want):
        np.testing.assert_array_equal(g, w)


def test_layout_compiles_like_mindspore():
    base = Layout((2, 2, 2), ("dp", "sp", "mp"))
    info = base("dp", "mp").to_dict()
    assert info["tensor_map"] == (2, 0) and info["device_matrix"] == (2, 2, 2)
    assert info["rank_list"] == list(range(8)) and info["interleaved_parallel"] is False
    assert base(("dp", "mp"), "None").to_dict()["tensor_map"] == ((2, 0), -1)
    layout = TensorLayout.from_layout((4, 6), base(("dp", "mp"), "None"))
    assert layout.dims == ((0, 2), ()) and layout.local_shape == (1, 6)
    x = np.arange(24.0).reshape(4, 6)
    for g, w in zip(shard_array(x, layout), model_shards(x, (2, 2, 2), ((0, 2), ()))):
        np.testing.assert_array_equal(g, w)
    # an interleaved axis splits a dim into copies on one device: it is no device axis
    inter = Layout((2, 2), ("dp", "interleaved_parallel"))(("dp", "interleaved_parallel"), "None")
    assert TensorLayout.from_layout((4, 6), inter).local_shape == (2, 6)


@pytest.mark.parametrize("make, kind, message", [
    (lambda: Layout([2, 2], ("a", "b")), TypeError, "device_matrix must be tuple type"),
    (lambda: Layout((2, 2), ("a",)), ValueError, "device_matrix length should be equal to alias_name length"),
    (lambda: Layout((2, 2), ("a", "None")), ValueError, "can not set 'None'"),
    (lambda: Layout((2, 2), ("a", "a")), ValueError, "should be different"),
    (lambda: Layout((2, 2), ("interleaved_parallel", "a")), ValueError, "at the last dim of alias_name"),
    (lambda: Layout((2, 2), ("a", "b"))("a", "c"), ValueError, "The axis c is not found in ('a', 'b')"),
    (lambda: Layout((2, 2), ("a", "b"))("a", "a"), ValueError, "The axis a has been set more than one"),
    (lambda: Layout((2, 2), ("a", "b"), rank_list=[0, 1]), ValueError, "length of rank_list"),
    (lambda: Layout((2, 2), ("a", "b")).to_dict(), ValueError, "The tensor_map of layout is None"),
])
def test_layout_errors(make, kind, message):
    with pytest.raises(kind, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_uneven_shapes_are_rejected_with_mindsporess_message():
    with pytest.raises(ValueError, match=r"^The strategy is \(\(8, 1\)\), shape 4 can not be divisible by strategy "
                                         r"value 8$"):
        TensorLayout.from_strategy((4, 2), (8, 1), 8)
    with pytest.raises(ValueError, match=r"shape 6 can not be divisible by strategy value 4"):
        TensorLayout.from_layout((6, 2), Layout((4, 2), ("dp", "mp"))("dp", "None"))
    with pytest.raises(ValueError, match="must divide the device number 8"):
        TensorLayout.from_strategy((6, 2), (3, 1), 8)
    with pytest.raises(ValueError, match="its length 1 is not equal to the dimension 2"):
        TensorLayout.from_strategy((6, 2), (2,), 2)
    with pytest.raises(ValueError, match="more than once"):
        TensorLayout(DeviceMesh((2, 2)), (4, 4), ((0,), (0,)))


@pytest.mark.parametrize("shape, strategy", [((5, 3), (2, 1)), ((7,), (4,)), ((3, 10), (2, 4))])
def test_padded_layouts_round_trip_uneven_shapes(shape, strategy):
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) + 1
    layout = TensorLayout.from_strategy(shape, strategy, int(np.prod(strategy)), pad=True)
    shards = shard_array(x, layout)
    assert all(s.shape == layout.local_shape for s in shards)
    # the ranks past the end hold zeros in the padding
    total = sum(float(s.sum()) for s in shards)
    assert total == float(x.sum())
    np.testing.assert_array_equal(assemble(shards, layout), x)


def test_assemble_checks_its_shards():
    layout = TensorLayout.from_strategy((4, 2), (2, 1), 2)
    with pytest.raises(ValueError, match="1 shards were given for the 2 ranks"):
        assemble([np.zeros((2, 2))], layout)
    with pytest.raises(ValueError, match=r"rank 1's shard has shape \(3, 2\)"):
        assemble([np.zeros((2, 2)), np.zeros((3, 2))], layout)
