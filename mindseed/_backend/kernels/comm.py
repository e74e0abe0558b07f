"""Collective communication on torch.distributed: process groups, and the kernels of the collective primitives.

mindseed's communication layer names groups the way MindSpore does (strings: the world group
"hccl_world_group"/"nccl_world_group"/"mccl_world_group", or a name given to `create_group`); this module
maps those names to torch ProcessGroups. Engines: gloo on CPU (MindSpore's "mccl"), NCCL on GPU ("nccl").

Rendezvous: a TCPStore at (host, port). Launched by msrun (MS_ROLE set) the scheduler process hosts it and
the workers connect; launched without a scheduler (mpirun, or env vars set by hand) the rank-0 worker hosts it.
A process started with no launcher environment is a world of one, over an in-process store.
"""
import datetime
import socket
import time

import torch
import torch.distributed as dist

WORLD_GROUPS = ("hccl_world_group", "nccl_world_group", "mccl_world_group")

_ENGINES = {"mccl": "gloo", "nccl": "nccl"}
_REDUCE_OPS = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN,
               "prod": dist.ReduceOp.PRODUCT}
_all_gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_reduce_scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


class _World:
    """The state of this process's communication: None until `init`."""
    inited = False
    rank = 0
    size = 1
    hosts = ["localhost"]  # host name of each world rank
    store = None           # the rendezvous store when a scheduler process hosts it (told of our release)
    groups = {}        # user group name -> (ProcessGroup, sorted world ranks)


# ---------------------------------------------------------------- setup
def init(backend, rank, size, host, port, timeout_s, host_store, served=False):
    """Join the world of `size` processes as `rank` (a no-op when already joined).

    Args:
        backend: "mccl" (gloo) or "nccl".
        rank: this process's rank, or None to take the next free one from the store (msrun without node ids).
        host: the rendezvous address, or None for a world of one over an in-process store.
        host_store: this process hosts the rendezvous store (the others connect to host:port).
        served: the store's host is a scheduler process, which waits for every worker's `release`.
    """
    if _World.inited:
        return
    timeout = datetime.timedelta(seconds=timeout_s)
    if host is None:
        store = dist.HashStore()
    else:
        store = dist.TCPStore(host, int(port), None if host_store else size, host_store, timeout=timeout,
                              wait_for_workers=False)
    if rank is None:
        rank = int(store.add("mindseed/next_rank", 1)) - 1
    dist.init_process_group(_ENGINES[backend], store=store, rank=rank, world_size=size, timeout=timeout)
    _World.rank, _World.size = rank, size
    _World.hosts = _hosts(store, rank, size)
    _World.store = store if served else None
    _World.groups = {}
    _World.inited = True


def serve_rendezvous(host, port, size, timeout_s):
    """Host the rendezvous store for `size` workers (msrun's scheduler role) until they have all released."""
    store = dist.TCPStore(host, int(port), None, True, timeout=datetime.timedelta(seconds=timeout_s),
                          wait_for_workers=False)
    # the workers need the store while they create groups, so it lives until each has said goodbye
    while int(store.add("mindseed/released", 0)) < size:
        time.sleep(0.2)


def _hosts(store, rank, size):
    """The host name of every rank, exchanged through the rendezvous store."""
    if size == 1:
        return [socket.gethostname()]
    store.set(f"mindseed/host/{rank}", socket.gethostname())
    return [store.get(f"mindseed/host/{r}").decode() for r in range(size)]


def release():
    """Leave the world: destroy every process group (a no-op when not joined)."""
    if not _World.inited:
        return
    if _World.store is not None:
        try:
            _World.store.add("mindseed/released", 1)
        except RuntimeError:  # the store's host is gone already: nobody waits for us
            pass
    dist.destroy_process_group()
    _World.inited = False
    _World.rank, _World.size, _World.hosts, _World.store = 0, 1, ["localhost"], None
    _World.groups = {}


def is_initialized():
    return _World.inited


def world_rank():
    return _World.rank


def world_size():
    return _World.size


def local_rank():
    return local_placement(WORLD_GROUPS[0])[0]


def local_placement(name):
    """(local rank, local size): this process's place among the members of a group that run on its host."""
    mine = _World.hosts[_World.rank]
    here = [r for r in group_ranks(name) if _World.hosts[r] == mine]
    return here.index(_World.rank), len(here)


# ---------------------------------------------------------------- groups
def has_group(name):
    return name in WORLD_GROUPS or name in _World.groups


def new_group(name, ranks):
    """Create the user group `name` over the world ranks `ranks`; only its members call this."""
    ranks = sorted(ranks)
    pg = dist.new_group(ranks, use_local_synchronization=True, group_desc=name)
    _World.groups[name] = (pg, ranks)


def destroy_group(name):
    pg, _ = _World.groups.pop(name)
    dist.destroy_process_group(pg)


def group_ranks(name):
    """The world ranks of a group, in group-rank order."""
    if name in WORLD_GROUPS:
        return list(range(_World.size))
    return list(_World.groups[name][1])


def group_rank(name):
    if name in WORLD_GROUPS:
        return _World.rank
    return _World.groups[name][1].index(_World.rank)


def group_size(name):
    if name in WORLD_GROUPS:
        return _World.size
    return len(_World.groups[name][1])


def comm_name(name):
    """torch.distributed's name of the process group behind a group."""
    pg = _pg(name)
    return (dist.group.WORLD if pg is None else pg).group_name


def _pg(name):
    return None if name in WORLD_GROUPS else _World.groups[name][0]


# ---------------------------------------------------------------- collective kernels
def all_reduce(x, op, group):
    """Element-wise reduction of `x` over the group; every member gets the result."""
    y = x.contiguous().clone()
    if op == "avg":
        # gloo has no AVG: sum, then divide (integers divide exactly as MindSpore's AVG does: truncated)
        dist.all_reduce(y, op=dist.ReduceOp.SUM, group=_pg(group))
        n = group_size(group)
        return y / n if y.is_floating_point() else torch.div(y, n, rounding_mode="trunc")
    dist.all_reduce(y, op=_REDUCE_OPS[op], group=_pg(group))
    return y


def all_gather(x, group):
    """The members' `x` concatenated along axis 0, in group-rank order."""
    x = x.contiguous()
    out = torch.empty((x.shape[0] * group_size(group),) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    _all_gather(out, x, group=_pg(group))
    return out


def reduce_scatter(x, op, group):
    """Reduce `x` over the group, then give member i the i-th of equal chunks along axis 0."""
    x = x.contiguous()
    n = group_size(group)
    out = torch.empty((x.shape[0] // n,) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    if op == "avg":
        _reduce_scatter(out, x, op=dist.ReduceOp.SUM, group=_pg(group))
        return out / n if out.is_floating_point() else torch.div(out, n, rounding_mode="trunc")
    _reduce_scatter(out, x, op=_REDUCE_OPS[op], group=_pg(group))
    return out


def broadcast(*xs, root_rank, group):
    """Every member gets the tensors of the member whose group rank is `root_rank`."""
    pg = _pg(group)
    src = root_rank if pg is None else dist.get_global_rank(pg, root_rank)
    outs = []
    for x in xs:
        y = x.contiguous().clone()
        dist.broadcast(y, src=src, group=pg)
        outs.append(y)
    return tuple(outs)


def barrier(group):
    """Block until every member of the group has reached the barrier; returns a float32 zero of shape (1,)."""
    dist.barrier(group=_pg(group))
    return torch.zeros(1, dtype=torch.float32)
