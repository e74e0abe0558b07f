"""MindSpore 2.10's parallel API on two real processes (gloo, OMP_NUM_THREADS=1; one launch, about 25 s on this
loaded machine), each feeding its half of every batch: `DistributedDataParallel` (parameters broadcast from rank 0,
gradients all-reduced in two buckets, `no_sync` accumulation, `average_in_collective`, `find_unused_parameters`) and
`AutoParallel` over a functional training step and a forward pass (column/row tensor parallel), and TrainOneStepCell
over `AutoParallel` with `hsdp`, and a functional pipeline step in 2 stages (one per process) give the single-process
full-batch gradients, parameters and losses (float64, 1e-12) on both processes; the layouts recorded online are each
process's.
Worker: tests/communication/_parallel_api_worker.py."""
import json
import os
import sys

import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
COMM = os.path.join(os.path.dirname(HERE), "communication")
sys.path.insert(0, COMM)
sys.path.insert(0, os.path.dirname(HERE))
from _mlp import MLP  # noqa: E402
from _parallel_api_worker import BATCHES, pipeline_cell  # noqa: E402
from _workers import clean_env, free_port, run  # noqa: E402


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    directory = tmp_path_factory.mktemp("parallel_api")
    env = clean_env(MS_WORKER_NUM="2", MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(free_port()),
                    MS_TOPO_TIMEOUT="60")
    run(directory, [(f"worker{r}", [os.path.join(COMM, "_parallel_api_worker.py"), str(directory)],
                     dict(env, MS_NODE_ID=str(r))) for r in range(2)])
    return [json.loads((directory / f"result_{r}.json").read_text()) for r in range(2)]


def _close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.array(g), np.asarray(w), rtol=0, atol=1e-12)


def _grads(net, x, y):
    _, grads = ms.value_and_grad(net, None, net.trainable_params())(Tensor(x), Tensor(y))
    return [g.asnumpy() for g in grads]


def test_ddp_broadcasts_and_buckets(results):
    ref = MLP()
    for res in results:
        assert res["ddp"]["buckets"] == [["w1"], ["b1", "w2"]]
        _close(res["ddp"]["synced"], [p.asnumpy() for p in ref.trainable_params()])


def test_ddp_steps_give_the_full_batch_gradients(results):
    ref = MLP()
    opt = nn.SGD(ref.trainable_params(), 0.1)
    for k, (x, y) in enumerate(BATCHES[:2]):
        grads = _grads(ref, x, y)
        for res in results:
            _close(res["ddp"]["grads"][k], grads)
        opt(tuple(Tensor(g) for g in grads))
    for res in results:
        _close(res["ddp"]["params"], [p.asnumpy() for p in ref.trainable_params()])
    # no_sync: micro-batch a's gradient stays on each rank (its 2 rows); then a's and b's sum, reduced
    x, y = BATCHES[2]
    for rank, res in enumerate(results):
        rows = slice(2 * rank, 2 * rank + 2)
        _close(res["ddp"]["local"], _grads(ref, x[:4][rows], y[:4][rows]))
    both = [a + b for a, b in zip(_grads(ref, x[:4], y[:4]), _grads(ref, x[4:], y[4:]))]
    for res in results:
        _close(res["ddp"]["accumulated"], both)


def test_ddp_averaging_after_the_collective_and_unused_parameters(results):
    x, y = BATCHES[2]
    grads = _grads(MLP(), x, y)
    for res in results:
        _close(res["ddp"]["averaged"], grads)
        _close(res["ddp"]["unused"], [np.zeros(3)] + grads)   # the cell's own parameter first


def test_auto_parallel_on_processes_equals_one_process(results):
    ref = MLP()
    opt = nn.Momentum(ref.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(ref, None, ref.trainable_params())
    losses = []
    for x, y in BATCHES:
        loss, grads = grad_fn(Tensor(x), Tensor(y))
        opt(grads)
        losses.append(float(loss.asnumpy()))
    x, y = BATCHES[0]
    forward = float(ref(Tensor(x), Tensor(y)).asnumpy())
    for res in results:
        np.testing.assert_allclose(res["auto_parallel"]["losses"], losses, rtol=0, atol=1e-12)
        _close(res["auto_parallel"]["params"], [p.asnumpy() for p in ref.trainable_params()])
        np.testing.assert_allclose(res["auto_parallel"]["forward"], forward, rtol=0, atol=1e-12)
        np.testing.assert_allclose(res["auto_parallel"]["by_layout"], forward, rtol=0, atol=1e-12)


def test_train_one_step_cell_over_auto_parallel_on_processes(results):
    ref = MLP()
    step = nn.TrainOneStepCell(ref, nn.Adam(ref.trainable_params(), learning_rate=0.01))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in BATCHES[:2]]
    for res in results:
        got = res["train_one_step_cell"]
        np.testing.assert_allclose(got["losses"], losses, rtol=0, atol=1e-12)
        _close(got["params"], [p.asnumpy() for p in ref.trainable_params()])
        # w1 by columns over the 2 processes (its rows are whole: the parallel optimizer has no rank left to cut
        # them over), w2 by rows, b1 cut like w1's columns
        assert got["layouts"] == {"w1": [[-1, 0], [0, 1]], "b1": [[0], [0, 1]], "w2": [[0, -1], [0, 1]]}


def test_a_functional_pipeline_step_on_processes(results):
    cell = pipeline_cell()
    optimizer = nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda x, y: cell(x, y), None, optimizer.parameters)
    losses = []
    for x, y in BATCHES[:2]:
        loss, grads = grad_fn(Tensor(x), Tensor(y))
        optimizer(grads)
        losses.append(float(loss.asnumpy()))
    for res in results:   # both processes: the last stage's loss, every parameter (each read from its stage)
        np.testing.assert_allclose(res["functional_pipeline"]["losses"], losses, rtol=0, atol=1e-12)
        _close(res["functional_pipeline"]["params"], [p.asnumpy() for p in cell.trainable_params()])
