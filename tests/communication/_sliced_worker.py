"""One process of the runs holding only their slices; tests/communication/test_sliced_processes.py launches two.

usage: python _sliced_worker.py DIR   (the launcher environment is set by the test)
Scenarios, each through nn.TrainOneStepCell on Parameters made under nn.utils.no_init_parameters:
* "pipeline": a 2-stage pipeline (nn.PipelineCell, 4 micro-batches), one process per stage, two steps with Momentum;
* "tied": a 2-stage pipeline whose weight both stages read, held by stage 0 and sent to stage 1 each step;
* "zero_<level>": the parallel optimizer on 2 data-parallel processes, two steps with Adam;
* `pipeline_zero` (run by _parallel_worker.py's 4 processes): the 2-stage pipeline of 2 data-parallel processes a
  stage with the parallel optimizer, two steps with Adam.
Each writes what this process holds and returned to DIR/result_<rank>.json.
"""
import contextlib
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "parallel"))

import mindseed as ms  # noqa: E402
from _mlp import Drawn, lazy_mlp  # noqa: E402
from _pipeline_model import Net, WithLoss  # noqa: E402
from mindseed import Parameter, Tensor, nn, ops  # noqa: E402
from mindseed.common import dtype as mstype  # noqa: E402
from mindseed.common.initializer import initializer  # noqa: E402
from mindseed.communication import get_rank, init  # noqa: E402
from mindseed.parallel._sliced import held_bytes  # noqa: E402
from mindseed.parallel._train import process_training  # noqa: E402

WIDTHS, STAGE_OF_LAYER, MICRO = (4, 6, 5, 4), (0, 0, 1), 4


def pipeline_cell(lazy):
    """The 2-stage pipeline of tests/communication/_pipeline_worker.py with its Parameters drawn by `Drawn`
    (`lazy`: made under no_init_parameters, waiting for their initialization)."""
    net = Net(WIDTHS)
    for k, (layer, stage) in enumerate(zip(net.layers, STAGE_OF_LAYER)):
        layer.pipeline_stage = stage
        for j, name in enumerate(("w", "b")):
            shape = tuple(getattr(layer, name).shape)
            if lazy:
                with nn.utils.no_init_parameters():
                    p = Parameter(initializer(Drawn(10 * k + j), shape, mstype.float64), name=name)
            else:
                p = Parameter(initializer(Drawn(10 * k + j), shape, mstype.float64), name=name)
            setattr(layer, name, p)
    return nn.PipelineCell(WithLoss(net), MICRO)


def pipeline_batches():
    rng = np.random.default_rng(8)
    return [(rng.standard_normal((8, 4)), rng.standard_normal((8, 4))) for _ in range(2)]


def pipeline(rank, mode=ms.PYNATIVE_MODE):
    """Two steps of the lazily initialized 2-stage pipeline on the two processes (one stage each); in GRAPH_MODE from
    the step's graph traced on shapes (`graph`: whether the last step was)."""
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2,
                                 pipeline_config={"pipeline_interleave": False, "pipeline_scheduler": "1f1b"})
    runner = process_training()
    shared = []
    share = runner.world.share

    def counting(*args):
        shared.append(args[1:])
        return share(*args)
    runner.world.share = counting     # a value read across stages would be shared: count them
    with nn.utils.no_init_parameters():
        cell = pipeline_cell(lazy=True)
        step = nn.TrainOneStepCell(cell, nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9))
    ms.set_context(mode=mode)
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in pipeline_batches()]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    del runner.world.share
    ex = runner.executions[-1]
    slices = runner.rank_parameters(step, rank)
    path = os.path.join(DIRECTORY, f"stage_{mode}_{rank}.ckpt")
    try:
        ms.save_checkpoint(cell, path)   # integrated_save under pipeline stages: MindSpore's RuntimeError
        integrated = None
    except RuntimeError as exc:
        integrated = str(exc)
    ms.save_checkpoint(cell, path, integrated_save=False)   # this stage's Parameters only
    ms.reset_auto_parallel_context()
    params = cell.trainable_params()
    moments = list(step.optimizer.moments)
    held = [p for p in params if not p.has_init]
    return {"losses": losses, "params": {p.name: p.asnumpy().tolist() for p in held},
            "moments": {q.name: q.asnumpy().tolist() for q in moments if not q.has_init and q.sliced},
            "waiting": [p.name for p in params if p.has_init],
            "param_bytes": held_bytes(params), "moment_bytes": held_bytes(moments),
            "saved": {k: v.asnumpy().tolist() for k, v in ms.load_checkpoint(path).items()}, "integrated": integrated,
            "rank_parameters": {k: v.asnumpy().tolist() for k, v in slices.items()},
            "shared": len(shared), "sends": [[a, b, rec.input_bytes] for a, b, rec in ex.p2p],
            "log": [rec.kind for rec in runner.world.log + runner.world.stage(2).log],
            "graph": ex.program.graph is not None}


class _Use(nn.Cell):
    def __init__(self, w, transpose):
        super().__init__()
        self.w, self.mm, self.act = w, ops.MatMul(transpose_b=transpose), ops.Tanh()

    def construct(self, x):
        return self.act(self.mm(x, self.w))


class Tied(nn.Cell):
    """A weight read by both stages (an embedding tied to the output head): x @ w on stage 0, @ w^T on stage 1."""

    def __init__(self, lazy):
        super().__init__()
        with nn.utils.no_init_parameters() if lazy else contextlib.nullcontext():
            self.w = Parameter(initializer(Drawn(31), (4, 6), mstype.float64), name="w")
        self.first, self.last = _Use(self.w, False), _Use(self.w, True)
        self.first.pipeline_stage, self.last.pipeline_stage = 0, 1

    def construct(self, x):
        return self.last(self.first(x))


def tied_cell(lazy):
    return nn.PipelineCell(WithLoss(Tied(lazy)), MICRO)


def tied(rank):
    """Two steps of the lazily initialized tied pipeline: stage 0 holds the shared weight and sends it to stage 1."""
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2,
                                 pipeline_config={"pipeline_interleave": False, "pipeline_scheduler": "1f1b"})
    runner = process_training()
    with nn.utils.no_init_parameters():
        cell = tied_cell(lazy=True)
        step = nn.TrainOneStepCell(cell, nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in pipeline_batches()]
    ex = runner.executions[-1]
    ms.reset_auto_parallel_context()
    params = cell.trainable_params()
    return {"losses": losses, "params": {p.name: p.asnumpy().tolist() for p in params if not p.has_init},
            "param_bytes": held_bytes(params), "moment_bytes": held_bytes(list(step.optimizer.moments)),
            "sends": [[a, b, rec.input_bytes] for a, b, rec in ex.p2p]}


def pipeline_zero(rank, level):
    """Two steps of the lazily initialized 2-stage pipeline with Adam and the parallel optimizer at `level` on 4
    processes: 2 stages of 2 data-parallel processes, each feeding its half of the batch."""
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2,
                                 dataset_strategy="data_parallel", enable_parallel_optimizer=True,
                                 parallel_optimizer_config={"optimizer_level": level,
                                                            "parallel_optimizer_threshold": 0},
                                 pipeline_config={"pipeline_interleave": False, "pipeline_scheduler": "1f1b"})
    stage = process_training().world.stage(2)
    start = len(stage.log)
    with nn.utils.no_init_parameters():
        cell = pipeline_cell(lazy=True)
        step = nn.TrainOneStepCell(cell, nn.Adam(cell.trainable_params(), learning_rate=0.01))
    rows = slice(rank % 2 * 4, rank % 2 * 4 + 4)
    losses = [float(step(Tensor(x[rows]), Tensor(y[rows])).asnumpy()) for x, y in pipeline_batches()]
    log = [rec.kind for rec in stage.log[start:]]   # the collectives inside this process's stage
    ms.reset_auto_parallel_context()
    params = cell.trainable_params()
    states = [q for _, q in step.optimizer.parameters_and_names() if q.name.startswith(("moment1.", "moment2."))]
    return {"losses": losses, "params": {p.name: p.asnumpy().tolist() for p in params if not p.has_init},
            "states": {q.name: q.asnumpy().tolist() for q in states if q.sliced},
            "param_bytes": held_bytes(params), "state_bytes": held_bytes(states), "log": log}


RNG = np.random.default_rng(11)
ZERO_BATCHES = [(RNG.standard_normal((8, 4)), RNG.standard_normal((8, 6))) for _ in range(2)]


def zero(rank, level):
    """Two steps of the lazily initialized MLP (`lazy_mlp`) with Adam and the parallel optimizer at `level` on the
    2 data-parallel processes, each feeding its half of the batch."""
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy="data_parallel",
                                 enable_parallel_optimizer=True,
                                 parallel_optimizer_config={"optimizer_level": level,
                                                            "parallel_optimizer_threshold": 0})
    runner = process_training()
    start = len(runner.world.log)
    net = lazy_mlp()
    step = nn.TrainOneStepCell(net, nn.Adam(net.trainable_params(), learning_rate=0.01))
    rows = slice(rank * 4, rank * 4 + 4)
    losses = [float(step(Tensor(x[rows]), Tensor(y[rows])).asnumpy()) for x, y in ZERO_BATCHES]
    log = [rec.kind for rec in runner.world.log[start:]]
    slices = runner.rank_parameters(step, rank)
    params = net.trainable_params()
    states = [q for _, q in step.optimizer.parameters_and_names() if q.name.startswith(("moment1.", "moment2."))]
    path = os.path.join(DIRECTORY, f"zero_{level}_{rank}.ckpt")
    ms.save_checkpoint(net, path)    # integrated_save: the weights whole, gathered at level3
    ms.reset_auto_parallel_context()
    return {"losses": losses, "params": {p.name: p.asnumpy().tolist() for p in params},
            "states": {q.name: q.asnumpy().tolist() for q in states}, "sliced": [q.sliced for q in params + states],
            "param_bytes": held_bytes(params), "state_bytes": held_bytes(states), "log": log,
            "rank_parameters": {k: v.asnumpy().tolist() for k, v in slices.items()},
            "whole": {k: v.asnumpy().tolist() for k, v in ms.load_checkpoint(path).items()}}


DIRECTORY = None


def main(directory):
    global DIRECTORY
    DIRECTORY = directory
    init()
    rank = get_rank()
    out = {"rank": rank}
    out["pipeline"] = pipeline(rank)
    out["pipeline-graph"] = pipeline(rank, ms.GRAPH_MODE)
    out["tied"] = tied(rank)
    out["zero"] = {level: zero(rank, level) for level in ("level1", "level2", "level3")}
    with open(os.path.join(directory, f"result_{rank}.json"), "w", encoding="utf-8") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])
