"""The ordinary training API on a simulated world: `nn.TrainOneStepCell` (and `Model.train`, which calls it) run
each step sharded over the ranks of a `SimulatedWorld`, as the auto-parallel context configures it.

>>> with simulate(4) as run:          # doctest: +SKIP
...     step = nn.TrainOneStepCell(net_with_loss, optimizer)
...     loss = step(x, y)                 # the global batch: each rank reads its part

While `simulate(world)` runs, a step of a `TrainOneStepCell` (under ``parallel_mode`` ``"semi_auto_parallel"`` or
``"auto_parallel"``):

1. records the cell's forward and backward pass (`_spmd.record`, one PyNative run on whole tensors), and where the
   forward pass ends (the network's call returns);
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
crossing stages to the others; it reads the loss and every gradient from their stages, so every process updates
all the parameters (the parallel optimizer inside stages runs on a simulated world only).

The step returns the loss the ranks computed (and, with ``return_grad``, the gradients), as the cell does.
"""
import contextlib
import functools
import weakref

import numpy as np

from mindseed.common import _parallel
from mindseed.common._parallel import get_auto_parallel_context
from mindseed.common.context import PYNATIVE_MODE
from mindseed.common._shard_layout import Layout
from mindseed.common.tensor import Tensor
from mindseed.ops.functional._comm import _layout_strategy
from mindseed.parallel._layout import TensorLayout, shard_array
from mindseed.parallel._pipeline import _wrap, execute_pipeline, record_pipeline
from mindseed.parallel._spmd import _Recorder, execute, record
from mindseed.parallel._world import ShapeWorld, SimulatedWorld
from mindseed.parallel import _sliced
from mindseed.parallel._zero import SHARDABLE, ShardedOptimizer
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
        self._cells = {}
        self._sliced = {}   # id(Parameter) -> (it, global shape, layout): held in this process's slices

    def sharded_optimizer(self, cell):
        """The `ShardedOptimizer` of `cell`'s steps (None without ``enable_parallel_optimizer``)."""
        state = self._cells.get(id(cell))
        return None if state is None else state.sharded

    def rank_parameters(self, cell, rank):
        """{name: Tensor} of `rank`'s slice of each parameter of `cell`'s optimizer as it is now (after the last
        step), cut by the layouts of that step: what the rank saves with ``save_checkpoint(net, file,
        integrated_save=False)`` on a cluster (the slices the strategy file describes).

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
                for p in cell.optimizer.parameters}

    def __call__(self, cell, inputs):
        previous, _state.mode = _state.mode, PYNATIVE_MODE
        try:  # the step is recorded and partitioned as PyNative calls (a GRAPH_MODE context included)
            return self._step(cell, inputs)
        finally:
            _state.mode = previous

    def forward(self, fn, args):
        """Run `fn(*args)` (a sharded cell's or function's call outside a training step) partitioned on the world:
        recorded as PyNative calls whatever the mode (a GRAPH_MODE call partitions as its PyNative recording does),
        its inputs cut by the ``dataset_strategy``, run on the ranks (the `Execution` appended to `executions`);
        returns its outputs read whole from the ranks (a tuple stays a tuple)."""
        previous, _state.mode = _state.mode, PYNATIVE_MODE
        try:
            program = record(fn, *args)
            ex = execute(program, self.world, dataset_layouts(args, self.world.size))
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

    def _step(self, cell, inputs):
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
        if processes and stages == 1 and not get_auto_parallel_context("enable_parallel_optimizer") and \
                _sliced.waiting_or_sliced(cell.optimizer.parameters, self._sliced):
            return self._sliced_step(cell, inputs)
        if processes:  # processes of a real run: each gave its own slice of the batch (of its stage's, in stages)
            inputs = global_inputs(inputs, self.world if stages == 1 or n % stages else self.world.stage(stages))
        state = self._cells.get(id(cell))
        if state is None or state.cell is not cell:
            state = self._cells[id(cell)] = _CellState(cell)
        if stages > 1 and processes and get_auto_parallel_context("enable_parallel_optimizer"):
            raise RuntimeError(f"For the sharded training step on processes, the parallel optimizer inside "
                               f"'pipeline_stages' {stages} is not supported: it runs on a simulated world "
                               f"(mindseed.parallel._train.simulate) or without 'enable_parallel_optimizer'.")
        if stages > 1:  # the stages on world size / stages ranks each (`_pipeline`)
            program, forward_end = record_pipeline(cell._loss_and_grads, _staged_network(cell.network), *inputs), None
            layouts = dataset_layouts(inputs, n // stages if n % stages == 0 else n)

            def run(layouts, regather=None, probe=False):
                return execute_pipeline(program, stages, n, layouts, get_auto_parallel_context("pipeline_scheduler"),
                                        get_auto_parallel_context("pipeline_interleave"),
                                        self.world if processes else None)
        else:
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


    def _sliced_step(self, cell, inputs):
        """One step on a process holding only its slices (`_sliced`): recorded abstractly, the Parameters waiting
        for their initialization initialized as this rank's slices on the first step, run with the slices given,
        the optimizer updating the slices."""
        world, n = self.world, self.world.size
        rank = world.ranks[0]
        cut = dict((id(t), s) for t, s in dataset_layouts(inputs, n))
        args, layouts, shards = [], [], []
        for a in inputs:  # the batch: stand-ins of its global shapes, this rank's slices given
            if not isinstance(a, Tensor) or id(a) not in cut:
                args.append(a)
                continue
            shape = tuple(d * k for d, k in zip(a.shape, cut[id(a)]))
            args.append(_sliced.stand_in(shape, a.dtype))
            layouts.append((args[-1], TensorLayout.from_strategy(shape, cut[id(a)], n)))
            shards.append((args[-1], _sliced.mine(world, a.asnumpy())))
        with _sliced.standing_whole(self._sliced):
            program, forward_end = _record_step(cell, args, abstract=True)
            params = list(cell.optimizer.parameters)
            if not all(id(p) in self._sliced for p in params):
                self._init_slices(cell, program, layouts)
        mine = [(p, lay) for p, _, lay in self._sliced.values()]
        layouts += mine
        shards += [(p, _sliced.mine(world, p.asnumpy())) for p, _ in mine]
        with _sliced.standing_whole(self._sliced):
            ex = execute(program, world, layouts, shards=shards)
        self.executions.append(ex)
        record_execution(ex, world, {k: lay for k, (_, _, lay) in self._sliced.items()})
        loss, grads = program.result
        grads = [ex.value(g, self._sliced[id(p)][2]).shards[rank] for p, g in zip(params, grads)]
        for p, _, layout in self._sliced.values():  # what save_checkpoint saves: the slice held or gathered
            _parallel.parameter_slices[id(p)] = (weakref.ref(p), _held)
            _parallel.parameter_wholes[id(p)] = (weakref.ref(p), functools.partial(_gathered, world=world,
                                                                                   layout=layout))
        cell.optimizer(tuple(Tensor(np.ascontiguousarray(g), p.dtype) for p, g in zip(params, grads)))
        with _sliced.standing_whole(self._sliced):
            return _result(cell, params, loss, program.result[1], ex)

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
        for p in params:
            if id(p) not in read:
                raise ValueError(f"For the sharded training step, the parameter '{p.name}' of the optimizer is not "
                                 f"read by the step.")
            layout = probe.layout_of(p)
            if name not in SHARDABLE and not layout.is_replicated():
                raise TypeError(f"For the sharded training step on processes holding their slices, the optimizer "
                                f"must be one of {', '.join(SHARDABLE)} (an elementwise update) when a parameter "
                                f"is cut, but got {name} and '{p.name}' cut by {layout}.")
        for p in params:
            layout = probe.layout_of(p)
            for x in [p] + states.get(id(p), []):  # a state made whole (outside no_init_parameters) is cut too
                if x.has_init or x is not p:
                    shape = tuple(x.shape)
                    _sliced.init_slice(x, layout, rank)
                    self._sliced[id(x)] = (x, shape, layout)
        for k, q in read.items():  # Parameters the step reads that no optimizer updates (frozen)
            if q.has_init and k not in self._sliced:
                layout = probe.layout_of(q)
                shape = tuple(q.shape)
                _sliced.init_slice(q, layout, rank)
                self._sliced[k] = (q, shape, layout)
        for q in others:
            if q.has_init:
                q.init_data()


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
