"""One process of the MindSpore 2.10 parallel API on real processes; tests/parallel/test_parallel_api_processes.py
launches two.

usage: python _parallel_api_worker.py DIR   (the launcher environment is set by the test)
The process trains with `DistributedDataParallel` (each rank its half of every batch: parameters broadcast from
rank 0, bucketed gradient all-reduce, `no_sync` accumulation, `average_in_collective`, an unused parameter) and with
`AutoParallel` over a functional training step and a forward pass (column/row tensor parallel, each rank its half of
the batch; TrainOneStepCell over AutoParallel with the parallel optimizer, the layouts recorded online), and writes
what it got to DIR/result_<rank>.json.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "parallel"))

import mindseed as ms  # noqa: E402
from _mlp import MLP  # noqa: E402
from _pipeline_model import Net, WithLoss  # noqa: E402
from mindseed import Parameter, Tensor, nn  # noqa: E402
from mindseed.parallel import Layout  # noqa: E402
from mindseed.communication import get_rank, init  # noqa: E402
from mindseed.parallel import strategy  # noqa: E402
from mindseed.parallel.auto_parallel import AutoParallel  # noqa: E402
from mindseed.parallel.distributed import DistributedDataParallel  # noqa: E402
from mindseed.parallel.nn import Pipeline, PipelineGradReducer  # noqa: E402

RNG = np.random.default_rng(21)
BATCHES = [(RNG.standard_normal((8, 4)), RNG.standard_normal((8, 6))) for _ in range(3)]
COL_ROW = dict(mm1=((1, 1), (1, 2)), add=((1, 2), (2,)), mm2=((1, 2), (2, 1)))


class WithUnused(nn.Cell):
    """The MLP and a parameter its forward pass never reads."""

    def __init__(self):
        super().__init__()
        self.mlp = MLP()
        self.unused = Parameter(Tensor(np.ones(3)), name="unused")

    def construct(self, x, y):
        return self.mlp(x, y)


def half(a, rank):
    n = a.shape[0] // 2
    return Tensor(a[rank * n:(rank + 1) * n])


def listed(ts):
    return [t.asnumpy().tolist() for t in ts]


def ddp(rank):
    out = {}
    net = MLP(seed=1 if rank == 0 else 2)   # rank 1 starts elsewhere: init_sync gives it rank 0's parameters
    model = DistributedDataParallel(net, bucket_cap_mb=0.00002)   # buckets close at 20 elements: [w1], [b1, w2]
    out["buckets"] = [[p.name for p in b.params_list] for buf in model.buffers for b in buf.buckets]
    out["synced"] = listed(net.trainable_params())
    opt = nn.SGD(net.trainable_params(), 0.1)
    grad_fn = ms.value_and_grad(model, None, model.trainable_params())
    out["grads"] = []
    for x, y in BATCHES[:2]:
        _, grads = grad_fn(half(x, rank), half(y, rank))
        out["grads"].append(listed(grads))
        opt(grads)
        model.zero_grad()
    out["params"] = listed(net.trainable_params())
    x, y = BATCHES[2]
    with model.no_sync():   # micro-batch a: rows 0-3 (this rank's 2 of them), kept local
        _, grads = grad_fn(half(x[:4], rank), half(y[:4], rank))
        out["local"] = listed(grads)
    _, grads = grad_fn(half(x[4:], rank), half(y[4:], rank))   # micro-batch b: the sum of both reduced
    out["accumulated"] = listed(grads)
    model.zero_grad()
    averaged = DistributedDataParallel(MLP(), average_in_collective=True)
    _, grads = ms.value_and_grad(averaged, None, averaged.trainable_params())(half(x, rank), half(y, rank))
    out["averaged"] = listed(grads)
    unused = WithUnused()
    model = DistributedDataParallel(unused, find_unused_parameters=True)
    _, grads = ms.value_and_grad(model, None, model.trainable_params())(half(x, rank), half(y, rank))
    out["unused"] = listed(grads)
    return out


def auto_parallel(rank):
    net = MLP(**COL_ROW)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    parallel_net = AutoParallel(train_step, parallel_mode="semi_auto")
    losses = [float(parallel_net(half(x, rank), half(y, rank)).asnumpy()) for x, y in BATCHES]
    x, y = BATCHES[0]
    forward = float(AutoParallel(net)(half(x, rank), half(y, rank)).asnumpy())
    # the batch's rows over the 2 processes given as Layouts
    layout = Layout((2,), ("dp",))
    parallel_net = AutoParallel(net)
    parallel_net.dataset_strategy((layout("dp", "None"), layout("dp", "None")))
    by_layout = float(parallel_net(half(x, rank), half(y, rank)).asnumpy())
    return {"losses": losses, "params": listed(net.trainable_params()), "forward": forward, "by_layout": by_layout}


def train_one_step_cell(rank):
    """Two Adam steps of TrainOneStepCell over AutoParallel (column/row, the parallel optimizer at level1), the
    layouts recorded online."""
    strategy.enable_save_strategy_online()
    net = MLP(**COL_ROW)
    parallel_net = AutoParallel(net)
    parallel_net.hsdp(threshold=0)
    step = nn.TrainOneStepCell(parallel_net, nn.Adam(net.trainable_params(), learning_rate=0.01))
    losses = [float(step(half(x, rank), half(y, rank)).asnumpy()) for x, y in BATCHES[:2]]
    mine = strategy.get_current_strategy_metadata(net)[0]
    return {"losses": losses, "params": listed(net.trainable_params()),
            "layouts": {name: [lay.to_dict()["tensor_map"], lay.to_dict()["rank_list"]]
                        for name, (lay, _, _) in mine.items()}}


def functional_pipeline(rank):
    """Two steps of a functional pipeline step (Pipeline of 4 micro-batches, PipelineGradReducer, Momentum) in
    AutoParallel with pipeline(stages=2): one stage per process, each feeding the whole batch (its stage's only
    rank)."""
    cell = pipeline_cell()
    optimizer = nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda x, y: cell(x, y), None, optimizer.parameters)
    reducer = PipelineGradReducer(optimizer.parameters)

    def train_one_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(reducer(grads))
        return loss

    parallel_net = AutoParallel(train_one_step)
    parallel_net.pipeline(stages=2)
    losses = [float(parallel_net(Tensor(x), Tensor(y)).asnumpy()) for x, y in BATCHES[:2]]
    return {"losses": losses, "params": listed(cell.trainable_params())}


def pipeline_cell():
    """A 2-stage tanh MLP (widths 4, 6, 6, 6) with its mean-squared-error loss, in a Pipeline of 4 micro-batches."""
    net = Net((4, 6, 6, 6))
    return Pipeline(WithLoss(net), 4, stage_config={"net.layers.0": 0, "net.layers.1": 1, "net.layers.2": 1})


def main(directory):
    init()
    rank = get_rank()
    out = {"rank": rank, "ddp": ddp(rank), "auto_parallel": auto_parallel(rank),
           "train_one_step_cell": train_one_step_cell(rank), "functional_pipeline": functional_pipeline(rank)}
    with open(os.path.join(directory, f"result_{rank}.json"), "w", encoding="utf-8") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])
