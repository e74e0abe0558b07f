"""The ordinary training API on a simulated world: `nn.TrainOneStepCell` (and `Model.train`, which calls it) run
each step sharded over the ranks of a `SimulatedWorld`, as the auto-parallel context configures it.

>>> with simulate(4) as run:          # doctest: +SKIP
...     step = nn.TrainOneStepCell(net_with_loss, optimizer)
...     loss = step(x, y)                 # the global batch: each rank reads its part

While `simulate(world)` runs, a step of a `TrainOneStepCell` (under ``parallel_mode`` ``"semi_auto_parallel"`` or
``"auto_parallel"``):

1. records the cell's forward and backward pass (`_spmd.record`, one PyNative run on whole tensors), and where the
   forward pass ends (the network's call returns); in GRAPH_MODE the program is the step's graph instead
   (`_ir.graph_program`, the forward pass ending at the loss), unless it updates state;
2. runs it on the world's ranks (`_spmd.execute`): the inputs start cut by the context's ``dataset_strategy``
   (``"data_parallel"``: dim 0 over every rank; ``"full_batch"``: whole on every rank; or one strategy per input);
3. updates the parameters. With ``enable_parallel_optimizer`` the optimizer is a `_zero.ShardedOptimizer` (the
   context's ``optimizer_weight_shard_size`` and ``parallel_optimizer_config``: ``optimizer_level``,
   ``parallel_optimizer_threshold`` in KB, 64 by default as MindSpore's; ``gradient_accumulation_shard`` means
   level2). At level3 the ranks keep only their weight slices: each weight starts the step in its slices and is
   all-gathered where its first consumer needs it (layer by layer inside the forward pass), and gathered again
   for the backward pass (MindSpore frees the forward gathers). Without it the gradients are read in their
   parameters' layouts (data parallel all-reduces them) and the user's optimizer updates the parameters.

With ``pipeline_stages`` above 1 the cell's network (an `nn.PipelineCell` whose cells have a ``pipeline_stage``) runs
in stages (`_pipeline`), each on world size / stages ranks with the dataset strategy inside the stage, the calls in
the order of the context's schedule (``pipeline_config``); the parallel optimizer cuts each parameter's state over
the ranks of its stage (level3 gathers a weight once per step on its stage, for the forward and the backward passes
of every micro-batch). On processes (`process_training`) each process runs its own stage and sends the values
crossing stages to the others. With Parameters holding data it reads the loss and every gradient from their stages,
so every process updates all the parameters; with Parameters made under ``nn.utils.no_init_parameters`` (or with the
parallel optimizer, which cuts Parameters holding data on the first step) each process holds, initializes and
updates only its stage's slices (`_sliced`), and only the last stage returns the loss.

The step returns the loss the ranks computed (and, with ``return_grad``, the gradients), as the cell does.
"""
import contextlib
import functools
import weakref

import numpy as np

from mindseed.common import _parallel
from mindseed.common._parallel import get_auto_parallel_context
from mindseed.common.context import GRAPH_MODE, PYNATIVE_MODE
from mindseed.common.dtype import dtype_to_nptype
from mindseed.common._shard_layout import Layout
from mindseed.common.tensor import Tensor
from mindseed.ops.functional._comm import _layout_strategy
from mindseed.parallel._layout import TensorLayout, shard_array
from mindseed.parallel._pipeline import _wrap, execute_pipeline, record_pipeline, staged_program
from mindseed.parallel._ir import apply_updates, graph_program
from mindseed.parallel._spmd import _Recorder, execute, forward_calls, record
from mindseed.parallel._world import ShapeWorld, SimulatedWorld
from mindseed.parallel import _sliced
from mindseed.parallel._zero import HELD, SHARDABLE, ShardedOptimizer, checked_config, optimizer_layout, \
    slice_reductions
from mindseed.parallel.strategy import record_execution
from mindseed._utils import _state

__all__ = ["simulate", "SimulatedTraining"]

_MODES = ("semi_auto_parallel", "auto_parallel")


def _record_step(cell, inputs, abstract=False):
    """(Program of one step of `cell`, index of the first call after its network's forward pass); `abstract`:
    recorded without computing (`record(..., abstract=True)`)."""
    ends = []

    def enter():
        def leave():
            rec = next(t for t in reversed(_state.tapes) if isinstance(t, _Recorder))
            ends.append(len(rec.calls))
        return leave

    undo = _wrap(cell.network, enter)
    try:
        program = record(cell._loss_and_grads, *inputs, abstract=abstract)
    finally:
        undo()
    return program, (ends[0] if ends else len(program.calls))


def dataset_layouts(inputs, size):
    """(Tensor, strategy) of the step's inputs under the context's ``dataset_strategy`` on `size` ranks.

    Raises:
        ValueError: a strategy tuple that does not give one strategy per tensor input.
    """
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    strategy = get_auto_parallel_context("dataset_strategy")
    if strategy == "full_batch":
        return []
    if strategy == "data_parallel":
        return [(t, (size,) + (1,) * (t.ndim - 1)) for t in tensors if t.ndim]
    if len(strategy) != len(tensors):
        raise ValueError(f"For the simulated training step, the 'dataset_strategy' {strategy} must hold one strategy "
                         f"per input tensor, but the step has {len(tensors)} input tensors.")
    return list(zip(tensors, strategy))


def global_inputs(inputs, world):
    """The step's inputs whole on this process of a real run, from the rank's own slices as MindSpore's dataset
    gives them (``dataset_strategy``: ``"data_parallel"`` cuts dim 0 over every rank, a tuple one strategy per
    input; ``"full_batch"``: every rank reads the whole batch, unchanged): the global shape is the local one times
    the cuts, and the slices are gathered."""
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    cut = {}
    for t, strategy in dataset_layouts(tensors, world.size):
        if isinstance(strategy, Layout):  # a Layout (AutoParallel.dataset_strategy): its cuts give the shape
            shape = tuple(d * s for d, s in zip(t.shape, _layout_strategy(strategy)))
            layout = TensorLayout.from_layout(shape, strategy)
        else:
            shape = tuple(d * s for d, s in zip(t.shape, strategy))
            layout = TensorLayout.from_strategy(shape, strategy, world.size)
        shards = [None] * world.size
        shards[world.rank] = t.asnumpy()
        cut[id(t)] = Tensor(world.assemble(shards, layout), t.dtype)
    return tuple(cut.get(id(a), a) for a in inputs)


def _optimizer_config():
    """(level, threshold in KB) of the parallel optimizer from the context."""
    # NOTE: MindSpore's get_auto_parallel_context refuses 'parallel_optimizer_config': read the store
    config = _parallel._values["parallel_optimizer_config"]
    level = config.get("optimizer_level")
    if level is None:
        level = "level2" if config.get("gradient_accumulation_shard") else "level1"
    return level, config.get("parallel_optimizer_threshold", 64)


class _CellState:
    """What a TrainOneStepCell keeps across its simulated steps."""

    def __init__(self, cell):
        self.cell = cell
        self.sharded = None      # the ShardedOptimizer once the first step has given the parameters' layouts


class SimulatedTraining:
    """The runner `simulate` installs: `runner(cell, inputs)` runs one step of a TrainOneStepCell on `world`.

    Attributes:
        world (SimulatedWorld): the ranks; their collectives are logged in ``world.log``.
        executions (list): the `Execution` (a pipeline: `PipelineExecution`) of every step, in order.
    """

    def __init__(self, world):
        self.world = world
        self.executions = []
        self.fallbacks = []  # why a graph was recorded as PyNative calls instead (state updates, graph breaks)
        self._cells = {}
        self._sliced = {}   # id(Parameter) -> (it, global shape, layout): held in this process's slices
        self._absent = {}   # id(Parameter) -> it: held by the processes of another pipeline stage, not this one
        self._layouts = {}  # id(Parameter) -> (its layout in the step, the layout of its optimizer slices)
        self._regather = set()   # ids of the weights gathered again for the backward pass (level3)
        self._owned = {}    # id(Parameter) -> (it, stage, layout): read by several pipeline stages, held by that one

    def sharded_optimizer(self, cell):
        """The `ShardedOptimizer` of `cell`'s steps (None without ``enable_parallel_optimizer``)."""
        state = self._cells.get(id(cell))
        return None if state is None else state.sharded

    def rank_parameters(self, cell, rank):
        """{name: Tensor} of `rank`'s slice of each parameter of `cell`'s optimizer as it is now (after the last
        step), cut by the layouts of that step: what the rank saves with ``save_checkpoint(net, file,
        integrated_save=False)`` on a cluster (the slices the strategy file describes); in a pipeline, of its stage's
        parameters only.

        Raises:
            ValueError: `cell` has run no step on this world, or `rank` is not computed by this process.
        """
        state = self._cells.get(id(cell))
        if state is None or state.cell is not cell or not self.executions:
            raise ValueError("For 'rank_parameters', the cell has run no training step on this world.")
        if rank not in self.world.ranks:
            raise ValueError(f"For 'rank_parameters', rank {rank} is not computed by this process (it computes "
                             f"{list(self.world.ranks)}).")
        ex = self.executions[-1]
        return {p.name: Tensor(p.asnumpy(), p.dtype) if id(p) in self._sliced else _rank_slice(p, ex.layout_of(p), rank)
                for p in cell.optimizer.parameters if id(p) not in self._absent}   # another stage's: not here

    def __call__(self, cell, inputs):
        previous, _state.mode = _state.mode, PYNATIVE_MODE
        try:  # the step is partitioned from its graph in GRAPH_MODE when it can be, else from its PyNative recording
            return self._step(cell, inputs, graph=previous == GRAPH_MODE)
        finally:
            _state.mode = previous

    def _program(self, fn, args, graph=None, kwargs=None):
        """The Program of `fn(*args)`: partitioned from the compiler's graph of `graph` (a Cell, a jitted function or
        a bound method called on `args` and `kwargs`: `_ir.graph_program`) when given and the graph is a
        straight-line program of pure calls, else recorded as PyNative calls (`_spmd.record`; the reason the graph
        could not be used appended to `fallbacks`)."""
        if graph is not None:
            program, why = graph_program(graph, args, kwargs)
            if program is not None:
                return program
            self.fallbacks.append(why)
        return record(fn, *args)

    def _pipeline_program(self, cell, inputs, graph, network, abstract=False):
        """The `PipelineProgram` of a step of `cell` in the stages of `network`: from the step's graph in GRAPH_MODE
        (`graph`), its calls placed by the cell scopes they were traced in (`_pipeline.staged_program`), else
        recorded (`record_pipeline`); `abstract`: on shapes alone."""
        if graph:
            program, why = graph_program(cell._loss_and_grads, inputs, abstract=abstract)
            if program is not None:
                return staged_program(program, network)
            self.fallbacks.append(why)
        return record_pipeline(cell._loss_and_grads, network, *inputs, abstract=abstract)

    def forward(self, fn, args, graph=None, kwargs=None):
        """Run `fn(*args)` (a sharded cell's or function's call outside a training step) partitioned on the world:
        a GRAPH_MODE or jitted call (`graph`: the Cell or jitted function called, with `kwargs`) from its graph's
        program, a PyNative call (or a graph updating state) from its recording as PyNative
        calls (`_program`); its inputs cut by the ``dataset_strategy``, run on the ranks (the `Execution` appended to
        `executions`); returns its outputs read whole from the ranks (a tuple stays a tuple)."""
        previous, _state.mode = _state.mode, PYNATIVE_MODE
        try:
            program = self._program(fn, args, graph, kwargs)
            ex = execute(program, self.world, dataset_layouts(args, self.world.size))
            apply_updates(program)
        finally:
            _state.mode = previous
        self.executions.append(ex)
        record_execution(ex, self.world)

        def read(t):
            if isinstance(t, (tuple, list)):  # nested outputs (a gradient call's (value, gradients)) read through
                return type(t)(read(r) for r in t)
            if isinstance(t, dict):
                return {k: read(v) for k, v in t.items()}
            if not isinstance(t, Tensor) or id(t) not in ex._executor.env:
                return t
            return _whole(ex, t, TensorLayout.replicated(ex.layout_of(t).mesh, tuple(t.shape)))

        return read(program.result)

    def _step(self, cell, inputs, graph=False):
        mode = get_auto_parallel_context("parallel_mode")
        if mode not in _MODES:
            raise ValueError(f"For the simulated training step, the 'parallel_mode' must be one of {', '.join(_MODES)}"
                             f", but got '{mode}'.")
        if type(cell).construct is not _train_one_step_construct():
            raise TypeError(f"For the simulated training step, the cell must run nn.TrainOneStepCell's step, but "
                            f"{type(cell).__name__} overrides 'construct'.")
        n = self.world.size
        stages = get_auto_parallel_context("pipeline_stages")
        processes = self.world.ranks != range(n)
        if _parallel._values["device_num_is_set"] and get_auto_parallel_context("device_num") != n:
            raise ValueError(f"For the simulated training step, the 'device_num' "
                             f"{get_auto_parallel_context('device_num')} of the context must be the world's size {n}.")
        state = self._cells.get(id(cell))
        if state is None or state.cell is not cell:
            state = self._cells[id(cell)] = _CellState(cell)
        zero = get_auto_parallel_context("enable_parallel_optimizer")
        if processes and (stages > 1 and zero or
                          _sliced.waiting_or_sliced(cell.optimizer.parameters, self._sliced, self._absent)):
            # a pipeline with the parallel optimizer cuts Parameters holding data too, on its first step
            return self._sliced_step(cell, inputs, graph) if stages == 1 else \
                self._sliced_pipeline_step(cell, inputs, stages, graph)
        if processes:  # processes of a real run: each gave its own slice of the batch (of its stage's, in stages)
            inputs = global_inputs(inputs, self.world if stages == 1 or n % stages else self.world.stage(stages))
        if stages > 1:  # the stages on world size / stages ranks each (`_pipeline`)
            program, forward_end = self._pipeline_program(cell, inputs, graph, _staged_network(cell.network)), None
            layouts = dataset_layouts(inputs, n // stages if n % stages == 0 else n)

            def run(layouts, regather=None, probe=False):
                return execute_pipeline(program, stages, n, layouts, get_auto_parallel_context("pipeline_scheduler"),
                                        get_auto_parallel_context("pipeline_interleave"),
                                        self.world if processes else None)
        else:
            program, why = graph_program(cell._loss_and_grads, inputs) if graph else (None, None)
            if program is not None:   # the step's graph: its forward pass ends with the loss
                forward_end = forward_calls(program)
            else:
                if why is not None:
                    self.fallbacks.append(why)
                program, forward_end = _record_step(cell, inputs)
            layouts = dataset_layouts(inputs, n)

            def run(layouts, regather=None, probe=False):
                return execute(program, ShapeWorld(n) if probe else self.world, layouts, regather)
        loss, grads = program.result
        params = list(cell.optimizer.parameters)
        regather = None
        if get_auto_parallel_context("enable_parallel_optimizer"):
            level, threshold = _optimizer_config()
            if state.sharded is None:  # the parameters' layouts: a first run of the step
                if cell.optimizer.__dict__.get("_lazy_params"):  # state made under no_init_parameters: initialized
                    cell.optimizer._init_lazy_params()             # whole, as the optimizer's first call would
                state.sharded = ShardedOptimizer(cell.optimizer, run(layouts, probe=True), level=level,
                                                 threshold=threshold)
            sharded = state.sharded
            if sharded.level == "level3":  # the ranks hold slices: every weight starts the step in them
                sliced = [p for p in params if sharded.opt_layouts[id(p)] != sharded.layouts[id(p)]]
                layouts = layouts + [(p, sharded.opt_layouts[id(p)]) for p in sliced]
                regather = None if forward_end is None else (forward_end, sliced)
        ex = run(layouts, regather)
        apply_updates(program)
        self.executions.append(ex)
        record_execution(ex, self.world, state.sharded and state.sharded.opt_layouts)
        if forward_end is not None and len(self.world.ranks) == 1:  # one rank per process: what it saves
            for p in params:
                _parallel.parameter_slices[id(p)] = (weakref.ref(p), functools.partial(
                    _rank_slice, layout=ex.layout_of(p), rank=self.world.ranks[0]))
        if state.sharded is not None:
            state.sharded.execution = ex
            state.sharded.step(grads)
        else:
            cell.optimizer(tuple(_whole(ex, g, ex.layout_of(p)) for p, g in zip(params, grads)))
        return _result(cell, params, loss, grads, ex)


    def _sliced_step(self, cell, inputs, graph=False):
        """One step on a process holding only its slices (`_sliced`): recorded abstractly, the Parameters waiting
        for their initialization initialized as this rank's slices on the first step (with the parallel optimizer:
        its optimizer slices), run with the slices given, the optimizer updating the slices."""
        world = self.world
        rank = world.ranks[0]
        args, layouts, shards = _sliced_inputs(inputs, world)
        with _sliced.standing_whole(self._sliced):
            program, why = graph_program(cell._loss_and_grads, args, abstract=True) if graph else (None, None)
            if program is not None:   # GRAPH_MODE: the step's graph traced on shapes (no kernel, no data)
                forward_end = forward_calls(program)
            else:
                if why is not None:
                    self.fallbacks.append(why)
                program, forward_end = _record_step(cell, args, abstract=True)
            params = list(cell.optimizer.parameters)
            if not all(id(p) in self._sliced for p in params):
                self._init_slices(cell, program, layouts)
        mine = [(p, lay) for p, _, lay in self._sliced.values()]
        layouts += mine
        shards += [(p, _sliced.mine(world, p.asnumpy())) for p, _ in mine]
        # the parallel optimizer's weights are held in their optimizer slices and gathered where the forward pass reads
        # them; at level3 again for the backward (the forward's copy freed)
        gathered = [p for p in params if id(p) in self._regather]
        with _sliced.standing_whole(self._sliced):
            ex = execute(program, world, layouts, (forward_end, gathered) if gathered else None, shards=shards)
        self.executions.append(ex)
        record_execution(ex, world, {k: lay for k, (_, _, lay) in self._sliced.items()})
        loss, grads = program.result
        # each gradient in its optimizer slices (the parallel optimizer: reduce-scattered), the update on them
        grads = [ex.value(g, self._layouts[id(p)][1]).shards[rank] for p, g in zip(params, grads)]
        for p, _, layout in self._sliced.values():  # what save_checkpoint saves: the slice held or gathered
            _parallel.parameter_slices[id(p)] = (weakref.ref(p), _held)
            _parallel.parameter_wholes[id(p)] = (weakref.ref(p), functools.partial(_gathered, world=world,
                                                                                   layout=layout))
        with slice_reductions({id(p): self._layouts[id(p)][1] for p in params}, world):
            _sliced.update_held(cell.optimizer, grads)   # Lamb's and LARS's norms all-reduced over the pieces
        with _sliced.standing_whole(self._sliced):
            return _result(cell, params, loss, program.result[1], ex)

    def _sliced_pipeline_step(self, cell, inputs, stages, graph=False):
        """One step of a pipeline on a process holding only its stage's Parameters (`_sliced`): recorded abstractly;
        on the first step the Parameters its stage reads are initialized as this rank's slices, the other stages'
        (and their optimizer state) left without data; run in the schedule's order with only the activations and
        gradients crossing stages sent between the processes; the optimizer updates this stage's Parameters. The
        last stage returns the loss; the other stages return zeros of its shape, as MindSpore's."""
        world, n = self.world, self.world.size
        stage_world = world.stage(stages)
        mine, index = divmod(world.rank, stage_world.size)
        args, layouts, shards = _sliced_inputs(inputs, stage_world)
        params = list(cell.optimizer.parameters)
        with _sliced.standing_whole(self._sliced):
            program = self._pipeline_program(cell, args, graph, cell.network, abstract=True)
            if not all(id(p) in self._sliced or id(p) in self._absent for p in params):
                self._init_stage_slices(cell, program, layouts, stages, mine, index)
        held = [(p, lay) for p, _, lay in self._sliced.values()]
        layouts += held + [(p, lay) for p, _, lay in self._owned.values() if id(p) not in self._sliced]
        shards += [(p, _sliced.mine(stage_world, p.asnumpy())) for p, _ in held]
        with _sliced.standing_whole(self._sliced):
            ex = execute_pipeline(program, stages, n, layouts, get_auto_parallel_context("pipeline_scheduler"),
                                  get_auto_parallel_context("pipeline_interleave"), world, shards=shards,
                                  owners=[(p, s) for p, s, _ in self._owned.values()])
        self.executions.append(ex)
        stage = ex.stages[mine]
        loss, grads = program.result
        # each gradient of this stage in its optimizer slices (the parallel optimizer: reduce-scattered in the stage)
        mine_grads = [stage.value(g, self._layouts[id(p)][1]).shards[index] if id(p) in self._sliced else None
                      for p, g in zip(params, grads)]
        for p, _, layout in self._sliced.values():  # what save_checkpoint saves: the slice held or gathered
            _parallel.parameter_slices[id(p)] = (weakref.ref(p), _held)
            _parallel.parameter_wholes[id(p)] = (weakref.ref(p), functools.partial(_stage_gathered, world=stage_world,
                                                                                   layout=layout))
        _sliced.update_held(cell.optimizer, mine_grads, list(self._absent.values()))

        def read(t):
            layout = TensorLayout.replicated(stage.layout_of(t).mesh, tuple(t.shape))
            return Tensor(stage.whole(t, layout), t.dtype)

        with _sliced.standing_whole(self._sliced):
            out = read(loss) if ex.stage_of(loss) == mine else \
                Tensor(np.zeros(tuple(loss.shape), dtype_to_nptype(loss.dtype)), loss.dtype)
            if cell.return_grad:  # the gradients of this stage's Parameters
                return out, {p.name: read(g) for p, g in zip(params, grads) if id(p) in self._sliced}
        return out

    def _init_stage_slices(self, cell, program, layouts, stages, mine, index):
        """The first step of a pipeline whose Parameters wait for their initialization (or, with the parallel
        optimizer, hold data: cut as MindSpore's compilation cuts them), on a process of stage `mine` (rank `index`
        in it): each Parameter's stage and layout from a run of the abstract `program` on layouts only; the
        Parameters of this stage (and their optimizer state) initialized as this rank's slices,
        those of the other stages left without data (`_absent`). A Parameter several stages read is held by the
        first of them, which sends it to the others each step (`_owned`)."""
        n = self.world.size
        probe = execute_pipeline(program, stages, n, layouts, world=ShapeWorld(n))
        name = type(cell.optimizer).__name__
        states, others = _sliced.optimizer_states(cell.optimizer)
        zero = _zero_config(cell.optimizer)   # the optimizer slices cut over the stage's ranks repeating a parameter
        params = list(cell.optimizer.parameters)
        placed = {}
        for p in params:
            readers = [s for s, ex in enumerate(probe.stages) if id(p) in ex._executor.params]
            if not readers:
                raise ValueError(f"For the sharded training step, the parameter '{p.name}' of the optimizer is not "
                                 f"read by the step.")
            layout = probe.stages[readers[0]].layout_of(p)
            if len(readers) > 1:  # shared by stages: held by the first, sent to the others each step
                self._owned[id(p)] = (p, readers[0], layout)
            if name not in SHARDABLE and (zero or not layout.is_replicated()):
                raise TypeError(f"For the sharded training step on processes holding their slices, the optimizer "
                                f"must be one of {', '.join(SHARDABLE)} (an elementwise update) when a parameter "
                                f"or its optimizer state is cut, but got {name} and '{p.name}' cut by {layout}.")
            placed[id(p)] = (readers[0], layout)
        for p in params:
            s, layout = placed[id(p)]
            opt = optimizer_layout(p, layout, zero[0], zero[1]) if zero else layout
            self._layouts[id(p)] = (layout, opt)
            for x in [p] + states.get(id(p), []):  # the weights and their state in their optimizer slices
                self._place(x, s == mine, opt, index)
        for s, ex in enumerate(probe.stages):  # Parameters the step reads that no optimizer updates (frozen)
            for k, q in ex._executor.params.items():
                if q.has_init and k not in self._sliced and k not in self._absent:
                    self._place(q, s == mine, ex.layout_of(q), index)
        for q in others:
            if q.has_init:
                q.init_data()

    def _place(self, x, here, layout, rank):
        """Parameter (or optimizer state) `x` of a pipeline on processes: held by this process (`here`) as
        `rank`'s slice under `layout`, or left without data (another stage's)."""
        if not here:
            _sliced.drop_data(x)
            self._absent[id(x)] = x
            _parallel.parameter_elsewhere[id(x)] = weakref.ref(x)
            return
        shape = tuple(x.shape)
        _sliced.init_slice(x, layout, rank)
        self._sliced[id(x)] = (x, shape, layout)

    def _init_slices(self, cell, program, layouts):
        """The first step of a cell whose Parameters wait for their initialization: their layouts from a run of
        the abstract `program` on a ShapeWorld, then each initialized as this rank's slice (its optimizer state
        shaped like it too; the optimizer's other Parameters whole)."""
        probe = execute(program, ShapeWorld(self.world.size), layouts)
        params = list(cell.optimizer.parameters)
        name = type(cell.optimizer).__name__
        read = probe._executor.params
        rank = self.world.ranks[0]
        states, others = _sliced.optimizer_states(cell.optimizer)
        zero = _zero_config(cell.optimizer)
        for p in params:
            if id(p) not in read:
                raise ValueError(f"For the sharded training step, the parameter '{p.name}' of the optimizer is not "
                                 f"read by the step.")
            layout = probe.layout_of(p)
            if name not in HELD and (zero or not layout.is_replicated()):
                raise TypeError(f"For the sharded training step on processes holding their slices, the optimizer "
                                f"must be one of {', '.join(HELD)} (its state shaped as the parameters) when a "
                                f"parameter or its optimizer state is cut, but got {name} and '{p.name}' cut by "
                                f"{layout}.")
        for p in params:
            layout = probe.layout_of(p)
            opt = optimizer_layout(p, layout, zero[0], zero[1]) if zero else layout
            self._layouts[id(p)] = (layout, opt)
            if zero and zero[2] == "level3" and opt != layout:
                self._regather.add(id(p))
            for x in [p] + states.get(id(p), []):  # a state made whole (outside no_init_parameters) is cut too
                if x.has_init or x is not p:
                    # the weights and their optimizer state in their optimizer slices (MindSpore's levels all cut
                    # the weights)
                    shape = tuple(x.shape)
                    _sliced.init_slice(x, opt, rank)
                    self._sliced[id(x)] = (x, shape, opt)
        for k, q in read.items():  # Parameters the step reads that no optimizer updates (frozen)
            if q.has_init and k not in self._sliced:
                layout = probe.layout_of(q)
                shape = tuple(q.shape)
                _sliced.init_slice(q, layout, rank)
                self._sliced[k] = (q, shape, layout)
        for q in others:
            if q.has_init:
                q.init_data()


def _zero_config(optimizer):
    """(shard size, threshold in KB, level) of the parallel optimizer for `optimizer` from the context (checked:
    `_zero.checked_config`), or None without ``enable_parallel_optimizer``."""
    if not get_auto_parallel_context("enable_parallel_optimizer"):
        return None
    level, threshold = _optimizer_config()
    size, level = checked_config(optimizer, level=level)
    return size, threshold, level


def _sliced_inputs(inputs, world):
    """(args, layouts, shards) of a step on a process holding only its slices: the batch by data-less stand-ins of
    its global shapes on `world` (the process's world, or its pipeline stage's: the rank's slice times the
    ``dataset_strategy``), their layouts, and this rank's slices as their shards."""
    cut = dict((id(t), s) for t, s in dataset_layouts(inputs, world.size))
    args, layouts, shards = [], [], []
    for a in inputs:
        if not isinstance(a, Tensor) or id(a) not in cut:
            args.append(a)
            continue
        shape = tuple(d * k for d, k in zip(a.shape, cut[id(a)]))
        args.append(_sliced.stand_in(shape, a.dtype))
        layouts.append((args[-1], TensorLayout.from_strategy(shape, cut[id(a)], world.size)))
        shards.append((args[-1], _sliced.mine(world, a.asnumpy())))
    return args, layouts, shards


def _staged_network(network):
    """The network a pipeline step runs in stages: `network`, or the one an `AutoParallel` wraps."""
    while hasattr(type(network), "_context_values") and hasattr(network, "network"):
        network = network.network
    return network


def _held(p):
    """Parameter `p` as this process holds it (its slice)."""
    return p


def _gathered(p, world, layout):
    """Parameter `p` whole, gathered from the processes' slices under `layout` (save_checkpoint's integrated save)."""
    return Tensor(world.assemble(_sliced.mine(world, p.asnumpy()), layout), p.dtype)


def _stage_gathered(p, world, layout):
    """Parameter `p` of a pipeline stage whole, gathered from its stage's processes (`world`); under
    ``pipeline_stages`` above 1 MindSpore's integrated save refuses.

    Raises:
        RuntimeError: ``pipeline_stages`` is above 1.
    """
    if get_auto_parallel_context("pipeline_stages") > 1:
        raise RuntimeError("Pipeline Parallel don't support Integrated save checkpoint now.")
    return _gathered(p, world, layout)


def _rank_slice(p, layout, rank):
    """Parameter `p`'s slice on `rank` under `layout`, as it is now."""
    return Tensor(np.ascontiguousarray(shard_array(p.asnumpy(), layout)[rank]), p.dtype)


def _whole(ex, t, layout):
    """Tensor `t` whole, read from `ex`'s ranks in `layout` (its redistribution to it logged)."""
    return Tensor(ex.whole(t, layout), t.dtype)


def _result(cell, params, loss, grads, ex):
    """What the cell's step returns: the loss the ranks computed (and, with `return_grad`, {name: gradient})."""
    def read(t):
        return _whole(ex, t, TensorLayout.replicated(ex.layout_of(t).mesh, tuple(t.shape)))

    if cell.return_grad:
        return read(loss), {p.name: read(g) for p, g in zip(params, grads)}
    return read(loss)


def _train_one_step_construct():
    from mindseed.nn.wrap.cell_wrapper import TrainOneStepCell  # noqa: PLC0415  (nn imports parallel lazily)
    return TrainOneStepCell.construct


_process_runner = []   # the runner of this process's real world, once a step has needed it


def process_training():
    """The runner of `nn.TrainOneStepCell`'s steps on the processes of a real run (after
    `communication.init()`, under ``semi_auto_parallel`` / ``auto_parallel``): each process runs its rank's shards
    of the step with the real collectives (`_process_world.ProcessWorld`), its inputs the rank's slices of the
    batch (`global_inputs`)."""
    if not _process_runner:
        from mindseed.parallel._process_world import ProcessWorld  # noqa: PLC0415  (imports communication)
        _process_runner.append(SimulatedTraining(ProcessWorld()))
    return _process_runner[0]


@contextlib.contextmanager
def simulate(world):
    """Run the training steps of `nn.TrainOneStepCell` (and `Model.train`) on `world` while the block runs.

    Args:
        world (Union[int, SimulatedWorld, ProcessWorld]): the ranks (an int: a new SimulatedWorld of that many).

    Yields:
        SimulatedTraining: the runner (its world's log, the executions, the sharded optimizers).

    Raises:
        ValueError: a world size that is not a positive int.
    """
    if isinstance(world, int):
        world = SimulatedWorld(world)
    runner = SimulatedTraining(world)
    previous = _parallel.simulated_training
    _parallel.simulated_training = runner
    try:
        yield runner
    finally:
        _parallel.simulated_training = previous
