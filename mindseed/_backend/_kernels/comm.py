"""Collective communication on torch.distributed: process groups, and the kernels of the collective primitives.

mindseed's communication layer names groups the way MindSpore does (strings: the world group
"hccl_world_group"/"nccl_world_group"/"mccl_world_group", or a name given to `create_group`); this module
maps those names to torch ProcessGroups. Engines: gloo on CPU (MindSpore's "mccl"), NCCL on GPU ("nccl").

Rendezvous: a TCPStore at (host, port). Launched by msrun (MS_ROLE set) the scheduler process hosts it and
the workers connect; launched without a scheduler (mpirun, or env vars set by hand) the rank-0 worker hosts it.
A process started with no launcher environment is a world of one, over an in-process store.

Every collective waits at most the execution timeout (`init`'s `exec_timeout_s`: MindSpore's HCCL_EXEC_TIMEOUT)
for its peers; a peer that died or never calls it ends the wait with a `CommFailure` naming the operator, never
a hang.
"""
import datetime
import re
import socket

import torch
import torch.distributed as dist

from mindseed._backend.rendezvous import serve

WORLD_GROUPS = ("hccl_world_group", "nccl_world_group", "mccl_world_group")

_ENGINES = {"mccl": "gloo", "nccl": "nccl"}
_REDUCE_OPS = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "min": dist.ReduceOp.MIN,
               "prod": dist.ReduceOp.PRODUCT}
_all_gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_reduce_scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


class CommFailure(RuntimeError):
    """A collective or point-to-point operation did not complete: a peer is gone, or it timed out."""


class _World:
    """The state of this process's communication: None until `init`."""
    inited = False
    exec_timeout = 600.0   # seconds a collective waits for its peers (HCCL_EXEC_TIMEOUT)
    rank = 0
    size = 1
    hosts = ["localhost"]  # host name of each world rank
    store = None           # the rendezvous store when a scheduler process hosts it (told of our release)
    groups = {}        # user group name -> (ProcessGroup, sorted world ranks)


# ---------------------------------------------------------------- setup
def init(backend, rank, size, host, port, timeout_s, host_store, served=False, exec_timeout_s=None):
    """Join the world of `size` processes as `rank` (a no-op when already joined).

    Args:
        backend: "mccl" (gloo) or "nccl".
        rank: this process's rank, or None to take the next free one from the store (msrun without node ids).
        host: the rendezvous address, or None for a world of one over an in-process store.
        host_store: this process hosts the rendezvous store (the others connect to host:port).
        served: the store's host is a scheduler process, which waits for every worker's `release`.
        exec_timeout_s: how long a collective waits for its peers (None: the rendezvous timeout `timeout_s`).
    """
    if _World.inited:
        return
    timeout = datetime.timedelta(seconds=timeout_s)
    exec_timeout = datetime.timedelta(seconds=timeout_s if exec_timeout_s is None else exec_timeout_s)
    if host is None:
        store = dist.HashStore()
    else:
        store = dist.TCPStore(host, int(port), None if host_store else size, host_store, timeout=timeout,
                              wait_for_workers=False)
    if rank is None:
        rank = int(store.add("mindseed/next_rank", 1)) - 1
    dist.init_process_group(_ENGINES[backend], store=store, rank=rank, world_size=size, timeout=exec_timeout)
    _World.exec_timeout = exec_timeout.total_seconds()
    _World.rank, _World.size = rank, size
    _World.hosts = _hosts(store, rank, size)
    _World.store = store if served else None
    if served:
        store.add("mindseed/joined", 1)   # the scheduler gives up on a cluster that never forms
    _World.groups = {}
    _World.inited = True


def serve_rendezvous(host, port, size, timeout_s):
    """Host the rendezvous store for `size` workers (msrun's scheduler role) until they have all released; False when
    the cluster did not form within `timeout_s`."""
    return serve(host, port, size, timeout_s)


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
    pg = dist.new_group(ranks, timeout=datetime.timedelta(seconds=_World.exec_timeout),
                        use_local_synchronization=True, group_desc=name)
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


def global_rank(name, rank):
    """The world rank of the member whose rank in group `name` is `rank`."""
    return rank if name in WORLD_GROUPS else _World.groups[name][1][rank]


# ---------------------------------------------------------------- failures
def run(name, fn, /, *args, **kwargs):
    """fn(*args, **kwargs), a torch.distributed call of the operator `name`; its failure becomes a `CommFailure`
    saying what happened in the user's terms."""
    try:
        return fn(*args, **kwargs)
    except RuntimeError as exc:  # torch.distributed's DistError, gloo's enforce failures
        failure = _failure(name, exc)
    raise failure


_ENFORCE = re.compile(r"\[enforce fail at [^\]]*\]\s*")


def _failure(op, exc):
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    msg = _ENFORCE.sub("", msg).strip() or "the backend refused the operation"  # gloo's source location
    low = msg.lower()
    if "timed out" in low or "timeout" in low:
        return CommFailure(f"For '{op}', the communication did not complete within {_World.exec_timeout:g} s "
                           f"(HCCL_EXEC_TIMEOUT): a peer process is dead or did not call '{op}'. ({msg})")
    if any(w in low for w in ("connection closed", "connection reset", "broken pipe", "not connected",
                              "connection refused", "peer")):
        return CommFailure(f"For '{op}', a peer process has gone away (its connection closed): it died or "
                           f"left the world. ({msg})")
    return CommFailure(f"For '{op}', the communication failed: {msg}")


# ---------------------------------------------------------------- collective kernels
def all_reduce(x, op, group):
    """Element-wise reduction of `x` over the group; every member gets the result."""
    y = x.contiguous().clone()
    if op == "avg":
        # gloo has no AVG: sum, then divide (integers divide exactly as MindSpore's AVG does: truncated)
        run("AllReduce", dist.all_reduce, y, op=dist.ReduceOp.SUM, group=_pg(group))
        n = group_size(group)
        return y / n if y.is_floating_point() else torch.div(y, n, rounding_mode="trunc")
    run("AllReduce", dist.all_reduce, y, op=_REDUCE_OPS[op], group=_pg(group))
    return y


def all_gather(x, group):
    """The members' `x` concatenated along axis 0, in group-rank order."""
    x = x.contiguous()
    out = torch.empty((x.shape[0] * group_size(group),) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    run("AllGather", _all_gather, out, x, group=_pg(group))
    return out


def reduce_scatter(x, op, group):
    """Reduce `x` over the group, then give member i the i-th of equal chunks along axis 0."""
    x = x.contiguous()
    n = group_size(group)
    out = torch.empty((x.shape[0] // n,) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    if op == "avg":
        run("ReduceScatter", _reduce_scatter, out, x, op=dist.ReduceOp.SUM, group=_pg(group))
        return out / n if out.is_floating_point() else torch.div(out, n, rounding_mode="trunc")
    run("ReduceScatter", _reduce_scatter, out, x, op=_REDUCE_OPS[op], group=_pg(group))
    return out


def broadcast(*xs, root_rank, group):
    """Every member gets the tensors of the member whose group rank is `root_rank`."""
    pg = _pg(group)
    src = root_rank if pg is None else dist.get_global_rank(pg, root_rank)
    outs = []
    for x in xs:
        y = x.contiguous().clone()
        run("Broadcast", dist.broadcast, y, src=src, group=pg)
        outs.append(y)
    return tuple(outs)


def barrier(group):
    """Block until every member of the group has reached the barrier; returns a float32 zero of shape (1,)."""
    run("Barrier", dist.barrier, group=_pg(group))
    return torch.zeros(1, dtype=torch.float32)


# ---------------------------------------------------------------- AlltoAll family, uneven and rooted collectives
def _ints(v):
    """A list of Python ints from a list/tuple of ints or a backend tensor."""
    return [int(i) for i in (v.reshape(-1).tolist() if isinstance(v, torch.Tensor) else v)]


def _exchange(op, flat, send, recv, group):
    """Member j gets `send[j]` elements of `flat` (in order), and the result holds `recv[i]` elements from each
    member i, concatenated (torch's all_to_all_single); a shape-() zero when nothing arrives, as MindSpore."""
    out = torch.empty(sum(recv), dtype=flat.dtype, device=flat.device)
    run(op, dist.all_to_all_single, out, flat.contiguous(), output_split_sizes=recv, input_split_sizes=send,
        group=_pg(group))
    return out if out.numel() else torch.zeros((), dtype=flat.dtype, device=flat.device)


def all_to_all(x, split_count, split_dim, concat_dim, group):
    """Split `x` into `split_count` (the group size) blocks along `split_dim`, send block j to member j, and
    concatenate the blocks received, in rank order, along `concat_dim`."""
    n = group_size(group)
    if split_count != n:
        raise ValueError(f"For 'AlltoAll', the 'split_count' must be equal to the group size {n}, but got "
                         f"{split_count}.")
    if x.shape[split_dim] % n:
        raise ValueError(f"For 'AlltoAll', the input's dimension {split_dim} ({x.shape[split_dim]}) must be divisible "
                         f"by 'split_count' {n}.")
    blocks = torch.stack(torch.tensor_split(x, n, dim=split_dim)).contiguous()
    out = torch.empty_like(blocks)
    run("AlltoAll", dist.all_to_all_single, out, blocks, group=_pg(group))
    return torch.cat(list(out.unbind(0)), dim=concat_dim)


def all_to_all_v(x, send_numel_list, recv_numel_list, group, block_size=1):
    """MindSpore's AlltoAllV: `send_numel_list[j] * block_size` elements of the flat `x` go to member j."""
    return _exchange("AlltoAllV", x.reshape(-1), [s * block_size for s in _ints(send_numel_list)],
                     [r * block_size for r in _ints(recv_numel_list)], group)


def all_to_all_v_c(x, send_count_matrix, group, block_size=1, transpose=False):
    """MindSpore's AlltoAllVC: `send_count_matrix[i * n + j]` elements go from member i to member j (the matrix
    transposed with `transpose`, the backward's exchange)."""
    n, r = group_size(group), group_rank(group)
    counts = _ints(send_count_matrix)
    if len(counts) != n * n:
        raise ValueError(f"For 'AlltoAllVC', the 'send_count_matrix' must hold {n} x {n} = {n * n} counts, but got "
                         f"{len(counts)}.")
    m = [counts[i * n:(i + 1) * n] for i in range(n)]
    if transpose:
        m = [list(row) for row in zip(*m)]
    return _exchange("AlltoAllVC", x.reshape(-1), [m[r][j] * block_size for j in range(n)],
                     [m[i][r] * block_size for i in range(n)], group)


def all_gather_v(x, output_split_sizes, group):
    """The members' flat inputs concatenated; member i's holds `output_split_sizes[i]` elements."""
    sizes = _ints(output_split_sizes)
    flat = x.reshape(-1)
    n = group_size(group)
    if len(sizes) != n or flat.numel() != sizes[group_rank(group)]:
        raise ValueError(f"For 'AllGatherV', the 'output_split_sizes' must have {n} entries, this member's being the "
                         f"input's size {flat.numel()}, but got {sizes}.")
    longest = max(sizes)
    padded = torch.zeros(longest, dtype=flat.dtype, device=flat.device)
    padded[:flat.numel()] = flat
    out = torch.empty(longest * n, dtype=flat.dtype, device=flat.device)
    run("AllGatherV", _all_gather, out, padded, group=_pg(group))
    pieces = [out[i * longest:i * longest + sizes[i]] for i in range(n)]
    got = torch.cat(pieces)
    return got if got.numel() else torch.zeros((), dtype=flat.dtype, device=flat.device)


def reduce_scatter_v(x, input_split_sizes, op, group):
    """The flat `x` reduced over the group; member i keeps its `input_split_sizes[i]` elements."""
    sizes = _ints(input_split_sizes)
    n, r = group_size(group), group_rank(group)
    flat = x.reshape(-1)
    if len(sizes) != n or sum(sizes) != flat.numel():
        raise ValueError(f"For 'ReduceScatterV', the 'input_split_sizes' must have {n} entries summing to the "
                         f"input's size {flat.numel()}, but got {sizes}.")
    total = all_reduce(flat, op, group)
    start = sum(sizes[:r])
    got = total[start:start + sizes[r]].clone()
    return got if got.numel() else torch.zeros((), dtype=flat.dtype, device=flat.device)


def _placeholder(x):
    """What a member other than the root gets from a rooted collective: shape [1], no meaning (MindSpore's)."""
    return torch.zeros(1, dtype=x.dtype, device=x.device)


def reduce(x, dest_rank, op, group):
    """`x` reduced over the group on the member of group rank `dest_rank`; the others get a shape-[1] zero."""
    dst = global_rank(group, dest_rank)
    y = x.contiguous().clone()
    run("Reduce", dist.reduce, y, dst=dst, op=_REDUCE_OPS["sum" if op == "avg" else op], group=_pg(group))
    if _World.rank != dst:
        return _placeholder(x)
    if op == "avg":
        n = group_size(group)
        return y / n if y.is_floating_point() else torch.div(y, n, rounding_mode="trunc")
    return y


def collective_gather(x, dest_rank, group):
    """The members' `x` concatenated along axis 0 on world rank `dest_rank`; the others get a shape-[1] zero."""
    x = x.contiguous()
    mine = _World.rank == dest_rank
    bufs = [torch.empty_like(x) for _ in range(group_size(group))] if mine else None
    run("CollectiveGather", dist.gather, x, bufs, dst=dest_rank, group=_pg(group))
    return torch.cat(bufs) if mine else _placeholder(x)


def collective_scatter(x, src_rank, group):
    """Member i gets the i-th of `group size` equal blocks (along axis 0) of world rank `src_rank`'s `x`."""
    n = group_size(group)
    if x.ndim == 0 or x.shape[0] % n:
        raise ValueError(f"For 'CollectiveScatter', the input's dimension 0 must be divisible by the group size {n}, "
                         f"but got shape {tuple(x.shape)}.")
    out = torch.empty((x.shape[0] // n,) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    blocks = [b.contiguous() for b in torch.tensor_split(x, n)] if _World.rank == src_rank else None
    run("CollectiveScatter", dist.scatter, out, blocks, src=src_rank, group=_pg(group))
    return out
