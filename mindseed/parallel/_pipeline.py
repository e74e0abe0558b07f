"""Pipeline parallel on a simulated world: the stages of a network (`Cell.pipeline_stage`) on their own ranks, with
the activations and gradients crossing stages sent point to point.

`record_pipeline(fn, network, *args)` records one step like `_spmd.record` and gives every primitive call a stage:

* a forward call inside a cell whose `pipeline_stage` is set runs on that stage (the innermost such cell), in the
  chunk the cell's `pipeline_segment` names, else in its inputs' chunk, one more for an input from a later stage
  (an interleaved pipeline's cells come round the stages again: MindSpore's chunk colouring);
* another forward call runs on the latest (chunk, stage) among its inputs' producers (the loss after the last one);
* a backward call made by a primitive's bprop (the backward engine names the forward output it differentiates,
  `_state.bprop_of`) runs on the stage of that forward call; another backward call (the sum of a tensor's
  gradients) on the earliest stage among its inputs' producers;
* a call none of whose inputs comes from a stage (micro-batch slicing of the data, the initial gradient) is
  computed on every stage that needs it, as every stage reads the dataset.

`staged_program(program, network)` places the calls of a program partitioned from the compiler's graph
(`_ir.program_from_graph`) the same way, from the cell scopes each node was traced in.

`execute_pipeline(program, stages, devices)` runs each stage's calls on its `devices / stages` ranks (with the
operators' shard strategies, as `_spmd.execute`), and logs a Send/Receive pair per rank whenever a stage reads a
value produced on another one (rank i of one stage to rank i of the other, as MindSpore pairs them). With
`nn.PipelineCell(network, micro_size)` the step runs `micro_size` micro-batches through the stages. Given a
`scheduler` ("1f1b" or "gpipe", interleaved or not: `_schedule`) the calls run in the schedule's order
(`schedule_order`), else in the recorded one; the values are those of the single-process run either way.

On the processes of a real run (`execute_pipeline(..., world=ProcessWorld())`) each process computes its own stage's
calls, the other stages' on layouts only, and the values crossing stages are sent between the processes (rank i of
one stage to rank i of the other): every process walks the same order of calls, so each receive meets a send
started no later. A process holding only its stage's Parameters records abstractly (`record_pipeline(...,
abstract=True)`) and gives its leaves' shards (`execute_pipeline(..., shards=)`); a Parameter several stages read is
then held by one of them and sent to the others (`owners`). `execute_pipeline(..., world=ShapeWorld(n))` runs every
stage on layouts only.
"""
import math

import numpy as np

from mindseed._utils import _state
from mindseed.common._parallel import get_auto_parallel_context
from mindseed.common.dtype import dtype_to_nptype
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.parallel import _schedule
from mindseed.parallel._layout import DeviceMesh, TensorLayout
from mindseed.parallel._spmd import (DistValue, Execution, Program, _AbstractRun, _Executor, _flat, _held_shards,
                                     _Recorder, given_layouts)
from mindseed.parallel._world import CommRecord, ShapeWorld, SimulatedWorld

__all__ = ["record_pipeline", "staged_program", "execute_pipeline", "schedule_order", "PipelineProgram",
           "PipelineExecution"]


class PipelineProgram(Program):
    """A `Program` whose calls carry a stage each (`stages[i]`, None: computed on every stage that needs it) and a
    chunk (`chunks[i]`: the model chunk of an interleaved pipeline; 0 without interleaving)."""

    def __init__(self, calls, args, outputs, result, stages, micro=None, forward=None, chunks=None):
        super().__init__(calls, args, outputs, result)
        self.stages = stages
        self.micro = micro or [None] * len(calls)   # per call: the micro-batch it works on (None: not one)
        self.forward = forward or [True] * len(calls)   # per call: made by the forward pass
        self.chunks = chunks or [0] * len(calls)


class _StageRecorder(_Recorder):
    def __init__(self):
        super().__init__()
        self.scopes = []        # (stage, segment or None) of the staged cells running now, innermost last
        self.backward = False   # the outermost network call has returned: the calls are the backward pass
        self.producer = {}      # id(tensor) -> (chunk, stage) of the call that made it (stage None: every stage)
        self.stages = []
        self.chunks = []
        self.current_micro = None   # the micro-batch the forward pass is in (nn.PipelineCell's network calls)
        self.micro_of = {}      # id(tensor) -> micro-batch of the call that made it
        self.micro = []
        self.forward = []

    def _place(self, args, forward_out):
        """(chunk, stage) of the call now recorded."""
        found = [self.producer[id(a)] for a in args
                 if isinstance(a, Tensor) and self.producer.get(id(a), (0, None))[1] is not None]
        if self.scopes and not self.backward:
            stage, segment = self.scopes[-1]
            if segment is not None:
                return segment, stage
            # MindSpore's chunk colouring: a value from a later stage comes round the pipeline into the next chunk
            return max((c + (s > stage) for c, s in found), default=0), stage
        if self.backward and forward_out is not None and id(forward_out) in self.producer:
            return self.producer[id(forward_out)]  # a bprop runs where its forward call ran
        if not found:
            return 0, None
        return min(found) if self.backward else max(found)

    def record(self, prim, args, attrs, out):
        super().record(prim, args, attrs, out)
        self.note(args, _state.bprop_of)

    def note(self, args, forward_out):
        """Place the call recorded last (its arguments `args`; `forward_out`: the forward output its bprop
        differentiates, or None)."""
        if isinstance(forward_out, tuple):
            forward_out = forward_out[0]
        place = self._place(args, forward_out)
        self.chunks.append(place[0])
        self.stages.append(place[1])
        micro = self.current_micro if not self.backward else \
            (self.micro_of.get(id(forward_out)) if forward_out is not None else None)
        self.micro.append(micro)
        self.forward.append(not self.backward)
        for o in self.calls[-1].outs:
            self.producer[id(o)] = place
            self.micro_of[id(o)] = micro


def _stage_of(cell, name):
    stage = cell.__dict__.get("pipeline_stage", getattr(cell, "pipeline_stage", None))
    if stage is None:
        return None
    if isinstance(stage, bool) or not isinstance(stage, int) or stage < 0:
        raise ValueError(f"For pipeline parallel, the 'pipeline_stage' of cell '{name}' must be a non-negative int, "
                         f"but got {stage!r}.")
    return stage


def _segment_of(cell):
    """The cell's `pipeline_segment` (its chunk of an interleaved pipeline), with MindSpore's checks; None: unset."""
    segment = cell.__dict__.get("pipeline_segment", getattr(cell, "pipeline_segment", None))
    if segment is None:
        return None
    # NOTE: MindSpore's messages for 'pipeline_segment' name set_auto_parallel_context's 'pipeline_stages'
    if isinstance(segment, bool) or not isinstance(segment, int):
        raise TypeError(f"For 'context.set_auto_parallel_context', the argument 'pipeline_stages' must be int type, "
                        f"but got type : {type(segment)}")
    if segment < 0:
        raise ValueError(f"For 'context.set_auto_parallel_context', the argument 'pipeline_stages' can not be less "
                         f"than 0, but got {segment}")
    return segment


def _wrap(cell, enter):
    """Replace `cell`'s construct (on the instance) by one that calls `enter()` around it; returns the undo."""
    had = "construct" in cell.__dict__
    previous = cell.__dict__.get("construct")
    inner = cell.construct

    def construct(*args, **kwargs):
        leave = enter()
        try:
            return inner(*args, **kwargs)
        finally:
            leave()

    cell.__dict__["construct"] = construct

    def undo():
        if had:
            cell.__dict__["construct"] = previous
        else:
            del cell.__dict__["construct"]

    return undo


def _staged_cells(network):
    """{id(cell): (stage, segment)} of the cells of `network` (not itself) that have a `pipeline_stage`.

    Raises:
        TypeError: `network` is not a Cell.
        ValueError: a `pipeline_stage` that is not a non-negative int, or no cell with one.
    """
    if not isinstance(network, Cell):
        raise TypeError(f"For 'record_pipeline', the 'network' must be a Cell, but got {type(network).__name__}.")
    staged = [(cell, s) for name, cell in network.cells_and_names() if (s := _stage_of(cell, name)) is not None]
    if not staged:
        raise ValueError("For pipeline parallel, no cell of the network has a 'pipeline_stage'.")
    return {id(cell): (s, _segment_of(cell)) for cell, s in staged if cell is not network}


def _micro_network(network):
    """The network an `nn.PipelineCell` calls once per micro-batch (None: `network` is no PipelineCell)."""
    inner = getattr(network, "network", None)
    return inner if hasattr(network, "micro_size") and isinstance(inner, Cell) else None


def staged_program(program, network):
    """The `PipelineProgram` of a program partitioned from a graph (`_ir.program_from_graph`, traced for the
    partitioner: each call has the cell scopes its node was traced in, `program.scopes`), every call placed as
    `record_pipeline` places it: in the stage of the innermost staged cell of its scopes, the micro-batch of the
    `nn.PipelineCell` network call it is in (the n-th such call: micro-batch n), the backward pass once `network`'s
    call has returned (a call outside its scopes after one inside), a bprop on its forward call's place.

    Raises:
        TypeError, ValueError: as `record_pipeline`.
    """
    staged, inner = _staged_cells(network), _micro_network(network)
    rec = _StageRecorder()
    micro_calls, entered = {}, False
    for call, scopes, forward_out in zip(program.calls, program.scopes, program.differentiates):
        cells = [c for c, _ in scopes]
        inside = any(c is network for c in cells)
        entered = entered or inside
        rec.backward = entered and not inside
        rec.scopes = [staged[id(c)] for c in cells if id(c) in staged]
        entry = next((e for e in scopes if inner is not None and e[0] is inner), None)
        rec.current_micro = None if entry is None else micro_calls.setdefault(id(entry), len(micro_calls))
        rec.calls.append(call)
        rec.note(call.args, forward_out)
    staged_run = PipelineProgram(program.calls, program.args, program.outputs, program.result, rec.stages, rec.micro,
                                 rec.forward, rec.chunks)
    staged_run.graph, staged_run.updates = program.graph, program.updates
    return staged_run


def record_pipeline(fn, network, *args, abstract=False):
    """Run `fn(*args)` (a step of `network`, e.g. `value_and_grad(network, ...)`) and return its
    `PipelineProgram`. With `abstract` no kernel computes (`_spmd.record`'s): the calls' outputs are data-less
    Tensors of their shapes and dtypes, so the leaves may hold no data (a process holding only its stage's
    Parameters).

    Raises:
        TypeError: `network` is not a Cell.
        ValueError: a `pipeline_stage` that is not a non-negative int, or no cell with one.
    """
    staged = _staged_cells(network)
    rec = _StageRecorder()
    depth = [0]

    def scope(stage, segment):
        def enter():
            rec.scopes.append((stage, segment))
            return rec.scopes.pop
        return enter

    def outer():
        depth[0] += 1

        def leave():
            depth[0] -= 1
            if depth[0] == 0:
                rec.backward = True
        return leave

    def micro_batch():
        rec.current_micro = count[0]
        count[0] += 1

        def leave():
            rec.current_micro = None
        return leave

    count = [0]
    cells = {id(cell): cell for _, cell in network.cells_and_names()}
    undos = [_wrap(cells[k], scope(*place)) for k, place in staged.items()]
    inner = _micro_network(network)
    if inner is not None:  # nn.PipelineCell: one call per micro-batch
        undos.append(_wrap(inner, micro_batch))
    undos.append(_wrap(network, outer))
    _state.tapes.append(rec)
    hook = _AbstractRun() if abstract else None
    if hook is not None:
        _state.profiling.append(hook)
    try:
        result = fn(*args)
    finally:
        _state.tapes.remove(rec)
        if hook is not None:
            _state.profiling.remove(hook)
        for undo in reversed(undos):
            undo()
    return PipelineProgram(rec.calls, args, _flat(result), result, rec.stages, rec.micro, rec.forward, rec.chunks)


class PipelineExecution:
    """The result of `execute_pipeline`: one `Execution` per stage (`stages[s]`, on its own world of the stage's
    ranks), and the Send/Receive records of the values that crossed stages (`p2p`: (from stage, to stage,
    CommRecord)); `program` the program run."""

    def __init__(self, stages, p2p, producer, activations, links):
        self.stages, self.p2p, self._producer = stages, p2p, producer
        # [stage][chunk][micro-batch]: bytes one rank keeps of that pass's forward values until its backward
        self.chunk_activations = activations
        # [stage][micro-batch]: the same summed over the stage's chunks
        self.activations = [[sum(c[m] for c in per) for m in range(len(per[0]))] for per in activations]
        self.scheduler = self.interleave = None   # the schedule the calls ran in (None: the recorded order)
        self.links = links   # how the stages reach each other (`_SimulatedLinks`, `_ProcessLinks`)

    @property
    def chunks(self):
        """The number of model chunks per stage (1: not interleaved)."""
        return len(self.chunk_activations[0])

    def stage_of(self, t):
        """The stage holding tensor `t` (a leaf: the first stage that read it)."""
        s = self._producer.get(id(t))
        if s is None:
            s = next(i for i, ex in enumerate(self.stages) if id(t) in ex._executor.env)
        return s

    def execution_of(self, t):
        return self.stages[self.stage_of(t)]

    # what the parallel optimizer reads of an execution (`_zero.ShardedOptimizer`), each tensor on its stage
    @property
    def world(self):
        """The world of stage 0 (every stage has as many ranks)."""
        return self.stages[0].world

    def world_of(self, t):
        return self.execution_of(t).world

    def value(self, t, layout=None):
        return self.execution_of(t).value(t, layout)

    def layout_of(self, t):
        return self.execution_of(t).layout_of(t)

    def whole(self, t, layout=None):
        """Tensor `t`'s global array on this process, read on its stage (in `layout` when given); on the processes
        of a real run the first rank of that stage shares it with every process."""
        s = self.stage_of(t)
        stage = self.stages[s]
        array = None if stage.world.abstract else stage.whole(t, layout)
        return self.links.share(array, s, tuple(t.shape), _np_dtype(t))

    def parameter_layouts(self):
        """{name: TensorLayout} of the Parameters, each as its stage's first consumer cut it."""
        out = {}
        for ex in reversed(self.stages):
            out.update(ex.parameter_layouts())
        return out

    def operator_strategies(self):
        return [item for ex in self.stages for item in ex.operator_strategies()]

    def sent_bytes(self):
        """Bytes each rank sent point to point over the step, summed over its stage's sends."""
        return sum(rec.sent_bytes for _, _, rec in self.p2p)

    def schedule(self, kind=None, interleave=None):
        """Per stage, the order of its passes (`_schedule.schedule`): ("F", m) / ("B", m), interleaved ("F", m, c)
        / ("B", m, c) for chunk c. `kind` ("1f1b" or "gpipe") and `interleave` default to those the calls ran in
        (`execute_pipeline`'s), else to the context's ``pipeline_config`` (``pipeline_scheduler``,
        ``pipeline_interleave``).

        Raises:
            ValueError: another `kind`, or several chunks per stage without `interleave`.
            RuntimeError: an interleaved 1F1B with fewer micro-batches than stages.
        """
        if kind is None:
            kind = self.scheduler or get_auto_parallel_context("pipeline_scheduler")
        if interleave is None:
            interleave = self.interleave
        if interleave is None:
            interleave = get_auto_parallel_context("pipeline_interleave")
        return _schedule.schedule(kind, len(self.stages), len(self.activations[0]), self.chunks, interleave)

    def peak_activation_bytes(self, kind=None, interleave=None):
        """Per stage, the most bytes of forward values one rank holds at once under the schedule (a pass's are kept
        from its forward to its backward)."""
        return _schedule.peak_bytes(self.schedule(kind, interleave), self.chunk_activations)

    def pass_seconds(self, machine):
        """{(stage, pass): seconds} of each pass on one rank of its stage on `machine` (`plan.Machine`: its
        `compute_seconds(flops)` and `comm_seconds(records)`): the FLOPs of its calls (`CallPlan.flops`), their
        collectives inside the stage, and the Sends that brought them their inputs."""
        plans = {}
        for ex in self.stages:
            plans.update((id(p.call), p) for p in ex.plans)
        out = {}
        for (stage, unit), calls in self.pass_calls.items():
            flops = sum(plans[id(c)].flops for c in calls)
            comm = [step for c in calls for move in plans[id(c)].moves for step in move.collectives()]
            comm += [rec for c in calls for rec in self.received.get((stage, id(c)), ())]
            out[(stage, unit)] = machine.compute_seconds(flops) + machine.comm_seconds(comm)
        return out

    def step_seconds(self, machine, kind=None, interleave=None):
        """The estimated length of the step in seconds: the schedule's timeline with each pass taking its
        `pass_seconds` (the calls of no micro-batch, such as the sums over micro-batches, not counted)."""
        seconds = self.pass_seconds(machine)
        order = self.schedule(kind, interleave)
        split = _split_of(order)

        def cost(s, unit):  # a backward the run split and this order does not: its B and W passes
            took = seconds.get((s, unit), 0.0)
            if unit[0] == "B" and (s, unit[1], unit[2] if len(unit) == 3 else 0) not in split:
                took += seconds.get((s, ("W",) + unit[1:]), 0.0)
            return took
        return _schedule.timeline(order, cost=cost)[1]

    def timeline(self, kind=None, interleave=None, forward=1.0, backward=2.0, cost=None, weight=1.0):
        """(per stage the (start, end, pass) of its passes, the step's length) with each forward pass taking
        `forward` time units and each backward `backward` (a split one: its B `backward - weight`, its W `weight`), or
        `cost(stage, pass)` (`_schedule.timeline`)."""
        return _schedule.timeline(self.schedule(kind, interleave), forward, backward, cost, weight)


def _unit_keys(program, interleave, split=()):
    """Per call, the pass it belongs to: (stage, "F" | "B" | "W", micro-batch[, chunk]), or None (a call of no one
    micro-batch: the data's slicing, the sums over micro-batches). A call of no micro-batch whose inputs all come from
    one micro-batch belongs to it. The backward of a (stage, micro-batch, chunk) in `split` is two passes
    (`_split_backward`)."""
    made = {}     # id(tensor) -> micro-batch of the call that made it (None: several or none)
    keys = []
    for call, stage, chunk, m, fwd in zip(program.calls, program.stages, program.chunks, program.micro,
                                          program.forward):
        if m is None:
            found = {made.get(id(a)) for a in call.args if isinstance(a, Tensor) and id(a) in made}
            m = found.pop() if len(found) == 1 else None
        for o in call.outs:
            made[id(o)] = m
        if stage is None or m is None:
            keys.append(None)
        else:
            keys.append((stage, "F" if fwd else "B", m, chunk) if interleave else (stage, "F" if fwd else "B", m))
    if split:
        _split_backward(program, keys, split)
    return keys


def _split_backward(program, keys, split):
    """Move the calls of each split backward pass (`split`: (stage, micro-batch, chunk)) that only compute weight
    gradients to its W pass, in `keys`: its B pass keeps the calls the gradient it sends on needs (the ancestors, in
    the pass, of its values another pass reads, directly or through calls of no pass; the sums of parameter
    gradients over micro-batches reach no pass)."""
    readers = [[] for _ in program.calls]
    maker = {}
    for i, call in enumerate(program.calls):
        for a in call.args:
            j = maker.get(id(a)) if isinstance(a, Tensor) else None
            if j is not None:
                readers[j].append(i)
        for o in call.outs:
            maker.setdefault(id(o), i)
    reaches = [False] * len(program.calls)   # a call of no pass whose values reach a pass
    for i in reversed(range(len(program.calls))):
        if keys[i] is None:
            reaches[i] = any(keys[j] is not None or reaches[j] for j in readers[i])
    for i, key in enumerate(keys):
        if key is not None and key[1] == "B" and (key[0], key[2], key[3] if len(key) == 4 else 0) in split:
            keys[i] = (key[0], "W") + key[2:]
    for i in reversed(range(len(keys))):
        key = keys[i]
        if key is None or key[1] != "W":
            continue
        b = (key[0], "B") + key[2:]
        if any(keys[j] == b or keys[j] is None and reaches[j] or keys[j] not in (None, key) for j in readers[i]):
            keys[i] = b


def _split_of(order):
    """{(stage, micro-batch, chunk)} of the backwards `order` (per stage its passes) splits into B and W passes."""
    return {(s, p[1], p[2] if len(p) == 3 else 0) for s, passes in enumerate(order) for p in passes if p[0] == "W"}


def _shape_only(call):
    """Whether the call's outputs depend on its inputs' shapes only (a fill: OnesLike of the loss seeds the backward
    pass, which a pipeline starts for a micro-batch before the other micro-batches' losses exist)."""
    return call.prim.fill_value is not None


def schedule_order(program, order):
    """The indices of `program`'s calls in the order the stages run them under `order` (per stage its passes, from
    `_schedule.schedule`): the passes are released in the order `_schedule.timeline` starts them, and a call runs
    once its pass is released and its inputs are computed (a call of no pass: as soon as its inputs are).

    Returns:
        (indices, late): `late` are the calls that ran after a later pass had been released (none when the order is
        one the calls can follow).

    Raises:
        ValueError: calls that can never run.
    """
    interleave = any(len(p) == 3 for passes in order for p in passes)
    keys = _unit_keys(program, interleave, _split_of(order))
    maker = {}
    for i, call in enumerate(program.calls):
        for o in call.outs:
            maker.setdefault(id(o), i)
    needs = [set() if _shape_only(call) else
             {maker[id(a)] for a in call.args if isinstance(a, Tensor) and maker.get(id(a), i) < i}
             for i, call in enumerate(program.calls)]
    runs, _ = _schedule.timeline(order)
    events = sorted((start, s, (s, *unit)) for s, r in enumerate(runs) for start, _, unit in r)
    released, done, out, late = set(), set(), [], []
    pending = list(range(len(program.calls)))
    for _, _, key in events + [(None, None, None)]:
        released.add(key)
        moved = True
        while moved:
            moved, rest = False, []
            for i in pending:
                if (keys[i] is None or keys[i] in released or key is None) and needs[i] <= done:
                    done.add(i)
                    out.append(i)
                    moved = True
                    if keys[i] is not None and keys[i] != key:
                        late.append(program.calls[i])
                else:
                    rest.append(i)
            pending = rest
    if pending:
        raise ValueError(f"For pipeline parallel, {len(pending)} calls can never run under the schedule, the first "
                         f"{program.calls[pending[0]]!r}.")
    return out, late


class _SimulatedLinks:
    """The stages of a simulated pipeline: each on its own simulated ranks; a value crossing stages is copied."""

    def __init__(self, per_stage):
        self.per_stage = per_stage

    def stage_world(self, s):
        return SimulatedWorld(self.per_stage)

    @staticmethod
    def move(value, t, src, dst, tag):
        return [x.copy() for x in value.shards]

    def finish(self):
        return None

    @staticmethod
    def share(array, stage, shape, dtype):
        return array


class _ShapeLinks:
    """The stages of a pipeline run on layouts only (a `ShapeWorld`: a probe of the layouts, no array computed)."""

    def __init__(self, per_stage):
        self.per_stage = per_stage

    def stage_world(self, s):
        return ShapeWorld(self.per_stage)

    @staticmethod
    def move(value, t, src, dst, tag):
        return None

    def finish(self):
        return None

    @staticmethod
    def share(array, stage, shape, dtype):
        return None


class _ProcessLinks:
    """The stages of a pipeline on the processes of a real run (`ProcessWorld`): stage s is world ranks
    s * per_stage ... (s + 1) * per_stage - 1; this process computes its stage's calls (its rank's shards), the other
    stages' on layouts only (a `ShapeWorld`: the layouts of the values they send it), and a value crossing stages
    goes from rank i of one stage to rank i of the other (Send: started, completed in the background; Receive:
    blocks until it has come)."""

    def __init__(self, world, stages, per_stage):
        if world.size != stages * per_stage:
            raise ValueError(f"For pipeline parallel on processes, the device number {stages * per_stage} must be the "
                             f"number of processes {world.size}.")
        self.world, self.per_stage, self.stages = world, per_stage, stages
        self.mine, self.index = divmod(world.rank, per_stage)

    def stage_world(self, s):
        return self.world.stage(self.stages) if s == self.mine else ShapeWorld(self.per_stage)

    def move(self, value, t, src, dst, tag):
        if src == self.mine:
            self.world.send(value.shards[self.index], dst * self.per_stage + self.index, tag)
        elif dst == self.mine:
            shards = [None] * self.per_stage
            shards[self.index] = self.world.receive(value.layout.local_shape, _np_dtype(t),
                                                    src * self.per_stage + self.index, tag)
            return shards
        return None

    def finish(self):
        self.world.wait_sends()

    def share(self, array, stage, shape, dtype):
        """`array` of the first rank of `stage` on every process."""
        return self.world.share(array, stage * self.per_stage, shape, dtype)


def _local_bytes(value, t):
    """Bytes of one rank's shard of tensor `t` (its value `value` on a stage)."""
    return math.prod(value.layout.local_shape) * t.itemsize


def execute_pipeline(program, stages, devices, layouts=None, scheduler=None, interleave=None, world=None, shards=None,
                     owners=None):
    """Run a `PipelineProgram` on `devices` ranks in `stages` pipeline stages: simulated, or the processes of a
    real run (`world`).

    Args:
        program (PipelineProgram): from `record_pipeline`.
        stages (int): the number of stages (`pipeline_stages`).
        devices (int): the number of ranks; each stage has `devices / stages`.
        layouts (Sequence): (Tensor, strategy tuple or TensorLayout) of the inputs on a stage's ranks.
        scheduler (str): run the calls in the order of this schedule ("1f1b" or "gpipe", `schedule_order`); None:
            in the recorded order. The values are the same either way.
        interleave (bool): the schedule is interleaved. Default: the context's ``pipeline_interleave``.
        world (ProcessWorld): the processes of a real run, `devices` of them: each computes its stage's calls (stage
            s holds world ranks s * devices / stages onwards) and the values crossing stages are sent between them;
            the stages it is not in run on layouts only (their `Execution`s hold no arrays). A `ShapeWorld`: every
            stage on layouts only. None: every stage on simulated ranks.
        shards (Sequence): (Tensor, list of arrays) pairs: a leaf's shards in its given layout, one array per rank of
            a stage (`_spmd.execute`'s), read by the stages that compute arrays: the leaves' own data is never read
            (a process holding only its stage's Parameters and its slice of the batch).
        owners (Sequence): (Tensor, stage) pairs of leaves only that stage holds: another stage reading one receives it
            from the owner (a Send per step, as a value crossing stages) instead of holding its own copy (a Parameter
            shared by stages, held by its first stage: MindSpore's shared parameters).

    Returns:
        PipelineExecution.

    Raises:
        ValueError: `stages` does not divide `devices`, or a call's stage is not below `stages`, or `devices` is not
            the number of processes of `world`, or an owned leaf without a given layout.
    """
    if isinstance(stages, bool) or not isinstance(stages, int) or stages < 1 or devices % stages:
        raise ValueError(f"For pipeline parallel, the 'pipeline_stages' ({stages!r}) must be a positive int dividing "
                         f"the device number {devices}.")
    used = {s for s in program.stages if s is not None}
    if used and max(used) >= stages:
        raise ValueError(f"For pipeline parallel, a cell has pipeline_stage {max(used)}, but 'pipeline_stages' is "
                         f"{stages}.")
    per_stage = devices // stages
    given = given_layouts(layouts, per_stage)
    links = _SimulatedLinks(per_stage) if world is None else _ShapeLinks(per_stage) if world.abstract else \
        _ProcessLinks(world, stages, per_stage)
    executors = [_Executor(links.stage_world(s), given) for s in range(stages)]
    for ex in executors:
        if not ex.abstract:
            ex.held = _held_shards(shards, given, ex.world)
    micro = max((m for m in program.micro if m is not None), default=0) + 1
    chunks = max(program.chunks, default=0) + 1
    indices, late, split = range(len(program.calls)), [], ()
    if scheduler is not None:
        interleave = get_auto_parallel_context("pipeline_interleave") if interleave is None else interleave
        order = _schedule.schedule(scheduler, stages, micro, chunks, interleave)
        indices, late = schedule_order(program, order)
        split = _split_of(order)
    producer, p2p, ran, received = {}, [], [], {}
    for leaf, owner in owners or ():  # held by its owner, sent to the other stages that read it
        if executors[owner]._current(leaf) is None:
            raise ValueError(f"For pipeline parallel, a leaf of shape {tuple(leaf.shape)} held by stage {owner} must "
                             f"have a given layout ('layouts').")
        producer[id(leaf)] = owner
    made = {id(o) for c in program.calls for o in c.outs}
    for i in indices:
        call, stage = program.calls[i], program.stages[i]
        targets = range(stages) if stage is None else (stage,)
        for s in targets:
            ex = executors[s]
            for a in call.args:
                src = producer.get(id(a)) if isinstance(a, Tensor) else None
                if src is None or src == s or id(a) in ex.env:
                    continue
                value = executors[src].env[id(a)]
                ex.env[id(a)] = DistValue(value.layout, links.move(value, a, src, s, tag=len(p2p)))
                nbytes = _local_bytes(value, a)
                p2p.append((src, s, CommRecord("Send", 2, per_stage, nbytes, nbytes)))
                received.setdefault((s, id(call)), []).append(p2p[-1][2])
            _run_call(ex, call, lambda t: id(t) in made and id(t) not in producer)
        for o in call.outs:
            producer[id(o)] = stage
        ran.append(call)
    activations = [[[0] * micro for _ in range(chunks)] for _ in range(stages)]
    for call, stage, c, m, fwd in zip(program.calls, program.stages, program.chunks, program.micro, program.forward):
        if stage is not None and m is not None and fwd:
            activations[stage][c][m] += sum(_local_bytes(executors[stage].env[id(o)], o) for o in call.outs)
    links.finish()
    for ex in executors:
        ex.moves = []
    run = PipelineExecution([Execution(ex.world, ex, {**given, **ex.leaves}) for ex in executors], p2p, producer,
                            activations, links)
    run.calls, run.late = ran, late   # the calls in the order they ran; those that ran after a later pass started
    run.program = program
    run.scheduler, run.interleave = scheduler, (interleave if scheduler is not None else None)
    keys = dict(zip(map(id, program.calls), _unit_keys(program, interleave if scheduler is not None else chunks > 1,
                                                       split)))
    run.passes = [[] for _ in range(stages)]   # per stage, its passes in the order their first calls ran
    run.pass_calls = {}                        # (stage, pass) -> its calls
    for call in ran:
        key = keys[id(call)]
        if key is not None:
            if key[1:] not in run.passes[key[0]]:
                run.passes[key[0]].append(key[1:])
            run.pass_calls.setdefault((key[0], key[1:]), []).append(call)
    run.received = received                    # (stage, id(call)) -> the Sends that brought the call its inputs
    return run


def _run_call(ex, call, waiting):
    """Run `call` on a stage's executor. A fill (`_shape_only`) whose inputs are not computed yet (`waiting(t)`: the
    program makes t later) runs on stand-ins of their shapes, which are then dropped."""
    standins = [a for a in call.args if isinstance(a, Tensor) and waiting(a) and id(a) not in ex.env] \
        if _shape_only(call) else []
    for a in standins:
        layout = TensorLayout.replicated(DeviceMesh((ex.world.size,), ("world",)), tuple(a.shape))
        ex.env[id(a)] = DistValue(layout, None if ex.abstract else
                                  [np.zeros(a.shape, _np_dtype(a)) for _ in range(ex.world.size)])
    ex.run(call)
    for a in standins:
        del ex.env[id(a)]
        ex.forget({id(a)})


def _np_dtype(t):
    """The numpy dtype of tensor `t` (which may hold no data: an abstract recording's)."""
    return np.dtype(dtype_to_nptype(t.dtype))
