"""A convolution's H and W cut (MindSpore's Conv2DInfo in 'same' and 'valid' modes): each piece reads the
overlapping rows and columns of its neighbours (a NeighborExchange of closed-form size), runs unpadded along the cut
dims, the input gradient's overlaps are added back into the neighbours and the filter's gradient sums over the
pieces; loss and gradients equal one process (float64, 1e-12) on meshes (2), (4) and (2, 2); pooling behind it keeps
the cuts (kernel no larger than the stride: no exchange); MindSpore's refusals."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn, ops
from mindseed.ops._prims import conv as C
from mindseed.parallel._layout import assemble
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import ShapeWorld, SimulatedWorld, halo_sent_bytes
from _spatial_net import Net, X

def _run(n, strategy, world=None, pool=None, **conv):
    net, ref = Net(strategy, pool=pool and pool(), **conv), Net(pool=pool and pool(), **conv)
    program = record(ms.value_and_grad(net, None, net.trainable_params()), X)
    world = world or SimulatedWorld(n)
    ex = execute(program, world)
    if world.abstract:
        return ex, world
    loss, grads = program.result
    want_loss, want_grads = ms.value_and_grad(ref, None, ref.trainable_params())(X)
    v = ex.value(loss)
    np.testing.assert_allclose(assemble(v.shards, v.layout), want_loss.asnumpy(), rtol=0, atol=1e-12)
    for p, g, w in zip(net.trainable_params(), grads, want_grads):
        v = ex.value(g, ex.layout_of(p))
        np.testing.assert_allclose(assemble(v.shards, v.layout), w.asnumpy(), rtol=0, atol=1e-12)
    assert ex.whole_calls == []
    return ex, world


def _halos(world):
    return [(r.group_size, r.groups, r.input_bytes, r.sent_bytes) for r in world.log if r.kind == "NeighborExchange"]


def _halo(n, groups, before, after, row):
    return (n, groups, (before + after) * row, halo_sent_bytes(n, before, after, row))


@pytest.mark.parametrize("n", [2, 4])
def test_rows_cut_exchange_one_row_each_way_and_match_one_process(n):
    ex, world = _run(n, ((1, 1, n, 1), (1, 1, 1, 1)))
    convs = [p for p in ex.plans if "Conv" in p.call.prim.name]
    # conv1, conv2 (propagated), conv2's input and filter gradients, conv1's filter gradient: all with the rows cut
    assert [p.call.prim.name for p in convs] == ["Convolution", "Convolution", "ConvBackpropInput",
                                                 "ConvBackpropFilter", "ConvBackpropFilter"]
    assert all(p.cuts == {"s0": (0,)} for p in convs)
    # a 'same' 3x3 at stride 1: one row before and one after; a row of x's piece is 2 x 3 x 8 float64 (384 B), of
    # the hidden activation's 2 x 4 x 8 (512 B)
    x_row, h_row = 2 * 3 * 8 * 8, 2 * 4 * 8 * 8
    assert _halos(world) == [_halo(n, 1, 1, 1, x_row), _halo(n, 1, 1, 1, h_row), _halo(n, 1, 1, 1, h_row),
                             _halo(n, 1, 1, 1, h_row), _halo(n, 1, 1, 1, x_row)]
    # the pieces' filter gradients are partial sums: one AllReduce per weight, nothing else
    assert sorted({r.kind for r in world.log}) == ["AllReduce", "NeighborExchange"]


def test_rows_and_columns_cut_on_2x2_exchange_rows_then_columns():
    ex, world = _run(4, ((1, 1, 2, 2), (1, 1, 1, 1)))
    assert all(p.cuts == {"s0": (0,), "s1": (1,)} for p in ex.plans if "Conv" in p.call.prim.name)
    # x's piece (2, 3, 4, 4): its rows (2 x 3 x 4 float64) exchanged first, then the columns of the piece extended
    # by them (2 x 3 x 6); the gradient's overlaps likewise, rows then columns, in groups of 2 (2 groups each)
    x_rows, x_cols = _halo(2, 2, 1, 1, 2 * 3 * 4 * 8), _halo(2, 2, 1, 1, 2 * 3 * 6 * 8)
    h_rows, h_cols = _halo(2, 2, 1, 1, 2 * 4 * 4 * 8), _halo(2, 2, 1, 1, 2 * 4 * 6 * 8)
    dh_rows, dh_cols = _halo(2, 2, 1, 1, 2 * 4 * 6 * 8), _halo(2, 2, 1, 1, 2 * 4 * 4 * 8)
    assert _halos(world) == [x_rows, x_cols, h_rows, h_cols, dh_rows, dh_cols, h_rows, h_cols, x_rows, x_cols]


def test_a_strided_5x5_exchanges_one_row_before_and_two_after():
    _, world = _run(4, ((1, 1, 2, 2), (1, 1, 1, 1)), kernel=5, stride=2)
    # 'same' 5x5 at stride 2 on 8 rows: pads (1, 2), so each piece reads 1 row of the previous and 2 of the next
    first = _halos(world)[:2]
    assert first == [_halo(2, 2, 1, 2, 2 * 3 * 4 * 8), _halo(2, 2, 1, 2, 2 * 3 * 7 * 8)]


def test_valid_kernel_no_larger_than_stride_exchanges_nothing_for_its_own_cut():
    ex, world = _run(2, ((1, 1, 2, 1), (1, 1, 1, 1)), kernel=2, stride=2, mode="valid")
    conv1 = ex.plans[0]
    assert conv1.call.prim.name == "Convolution" and conv1.cuts == {"s0": (0,)}
    # conv1 and its filter gradient read only their own rows; conv2 (a 'same' 3x3 on the 4 x 4 output cut in 2),
    # its input and its filter gradients exchange rows of 2 x 4 x 4 float64
    assert _halos(world) == [_halo(2, 1, 1, 1, 2 * 4 * 4 * 8)] * 3


def test_a_shapes_only_run_logs_the_same_exchanges():
    _, simulated = _run(4, ((1, 1, 2, 2), (1, 1, 1, 1)))
    _, shapes = _run(4, ((1, 1, 2, 2), (1, 1, 1, 1)), world=ShapeWorld(4))
    assert _halos(shapes) == _halos(simulated)


@pytest.mark.parametrize("conv, strategy, message", [
    (dict(mode="pad"), ((1, 1, 2, 1), (1, 1, 1, 1)), "The 'pad' mode do not support to split H or W"),
    (dict(mode="valid"), ((1, 1, 1, 2), (1, 1, 1, 1)),
     "The 'valid' mode do not support to split H or W when kernel_size_use_dilation_ > stride"),
    (dict(kernel=3, stride=3), ((1, 1, 2, 1), (1, 1, 1, 1)),
     "The 'same' mode do not support to split H when kernel_size_use_dilation_ <= stride but slice shape is not "
     "divisible by stride"),
])
def test_mindspores_refusals_of_spatial_cuts(conv, strategy, message):
    net = Net(strategy, **conv)
    if conv.get("mode") == "pad":
        net.conv1 = ops.Conv2D(4, 3, pad_mode="pad", pad=2).shard(strategy)   # not the 'same' padding
    program = record(ms.value_and_grad(net, None, net.trainable_params()), X)
    with pytest.raises(ValueError, match="For 'Convolution', the in_strategy .* which the operator needs whole: "
                                         + message.replace("(", r"\(").replace(")", r"\)")):
        execute(program, SimulatedWorld(2))


def test_same_mode_refuses_input_not_divisible_by_stride_and_pieces_shorter_than_the_overlap():
    x = Tensor(np.zeros((1, 1, 6, 6)))
    rule = C.conv_p.sharding(x, Tensor(np.zeros((1, 1, 5, 5))), None, stride=(4, 1), pads=(1, 2, 2, 2),
                             dilation=(1, 1), groups=1)
    assert rule.reasons["s0"] == ("The 'same' mode do not support to split H when kernel_size_use_dilation_ > stride "
                                  "but input shape is not divisible by stride")
    # 'same' 5x5 at stride 1 on 4 rows cut in 4: pieces of 1 row, overlaps of 2
    small = Tensor(np.random.default_rng(2).standard_normal((1, 1, 4, 4)))
    conv = ops.Conv2D(1, 5, pad_mode="same").shard(((1, 1, 4, 1), (1, 1, 1, 1)))
    program = record(lambda x, w: conv(x, w), small, Tensor(np.ones((1, 1, 5, 5))))
    with pytest.raises(ValueError, match=r"kernel_size_use_dilation_ > stride but slice shape <= \(k - s \+ 1\) / 2"):
        execute(program, SimulatedWorld(4))


def test_a_3d_convolution_keeps_its_spatial_dims_whole():
    rule = C.conv_p.sharding(Tensor(np.zeros((1, 2, 4, 4, 4))), Tensor(np.zeros((2, 2, 3, 3, 3))), None,
                             stride=(1, 1, 1), pads=(1,) * 6, dilation=(1, 1, 1), groups=1)
    assert {"s0", "s1", "s2"} <= rule.whole
    assert rule.reasons["s0"] == "only the H and W of a 2-d convolution can be split (with exchanges of the " \
                                 "overlapping rows)"


POOLS = {"max 2x2": lambda: nn.MaxPool2d(2, 2), "avg 2x2": lambda: nn.AvgPool2d(2, 2),
         "avg 2 stride 4": lambda: nn.AvgPool2d(2, 4)}


@pytest.mark.parametrize("pool", sorted(POOLS))
@pytest.mark.parametrize("n, strategy", [(2, ((1, 1, 2, 1), (1, 1, 1, 1))), (4, ((1, 1, 2, 2), (1, 1, 1, 1)))])
def test_pooling_keeps_the_spatial_cuts_without_exchanging(pool, n, strategy):
    ex, world = _run(n, strategy, pool=POOLS[pool])
    pools = [p for p in ex.plans if "Pool" in p.call.prim.name]
    assert [p.call.prim.name for p in pools] == (["MaxPool2x2", "MaxPool2x2Grad"] if "max" in pool else
                                                 ["AvgPool3D", "AvgPoolGrad"])
    cut = {"q0": (0,)} if n == 2 else {"q0": (0,), "q1": (1,)}
    assert all(p.cuts == cut for p in pools)
    # the pooling's windows lie in the pieces: the only exchanges are the convolutions' (5 on (2): conv1 and conv2
    # forward, conv2's input gradient, the two filter gradients; twice that on (2, 2)), and nothing is gathered;
    # behind the stride-4 pooling (2 x 2 left) conv2's pieces of one row would be no longer than its overlap: it
    # drops the cut (its input gathered) and only conv1 and its filter gradient exchange
    short = "stride 4" in pool
    assert len(_halos(world)) == (2 if short else 5) * (n // 2)
    assert sorted({r.kind for r in world.log}) == (["AllGather", "AllReduce", "NeighborExchange"] if short else
                                                   ["AllReduce", "NeighborExchange"])


@pytest.mark.parametrize("op, message", [
    (lambda: ops.AvgPool(3, 1, "same"), "It does not support to split H dimension when kernel_size > stride"),
    (lambda: ops.MaxPool(3, 1, "same"), "It does not support to split H dimension when kernel_size > stride"),
    (lambda: ops.AvgPool(3, 3), "It does not support to split H dimension when kernel_size <= stride but slice "
                                "shape is not divisible by stride"),
    (lambda: ops.MaxPool(2, 4), "the argmax indices of a piece would index its own rows"),
])
def test_pooling_refuses_what_mindspore_refuses(op, message):
    pool = op().shard(((1, 1, 2, 1),))
    program = record(lambda x: pool(x), Tensor(np.zeros((2, 2, 8, 8))))
    with pytest.raises(ValueError, match="which the operator needs whole: " + message):
        execute(program, SimulatedWorld(2))
