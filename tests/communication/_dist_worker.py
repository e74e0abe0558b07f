"""One process of a multi-process communication test; tests/communication/test_two_process.py launches it.

usage: python _dist_worker.py SCENARIO OUT.json
The launcher environment (MS_WORKER_NUM, MS_NODE_ID, MS_SCHED_HOST, MS_SCHED_PORT, MS_ROLE) is set by the test.
Each scenario writes what it computed to OUT.json; the test checks the numbers.
"""
import json
import os
import sys

import numpy as np

import mindseed as ms
from mindseed import nn, ops
from mindseed.communication import comm_func, create_group, get_group_rank_from_world_rank, get_group_size, \
    get_rank, get_world_rank_from_group_rank, init


def rank_input(rank, shape, dtype):
    """A per-rank tensor the test can rebuild: arange * (rank + 1) + rank."""
    return (np.arange(np.prod(shape)).reshape(shape) * (rank + 1) + rank).astype(dtype)


def collectives():
    init()
    rank, size = get_rank(), get_group_size()
    out = {"rank": rank, "size": size, "world": ms.communication.GlobalComm.WORLD_COMM_GROUP}
    for dtype in ("float32", "float64"):
        x = ms.Tensor(rank_input(rank, (2, 3), dtype))
        for op in ("sum", "max", "min", "prod", "avg"):
            y = ops.AllReduce(op)(x)
            out[f"all_reduce_{op}_{dtype}"] = y.asnumpy().tolist()
            out[f"all_reduce_{op}_{dtype}_dtype"] = y.dtype.name
        out[f"all_gather_{dtype}"] = ops.AllGather()(x).asnumpy().tolist()
        x4 = ms.Tensor(rank_input(rank, (4, 3), dtype))
        out[f"reduce_scatter_{dtype}"] = ops.ReduceScatter()(x4).asnumpy().tolist()
        out[f"reduce_scatter_max_{dtype}"] = ops.ReduceScatter(ops.ReduceOp.MAX)(x4).asnumpy().tolist()
        a, b = ops.Broadcast(1)((x, x4))
        out[f"broadcast_{dtype}"] = [a.asnumpy().tolist(), b.asnumpy().tolist()]
    out["all_reduce_int32"] = ops.AllReduce()(ms.Tensor(rank_input(rank, (3,), "int32"))).asnumpy().tolist()

    # gradients: w differs per rank, so d/dx sum(AllReduce(x) * w) = AllReduce(w) on every rank
    x = ms.Tensor(rank_input(rank, (2, 3), "float64"))
    w = ms.Tensor(rank_input(rank, (2, 3), "float64") * 0.5 + 1.0)
    for op in ("sum", "max", "min", "prod", "avg"):
        prim = ops.AllReduce(op)
        out[f"grad_all_reduce_{op}"] = ms.grad(lambda t, prim=prim: (prim(t) * w).sum())(x).asnumpy().tolist()
    w4 = ms.Tensor(rank_input(rank, (4, 3), "float64") * 0.25 - 1.0)
    out["grad_all_gather"] = ms.grad(lambda t: (ops.AllGather()(t) * w4).sum())(x).asnumpy().tolist()
    x4 = ms.Tensor(rank_input(rank, (4, 3), "float64"))
    out["grad_reduce_scatter"] = ms.grad(lambda t: (ops.ReduceScatter()(t) * w).sum())(x4).asnumpy().tolist()
    # second order through the AllReduce bprop: d/dx sum(d/dx sum(AllReduce(x)^3)) = 6 * AllReduce(AllReduce(x))
    inner = ms.grad(lambda t: (ops.AllReduce()(t) ** 3).sum())
    out["grad2_all_reduce"] = ms.grad(lambda t: inner(t).sum())(x).asnumpy().tolist()

    # graph mode: the collectives are kept in the compiled graph
    ar = ops.AllReduce()

    @ms.jit
    def jitted(t):
        return ar(t * 2.0) + ar(t)
    out["jit_all_reduce"] = [jitted(x).asnumpy().tolist(), jitted(x + 1.0).asnumpy().tolist()]
    out["jit_grad_all_reduce"] = ms.jit(ms.grad(lambda t: (ar(t) * w).sum()))(x).asnumpy().tolist()

    # a user group over both ranks, and the functional forms
    create_group("pair", [0, 1])
    out["group"] = [get_rank("pair"), get_group_size("pair"), get_group_rank_from_world_rank(1, "pair"),
                    get_world_rank_from_group_rank("pair", 0)]
    out["group_all_reduce"] = ops.AllReduce(group="pair")(x).asnumpy().tolist()
    out["comm_func_all_reduce"] = comm_func.all_reduce(x)[0].asnumpy().tolist()
    out["comm_func_broadcast"] = comm_func.broadcast(x, src=1).asnumpy().tolist()
    out["comm_func_all_gather"] = comm_func.all_gather_into_tensor(x)[0].asnumpy().tolist()
    comm_func.barrier()
    return out     # release() runs at exit: the scheduler process waits for it


def _train(inputs, labels, w, b, mode):
    ms.set_context(mode=mode)
    net = nn.Dense(4, 3, weight_init=ms.Tensor(w), bias_init=ms.Tensor(b), dtype=ms.float64)
    loss = nn.WithLossCell(net, nn.MSELoss())
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    step = nn.TrainOneStepCell(loss, opt)
    losses = [float(step(ms.Tensor(inputs), ms.Tensor(labels)).asnumpy()) for _ in range(3)]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return {"weight": net.weight.asnumpy().tolist(), "bias": net.bias.asnumpy().tolist(), "losses": losses,
            "reducer": type(step.grad_reducer).__name__, "degree": getattr(step.grad_reducer, "degree", None)}


def train_data():
    """The full batch and the initial weights (the test builds the single-process reference from the same)."""
    rng = np.random.RandomState(7)
    return rng.randn(8, 4), rng.randn(8, 3), rng.randn(3, 4) * 0.5, rng.randn(3) * 0.1


def data_parallel():
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    init()
    rank, size = get_rank(), get_group_size()
    inputs, labels, w, b = train_data()
    half = slice(rank * 4, (rank + 1) * 4)
    return {"rank": rank, "pynative": _train(inputs[half], labels[half], w, b, ms.PYNATIVE_MODE),
            "graph": _train(inputs[half], labels[half], w, b, ms.GRAPH_MODE), "size": size}


def loss_scale_overflow():
    """Data parallel with a dynamic loss scale; rank 1's batch overflows at step 2 only: both ranks must skip
    that step and lower the scale, and end with the same weights."""
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    init()
    rank = get_rank()
    inputs, labels, w, b = train_data()
    half = slice(rank * 4, (rank + 1) * 4)
    net = nn.Dense(4, 3, weight_init=ms.Tensor(w), bias_init=ms.Tensor(b), dtype=ms.float64)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    manager = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 10, scale_factor=2, scale_window=1000)
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), opt, scale_sense=manager)
    overflow, scales = [], []
    for i in range(3):
        x = inputs[half].copy()
        if rank == 1 and i == 1:
            x[0, 0] = np.inf
        _, cond, scale = step(ms.Tensor(x), ms.Tensor(labels[half]))
        overflow.append(bool(cond.asnumpy()))
        scales.append(float(scale.asnumpy()))
    return {"rank": rank, "overflow": overflow, "scales": scales, "weight": net.weight.asnumpy().tolist(),
            "bias": net.bias.asnumpy().tolist(), "distributed": step.is_distributed}


def parameter_broadcast():
    """parameter_broadcast=True: the ranks build the net with different weights; training starts from rank 0's."""
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 parameter_broadcast=True)
    init()
    rank = get_rank()
    inputs, labels, w, b = train_data()
    half = slice(rank * 4, (rank + 1) * 4)
    out = {"rank": rank}
    for mode, name in ((ms.PYNATIVE_MODE, "pynative"), (ms.GRAPH_MODE, "graph")):
        out[name] = _train(inputs[half], labels[half], w + rank, b - rank, mode)
    return out


def merged_param_data():
    """Each rank holds its slice of a whole array; `_get_merged_param_data` gives every rank the whole."""
    from mindseed.train.serialization import _get_merged_param_data
    init()
    rank = get_rank()
    whole = np.arange(12, dtype=np.float32).reshape(4, 3)
    rows = [[2], [0, -1], [2, 3], 0, True, "", [], []]           # cut on dim 0 over the one device axis
    cols = [[2, 1], [-1, 1], [4, 1], 0, True, "", [], []]        # dim 1 cut by the left axis of (2, 1)
    whole_cols = np.arange(8, dtype=np.float32).reshape(4, 2) * 10
    net = nn.Dense(3, 4)
    return {"rank": rank,
            "rows": _get_merged_param_data(net, {"w": rows}, "w", ms.Tensor(whole[2 * rank:2 * rank + 2]),
                                           True).asnumpy().tolist(),
            "cols": _get_merged_param_data(net, {"w": cols}, "w", ms.Tensor(whole_cols[:, rank:rank + 1]),
                                           True).asnumpy().tolist()}


if __name__ == "__main__":
    scenario, path = sys.argv[1], sys.argv[2]
    if os.environ.get("MS_ROLE") == "MS_SCHED":
        init()   # hosts the rendezvous, then exits the process
        raise SystemExit("the scheduler returned from init()")
    result = {"collectives": collectives, "data_parallel": data_parallel,
              "loss_scale_overflow": loss_scale_overflow, "parameter_broadcast": parameter_broadcast,
              "merged_param_data": merged_param_data}[scenario]()
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f)
