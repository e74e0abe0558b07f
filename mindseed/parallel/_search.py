"""AUTO_PARALLEL: a strategy for every forward operator, searched with a cost model over a device mesh.

`search(program, mesh, ...)` picks, for each forward primitive call with a sharding rule, which mesh axes cut
each factor of its rule (`_spmd.Assignment`); the backward calls run in their forward calls' cuts (`_spmd.execute`).
The cost of a choice (seconds on one rank, `plan.Machine`; `_Model`):

* compute: the call's floating-point operations on its shards, three times (forward, and the two products of the
  backward pass);
* forward redistribution: for each tensor input produced by an earlier forward call (or given: the dataset
  strategy), the collectives from the producer's output layout to the layout this choice needs
  (`_redistribute.plan`);
* backward redistribution, per primitive: the gradient of each produced input that carries one is a partial sum
  over the mesh axes cutting factors the input does not carry (`_gradient_layout`), brought back to the producer's
  output layout (its partial sums dropped: the gradient of a sum is the same on every rank of it);
* gradient synchronisation: a Parameter input's gradient is a partial sum over the same axes (data parallel): one
  AllReduce of its shard.

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

import numpy as np

from mindseed.common._parallel import get_auto_parallel_context
from mindseed.common import dtype as mstype
from mindseed.common._search_contexts import get_algo_parameters
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.parallel._cost_model_context import cost_model_context
from mindseed.parallel._elimination import solve
from mindseed.parallel._redistribute import plan
from mindseed.parallel._layout import DeviceMesh, TensorLayout
from mindseed.ops._sharding import elementwise
from mindseed.parallel._spmd import (Assignment, Call, Program, _Executor, call_flops, call_layouts, execute,
                                     forward_calls, given_layouts, propagated)
from mindseed.parallel._world import ShapeWorld, sent_bytes

__all__ = ["SEARCH_MODES", "SearchResult", "search", "forward_calls", "default_mesh"]

SEARCH_MODES = ("dynamic_programming", "recursive_programming", "sharding_propagation")


class SearchResult:
    """The searched `program` (its forward calls carry their `Assignment`s: `choices`, by call index) and the
    estimated `cost` (seconds) of the search's model."""

    def __init__(self, program, choices, cost, picks=()):
        self.program, self.choices, self.cost = program, choices, cost
        self.picks = tuple(picks)   # per searched step, the index of the option taken (`_Model.steps`)


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
    haloed = {h.factor for h in rule.halos}   # cuts exchanging overlaps (a convolution's rows): not in the model
    for dims, shape in tensors:
        for f, n in zip(dims, shape):
            if f is not None and f not in rule.whole and f not in haloed:
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


def _aligned(call, rule, mesh, candidates):
    """`set_algo_parameters(tensor_slice_align_enable=True)`: the candidates of a MatMul whose tensors' last dims are
    cut into slices that are multiples of ``tensor_slice_align_size`` (the others are left; without any, the
    MatMul runs whole)."""
    if not get_algo_parameters("tensor_slice_align_enable") or call.prim.name not in ("MatMul", "BatchMatMul"):
        return candidates
    size = get_algo_parameters("tensor_slice_align_size")
    kept = []
    for assign in candidates:
        ins, outs, _ = call_layouts(call, rule, mesh, assign)
        if all(not lay.local_shape or lay.local_shape[-1] % size == 0 for lay in list(ins.values()) + outs):
            kept.append(assign)
    return kept or [{}]


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


def _gradient_layout(rule, i, layout, assign):
    """The layout in which the backward pass produces the gradient of input `i` of a call that ran with `assign`:
    the input's cuts, and partial sums over the mesh axes that cut factors the input does not carry (MatMul's dx
    = dy @ w.T sums over the cut output features; a broadcast operand's gradient sums over the cut batch)."""
    mine = set(rule.ins[i])
    partial = tuple(ax for f, axes in assign.items() if f not in mine for ax in axes)
    return TensorLayout(layout.mesh, layout.shape, layout.dims, partial)


def _sync_allreduce(call, rule, mesh, assign):
    """(group size, bytes of one rank) of the AllReduce of a call's shared statistics (`ShardingRule.sync`, as
    `_spmd._Executor._store_synced` runs it) under `assign`, or None (no statistics, or their factors uncut)."""
    sync = rule.sync
    axes = [] if sync is None else [a for f in sorted(sync.factors) for a in assign.get(f, ())]
    if not axes:
        return None
    sizes = {f: n for dims, a in zip(rule.ins, call.args) if dims and isinstance(a, Tensor)
             for f, n in zip(dims, a.shape) if f}
    local = math.prod(sizes[f] // math.prod(mesh.shape[a] for a in assign.get(f, ())) if isinstance(f, str) else f
                      for f in sync.dims)
    return math.prod(mesh.shape[a] for a in axes), local * call.outs[0].itemsize


def _whole_sums(layout):
    """`layout` without its partial axes: the gradient of a partial sum is the same on every rank of the sum."""
    return layout if not layout.partial else TensorLayout(layout.mesh, layout.shape, layout.dims)


class _Model:
    """The cost model of the search over the forward calls of a program (see the module docstring): `options`
    per step, `step_cost` of one step's choice given the output layouts of the steps before, and `path_cost`
    of a whole assignment (what the dynamic programming minimises, and an exhaustive enumeration checks)."""

    def __init__(self, program, mesh, layouts, machine, full):
        self.mesh, self.machine = mesh, machine
        self.costs = _Costs(mesh.size, machine)
        self.given = given_layouts(layouts, mesh.size)
        helper = _Executor(ShapeWorld(mesh.size), {})
        self.producer = {}   # id(tensor) -> (step index, output index)
        self.steps = []      # (call index, call, rule, options: (assign, mesh) or _FOLLOW)
        self.tracked = set()  # ids of the values a gradient flows back through (they depend on a Parameter)
        self.fixed = {}      # (step, option) -> what `_own` gives for a fixed assignment
        self.grads = {}      # (step, mesh, assign) -> {argument index: its gradient's layout}
        self.whole_sums = {}  # layout -> the layout without its partial axes
        self.first_reader = {}  # id(Parameter) -> the step reading it first
        for ci, call in enumerate(program.calls[:forward_calls(program)]):
            rule = _rule(call)
            if rule is None:
                continue
            if call.strategy and call.strategy[0]:
                op_mesh, assign = helper._from_strategy(call, rule) \
                    if not isinstance(call.strategy[0], Assignment) else (call.strategy[0].mesh,
                                                                          call.strategy[0].assign)
                options = [(assign, op_mesh)]
            else:  # the cuts of its inputs (the propagation of semi-auto parallel), or a cut of the mesh's axes
                # (using every axis: no following, which may leave axes unused)
                options = ([] if full else [_FOLLOW]) + [(a, mesh) for a in _aligned(
                    call, rule, mesh, _candidates(call, rule, mesh, full))]
            if any(isinstance(a, Parameter) or id(a) in self.tracked for a in call.args):
                self.tracked.update(id(o) for o in call.outs if mstype.is_float(o.dtype))
            for a in call.args:
                if isinstance(a, Parameter):
                    self.first_reader.setdefault(id(a), len(self.steps))
            for k, o in enumerate(call.outs):
                self.producer[id(o)] = (len(self.steps), k)
            self.steps.append((ci, call, rule, options))
        # the backward pass: per produced value carrying a gradient, the (step, argument) pairs reading it
        self.readers, self.read_by = {}, [set() for _ in self.steps]
        for s, (_, call, _, _) in enumerate(self.steps):
            for i, a in enumerate(call.args):
                if isinstance(a, Tensor) and id(a) in self.tracked and self.producer.get(id(a), (s,))[0] < s:
                    self.readers.setdefault(id(a), (a, []))[1].append((s, i))
                    self.read_by[s].add((id(a), i))
        if get_algo_parameters("enable_algo_approxi"):
            self._approximate(int(1 / get_algo_parameters("algo_approxi_epsilon")))

    def _approximate(self, keep):
        """`set_algo_parameters(enable_algo_approxi=True)`: each step keeps at most `keep` of its candidate
        strategies (1 / ``algo_approxi_epsilon``), the cheapest by their own cost, besides following its inputs."""
        for s, (ci, call, rule, options) in enumerate(self.steps):
            fixed = [o for o in options if o is not _FOLLOW]
            if len(fixed) <= keep or len(options) == 1:
                continue
            fixed.sort(key=lambda o, s=s: self._own(s, o[1], o[0])[2])
            self.steps[s] = (ci, call, rule, [o for o in options if o is _FOLLOW] + fixed[:max(keep, 1)])

    def sources(self, s, outs_of):
        """Per argument of step `s`'s call, the output layout of the earlier step producing it (None: a leaf, a
        Python value or a later step), read from `outs_of(step)`."""
        srcs = []
        for a in self.steps[s][1].args:
            src = self.producer.get(id(a)) if isinstance(a, Tensor) else None
            srcs.append(None if src is None or src[0] >= s else outs_of(src[0])[src[1]])
        return srcs

    def _own(self, s, op_mesh, assign):
        """(input layouts, output layouts, seconds) of step `s` with its factors cut by `assign`: its compute,
        the gradient synchronisation of its Parameters and the moves of its given (dataset) inputs."""
        _, call, rule, _ = self.steps[s]
        machine = self.machine
        ins, outs, _ = call_layouts(call, rule, op_mesh, assign)
        own = machine.compute_seconds(3 * call_flops(call, rule, list(ins.values()), outs))
        synced = _sync_allreduce(call, rule, op_mesh, assign)
        if synced is not None:   # the statistics all-reduced forward, and again by the gradient (BatchNorm)
            own += 2 * machine.comm_seconds([_Rec(sent_bytes("AllReduce", *synced))])
        for i, lay in ins.items():
            a = call.args[i]
            if isinstance(a, Parameter):
                synced = _gradient_layout(rule, i, lay, assign).partial
                if synced:
                    group = math.prod(op_mesh.shape[ax] for ax in synced)
                    local = math.prod(lay.local_shape) * a.itemsize
                    own += machine.comm_seconds([_Rec(sent_bytes("AllReduce", group, local))])
            elif id(a) in self.given and (id(a) not in self.producer or self.producer[id(a)][0] >= s):
                own += self.costs.move(self.given[id(a)], lay, a.itemsize)
        return ins, outs, own

    def step_cost(self, s, c, srcs):
        """(mesh, assign, output layouts, seconds) of option `c` of step `s`, its inputs produced in the layouts
        `srcs`: its own cost, each produced input moved to the layout the step needs, and in the backward pass
        the gradient of each produced input that carries one brought back to its producer's output layout."""
        _, call, rule, options = self.steps[s]
        option = options[c]
        if option is _FOLLOW:
            op_mesh, assign = propagated(call, rule, srcs, self.mesh.size)
            ins, outs, cost = self._own(s, op_mesh, assign)
        else:
            assign, op_mesh = option
            if (s, c) not in self.fixed:
                self.fixed[s, c] = self._own(s, op_mesh, assign)
            ins, outs, cost = self.fixed[s, c]
        for i, lay in ins.items():
            src = srcs[i]
            if src is None or src.mesh.size != lay.mesh.size:
                continue
            cost += self.costs.move(src, lay, call.args[i].itemsize)
        return op_mesh, assign, outs, cost

    def gradient_layouts(self, s, op_mesh, assign):
        """{argument index: the layout in which the backward pass produces the gradient of that input} of step `s`
        under `assign`, for its inputs that are produced earlier and carry a gradient."""
        _, call, rule, _ = self.steps[s]
        key = (s, op_mesh, tuple(sorted(assign.items())))
        if key not in self.grads:
            ins, _, _ = call_layouts(call, rule, op_mesh, assign)
            self.grads[key] = {i: _gradient_layout(rule, i, lay, assign) for i, lay in ins.items()
                               if (id(call.args[i]), i) in self.read_by[s]}
        return self.grads[key]

    def backward_cost(self, value, src, gradients):
        """Seconds of bringing the gradient of the produced `value` (made in layout `src`) back to `src`, its readers
        producing their parts in `gradients`, as the executor runs it: the backward Adds of the parts run in
        `value`'s layout (`_spmd._Executor._sum_where_made`), except that parts in one layout of partial sums add up
        there first (a sum of partial sums stays a partial sum: `_spmd.LINEAR`), so each distinct layout moves once."""
        if src not in self.whole_sums:
            self.whole_sums[src] = _whole_sums(src)
        target = self.whole_sums[src]
        return sum(self.costs.move(g, target, value.itemsize) for g in dict.fromkeys(
            g for g in gradients if g.mesh.size == src.mesh.size))

    def producers(self, s):
        """The earlier steps producing an input of step `s`, ascending."""
        found = {self.producer[id(a)][0] for a in self.steps[s][1].args
                 if isinstance(a, Tensor) and id(a) in self.producer}
        return sorted(k for k in found if k < s)

    def held_bytes(self, s, op_mesh, assign):
        """Bytes one rank holds for step `s` under `assign`: the shards of the Parameters it reads first and of its
        outputs (kept for the backward pass)."""
        _, call, rule, _ = self.steps[s]
        ins, outs, _ = call_layouts(call, rule, op_mesh, assign)
        held = sum(math.prod(lay.local_shape) * o.itemsize for lay, o in zip(outs, call.outs))
        for i, lay in ins.items():
            a = call.args[i]
            if isinstance(a, Parameter) and self.first_reader.get(id(a)) == s:
                held += math.prod(lay.local_shape) * a.itemsize
        return held

    def tables(self):
        """The search as a sum of cost tables (`_elimination.solve`): per step its choices (`_Choice`: every fixed
        option, and each strategy its "follow" option resolves to for some choice of its producers), one table
        per step over it and its producers (seconds of `step_cost`; a "follow" choice costs inf where the
        producers' layouts do not lead to it), and the bytes each choice holds (`held_bytes`)."""
        domains, factors, held = [], [], []
        follow = get_algo_parameters("elementwise_op_strategy_follow")
        for s, step in enumerate(self.steps):
            options, prods = step[3], self.producers(s)
            # the producers' choices grouped by their output layouts (what step s sees of them)
            groups, index = [], []
            for p in prods:
                keys, idx = [], []
                for r in domains[p]:
                    if r.outs not in keys:
                        keys.append(r.outs)
                    idx.append(keys.index(r.outs))
                groups.append(keys)
                index.append(np.asarray(idx))
            combos = list(itertools.product(*(range(len(g)) for g in groups)))
            choices, seen = [], set()
            cost = {}
            for combo in combos:
                outs_of = dict(zip(prods, (groups[j][g] for j, g in enumerate(combo))))
                srcs = self.sources(s, lambda k, outs_of=outs_of: outs_of[k])
                for c, option in enumerate(options):
                    op_mesh, assign, outs, seconds = self.step_cost(s, c, srcs)
                    key = (c, op_mesh, tuple(sorted(assign.items())))
                    if key not in seen:
                        seen.add(key)
                        choices.append(_Choice(c, op_mesh, assign, tuple(outs), option is _FOLLOW))
                    cost[combo, key] = seconds
            keys = [(r.option, r.mesh, tuple(sorted(r.assign.items()))) for r in choices]
            table = np.full([len(choices)] + [len(g) for g in groups], np.inf)
            for combo in combos:
                for k, key in enumerate(keys):
                    table[(k,) + combo] = cost.get((combo, key), np.inf)
            if follow:  # an elementwise producer's strategy is its consumer's: the consumer reads its output as is
                self._follow_elementwise(s, prods, groups, choices, table)
            if prods:
                table = table[np.ix_(np.arange(len(choices)), *index)]
            domains.append(choices)
            factors.append(((s,) + tuple(prods), table))
            held.append([self.held_bytes(s, r.mesh, r.assign) for r in choices])
        for value, readers in self.readers.values():
            factors.append(self._backward_table(domains, value, readers))
        return domains, factors, held

    def _backward_table(self, domains, value, readers):
        """The factor of `value`'s gradient (`backward_cost`) over its producer's and its readers' choices."""
        p, k = self.producer[id(value)]
        steps = sorted({s for s, _ in readers})
        srcs, src_index = [], []
        for r in domains[p]:
            if r.outs[k] not in srcs:
                srcs.append(r.outs[k])
            src_index.append(srcs.index(r.outs[k]))
        # per reader step: its choices grouped by the gradient layouts of its arguments reading `value`
        kinds, kind_index = [], []
        for s in steps:
            mine = [i for t, i in readers if t == s]
            keys, idx = [], []
            for r in domains[s]:
                g = self.gradient_layouts(s, r.mesh, r.assign)
                key = tuple(g.get(i) for i in mine)
                if key not in keys:
                    keys.append(key)
                idx.append(keys.index(key))
            kinds.append(keys)
            kind_index.append(np.asarray(idx))
        table = np.zeros([len(srcs)] + [len(kd) for kd in kinds])
        for combo in itertools.product(*(range(len(kd)) for kd in kinds)):
            gradients = [g for kd, j in zip(kinds, combo) for g in kd[j] if g is not None]
            for x, src in enumerate(srcs):
                table[(x,) + combo] = self.backward_cost(value, src, gradients)
        return (p,) + tuple(steps), table[np.ix_(np.asarray(src_index), *kind_index)]

    def _follow_elementwise(self, s, prods, groups, choices, table):
        """`set_algo_parameters(elementwise_op_strategy_follow=True)`: rule out (inf) the choices of step `s` that
        read the output of an elementwise producer in another layout than it made it (partial sums aside)."""
        _, call, rule, _ = self.steps[s]
        for j, p in enumerate(prods):
            if self.steps[p][1].prim.sharding is not elementwise:
                continue
            for k, r in enumerate(choices):
                ins, _, _ = call_layouts(call, rule, r.mesh, r.assign)
                for g, outs in enumerate(groups[j]):
                    for i, a in enumerate(call.args):
                        src = self.producer.get(id(a)) if isinstance(a, Tensor) else None
                        if src is None or src[0] != p or i not in ins:
                            continue
                        made = outs[src[1]]
                        if TensorLayout(made.mesh, made.shape, made.dims) != ins[i]:
                            index = [slice(None)] * table.ndim
                            index[0], index[1 + j] = k, g
                            table[tuple(index)] = np.inf

    def path_memory(self, picks):
        """Bytes one rank holds when step `s` takes option `picks[s]` (`held_bytes`)."""
        outs, total = [], 0
        for s, c in enumerate(picks):
            op_mesh, assign, out, _ = self.step_cost(s, c, self.sources(s, lambda k: outs[k]))
            outs.append(out)
            total += self.held_bytes(s, op_mesh, assign)
        return total

    def path_cost(self, picks):
        """Seconds of the model when step `s` takes option `picks[s]`."""
        outs, total, grads = [], 0.0, []
        for s, c in enumerate(picks):
            op_mesh, assign, out, cost = self.step_cost(s, c, self.sources(s, lambda k: outs[k]))
            outs.append(out)
            grads.append(self.gradient_layouts(s, op_mesh, assign))
            total += cost
        for value, readers in self.readers.values():
            p, k = self.producer[id(value)]
            total += self.backward_cost(value, outs[p][k], [grads[s][i] for s, i in readers])
        return total


def search(program, mesh, layouts=None, machine=None, mode=None, reads=(), memory=None):
    """Strategies for the forward calls of `program` on `mesh` (a DeviceMesh of the world's ranks).

    Args:
        program (Program): from `_spmd.record`.
        mesh (DeviceMesh): the devices and their axes.
        layouts (Sequence): the given (Tensor, layout) pairs, as for `execute` (the dataset strategy).
        machine (plan.Machine): the figures of the cost model. Default: `plan.Machine()`.
        mode (str): one of `SEARCH_MODES`. Default: the context's ``search_mode``.
        reads (Sequence): (gradient, Parameter) pairs of the program: the gradients are read in their parameters'
            layouts when whole plans are compared.
        memory (float): the bytes a rank may hold (its Parameters' shards and the forward calls' outputs kept for
            the backward pass): plans above it are ruled out. Default: the cost model context's
            ``device_memory_capacity`` (`_cost_model_context`, 16 GiB as MindSpore's).

    Returns:
        SearchResult.

    Raises:
        ValueError: an unknown search mode.
        RuntimeError: no plan fits the memory.
    """
    from mindseed.parallel.plan import Machine  # noqa: PLC0415  (plan imports this module's users)
    mode = get_auto_parallel_context("search_mode") if mode is None else mode
    if mode not in SEARCH_MODES:
        raise ValueError(f"For 'search', the search_mode must be one of {', '.join(SEARCH_MODES)}, but got {mode!r}.")
    machine = machine or Machine()
    full = mode == "recursive_programming" or get_algo_parameters("fully_use_devices")
    model = _Model(program, mesh, layouts, machine, full)
    steps = model.steps
    n_forward = forward_calls(program)
    if not steps:
        return SearchResult(program, {}, 0.0)
    limit = cost_model_context().get("device_memory_capacity") if memory is None else memory
    domains, factors, held = model.tables()
    found = solve([len(d) for d in domains], factors, held, limit)
    if found is None:
        least = sum(min(m) for m in held)
        if least <= limit:
            raise RuntimeError("For the strategy search, no plan satisfies the algo parameters' constraints "
                               "(set_algo_parameters: elementwise_op_strategy_follow, tensor_slice_align_enable).")
        raise RuntimeError(f"For the strategy search, no strategy of the step fits the device memory capacity "
                           f"{limit:.0f} bytes per rank: the plan holding the least needs {least:.0f} bytes.")
    cost, picks = found
    chosen = [domains[s][c] for s, c in enumerate(picks)]
    choices = {steps[s][0]: Assignment(r.mesh, r.assign) for s, r in enumerate(chosen)}
    calls = [Call(c.prim, c.args, c.attrs, c.out, (choices[i], None)) if i in choices else c
             for i, c in enumerate(program.calls)]
    searched = Program(calls, program.args, program.outputs, program.result, program.differentiates, program.sums)
    searched.graph, searched.updates = program.graph, program.updates
    if any(c.strategy and c.strategy[0] for c in program.calls[:n_forward]):
        # the user's strategies alone (the other calls propagated) are a plan too: keep the cheaper of the two, as
        # the whole program runs them (the chain model is an estimate)
        mine, theirs = (_run_cost(p, mesh, layouts, machine, reads) for p in (searched, program))
        if theirs < mine:
            return SearchResult(program, {}, theirs)
    return SearchResult(searched, choices, cost, [r.option for r in chosen])


def _run_cost(program, mesh, layouts, machine, reads):
    """Seconds of one step of `program` run on a ShapeWorld: its operations and its collectives, with the gradients
    of `reads` brought to their parameters' layouts."""
    ex = execute(program, ShapeWorld(mesh.size), layouts, search=False)
    for g, p in reads:
        ex.value(g, ex.layout_of(p))
    return machine.compute_seconds(3 * sum(p.flops for p in ex.plans[:forward_calls(program)])) + \
        machine.comm_seconds(ex.world.log)


_FOLLOW = "follow"   # an option: the cuts the call's inputs bring


class _Choice:
    """One choice of a step in the search's tables: its option (an index of the step's options), the strategy it
    runs (mesh, assign) and its outputs' layouts; `follows`: the "follow" option resolved to this strategy."""

    __slots__ = ("option", "mesh", "assign", "outs", "follows")

    def __init__(self, option, mesh, assign, outs, follows):
        self.option, self.mesh, self.assign, self.outs, self.follows = option, mesh, assign, outs, follows
