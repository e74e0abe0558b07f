"""Cell.shard and ms.shard outside the training runners on a simulated world (`_train.simulate`): under
SEMI_AUTO_PARALLEL a GRAPH_MODE call of a cell holding a sharded cell, and a call of a sharded function, run
partitioned on the ranks as their PyNative recording does (the same calls, layouts and collectives) and return the
single-process values (float64, 1e-12)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops
from mindseed.common._parallel import PARAMETER_PLANS
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._train import dataset_layouts, simulate
from mindseed.parallel._world import SimulatedWorld

RNG = np.random.default_rng(5)
X = Tensor(RNG.standard_normal((8, 4)))


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(6)
        self.w = Parameter(Tensor(rng.standard_normal((4, 6))), name="w")
        self.v = Parameter(Tensor(rng.standard_normal((6, 2))), name="v")

    def construct(self, x):
        return ops.matmul(ops.tanh(ops.matmul(x, self.w)), self.v)


class Net(nn.Cell):
    def __init__(self, **shard):
        super().__init__()
        self.block = Block()
        self.block.shard(**shard)

    def construct(self, x):
        return ops.sigmoid(self.block(x)) * 2.0


SHARDS = {
    "data-4": (4, dict(in_strategy=((4, 1),))),
    "data-2-out-cut": (4, dict(in_strategy=((2, 1),), out_strategy=((2, 2),))),
    "planned-2x2": (4, dict(in_strategy=((2, 1),), parameter_plan={"block.w": (1, 2)})),
}


@pytest.fixture(autouse=True)
def _context():
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy="full_batch")
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    PARAMETER_PLANS.clear()
    ms.reset_auto_parallel_context()


def _log(world):
    return [(r.kind, r.group_size, r.groups, r.input_bytes) for r in world.log]


@pytest.mark.parametrize("case", sorted(SHARDS))
def test_a_graph_mode_call_partitions_as_the_pynative_recording(case):
    n, shard = SHARDS[case]
    net = Net(**shard)
    want = net(X).asnumpy()                              # one device, no world: the cell itself
    reference = SimulatedWorld(n)
    ref = execute(record(net, X), reference, dataset_layouts((X,), n))
    ms.set_context(mode=ms.GRAPH_MODE)
    with simulate(n) as run:
        got = net(X)
    assert len(run.executions) == 1
    ex = run.executions[0]
    np.testing.assert_allclose(got.asnumpy(), want, rtol=0, atol=1e-12)
    assert [p.call.prim.name for p in ex.plans] == [p.call.prim.name for p in ref.plans]
    assert [(p.in_layouts, p.out_layouts) for p in ex.plans] == [(p.in_layouts, p.out_layouts) for p in ref.plans]
    # the reading of the whole output added to the run's log; the step's own collectives are the recording's
    assert _log(run.world)[:len(reference.log)] == _log(reference)
    assert ex.whole_calls == []
    assert "Reshard" in [p.call.prim.name for p in ex.plans]


def test_a_jitted_cell_and_a_jitted_function_calling_it_partition():
    n, shard = SHARDS["data-4"]
    net = Net(**shard)
    want = net(X).asnumpy()
    with simulate(n) as run:
        got = ms.jit(net)(X)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=0, atol=1e-12)
    assert len(run.executions) == 1 and "Reshard" in [p.call.prim.name for p in run.executions[0].plans]
    # a jitted function calling the sharded cell: its trace meets the sharded call, the call runs partitioned
    with simulate(n) as run:
        np.testing.assert_allclose(ms.jit(lambda x: net(x))(X).asnumpy(), want, rtol=0, atol=1e-12)
    assert len(run.executions) == 1 and "Reshard" in [p.call.prim.name for p in run.executions[0].plans]


def test_a_sharded_function_partitions_on_the_simulated_world():
    w = Tensor(RNG.standard_normal((4, 4)))
    fn = ms.shard(lambda x: ops.tanh(ops.matmul(x, w)), in_strategy=((4, 1),), out_strategy=((1, 4),))
    want = np.tanh(X.asnumpy() @ w.asnumpy())
    with simulate(4) as run:
        got = fn(X)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=0, atol=1e-12)
    (ex,) = run.executions
    # the row-cut product is brought to the column cut its out_strategy asks for: one AllToAll
    assert "AllToAll" in [r.kind for r in run.world.log]
    assert ex.plans[-1].out_layouts[0].dims == ((), (0,))


def test_without_a_simulated_world_or_outside_semi_auto_a_graph_call_compiles():
    n, shard = SHARDS["data-4"]
    net = Net(**shard)
    want = net(X).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(X).asnumpy(), want, rtol=0, atol=1e-12)
    ms.set_auto_parallel_context(parallel_mode="data_parallel")
    with simulate(n) as run:
        np.testing.assert_allclose(net(X).asnumpy(), want, rtol=0, atol=1e-12)
    assert run.executions == []
