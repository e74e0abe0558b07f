"""AUTO_PARALLEL: a strategy for every forward operator, searched with a cost model over a device mesh.

`search(program, mesh, ...)` picks, for each forward primitive call with a sharding rule, which mesh axes cut
each factor of its rule (`_spmd.Assignment`); the backward calls take their cuts from the forward ones as in
semi-auto parallel (`_spmd.execute`). The cost of a choice (seconds on one rank, `plan.Machine`):

* compute: the call's floating-point operations on its shards, three times (forward, and the two products of the
  backward pass);
* redistribution: for each tensor input produced by an earlier forward call (or given: the dataset strategy),
  the collectives from the producer's output layout to the layout this choice needs (`_redistribute.plan`),
  twice (the gradient goes back the same way);
* gradient synchronisation: a Parameter input's gradient is a partial sum over the mesh axes that cut factors
  the parameter does not carry (data parallel): one AllReduce of its shard.

Search modes (``set_auto_parallel_context(search_mode=...)``):

* ``"dynamic_programming"``: dynamic programming over the chain of forward calls (Viterbi): for every call and
  every candidate, the cheapest choices of the calls before it; an input from a call further back is costed with
  that call's choice on the same path. Calls the user sharded keep their strategy.
* ``"recursive_programming"``: the same, over the candidates that use every mesh axis (MindSpore's recursive
  programming partitions the whole device set; the algo parameter ``fully_use_devices`` asks the same of the
  dynamic programming).
* ``"sharding_propagation"``: the user's strategies are fixed and the others are chosen from them outward, as
  the same dynamic programming with the user's calls pinned.

`_spmd.execute` searches when the context's ``parallel_mode`` is ``"auto_parallel"``; `plan.plan_step(...,
search_mode=...)` runs the searched program (on a `ShapeWorld` or the simulated ranks), which gives the
communication the planner reports.
"""
import itertools
import math

from mindseed.common._parallel import get_auto_parallel_context
from mindseed.common._search_contexts import get_algo_parameters
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.parallel._redistribute import plan
from mindseed.parallel._layout import DeviceMesh
from mindseed.parallel._spmd import (Assignment, Call, Program, _Executor, call_flops, call_layouts, execute,
                                     given_layouts, propagated)
from mindseed.parallel._world import ShapeWorld, sent_bytes

__all__ = ["SEARCH_MODES", "SearchResult", "search", "forward_calls", "default_mesh"]

SEARCH_MODES = ("dynamic_programming", "recursive_programming", "sharding_propagation")


def forward_calls(program):
    """The number of calls of the forward pass: up to the one producing the program's first output (the loss)."""
    if not program.outputs:
        return len(program.calls)
    loss = id(program.outputs[0])
    for i, c in enumerate(program.calls):
        if any(id(o) == loss for o in c.outs):
            return i + 1
    return len(program.calls)


class SearchResult:
    """The searched `program` (its forward calls carry their `Assignment`s: `choices`, by call index) and the
    estimated `cost` (seconds) of the search's model."""

    def __init__(self, program, choices, cost):
        self.program, self.choices, self.cost = program, choices, cost


def default_mesh(size):
    """The mesh AUTO_PARALLEL searches over without one given: (2, size / 2) for an even size above 2 (every
    operator may cut two factors, or one factor over all ranks), else (size,)."""
    shape = (2, size // 2) if size > 2 and size % 2 == 0 else (size,)
    return DeviceMesh(shape, ("x", "y")[:len(shape)])


def _rule(call):
    return None if call.prim.sharding is None else call.prim.sharding(*call.args, **call.attrs)


def _candidates(call, rule, mesh, full):
    """Every assignment of the mesh axes to the cuttable factors of `rule` that divides the call's dims."""
    tensors = [(dims, a.shape) for dims, a in zip(rule.ins, call.args) if dims is not None and isinstance(a, Tensor)]
    tensors += [(dims, o.shape) for dims, o in zip(rule.outs, call.outs)]
    sizes = {}
    for dims, shape in tensors:
        for f, n in zip(dims, shape):
            if f is not None and f not in rule.whole:
                sizes[f] = math.gcd(sizes.get(f, n), n)
    factors = sorted(sizes)
    out = []
    for pick in itertools.product([None] + factors, repeat=len(mesh.shape)):
        if full and None in pick and len(factors):
            continue
        assign = {}
        for axis, f in enumerate(pick):
            if f is not None and mesh.shape[axis] > 1:
                assign[f] = assign.get(f, ()) + (axis,)
        if all(sizes[f] % math.prod(mesh.shape[a] for a in axes) == 0 for f, axes in assign.items()):
            if assign not in out:
                out.append(assign)
    return out or [{}]


class _Costs:
    def __init__(self, world_size, machine):
        self.machine, self.size = machine, world_size
        self.memo = {}

    def move(self, src, dst, itemsize):
        key = (src, dst, itemsize)
        if key not in self.memo:
            r = plan(src, dst, itemsize)
            self.memo[key] = sum(self.machine.comm_seconds([s]) for s in _records(r))
        return self.memo[key]


class _Rec:
    __slots__ = ("sent_bytes",)

    def __init__(self, b):
        self.sent_bytes = b


def _records(redistribution):
    return [_Rec(sent_bytes(s.kind, s.group_size, s.input_bytes)) for s in redistribution.collectives()]


def search(program, mesh, layouts=None, machine=None, mode=None, reads=()):
    """Strategies for the forward calls of `program` on `mesh` (a DeviceMesh of the world's ranks).

    Args:
        program (Program): from `_spmd.record`.
        mesh (DeviceMesh): the devices and their axes.
        layouts (Sequence): the given (Tensor, layout) pairs, as for `execute` (the dataset strategy).
        machine (plan.Machine): the figures of the cost model. Default: `plan.Machine()`.
        mode (str): one of `SEARCH_MODES`. Default: the context's ``search_mode``.
        reads (Sequence): (gradient, Parameter) pairs of the program: the gradients are read in their parameters'
            layouts when whole plans are compared.

    Returns:
        SearchResult.

    Raises:
        ValueError: an unknown search mode.
    """
    from mindseed.parallel.plan import Machine  # noqa: PLC0415  (plan imports this module's users)
    mode = get_auto_parallel_context("search_mode") if mode is None else mode
    if mode not in SEARCH_MODES:
        raise ValueError(f"For 'search', the search_mode must be one of {', '.join(SEARCH_MODES)}, but got {mode!r}.")
    machine = machine or Machine()
    full = mode == "recursive_programming" or get_algo_parameters("fully_use_devices")
    costs = _Costs(mesh.size, machine)
    given = given_layouts(layouts, mesh.size)
    helper = _Executor(ShapeWorld(mesh.size), {})
    n_forward = forward_calls(program)
    producer = {}   # id(tensor) -> (step index, output index)
    steps = []      # (call index, call, rule, options: (assign, mesh) or FOLLOW)
    for ci, call in enumerate(program.calls[:n_forward]):
        rule = _rule(call)
        if rule is None:
            continue
        if call.strategy and call.strategy[0]:
            op_mesh, assign = helper._from_strategy(call, rule) if not isinstance(call.strategy[0], Assignment) \
                else (call.strategy[0].mesh, call.strategy[0].assign)
            options = [(assign, op_mesh)]
        else:  # the cuts of its inputs (the propagation of semi-auto parallel), or a cut of the mesh's axes
            options = [_FOLLOW] + [(a, mesh) for a in _candidates(call, rule, mesh, full)]
        for k, o in enumerate(call.outs):
            producer[id(o)] = (len(steps), k)
        steps.append((ci, call, rule, options))

    def own_cost(call, rule, op_mesh, assign, before):
        ins, outs, _ = call_layouts(call, rule, op_mesh, assign)
        own = machine.compute_seconds(3 * call_flops(call, rule, list(ins.values()), outs))
        for i, lay in ins.items():
            a = call.args[i]
            if isinstance(a, Parameter):
                carried = {ax for d in lay.dims for ax in d}
                synced = tuple(ax for axes in assign.values() for ax in axes if ax not in carried)
                if synced:
                    group = math.prod(op_mesh.shape[ax] for ax in synced)
                    local = math.prod(lay.local_shape) * a.itemsize
                    own += machine.comm_seconds([_Rec(sent_bytes("AllReduce", group, local))])
            elif id(a) in given and (id(a) not in producer or producer[id(a)][0] >= before):
                own += costs.move(given[id(a)], lay, a.itemsize)
        return ins, outs, own

    # Viterbi over the chain: best[s][c] = (cost, back pointer, mesh, assign, output layouts)
    best = []
    for s, (_, call, rule, options) in enumerate(steps):
        row = []
        prev = best[-1] if best else [(0.0, None, None, None, None)]
        paths = [_path(best, s - 1, pc) if best else {} for pc in range(len(prev))]
        fixed = {c: own_cost(call, rule, o[1], o[0], s) for c, o in enumerate(options) if o is not _FOLLOW}
        for c, option in enumerate(options):
            top = None
            for pc in range(len(prev)):
                path = paths[pc]
                srcs = []
                for a in call.args:
                    src = producer.get(id(a)) if isinstance(a, Tensor) else None
                    srcs.append(None if src is None or src[0] >= s else best[src[0]][path[src[0]]][4][src[1]])
                if option is _FOLLOW:
                    op_mesh, assign = propagated(call, rule, srcs, mesh.size)
                    ins, outs, own = own_cost(call, rule, op_mesh, assign, s)
                else:
                    assign, op_mesh = option
                    ins, outs, own = fixed[c]
                cost = prev[pc][0] + own
                for i, lay in ins.items():
                    if srcs[i] is not None and srcs[i].mesh.size == lay.mesh.size:
                        cost += 2 * costs.move(srcs[i], lay, call.args[i].itemsize)
                if top is None or cost < top[0]:
                    top = (cost, pc, op_mesh, assign, outs)
            row.append(top)
        best.append(row)
    if not steps:
        return SearchResult(program, {}, 0.0)
    last = min(range(len(best[-1])), key=lambda c: best[-1][c][0])
    path = _path(best, len(steps) - 1, last)
    choices = {steps[s][0]: Assignment(best[s][c][2], best[s][c][3]) for s, c in path.items()}
    calls = [Call(c.prim, c.args, c.attrs, c.out, (choices[i], None)) if i in choices else c
             for i, c in enumerate(program.calls)]
    searched = Program(calls, program.args, program.outputs, program.result)
    if any(c.strategy and c.strategy[0] for c in program.calls[:n_forward]):
        # the user's strategies alone (the other calls propagated) are a plan too: keep the cheaper of the two, as
        # the whole program runs them (the chain model is an estimate)
        mine, theirs = (_run_cost(p, mesh, layouts, machine, reads) for p in (searched, program))
        if theirs < mine:
            return SearchResult(program, {}, theirs)
    return SearchResult(searched, choices, best[-1][last][0])


def _run_cost(program, mesh, layouts, machine, reads):
    """Seconds of one step of `program` run on a ShapeWorld: its operations and its collectives, with the gradients
    of `reads` brought to their parameters' layouts."""
    ex = execute(program, ShapeWorld(mesh.size), layouts)
    for g, p in reads:
        ex.value(g, ex.layout_of(p))
    return machine.compute_seconds(3 * sum(p.flops for p in ex.plans[:forward_calls(program)])) + \
        machine.comm_seconds(ex.world.log)


_FOLLOW = "follow"   # an option: the cuts the call's inputs bring


def _path(best, s, c):
    """{step: candidate} of the cheapest chain ending with candidate `c` at step `s`."""
    out = {}
    while s >= 0 and c is not None:
        out[s] = c
        c = best[s][c][1]
        s -= 1
    return out
