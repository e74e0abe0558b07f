"""One process of the two-process mint.distributed test (tests/mint/test_mint_distributed.py launches it).

usage: python _mint_dist_worker.py RANK PORT OUT.json
Joins with init_process_group(init_method="tcp://127.0.0.1:PORT", world_size=2, rank=RANK), runs every
collective, the object collectives and point-to-point operations, and writes what it got to OUT.json.
"""
import json
import sys

import numpy as np

import mindseed as ms
from mindseed.mint import distributed as dist


def _t(a):
    return ms.Tensor(np.asarray(a, np.float32))


def _l(t):
    return t.asnumpy().tolist()


def main(rank, port, out_path):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", world_size=2, rank=rank)
    out = {"rank": dist.get_rank(), "size": dist.get_world_size(), "initialized": dist.is_initialized(),
           "backend": dist.get_backend()}
    x = _t([rank + 1.0, 10.0 * (rank + 1)])
    dist.all_reduce(x)
    out["all_reduce"] = _l(x)
    x = _t([rank + 1.0, 3.0])
    dist.all_reduce(x, op="max")
    out["all_reduce_max"] = _l(x)
    x = _t([rank + 1.0])
    dist.reduce(x, dst=1)
    out["reduce"] = _l(x)
    gathered = [_t([0.0, 0.0]) for _ in range(2)]
    dist.all_gather(gathered, _t([rank, rank + 0.5]))
    out["all_gather"] = [_l(t) for t in gathered]
    into = _t(np.zeros(4))
    dist.all_gather_into_tensor(into, _t([rank, -rank]))
    out["all_gather_into_tensor"] = _l(into)
    uneven = _t(np.zeros(3))
    dist.all_gather_into_tensor_uneven(uneven, _t([7.0] * (rank + 1)), output_split_sizes=[1, 2])
    out["all_gather_uneven"] = _l(uneven)
    rs = _t([0.0])
    dist.reduce_scatter(rs, [_t([rank + 1.0]), _t([10.0 * (rank + 1)])])
    out["reduce_scatter"] = _l(rs)
    rst = _t([0.0, 0.0])
    dist.reduce_scatter_tensor(rst, _t([1.0, 2.0, 3.0, 4.0]) * (rank + 1))
    out["reduce_scatter_tensor"] = _l(rst)
    rsu = _t(np.zeros(rank + 1))
    dist.reduce_scatter_tensor_uneven(rsu, _t([1.0, 2.0, 3.0]), input_split_sizes=[1, 2])
    out["reduce_scatter_uneven"] = _l(rsu)
    b = _t([rank * 5.0, 1.0])
    dist.broadcast(b, src=1)
    out["broadcast"] = _l(b)
    glist = [_t([0.0]) for _ in range(2)]
    dist.gather(_t([rank + 0.25]), glist if rank == 0 else None, dst=0)
    out["gather"] = [_l(t) for t in glist]
    sc = _t([0.0, 0.0])
    dist.scatter(sc, [_t([1.0, 2.0]), _t([3.0, 4.0])] if rank == 0 else None, src=0)
    out["scatter"] = _l(sc)
    a2a = [_t(np.zeros(rank + 1)), _t(np.zeros(rank + 1))]       # member j is sent j + 1 values
    dist.all_to_all(a2a, [_t([10.0 * rank]), _t([10.0 * rank + 1, 10.0 * rank + 2])])
    out["all_to_all"] = [_l(t) for t in a2a]
    single = _t(np.zeros(4))
    dist.all_to_all_single(single, _t([rank * 100.0 + j for j in range(4)]))
    out["all_to_all_single"] = _l(single)
    objs = [None, None]
    dist.all_gather_object(objs, {"rank": rank, "t": (1, 2.5), "a": np.arange(rank + 1)})
    out["all_gather_object"] = [[o["rank"], list(o["t"]), o["a"].tolist()] for o in objs]
    blist = ["from", rank] if rank == 0 else [None, None]
    dist.broadcast_object_list(blist, src=0)
    out["broadcast_object_list"] = blist
    sol = [None]
    dist.scatter_object_list(sol, ["zero", "one"] if rank == 1 else None, src=1)
    out["scatter_object_list"] = sol
    gol = [None, None] if rank == 1 else None
    dist.gather_object(f"r{rank}", gol, dst=1)
    out["gather_object"] = gol
    # point to point: a ring exchange with isend/irecv, blocking send/recv, a batch, objects
    nxt, prev = (rank + 1) % 2, (rank - 1) % 2
    buf = _t([0.0, 0.0, 0.0])
    handles = [dist.isend(_t([rank, rank, rank]) + 1, nxt), dist.irecv(buf, prev)]
    for h in handles:
        h.wait()
    out["isend_irecv"] = _l(buf)
    if rank == 0:
        dist.send(_t([42.0, 43.0]), dst=1, tag=3)
        got = _t([0.0])
        dist.recv(got, src=1)
        out["send_recv"] = _l(got)
    else:
        got = _t([0.0, 0.0])
        out["recv_src"] = dist.recv(got, src=0, tag=3)
        out["send_recv"] = _l(got)
        dist.send(_t([-1.0]), dst=0)
    bbuf = _t([0.0])
    works = dist.batch_isend_irecv([dist.P2POp(dist.isend, _t([rank + 100.0]), nxt),
                                    dist.P2POp(dist.irecv, bbuf, prev)])
    for w in works:
        w.wait()
    out["batch_isend_irecv"] = _l(bbuf)
    if rank == 0:
        dist.send_object_list([{"k": [1, 2]}, "s"], dst=1)
    else:
        lst = [None, None]
        dist.recv_object_list(lst, src=0)
        out["recv_object_list"] = lst
    group = dist.new_group([0, 1])
    out["group_ranks"] = dist.get_process_group_ranks(group)
    out["group_rank"] = dist.get_group_rank(group, rank)
    out["global_rank"] = dist.get_global_rank(group, 1)
    g = _t([1.0])
    dist.all_reduce(g, group=group)
    out["group_all_reduce"] = _l(g)
    # the gradient of all_reduce(sum) of every member's x * (rank + 1): sum over members of (rank + 1)
    w = _t([2.0])

    def f(v):
        y = v * (rank + 1.0)
        dist.all_reduce(y)
        return y.sum()
    out["grad_all_reduce"] = _l(ms.grad(f)(w))
    # SyncBatchNorm over the two halves of one batch normalises as BatchNorm over the whole batch
    batch = np.arange(24, dtype=np.float32).reshape(4, 3, 2) ** 1.5
    sbn = ms.mint.nn.SyncBatchNorm(3, momentum=0.5).set_train()
    out["sync_batch_norm"] = _l(sbn(_t(batch[2 * rank:2 * rank + 2])))
    out["sync_running_mean"] = _l(sbn.running_mean)
    dist.barrier()
    dist.destroy_process_group()
    out["after_destroy"] = dist.is_initialized()
    with open(out_path, "w") as fh:
        json.dump(out, fh)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
