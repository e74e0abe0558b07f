"""Sharding rules of the convolutions, pooling and BatchNorm: a LeNet / ResNet-style network (`_conv_model`) runs no
call on whole tensors on meshes (2), (4) (data parallel), (2) (model parallel) and (2, 2) (data x model) with the
single-process loss and gradients (float64, 1e-12), and trains three steps data x model parallel with the single
process's losses and parameters (the BatchNorm moving statistics included); the batch statistics of BatchNorm are
all-reduced (MindSpore's SyncBatchNorm); an input-channel cut leaves partial sums with the bias added once (Dense's
bias too); MindSpore's refusals of kernel, group and spatial cuts."""
import math

import numpy as np
import pytest

import mindseed as ms
from _conv_model import ConvNet, batches
from mindseed import Parameter, Tensor, nn, ops
from mindseed.ops._prims import conv as C
from mindseed.parallel._layout import assemble
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._train import simulate
from mindseed.parallel._world import ShapeWorld, SimulatedWorld

# name: (devices, dp, mp)
MESHES = {"2": (2, 2, 1), "4": (4, 4, 1), "mp2": (2, 1, 2), "2x2": (4, 2, 2)}
RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def _context():
    yield
    ms.reset_auto_parallel_context()


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-12)


def _whole(ex, t, layout=None):
    v = ex.value(t, layout)
    return assemble(v.shards, v.layout)


def _check(net, ref, args, world, layouts):
    program = record(ms.value_and_grad(net, None, net.trainable_params()), *args)
    ex = execute(program, world, layouts)
    loss, grads = program.result
    want_loss, want_grads = ms.value_and_grad(ref, None, ref.trainable_params())(*args)
    _close(_whole(ex, loss), want_loss.asnumpy())
    for p, g, w in zip(net.trainable_params(), grads, want_grads):
        _close(_whole(ex, g, ex.layout_of(p)), w.asnumpy())
    assert ex.whole_calls == []
    return ex


@pytest.mark.parametrize("mesh", sorted(MESHES))
def test_conv_net_runs_on_shards_with_the_single_process_loss_and_gradients(mesh):
    n, dp, mp = MESHES[mesh]
    x, labels = batches(1)[0]
    net, ref = ConvNet(dp, mp), ConvNet()
    net.set_train()
    ref.set_train()
    world = SimulatedWorld(n)
    ex = _check(net, ref, (x, labels), world, [(x, (dp, 1, 1, 1)), (labels, (dp,))])
    plans = {}
    for p in ex.plans:
        plans.setdefault(p.call.prim.name, []).append(p)
    assert {"Convolution", "ConvBackpropInput", "ConvBackpropFilter", "BatchNorm", "BatchNormGrad", "MaxPool2x2",
            "MaxPool2x2Grad", "AvgPool3D", "AvgPoolGrad"} <= set(plans)
    conv1, conv2 = plans["Convolution"][:2]
    assert conv1.cuts == ({"n": (0,), "o": (1,)} if dp > 1 and mp > 1 else
                          {"n": (0,)} if dp > 1 else {"o": (0,)})
    if mp > 1:   # conv2 cuts its input channels: its output is a partial sum over mp
        assert conv2.out_layouts[0].partial == ((1,) if dp > 1 else (0,))
    bn = plans["BatchNorm"][0]
    kinds = [s.kind for m in bn.moves for s in m.steps if s.kind not in ("Slice", "Zero")]
    if dp > 1:
        # the batch statistics (per-channel sums) all-reduced over the batch cut, once forward and once backward
        assert kinds == ["AllReduce"]
        grad_moves = plans["BatchNormGrad"][0].moves
        assert [s.kind for m in grad_moves for s in m.steps if s.kind not in ("Slice", "Zero")] == ["AllReduce"]
        assert bn.out_layouts[1].is_replicated() or not bn.out_layouts[1].partial
    if mp == 1:
        # data parallel: nothing is gathered, only sums are reduced
        assert {r.kind for r in world.log} == {"AllReduce"}


@pytest.mark.parametrize("mesh", ["2", "2x2"])
def test_conv_net_trains_data_x_model_parallel_with_the_single_process_losses(mesh):
    n, dp, mp = MESHES[mesh]
    data = batches(3)

    def train(parallel):
        if parallel:
            ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel",
                                         dataset_strategy=((dp, 1, 1, 1), (dp,)))
        net = ConvNet(dp, mp) if parallel else ConvNet()
        net.set_train()
        step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        if not parallel:
            return net, [float(step(x, y).asnumpy()) for x, y in data]
        with simulate(n) as run:
            losses = [float(step(x, y).asnumpy()) for x, y in data]
        assert all(ex.whole_calls == [] for ex in run.executions)
        return net, losses

    ref, ref_losses = train(False)
    net, losses = train(True)
    _close(losses, ref_losses)
    assert ref_losses[0] > ref_losses[-1]
    for p, q in zip(net.get_parameters(), ref.get_parameters()):   # the moving mean and variance too
        assert p.name == q.name
        _close(p.asnumpy(), q.asnumpy())


class _Channels(nn.Cell):
    """nn layers on an input cut along its channels: a biased convolution (partial sums + the bias once), max and
    average pooling with 3x3 windows (MaxPoolWithArgmaxV2 and its scatter gradient, AvgPool3D), BatchNorm2d."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3, pad_mode="pad", padding=1, has_bias=True, dtype=ms.float64,
                              weight_init=Tensor(np.random.default_rng(1).standard_normal((6, 4, 3, 3)) * 0.3),
                              bias_init=Tensor(np.random.default_rng(2).standard_normal(6)))
        self.max_pool = nn.MaxPool2d(3, 1, pad_mode="same")
        self.avg_pool = nn.AvgPool2d(3, 1, pad_mode="same")
        self.bn = nn.BatchNorm2d(6, dtype=ms.float64)

    def construct(self, x):
        h = self.conv(x)
        h = self.bn(self.max_pool(h) + self.avg_pool(h) * h)
        return ops.reduce_mean(h * h * ops.tanh(h))


@pytest.mark.parametrize("cuts", [(1, 2), (2, 2), (1, 4)])
def test_channel_cut_input_gives_partial_sums_with_the_bias_added_once(cuts):
    x = Tensor(RNG.standard_normal((4, 4, 6, 6)))
    net, ref = _Channels(), _Channels()
    net.set_train()
    ref.set_train()
    dp, cp = cuts
    ex = _check(net, ref, (x,), SimulatedWorld(dp * cp), [(x, (dp, cp, 1, 1))])
    names = [p.call.prim.name for p in ex.plans]
    assert {"MaxPoolWithArgmaxV2", "IndexScatterPlane", "AvgPool3D", "AvgPoolGrad", "BatchNorm"} <= set(names)
    conv = ex.plans[names.index("Convolution")]
    assert conv.cuts.get("i") and conv.out_layouts[0].partial   # the input channels cut: partial sums
    assert conv.in_layouts[2].partial == conv.out_layouts[0].partial   # the bias on the sum's first rank only


def test_dense_bias_is_added_once_to_partial_sums():
    x, w, b = (Tensor(RNG.standard_normal(s)) for s in ((4, 6), (3, 6), (3,)))
    dense = ops.Dense().shard(((1, 2), (1, 2), (1,)))
    program = record(lambda x, w, b: dense(x, w, b), x, w, b)
    ex = execute(program, SimulatedWorld(2))
    _close(_whole(ex, program.outputs[0]), x.asnumpy() @ w.asnumpy().T + b.asnumpy())


@pytest.mark.parametrize("mesh", [(2, 1), (1, 2), (2, 2)])
def test_conv2d_transpose_and_conv3d_cut_batch_and_channels(mesh):
    dp, mp = mesh
    x = Tensor(RNG.standard_normal((4, 4, 5, 5)))
    w = Parameter(Tensor(RNG.standard_normal((4, 2, 3, 3)) * 0.3), name="wt")
    x3 = Tensor(RNG.standard_normal((4, 2, 3, 4, 4)))
    w3 = Parameter(Tensor(RNG.standard_normal((4, 2, 2, 2, 2)) * 0.3), name="w3")

    class Net(nn.Cell):
        def __init__(self, shard):
            super().__init__()
            self.w, self.w3 = w, w3
            self.up = ops.Conv2DTranspose(2, 3, pad_mode="same", stride=2)
            self.conv3 = ops.Conv3D(4, 2)
            if shard:   # the transposed convolution cuts its o (contracted: partial sums), Conv3D its outputs
                self.up.shard(((dp, mp, 1, 1), (mp, 1, 1, 1)))
                self.conv3.shard(((dp, 1, 1, 1, 1), (mp, 1, 1, 1, 1)))

        def construct(self, x, x3):
            y = self.up(x, self.w, (4, 2, 10, 10))
            z = self.conv3(x3, self.w3)
            return ops.reduce_sum(ops.sin(y)) + ops.reduce_sum(z * z)

    ex = _check(Net(True), Net(False), (x, x3), SimulatedWorld(dp * mp), [])
    up = next(p for p in ex.plans if p.call.prim.name == "ConvBackpropInput")
    assert bool(up.out_layouts[0].partial) == (mp > 1)


def test_the_rules_factors():
    x, w = Tensor(np.zeros((2, 4, 5, 5))), Tensor(np.zeros((6, 4, 3, 3)))
    rule = C.conv_p.sharding(x, w, Tensor(np.zeros(6)), stride=(1, 1), pads=(0,) * 4, dilation=(1, 1), groups=1)
    assert rule.ins[:2] == (("n", "i", "s0", "s1"), ("o", "i", "k0", "k1"))
    assert rule.outs == (("n", "o", "s0", "s1"),) and rule.sums == {"i"} and rule.addends == (2,)
    assert {"s0", "s1", "k0", "k1"} <= rule.whole   # 'valid' with a 3x3 kernel at stride 1: no spatial cut
    grouped = C.conv_p.sharding(x, Tensor(np.zeros((4, 2, 3, 3))), None, stride=(1, 1), pads=(0,) * 4,
                                dilation=(1, 1), groups=2)
    assert {"gi", "go"} <= grouped.whole and not grouped.sums
    dw = C.conv_backprop_filter_p.sharding(x, Tensor(np.zeros((2, 6, 3, 3))), weight_shape=(6, 4, 3, 3),
                                           stride=(1, 1), pads=(0,) * 4, dilation=(1, 1), groups=1)
    assert dw.outs == (("o", "i", None, None),) and dw.sums == {"n"}
    assert dw.localize({"weight_shape": (6, 4, 3, 3)}, [(3, 4, 3, 3)])["weight_shape"] == (3, 4, 3, 3)
    pool = C.max_pool_p.sharding(x, kernel=(3, 3), stride=(1, 1), pads=(1,) * 4, dilation=(1, 1), ceil_mode=False)
    assert pool.outs == (("p0", "p1", "q0", "q1"),) * 2 and {"q0", "q1"} <= pool.whole


@pytest.mark.parametrize("strategy, message", [
    (((1, 1, 1, 1), (1, 1, 2, 1)), "the kernel size can not be split"),
    (((1, 1, 2, 1), (1, 1, 1, 1)), "The 'valid' mode do not support to split H or W when "
                                   "kernel_size_use_dilation_ > stride"),
])
def test_a_strategy_cutting_what_a_convolution_needs_whole_is_refused(strategy, message):
    x, w = Tensor(RNG.standard_normal((2, 2, 4, 4))), Tensor(RNG.standard_normal((2, 2, 2, 2)))
    conv = ops.Conv2D(2, 2).shard(strategy)
    program = record(lambda x, w: conv(x, w), x, w)
    with pytest.raises(RuntimeError, match=f"For 'Convolution', the in_strategy .* which the operator needs whole: "
                                         f"{message}"):
        execute(program, SimulatedWorld(2))


def test_a_grouped_convolution_refuses_channel_cuts_and_cuts_its_batch():
    x, w = Tensor(RNG.standard_normal((4, 4, 4, 4))), Tensor(RNG.standard_normal((4, 2, 2, 2)))
    conv = ops.Conv2D(4, 2, group=2).shard(((1, 1, 1, 1), (2, 1, 1, 1)))
    with pytest.raises(RuntimeError, match="the group is 2, the cout and cin can not be split"):
        execute(record(lambda x, w: conv(x, w), x, w), SimulatedWorld(2))
    batch = ops.Conv2D(4, 2, group=2).shard(((2, 1, 1, 1), (1, 1, 1, 1)))
    program = record(lambda x, w: batch(x, w), x, w)
    ex = execute(program, SimulatedWorld(2))
    assert ex.whole_calls == [] and ex.plans[0].cuts == {"n": (0,)}
    _close(_whole(ex, program.outputs[0]), ops.Conv2D(4, 2, group=2)(x, w).asnumpy())


@pytest.mark.parametrize("mesh", ["4", "2x2"])
def test_a_shapes_only_run_logs_the_collectives_of_the_simulated_ranks(mesh):
    # the statistics of BatchNorm (3 rows of per-channel sums) included: the planner's figures are the world's
    n, dp, mp = MESHES[mesh]
    x, labels = batches(1)[0]
    net = ConvNet(dp, mp)
    net.set_train()
    program = record(ms.value_and_grad(net, None, net.trainable_params()), x, labels)
    layouts = [(x, (dp, 1, 1, 1)), (labels, (dp,))]
    logs = []
    for world in (SimulatedWorld(n), ShapeWorld(n)):
        ex = execute(program, world, layouts)
        logs.append([(r.kind, r.group_size, r.input_bytes, r.sent_bytes) for r in world.log])
        bn = next(p for p in ex.plans if p.call.prim.name == "BatchNorm")
        assert [(s.kind, s.input_bytes) for m in bn.moves for s in m.steps] == [("AllReduce", 3 * 4 * 8 // mp)]
    assert logs[0] == logs[1]


def test_the_search_costs_the_statistics_allreduce_and_its_plan_runs_the_conv_net():
    from mindseed.parallel._layout import DeviceMesh   # noqa: PLC0415
    from mindseed.parallel._search import _sync_allreduce, search   # noqa: PLC0415
    x, labels = batches(1)[0]
    net, ref = ConvNet(), ConvNet()
    net.set_train()
    ref.set_train()
    program = record(ms.value_and_grad(net, None, net.trainable_params()), x, labels)
    bn = next(c for c in program.calls if c.prim.name == "BatchNorm")
    rule = bn.prim.sharding(*bn.args, **bn.attrs)
    mesh = DeviceMesh((2, 2), ("x", "y"))
    assert _sync_allreduce(bn, rule, mesh, {"n": (0,)}) == (2, 3 * 4 * 8)        # (sums, squares, counts) x C
    assert _sync_allreduce(bn, rule, mesh, {"n": (0,), "c": (1,)}) == (2, 3 * 2 * 8)
    assert _sync_allreduce(bn, rule, mesh, {"c": (0, 1)}) is None                 # channels only: nothing shared
    layouts = [(x, (2, 1, 1, 1)), (labels, (2,))]
    found = search(program, mesh, layouts, mode="dynamic_programming")
    ex = execute(found.program, SimulatedWorld(4), layouts, search=False)
    assert ex.whole_calls == []
    loss, grads = program.result
    want_loss, want_grads = ms.value_and_grad(ref, None, ref.trainable_params())(x, labels)
    _close(_whole(ex, loss), want_loss.asnumpy())
    for p, g, w in zip(net.trainable_params(), grads, want_grads):
        _close(_whole(ex, g, ex.layout_of(p)), w.asnumpy())


@pytest.mark.parametrize("devices", [2, 4])
def test_group_norm_runs_on_the_batch_cut(devices):
    x = Tensor(RNG.standard_normal((8, 4, 3, 3)))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.norm = nn.GroupNorm(2, 4, dtype=ms.float64)

        def construct(self, x):
            y = self.norm(x)
            return ops.reduce_mean(y * ops.sin(y))

    net, ref = Net(), Net()
    ref.norm.gamma.set_data(net.norm.gamma)
    world = SimulatedWorld(devices)
    ex = _check(net, ref, (x,), world, [(x, (devices, 1, 1, 1))])
    assert {r.kind for r in world.log} == {"AllReduce"}   # the loss, dgamma and dbeta: partial sums over the batch
    norm = next(p for p in ex.plans if p.call.prim.name == "GroupNorm")
    assert norm.cuts == {"n": (0,)}


@pytest.mark.parametrize("cuts", [(2, 1, 1, 1), (1, 2, 1, 1), (1, 1, 1, 2), (2, 2, 1, 1)])
def test_adaptive_average_pooling_cuts_its_planes_and_the_dims_it_keeps(cuts):
    # global average pooling (ResNet's head) and a pooling that keeps the last dim's length: that dim cuts freely
    x = Tensor(RNG.standard_normal((4, 4, 6, 6)))
    w = Parameter(Tensor(RNG.standard_normal((4, 4, 1, 1)) * 0.5), name="w")
    v = Parameter(Tensor(RNG.standard_normal(6)), name="v")

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w, self.v = w, v
            self.conv = ops.Conv2D(4, 1)
            self.gap, self.rows = nn.AdaptiveAvgPool2d((1, 1)), nn.AdaptiveAvgPool2d((3, None))

        def construct(self, x):
            h = ops.tanh(self.conv(x, self.w))     # a 1x1 convolution has no overlap: a cut W stays cut
            return ops.reduce_sum(self.gap(h) ** 2) + ops.reduce_mean(ops.sin(self.rows(ops.tanh(x) * self.v)))

    world = SimulatedWorld(math.prod(cuts))
    ex = _check(Net(), Net(), (x,), world, [(x, cuts)])
    pools = [p for p in ex.plans if p.call.prim.name in ("AdaptiveAvgPool", "AdaptiveAvgPoolGrad")]
    assert len(pools) == 4
    rows = next(p for p in pools if p.call.prim.name == "AdaptiveAvgPool" and p.call.attrs["output_size"] == (3, 6))
    assert bool(rows.in_layouts[0].dims[3]) == (cuts[3] > 1)   # the kept last dim stays cut
    assert all(not p.in_layouts[0].dims[2] for p in pools)      # the pooled rows never are
