"""Plan a sharded training step on a simulated world: per operator and per rank, the strategy, memory and
communication, without a cluster.

    python -m mindseed.parallel.plan script.py --devices 4
    python -m mindseed.parallel.plan --demo data-x-tensor --devices 4
    python -m mindseed.parallel.plan --demo gpt --devices 1024 --mesh 8x128

The script defines `network` (a Cell whose operators may carry `shard` strategies), `inputs` (a tuple of Tensors)
and, optionally, `dataset_strategy` (one strategy tuple per input; default: every input whole on every rank). It
runs with `devices` and `mesh` (the ``--mesh`` sizes, e.g. (8, 128); default (devices,)) defined, to build its
strategies from. The planner records one forward and backward step (`value_and_grad` over the trainable
parameters) and runs it on `--devices` ranks (`_spmd.execute`). Up to 64 ranks (or with ``--check``) the ranks are
simulated with their shards, and the sharded loss and gradients are checked against the single-process ones; above
(or with ``--shapes-only``) the step is recorded abstractly (no kernel runs: `_spmd.record(..., abstract=True)`) and
runs on layouts only (`_world.ShapeWorld`: shapes and dtypes, every collective counted with its bytes, no shard
computed), which records and plans 1024 ranks in about a tenth of a second. It prints:

* per operator call: its device matrix, the cut of each factor, the collectives it needed and their bytes;
* per rank: the bytes of its parameter shards, of its gradient shards, of its optimizer state (``--optimizer``;
  cut over the data-parallel ranks with ``--parallel-optimizer``), of the values the step produced on it (every
  recorded output, no buffer reuse: an upper bound of activation memory), and the bytes it sent;
* per collective kind: how many ran and the bytes each rank sent;
* an estimated step time: each rank's floating-point operations (`CallPlan.flops`) at ``--tflops``, plus each
  collective's bytes at ``--bandwidth`` GB/s and ``--latency`` microseconds per collective.

Bytes sent are those of ring algorithms (see `_world`). ``--strategy-file PATH`` writes MindSpore's strategy file
of the plan (``.json`` or protobuf).

With pipeline stages (``--stages N``, or the script's ``set_auto_parallel_context(pipeline_stages=N)``; `network` an
`nn.PipelineCell`), the step runs in N stages of ``devices / N`` simulated ranks in the order of the scheduler
(``--scheduler``, ``--interleave``, or the context's ``pipeline_config``), and the planner prints per stage its
ranks, parameter and peak activation bytes per rank, its collectives and Sends, its busy time, and the step time
the schedule's timeline gives with each pass's estimated seconds (`PipelineExecution.step_seconds`).
"""
import argparse
import contextlib
import gc
import math
import runpy
import sys
import time

import numpy as np

from mindseed import nn, ops
from mindseed.autograd.grad import value_and_grad
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.common._parallel import get_auto_parallel_context
from mindseed.common.context import GRAPH_MODE, get_context
from mindseed.parallel._layout import DeviceMesh, TensorLayout, assemble, optimizer_shard
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline, staged_program
from mindseed.parallel._search import SEARCH_MODES, default_mesh, search
from mindseed.parallel._ir import graph_program
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import ShapeWorld, SimulatedWorld

__all__ = ["plan_step", "format_plan", "plan_pipeline", "format_pipeline", "main"]

_DEMOS = {
    # name: (strategies of the demo MLP's two matmuls and bias add, dataset strategy factor)
    "data": (lambda n: (((n, 1), (1, 1)), None, None), lambda n: (n, 1)),
    "tensor": (lambda n: (((1, 1), (1, n)), ((1, n), (n,)), ((1, n), (n, 1))), lambda n: None),
    "data-x-tensor": (lambda n: (((2, 1), (1, n // 2)), ((2, n // 2), (n // 2,)), ((2, n // 2), (n // 2, 1))),
                      lambda n: (2, 1)),
}


def _demo(name, n):
    mm1, add, mm2 = _DEMOS[name][0](n)
    data = _DEMOS[name][1](n)

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            rng = np.random.default_rng(0)
            self.w1 = Parameter(Tensor(rng.standard_normal((16, 32))), name="w1")
            self.b1 = Parameter(Tensor(rng.standard_normal((32,))), name="b1")
            self.w2 = Parameter(Tensor(rng.standard_normal((32, 8))), name="w2")
            self.mm1, self.add, self.mm2 = ops.MatMul(), ops.Add(), ops.MatMul()
            for op, s in ((self.mm1, mm1), (self.add, add), (self.mm2, mm2)):
                if s is not None:
                    op.shard(s)
            self.relu, self.mean = ops.ReLU(), ops.ReduceMean()

        def construct(self, x, y):
            d = self.mm2(self.relu(self.add(self.mm1(x, self.w1), self.b1)), self.w2) - y
            return self.mean(d * d)

    rng = np.random.default_rng(1)
    inputs = (Tensor(rng.standard_normal((16, 16))), Tensor(rng.standard_normal((16, 8))))
    return MLP(), inputs, None if data is None else (data, data)


class StepPlan:
    """The plan of one training step: the execution, the parameters and their gradients, and whether the sharded
    results equal the single-process ones (`max_error`)."""

    def __init__(self, program, execution, params, grads, max_error, seconds=(0.0, 0.0)):
        self.program, self.execution, self.params, self.grads = program, execution, params, grads
        self.max_error = max_error
        self.seconds = seconds  # (recording, planning)


def record_step(network, inputs, abstract=False):
    """(program, params, loss, grads): one `value_and_grad` step of `network` over its trainable parameters; with
    `abstract` recorded on shapes and dtypes only (`_spmd.record`: no kernel runs, the loss and gradients hold no
    data). Under GRAPH_MODE the program is the step's graph (`_ir.graph_program`: the compiler's trace of the forward
    and backward pass), unless the graph updates state (then recorded as PyNative calls)."""
    params = list(network.trainable_params())
    step = value_and_grad(network, None, params)
    program = graph_program(step, inputs, abstract=abstract)[0] if get_context("mode") == GRAPH_MODE else None
    if program is None:
        program = record(step, *inputs, abstract=abstract)
    loss, grads = program.result
    return program, params, loss, grads


def plan_step(network, inputs, devices, dataset_strategy=None, shapes_only=False, search_mode=None, mesh=None,
              machine=None):
    """Record one `value_and_grad` step of `network` on `inputs` and run it on `devices` ranks: simulated with
    their shards (the sharded loss and gradients compared with the single-process ones: `max_error`), or with
    `shapes_only` on layouts alone (`max_error` None). With `search_mode` (AUTO_PARALLEL's ``"dynamic_programming"``,
    ``"recursive_programming"`` or ``"sharding_propagation"``) the forward operators get the strategies the search
    finds on `mesh` (a DeviceMesh; default `_search.default_mesh`) with the cost model of `machine` (a `Machine`).

    Raises:
        ValueError: a strategy that does not fit (see `_spmd.execute`), or `dataset_strategy` not one tuple per
            input.
    """
    inputs = tuple(inputs)
    if dataset_strategy is not None and len(dataset_strategy) != len(inputs):
        raise ValueError(f"For 'plan', the dataset_strategy {dataset_strategy} must have one tuple per input "
                         f"({len(inputs)}).")
    start = time.perf_counter()
    program, params, loss, grads = record_step(network, inputs, abstract=shapes_only)
    recorded = time.perf_counter()
    layouts = None if dataset_strategy is None else list(zip(inputs, dataset_strategy))
    if search_mode is not None:
        program = search(program, mesh or default_mesh(devices), layouts, machine, search_mode,
                         list(zip(grads, params))).program
        recorded = time.perf_counter()  # the search counts as recording: the planning is the sharded run
    collecting = gc.isenabled()
    gc.disable()  # planning makes many small objects: full collections over a large heap would dominate its time
    try:
        ex = execute(program, (ShapeWorld if shapes_only else SimulatedWorld)(devices), layouts)
        value = ex.value(loss)
        loss_whole = ex.value(loss, TensorLayout.replicated(value.layout.mesh, value.layout.shape))
        grads_read = [ex.value(g, ex.layout_of(p)) for p, g in zip(params, grads)]
    finally:
        if collecting:
            gc.enable()
    seconds = (recorded - start, time.perf_counter() - recorded)
    if shapes_only:
        return StepPlan(program, ex, params, grads, None, seconds)
    error = float(np.max(np.abs(loss_whole.shards[0] - loss.asnumpy())))
    for g, got in zip(grads, grads_read):
        whole = assemble(got.shards, got.layout)
        error = max(error, float(np.max(np.abs(whole - g.asnumpy()))) if whole.size else 0.0)
    return StepPlan(program, ex, params, grads, error, seconds)


def _bytes(layout, itemsize):
    return int(np.prod(layout.local_shape, dtype=np.int64)) * itemsize


# state tensors an optimizer keeps per parameter (Momentum: the velocity; Adam: two moments)
OPTIMIZER_STATES = {"sgd": 0, "momentum": 1, "adam": 2}


class Machine:
    """The figures of the step-time estimate: `tflops` per device, `bandwidth` GB/s per rank and `latency`
    microseconds per collective."""

    def __init__(self, tflops=100.0, bandwidth=100.0, latency=10.0):
        self.tflops, self.bandwidth, self.latency = tflops, bandwidth, latency

    def compute_seconds(self, flops):
        return flops / (self.tflops * 1e12)

    def comm_seconds(self, records):
        return sum(r.sent_bytes / (self.bandwidth * 1e9) + self.latency * 1e-6 for r in records)


def step_seconds(execution, machine):
    """(compute, communication) seconds of one step on one rank (see `Machine`)."""
    flops = sum(p.flops for p in execution.plans)
    return machine.compute_seconds(flops), machine.comm_seconds(execution.world.log)


def format_plan(step, max_ranks=16, optimizer="adam", parallel_optimizer=False, mesh=None, machine=None):
    """The text the planner prints for `step` (a `StepPlan`): the optimizer state is `optimizer`'s (a key of
    `OPTIMIZER_STATES`), cut over each parameter's data-parallel ranks with `parallel_optimizer` (True or "level1":
    ZeRO-1; "level2": the gradients too; "level3": the weights too); ranks
    are shown by their coordinates on `mesh` (a DeviceMesh; default the first operator's), the step time
    estimated on `machine` (a `Machine`)."""
    ex = step.execution
    world = ex.world
    check = "shapes only, no shard computed" if step.max_error is None else \
        f"sharded loss and gradients vs one process: max |error| = {step.max_error:.3g}"
    lines = [f"== {world.size} ranks; {check}",
             f"   {'traced (graph)' if step.program.graph is not None else 'recorded'} in {step.seconds[0]:.3f} s, "
             f"planned in {step.seconds[1]:.3f} s", "", "== operators"]
    for i, p in enumerate(ex.plans):
        cuts = "whole tensors" if p.cuts is None else \
            ", ".join(f"{f}:{'x'.join(p.mesh.names[a] for a in axes)}" for f, axes in p.cuts.items()) or "replicated"
        comm = "; ".join(repr(s) for m in p.moves for s in m.collectives())
        lines.append(f"{i:4d} {p.call!r:60s} mesh {p.mesh.shape} [{cuts}]" + (f"  <- {comm}" if comm else ""))
    reads = "; ".join(repr(s) for m in ex.reads for s in m.collectives())
    lines.append(f"     reading the loss and the gradients in their parameters' layouts: {reads or 'no communication'}")
    lines += ["", "== per rank (bytes)", f"{'rank':>6} {'coords':>12} {'params':>10} {'grads':>10} "
              f"{'opt state':>10} {'values':>12} {'sent':>10}"]
    item = {id(p): p.itemsize for p in step.params}
    level = "level1" if parallel_optimizer is True else parallel_optimizer
    state_layouts = [(optimizer_shard(ex.layout_of(p)) if level else None) or ex.layout_of(p) for p in step.params]
    param_bytes = sum(_bytes(lay if level == "level3" else ex.layout_of(p), item[id(p)])
                      for p, lay in zip(step.params, state_layouts))
    grad_bytes = sum(_bytes(lay if level in ("level2", "level3") else ex.layout_of(p), item[id(p)])
                     for p, lay in zip(step.params, state_layouts))
    state_bytes = OPTIMIZER_STATES[optimizer] * sum(_bytes(lay, item[id(p)])
                                                   for p, lay in zip(step.params, state_layouts))
    values = sum(_bytes(lay, o.itemsize) for p in ex.plans for o, lay in zip(p.call.outs, p.out_layouts))
    sent = sum(r.sent_bytes for r in world.log)
    mesh = mesh or (ex.plans[0].mesh if ex.plans else None)
    for rank in range(min(world.size, max_ranks)):
        coords = mesh.coords(rank) if mesh is not None else ()
        lines.append(f"{rank:>6} {str(coords):>12} {param_bytes:>10} {grad_bytes:>10} {state_bytes:>10} "
                     f"{values:>12} {sent:>10}")
    if world.size > max_ranks:
        lines.append(f"   ... {world.size - max_ranks} more ranks, the same figures (even shards)")
    lines += ["", "== collectives", f"{'kind':>14} {'count':>6} {'sent/rank':>12}"]
    counts = {}
    for r in world.log:
        c = counts.setdefault(r.kind, [0, 0])
        c[0] += 1
        c[1] += r.sent_bytes
    for kind, (n, b) in sorted(counts.items()):
        lines.append(f"{kind:>14} {n:>6} {b:>12}")
    compute, comm = step_seconds(ex, machine or Machine())
    lines += ["", f"== estimated step time per rank: {1e3 * (compute + comm):.4f} ms = compute {1e3 * compute:.4f} ms "
                  f"+ communication {1e3 * comm:.4f} ms ({len(world.log)} collectives, {sent} B sent)"]
    if ex.whole_calls:
        lines += ["", f"== ran on whole tensors (no sharding rule): {sorted({c.prim.name for c in ex.whole_calls})}"]
    return "\n".join(lines)


def plan_pipeline(network, inputs, devices, stages, dataset_strategy=None, scheduler=None, interleave=None):
    """Record one `value_and_grad` step of `network` (an `nn.PipelineCell` whose cells carry `pipeline_stage`) and
    run it in `stages` stages of ``devices / stages`` simulated ranks each, in the order of `scheduler` with
    `interleave` (default: the context's ``pipeline_config``): a `PipelineExecution`. Under GRAPH_MODE the step is its
    graph, each call staged by the cell scopes it was traced in (`_pipeline.staged_program`)."""
    params = list(network.trainable_params())
    step = value_and_grad(network, None, params)
    program = graph_program(step, inputs)[0] if get_context("mode") == GRAPH_MODE else None
    program = record_pipeline(step, network, *inputs) if program is None else staged_program(program, network)
    layouts = None if dataset_strategy is None else list(zip(inputs, dataset_strategy))
    if scheduler is None:
        scheduler = get_auto_parallel_context("pipeline_scheduler")
    if interleave is None:
        interleave = get_auto_parallel_context("pipeline_interleave")
    return execute_pipeline(program, stages, devices, layouts, scheduler, interleave)


def format_pipeline(run, machine=None):
    """The text the planner prints for a pipeline (`run`, a `PipelineExecution`): per stage its ranks, the bytes
    of its parameters and its peak activations per rank, its collectives and sends, and its busy time; then the
    step time the schedule's timeline gives with each pass's estimated seconds."""
    machine = machine or Machine()
    stages, per = len(run.stages), run.stages[0].world.size
    kind = run.scheduler + (f", interleaved: {run.chunks} chunks per stage" if run.interleave else "")
    lines = [f"== pipeline: {stages} stages x {per} ranks, {len(run.activations[0])} micro-batches, scheduler "
             f"{kind}", f"{'stage':>6} {'ranks':>12} {'params':>10} {'peak act':>10} {'collectives':>12} "
             f"{'sent':>10} {'p2p sent':>10} {'busy ms':>10}"]
    seconds = run.pass_seconds(machine)
    peaks = run.peak_activation_bytes()
    for s, ex in enumerate(run.stages):
        names = {p.name: p for p in ex._executor.params.values()}
        params = sum(_bytes(lay, names[n].itemsize) for n, lay in ex.parameter_layouts().items())
        sent = sum(r.sent_bytes for r in ex.world.log)
        p2p = sum(rec.sent_bytes for a, _, rec in run.p2p if a == s)
        busy = sum(t for (stage, _), t in seconds.items() if stage == s)
        lines.append(f"{s:>6} {f'{s * per}-{(s + 1) * per - 1}':>12} {params:>10} {peaks[s]:>10} "
                     f"{len(ex.world.log):>12} {sent:>10} {p2p:>10} {1e3 * busy:>10.4f}")
    step = run.step_seconds(machine)
    lines += ["", f"== estimated step time (the schedule's timeline of the passes): {1e3 * step:.4f} ms"]
    return "\n".join(lines)


def _mesh(text, devices, parser):
    try:
        sizes = tuple(int(v) for v in text.lower().split("x"))
    except ValueError:
        parser.error(f"--mesh must be sizes joined by 'x' (e.g. 8x128), but got {text!r}")
    if any(v < 1 for v in sizes) or math.prod(sizes) != devices:
        parser.error(f"--mesh {text} must be positive sizes whose product is --devices {devices}")
    return sizes


def _gpt_demo(mesh, strategies="megatron", abstract=False):
    """The W4 GPT with the Megatron strategies ("megatron"), those of its products only ("products"), or none;
    `abstract`: its parameters and inputs hold shapes and dtypes only (`_demo_gpt.abstract`)."""
    from mindseed.parallel import _demo_gpt as gpt  # noqa: PLC0415  (the demo model, only when asked for)
    dp, mp = (mesh + (1,))[:2] if len(mesh) < 2 else (mesh[0], math.prod(mesh[1:]))
    with gpt.abstract() if abstract else contextlib.nullcontext():
        net = gpt.GPT()
        inputs = gpt.inputs()
    if strategies:
        net.shard_megatron(dp, mp, products_only=strategies == "products")
    return net, inputs, gpt.dataset_strategy(dp)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mindseed.parallel.plan", description=__doc__.split("\n")[0])
    parser.add_argument("script", nargs="?", help="defines `network`, `inputs` and optionally `dataset_strategy`")
    parser.add_argument("--devices", type=int, default=4, help="number of simulated ranks (default 4)")
    parser.add_argument("--mesh", help="the device mesh the script builds its strategies on, e.g. 8x128 "
                                       "(default: one axis of --devices)")
    parser.add_argument("--demo", choices=sorted(_DEMOS) + ["gpt"],
                        help="plan a built-in MLP, or the W4 GPT with Megatron-style shards on --mesh (dp x mp)")
    parser.add_argument("--ranks", type=int, default=16, help="print at most this many ranks (default 16)")
    parser.add_argument("--optimizer", choices=sorted(OPTIMIZER_STATES), default="adam",
                        help="the optimizer whose state is counted (default adam)")
    parser.add_argument("--parallel-optimizer", nargs="?", const="level1", choices=("level1", "level2", "level3"),
                        help="cut the optimizer state over each parameter's data-parallel ranks (level1, ZeRO-1; "
                             "level2: the gradients too; level3: the weights too)")
    parser.add_argument("--strategy-file", help="write MindSpore's strategy file of the plan here")
    parser.add_argument("--stages", type=int, help="pipeline stages (default: the context's pipeline_stages): the "
                        "script's network is an nn.PipelineCell whose cells carry pipeline_stage")
    parser.add_argument("--scheduler", choices=("1f1b", "gpipe", "seqpipe", "seqvpp", "seqsmartvpp", "zero_bubble_v"),
                        help="the pipeline's scheduler (default: the context's pipeline_scheduler)")
    parser.add_argument("--interleave", action="store_true", help="with --scheduler: several chunks per stage")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--shapes-only", action="store_true",
                      help="run on layouts only (the default above 64 ranks): no shard is computed")
    mode.add_argument("--check", action="store_true",
                      help="simulate every rank's shards and check them against one process (the default up to 64)")
    parser.add_argument("--tflops", type=float, default=100.0, help="device TFLOP/s for the step time (default 100)")
    parser.add_argument("--bandwidth", type=float, default=100.0, help="GB/s per rank (default 100)")
    parser.add_argument("--latency", type=float, default=10.0, help="microseconds per collective (default 10)")
    parser.add_argument("--auto", nargs="?", const="dynamic_programming", choices=SEARCH_MODES,
                        help="also plan with AUTO_PARALLEL's strategy search (default dynamic_programming) over "
                             "--mesh and print both plans' communication (the demo GPT: from no strategy, or from "
                             "its products' strategies for sharding_propagation)")
    args = parser.parse_args(argv)
    if args.devices < 1:
        parser.error(f"--devices must be positive, but got {args.devices}")
    mesh = _mesh(args.mesh, args.devices, parser) if args.mesh else (args.devices,)
    shapes_only = args.shapes_only or (args.devices > 64 and not args.check)
    if args.demo == "gpt":   # planned on shapes only: made without data (torch never loads)
        network, inputs, data = _gpt_demo(mesh, abstract=shapes_only and not args.stages)
    elif args.demo:
        network, inputs, data = _demo(args.demo, args.devices)
    elif args.script:
        scope = runpy.run_path(args.script, {"devices": args.devices, "mesh": mesh}, run_name="__plan__")
        missing = [k for k in ("network", "inputs") if k not in scope]
        if missing:
            parser.error(f"the script {args.script} must define {' and '.join(missing)}")
        network, inputs, data = scope["network"], scope["inputs"], scope.get("dataset_strategy")
    else:
        parser.error("give a script or --demo")
    stages = args.stages or get_auto_parallel_context("pipeline_stages")
    if stages > 1:
        run = plan_pipeline(network, inputs, args.devices, stages, data, args.scheduler,
                            args.interleave if args.scheduler else None)
        print(format_pipeline(run, Machine(args.tflops, args.bandwidth, args.latency)))
        return 0
    step = plan_step(network, inputs, args.devices, data, shapes_only)
    names = ("dp", "mp") if len(mesh) == 2 else tuple(f"a{i}" for i in range(len(mesh)))
    machine = Machine(args.tflops, args.bandwidth, args.latency)
    print(format_plan(step, args.ranks, args.optimizer, args.parallel_optimizer,
                      DeviceMesh(mesh, names) if args.mesh else None, machine))
    if args.auto:
        if args.demo == "gpt":
            network, inputs, data = _gpt_demo(mesh, "products" if args.auto == "sharding_propagation" else None,
                                               abstract=shapes_only)
        found = plan_step(network, inputs, args.devices, data, shapes_only, args.auto, DeviceMesh(mesh), machine)
        print(f"\n== AUTO_PARALLEL ({args.auto}) on the mesh {mesh}\n")
        print(format_plan(found, args.ranks, args.optimizer, args.parallel_optimizer, None, machine))
        (hand, c_hand, t_hand), (auto, c_auto, t_auto) = (
            (sum(r.sent_bytes for r in s.execution.world.log), 1e3 * step_seconds(s.execution, machine)[1],
             1e3 * sum(step_seconds(s.execution, machine))) for s in (step, found))
        print(f"\n== communication per rank: hand-written plan: {hand} B, {c_hand:.4f} ms (step {t_hand:.4f} ms); "
              f"searched plan ({args.auto}): {auto} B, {c_auto:.4f} ms (step {t_auto:.4f} ms)")
        step = found
    if args.strategy_file:
        step.execution.save_strategy(args.strategy_file)
        print(f"\nstrategy file written: {args.strategy_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
