"""Sharded execution on simulated meshes: forward and backward of small networks give the single-process loss and
gradients (float64, 1e-12) under data, tensor and data x tensor parallel strategies."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops
from mindseed.parallel import Layout
from mindseed.parallel._layout import DeviceMesh, TensorLayout, assemble
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld


class MLP(nn.Cell):
    """x @ w1 + b1 -> relu -> @ w2 -> softmax -> mean squared error; each operator shardable."""

    def __init__(self, mm1=None, add=None, relu=None, mm2=None, mean=None):
        super().__init__()
        rng = np.random.default_rng(1)
        self.w1 = Parameter(Tensor(rng.standard_normal((4, 8))), name="w1")
        self.b1 = Parameter(Tensor(rng.standard_normal((8,))), name="b1")
        self.w2 = Parameter(Tensor(rng.standard_normal((8, 6))), name="w2")
        self.mm1, self.add, self.relu, self.mm2 = ops.MatMul(), ops.Add(), ops.ReLU(), ops.MatMul()
        self.softmax, self.mean = ops.Softmax(), ops.ReduceMean()
        for op, strategy in ((self.mm1, mm1), (self.add, add), (self.relu, relu), (self.mm2, mm2),
                             (self.mean, mean)):
            if strategy is not None:
                op.shard(*strategy)

    def construct(self, x, y):
        h = self.relu(self.add(self.mm1(x, self.w1), self.b1))
        d = self.softmax(self.mm2(h, self.w2)) - y
        return self.mean(d * d)


RNG = np.random.default_rng(0)
X, Y = Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 6)))

# name: (devices, strategies of MLP's operators, dataset strategy of x and y)
CASES = {
    "data-2": (2, dict(mm1=(((2, 1), (1, 1)),)), (2, 1)),
    "data-4": (4, dict(mm1=(((4, 1), (1, 1)),)), (4, 1)),
    "column-row-2": (2, dict(mm1=(((1, 1), (1, 2)),), add=(((1, 2), (2,)),), mm2=(((1, 2), (2, 1)),)), None),
    "column-row-4": (4, dict(mm1=(((1, 1), (1, 4)),), add=(((1, 4), (4,)),), mm2=(((1, 4), (4, 1)),)), None),
    "column-repeated-4": (4, dict(mm1=(((1, 1), (1, 2)),)), None),
    "data-x-tensor-2x2": (4, dict(mm1=(((2, 1), (1, 2)),), add=(((2, 2), (2,)),), mm2=(((2, 2), (2, 1)),)),
                          (2, 1)),
    "row-reduce-scatter-2x2": (4, dict(mm1=(((2, 2), (2, 1)),), mm2=(((2, 1), (1, 2)),)), (2, 1)),
    "mean-cut-2": (2, dict(mm1=(((2, 1), (1, 1)),), mean=(((2, 1),),)), (2, 1)),
}


def _replicated(value):
    return TensorLayout.replicated(value.layout.mesh, value.layout.shape)


def _run(net, n, data_strategy):
    program = record(ms.value_and_grad(net, None, net.trainable_params()), X, Y)
    loss, grads = program.result
    world = SimulatedWorld(n)
    layouts = [(X, data_strategy), (Y, data_strategy)] if data_strategy else None
    ex = execute(program, world, layouts)
    return loss, grads, ex, world


@pytest.mark.parametrize("case", sorted(CASES))
def test_mlp_loss_and_gradients_match_one_process(case):
    n, strategies, data = CASES[case]
    net = MLP(**strategies)
    loss, grads, ex, _ = _run(net, n, data)
    got_loss = ex.value(loss, _replicated(ex.value(loss)))
    for shard in got_loss.shards:  # every rank holds the whole loss
        np.testing.assert_allclose(shard, loss.asnumpy(), rtol=0, atol=1e-12)
    for p, g in zip(net.trainable_params(), grads):
        layout = ex.layout_of(p)
        got = assemble(ex.value(g, layout).shards, layout)
        np.testing.assert_allclose(got, g.asnumpy(), rtol=0, atol=1e-12)
    assert ex.whole_calls == []


def test_data_parallel_all_reduces_each_gradient_once():
    net = MLP(**CASES["data-4"][1])
    _, grads, ex, world = _run(net, 4, (4, 1))
    start = len(world.log)
    for p, g in zip(net.trainable_params(), grads):
        ex.value(g, ex.layout_of(p))
    reduced = world.log[start:]
    assert [r.kind for r in reduced] == ["AllReduce"] * 3
    assert [r.input_bytes for r in reduced] == [4 * 8 * 8, 8 * 8, 8 * 6 * 8]
    # the parameters are whole on every rank
    assert all(ex.layout_of(p).is_replicated() for p in net.trainable_params())


def test_column_parallel_weights_are_cut_and_their_gradients_need_no_communication():
    net = MLP(**CASES["column-row-2"][1])
    _, grads, ex, world = _run(net, 2, None)
    w1, b1, w2 = net.trainable_params()
    assert ex.layout_of(w1).local_shape == (4, 4) and ex.layout_of(b1).local_shape == (4,)
    assert ex.layout_of(w2).local_shape == (4, 6)
    start = len(world.log)
    for p, g in zip(net.trainable_params(), grads):
        ex.value(g, ex.layout_of(p))
    assert world.log[start:] == []
    # the row-parallel matmul's partial sums are all-reduced once before the softmax
    assert [r.kind for r in world.log[:1]] == ["AllReduce"]


def test_out_strategy_reduce_scatters_the_row_parallel_product():
    net = MLP(mm1=(((1, 1), (1, 2)),), mm2=(((1, 2), (2, 1)), ((2, 1),)))
    _, _, ex, _ = _run(net, 2, None)
    mm2 = [p for p in ex.plans if p.call.strategy and p.call.strategy[1]][0]
    assert [s.kind for m in mm2.moves for s in m.collectives()] == ["ReduceScatter"]
    assert mm2.out_layouts[0].local_shape == (4, 6)


def test_layout_strategies_match_tuple_strategies():
    layout = Layout((2, 2), ("dp", "mp"))
    net = MLP(mm1=((layout("dp", "None"), layout("None", "mp")),),
              add=((layout("dp", "mp"), layout("mp")),),
              mm2=((layout("dp", "mp"), layout("mp", "None")),))
    loss, grads, ex, _ = _run(net, 4, (2, 1))
    for p, g in zip(net.trainable_params(), grads):
        layout_p = ex.layout_of(p)
        np.testing.assert_allclose(assemble(ex.value(g, layout_p).shards, layout_p), g.asnumpy(), rtol=0, atol=1e-12)
    assert ex.layout_of(net.w1).mesh == DeviceMesh((2, 2), ("dp", "mp"))


class Block(nn.Cell):
    """Layer norm, a head split by Reshape/Transpose, batched attention scores, softmax, and back."""

    def __init__(self, ln=None, bmm=None, softmax=None):
        super().__init__()
        rng = np.random.default_rng(2)
        self.gamma = Parameter(Tensor(rng.standard_normal((8,))), name="gamma")
        self.beta = Parameter(Tensor(rng.standard_normal((8,))), name="beta")
        self.w = Parameter(Tensor(rng.standard_normal((8, 8))), name="w")
        self.ln = ops.LayerNorm(begin_norm_axis=-1, begin_params_axis=-1)
        self.bmm = ops.BatchMatMul(transpose_b=True)
        self.softmax = ops.Softmax()
        self.mm = ops.MatMul()
        for op, strategy in ((self.ln, ln), (self.bmm, bmm), (self.softmax, softmax)):
            if strategy is not None:
                op.shard(strategy)

    def construct(self, x):
        b, s, _ = x.shape
        h = self.ln(x, self.gamma, self.beta)[0]
        q = ops.transpose(ops.reshape(self.mm(ops.reshape(h, (b * s, 8)), self.w), (b, s, 2, 4)), (0, 2, 1, 3))
        scores = self.softmax(self.bmm(q, q))
        return ops.reduce_sum(scores * scores) + ops.reduce_sum(q)


@pytest.mark.parametrize("n, strategies", [
    (2, dict(ln=((2, 1, 1), (1,), (1,)))),
    (4, dict(ln=((4, 1, 1), (1,), (1,)))),
    (4, dict(ln=((2, 2, 1), (1,), (1,)), bmm=((2, 2, 1, 1), (2, 2, 1, 1)))),
    (4, dict(bmm=((1, 2, 2, 1), (1, 2, 1, 1)), softmax=((1, 2, 2, 1),))),
])
def test_layer_norm_reshape_transpose_batch_matmul_match_one_process(n, strategies):
    net = Block(**strategies)
    x = Tensor(np.random.default_rng(3).standard_normal((4, 4, 8)))
    program = record(ms.value_and_grad(net, None, net.trainable_params()), x)
    loss, grads = program.result
    ex = execute(program, SimulatedWorld(n))
    value = ex.value(loss, _replicated(ex.value(loss)))
    np.testing.assert_allclose(value.shards[-1], loss.asnumpy(), rtol=0, atol=1e-12)
    for p, g in zip(net.trainable_params(), grads):
        layout = ex.layout_of(p)
        np.testing.assert_allclose(assemble(ex.value(g, layout).shards, layout), g.asnumpy(), rtol=0, atol=1e-12)
    # every primitive of the block has a sharding rule
    assert [c.prim.name for c in ex.whole_calls] == []


def test_primitives_without_a_rule_run_on_whole_tensors():
    x = Tensor(np.arange(8.0).reshape(4, 2))
    program = record(lambda t: ops.tril(ops.MatMul().shard(((2, 1), (1, 1)))(t, Tensor(np.eye(2)))), x)
    ex = execute(program, SimulatedWorld(2))
    out = ex.value(program.outputs[0])
    np.testing.assert_array_equal(assemble(out.shards, out.layout), program.outputs[0].asnumpy())
    assert [c.prim.name for c in ex.whole_calls] == ["Tril"]


@pytest.mark.parametrize("strategy, message", [
    ((((2, 1), (2, 1)),), r"must be cut into the same number of pieces, but got 1 and 2"),
    ((((3, 1), (1, 1)),), r"uses 3 devices, which does not divide the device number 4"),
    ((((2, 1),),), r"must have one tuple per input tensor"),
])
def test_bad_strategies_name_the_operator(strategy, message):
    net = MLP(mm1=strategy)
    with pytest.raises(RuntimeError, match=r"For 'MatMul', .*" + message):
        _run(net, 4, None)


def test_cutting_the_softmax_axis_is_rejected():
    x = Tensor(np.ones((4, 4)))
    program = record(lambda t: ops.Softmax().shard(((1, 2),))(t), x)
    with pytest.raises(RuntimeError, match=r"For 'Softmax', the in_strategy \(\(1, 2\)\) cuts dim 1 of input 0"):
        execute(program, SimulatedWorld(2))


def test_uneven_strategy_is_rejected_with_mindspores_message():
    x = Tensor(np.ones((6, 4)))
    program = record(lambda t: ops.ReLU().shard(((4, 1),))(t), x)
    with pytest.raises(ValueError, match=r"shape 6 can not be divisible by strategy value 4"):
        execute(program, SimulatedWorld(4))


@pytest.mark.parametrize("args, kind, message", [
    (([(2, 1)],), TypeError, "in_strategy must be tuple type"),
    (((2, 1),), TypeError, "The element of strategy must be tuple type"),
    ((((2.0, 1),),), TypeError, "the value of strategy must be int type"),
    ((None, ((2, 1),)), ValueError, "need to set in_strategy"),
    ((((2, 1), Layout((2,), ("dp",))("dp")),), TypeError, "consistent type"),
])
def test_primitive_shard_checks_its_strategies(args, kind, message):
    with pytest.raises(kind, match=message):
        ops.MatMul().shard(*args)
    assert ops.MatMul().shard(((2, 1), (1, 2))).in_strategy == ((2, 1), (1, 2))
