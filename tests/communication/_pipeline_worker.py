"""One process of a 2-stage pipeline on real processes; tests/communication/test_pipeline_processes.py launches two.

usage: python _pipeline_worker.py DIR   (the launcher environment is set by the test)
The process records the step of a `nn.PipelineCell` (4 micro-batches), runs its stage's calls in 1F1B order with
the activations and gradients sent to / received from the other process, and writes what its stage computed (the
loss on the last stage, the gradients of its stage's parameters, the Sends, its passes) to DIR/result_<rank>.json;
then it trains the pipeline two steps through nn.TrainOneStepCell.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "parallel"))

import mindseed as ms  # noqa: E402
from _pipeline_model import Net, WithLoss  # noqa: E402
from mindseed import Tensor, nn  # noqa: E402
from mindseed.communication import get_rank, init  # noqa: E402
from mindseed.parallel._layout import TensorLayout  # noqa: E402
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline  # noqa: E402
from mindseed.parallel._process_world import ProcessWorld  # noqa: E402

RNG = np.random.default_rng(7)
X, Y = RNG.standard_normal((8, 4)), RNG.standard_normal((8, 4))
WIDTHS, STAGE_OF_LAYER, MICRO = (4, 6, 5, 4), (0, 0, 1), 4


def pipeline_cell():
    net = Net(WIDTHS)
    for layer, stage in zip(net.layers, STAGE_OF_LAYER):
        layer.pipeline_stage = stage
    return nn.PipelineCell(WithLoss(net), MICRO)


def run(world, scheduler, data=None):
    """This process's part of one step in 2 stages of the world's processes (`data`: the dataset strategy of x and y
    inside a stage): {stage, loss (last stage), grads {name: whole}, sends, passes}."""
    cell = pipeline_cell()
    x, y = Tensor(X), Tensor(Y)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, x, y)
    ex = execute_pipeline(program, 2, world.size, [(x, data), (y, data)] if data else None, scheduler=scheduler,
                          world=world)
    loss, grads = program.result
    mine = world.rank // (world.size // 2)
    out = {"stage": mine, "grads": {}, "sends": [[a, b, rec.input_bytes] for a, b, rec in ex.p2p],
           "passes": [list(map(list, p)) for p in ex.passes], "late": len(ex.late)}

    def whole(t, layout=None):
        stage = ex.execution_of(t)
        v = stage.value(t, layout)
        layout = layout or v.layout
        return stage.world.assemble(v.shards, layout).tolist()

    if ex.stage_of(loss) == mine:
        out["loss"] = whole(loss)
    for p, g in zip(cell.trainable_params(), grads):
        if ex.stage_of(g) == mine:
            layout = ex.layout_of(p)
            out["grads"][p.name] = whole(g, TensorLayout(layout.mesh, layout.shape, layout.dims))
    return out


def batches():
    rng = np.random.default_rng(8)
    return [(rng.standard_normal((8, 4)), rng.standard_normal((8, 4))) for _ in range(2)]


def train_one_step_cell():
    """Two steps of TrainOneStepCell (Momentum) on the 2-stage pipeline under semi_auto_parallel: the losses and
    the parameters this process holds afterwards (all of them, whole)."""
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=2,
                                 pipeline_config={"pipeline_interleave": False, "pipeline_scheduler": "1f1b"})
    cell = pipeline_cell()
    step = nn.TrainOneStepCell(cell, nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in batches()]
    ms.reset_auto_parallel_context()
    return {"losses": losses, "params": {p.name: p.asnumpy().tolist() for p in cell.trainable_params()}}


def main(directory):
    init()
    world = ProcessWorld()
    out = {"rank": get_rank(), "1f1b": run(world, "1f1b"), "recorded": run(world, None),
           "trained": train_one_step_cell()}
    with open(os.path.join(directory, f"result_{world.rank}.json"), "w", encoding="utf-8") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])
