"""The partitioner on the compiler's IR (`parallel._ir`): the program of a traced graph (forward and the backward
pass the compiler's autodiff traces into it) runs on simulated meshes (2), (4), (2, 2), (2, 4) with the single-process
loss and gradients (float64, 1e-12) and the collectives of the PyNative recording; control flow unrolls from the
values, a graph's own Assigns are the program's updates; GRAPH_MODE calls, training steps (the W4 GPT's, BatchNorm's,
pipelines') and plans on a simulated world partition their graph; a graph break falls back to the recording."""
import re

import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops
from mindseed.common._parallel import PARAMETER_PLANS
from mindseed.compiler.ir import Graph, Node
from mindseed.ops._prims.core import assign_p, py_call_p
from mindseed.parallel import _demo_gpt as gpt
from mindseed.parallel._ir import graph_program, program_from_graph, unpartitionable
from mindseed.parallel._layout import assemble
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline, staged_program
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._train import dataset_layouts, simulate
from mindseed.parallel._world import SimulatedWorld
from test_shard_graph_mode import Net as ShardedNet, X as SHARD_X
from test_pipeline import CASES as PIPELINE_CASES, X as PIPE_X, Y as PIPE_Y, _pipeline
from test_spmd import MLP, X, Y, Block

# name: (devices, MLP strategies, dataset strategy of x and y)
MLP_CASES = {
    "(2)": (2, dict(mm1=(((2, 1), (1, 1)),)), (2, 1)),
    "(4)": (4, dict(mm1=(((1, 1), (1, 4)),), add=(((1, 4), (4,)),), mm2=(((1, 4), (4, 1)),)), None),
    "(2, 2)": (4, dict(mm1=(((2, 1), (1, 2)),), add=(((2, 2), (2,)),), mm2=(((2, 2), (2, 1)),)), (2, 1)),
    "(2, 4)": (8, dict(mm1=(((2, 1), (1, 4)),), add=(((2, 4), (4,)),), mm2=(((2, 4), (4, 1)),)), (2, 1)),
}
# name: (devices, Block strategies)
BLOCK_CASES = {
    "(2)": (2, dict(ln=((2, 1, 1), (1,), (1,)))),
    "(4)": (4, dict(bmm=((1, 2, 2, 1), (1, 2, 1, 1)), softmax=((1, 2, 2, 1),))),
    "(2, 2)": (4, dict(ln=((2, 2, 1), (1,), (1,)), bmm=((2, 2, 1, 1), (2, 2, 1, 1)))),
    "(2, 4)": (8, dict(ln=((2, 4, 1), (1,), (1,)), bmm=((2, 2, 1, 1), (2, 2, 1, 1)))),
}
BLOCK_X = Tensor(np.random.default_rng(3).standard_normal((4, 4, 8)))


@pytest.fixture(autouse=True)
def _context():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    PARAMETER_PLANS.clear()
    ms.reset_auto_parallel_context()


def _log(world):
    return [(r.kind, r.group_size, r.input_bytes) for r in world.log]


def _both(fn, args, n, data):
    """(IR program, its execution, its collectives), (recording, its execution, its collectives) of fn(*args) on n
    ranks."""
    out = []
    for program in (graph_program(fn, args)[0], record(fn, *args)):
        world = SimulatedWorld(n)
        layouts = [(t, data) for t in args] if data else None
        out.append((program, execute(program, world, layouts), _log(world)))
    return out


def _check_step(net, args, n, data):
    fn = ms.value_and_grad(net, None, net.trainable_params())
    (ir, ex, log), (rec, ref, ref_log) = _both(fn, args, n, data)
    assert ir.graph is not None and rec.graph is None
    loss, grads = ir.result
    want_loss, want_grads = fn(*args)
    np.testing.assert_allclose(ex.whole(loss), want_loss.asnumpy(), rtol=0, atol=1e-12)
    for p, g, want in zip(net.trainable_params(), grads, want_grads):
        layout = ex.layout_of(p)
        assert layout == ref.layout_of(p)
        np.testing.assert_allclose(assemble(ex.value(g, layout).shards, layout), want.asnumpy(), rtol=0, atol=1e-12)
    # the same calls, layouts and collectives as the PyNative recording
    assert [c.prim.name for c in ir.calls] == [c.prim.name for c in rec.calls]
    assert [(p.in_layouts, p.out_layouts) for p in ex.plans] == [(p.in_layouts, p.out_layouts) for p in ref.plans]
    assert log == ref_log
    assert ex.whole_calls == []


@pytest.mark.parametrize("case", sorted(MLP_CASES))
def test_mlp_graph_partitions_as_its_recording(case):
    n, strategies, data = MLP_CASES[case]
    _check_step(MLP(**strategies), (X, Y), n, data)


@pytest.mark.parametrize("case", sorted(BLOCK_CASES))
def test_attention_block_graph_partitions_as_its_recording(case):
    n, strategies = BLOCK_CASES[case]
    _check_step(Block(**strategies), (BLOCK_X,), n, None)


def test_the_graph_nodes_keep_their_operator_strategy_and_bprop():
    net = MLP(mm1=(((1, 1), (1, 4)),))
    program, why = graph_program(ms.value_and_grad(net, None, net.trainable_params()), (X, Y))
    assert why is None
    first = program.graph.nodes[0]
    assert first.name == "MatMul" and first.strategy == (((1, 1), (1, 4)), None)
    assert [c.strategy is not None for c in program.calls].count(True) == 1
    # the backward products differentiate the forward ones: the first product's weight gradient reads its forward cuts
    backward = [i for i, d in enumerate(program.differentiates) if d is not None]
    assert backward and backward[0] > [c.prim.name for c in program.calls].index("ReduceMean")
    ex = execute(program, SimulatedWorld(4))
    plan = ex.plans[0]
    assert plan.in_layouts[1].dims == ((), (0,)) and plan.mesh.shape == (4,)
    # the weight's gradient keeps the column cut: no communication for it
    assert ex.layout_of(net.w1).dims == ((), (0,))
    loss, grads = program.result
    np.testing.assert_allclose(assemble(ex.value(grads[0], ex.layout_of(net.w1)).shards, ex.layout_of(net.w1)),
                               ms.value_and_grad(net, None, net.trainable_params())(X, Y)[1][0].asnumpy(),
                               rtol=0, atol=1e-12)


def test_abstract_program_has_the_shapes_and_layouts():
    net = MLP(**MLP_CASES["(2, 2)"][1])
    fn = ms.value_and_grad(net, None, net.trainable_params())
    program, _ = graph_program(fn, (X, Y))
    abstract = program_from_graph(program.graph, program.args, abstract=True)
    assert [tuple(c.outs[0].shape) for c in abstract.calls] == [tuple(c.outs[0].shape) for c in program.calls]
    from mindseed.parallel._world import ShapeWorld  # noqa: PLC0415
    shapes = ShapeWorld(4)
    world = SimulatedWorld(4)
    layouts = [(t, (2, 1)) for t in program.args[:2]]
    execute(abstract, shapes, [(t, (2, 1)) for t in abstract.args[:2]])
    execute(program, world, layouts)
    assert _log(shapes) == _log(world)


def test_program_from_graph_checks_its_graph_and_inputs():
    net = MLP()
    program, _ = graph_program(ms.value_and_grad(net, None, net.trainable_params()), (X, Y))
    assert unpartitionable(program.graph) is None
    with pytest.raises(ValueError, match="has 5 parameters, but got 1 inputs"):
        program_from_graph(program.graph, (X,))
    updating = Graph("g")   # a node updating state that is no Assign of the graph itself: no program of calls
    w = program.graph.params[2]
    updating.params, updating.nodes = [w], [Node(py_call_p, [w], {}, [])]
    assert "PyCall updates state" in unpartitionable(updating)
    with pytest.raises(ValueError, match="must be a program of pure primitive calls, but its node PyCall"):
        program_from_graph(updating, (net.w1,))
    updating.nodes = [Node(assign_p, [w, w], {}, [])]
    assert unpartitionable(updating) is None and "inside control flow" in unpartitionable(updating, nested=True)


class Looping(nn.Cell):
    """A While on a tensor counter around a data-parallel product, then a branch on a tensor's value."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.random.default_rng(7).standard_normal((4, 4))), name="w")
        self.mm = ops.MatMul().shard(((2, 1), (1, 1)))

    def construct(self, x):
        n = ops.zeros((), ms.int32)
        while n < 3:
            x = ops.tanh(self.mm(x, self.w))
            n = n + 1
        if x.sum() > 0:
            x = x * 2.0
        else:
            x = x - 1.0
        return (x * x).sum()


def test_control_flow_unrolls_from_the_values():
    net = Looping()
    fn = ms.value_and_grad(net, None, net.trainable_params())
    program, why = graph_program(fn, (SHARD_X,))
    assert why is None
    assert {n.name for n in program.graph.nodes} >= {"While", "If"}
    # the forward While's three iterations, then the backward While's (each re-runs its body for the vjp)
    assert [c.prim.name for c in program.calls].count("MatMul") == 3 + 3 * 3
    ex = execute(program, SimulatedWorld(2), [(SHARD_X, (2, 1))])
    loss, grads = program.result
    want_loss, (want_grad,) = fn(SHARD_X)
    np.testing.assert_allclose(ex.whole(loss), want_loss.asnumpy(), rtol=0, atol=1e-12)
    layout = ex.layout_of(net.w)
    np.testing.assert_allclose(assemble(ex.value(grads[0], layout).shards, layout), want_grad.asnumpy(), rtol=0,
                               atol=1e-12)
    reference = SimulatedWorld(2)
    execute(record(fn, SHARD_X), reference, [(SHARD_X, (2, 1))])
    assert _log(ex.world)[:len(reference.log)] == _log(reference) == [("AllReduce", 2, 8)] * 2
    # on shapes alone the loop's trip count is unknown
    assert "control flow" in unpartitionable(program.graph, abstract=True)


class Branchy(nn.Cell):
    """The sharded block, then a branch on a tensor's value."""

    def __init__(self):
        super().__init__()
        self.net = ShardedNet(in_strategy=((4, 1),))

    def construct(self, x):
        y = self.net(x)
        if y.sum() > 0:
            y = y * 3.0
        else:
            y = y - 1.0
        return y


class Counting(nn.Cell):
    """The sharded block, counting its calls in a Parameter (an `Assign` of the graph) and scaling by the count."""

    def __init__(self):
        super().__init__()
        self.net = ShardedNet(in_strategy=((4, 1),))
        self.calls = Parameter(Tensor(np.zeros((), np.float64)), name="calls", requires_grad=False)

    def construct(self, x):
        ops.assign(self.calls, self.calls + 1.0)
        return self.net(x) * self.calls


class Breaking(nn.Cell):
    """The sharded block, then a value read into Python: the trace breaks (the interpreter runs it)."""

    def __init__(self):
        super().__init__()
        self.net = ShardedNet(in_strategy=((4, 1),))

    def construct(self, x):
        y = self.net(x)
        return y * (float(y.asnumpy().sum() > 0) + 1.0)


def test_branches_and_updates_partition_and_a_graph_break_falls_back_to_the_recording():
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy="full_batch")
    branchy, counting, breaking = Branchy(), Counting(), Breaking()
    block = counting.net(SHARD_X).asnumpy()
    want = branchy(SHARD_X).asnumpy(), block, 2 * block, breaking(SHARD_X).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    with simulate(4) as run:
        got = branchy(SHARD_X), counting(SHARD_X), counting(SHARD_X), breaking(SHARD_X)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=0, atol=1e-12)
    assert [ex.program.graph is not None for ex in run.executions] == [True, True, True, False]
    # the Assign is the program's update, made once per call after the ranks ran (the trace run's undone)
    assert [len(ex.program.updates) for ex in run.executions[1:3]] == [1, 1]
    assert float(counting.calls.asnumpy()) == 2.0
    assert len(run.fallbacks) == 1 and run.fallbacks[0].startswith("the trace stopped: asnumpy()")


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_a_graph_call_on_the_world_runs_its_graph_program(mode):
    net = ShardedNet(in_strategy=((2, 1),), parameter_plan={"block.w": (1, 2)})
    want = net(SHARD_X).asnumpy()
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy="full_batch")
    reference = SimulatedWorld(4)
    execute(record(net, SHARD_X), reference, dataset_layouts((SHARD_X,), 4))
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
    with simulate(4) as run:
        got = net(SHARD_X) if mode == "graph" else ms.jit(lambda x: net(x))(SHARD_X)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=0, atol=1e-12)
    (ex,) = run.executions
    assert ex.program.graph is not None and run.fallbacks == []
    assert "Reshard" in [n.name for n in ex.program.graph.nodes]
    assert _log(run.world)[:len(reference.log)] == _log(reference)


def _train(net, args, n, data, mode, steps=1):
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy=data)
    ms.set_context(mode=mode)
    with simulate(n) as run:
        losses = [step(*(a * (k + 1) for a in args)) for k in range(steps)]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.reset_auto_parallel_context()
    return losses[-1] if steps == 1 else losses, run


def test_graph_mode_training_steps_partition_their_graph():
    n, strategies, data = MLP_CASES["(2, 4)"]
    ref = MLP(**strategies)
    step = nn.TrainOneStepCell(ref, nn.SGD(ref.trainable_params(), 0.1))
    want = [step(X * (k + 1), Y * (k + 1)) for k in range(2)]
    net = MLP(**strategies)
    losses, run = _train(net, (X, Y), n, (data, data), ms.GRAPH_MODE, steps=2)
    for loss, w in zip(losses, want):
        np.testing.assert_allclose(loss.asnumpy(), w.asnumpy(), rtol=0, atol=1e-12)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    first, second = run.executions
    # traced once: the second step runs the same graph on its own batch
    assert first.program.graph is not None and second.program.graph is first.program.graph and run.fallbacks == []
    _, recorded = _train(MLP(**strategies), (X, Y), n, (data, data), ms.PYNATIVE_MODE, steps=2)
    assert recorded.executions[0].program.graph is None
    assert _log(run.world) == _log(recorded.world)


SMALL_GPT = dict(batch=4, seq=8, d=16, heads=4, ffn=32, vocab=40, layers=2)


@pytest.mark.parametrize("size", ["small", "W4"])
def test_w4_gpt_graph_mode_step_on_2x4_matches_one_process(size):
    config = SMALL_GPT if size == "small" else gpt.W4   # W4: batch 8, sequence 128, d_model 256, vocab 1000
    x, y = gpt.inputs(config, np.float64)
    ref = gpt.GPT(config, np.float64).shard_megatron(2, 4)
    want = nn.TrainOneStepCell(ref, nn.SGD(ref.trainable_params(), 0.1))(x, y)
    net = gpt.GPT(config, np.float64).shard_megatron(2, 4)
    loss, run = _train(net, (x, y), 8, gpt.dataset_strategy(2), ms.GRAPH_MODE)
    np.testing.assert_allclose(loss.asnumpy(), want.asnumpy(), rtol=0, atol=1e-12)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    (ex,) = run.executions
    assert ex.program.graph is not None and run.fallbacks == [] and ex.whole_calls == []
    if size == "W4":   # 49 collectives of 16 466 904 bytes in all, the recording's (measured once: not repeated)
        assert (len(run.world.log), sum(r.input_bytes for r in run.world.log)) == (49, 16466904)
        return
    _, recorded = _train(gpt.GPT(config, np.float64).shard_megatron(2, 4), (x, y), 8, gpt.dataset_strategy(2),
                         ms.PYNATIVE_MODE)
    assert _log(run.world) == _log(recorded.world)
    assert [(p.in_layouts, p.out_layouts) for p in ex.plans] == \
        [(p.in_layouts, p.out_layouts) for p in recorded.executions[0].plans]


PLAN_SCRIPT = (
    "import numpy as np\n"
    "import mindseed as ms\n"
    "from mindseed import Parameter, Tensor, nn, ops\n"
    "ms.set_context(mode=ms.{mode})\n"
    "class Net(nn.Cell):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.w = Parameter(Tensor(np.ones((4, 8))), name='w')\n"
    "        self.v = Parameter(Tensor(np.ones((8, 2))), name='v')\n"
    "        self.mm = ops.MatMul().shard(((2, 1), (1, 2)))\n"
    "        self.mm2 = ops.MatMul().shard(((2, 2), (2, 1)))\n"
    "    def construct(self, x):\n"
    "        return ops.reduce_sum(self.mm2(ops.tanh(self.mm(x, self.w)), self.v) ** 2)\n"
    "network = Net()\n"
    "inputs = (Tensor(np.arange(32.0).reshape(8, 4) / 32),)\n"
    "dataset_strategy = ((2, 1),)\n")


@pytest.mark.parametrize("shapes", [False, True])
def test_the_planner_plans_a_graph_mode_script_from_its_graph(tmp_path, capsys, shapes):
    from mindseed.parallel import plan  # noqa: PLC0415
    outs = {}
    for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
        script = tmp_path / f"{mode}.py"
        script.write_text(PLAN_SCRIPT.format(mode=mode))
        assert plan.main([str(script), "--devices", "4"] + (["--shapes-only"] if shapes else [])) == 0
        outs[mode] = capsys.readouterr().out
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert "traced (graph) in" in outs["GRAPH_MODE"] and "recorded in" in outs["PYNATIVE_MODE"]
    if not shapes:
        assert float(re.search(r"max \|error\| = (\S+)", outs["GRAPH_MODE"]).group(1)) < 1e-9
    # the same operators, cuts, collectives and bytes: the report past its timing line
    cut = [out.split("\n", 2)[2] for out in outs.values()]
    assert cut[0] == cut[1] and "AllReduce" in cut[0]


class Normed(nn.Cell):
    """A data-parallel product, BatchNorm (training: its moving statistics are Assigns of the graph), a product."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(8)
        self.w = Parameter(Tensor(rng.standard_normal((4, 6))), name="w")
        self.mm = ops.MatMul().shard(((2, 1), (1, 1)))
        self.bn = nn.BatchNorm1d(6)
        self.out = Parameter(Tensor(rng.standard_normal((6, 2))), name="out")

    def construct(self, x, y):
        h = ops.cast(self.bn(ops.cast(self.mm(x, self.w), ms.float32)), ms.float64)
        d = ops.matmul(h, self.out) - y
        return (d * d).mean()


def test_graph_mode_steps_update_the_batch_norm_statistics():
    x, y = SHARD_X, Tensor(np.random.default_rng(9).standard_normal((8, 2)))
    ref = Normed().set_train()
    step = nn.TrainOneStepCell(ref, nn.SGD(ref.trainable_params(), 0.1))
    want = [step(x * (k + 1), y * (k + 1)).asnumpy() for k in range(2)]
    runs = {}
    for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
        net = Normed().set_train()
        losses, run = _train(net, (x, y), 2, ((2, 1), (2, 1)), mode, steps=2)
        runs[mode] = [v.asnumpy() for v in losses], {n: p.asnumpy() for n, p in net.parameters_and_names()}, run
    (losses, params, run), (rec_losses, rec_params, recorded) = runs[ms.GRAPH_MODE], runs[ms.PYNATIVE_MODE]
    assert [ex.program.graph is not None for ex in run.executions] == [True, True] and run.fallbacks == []
    assert [len(ex.program.updates) for ex in run.executions] == [2, 2]   # the moving mean and variance
    # the graph's program gives the recording's numbers and collectives; one process's within float32 BatchNorm
    np.testing.assert_array_equal(np.array(losses), np.array(rec_losses))
    for name, value in params.items():
        np.testing.assert_array_equal(value, rec_params[name])
    assert _log(run.world) == _log(recorded.world)
    np.testing.assert_allclose(np.array(losses), np.array(want), rtol=1e-6)
    for name, p in ref.parameters_and_names():
        np.testing.assert_allclose(params[name], p.asnumpy(), rtol=1e-6, atol=1e-7)
    assert not np.allclose(params["bn.moving_mean"], 0)


@pytest.mark.parametrize("case", sorted(PIPELINE_CASES))
def test_a_pipeline_graph_places_its_calls_as_the_recording(case):
    widths, stage_of, stages, devices, micro, strategy, data = PIPELINE_CASES[case]
    _, cell = _pipeline(widths, stage_of, micro, strategy)
    fn = ms.value_and_grad(cell, None, cell.trainable_params())
    program, why = graph_program(fn, (PIPE_X, PIPE_Y))
    assert why is None
    staged, recorded = staged_program(program, cell), record_pipeline(fn, cell, PIPE_X, PIPE_Y)
    # each call on the recording's stage, chunk and micro-batch, in the forward or backward pass as there
    assert [c.prim.name for c in staged.calls] == [c.prim.name for c in recorded.calls]
    assert (staged.stages, staged.chunks, staged.micro, staged.forward) == \
        (recorded.stages, recorded.chunks, recorded.micro, recorded.forward)
    logs, losses = [], []
    for p in (staged, recorded):
        run = execute_pipeline(p, stages, devices, [(PIPE_X, data), (PIPE_Y, data)] if data else None)
        logs.append([(r.kind, r.group_size, r.input_bytes) for ex in run.stages for r in ex.world.log] +
                    [(a, b, r.kind, r.input_bytes) for a, b, r in run.p2p])
        losses.append(run.whole(p.result[0]))
    assert logs[0] == logs[1] and losses[0] == losses[1]
    np.testing.assert_allclose(losses[0], fn(PIPE_X, PIPE_Y)[0].asnumpy(), rtol=0, atol=1e-12)


def test_graph_mode_pipeline_steps_partition_their_graph():
    from test_train_simulated import _pipeline_training  # noqa: PLC0415
    ms.set_context(mode=ms.GRAPH_MODE)
    try:   # the losses, parameters and Adam state of one process, interleaved in 2 stages, ZeRO level1 inside
        _, run = _pipeline_training(2, 4, True, "Adam", enable_parallel_optimizer=True,
                                    parallel_optimizer_config={"optimizer_level": "level1",
                                                               "parallel_optimizer_threshold": 0})
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert run.fallbacks == [] and all(ex.program.graph is not None for ex in run.executions)
    assert len({id(ex.program.graph) for ex in run.executions}) == 1 and run.executions[-1].chunks == 2


def test_the_planner_plans_a_graph_mode_pipeline_from_its_graph(tmp_path):
    import runpy  # noqa: PLC0415
    from mindseed.parallel import plan  # noqa: PLC0415
    from test_plan import PIPELINE_SCRIPT  # noqa: PLC0415
    script = tmp_path / "pipe.py"
    script.write_text(PIPELINE_SCRIPT)
    outs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        scope = runpy.run_path(str(script), {"devices": 4, "mesh": (4,)})
        ms.set_context(mode=mode)
        run = plan.plan_pipeline(scope["network"], scope["inputs"], 4, 2, scope["dataset_strategy"])
        ms.set_context(mode=ms.PYNATIVE_MODE)
        assert (run.program.graph is not None) == (mode == ms.GRAPH_MODE)
        outs.append(plan.format_pipeline(run))
    # the same stages, Sends, collectives, memory and step time
    assert outs[0] == outs[1] and "2 stages x 2 ranks" in outs[0]
