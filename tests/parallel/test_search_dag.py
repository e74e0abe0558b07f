"""The strategy search's exact solver (`_elimination`) and the search on DAGs with a memory limit: random factor
graphs and random networks (hypothesis) against exhaustive enumeration."""
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mindseed as ms
from mindseed import nn, ops
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.parallel import plan
from mindseed.parallel._cost_model_context import reset_cost_model_context, set_cost_model_context
from mindseed.parallel._elimination import elimination_order, solve
from mindseed.parallel._layout import DeviceMesh
from mindseed.parallel._search import _Model, search
from mindseed.parallel._spmd import call_layouts, execute
from mindseed.parallel._world import ShapeWorld, SimulatedWorld

MACHINE = plan.Machine(tflops=1e-3, bandwidth=10.0, latency=1.0)   # compute and communication both count


def _enumerate(domains, factors, memory, limit):
    best = None
    for picks in itertools.product(*(range(d) for d in domains)):
        cost = sum(t[tuple(picks[v] for v in s)] for s, t in factors)
        held = sum(memory[v][c] for v, c in enumerate(picks)) if memory is not None else 0
        if np.isfinite(cost) and (limit is None or held <= limit) and (best is None or cost < best):
            best = cost
    return best


@st.composite
def _factor_graphs(draw):
    n = draw(st.integers(1, 6))
    domains = [draw(st.integers(1, 3)) for _ in range(n)]
    factors = []
    for _ in range(draw(st.integers(1, 7))):
        scope = tuple(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=min(3, n), unique=True)))
        size = int(np.prod([domains[v] for v in scope]))
        values = draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, 4.0, 7.0, np.inf]), min_size=size, max_size=size))
        factors.append((scope, np.array(values).reshape([domains[v] for v in scope])))
    memory = [draw(st.lists(st.integers(0, 9), min_size=d, max_size=d)) for d in domains]
    limit = draw(st.none() | st.integers(0, 30))
    return domains, factors, memory, limit


@settings(max_examples=200, deadline=None)
@given(_factor_graphs())
def test_the_solver_finds_the_minimum_of_an_exhaustive_enumeration(graph):
    domains, factors, memory, limit = graph
    want = _enumerate(domains, factors, memory, limit)
    got = solve(domains, factors, memory, limit)
    if want is None:
        assert got is None
        return
    cost, picks = got
    assert cost == want
    assert sum(t[tuple(picks[v] for v in s)] for s, t in factors) == want
    assert limit is None or sum(memory[v][c] for v, c in enumerate(picks)) <= limit


def test_the_elimination_order_takes_the_leaves_of_a_chain_first():
    # a chain 0 - 1 - 2 - 3: the ends have one neighbour each (the papers' node elimination keeps the width at 2)
    order = elimination_order([3, 3, 3, 3], [(0, 1), (1, 2), (2, 3)])
    assert order[0] in (0, 3) and sorted(order) == [0, 1, 2, 3]


class _Dag(nn.Cell):
    """A random network: each step applies MatMul (with its own 8x8 weight), Add, Mul or ReLU to earlier values
    (`spec`: (op, operand indices)); the loss is the mean of the last value."""

    def __init__(self, spec):
        super().__init__()
        rng = np.random.default_rng(0)
        self.spec = spec
        self.weights = nn.CellList()
        self.ops = []
        for k, (op, _) in enumerate(spec):
            if op == "matmul":
                holder = nn.Cell()
                holder.w = Parameter(Tensor(rng.standard_normal((8, 8))), name=f"w{k}")
                self.weights.append(holder)
            self.ops.append({"matmul": ops.MatMul, "add": ops.Add, "mul": ops.Mul, "relu": ops.ReLU}[op]())
        self.mean = ops.ReduceMean()

    def construct(self, x):
        values, w = [x], iter(self.weights)
        for (op, args), fn in zip(self.spec, self.ops):
            operands = [values[i] for i in args]
            values.append(fn(operands[0], next(w).w) if op == "matmul" else fn(*operands))
        return self.mean(values[-1])


@st.composite
def _dags(draw):
    spec = [("matmul", (0,))]
    for k in range(1, draw(st.integers(2, 4))):
        op = draw(st.sampled_from(["matmul", "add", "mul", "relu"]))
        arity = 2 if op in ("add", "mul") else 1
        args = tuple(draw(st.integers(0, k)) for _ in range(arity))
        spec.append((op, args))
    return spec


def _exhaustive(program, mesh, layouts, limit=None):
    model = _Model(program, mesh, layouts, MACHINE, False)
    plans = []
    for picks in itertools.product(*(range(len(step[3])) for step in model.steps)):
        plans.append((model.path_cost(picks), model.path_memory(picks)))
    return model, plans


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_dags(), st.sampled_from([(2,), (4,)]), st.floats(0.0, 1.0))
def test_the_search_on_random_dags_finds_the_exhaustive_minimum_within_the_memory(spec, shape, where):
    net = _Dag(spec)
    x = Tensor(np.random.default_rng(1).standard_normal((8, 8)))
    program = plan.record_step(net, (x,), abstract=True)[0]
    mesh, layouts = DeviceMesh(shape), [(x, (2, 1))]
    model, plans = _exhaustive(program, mesh, layouts)
    found = search(program, mesh, layouts, MACHINE, "dynamic_programming", memory=float("inf"))
    assert found.cost == pytest.approx(min(c for c, _ in plans), rel=1e-12, abs=0)
    assert model.path_cost(found.picks) == pytest.approx(found.cost, rel=1e-12, abs=0)
    # a per-rank limit between the least and the most any plan holds: the cheapest plan within it
    held = sorted({m for _, m in plans})
    limit = held[int(where * (len(held) - 1))]
    fitting = min(c for c, m in plans if m <= limit)
    found = search(program, mesh, layouts, MACHINE, "dynamic_programming", memory=limit)
    assert found.cost == pytest.approx(fitting, rel=1e-12, abs=0)
    assert model.path_memory(found.picks) <= limit


def _residual():
    return _Dag([("matmul", (0,)), ("relu", (1,)), ("matmul", (2,)), ("add", (3, 2))])


def test_the_device_memory_capacity_rules_out_plans_and_a_too_small_one_is_an_error():
    x = Tensor(np.random.default_rng(1).standard_normal((8, 8)))
    program = plan.record_step(_residual(), (x,), abstract=True)[0]
    mesh, layouts = DeviceMesh((4,)), [(x, (2, 1))]
    model, plans = _exhaustive(program, mesh, layouts)
    free = search(program, mesh, layouts, MACHINE, "dynamic_programming")   # 16 GiB: no limit here
    unlimited = model.path_memory(free.picks)
    least = min(m for _, m in plans)
    assert least < unlimited
    try:
        set_cost_model_context(device_memory_capacity=float(least))
        tight = search(program, mesh, layouts, MACHINE, "dynamic_programming")
        assert model.path_memory(tight.picks) == least
        assert tight.cost == pytest.approx(min(c for c, m in plans if m <= least), rel=1e-12, abs=0)
        assert tight.cost > free.cost
        set_cost_model_context(device_memory_capacity=float(least - 1))
        with pytest.raises(RuntimeError, match=f"fits the device memory capacity {least - 1} bytes per rank: the "
                                               f"plan holding the least needs {least} bytes"):
            search(program, mesh, layouts, MACHINE, "dynamic_programming")
    finally:
        reset_cost_model_context()


def test_a_plan_searched_within_a_memory_limit_trains_as_one_process():
    net = _residual()
    x = Tensor(np.random.default_rng(1).standard_normal((8, 8)))
    program, params, loss, grads = plan.record_step(net, (x,))
    mesh, layouts = DeviceMesh((4,)), [(x, (2, 1))]
    model, plans = _exhaustive(program, mesh, layouts)
    least = min(m for _, m in plans)
    found = search(program, mesh, layouts, MACHINE, "dynamic_programming", memory=least)
    ex = execute(found.program, SimulatedWorld(4), layouts, search=False)
    np.testing.assert_allclose(ex.whole(loss), loss.asnumpy(), rtol=0, atol=1e-12)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(ex.whole(g, ex.layout_of(p)), g.asnumpy(), rtol=0, atol=1e-12)


@pytest.fixture
def algo():
    yield ms.set_algo_parameters
    ms.reset_algo_parameters()


def _program(spec):
    x = Tensor(np.random.default_rng(1).standard_normal((8, 8)))
    return plan.record_step(_Dag(spec), (x,), abstract=True)[0], [(x, (2, 1))]


def test_tensor_slice_align_keeps_the_matmul_strategies_with_aligned_last_dims(algo):
    program, layouts = _program([("matmul", (0,)), ("relu", (1,)), ("matmul", (2,))])
    mesh = DeviceMesh((2, 2))
    before = _Model(program, mesh, layouts, MACHINE, False)
    algo(tensor_slice_align_enable=True, tensor_slice_align_size=8)   # 8 columns: the last dims stay whole
    after = _Model(program, mesh, layouts, MACHINE, False)
    for (_, call, rule, options), (_, _, _, fewer) in zip(before.steps, after.steps):
        if call.prim.name != "MatMul":
            assert len(fewer) == len(options)
            continue
        assert 1 < len(fewer) < len(options)
        for option in fewer[1:]:   # (after following the inputs)
            ins, outs, _ = call_layouts(call, rule, option[1], option[0])
            assert all(lay.local_shape[-1] == 8 for lay in list(ins.values()) + outs)
    found = search(program, mesh, layouts, MACHINE, "dynamic_programming")
    ex = execute(found.program, ShapeWorld(4), layouts, search=False)
    assert all(lay.local_shape[-1] == 8 for p in ex.plans if p.call.prim.name == "MatMul" and p.cuts is not None
               for lay in p.in_layouts)


def test_algo_approximation_keeps_one_over_epsilon_candidates(algo):
    program, layouts = _program([("matmul", (0,)), ("add", (1, 1)), ("matmul", (2,))])
    mesh = DeviceMesh((2, 2))
    full = _Model(program, mesh, layouts, MACHINE, False)
    exact = search(program, mesh, layouts, MACHINE, "dynamic_programming")
    algo(enable_algo_approxi=True, algo_approxi_epsilon=0.5)
    model = _Model(program, mesh, layouts, MACHINE, False)
    for (_, _, _, options), (_, _, _, few) in zip(full.steps, model.steps):
        fixed = [o for o in few if o != "follow"]
        assert len(fixed) == min(2, len([o for o in options if o != "follow"]))
        assert "follow" in few
    approximate = search(program, mesh, layouts, MACHINE, "dynamic_programming")   # a smaller space: no cheaper
    assert approximate.cost >= exact.cost and approximate.cost == pytest.approx(model.path_cost(approximate.picks))


def _elementwise_reads(spec, machine):
    """(reads of an elementwise output in another layout than it was made, reads of elementwise outputs) of the
    searched plan."""
    program, layouts = _program(spec)
    found = search(program, DeviceMesh((2, 2)), layouts, machine, "dynamic_programming")
    ex = execute(found.program, ShapeWorld(4), layouts, search=False)
    made, moved, reads = {}, 0, 0
    for p in ex.plans[:len(found.choices)]:
        for a, lay in zip([a for a in p.call.args if isinstance(a, Tensor)], p.in_layouts):
            if id(a) in made:
                reads += 1
                moved += (made[id(a)].dims, made[id(a)].mesh.size) != (lay.dims, lay.mesh.size)
        if p.call.prim.name in ("ReLU", "Add", "Mul"):
            made.update((id(o), lay) for o, lay in zip(p.call.outs, p.out_layouts))
    return moved, reads


def test_elementwise_op_strategy_follow_reads_an_elementwise_output_as_it_was_made(algo):
    spec = [("matmul", (0,)), ("add", (1, 1)), ("matmul", (1,)), ("mul", (2, 2)), ("matmul", (2,))]
    machine = plan.Machine(tflops=1e-6, bandwidth=10.0, latency=0.0)
    assert _elementwise_reads(spec, machine)[0] == 1   # the cheapest plan reads the Add's output cut otherwise
    algo(elementwise_op_strategy_follow=True)
    moved, reads = _elementwise_reads(spec, machine)
    assert moved == 0 and reads == 3


@settings(max_examples=100, deadline=None)
@given(_factor_graphs())
def test_past_the_budget_the_solver_keeps_a_fitting_plan_of_the_convex_hull(graph):
    domains, factors, memory, limit = graph
    if limit is None:
        limit = 12
    exact = solve(domains, factors, memory, limit)
    got = solve(domains, factors, memory, limit, budget=0)   # the Lagrangian relaxation at once
    if exact is None:
        assert got is None
        return
    assert got is not None
    cost, picks = got
    assert sum(memory[v][c] for v, c in enumerate(picks)) <= limit
    assert cost == sum(t[tuple(picks[v] for v in s)] for s, t in factors) and cost >= exact[0]


def test_the_w4_gpt_searched_within_a_memory_limit():
    # AUTO_PARALLEL on (2, 4) with a per-rank limit halfway between the least a plan holds and what the fastest
    # plan holds: a plan within it (the Pareto fronts outgrow the budget: the convex hull's cheapest fitting plan)
    from mindseed.parallel import _demo_gpt as gpt   # noqa: PLC0415
    mesh = DeviceMesh((2, 4))
    program = plan.record_step(gpt.GPT(), gpt.inputs(), abstract=True)[0]
    layouts = list(zip(gpt.inputs(), gpt.dataset_strategy(2)))
    machine = plan.Machine(tflops=1.0, bandwidth=10.0)
    free = search(program, mesh, layouts, machine, "dynamic_programming")
    model = _Model(program, mesh, layouts, machine, False)
    least = sum(min(h) for h in model.tables()[2])
    most = model.path_memory(free.picks)
    limit = (least + most) / 2
    found = search(program, mesh, layouts, machine, "dynamic_programming", memory=limit)
    held = model.path_memory(found.picks)
    print(f"W4 GPT on (2, 4): {most} B a rank for the fastest plan ({1e3 * free.cost:.4f} ms), {held} B within "
          f"{limit:.0f} B ({1e3 * found.cost:.4f} ms); the least a plan holds: {least} B")
    assert least < most and held <= limit < most
    assert found.cost >= free.cost and found.cost == pytest.approx(model.path_cost(found.picks), rel=1e-12)
    execute(found.program, ShapeWorld(8), layouts, search=False)   # the plan runs
