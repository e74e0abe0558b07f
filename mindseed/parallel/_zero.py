"""The parallel optimizer (ZeRO-1/2/3: `enable_parallel_optimizer`, `optimizer_weight_shard_size`,
``parallel_optimizer_config={"optimizer_level": "level1" | "level2" | "level3"}``) on a simulated world.

Each parameter's optimizer state is cut along dim 0 over the ranks that repeat the parameter (its data-parallel
ranks; `optimizer_weight_shard_size` of them, -1: all), as MindSpore's parallel optimizer does
(`_layout.optimizer_shard`). One step:

1. each gradient is brought to the optimizer layout: a data-parallel gradient (a partial sum over the data axis)
   is reduce-scattered, never all-reduced;
2. every rank runs the user's optimizer on its slices (the optimizer's own update rule, with its parameters and
   state set to the rank's slices for the call; scalar state such as the step count and Adam's beta powers is
   the same on every rank);
3. the updated slices are all-gathered back to the parameter's layout.

The levels differ in what a rank keeps between steps (`memory`), as MindSpore's:

* level1: the optimizer state in slices; gradients and weights whole in their parameter layout;
* level2: the gradients too, reduce-scattered into slices as they are produced (no whole gradient buffer);
* level3: the weights too: a rank keeps its slices, and the weights are all-gathered for the step that reads
  them (`gather_parameters`, logged once per step; `step` then returns the slices, not the gathered weights).

Optimizers whose update is elementwise shard this way (`SHARDABLE`). Those reading norms or means over a whole
parameter (`REDUCING`: Lamb, LARS, AdaFactor) too: their primitives (`ops/_prims/optim.ReducingPrim`) sum each
partial reduction of a rank's slices over the ranks holding the parameter's other pieces along the reduced dims (an
AllReduce in the group of the mesh axes cutting those dims: the optimizer shard group, and the model-parallel axes
of a cut parameter), as MindSpore's parallel optimizer all-reduces Lamb's norms. The ranks run one after another in
one process, so a step runs their updates again until every reduction is known (`_Pending`): the k-th pass stops
each rank at its k-th reduction, whose partial sums are then all-reduced. AdaFactor's factored moments are cut as
the parameter without the reduced dim (`_SLICED_STATE`); a state of another shape is whole on every rank.
"""
import contextlib
import math

import numpy as np

from mindseed.common import _parallel
from mindseed.common._parallel import get_auto_parallel_context
from mindseed.common.tensor import Tensor
from mindseed.parallel._layout import TensorLayout, optimizer_shard, shard_array
from mindseed.parallel._redistribute import plan
from mindseed.parallel._spmd import local_shards
from mindseed.parallel._strategy_file import record_of, write_strategy_file

__all__ = ["ShardedOptimizer", "SHARDABLE", "REDUCING", "HELD", "checked_config", "optimizer_layout",
           "slice_reductions"]

SHARDABLE = ("SGD", "Momentum", "Adam", "AdamWeightDecay", "AdamOffload")
REDUCING = ("Lamb", "LARS", "AdaFactor")
# what a process holding only its slices updates (`_sliced.update_held` under `slice_reductions`): the elementwise
# optimizers and those reading norms whose state is shaped as the parameters
HELD = SHARDABLE + ("Lamb", "LARS")
LEVELS = ("level1", "level2", "level3")
# per-parameter state of a REDUCING optimizer held as ParameterTuples (entry i: parameter i's): the parameter dim
# the state lacks (cut as the parameter without it), or None: shaped as the parameter (else a placeholder, whole)
_SLICED_STATE = {"AdaFactor": {"exp_avg_sq_row": -1, "exp_avg_sq_col": -2, "exp_avg_sq": None}}


class _Pending(BaseException):
    """A rank's optimizer call reached a reduction over the slices that the other ranks have not given yet (a
    BaseException: it passes the kernels' error translation)."""


def checked_config(optimizer, shard_size=None, level=None):
    """(shard size, level) of the parallel optimizer for `optimizer`: `shard_size` and `level` given, else the
    context's ``optimizer_weight_shard_size`` and ``parallel_optimizer_config["optimizer_level"]`` ("level1" unset).

    Raises:
        TypeError: an optimizer neither in `SHARDABLE` nor in `REDUCING`.
        ValueError: a shard size that is not -1 or a positive int, or an unknown level.
    """
    name = type(optimizer).__name__
    if name not in SHARDABLE + REDUCING:
        raise TypeError(f"For the parallel optimizer, the optimizer must be one of {', '.join(SHARDABLE)} (an "
                        f"elementwise update) or {', '.join(REDUCING)} (norms or means over the slices), but got "
                        f"{name}.")
    size = get_auto_parallel_context("optimizer_weight_shard_size") if shard_size is None else shard_size
    if isinstance(size, bool) or not isinstance(size, int) or (size < 1 and size != -1):
        raise ValueError(f"For the parallel optimizer, the 'optimizer_weight_shard_size' must be -1 or a positive "
                         f"int, but got {size!r}.")
    # NOTE: MindSpore's get_auto_parallel_context refuses 'parallel_optimizer_config': read the store
    level = _parallel._values["parallel_optimizer_config"].get("optimizer_level", "level1") \
        if level is None else level
    if level not in LEVELS:
        raise ValueError(f"For the parallel optimizer, the 'optimizer_level' must be one of {', '.join(LEVELS)}, "
                         f"but got {level!r}.")
    return size, level


def optimizer_layout(p, layout, size, threshold=0):
    """The layout of Parameter `p`'s optimizer slices when the step reads it in `layout`: dim 0 further cut over
    `size` of its repeated ranks (`_layout.optimizer_shard`); `layout` itself for a parameter of fewer bytes than
    `threshold` KB, with a shard size of 1, or that cannot be cut (MindSpore leaves those whole)."""
    small = math.prod(p.shape) * p.itemsize < threshold * 1024
    opt = optimizer_shard(layout, size, p.name) if size != 1 and not small else None
    return opt or layout


class ShardedOptimizer:
    """`optimizer` with its state cut over the data-parallel ranks of `execution`'s world.

    Args:
        optimizer (Optimizer): the user's optimizer (its parameters are the network's).
        execution (Execution): the sharded step (`_spmd.execute`) that read the parameters, or a
            `PipelineExecution` (each parameter's state cut over the ranks of its stage).
        shard_size (int): ranks sharing one parameter's state; -1: all its repeated ranks. Default: the context's
            ``optimizer_weight_shard_size``.
        level (str): "level1", "level2" or "level3" (see the module docstring). Default: the context's
            ``parallel_optimizer_config["optimizer_level"]``, else "level1".
        threshold (int): ``parallel_optimizer_threshold`` in KB: a parameter of fewer bytes keeps its state whole
            (MindSpore's default through the context is 64). Default: 0.

    Raises:
        TypeError: an optimizer neither in `SHARDABLE` nor in `REDUCING`.
        ValueError: a parameter the execution did not read, or an unknown level.
    """

    def __init__(self, optimizer, execution, shard_size=None, level=None, threshold=0):
        size, self.level = checked_config(optimizer, shard_size, level)
        self.optimizer, self.execution = optimizer, execution
        self.params = list(optimizer.parameters)
        known = execution.parameter_layouts()
        self.layouts, self.opt_layouts, self.states = {}, {}, {}
        for p in self.params:
            if p.name not in known:
                raise ValueError(f"For the parallel optimizer, the parameter '{p.name}' was not read by the sharded "
                                 f"step.")
            layout = execution.layout_of(p)
            self.layouts[id(p)] = layout
            self.opt_layouts[id(p)] = optimizer_layout(p, layout, size, threshold)
        own = {id(p) for p in self.params}
        by_name = {p.name: p for p in self.params}
        self.globals = []
        # each parameter's and state's layout of its optimizer slices
        self.held = {id(p): self.opt_layouts[id(p)] for p in self.params}
        for attr, dropped in _SLICED_STATE.get(type(optimizer).__name__, {}).items():
            for p, q in zip(self.params, getattr(optimizer, attr)):
                self.states.setdefault(id(p), []).append(q)
                self.held[id(q)] = _state_layout(self.opt_layouts[id(p)], q, dropped)
        for _, q in optimizer.parameters_and_names():
            if id(q) in own or id(q) in self.held:
                continue
            owner = by_name.get(q.name.partition(".")[2])
            if owner is not None and q.shape == owner.shape:
                self.states.setdefault(id(owner), []).append(q)
                self.held[id(q)] = self.opt_layouts[id(owner)]
            else:
                self.globals.append(q)
        # every rank's slices: parameters (as the optimizer sees them) and states
        self.slices = {}
        for p in self.params:
            for x in [p] + self.states.get(id(p), []):
                self.slices[id(x)] = shard_array(x.asnumpy(), self.held[id(x)])
        self._replay = None   # during `step`: [rank running, reductions it met, {j: reduced}, {rank: asked}]

    @property
    def world(self):
        """The world of the step the optimizer updates from (`execution`'s)."""
        return self.execution.world

    def state_bytes(self, rank):
        """Bytes of the optimizer state `rank` holds."""
        return sum(math.prod(self.held[id(q)].local_shape) * q.itemsize for qs in self.states.values() for q in qs)

    def memory(self, rank):
        """{"params", "grads", "state": bytes} that `rank` keeps between steps at this level."""
        def held(p, sliced):
            layout = self.opt_layouts[id(p)] if sliced else self.layouts[id(p)]
            return math.prod(layout.local_shape) * p.itemsize
        return {"params": sum(held(p, self.level == "level3") for p in self.params),
                "grads": sum(held(p, self.level != "level1") for p in self.params),
                "state": self.state_bytes(rank)}

    def gather_parameters(self):
        """Each parameter's shards in its layout, all-gathered from the ranks' slices (level3 does this before
        the step that reads the weights; the other levels hold them already). A list per parameter."""
        out = []
        for p in self.params:
            layout, opt, shards = self.layouts[id(p)], self.opt_layouts[id(p)], self.slices[id(p)]
            world = self.execution.world_of(p) if hasattr(self.execution, "world_of") else self.world
            out.append(plan(opt, layout, p.itemsize).run(shards, world) if opt != layout else shards)
        return out

    def rank_state(self, rank):
        """{name: Tensor} of `rank`'s slices of the optimizer state (what it saves in its checkpoint)."""
        return {q.name: Tensor(self.slices[id(q)][rank]) for qs in self.states.values() for q in qs}

    def rank_checkpoint(self, rank):
        """{name: Tensor} of what `rank` saves: its optimizer slices of the parameters and of their state."""
        return {x.name: Tensor(self.slices[id(x)][rank]) for p in self.params for x in [p] + self.states.get(id(p), [])}

    def strategy_records(self):
        """{name: ParallelLayouts} of the parameters and their state: the parameter's layout with MindSpore's
        `opt_weight_shard_size` (pieces) and `opt_weight_shard_step` (rank stride inside a shard group)."""
        out = {}
        for p in self.params:
            layout, opt = self.layouts[id(p)], self.opt_layouts[id(p)]
            rec = record_of(layout, f"parameter '{p.name}'")
            if opt != layout:
                inner = opt.dims[0][-1]
                rec.opt_weight_shard_size = opt.cuts(0) // layout.cuts(0)
                rec.opt_weight_shard_step = math.prod(opt.mesh.shape[inner + 1:])
            out[p.name] = rec
            for q in self.states.get(id(p), []):
                own = self.held[id(q)]
                out[q.name] = rec if own == opt else record_of(own, f"parameter '{q.name}'")
        return out

    def save_strategy(self, path):
        """Write MindSpore's strategy file of the step with the optimizer shards (see `strategy_records`)."""
        write_strategy_file(path, self.strategy_records(), self.execution.operator_strategies())

    def step(self, gradients):
        """One update from the step's `gradients` (Tensors of the recorded program, in the optimizer's parameter
        order). Returns each parameter's updated slices in its layout (a list per rank), after the all-gather (level3:
        the ranks' optimizer slices, gathered by the next `gather_parameters`); the Parameters hold the whole updated
        values.

        Raises:
            ValueError: not one gradient per parameter.
        """
        if len(gradients) != len(self.params):
            raise ValueError(f"For the parallel optimizer, {len(gradients)} gradients were given for "
                             f"{len(self.params)} parameters.")
        grads = [self.execution.value(g, self.opt_layouts[id(p)]).shards for p, g in zip(self.params, gradients)]
        scalars = [(q, q.asnumpy()) for q in self.globals]
        wholes = [(x, x.asnumpy()) for p in self.params for x in [p] + self.states.get(id(p), [])]
        self._replay = [None, 0, {}, {}]
        previous, _parallel.slice_reduction = _parallel.slice_reduction, self._reducer
        try:
            while True:  # a pass per reduction over the slices (none for an elementwise update)
                updated = self._run_ranks(scalars, wholes, grads)
                if updated is not None:
                    break
            for r, values in updated.items():
                for (x, _), value in zip(wholes, values):
                    self.slices[id(x)][r] = value
        finally:
            _parallel.slice_reduction = previous
            self._replay = None
            for x, value in wholes:
                x.set_data(Tensor(value, x.dtype), slice_shape=True)
        for p in self.params:
            for x in [p] + self.states.get(id(p), []):
                self.slices[id(x)] = local_shards(self.world, self.slices[id(x)])
                x.set_data(Tensor(self.world.assemble(self.slices[id(x)], self.held[id(x)]), x.dtype))
        if self.level == "level3":
            return [self.slices[id(p)] for p in self.params]
        return self.gather_parameters()

    def _run_ranks(self, scalars, wholes, grads):
        """One pass of the user's optimizer on every rank's slices: {rank: the updated arrays of `wholes`}, or None
        when the ranks stopped at a reduction not yet known (all-reduced here for the next pass)."""
        replay = self._replay
        out = {}
        for r in self.world.ranks:  # a process of a real world: its own rank
            replay[0], replay[1] = r, 0
            for q, value in scalars:  # the same step on every rank: each starts from the same scalars
                q.set_data(Tensor(value, q.dtype))
            for x, _ in wholes:
                x.set_data(Tensor(np.ascontiguousarray(self.slices[id(x)][r]), x.dtype), slice_shape=True)
            try:
                self.optimizer(tuple(Tensor(np.ascontiguousarray(g[r])) for g in grads))
            except _Pending:
                continue
            out[r] = [x.asnumpy() for x, _ in wholes]
        asked = replay[3]
        if not asked:
            return out
        found = {(j, id(world), str(groups)) for j, _, groups, world in asked.values()}
        if len(found) != 1 or len(asked) != len(self.world.ranks):
            raise RuntimeError(f"For the parallel optimizer, the ranks' updates reached different reductions over "
                               f"the slices: {sorted((r, a[0]) for r, a in asked.items())}.")
        j, _, groups, world = next(iter(asked.values()))
        values = [None] * world.size
        for r, (_, partial, _, _) in asked.items():
            values[r] = partial
        replay[2][j] = world.all_reduce(values, groups)
        asked.clear()
        return None

    def _reducer(self, p):
        """The reduction over the slices of Parameter `p` its primitives read (`common._parallel.slice_reduction`):
        None for a parameter this optimizer does not hold in slices."""
        layout = self.opt_layouts.get(id(p))
        if layout is None or self._replay is None:
            return None
        world = self.execution.world_of(p) if hasattr(self.execution, "world_of") else self.world

        def reduce(partial, dims):
            axes = sorted({a for d in dims for a in layout.dims[d]})
            if not axes:
                return partial
            replay = self._replay
            r, j = replay[0], replay[1]
            replay[1] += 1
            if j in replay[2]:
                return replay[2][j][r]
            replay[3][r] = (j, partial, layout.mesh.groups(axes), world)
            raise _Pending

        reduce.shape = layout.shape
        return reduce


def _reduce_over(layout, world, rank):
    """The reduction over the slices of a parameter held in `layout`, for a world computing only `rank` (a process
    of a real run): each partial sum all-reduced at once over the ranks holding the other pieces of its dims."""
    def reduce(partial, dims):
        axes = sorted({a for d in dims for a in layout.dims[d]})
        if not axes:
            return partial
        values = [None] * world.size
        values[rank] = partial
        return world.all_reduce(values, layout.mesh.groups(axes))[rank]

    reduce.shape = layout.shape
    return reduce


@contextlib.contextmanager
def slice_reductions(layouts, world):
    """While it runs, the norms and means of the optimizers in `REDUCING` over a parameter held in slices (`layouts`:
    {id(Parameter): the layout of its slices}) are all-reduced over `world`, this process's (its one rank), as
    `ShardedOptimizer` does on a simulated world (`common._parallel.slice_reduction`)."""
    rank = world.ranks[0]
    reducers = {k: _reduce_over(layout, world, rank) for k, layout in layouts.items()}
    previous, _parallel.slice_reduction = _parallel.slice_reduction, lambda p: reducers.get(id(p))
    try:
        yield
    finally:
        _parallel.slice_reduction = previous


def _state_layout(layout, q, dropped):
    """The layout of a parameter's optimizer state `q` when the parameter's slices are in `layout`: `layout`
    without dim `dropped` (a factored moment), `layout` itself when `q` is shaped as the parameter, else whole on
    every rank (a placeholder)."""
    shape = tuple(layout.shape)
    if dropped is not None and len(shape) >= 2:
        d = dropped % len(shape)
        dims = layout.dims[:d] + layout.dims[d + 1:]
        if tuple(q.shape) == shape[:d] + shape[d + 1:]:
            return TensorLayout(layout.mesh, tuple(q.shape), dims)
    elif tuple(q.shape) == shape:
        return layout
    return TensorLayout.replicated(layout.mesh, tuple(q.shape))
