"""AUTO_PARALLEL's strategy search (`_search`): the W4 GPT against the hand-written Megatron plan, and searched
plans that run on the simulated ranks with the single-process loss and gradients."""
import itertools

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.parallel import _demo_gpt as gpt
from mindseed.parallel import plan
from mindseed.parallel._layout import DeviceMesh
from mindseed.parallel._search import _gradient_layout, _Model, search
from mindseed.parallel._spmd import Assignment, call_layouts, execute, record
from mindseed.parallel._world import SimulatedWorld

SMALL = dict(batch=4, seq=8, d=16, heads=4, ffn=32, vocab=20, layers=2)
MACHINE = plan.Machine(tflops=1.0, bandwidth=10.0)   # compute and communication both count at this size
SLOW = plan.Machine(tflops=1e-6, bandwidth=10.0, latency=0.0)


def _sent(step):
    return sum(r.sent_bytes for r in step.execution.world.log)


@pytest.fixture
def auto_context():
    yield
    ms.set_auto_parallel_context(parallel_mode="stand_alone", search_mode="recursive_programming")
    ms.reset_algo_parameters()


def test_propagation_from_the_products_costs_no_more_than_the_hand_written_megatron_plan():
    mesh = DeviceMesh((2, 4), ("dp", "mp"))
    megatron = plan.plan_step(gpt.GPT().shard_megatron(2, 4), gpt.inputs(), 8, gpt.dataset_strategy(2),
                              shapes_only=True)
    auto = plan.plan_step(gpt.GPT().shard_megatron(2, 4, products_only=True), gpt.inputs(), 8,
                          gpt.dataset_strategy(2), shapes_only=True, search_mode="sharding_propagation", mesh=mesh,
                          machine=MACHINE)
    print(f"W4 GPT on (2, 4): hand-written Megatron plan {_sent(megatron)} B sent per rank, "
          f"sharding propagation {_sent(auto)} B")
    assert 0 < _sent(auto) <= _sent(megatron)
    assert sum(plan.step_seconds(auto.execution, MACHINE)) <= sum(plan.step_seconds(megatron.execution, MACHINE))


@pytest.mark.parametrize("mode", ["dynamic_programming", "recursive_programming"])
def test_a_searched_plan_gives_the_single_process_loss_and_gradients(mode):
    net = gpt.GPT(SMALL, np.float64)
    # compute dominating (the exact search keeps this small model whole on every rank at 1 TFLOP/s and 10 us a
    # collective: a few AllReduces cost more than the whole model's compute)
    step = plan.plan_step(net, gpt.inputs(SMALL, np.float64), 4, gpt.dataset_strategy(2), search_mode=mode,
                          mesh=DeviceMesh((2, 2)), machine=SLOW)
    assert step.max_error < 1e-12
    chosen = [p.cuts for p in step.execution.plans if p.call.strategy and isinstance(p.call.strategy[0], Assignment)]
    assert chosen and any(chosen)   # the search cut something
    if mode == "recursive_programming":   # every operator uses the whole device set
        assert all(sorted(a for axes in c.values() for a in axes) == [0, 1] for c in chosen if c)


def test_auto_parallel_context_searches_when_the_step_is_executed(auto_context):
    ms.set_auto_parallel_context(parallel_mode="auto_parallel", search_mode="dynamic_programming")
    net = gpt.GPT(SMALL, np.float64)
    data = gpt.inputs(SMALL, np.float64)
    program, params, loss, grads = plan.record_step(net, data)
    ex = execute(program, SimulatedWorld(4), list(zip(data, gpt.dataset_strategy(2))))
    assert any(p.call.strategy and isinstance(p.call.strategy[0], Assignment) for p in ex.plans)
    got = ex.value(loss, plan.TensorLayout.replicated(ex.value(loss).layout.mesh, ())).shards[0]
    assert abs(float(got) - float(loss.asnumpy())) < 1e-12
    for p, g in zip(params, grads):
        layout = ex.layout_of(p)
        np.testing.assert_allclose(plan.assemble(ex.value(g, layout).shards, layout), g.asnumpy(), rtol=0,
                                   atol=1e-12)


def test_fully_use_devices_keeps_the_candidates_that_use_every_axis(auto_context):
    net = gpt.GPT(SMALL, np.float64)
    program = record(lambda *a: net(*a), *gpt.inputs(SMALL, np.float64))
    ms.set_algo_parameters(fully_use_devices=True)
    found = search(program, DeviceMesh((2, 2)), machine=MACHINE, mode="dynamic_programming")
    cut = [a for a in found.choices.values() if a.assign]   # (a scalar call has nothing to cut)
    assert cut
    for a in cut:
        assert sorted(ax for axes in a.assign.values() for ax in axes) == [0, 1]
    with pytest.raises(ValueError, match="search_mode must be one of"):
        search(program, DeviceMesh((2, 2)), mode="greedy")


def test_the_planner_prints_the_hand_written_and_the_searched_plans(capsys):
    assert plan.main(["--demo", "gpt", "--devices", "8", "--mesh", "2x4", "--shapes-only", "--auto",
                      "sharding_propagation", "--tflops", "1", "--bandwidth", "10", "--ranks", "1"]) == 0
    out = capsys.readouterr().out
    hand = int(out.split("hand-written plan: ")[1].split(" B")[0])
    found = int(out.split("searched plan (sharding_propagation): ")[1].split(" B")[0])
    assert 0 < found <= hand


class _Chain(nn.Cell):
    """mean(relu(x @ w1) @ w2): a chain of forward calls, where the dynamic programming is exact."""

    def __init__(self, second=True):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w1 = Parameter(Tensor(rng.standard_normal((8, 16))), name="w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((16, 4))), name="w2") if second else None
        self.mm1, self.mm2, self.relu, self.mean = ops.MatMul(), ops.MatMul(), ops.ReLU(), ops.ReduceMean()

    def construct(self, x):
        y = self.relu(self.mm1(x, self.w1))
        return self.mean(self.mm2(y, self.w2) if self.w2 is not None else y)


class _Residual(nn.Cell):
    """mean(relu(x @ w1) @ w2 + relu(x @ w1)): the ReLU's output also read two calls later."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w1 = Parameter(Tensor(rng.standard_normal((8, 16))), name="w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((16, 16))), name="w2")
        self.mm1, self.mm2, self.relu, self.add, self.mean = ops.MatMul(), ops.MatMul(), ops.ReLU(), ops.Add(), \
            ops.ReduceMean()

    def construct(self, x):
        y = self.relu(self.mm1(x, self.w1))
        return self.mean(self.add(self.mm2(y, self.w2), y))


@pytest.mark.parametrize("shape, net", [((2,), "chain"), ((4,), "chain"), ((2, 2), "short chain"), ((2,), "residual"),
                                        ((4,), "residual")])
def test_the_dynamic_programming_finds_the_minimum_of_an_exhaustive_enumeration(shape, net):
    net = {"chain": lambda: _Chain(), "short chain": lambda: _Chain(False), "residual": _Residual}[net]()
    x = Tensor(np.random.default_rng(1).standard_normal((8, 8)))
    program, params, _, grads = plan.record_step(net, (x,), abstract=True)
    mesh = DeviceMesh(shape)
    layouts = [(x, (2,) + (1,))]
    found = search(program, mesh, layouts, MACHINE, "dynamic_programming", list(zip(grads, params)))
    model = _Model(program, mesh, layouts, MACHINE, False)
    every = itertools.product(*(range(len(step[3])) for step in model.steps))
    costs = [model.path_cost(picks) for picks in every]
    assert len(costs) > 50
    assert found.cost == pytest.approx(min(costs), rel=1e-12, abs=0)
    assert model.path_cost(found.picks) == pytest.approx(found.cost, rel=1e-12, abs=0)


def test_the_backward_model_costs_megatrons_gradient_all_reduces():
    """Column-parallel q, k, v, fc1 (input replicated over mp): no forward move, and the input's gradient, a partial sum
    over mp, is all-reduced in the backward pass; row-parallel proj, fc2: the input's gradient stays cut, no move."""
    mesh = DeviceMesh((2, 4), ("dp", "mp"))
    net = gpt.GPT().shard_megatron(2, 4)
    program, params, _, grads = plan.record_step(net, gpt.inputs(), abstract=True)
    layouts = list(zip(gpt.inputs(), gpt.dataset_strategy(2)))
    machine = plan.Machine(tflops=1e9, bandwidth=1e-9, latency=0.0)   # a "second" is a byte sent
    model = _Model(program, mesh, layouts, machine, False)
    outs = []
    fc1, fc2 = net.blocks[0].fc1.matmul, net.blocks[0].fc2.matmul
    seen = {}
    for s, (_, call, rule, _) in enumerate(model.steps):
        srcs = model.sources(s, lambda k: outs[k])
        _, assign, out, _ = model.step_cost(s, 0, srcs)
        outs.append(out)
        if call.prim.name == "MatMul" and call.strategy and call.strategy[0] in (fc1.in_strategy, fc2.in_strategy):
            lay = call_layouts(call, rule, out[0].mesh, assign)[0][0]
            grad = _gradient_layout(rule, 0, lay, assign)
            seen.setdefault(call.strategy[0], (srcs[0], lay, grad))
    act = 4 * 128 * 256 * 4   # one dp rank's tokens, float32
    src, lay, grad = seen[fc1.in_strategy]
    assert model.costs.move(src, lay, 4) == 0
    assert model.costs.move(grad, src, 4) == 2 * 3 * act // 4   # a ring all-reduce over the 4 mp ranks
    src, lay, grad = seen[fc2.in_strategy]
    assert grad.partial == () and model.costs.move(grad, src, 4) == 0


@pytest.mark.parametrize("dp, mp", [(2, 4), (8, 128)])
def test_the_exact_search_costs_no_more_than_the_megatron_plan_and_the_model_is_the_run(dp, mp):
    # at 1 TFLOP/s, 10 GB/s and 10 us a collective the search trades communication for compute: the model's optimum
    # is below the model's cost of Megatron's plan, and run, the searched plan's step (compute and communication) is
    # no longer than Megatron's and sends fewer bytes; the model estimates both plans' steps within 2 % (the
    # gradient of a value read twice, summed by a backward Add, moves as the executor moves it: docs/parallel.md)
    mesh = DeviceMesh((dp, mp))
    inputs = gpt.inputs()   # the recorded inputs are those the dataset strategy cuts
    layouts = list(zip(inputs, gpt.dataset_strategy(dp)))
    costs = []
    for net in (gpt.GPT().shard_megatron(dp, mp), gpt.GPT()):
        program = plan.record_step(net, inputs, abstract=True)[0]
        model = _Model(program, mesh, layouts, MACHINE, False)
        costs.append(model.path_cost([0] * len(model.steps)))   # Megatron: its strategies, the rest following
    found = search(program, mesh, layouts, MACHINE, "dynamic_programming")
    megatron = plan.plan_step(gpt.GPT().shard_megatron(dp, mp), inputs, dp * mp, gpt.dataset_strategy(dp),
                              shapes_only=True)
    auto = plan.plan_step(gpt.GPT(), inputs, dp * mp, gpt.dataset_strategy(dp), shapes_only=True,
                          search_mode="dynamic_programming", mesh=mesh, machine=MACHINE)
    hand, mine = (sum(plan.step_seconds(s.execution, MACHINE)) for s in (megatron, auto))
    print(f"W4 GPT on {dp}x{mp} at 1 TFLOP/s: Megatron's plan {1e3 * hand:.4f} ms a step ({_sent(megatron)} B; model "
          f"{1e3 * costs[0]:.4f} ms), the searched plan {1e3 * mine:.4f} ms ({_sent(auto)} B; model "
          f"{1e3 * found.cost:.4f} ms)")
    assert found.cost <= costs[0]
    assert abs(costs[0] - hand) < 0.02 * hand and abs(found.cost - mine) < 0.02 * mine
    assert found.cost < costs[1]   # and below following the data's cut everywhere
    assert mine <= hand and _sent(auto) <= _sent(megatron)
    # the bytes of these runs (docs/parallel.md's table): a gradient handed to both operands' bprops of a residual
    # sum is added where it was made, not gathered for one of them (10 946 911 and 4 799 655 B before)
    assert (_sent(megatron), _sent(auto)) == {(2, 4): (11616748, 10162015), (8, 128): (5753186, 4538543)}[dp, mp]


@pytest.mark.parametrize("machine", [plan.Machine(tflops=100.0, bandwidth=100.0, latency=0.0)],
                         ids=["100 TFLOP/s, no latency"])
def test_auto_parallel_at_8x128_estimates_no_more_communication_than_the_megatron_plan(machine):
    # (at 100 TFLOP/s with 10 us per collective the search rightly keeps this small model whole on every rank)
    megatron = plan.plan_step(gpt.GPT().shard_megatron(8, 128), gpt.inputs(), 1024, gpt.dataset_strategy(8),
                              shapes_only=True)
    auto = plan.plan_step(gpt.GPT(), gpt.inputs(), 1024, gpt.dataset_strategy(8), shapes_only=True,
                          search_mode="dynamic_programming", mesh=DeviceMesh((8, 128)), machine=machine)
    hand, found = (machine.comm_seconds(s.execution.world.log) for s in (megatron, auto))
    print(f"W4 GPT on 8x128: communication per step, hand-written Megatron plan {1e3 * hand:.4f} ms "
          f"({_sent(megatron)} B), AUTO_PARALLEL {1e3 * found:.4f} ms ({_sent(auto)} B)")
    assert 0 < found <= hand and 0 < _sent(auto) <= _sent(megatron)
    cut = [p.cuts for p in auto.execution.plans if p.call.prim.name == "MatMul" and p.cuts]
    assert any(len(c) == 2 for c in cut)   # products cut over both mesh axes: data x model parallel


@pytest.mark.parametrize("dp, mp, searched", [(2, 2, False), (1, 4, False), (2, 2, True), (2, 4, True)])
def test_the_backward_adds_a_values_gradient_parts_where_the_value_was_made(dp, mp, searched):
    """The backward pass's Add of gradient parts of a value read several times (`Program.sums`: the residual stream,
    a LayerNorm's output read by q, k and v) runs in that value's layout, as the search's model adds them, unless the
    parts are one partial sum (which stays one); the loss and gradients are the single process's."""
    from mindseed.parallel._layout import TensorLayout   # noqa: PLC0415
    net = gpt.GPT(SMALL, np.float64)
    if not searched:
        net.shard_megatron(dp, mp)
    inputs = gpt.inputs(SMALL, np.float64)
    layouts = list(zip(inputs, gpt.dataset_strategy(dp)))
    program, params, loss, grads = plan.record_step(net, inputs)
    if searched:
        program = search(program, DeviceMesh((dp, mp)), layouts, SLOW, "dynamic_programming").program
    ex = execute(program, SimulatedWorld(dp * mp), layouts, search=False)
    sums = [(i, t) for i, t in enumerate(program.sums) if t is not None]
    assert len(sums) >= 2 * SMALL["layers"]
    for i, t in sums:
        out, made = ex.plans[i].out_layouts[0], ex.layout_of(t)
        made = TensorLayout(made.mesh, made.shape, made.dims)
        assert out == made or (out.is_replicated() and made.is_replicated()) or \
            (out.partial and all(lay == out for lay in ex.plans[i].in_layouts)), (i, out, made)
    assert abs(float(ex.whole(loss)) - float(loss.asnumpy())) < 1e-12
    for p, g in zip(params, grads):
        np.testing.assert_allclose(ex.whole(g, ex.layout_of(p)), g.asnumpy(), rtol=0, atol=1e-12)
