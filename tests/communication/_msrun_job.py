"""A job that tests/communication/test_msrun.py launches with `python -m mindseed.msrun` (2 workers).

usage: _msrun_job.py SCENARIO OUT_DIR     (each worker writes OUT_DIR/rank<r>.json)

collectives: every AlltoAll-family, rooted and point-to-point primitive and comm_func function, values and
gradients (the test rebuilds the numbers with numpy from `data`). timeout: rank 1 never joins the collective;
killed: rank 1 dies by SIGKILL after init.
"""
import json
import os
import signal
import sys
import time

import numpy as np

import mindseed as ms
from mindseed import ops
from mindseed.communication import comm_func as cf
from mindseed.communication import get_rank, init


def data(rank, shape, salt=0):
    """A per-rank array the test can rebuild."""
    return (np.arange(np.prod(shape)).reshape(shape) * (rank + 1 + salt) + 10 * rank - salt).astype(np.float64)


def _np(t):
    return t.asnumpy().tolist()


def _grad(fn, x):
    return _np(ms.grad(fn)(x))


def _alltoall_family(r, out):
    x = ms.Tensor(data(r, (2, 4)))
    w = ms.Tensor(data(r, (4, 2), 1))
    a2a = ops.AlltoAll(2, 1, 0)
    out["alltoall"] = _np(a2a(x))
    out["alltoall_grad"] = _grad(lambda t: (a2a(t) * w).sum(), x)
    out["alltoall_jit"] = _np(ms.jit(lambda t: a2a(t * 2.0))(x))

    flat = ms.Tensor(data(r, (5,)))
    send = [[2, 3], [1, 4]][r]
    recv = [[2, 1], [3, 4]][r]
    wv = ms.Tensor(data(r, (sum(recv),), 2))
    out["alltoallv"] = _np(ops.AlltoAllV()(flat, send, recv))
    out["alltoallv_grad"] = _grad(lambda t: (ops.AlltoAllV()(t, send, recv) * wv).sum(), flat)
    matrix = [2, 3, 1, 4]
    out["alltoallvc"] = _np(ops.AlltoAllVC()(flat, matrix))
    out["alltoallvc_grad"] = _grad(lambda t: (ops.AlltoAllVC()(t, matrix) * wv).sum(), flat)

    mine = ms.Tensor(data(r, ([2, 3][r],)))
    wg = ms.Tensor(data(r, (5,), 3))
    out["allgatherv"] = _np(ops.AllGatherV()(mine, [2, 3]))
    out["allgatherv_grad"] = _grad(lambda t: (ops.AllGatherV()(t, [2, 3]) * wg).sum(), mine)
    ws = ms.Tensor(data(r, ([2, 3][r],), 4))
    out["reducescatterv"] = _np(ops.ReduceScatterV()(flat, [2, 3]))
    out["reducescatterv_max"] = _np(ops.ReduceScatterV(ops.ReduceOp.MAX)(flat, [2, 3]))
    out["reducescatterv_grad"] = _grad(lambda t: (ops.ReduceScatterV()(t, [2, 3]) * ws).sum(), flat)


def _rooted(r, out):
    x = ms.Tensor(data(r, (2, 3)))
    w = ms.Tensor(data(r, (2, 3), 1))
    out["reduce"] = _np(ops.Reduce(1)(x))
    out["reduce_max"] = _np(ops.Reduce(1, ops.ReduceOp.MAX)(x))
    out["reduce_grad"] = _grad(lambda t: (ops.Reduce(1)(t) * (w if r == 1 else 1.0)).sum(), x)
    w4 = ms.Tensor(data(r, (4, 3), 2))
    out["gather"] = _np(ops.CollectiveGather(0)(x))
    out["gather_grad"] = _grad(lambda t: (ops.CollectiveGather(0)(t) * (w4 if r == 0 else 1.0)).sum(), x)
    x4 = ms.Tensor(data(r, (4, 3)))
    out["scatter"] = _np(ops.CollectiveScatter(0)(x4))
    out["scatter_grad"] = _grad(lambda t: (ops.CollectiveScatter(0)(t) * w).sum(), x4)


def _p2p(r, out):
    x = ms.Tensor(data(r, (2, 3)))
    w = ms.Tensor(data(r, (2, 3), 1))
    if r == 0:
        out["send"] = _np(ops.Send(5, 1)(x))
        # the gradient of what was sent comes back from the receiver: d/dt sum(Send(2t)) * 0 = 2 * w_1
        out["send_grad"] = _grad(lambda t: ops.Send(6, 1)(t * 2.0).sum() * 0.0, x)
    else:
        recv = ops.Receive(5, 0, [2, 3], ms.float64)
        out["receive"] = _np(recv())
        dummy = ms.Tensor(np.zeros(1))
        out["receive_grad"] = _grad(lambda d: (ops.Receive(6, 0, [2, 3], ms.float64)(d) * w).sum(), dummy)
    ne = ops.NeighborExchange([1 - r], [1 - r], ([2, 3],), ([2, 3],), ms.float64)
    out["neighbor"] = _np(ne((x,))[0])
    out["neighbor_grad"] = _grad(lambda t: (ne((t,))[0] * w).sum(), x)

    img = ms.Tensor(data(r, (1, 1, 3, 4)))
    if r == 0:   # rank 0 is above rank 1: it exchanges its bottom row and bottom-right corner
        ids, lens = [-1, -1, -1, 1, 1, -1, -1, -1], [0, 1, 0, 1]
    else:
        ids, lens = [1 - 1, -1, -1, -1, -1, -1, -1, 0], [1, 0, 1, 0]
    nv2 = ops.NeighborExchangeV2(ids, lens, ids, lens, "NCHW")
    wimg = ms.Tensor(data(r, (1, 1, 4, 5), 1))
    out["neighbor_v2"] = _np(nv2(img))
    out["neighbor_v2_grad"] = _grad(lambda t: (nv2(t) * wimg).sum(), img)

    batch = ops.BatchISendIRecv(("isend", "irecv"), (1 - r, 1 - r), ([2, 3],), (ms.float64,))
    got = batch((x,))
    out["batch"] = [_np(got[0]), _np(got[1])]
    out["batch_grad"] = _grad(lambda t: (batch((t,))[1] * w).sum(), x)


def _comm_func(r, out):
    x = ms.Tensor(data(r, (4, 3)))
    out["cf_reduce"] = _np(cf.reduce(x, 0))
    out["cf_gather"] = _np(cf.gather_into_tensor(x, dst=1))
    out["cf_scatter"] = _np(cf.scatter_tensor(x, src=1))
    if r == 0:
        cf.send(x, 1, tag=3)
        handle = cf.isend(x * 2.0, 1)
        handle.wait()
        out["cf_recv"] = _np(cf.recv(x, 1, tag=4))
    else:
        out["cf_recv"] = _np(cf.recv(x, 0, tag=3))
        got, handle = cf.irecv(x, 0)
        handle.wait()
        out["cf_irecv"] = _np(got)
        cf.send(x + 1.0, 0, tag=4)
    ops_list = [cf.P2POp("isend", x, 1 - r), cf.P2POp(cf.irecv, (4, 3), 1 - r, recv_dtype=ms.float64)]
    out["cf_batch"] = _np(cf.batch_isend_irecv(ops_list)[1])
    pieces = [ms.Tensor(data(r, (2,), j)) for j in range(2)]
    got, handle = cf.all_to_all_with_output_shape([(2,), (1, 2)], pieces)
    out["cf_a2a"] = [_np(g) for g in got]
    out["cf_a2a_handle"] = handle is None
    split_in, split_out = [[1, 3], [2, 2]][r], [[1, 2], [3, 2]][r]
    single, handle = cf.all_to_all_single_with_output_shape((sum(split_out), 3), x, split_out, split_in,
                                                            async_op=True)
    handle.wait()
    out["cf_a2a_single"] = _np(single)
    matrix = [1, 3, 2, 2]
    output = ms.Tensor(np.zeros((sum(matrix[r::2]), 3)))
    cf.all_to_all_v_c(output, x, matrix)
    out["cf_a2a_vc"] = _np(output)
    cf.barrier()
    # ops' (mint-style) forms and the fused TP operators
    gathered = ms.Tensor(np.zeros((8, 3)))
    ops.gather_into_tensor(gathered, x, dst=0)
    out["ops_gather"] = _np(gathered)
    part = ms.Tensor(np.zeros((2, 3)))
    ops.scatter_tensor(part, x, src=0)
    out["ops_scatter"] = _np(part)
    b = ms.Tensor(data(0, (3, 2)))
    mm, g = ops.all_gather_matmul(x, b, "mccl_world_group", 2)
    out["all_gather_matmul"] = [_np(mm), _np(g)]
    out["matmul_reduce_scatter"] = _np(ops.matmul_reduce_scatter(x, b, "mccl_world_group", 2))


class Params(ms.nn.Cell):
    """Three parameters with per-rank values: a and w replicated, b cut over the ranks."""

    def __init__(self, r):
        super().__init__()
        self.a = ms.Parameter(ms.Tensor(data(r, (2,))), name="a")
        self.w = ms.Parameter(ms.Tensor(data(r, (2, 3), 1)), name="w")
        self.b = ms.Parameter(ms.Tensor(data(r, (4,), 2)), name="b")


def _parallel_api(r, out):
    net = Params(r)
    layout = {"a": [[2], [-1]], "w": [[2], [-1, -1]], "b": [[2], [0]]}
    ms.parameter_broadcast(net, layout, cur_rank=r)
    out["broadcast"] = {p.name: _np(p) for p in net.get_parameters()}
    ms.set_auto_parallel_context(pipeline_stages=2)
    shared = Params(r)
    # the compiled pipeline's layout of a weight tied across the 2 stages: stage 0 (rank 0) sends it to rank 1
    shared.parameter_layout_dict = {"w": [[2], [-1, -1], [2, 3], 0, -1, -1, 0, 0, True, r == 0, 1 - r, 9]}
    ms.sync_pipeline_shared_parameters(shared)
    out["synced"] = {p.name: _np(p) for p in shared.get_parameters()}
    ms.reset_auto_parallel_context()


def adasum_inputs(r):
    """Per-rank tensors whose kept halves (rank 0 keeps the second, rank 1 the first) have maximum 1, so MindSpore's
    scaling by the local maximum leaves AdaSum's formula exact."""
    rng = np.random.RandomState(11 + r)
    a = rng.uniform(-0.5, 0.5, (4, 3))
    b = rng.uniform(-0.5, 0.5, (1, 5))
    if r == 0:
        a[3, 2], b[0, 4] = 1.0, 1.0
    else:
        a[0, 0], b[0, 0] = 1.0, 1.0
    return a, b, np.array([3.0 + r])


def _adasum(r, out):
    from mindseed.nn.wrap.adasum import _AdaSum
    tensors = [ms.Tensor(t) for t in adasum_inputs(r)]
    params = [ms.Parameter(t, name=f"p{i}") for i, t in enumerate(tensors)]
    combined = _AdaSum(r, 1, 2, params)(tuple(tensors))     # 2 nodes of 1 rank: one halving step
    out["adasum"] = [_np(t) for t in combined]


def collectives():
    init()
    r = get_rank()
    out = {"rank": r}
    _alltoall_family(r, out)
    _rooted(r, out)
    _p2p(r, out)
    _comm_func(r, out)
    _parallel_api(r, out)
    _adasum(r, out)
    return out


def timeout():
    init()
    r = get_rank()
    if r == 1:
        time.sleep(120)      # alive, but never calls the collective: rank 0's AllReduce must time out
    started = time.monotonic()
    try:
        ops.AllReduce()(ms.Tensor(np.ones(3)))
    except RuntimeError as exc:
        print(f"waited {time.monotonic() - started:.1f} s: {exc}", flush=True)
        raise
    return {"rank": r}


def killed():
    init()
    r = get_rank()
    if r == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    ops.AllReduce()(ms.Tensor(np.ones(3)))      # its peer is gone: a RuntimeError, not a hang
    return {"rank": r}


if __name__ == "__main__":
    scenario, out_dir = sys.argv[1], sys.argv[2]
    result = {"collectives": collectives, "timeout": timeout, "killed": killed}[scenario]()
    with open(os.path.join(out_dir, f"rank{result['rank']}.json"), "w", encoding="utf-8") as f:
        json.dump(result, f)
