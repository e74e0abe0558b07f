"""A 2-stage pipeline (nn.PipelineCell, 4 micro-batches) on two real processes (gloo, OMP_NUM_THREADS=1): each
process runs its stage's calls in 1F1B order, the activations and gradients go between the processes by
Send/Receive, and the loss and every parameter's gradient equal the single-process run (float64, 1e-12); the Sends
and each stage's passes are those of the same pipeline on a simulated world. Two steps of nn.TrainOneStepCell
under semi_auto_parallel with pipeline_stages=2 give the single-process losses and parameters on both processes.
Worker: _pipeline_worker.py."""
import json
import os
import sys

import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "parallel"))
from _pipeline_worker import X, Y, batches, pipeline_cell  # noqa: E402
from _workers import clean_env, free_port, run  # noqa: E402

from mindseed.parallel._pipeline import execute_pipeline, record_pipeline  # noqa: E402


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    directory = tmp_path_factory.mktemp("pipeline")
    env = clean_env(MS_WORKER_NUM="2", MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(free_port()),
                    MS_TOPO_TIMEOUT="60")
    run(directory, [(f"stage{r}", [os.path.join(HERE, "_pipeline_worker.py"), str(directory)],
                     dict(env, MS_NODE_ID=str(r))) for r in range(2)])
    return [json.loads((directory / f"result_{r}.json").read_text()) for r in range(2)]


def _reference():
    cell = pipeline_cell()
    loss, grads = ms.value_and_grad(cell, None, cell.trainable_params())(Tensor(X), Tensor(Y))
    return loss.asnumpy(), {p.name: g.asnumpy() for p, g in zip(cell.trainable_params(), grads)}


def _simulated(scheduler):
    cell = pipeline_cell()
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, Tensor(X), Tensor(Y))
    return execute_pipeline(program, 2, 2, scheduler=scheduler)


@pytest.mark.parametrize("order", ["1f1b", "recorded"])
def test_two_stage_pipeline_on_processes_equals_one_process(results, order):
    loss, grads = _reference()
    stages = [res[order] for res in results]
    assert [s["stage"] for s in stages] == [0, 1]
    assert "loss" not in stages[0]
    np.testing.assert_allclose(stages[1]["loss"], loss, rtol=0, atol=1e-12)
    got = {**stages[0]["grads"], **stages[1]["grads"]}
    assert sorted(got) == sorted(grads) and not set(stages[0]["grads"]) & set(stages[1]["grads"])
    for name, g in grads.items():
        np.testing.assert_allclose(got[name], g, rtol=0, atol=1e-12)
    # layers 0 and 1 on stage 0, layer 2 on stage 1
    assert sorted(stages[1]["grads"]) == ["net.layers.2.b", "net.layers.2.w"]


@pytest.mark.parametrize("order", ["1f1b", "recorded"])
def test_the_sends_and_passes_are_the_simulated_pipelines(results, order):
    sim = _simulated("1f1b" if order == "1f1b" else None)
    sends = [[a, b, rec.input_bytes] for a, b, rec in sim.p2p]
    # each micro-batch's 2-row activation of width 5 forward, its gradient back
    assert sorted(sends) == sorted([[0, 1, 2 * 5 * 8]] * 4 + [[1, 0, 2 * 5 * 8]] * 4)
    for res in results:
        assert res[order]["sends"] == sends
        assert res[order]["passes"] == [list(map(list, p)) for p in sim.passes]
    if order == "1f1b":
        assert all(res[order]["late"] == 0 for res in results)
        # stage 0 runs one forward pass ahead, then one backward and one forward in turn
        assert [p[:2] for p in results[0][order]["passes"][0][:4]] == [["F", 0], ["F", 1], ["B", 0], ["F", 2]]


def test_train_one_step_cell_runs_the_stages_on_the_processes(results):
    cell = pipeline_cell()
    step = nn.TrainOneStepCell(cell, nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in batches()]
    for res in results:   # every process returns the last stage's loss and holds every parameter, updated
        np.testing.assert_allclose(res["trained"]["losses"], losses, rtol=0, atol=1e-12)
        for p in cell.trainable_params():
            np.testing.assert_allclose(res["trained"]["params"][p.name], p.asnumpy(), rtol=0, atol=1e-12)
