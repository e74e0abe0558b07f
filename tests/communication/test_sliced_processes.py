"""Processes of a real run (gloo, OMP_NUM_THREADS=1) holding only their part of the Parameters and of the optimizer
state, through nn.TrainOneStepCell on Parameters made under nn.utils.no_init_parameters: a 2-stage pipeline (each
process its stage's Parameters and momenta, only activations and gradients crossing the stages) and the parallel
optimizer on 2 data-parallel processes (each its slice of the weights and of the optimizer state at every level, as
MindSpore's static graph). Losses and
trained parameters equal the single process (float64, 1e-12); the bytes each process holds are asserted.
Worker: _sliced_worker.py (one launch of 2 processes)."""
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
from _mlp import lazy_mlp  # noqa: E402
from _sliced_worker import ZERO_BATCHES, pipeline_batches, pipeline_cell, tied_cell  # noqa: E402
from _workers import clean_env, free_port, run  # noqa: E402

from mindseed.parallel._pipeline import execute_pipeline, record_pipeline  # noqa: E402


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    directory = tmp_path_factory.mktemp("sliced")
    env = clean_env(MS_WORKER_NUM="2", MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(free_port()),
                    MS_TOPO_TIMEOUT="60")
    run(directory, [(f"rank{r}", [os.path.join(HERE, "_sliced_worker.py"), str(directory)],
                     dict(env, MS_NODE_ID=str(r))) for r in range(2)])
    return [json.loads((directory / f"result_{r}.json").read_text()) for r in range(2)]


@pytest.mark.parametrize("key", ["pipeline", "pipeline-graph"])
def test_each_pipeline_stage_holds_only_its_parameters(results, key):
    # pipeline-graph: GRAPH_MODE, each step's graph traced on shapes and staged by its calls' cell scopes
    assert all(res[key]["graph"] == (key == "pipeline-graph") for res in results)
    cell = pipeline_cell(lazy=False)
    step = nn.TrainOneStepCell(cell, nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in pipeline_batches()]
    params = {p.name: p.asnumpy() for p in cell.trainable_params()}
    moments = {q.name: q.asnumpy() for q in step.optimizer.moments}
    stage0 = ["net.layers.0.w", "net.layers.0.b", "net.layers.1.w", "net.layers.1.b"]
    stage1 = ["net.layers.2.w", "net.layers.2.b"]
    first, last = (res[key] for res in results)
    # the last stage returns the loss, the first zeros (MindSpore's output of a stage without the loss)
    np.testing.assert_allclose(last["losses"], losses, rtol=0, atol=1e-12)
    assert first["losses"] == [0.0, 0.0]
    for got, names, other in ((first, stage0, stage1), (last, stage1, stage0)):
        assert sorted(got["params"]) == sorted(names) and sorted(got["waiting"]) == sorted(other)
        for name in names:
            np.testing.assert_allclose(got["params"][name], params[name], rtol=0, atol=1e-12)
            np.testing.assert_allclose(got["moments"]["moments." + name], moments["moments." + name], rtol=0,
                                       atol=1e-12)
        assert sorted(got["moments"]) == sorted("moments." + n for n in names)
        assert got["integrated"] == "Pipeline Parallel don't support Integrated save checkpoint now."
        # its checkpoint: its stage's Parameters (the Momentum's scalars aside), the others neither saved nor made
        assert sorted(k for k in got["saved"] if k.startswith("net.")) == sorted(names)
        for name in names:
            np.testing.assert_allclose(got["saved"][name], params[name], rtol=0, atol=1e-12)
            np.testing.assert_allclose(got["rank_parameters"][name], params[name], rtol=0, atol=1e-12)
        assert sorted(got["rank_parameters"]) == sorted(names)   # what the rank saves: its stage's
    # float64: stage 0 holds 4x6 + 6 + 6x5 + 5 values, stage 1 5x4 + 4 (of 89)
    assert [first["param_bytes"], last["param_bytes"]] == [65 * 8, 24 * 8]
    assert [first["moment_bytes"], last["moment_bytes"]] == [65 * 8, 24 * 8]
    for got in (first, last):
        assert got["shared"] == 0 and got["log"] == []   # nothing read across the stages, no collective
        # per step 4 activations of 2 x 5 forward, their 4 gradients back
        assert sorted(got["sends"]) == sorted([[0, 1, 80]] * 4 + [[1, 0, 80]] * 4)


def test_a_weight_both_stages_read_is_held_by_the_first(results):
    cell = tied_cell(lazy=False)
    w = cell.network.net.w
    x, y = (Tensor(a) for a in pipeline_batches()[0])
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, x, y)
    layout = execute_pipeline(program, 2, 2).layout_of(w)
    sim = execute_pipeline(program, 2, 2, [(w, layout)], scheduler="1f1b", owners=[(w, 0)])
    step = nn.TrainOneStepCell(cell, nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = [float(step(Tensor(a), Tensor(b)).asnumpy()) for a, b in pipeline_batches()]
    first, last = (res["tied"] for res in results)
    np.testing.assert_allclose(last["losses"], losses, rtol=0, atol=1e-12)
    assert first["losses"] == [0.0, 0.0]
    # stage 0 holds and trains the weight (4 x 6 float64) and its momentum; stage 1 holds neither
    np.testing.assert_allclose(first["params"]["net.w"], w.asnumpy(), rtol=0, atol=1e-12)
    assert [first["param_bytes"], first["moment_bytes"], last["param_bytes"], last["moment_bytes"]] == [192, 192, 0, 0]
    assert last["params"] == {}
    # the weight sent to stage 1 once per step, stage 1's gradient parts sent back: the simulated pipeline's Sends
    sends = [[a, b, rec.input_bytes] for a, b, rec in sim.p2p]
    assert [0, 1, 192] in sends
    assert first["sends"] == last["sends"] == sends


def _zero_reference():
    net = lazy_mlp()
    for p in net.trainable_params():
        p.init_data()
    step = nn.TrainOneStepCell(net, nn.Adam(net.trainable_params(), learning_rate=0.01))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in ZERO_BATCHES]
    states = {q.name: q.asnumpy() for _, q in step.optimizer.parameters_and_names()
              if q.name.startswith(("moment1.", "moment2."))}
    return losses, {p.name: p.asnumpy() for p in net.trainable_params()}, states


@pytest.mark.parametrize("level", ["level1", "level2", "level3"])
def test_the_parallel_optimizer_holds_only_its_slices(results, level):
    losses, params, states = _zero_reference()
    for rank, res in enumerate(results):
        got = res["zero"][level]
        np.testing.assert_allclose(got["losses"], losses, rtol=0, atol=1e-12)
        # the optimizer state is this rank's half of dim 0 of every parameter's (w1 4x8, b1 8, w2 8x6)
        for name, value in states.items():
            half = np.split(value, 2)[rank]
            np.testing.assert_allclose(got["states"][name], half, rtol=0, atol=1e-12)
        # the weights in halves too, at every level (MindSpore's static graph cuts them from level1)
        for name, value in params.items():
            np.testing.assert_allclose(got["params"][name], np.split(value, 2)[rank], rtol=0, atol=1e-12)
            np.testing.assert_allclose(got["rank_parameters"][name], np.split(value, 2)[rank], rtol=0, atol=1e-12)
            np.testing.assert_allclose(got["whole"][name], value, rtol=0, atol=1e-12)
        assert all(got["sliced"])
        # 88 float64 values per weight set (704 B): each process holds half the weights and half of both moments
        assert got["param_bytes"] == 352
        assert got["state_bytes"] == 2 * 352
        # per step: each weight all-gathered where the forward pass reads it (level3: w2 again for the backward, the
        # only weight the backward reads), one ReduceScatter per gradient, the loss's AllReduce; the checkpoint's
        # gathers are outside the log
        step = ["AllGather"] * 3 + (["AllGather"] if level == "level3" else []) + ["ReduceScatter"] * 3 + ["AllReduce"]
        assert sorted(got["log"]) == sorted(step * 2)
        assert got["log"][:3] == ["AllGather"] * 3
