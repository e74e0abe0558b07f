"""Sharded execution: a program of primitive calls run on the shards of N ranks, with the communication between.

`record(fn, *args)` runs `fn` once on whole tensors (PyNative) and keeps every primitive call it makes, the
backward pass of a `value_and_grad` included (its bprops are primitive calls too), with the strategy of the
class-API operator (`ops.MatMul().shard(...)`) that made it. `execute(program, world, ...)` runs the calls
again on a world of ranks, every rank on its shards:

* a call's strategy fixes the cuts of the factors of the primitive's sharding rule (`ops._sharding`) and the
  operator's device matrix (the cut factors, then the repeated-calculation axis, as MindSpore builds it);
  without a strategy the cuts come from the inputs (the mesh of the most-cut input; a factor takes the first cut
  offered), which carries the forward strategies into the backward calls;
* inputs are redistributed to the cuts the call needs (`_redistribute.plan`); a partial-sum input is reduced,
  with ReduceScatter when the call wants that axis cutting a dim;
* the kernel runs per rank with the local attributes (`ShardingRule.localize`); a contracted factor that is cut
  leaves its outputs as partial sums (a mean is scaled by 1/cuts); `out_strategy` redistributes the outputs;
* a primitive without a sharding rule runs on whole tensors on every rank (its inputs gathered): correct,
  listed in `Execution.whole_calls`.

Leaves (arguments of the program, parameters, constants) are on every rank from the start: a leaf without a
given layout is cut as its first consumer needs, free of communication (MindSpore slices parameters at
initialization the same way); a leaf with a given layout (the dataset strategy of an input) starts there.
"""
import contextlib
import math

import numpy as np

from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common._parallel import GlobalComm, get_auto_parallel_context, group_info_file, partitioner_recording
from mindseed.common._shard_layout import Layout
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.ops._registry import cast_policies
from mindseed.nn._shard import planned_parameters
from mindseed.ops.operations._base import scope_strategy
from mindseed.parallel._layout import DeviceMesh, TensorLayout, _format_strategy, optimizer_shard, shard_array
from mindseed.parallel import _operator_strategy
from mindseed.parallel._redistribute import plan
from mindseed.parallel._world import group_name

__all__ = ["Call", "Program", "record", "DistValue", "Execution", "execute", "Assignment", "call_layouts",
           "StrategyError", "ShapeUnknownError",
           "linear_partial", "UNARY_LINEAR",
           "call_flops", "propagated", "forward_calls", "local_shards"]


class StrategyError(ValueError, RuntimeError):
    """A strategy the operator cannot run with (wrong number of tuples, a cut of a dim the operator needs whole,
    matched dims cut differently, more devices than the world). MindSpore reports it from its compiler as a
    RuntimeError; mindseed's planner has raised ValueError: it is both."""


class ShapeUnknownError(ValueError):
    """An abstract recording met a primitive whose output shape only its input values decide."""


class Call:
    """One recorded primitive call: the primitive, its arguments (Tensors or Python values), its attributes,
    its output(s) and the (in_strategy, out_strategy) of the operator that made it (None: none)."""

    __slots__ = ("prim", "args", "attrs", "out", "strategy")

    def __init__(self, prim, args, attrs, out, strategy):
        self.prim, self.args, self.attrs, self.out, self.strategy = prim, args, attrs, out, strategy

    @property
    def outs(self):
        return self.out if isinstance(self.out, tuple) else (self.out,)

    def __repr__(self):
        shapes = ", ".join(str(tuple(a.shape)) if isinstance(a, Tensor) else repr(a) for a in self.args)
        return f"{self.prim.name}({shapes})" + (f" shard{self.strategy[0]}" if self.strategy else "")


class Program:
    """The primitive calls of one run of a function, its arguments and its outputs (Tensors, flat);
    `differentiates[i]` is the output of the forward call whose bprop made call `i` (None: no bprop did); `sums[i]`
    the tensor whose gradient parts call `i` adds in the backward pass (None: no such sum); `graph` the compiler's
    graph the calls come from (`_ir.program_from_graph`; None: a recording), `updates` its (tensor, new value) state
    updates, made after the run (`_ir.apply_updates`; a recording's run made them already)."""

    def __init__(self, calls, args, outputs, result, differentiates=None, sums=None):
        self.calls, self.args, self.outputs, self.result = calls, args, outputs, result
        self.graph, self.updates = None, []
        self.differentiates = list(differentiates) if differentiates is not None else [None] * len(calls)
        self.sums = list(sums) if sums is not None else [None] * len(calls)


def forward_calls(program):
    """The number of calls of the forward pass: up to the one producing the program's first output (the loss)."""
    if not program.outputs:
        return len(program.calls)
    loss = id(program.outputs[0])
    for i, c in enumerate(program.calls):
        if any(id(o) == loss for o in c.outs):
            return i + 1
    return len(program.calls)


recording = partitioner_recording   # whether a parallel recording (`record`) is running


class _Recorder:
    """Sits on the stack of tapes while the function runs: the dispatcher offers it every primitive call."""

    records_all = True
    partitions = True   # what `recording()` looks for
    rebinds_all = True  # in-place updates (`x[i] = v`, `x.add_(y)`) rebind any tensor here (ops/functional/_core)

    def __init__(self):
        self.calls = []
        self.differentiates = []
        self.sums = []

    def record(self, prim, args, attrs, out):
        self.differentiates.append(_state.bprop_of)
        self.sums.append(_state.summing)
        self.calls.append(Call(prim, tuple(args), dict(attrs), out, scope_strategy(args)))

    # the tape protocol: a recorder tracks nothing for differentiation
    def watch(self, t):
        return None

    def is_tracked(self, t):
        return False

    def rebind(self, obj, replacement):
        """Let `replacement` stand for `obj` in the calls recorded so far (an in-place update: the calls before it
        read the old value under a new handle, the update's output becomes the tensor updated)."""
        swap = lambda x: replacement if x is obj else x  # noqa: E731
        for call in self.calls:
            if any(a is obj for a in call.args) or any(o is obj for o in call.outs):
                call.args = tuple(map(swap, call.args))
                call.out = tuple(map(swap, call.out)) if isinstance(call.out, tuple) else swap(call.out)
        self.differentiates = [swap(d) for d in self.differentiates]
        self.sums = [swap(t) for t in self.sums]


# elementwise primitives linear in all their operands together: a sum of partial sums is a partial sum
LINEAR = ("Add", "Sub")
# elementwise primitives linear in the operands listed, the others factors: a partial sum negated, or multiplied or
# divided by a value the same on every rank of the sum, is a partial sum
SCALING = {"Neg": (0,), "Mul": (0, 1), "Div": (0,), "RealDiv": (0,)}


# primitives of one tensor linear in it (a widening float Cast is exact on each part): a partial sum reshaped,
# transposed, summed along axes or cast stays a partial sum over the same axes
UNARY_LINEAR = ("Cast", "Reshape", "Transpose", "ReduceSum", "BroadcastTo", "Identity")


def linear_partial(call, ins, outs, held):
    """A unary linear call (`UNARY_LINEAR`) reading its operand held as the partial sum `held`: (input layout, output
    layout) of running it on the ranks' parts, the output a partial sum over `held`'s axes (and over any factor the
    call contracts itself), or None where it cannot (the call's cuts are not `held`'s, a padded layout, a Cast to
    or from a non-float type or to fewer bits: the single process rounds the sum, not its parts)."""
    if call.prim.name not in UNARY_LINEAR or len(ins) != 1 or len(outs) != 1 or not held.partial or held.pad:
        return None
    if call.prim.name == "Cast" and not (all(mstype.is_float(t.dtype) for t in (call.args[0], call.outs[0])) and
                                         call.outs[0].itemsize >= call.args[0].itemsize):
        return None   # rounding each part to an integer, or to fewer bits, is not rounding their sum
    if call.outs[0].size > call.args[0].size:
        return None   # a broadcast: reducing its operand moves fewer bytes than reducing what it makes
    (i, mine), = ins.items()
    same_mesh = mine.mesh.shape == held.mesh.shape
    if mine.dims != held.dims or not (same_mesh or not any(held.dims)):
        return None
    out = outs[0]
    dims = out.dims if same_mesh else tuple(() for _ in out.dims)
    partial = tuple(held.partial) + (tuple(out.partial) if same_mesh else ())
    return held, TensorLayout(held.mesh, out.shape, dims, partial)


def _flat(x):
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for item in x for t in _flat(item)]
    return []


class _AbstractRun:
    """Sits on the dispatcher's hook stack (`_state.profiling`, the profiler's protocol) while an abstract
    recording runs: a primitive call computes only its outputs' shapes and dtypes (`Prim.placeholders`: the
    primitive's shape rule, or its kernel on meta tensors, which hold no data), and the tapes see the call as
    usual; `calls` counts the calls it answered."""

    abstract = True   # what `common._parallel.abstract_recording()` looks for

    def __init__(self):
        self.calls = 0

    def run_op(self, prim, args, attrs):
        rule = cast_policies[-1].get(prim) if cast_policies else None
        if rule is not None:  # mixed precision: its casts and the primitive come back here, uncast
            return rule(prim, args, attrs)
        self.calls += 1
        try:
            out = prim.placeholders(*args, **attrs)
        except Exception as exc:  # noqa: BLE001 -- a shape only the values decide (MaskedSelect, Unique, ...)
            raise ShapeUnknownError(f"For 'plan', the output shape of {prim.name} cannot be known without computing it "
                             f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else exc!r}): plan "
                             f"this step with its shards computed (--check, or plan_step(shapes_only=False)).") \
                from None
        for tape in _state.tapes:
            tape.record(prim, args, attrs, out)
        return out

    def run_cell(self, cell, call):
        return call()

    def kernel(self, op_type, name, t0, t1):
        return None

    def run_graph(self, name, call):
        return call()


def record(fn, *args, abstract=False):
    """Run `fn(*args)` (PyNative) and return its `Program`: every primitive call it made, in order. With
    `abstract` no kernel computes: every call's outputs are data-less Tensors of the shapes and dtypes its
    primitive's shape rule gives (what a shapes-only plan needs: a step of any size records in the time of its
    Python code).

    >>> import numpy as np, mindseed as ms
    >>> from mindseed.parallel._spmd import record
    >>> prog = record(lambda x: ms.ops.relu(x) * 2, ms.Tensor(np.ones((2, 2))))
    >>> [c.prim.name for c in prog.calls]
    ['ReLU', 'Mul']
    """
    rec = _Recorder()
    _state.tapes.append(rec)
    try:
        with abstract_run() if abstract else contextlib.nullcontext():
            result = fn(*args)
    finally:
        _state.tapes.remove(rec)
    return Program(rec.calls, args, _flat(result), result, rec.differentiates, rec.sums)


@contextlib.contextmanager
def abstract_run():
    """Context: no kernel computes; every primitive call gives data-less Tensors of its outputs' shapes and dtypes
    (`_AbstractRun`), which the recorders and tapes on the stack see as usual."""
    hook = _AbstractRun()
    _state.profiling.append(hook)
    try:
        yield hook
    finally:
        _state.profiling.remove(hook)


class CallPlan:
    """How one call ran: its device mesh, the mesh axes cutting each factor of its sharding rule (None: it ran on
    whole tensors), its inputs' and outputs' layouts, and the redistributions it needed (`moves`)."""

    __slots__ = ("call", "mesh", "cuts", "in_layouts", "out_layouts", "moves", "rule")

    def __init__(self, call, mesh, cuts, in_layouts, out_layouts, moves, rule=None):
        self.call, self.mesh, self.cuts = call, mesh, cuts
        self.in_layouts, self.out_layouts, self.moves, self.rule = in_layouts, out_layouts, moves, rule

    @property
    def flops(self):
        """Floating-point operations of the call on one rank: 2 m n k for a product (MatMul, Dense: twice the
        product of the local sizes of every factor of its rule), else one per element of its largest local
        tensor."""
        return call_flops(self.call, self.rule, self.in_layouts, self.out_layouts)


def call_flops(call, rule, in_layouts, out_layouts):
    """Floating-point operations of `call` on one rank under its layouts (see `CallPlan.flops`)."""
    if rule is not None and rule.sums and call.prim.name in ("MatMul", "BatchMatMul", "Dense"):
        sizes = {}
        for dims, lay in zip([d for d in rule.ins if d is not None], in_layouts):
            sizes.update((f, n) for f, n in zip(dims, lay.local_shape) if f is not None)
        return 2 * math.prod(sizes.values())
    return max((math.prod(lay.local_shape) for lay in in_layouts + out_layouts), default=0)


class Assignment:
    """A searched strategy (`_search`): the call runs on `mesh` with each factor of its rule cut by the mesh axes
    `assign` gives (a Call's strategy ``(Assignment, None)``)."""

    __slots__ = ("mesh", "assign")

    def __init__(self, mesh, assign):
        self.mesh, self.assign = mesh, dict(assign)

    def __repr__(self):
        return "(" + ", ".join(f"{f}:{'x'.join(self.mesh.names[a] for a in axes)}"
                               for f, axes in self.assign.items()) + ")"


def call_layouts(call, rule, mesh, assign):
    """({argument index: TensorLayout} of the call's tensor inputs, [TensorLayout] of its outputs, [mean scale]
    of its outputs) when the factors of `rule` are cut by the mesh axes `assign` gives."""
    ins = {i: TensorLayout(mesh, tuple(a.shape), tuple(assign.get(f, ()) for f in rule.ins[i]))
           for i, a in enumerate(call.args) if isinstance(a, Tensor)}
    outs, scales = [], []
    for k, (o, dims) in enumerate(zip(call.outs, rule.outs)):
        sums, means = rule.contracted(k)
        partial = tuple(ax for f in sums | means for ax in assign.get(f, ()))
        outs.append(TensorLayout(mesh, tuple(o.shape), tuple(assign.get(f, ()) for f in dims), partial))
        scales.append(math.prod(mesh.shape[ax] for f in means for ax in assign.get(f, ())))
    partial = outs[0].partial if outs else ()
    for i in rule.addends:   # a bias added to partial sums: held by the first rank of the sum, zeros elsewhere
        if i in ins and partial:
            ins[i] = TensorLayout(mesh, ins[i].shape, ins[i].dims, partial)
    return ins, outs, scales

    @property
    def sent_bytes(self):
        return sum(m.sent_bytes for m in self.moves)


class DistValue:
    """A tensor on the ranks of a world: its layout and each rank's numpy array."""

    __slots__ = ("layout", "shards")

    def __init__(self, layout, shards):
        self.layout, self.shards = layout, shards


def local_shards(world, shards):
    """`shards` (one array per rank) with only the arrays of the ranks this process computes (`world.ranks`; the
    others None: on a real world each process holds its own rank's)."""
    here = world.ranks
    return [s if r in here else None for r, s in enumerate(shards)]


def _world_mesh(size):
    return DeviceMesh((size,), ("world",))


def _np(t):
    return np.asarray(t.asnumpy() if isinstance(t, Tensor) else t)


class Execution:
    """The result of `execute`: the values of the program's tensors on the world, how each call ran (`plans`),
    the calls that ran on whole tensors (no sharding rule: `whole_calls`), the `program` run; the world logs the
    communication."""

    def __init__(self, world, executor, leaf_layouts):
        self.world, self._executor, self._leaf_layouts = world, executor, leaf_layouts
        self.plans, self.whole_calls = executor.plans, executor.whole_calls

    @property
    def reads(self):
        """The redistributions `value` made (gradients brought to their parameters' layouts, ...)."""
        return self._executor.moves

    def value(self, t, layout=None):
        """The ranks' arrays of tensor `t`, redistributed to `layout` first when given (the communication is
        logged like the program's)."""
        v = self._executor.env[id(t)]
        if layout is None or layout == v.layout:
            return v
        return DistValue(layout, self._executor.bring(t, layout))

    def layout_of(self, t):
        """The layout of tensor `t` as it was produced (a leaf: as its first consumer cut it)."""
        return self._leaf_layouts.get(id(t)) or self._executor.env[id(t)].layout

    def whole(self, t, layout=None):
        """Tensor `t`'s global array on this process, read from the ranks' shards (in `layout` when given: its
        redistribution there is logged)."""
        v = self.value(t, layout)
        return self.world.assemble(v.shards, v.layout)

    def parameter_layouts(self):
        """{name: TensorLayout} of the Parameters the program read, as their first consumer cut them (what the
        strategy file records)."""
        params = self._executor.params
        return {params[k].name: layout for k, layout in self._leaf_layouts.items() if k in params}

    def rank_parameters(self, rank):
        """{name: Tensor} of `rank`'s slice of every Parameter the program read: what that rank saves with
        `save_checkpoint(net, file, integrated_save=False)`.

        Raises:
            ValueError: `rank` out of the world, or a shapes-only execution.
        """
        if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < self.world.size:
            raise ValueError(f"For 'rank_parameters', the rank must be an int in [0, {self.world.size}), but got "
                             f"{rank!r}.")
        if self.world.abstract:
            raise ValueError("For 'rank_parameters', the execution ran on a ShapeWorld: its ranks hold no values.")
        if rank not in self.world.ranks:
            raise ValueError(f"For 'rank_parameters', rank {rank} is computed by another process: this process holds "
                             f"the values of ranks {list(self.world.ranks)}.")
        params = self._executor.params
        return {params[k].name: Tensor(np.ascontiguousarray(self._executor.env[k].shards[rank]), params[k].dtype)
                for k in self._leaf_layouts if k in params}

    def operator_strategies(self):
        """[(node name, strategy)] of the calls that ran sharded: per input, the number of pieces of each dim."""
        return [(f"{p.call.prim.name}-op{i}", [[lay.cuts(d) for d in range(len(lay.shape))] for lay in p.in_layouts])
                for i, p in enumerate(self.plans) if p.cuts is not None]

    def save_strategy(self, path):
        """Write MindSpore's strategy file of this run: every Parameter's layout and every sharded call's
        strategy (a name ending in ``.json`` gives JSON, else protobuf)."""
        from mindseed.parallel._strategy_file import write_strategy_file  # noqa: PLC0415  (needs mindseed.train)
        write_strategy_file(path, self.parameter_layouts(), self.operator_strategies())

    def _mirror_groups(self, rank, optimizer=False):
        """{name: ranks} per Parameter: the ranks holding the same slice as `rank` (the group its gradient is
        reduced in, MindSpore's mirror group), ascending; `optimizer`: the same slice of its optimizer state (the
        parallel optimizer's cut, when it can cut the parameter)."""
        out = {}
        size = get_auto_parallel_context("optimizer_weight_shard_size")
        for name, layout in self.parameter_layouts().items():
            layout = (optimizer and optimizer_shard(layout, size, name)) or layout
            free = [a for a in range(len(layout.mesh.shape))
                    if all(a not in d for d in layout.dims) and a not in layout.partial]
            out[name] = sorted(next(g for g in layout.mesh.groups(free) if rank in g))
        return out

    def communication_groups(self, rank):
        """The groups of ranks (ascending) `rank` communicates in during the step, in order of first use: those
        of the collectives the calls' redistributions ran, then each Parameter's mirror group."""
        groups = {}
        for moves in [m for p in self.plans for m in p.moves] + list(self.reads):
            for step in moves.collectives():
                g = tuple(sorted(next(g for g in step.mesh.groups(step.axes) if rank in g)))
                groups.setdefault(g, None)
        for g in self._mirror_groups(rank).values():
            groups.setdefault(tuple(g), None)
        return [list(g) for g in groups if len(g) > 1]

    def restore_ranks(self, rank):
        """The ranks whose checkpoints equal `rank`'s: those holding its slice of every trainable Parameter (the
        intersection of the mirror groups, as MindSpore's FindCommonMirrorGroup; `rank` alone when a parameter
        is cut over every rank)."""
        params = self._executor.params
        trainable = {p.name for p in params.values() if p.requires_grad}
        optimizer = get_auto_parallel_context("enable_parallel_optimizer")
        if optimizer and get_auto_parallel_context("optimizer_weight_shard_size") == -1:
            return [rank]   # the state of every parameter is cut over all its repeated ranks
        common = set(range(self.world.size))
        for name, g in self._mirror_groups(rank, optimizer).items():
            if name in trainable:
                common &= set(g)
        return sorted(common)

    def save_group_info(self, path, rank=None):
        """Write MindSpore's group information file of `rank` (default: this process's rank, 0 on a simulated
        world): its communication groups and the ranks whose checkpoints restore it (`restore_group_info_list`
        reads them back)."""
        from mindseed.parallel._strategy_file import write_group_info_file  # noqa: PLC0415
        rank = getattr(self.world, "rank", 0) if rank is None else rank
        if not 0 <= rank < self.world.size:
            raise ValueError(f"For 'save_group_info', the rank must be in [0, {self.world.size}), but got {rank}.")
        groups = {GlobalComm.WORLD_COMM_GROUP if len(g) == self.world.size else group_name(g): g
                  for g in self.communication_groups(rank)}
        write_group_info_file(path, groups, self.restore_ranks(rank))


def _divides(call, rule, factor, cuts):
    """Whether `cuts` pieces divide every dim of the call's tensors that `factor` names, each piece longer than the
    overlaps its neighbours exchange along it (`ShardingRule.halos`)."""
    tensors = [(dims, a.shape) for dims, a in zip(rule.ins, call.args) if dims is not None and isinstance(a, Tensor)]
    tensors += [(dims, o.shape) for dims, o in zip(rule.outs, call.outs)]
    if any(n % cuts for dims, shape in tensors for f, n in zip(dims, shape) if f == factor):
        return False
    return all(tuple((call.outs if h.out else call.args)[h.index].shape)[h.dim] // cuts > max(h.before, h.after)
               for h in rule.halos if h.factor == factor)


def propagated(call, rule, layouts, size):
    """(mesh, assign) of a call without a strategy, from the layouts its inputs have (None: a leaf not cut yet):
    the mesh of the input cut into the most pieces (the first of those); each factor the first cut on that mesh
    offered that no other factor took and that divides."""
    mesh, assign, used = None, {}, set()
    cut = [(i, lay) for i, lay in enumerate(layouts) if lay is not None and rule.ins[i] is not None and any(lay.dims)]
    if cut:
        top = max(cut, key=lambda c: math.prod(c[1].cuts(d) for d in range(len(c[1].shape))))[1]
        mesh = top.mesh
    for i, layout in cut:
        if layout.mesh.shape != mesh.shape:
            continue
        for f, axes in zip(rule.ins[i], layout.dims):
            if f is None or not axes or f in rule.whole or f in assign or used & set(axes):
                continue
            if not _divides(call, rule, f, math.prod(mesh.shape[a] for a in axes)):
                continue  # a cut the call's other tensors cannot take (a reshape into a smaller dim): dropped
            assign[f] = axes
            used.update(axes)
    if mesh is None:
        return _world_mesh(size), {}
    return mesh, assign


class _Executor:
    def __init__(self, world, leaf_layouts):
        self.world = world
        self.env = {}             # id(tensor) -> DistValue
        self.leaves = {}          # id(leaf) -> its layout once a consumer has cut it
        self.params = {}          # id(leaf) -> the Parameter, for the leaves that are Parameters
        self.given = dict(leaf_layouts)
        self.held = {}            # id(leaf) -> its shards (one array per rank, None where not held), given
        self.whole_calls = []
        self.copies = {}          # (id(tensor), layout) -> shards: a value redistributed once serves every consumer
        self.plans = []           # one CallPlan per call
        self.moves = []           # the redistributions of the call running now
        self.abstract = world.abstract  # a ShapeWorld: layouts only, no shard is computed
        self.backward = None      # ids of the values the backward pass made (once it runs)
        self.read_as = {}         # id(first output of a forward call) -> {id(input): the layout the call read}

    def _shard(self, t, layout):
        if self.abstract:
            return None
        held = self.held.get(id(t))
        if held is not None:  # the leaf's shards were given: this process never holds it whole
            return local_shards(self.world, held)
        if isinstance(t, Parameter) and t.has_init:  # made under no_init_parameters: initialized whole now, as the
            t.init_data()                             # single process initializes it at its first use
        if isinstance(t, Tensor) and getattr(t._data, "is_meta", False):
            raise ValueError(f"For 'execute', a leaf of shape {tuple(t.shape)} holds no data (an abstract recording's "
                             f"stand-in): give its layout and shards ('layouts', 'shards'), or run on a ShapeWorld.")
        return local_shards(self.world, shard_array(_np(t), layout))

    # ------------------------------------------------------------ values
    def _current(self, t):
        v = self.env.get(id(t))
        if v is not None:
            return v
        if isinstance(t, Parameter):
            self.params[id(t)] = t
        if id(t) in self.given:
            layout = self.given[id(t)]
            v = DistValue(layout, self._shard(t, layout))
            self.env[id(t)] = v
            return v
        return None

    def bring(self, t, layout):
        """Tensor `t`'s shards under `layout`."""
        v = self._current(t)
        if v is None:  # a leaf nobody cut yet: every rank slices its part, no communication
            self.leaves[id(t)] = layout
            v = DistValue(layout, self._shard(t, layout))
            self.env[id(t)] = v
            return v.shards
        if v.layout == layout:
            return v.shards
        # a whole copy serves every mesh: the ranks hold the same arrays whatever the mesh's shape
        key = (id(t), "whole" if layout.is_replicated() else layout)
        if key not in self.copies:
            moves = plan(v.layout, layout, t.itemsize)
            self.moves.append(moves)
            self.copies[key] = moves.run(v.shards, self.world)
        return self.copies[key]

    def forget(self, ids):
        """Drop the redistributed copies of the tensors `ids` (their next consumers redistribute them again)."""
        self.copies = {k: v for k, v in self.copies.items() if k[0] not in ids}

    # ------------------------------------------------------------ cuts of a call's factors
    def _from_strategy(self, call, rule):
        in_strategy = call.strategy[0]
        name = call.prim.name
        tensors = [(i, a) for i, a in enumerate(call.args) if isinstance(a, Tensor)]
        sizes = [len(s.to_dict()["tensor_map"]) if isinstance(s, Layout) else len(s) for s in in_strategy]

        def given():   # NOTE: formatted only for tuple strategies (a Layout is not a tuple)
            return f"For '{name}', the in_strategy {_format_strategy(in_strategy)}"
        if len(in_strategy) != len(tensors) or any(k != len(a.shape) for k, (_, a) in zip(sizes, tensors)):
            raise StrategyError(f"{given()} must have one tuple per input tensor with one value per dim, but the "
                                f"inputs have shapes {[tuple(a.shape) for _, a in tensors]}.")
        if all(isinstance(s, Layout) for s in in_strategy):
            return self._from_layouts(call, rule, tensors)
        cuts = {}
        for s, (i, a) in zip(in_strategy, tensors):
            for j, (f, n) in enumerate(zip(rule.ins[i], s)):
                if n == 1 and f is None:
                    continue
                if n != 1 and (f is None or f in rule.whole):
                    why = rule.reasons.get(f)
                    raise StrategyError(f"{given()} cuts dim {j} of input {i} (shape {tuple(a.shape)}), which the "
                                        f"operator needs whole" + (f": {why}." if why else "."))
                if cuts.setdefault(f, n) != n:
                    raise StrategyError(f"{given()} is invalid: the dims that {name} matches must be cut into the same "
                                        f"number of pieces, but got {cuts[f]} and {n}.")
        cuts = {f: n for f, n in cuts.items() if n != 1}
        used = math.prod(cuts.values())
        if self.world.size % used:
            raise StrategyError(f"{given()} uses {used} devices, which does not divide the device number "
                                f"{self.world.size}.")
        factors = [f for f in rule.factors() if f in cuts]
        repeat = self.world.size // used
        shape = tuple(cuts[f] for f in factors) + ((repeat,) if repeat > 1 else ())
        names = tuple(factors) + (("repeat",) if repeat > 1 else ())
        mesh = DeviceMesh(shape or (1,), names or ("repeat",))
        return mesh, {f: (mesh.axis(f),) for f in factors}

    def _from_layouts(self, call, rule, tensors):
        name = call.prim.name
        mesh, assign = None, {}
        for s, (i, a) in zip(call.strategy[0], tensors):
            layout = TensorLayout.from_layout(tuple(a.shape), s)
            if mesh is None:
                mesh = layout.mesh
            elif layout.mesh.shape != mesh.shape:
                raise RuntimeError(f"For '{name}', the layouts of the inputs must share one device matrix, but got "
                                 f"{mesh.shape} and {layout.mesh.shape}.")
            for j, (f, axes) in enumerate(zip(rule.ins[i], layout.dims)):
                if not axes:
                    continue
                if f is None or f in rule.whole:
                    why = rule.reasons.get(f)
                    raise RuntimeError(f"For '{name}', the layout of input {i} cuts dim {j} (shape {tuple(a.shape)}), "
                                     f"which the operator needs whole" + (f": {why}." if why else "."))
                if assign.setdefault(f, axes) != axes:
                    raise RuntimeError(f"For '{name}', the layouts cut the dims that {name} matches differently: "
                                     f"{assign[f]} and {axes}.")
        if mesh.size != self.world.size:
            raise RuntimeError(f"For '{name}', the layout's device matrix {mesh.shape} holds {mesh.size} devices, but "
                             f"the world has {self.world.size}.")
        return mesh, assign

    def _propagated(self, call, rule, read_as=None):
        current = [self._current(a) if isinstance(a, Tensor) else None for a in call.args]
        layouts = [None if v is None else v.layout for v in current]
        if read_as:  # a bprop: the forward call's values as that call read them
            layouts = [read_as.get(id(a), lay) if isinstance(a, Tensor) else lay for a, lay in zip(call.args, layouts)]
        return propagated(call, rule, layouts, self.world.size)

    # ------------------------------------------------------------ running a call
    def align_gradients(self, call, forward_out):
        """Bring the gradients `call` reads (values of the backward pass, `self.backward`) that are shaped like an
        output of its forward call (`forward_out`) to that output's layout, partial sums reduced, and return the
        layouts in which that forward call read its inputs ({id: layout}): a bprop runs in the cuts of the forward
        call it differentiates, as MindSpore partitions a bprop with its forward operator's strategy (the gradient
        of a partial sum is the same on every rank of the sum).

        A gradient whose move there communicates is replaced by the moved value (its other readers reuse the
        reduction or gather); one that only needs local slices keeps its layout and this call reads it in the target
        layout (in the returned layouts; `bring` caches the copy): a gradient that a sum's bprop hands to both
        operands' bprops (the backward of a value read twice) is then added to the other operand's parts in the
        layout it was made in, not sliced for one reader and gathered back for the other."""
        targets = {}
        for o in forward_out if isinstance(forward_out, tuple) else (forward_out,):
            v = self.env.get(id(o)) if isinstance(o, Tensor) else None
            if v is not None:
                targets.setdefault(tuple(o.shape), TensorLayout(v.layout.mesh, v.layout.shape, v.layout.dims))
        first = forward_out[0] if isinstance(forward_out, tuple) else forward_out
        read_as = self.read_as.get(id(first))
        for a in call.args:
            v = self.env.get(id(a)) if isinstance(a, Tensor) and id(a) in self.backward else None
            target = None if v is None else targets.get(tuple(a.shape))
            if target is None or v.layout == target or target.mesh.size != v.layout.mesh.size:
                continue
            read_as = {**(read_as or {}), id(a): target}
        return read_as

    def _sum_where_made(self, call, summing):
        """The layouts in which the backward Add of gradient parts of `summing` reads them: the layout `summing` was
        made in, partial sums dropped (where its producer's bprop reads the sum), so each part moves there once; None
        (the Add follows its operands) when they are one partial sum (it stays one) or `summing` is not held."""
        v = self.env.get(id(summing))
        current = [self._current(a) if isinstance(a, Tensor) else None for a in call.args]
        if v is None or any(c is None for c in current) or tuple(summing.shape) != tuple(call.outs[0].shape):
            return None
        if current[0].layout.partial and all(c.layout == current[0].layout for c in current):
            return None
        target = TensorLayout(v.layout.mesh, v.layout.shape, v.layout.dims)
        return {id(a): target for a in call.args if isinstance(a, Tensor) and tuple(a.shape) == tuple(target.shape)}

    def run(self, call, forward_out=None, summing=None):
        """Run `call` on the ranks; `forward_out`: the output of the forward call whose bprop made it; `summing`: the
        tensor whose gradient parts it adds (the backward pass's sum of the parts of a value read several times)."""
        self.moves = []
        read_as = None
        if forward_out is not None and not (call.strategy and call.strategy[0]):
            read_as = self.align_gradients(call, forward_out)
        elif summing is not None and not (call.strategy and call.strategy[0]):
            read_as = self._sum_where_made(call, summing)
        rule = None
        if call.prim.sharding is not None:
            rule = call.prim.sharding(*call.args, **call.attrs)
        if rule is None:
            self._run_whole(call)
            return
        strategy = call.strategy
        if strategy and isinstance(strategy[0], Assignment):
            mesh, assign = strategy[0].mesh, strategy[0].assign
        elif strategy and strategy[0]:
            mesh, assign = self._from_strategy(call, rule)
        else:
            mesh, assign = self._propagated(call, rule, read_as)
        ins, out_layouts, scales = call_layouts(call, rule, mesh, assign)
        if not (strategy and strategy[0]):
            self._keep_partial_sums(call, ins, out_layouts)
        in_layouts = list(ins.values())
        for i in rule.addends:   # a leaf bias takes its own layout first (its gradient is read there), then a copy
            if i in ins and ins[i].partial and self._current(call.args[i]) is None:
                self.bring(call.args[i], TensorLayout(mesh, ins[i].shape, ins[i].dims))
        local_args = [self.bring(a, ins[i]) if i in ins else [a] * self.world.size for i, a in enumerate(call.args)]
        attrs = call.attrs
        if rule.localize is not None:
            attrs = rule.localize(call.attrs, [lay.local_shape for lay in out_layouts])
        halos = [h for h in rule.halos if (out_layouts if h.out else ins)[h.index].dims[h.dim]]
        # the local shapes as the overlaps extend them (an exchange along W carries the rows received along H)
        extended = {(h.out, h.index): list((out_layouts if h.out else ins)[h.index].local_shape) for h in halos}
        for h in halos:
            if h.out:
                extended[True, h.index][h.dim] += h.before + h.after
        for h in halos:   # overlaps of neighbouring pieces (a convolution's rows cut): read before the call
            if h.local is not None:
                attrs = h.local(attrs)
            if not h.out:
                local_args[h.index] = self._halo_in(call, h, ins[h.index], local_args[h.index],
                                                    extended[False, h.index])
        synced = rule.sync is not None and any(assign.get(f) for f in rule.sync.factors)
        if synced:
            self._store_synced(call, rule, mesh, assign, local_args, attrs, out_layouts)
        else:
            self._store(call, local_args, attrs, scales, out_layouts)
        for h in halos:   # ... or added into the neighbours' pieces after it
            if h.out:
                self._halo_out(call, h, out_layouts[h.index], extended[True, h.index])
        if strategy and strategy[1]:
            out_layouts = self._apply_out_strategy(call, strategy[1])
        if self.backward is None:
            self.read_as[id(call.outs[0])] = {id(call.args[i]): lay for i, lay in ins.items()}
        self.plans.append(CallPlan(call, mesh, assign, in_layouts, out_layouts, self.moves, rule))

    def _keep_partial_sums(self, call, ins, out_layouts):
        """Linear calls of partial sums stay partial sums, reduced once where a consumer needs the value whole (the
        gradients summed over micro-batches reduce once, not once per micro-batch); `ins` and `out_layouts` are
        updated in place. The partial operands must be held in one layout of partial sums (same mesh, cuts and
        partial axes, the output's shape) whose cuts are the call's, and the call then runs on the ranks' parts:

        * a sum or difference (`LINEAR`): the other operands are placed on one rank of the sum (the first along the
          partial axes holds the value, the others zeros: a local step), so the parts add up to the result;
        * a negation, or a product or quotient by factors that are no partial sums (`SCALING`: the partial operand
          in a linear position): each rank scales its part by the factor, the same on every rank of the sum.

        A partial operand another consumer has had reduced already is read reduced in these two cases (the result
        stays whole, where keeping the partial sum would reduce it a second time later).
        """
        name = call.prim.name
        if name in UNARY_LINEAR and len(ins) == 1:
            (i, _), = ins.items()
            v = self._current(call.args[i])
            kept = None if v is None or self._reduced_copy(call.args[i]) else \
                linear_partial(call, ins, out_layouts, v.layout)
            if kept is not None:
                ins[i], out_layouts[0] = kept
            return
        if (name not in LINEAR and name not in SCALING) or len(out_layouts) != 1 or not ins:
            return
        current = {i: self._current(call.args[i]) for i in ins}   # None: a leaf not cut yet
        partial = [i for i, v in current.items() if v is not None and v.layout.partial]
        if not partial:
            return
        held = current[partial[0]].layout
        if held.pad or tuple(held.shape) != tuple(call.outs[0].shape) or \
                any(current[i].layout != held for i in partial):
            return
        others = [i for i in ins if i not in partial]
        if (others or name not in LINEAR) and self._reduced_copy(call.args[partial[0]]):
            return   # already reduced for another consumer: read reduced (a second reduction would follow)
        if others:
            # the call's cuts must be the partial operands' (the operands are then read on their mesh), and no
            # factor may be cut along the axes of the sum (it would differ across the sum's ranks)
            mine = ins[partial[0]]
            same_mesh = mine.mesh.shape == held.mesh.shape
            if mine.dims != held.dims or not (same_mesh or not any(held.dims)):
                return
            if any((not same_mesh and any(ins[i].dims)) or
                   set(held.partial) & {ax for axes in ins[i].dims for ax in axes} for i in others):
                return
            for i in others:   # a leaf takes its layout first, as any consumer cuts it (no communication)
                if current[i] is None:
                    self.bring(call.args[i], ins[i])
            if name in LINEAR:   # placed on the first rank of the sum: the others hold zeros
                for i in others:
                    ins[i] = TensorLayout(held.mesh, ins[i].shape, ins[i].dims, held.partial)
            elif len(partial) != 1 or partial[0] not in SCALING[name]:
                return   # a product of partial sums is no partial sum; a quotient is linear in its dividend only
            else:
                for i in others:
                    ins[i] = TensorLayout(held.mesh, ins[i].shape, ins[i].dims)
        elif name not in LINEAR and (len(partial) != 1 or partial[0] not in SCALING[name]):
            return
        for i in partial:
            ins[i] = held
        out_layouts[0] = held

    def _halo_check(self, call, halo, layout, shape):
        """(ranks along the halo's dim, elements per element along it in the piece of local `shape` exchanged, the
        mesh groups along the dim); raises MindSpore's error when a piece is not longer than its overlaps."""
        d = halo.dim
        n = layout.local_shape[d]
        if n <= max(halo.before, halo.after):
            raise ValueError(f"For '{call.prim.name}', {halo.why}: dim {d} of "
                             f"{'output' if halo.out else 'input'} {halo.index} (shape {layout.shape}) is cut into "
                             f"pieces of {n}, but the overlaps with the neighbouring pieces are {halo.before} and "
                             f"{halo.after}.")
        if not self.abstract and not hasattr(self.world, "neighbor_exchange"):
            raise ValueError(f"For '{call.prim.name}', cutting dim {d} (exchanging the overlapping elements between "
                             f"neighbouring ranks) runs on a simulated world only, not on {type(self.world).__name__}.")
        axes = layout.dims[d]
        row = math.prod(shape) // shape[d]
        return math.prod(layout.mesh.shape[a] for a in axes), row, layout.mesh.groups(axes)

    def _halo_in(self, call, halo, layout, shards, shape):
        """`shards` of input `halo.index` (in `layout`; pieces of local `shape`, which this extends) extended by
        the overlaps of their neighbouring pieces along `halo.dim` (a NeighborExchange; a negative overlap drops a
        piece's own elements instead)."""
        size, row, groups = self._halo_check(call, halo, layout, shape)
        shape[halo.dim] += halo.before + halo.after
        before, after = max(halo.before, 0), max(halo.after, 0)
        itemsize = call.args[halo.index].itemsize
        if self.abstract:
            if before or after:
                self.world.halo(size, before, after, row * itemsize)
            return shards
        if before or after:
            shards = self.world.neighbor_exchange(shards, groups, halo.dim, before, after)
        lo, hi = max(-halo.before, 0), max(-halo.after, 0)
        if lo or hi:
            def trim(x):
                index = [slice(None)] * x.ndim
                index[halo.dim] = slice(lo, x.shape[halo.dim] - hi)
                return x[tuple(index)]
            shards = [None if x is None else trim(np.asarray(x)) for x in shards]
        return shards

    def _halo_out(self, call, halo, layout, shape):
        """Output `halo.index` (in `layout`), computed on the extended pieces (of local `shape`, which this cuts
        back), cut back to its pieces with the overlaps added into the neighbours' (a NeighborExchange; a negative
        overlap: zeros appended first)."""
        padded = list(shape)
        padded[halo.dim] += max(-halo.before, 0) + max(-halo.after, 0)
        size, row, groups = self._halo_check(call, halo, layout, padded)
        shape[halo.dim] = layout.local_shape[halo.dim]
        before, after = max(halo.before, 0), max(halo.after, 0)
        out = call.outs[halo.index]
        v = self.env[id(out)]
        if self.abstract:
            if before or after:
                self.world.halo(size, before, after, row * out.itemsize)
            return
        lo, hi = max(-halo.before, 0), max(-halo.after, 0)
        shards = v.shards
        if lo or hi:
            def pad(x):
                widths = [(0, 0)] * x.ndim
                widths[halo.dim] = (lo, hi)
                return np.pad(x, widths)
            shards = [None if x is None else pad(np.asarray(x)) for x in shards]
        if before or after:
            shards = self.world.neighbor_reduce(shards, groups, halo.dim, before, after)
        self.env[id(out)] = DistValue(layout, shards)

    def _reduced_copy(self, t):
        """Whether another consumer has had the partial sum `t` reduced already."""
        return any(k[0] == id(t) and (k[1] == "whole" or not k[1].partial) for k in self.copies)

    def _store(self, call, local_args, attrs, scales, out_layouts):
        """Run the kernel on every rank's arguments (a ShapeWorld: none) and keep the outputs."""
        here = self.world.ranks  # the ranks this process computes (a process of a real world: its own)
        per_rank = None if self.abstract else [
            self._kernel(call, [args[r] for args in local_args], attrs, scales) if r in here else None
            for r in range(self.world.size)]
        for k, (o, layout) in enumerate(zip(call.outs, out_layouts)):
            self.env[id(o)] = DistValue(layout, None if per_rank is None else
                                        [None if outs is None else outs[k] for outs in per_rank])

    def _store_synced(self, call, rule, mesh, assign, local_args, attrs, out_layouts):
        """Run a call whose shards share statistics (`ShardingRule.sync`): each rank's partial statistics, their
        AllReduce over the axes cutting the sync factors (a redistribution of a partial sum: logged and planned as
        any), then each rank's outputs from the summed statistics."""
        sync, here = rule.sync, self.world.ranks
        tensor = lambda a: Tensor(np.asarray(a)) if isinstance(a, (np.ndarray, np.generic)) else a  # noqa: E731
        per_rank = None if self.abstract else [
            [tensor(args[r]) for args in local_args] if r in here else None for r in range(self.world.size)]
        stats = None if per_rank is None else [
            None if args is None else np.asarray(sync.partials(*args, **attrs).asnumpy()) for args in per_rank]
        sizes = {f: n for dims, a in zip(rule.ins, call.args) if dims and isinstance(a, Tensor)
                 for f, n in zip(dims, a.shape) if f}
        shape = tuple(sizes[f] if isinstance(f, str) else f for f in sync.dims)   # an int: an uncut dim's size
        dims = tuple(assign.get(f, ()) if isinstance(f, str) else () for f in sync.dims)
        axes = tuple(a for f in sorted(sync.factors) for a in assign.get(f, ()))
        moves = plan(TensorLayout(mesh, shape, dims, axes), TensorLayout(mesh, shape, dims), call.outs[0].itemsize)
        self.moves.append(moves)
        summed = moves.run(stats, self.world)
        outs = None if per_rank is None else [
            None if args is None else sync.finish(Tensor(np.asarray(summed[r])), *args, **attrs)
            for r, args in enumerate(per_rank)]
        for k, (o, layout) in enumerate(zip(call.outs, out_layouts)):
            self.env[id(o)] = DistValue(layout, None if outs is None else
                                        [None if out is None else np.asarray(out[k].asnumpy()) for out in outs])

    @staticmethod
    def _kernel(call, args, attrs, scales=None):
        out = call.prim(*[Tensor(np.asarray(a)) if isinstance(a, (np.ndarray, np.generic)) else a
                           for a in args], **attrs)
        outs = out if isinstance(out, tuple) else (out,)
        arrays = [np.asarray(o.asnumpy()) for o in outs]
        # a mean over a cut factor: the local means / cuts add up to the global mean
        return [np.asarray(a / k) if k != 1 and np.issubdtype(a.dtype, np.floating) else a
                for a, k in zip(arrays, scales or [1] * len(arrays))]

    def _apply_out_strategy(self, call, out_strategy):
        layouts = []
        for o, s in zip(call.outs, out_strategy):
            v = self.env[id(o)]
            if isinstance(s, Layout):
                target = TensorLayout.from_layout(tuple(o.shape), s)
            else:
                target = TensorLayout.from_strategy(tuple(o.shape), s, self.world.size)
            moves = plan(v.layout, target, o.itemsize)
            self.moves.append(moves)
            self.env[id(o)] = DistValue(target, moves.run(v.shards, self.world))
            layouts.append(target)
        return layouts

    def _run_whole(self, call):
        mesh = _world_mesh(self.world.size)
        in_layouts = [TensorLayout.replicated(mesh, tuple(a.shape)) for a in call.args if isinstance(a, Tensor)]
        local_args = [self.bring(a, TensorLayout.replicated(mesh, tuple(a.shape))) if isinstance(a, Tensor)
                      else [a] * self.world.size for a in call.args]
        out_layouts = [TensorLayout.replicated(mesh, tuple(o.shape)) for o in call.outs]
        self._store(call, local_args, call.attrs, None, out_layouts)
        self.whole_calls.append(call)
        self.plans.append(CallPlan(call, mesh, None, in_layouts, out_layouts, self.moves))


def given_layouts(layouts, size):
    """{id(tensor): TensorLayout} of (Tensor, strategy tuple or TensorLayout) pairs on `size` ranks."""
    given = {}
    for t, layout in list(planned_parameters().values()) + list(layouts or ()):
        if isinstance(layout, tuple):
            layout = TensorLayout.from_strategy(tuple(t.shape), layout, size)
        elif isinstance(layout, Layout):
            layout = TensorLayout.from_layout(tuple(t.shape), layout)
        given[id(t)] = layout
    return given


def _held_shards(shards, given, world):
    """{id(leaf): shards} of `execute`'s `shards`, checked against the leaves' given layouts."""
    held = {}
    for t, arrays in shards or ():
        layout = given.get(id(t))
        if layout is None:
            raise ValueError(f"For 'execute', the shards of a tensor of shape {tuple(t.shape)} were given without its "
                             f"layout: pass it in 'layouts' too.")
        arrays = list(arrays)
        if len(arrays) != world.size:
            raise ValueError(f"For 'execute', the shards of a tensor must hold one entry per rank ({world.size}), but "
                             f"got {len(arrays)}.")
        for r in world.ranks:
            a = arrays[r]
            if a is None or tuple(np.shape(a)) != layout.local_shape:
                raise ValueError(f"For 'execute', rank {r}'s shard of a tensor of shape {tuple(t.shape)} must have the "
                                 f"local shape {layout.local_shape} of its layout, but got "
                                 f"{None if a is None else tuple(np.shape(a))}.")
        held[id(t)] = [None if a is None else np.asarray(a) for a in arrays]
    return held


def searched(program):
    """Whether the strategy search has given `program`'s calls their strategies."""
    return any(c.strategy and isinstance(c.strategy[0], Assignment) for c in program.calls)


def execute(program, world, layouts=None, regather=None, search=True, shards=None):
    """Run `program` on the ranks of `world`.

    Args:
        program (Program): from `record`.
        world (SimulatedWorld): the ranks and their collectives.
        layouts (Sequence): (Tensor, TensorLayout or strategy tuple) pairs for leaves that start cut (the data's
            dataset strategy); other leaves are cut as their first consumer needs.
        regather (tuple): (call index, tensors): before that call the copies of those tensors redistributed so far
            are dropped, so that a later consumer redistributes them again (ZeRO-3 frees the weights it gathered for
            the forward pass and gathers them again for the backward).
        search (bool): under ``auto_parallel``, search the strategies first (the search's own trial runs: False).
        shards (Sequence): (Tensor, list of arrays) pairs: a leaf's shards in its given layout, one array per rank
            (None for a rank this process does not compute). The leaf's own data is then never read, so the program
            can come from an abstract recording (`record(..., abstract=True)`) whose leaves hold no data: a process
            of a real run holding only its slices of the parameters and of the batch.

    Returns:
        Execution.

    Under ``set_auto_parallel_context(parallel_mode="auto_parallel")`` the forward calls without a strategy get
    one from the strategy search first (`_search.search`, with the context's ``search_mode``).

    Raises:
        RuntimeError: a strategy or layout that does not fit its operator's inputs or the world (MindSpore's
            "Invalid strategy").
        ValueError: shards of a leaf without a given layout, or not one array per rank of the layout's local shape.
    """
    if search and get_auto_parallel_context("parallel_mode") == "auto_parallel" and not searched(program):
        loaded = _operator_strategy.loaded_program(program, forward_calls(program))   # a saved plan, if any
        if loaded is not None:
            program = loaded
        else:
            from mindseed.parallel._search import default_mesh, search  # noqa: PLC0415  (the search runs execute's)
            program = search(program, default_mesh(world.size), layouts).program
    given = given_layouts(layouts, world.size)
    ex = _Executor(world, given)
    ex.held = _held_shards(shards, given, world)
    n_forward = forward_calls(program)
    at, again = regather or (None, ())
    for i, call in enumerate(program.calls):
        if i == at:
            ex.forget({id(t) for t in again})
        if i == n_forward:
            ex.backward = set()
        ex.run(call, program.differentiates[i], program.sums[i])
        if ex.backward is not None:
            ex.backward.update(id(o) for o in call.outs)
    ex.moves = []  # from now on: the redistributions made to read results (Execution.reads)
    execution = Execution(world, ex, {**given, **ex.leaves})
    execution.program = program
    if search:  # sharding propagation's operator strategies, when a file is to hold them
        _operator_strategy.save_strategies(execution, n_forward)
    path = get_auto_parallel_context("strategy_ckpt_save_file")
    if path:  # MindSpore writes the strategy file when it compiles a sharded network
        execution.save_strategy(path)
    path = group_info_file()
    if path:  # and the group information file
        execution.save_group_info(path)
    return execution
