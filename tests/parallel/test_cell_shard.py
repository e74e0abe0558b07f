"""Cell.shard: the strategies recorded on the cell place its inputs, outputs and planned parameters for the
partitioner, as mindspore.shard does (one implementation, mindseed.nn._shard). On simulated meshes (2), (4) and
(2, 2) the sharded run gives the single-process loss and gradients (float64, 1e-12); the layouts are those given,
they appear in the strategy file of a simulated TrainOneStepCell run, and AUTO_PARALLEL propagates from them."""
import re

import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops
from mindseed.common._parallel import PARAMETER_PLANS
from mindseed.parallel import Layout
from mindseed.parallel._layout import assemble
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._train import simulate
from mindseed.parallel._world import SimulatedWorld

RNG = np.random.default_rng(21)
X = Tensor(RNG.standard_normal((8, 4)))
Y = Tensor(RNG.standard_normal((8, 2)))
LAYOUT = Layout((2, 2), ("dp", "mp"))
# mesh name: (devices, Cell.shard arguments)
SHARDS = {
    "2": (2, dict(in_strategy=((2, 1),))),
    "4": (4, dict(in_strategy=((4, 1),), out_strategy=((4, 1),), parameter_plan={"block.w": (1, 2)})),
    "2x2": (4, dict(in_strategy=(LAYOUT("dp", "None"),), out_strategy=(LAYOUT("dp", "mp"),),
                    parameter_plan={"self.block.v": LAYOUT("mp", "None")})),
}


class Block(nn.Cell):
    def __init__(self, seed=4):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w = Parameter(Tensor(rng.standard_normal((4, 6))), name="w")
        self.v = Parameter(Tensor(rng.standard_normal((6, 2))), name="v")

    def construct(self, x):
        return ops.matmul(ops.relu(ops.matmul(x, self.w)), self.v)


class Net(nn.Cell):
    def __init__(self, **shard):
        super().__init__()
        self.block = Block()
        if shard:
            self.block.shard(**shard)

    def construct(self, x, y):
        d = ops.tanh(self.block(x)) - y
        return ops.reduce_mean(d * d)


@pytest.fixture(autouse=True)
def _clean():
    yield
    PARAMETER_PLANS.clear()
    ms.reset_auto_parallel_context()


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-12)


def _whole(ex, t, layout=None):
    v = ex.value(t, layout)
    return assemble(v.shards, v.layout)


def _reference():
    net = Net()
    loss, grads = ms.value_and_grad(net, None, net.trainable_params())(X, Y)
    return loss.asnumpy(), [g.asnumpy() for g in grads]


def test_on_one_device_the_cell_computes_as_before():
    net, plain = Net(**SHARDS["4"][1]), Net()
    assert net.block._in_strategy == ((4, 1),) and net.block._out_strategy == ((4, 1),)
    assert plain.block._in_strategy is None and plain.block.shard(((2, 1),)) is None   # MindSpore returns None
    _close(net(X, Y).asnumpy(), Net()(X, Y).asnumpy())


def _run(name, world=None):
    n, shard = SHARDS[name]
    net = Net(**shard)
    program = record(ms.value_and_grad(net, None, net.trainable_params()), X, Y)
    world = world or SimulatedWorld(n)
    return net, program, execute(program, world), world


@pytest.mark.parametrize("name", sorted(SHARDS))
def test_sharded_cell_gives_the_single_process_numbers(name):
    net, program, ex, _ = _run(name)
    loss, grads = program.result
    want_loss, want_grads = _reference()
    _close(_whole(ex, loss), want_loss)
    for p, g, want in zip(net.trainable_params(), grads, want_grads):
        _close(_whole(ex, g, ex.layout_of(p)), want)
    # the cell's input is placed by in_strategy: X cut in pieces along the batch
    reshards = [c for c in program.calls if c.prim.name == "Reshard"]
    assert reshards and reshards[0].args[0] is X
    n = SHARDS[name][0]
    assert ex.layout_of(reshards[0].outs[0]).cuts(0) == n // (2 if name == "2x2" else 1)
    assert ex.layout_of(reshards[0].outs[0]).cuts(1) == 1


def test_out_strategy_and_parameter_plan_give_their_layouts():
    net, program, ex, _ = _run("4")
    assert re.search(r": \[-, \(\w+\)\]\)$", str(ex.layout_of(net.block.w)))     # planned: w's columns in 2
    out = [c for c in program.calls if c.prim.name == "Reshard"][1].outs[0]    # the cell's output, placed
    assert ex.layout_of(out).cuts(0) == 4 and ex.layout_of(out).cuts(1) == 1
    net, program, ex, _ = _run("2x2")
    assert str(ex.layout_of(net.block.v)).endswith("[(mp), -])")                 # a Layout in the plan
    out = [c for c in program.calls if c.prim.name == "Reshard"][1].outs[0]
    assert str(ex.layout_of(out)).endswith("[(dp), (mp)])")


def test_cell_shard_and_mindspore_shard_are_one_implementation():
    _, shard = SHARDS["4"]
    _, cell_program, _, cell_world = _run("4")
    PARAMETER_PLANS.clear()
    net = Net()
    sharded = ms.shard(net.block, **shard)

    def loss_fn(x, y):
        d = ops.tanh(sharded(x)) - y
        return ops.reduce_mean(d * d)

    program = record(ms.value_and_grad(loss_fn, None, net.trainable_params()), X, Y)
    world = SimulatedWorld(4)
    execute(program, world)
    assert [c.prim.name for c in program.calls] == [c.prim.name for c in cell_program.calls]
    assert [repr(r) for r in world.log] == [repr(r) for r in cell_world.log]


def _train(tmp_path, mode, **context):
    n, shard = SHARDS["2x2"]
    path = str(tmp_path / "strategy.json")
    ms.set_auto_parallel_context(parallel_mode=mode, dataset_strategy="full_batch", strategy_ckpt_save_file=path,
                                 **context)
    net = Net(**shard)
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
    with simulate(n) as run:
        losses = [float(step(X, Y).asnumpy()) for _ in range(2)]
    return net, run, losses, path


def _trained_reference():
    net = Net()
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
    return net, [float(step(X, Y).asnumpy()) for _ in range(2)]


@pytest.mark.parametrize("mode, context", [("semi_auto_parallel", {}),
                                           ("auto_parallel", {"search_mode": "sharding_propagation"})])
def test_train_one_step_cell_writes_the_cells_layouts(tmp_path, mode, context):
    net, run, losses, path = _train(tmp_path, mode, **context)
    ref, ref_losses = _trained_reference()
    _close(losses, ref_losses)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        _close(p.asnumpy(), q.asnumpy())
    strategy = ms.build_searched_strategy(path)
    # v as the parameter plan's Layout: the device matrix (2, 2), rows cut by "mp" (counted from the right: 0)
    assert list(strategy["block.v"].dev_matrix[0].dim) == [2, 2]
    assert list(strategy["block.v"].tensor_map[0].dim) == [0, -1]
    ex = run.executions[-1]
    reshards = [p for p in ex.plans if p.call.prim.name == "Reshard"]
    assert [str(p.out_layouts[0]).split(": ")[-1] for p in reshards[:2]] == ["[(dp), -])", "[(dp), (mp)])"]
