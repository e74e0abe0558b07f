"""Sharded functions and cells inside compiled graphs that do not hold them, on a simulated world
(`_train.simulate`) under SEMI_AUTO_PARALLEL: an `ms.jit` function calling a `Cell.shard` cell, and a GRAPH_MODE cell
(no `Cell.shard` in its tree) whose construct calls an `ms.shard` function, run partitioned as their PyNative
recordings (the same calls, layouts and collectives) on meshes (2), (4), (2, 2), (2, 4) and (8), and give the
single-process values, losses and gradients (float64, 1e-12); a jitted helper inside a recorded step is recorded."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops
from mindseed.common._parallel import PARAMETER_PLANS
from mindseed.parallel import Layout
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._train import dataset_layouts, simulate
from mindseed.parallel._world import SimulatedWorld

RNG = np.random.default_rng(11)
X = Tensor(RNG.standard_normal((16, 4)))
Y = Tensor(RNG.standard_normal((16, 2)))
L22, L24 = Layout((2, 2), ("dp", "mp")), Layout((2, 4), ("dp", "mp"))
# mesh: (devices, shard arguments, AllReduces of the step: a parameter plan cutting w's columns leaves the second
# product a partial sum over mp, reduced before the sigmoid)
MESHES = {
    "2": (2, dict(in_strategy=((2, 1),)), 0),
    "4": (4, dict(in_strategy=((4, 1),)), 0),
    "8": (8, dict(in_strategy=((8, 1),)), 0),
    "2x2": (4, dict(in_strategy=(L22("dp", "None"),), parameter_plan={"w": L22("None", "mp")}), 1),
    "2x4": (8, dict(in_strategy=(L24("dp", "None"),), parameter_plan={"w": L24("None", "mp")}), 1),
}


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(12)
        self.w = Parameter(Tensor(rng.standard_normal((4, 8))), name="w")
        self.v = Parameter(Tensor(rng.standard_normal((8, 2))), name="v")

    def construct(self, x):
        return ops.matmul(ops.tanh(ops.matmul(x, self.w)), self.v)


class Outer(nn.Cell):
    """A cell without Cell.shard in its tree whose construct calls an `ms.shard` function (of its block)."""

    def __init__(self, **shard):
        super().__init__()
        self.block = Block()
        plan = {"block." + k: v for k, v in shard.pop("parameter_plan", {}).items()} or None
        self.sharded = ms.shard(self.block, parameter_plan=plan, **shard)

    def construct(self, x):
        return ops.sigmoid(self.sharded(x)) * 2.0


@pytest.fixture(autouse=True)
def _context():
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy="full_batch")
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    PARAMETER_PLANS.clear()
    ms.reset_auto_parallel_context()


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-12)


def _log(world):
    return [(r.kind, r.group_size, r.groups, r.input_bytes) for r in world.log]


def _check_as_recorded(run, fn, n, all_reduces):
    """The run's one execution equals `fn`'s PyNative recording executed on a fresh world of `n` ranks: the calls,
    their layouts and the step's collectives (`all_reduces` AllReduces, nothing else)."""
    reference = SimulatedWorld(n)
    ref = execute(record(fn, X), reference, dataset_layouts((X,), n))
    (ex,) = run.executions
    assert [p.call.prim.name for p in ex.plans] == [p.call.prim.name for p in ref.plans]
    assert [(p.in_layouts, p.out_layouts) for p in ex.plans] == [(p.in_layouts, p.out_layouts) for p in ref.plans]
    assert _log(run.world)[:len(reference.log)] == _log(reference)    # then the reading of the whole output
    assert [r.kind for r in reference.log] == ["AllReduce"] * all_reduces
    assert ex.whole_calls == [] and "Reshard" in [p.call.prim.name for p in ex.plans]


@pytest.mark.parametrize("mesh", sorted(MESHES))
def test_a_jitted_function_calling_a_sharded_cell_partitions(mesh):
    n, shard, all_reduces = MESHES[mesh]
    block = Block()
    block.shard(**{k: v for k, v in shard.items() if k != "parameter_plan"},
                parameter_plan={"self." + k: v for k, v in shard.get("parameter_plan", {}).items()} or None)

    def plain(x):
        return ops.sigmoid(block(x)) * 2.0

    fn = ms.jit(plain)
    want = plain(X).asnumpy()                 # one device, no world: the function itself
    with simulate(n) as run:
        got = fn(X)
    _close(got.asnumpy(), want)
    _check_as_recorded(run, plain, n, all_reduces)
    with simulate(n) as run:                  # known to shard: partitioned without tracing again
        _close(fn(X).asnumpy(), want)
    assert fn.traces == 1 and len(run.executions) == 1
    _close(fn(X).asnumpy(), want)             # no simulated world: compiled, Reshard absent (one device)
    assert fn.traces == 2 and all("Reshard" not in str(g) for g in fn.graphs())


@pytest.mark.parametrize("mesh", sorted(MESHES))
def test_a_graph_mode_cell_calling_a_sharded_function_partitions(mesh):
    n, shard, all_reduces = MESHES[mesh]
    net = Outer(**dict(shard))
    want = net(X).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    with simulate(n) as run:
        got = net(X)
    _close(got.asnumpy(), want)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    _check_as_recorded(run, net, n, all_reduces)


def test_a_sharded_function_of_tensors_in_a_graph_mode_cell():
    w = Tensor(RNG.standard_normal((4, 4)))
    fn = ms.shard(lambda x: ops.tanh(ops.matmul(x, w)), in_strategy=((4, 1),), out_strategy=((1, 4),))

    class Net(nn.Cell):
        def construct(self, x):
            return fn(x) + 1.0

    ms.set_context(mode=ms.GRAPH_MODE)
    with simulate(4) as run:
        got = Net()(X)
    _close(got.asnumpy(), np.tanh(X.asnumpy() @ w.asnumpy()) + 1.0)
    # the row-cut product is brought to the column cut its out_strategy asks for: one AllToAll, then the reading
    assert [r.kind for r in run.world.log][0] == "AllToAll"
    assert [p.call.prim.name for p in run.executions[0].plans][-1] == "Add"


class _Loss(nn.Cell):
    """A network whose construct calls a jitted function that calls a Cell.shard block."""

    def __init__(self, shard):
        super().__init__()
        self.block = Block()
        self.block.shard(**shard)

        @ms.jit
        def head(x):
            return ops.tanh(self.block(x))
        self.head = head

    def construct(self, x, y):
        d = self.head(x) - y
        return ops.reduce_mean(d * d)


@pytest.mark.parametrize("mesh", sorted(MESHES))
def test_a_training_step_through_a_jitted_helper_gives_the_single_process_numbers(mesh):
    n, shard, _ = MESHES[mesh]
    shard = {k: v for k, v in shard.items() if k != "parameter_plan"}
    reference = _Loss(shard)
    ref_loss, ref_grads = ms.value_and_grad(reference, None, reference.trainable_params())(X, Y)
    net = _Loss(shard)
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), learning_rate=0.0), return_grad=True)
    with simulate(n) as run:
        loss, grads = step(X, Y)
    _close(loss.asnumpy(), ref_loss.asnumpy())
    for p, g in zip(reference.trainable_params(), ref_grads):
        _close(grads[p.name].asnumpy(), g.asnumpy())
    # the helper's calls are in the recorded step (a compiled graph's kernels would be invisible to it)
    names = [p.call.prim.name for p in run.executions[0].plans]
    assert names.count("MatMul") >= 2 and "Tanh" in names and "Reshard" in names
    assert run.executions[0].whole_calls == []


def test_a_recording_sees_the_calls_of_a_jitted_function():
    @ms.jit
    def inner(x):
        return ops.tanh(x) * 2.0

    program = record(lambda x: inner(x) + 1.0, X)
    assert [c.prim.name for c in program.calls] == ["Tanh", "Mul", "Add"]
    assert inner.traces == 0
