"""Point-to-point communication and the key-value store, on torch.distributed (mint.distributed's send/recv,
isend/irecv, batch_isend_irecv and TCPStore).

Ranks are world ranks (as torch.distributed and mint.distributed take them); groups are mindseed's group names.
A message a process sends to itself goes through a local mailbox (gloo cannot connect a process to itself), so
a world of one exchanges with itself as the others do with their peers. The primitives' kernels (Send, Receive,
NeighborExchange, NeighborExchangeV2, BatchISendIRecv) take group ranks, as MindSpore's primitives do.
"""
import collections
import datetime

import torch
import torch.distributed as dist

from mindseed._backend._core import _TORCH_DTYPES
from mindseed._backend._core import dtype_name as _dtype_name
from mindseed._backend._kernels.comm import _pg, _World, global_rank, group_ranks, run

__all__ = ["send", "recv", "isend", "irecv", "batch", "Store", "send_p", "receive_p", "neighbor_exchange",
           "neighbor_exchange_v2", "neighbor_exchange_v2_grad", "batch_isend_irecv"]

_mailbox = collections.defaultdict(collections.deque)   # (group, tag) -> the messages this process sent itself


class _Pending:
    """The handle of a started non-blocking operation; `wait()` blocks until it is complete (at most the
    execution timeout: a dead peer or a missing match is a CommFailure)."""

    def __init__(self, work, op="isend/irecv", then=None):
        self._work, self._op, self._then = work, op, then

    def wait(self):
        if self._work is not None:
            run(self._op, self._work.wait)
            self._work = None
        if self._then is not None:
            self._then()
            self._then = None
        return True

    def is_completed(self):
        return self._work is None or self._work.is_completed()


def _to_self(peer):
    return peer == _World.rank


def _check_peer(op, peer, group):
    # NOTE: gloo crashes the process (SIGSEGV) on a peer outside the group instead of raising
    ranks = group_ranks(group)
    if peer not in ranks:
        raise ValueError(f"For '{op}', the peer rank must be a world rank of the group '{group}' ({ranks}), "
                         f"but got {peer}.")


def _post(x, group, tag):
    _mailbox[(group, tag)].append(x.contiguous().clone())


def _take(out, peer, group, tag):
    box = _mailbox[(group, tag)]
    if not box:
        raise RuntimeError(f"For 'Receive', rank {peer} (this process) receives a message with tag {tag} it has not "
                           f"sent itself.")
    msg = box.popleft()
    if msg.numel() != out.numel():
        raise ValueError(f"For 'Receive', the message from rank {peer} has {msg.numel()} elements, but the receive "
                         f"buffer expects shape {tuple(out.shape)}.")
    out.copy_(msg.reshape(out.shape))


def send(x, dst, group, tag):
    _check_peer("send", dst, group)
    if _to_self(dst):
        _post(x, group, tag)
        return
    run("Send", dist.send, x.contiguous(), dst=dst, group=_pg(group), tag=tag)


def recv(shape, dtype, src, group, tag):
    """A new tensor of `shape` and `dtype` (a dtype name) holding what world rank `src` sent."""
    _check_peer("recv", src, group)
    out = torch.empty(tuple(shape), dtype=_TORCH_DTYPES[dtype])
    if _to_self(src):
        _take(out, src, group, tag)
    else:
        run("Receive", dist.recv, out, src=src, group=_pg(group), tag=tag)
    return out


def isend(x, dst, group, tag):
    _check_peer("isend", dst, group)
    if _to_self(dst):
        _post(x, group, tag)
        return _Pending(None)
    return _Pending(run("isend", dist.isend, x.contiguous(), dst=dst, group=_pg(group), tag=tag), "isend")


def irecv(shape, dtype, src, group, tag):
    """(buffer, handle): the buffer holds the message once the handle's `wait()` has returned."""
    _check_peer("irecv", src, group)
    out = torch.empty(tuple(shape), dtype=_TORCH_DTYPES[dtype])
    if _to_self(src):
        return out, _Pending(None, then=lambda: _take(out, src, group, tag))
    return out, _Pending(run("irecv", dist.irecv, out, src=src, group=_pg(group), tag=tag), "irecv")


def batch(ops):
    """Start every operation of `ops`, a list of ("send", tensor, peer, group, tag) / ("recv", shape, dtype, peer,
    group, tag); returns (the receive buffers in order, the handles)."""
    p2p, buffers, local = [], [], []
    for op in ops:
        if op[0] == "send":
            _, x, peer, group, tag = op
            _check_peer("batch_isend_irecv", peer, group)
            if _to_self(peer):
                _post(x, group, tag)
            else:
                p2p.append(dist.P2POp(dist.isend, x.contiguous(), peer, _pg(group), tag))
        else:
            _, shape, dtype, peer, group, tag = op
            _check_peer("batch_isend_irecv", peer, group)
            out = torch.empty(tuple(shape), dtype=_TORCH_DTYPES[dtype])
            buffers.append(out)
            if _to_self(peer):
                local.append((out, peer, group, tag))
            else:
                p2p.append(dist.P2POp(dist.irecv, out, peer, _pg(group), tag))
    works = run("batch_isend_irecv", dist.batch_isend_irecv, p2p) if p2p else []
    for args in local:
        _take(*args)
    return buffers, [_Pending(w, "batch_isend_irecv") for w in works]


def _wait_all(handles):
    for h in handles:
        h.wait()


# ---------------------------------------------------------------- the primitives' kernels (group ranks)
def send_p(x, sr_tag, dest_rank, group):
    """Send's kernel: `x` to the member of group rank `dest_rank`; returns `x` (MindSpore's output shape)."""
    send(x, global_rank(group, dest_rank), group, sr_tag)
    return x.clone()


def receive_p(*dummy, sr_tag, src_rank, shape, dtype, group):
    """Receive's kernel: the tensor of `shape` and `dtype` that group member `src_rank` sent with tag `sr_tag`."""
    return recv(shape, dtype, global_rank(group, src_rank), group, sr_tag)


def neighbor_exchange(*xs, send_rank_ids, recv_rank_ids, recv_shapes, recv_type, group):
    """xs[k] goes to member send_rank_ids[k]; output k is what member recv_rank_ids[k] sent (recv_shapes[k])."""
    if len(xs) != len(send_rank_ids):
        raise ValueError(f"For 'NeighborExchange', there must be one input per rank of 'send_rank_ids' "
                         f"({len(send_rank_ids)}), but got {len(xs)}.")
    ops = [("send", x, global_rank(group, r), group, 0) for x, r in zip(xs, send_rank_ids)]
    ops += [("recv", s, recv_type, global_rank(group, r), group, 0) for s, r in zip(recv_shapes, recv_rank_ids)]
    buffers, handles = batch(ops)
    _wait_all(handles)
    return tuple(buffers)


# NeighborExchangeV2's 8 directions (MindSpore's order) as (rows, cols): -1 top/left edge, 0 all, 1 bottom/right edge
_DIRECTIONS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def _edge(h, w, d, lens):
    """(rows, cols) of an h x w input: the edge sent in direction d, `lens` = (top, bottom, left, right)."""
    def one(n, side, first, last):
        return slice(0, first) if side == -1 else slice(n - last, n) if side == 1 else slice(0, n)
    side_r, side_c = _DIRECTIONS[d]
    return one(h, side_r, lens[0], lens[1]), one(w, side_c, lens[2], lens[3])


def _halo(h, w, d, lens):
    """(rows, cols) of the output padded by `lens` around an h x w input: the piece received from direction d."""
    def one(n, side, first, last):
        return slice(0, first) if side == -1 else slice(first + n, first + n + last) if side == 1 else \
            slice(first, first + n)
    side_r, side_c = _DIRECTIONS[d]
    return one(h, side_r, lens[0], lens[1]), one(w, side_c, lens[2], lens[3])


def _extent(lead, region):
    rows, cols = region
    return lead + (rows.stop - rows.start, cols.stop - cols.start)


def _swap(x, outgoing, incoming, group):
    """Start and finish one exchange: `outgoing` (piece, group rank, tag) are sent, `incoming` (shape, group rank,
    tag) received; returns the received pieces in order."""
    ops = [("send", piece, global_rank(group, peer), group, tag) for piece, peer, tag in outgoing]
    ops += [("recv", shape, _dtype_name(x), global_rank(group, peer), group, tag) for shape, peer, tag in incoming]
    buffers, handles = batch(ops)
    _wait_all(handles)
    return buffers


def neighbor_exchange_v2(x, send_rank_ids, send_lens, recv_rank_ids, recv_lens, data_format, group):
    """`x` (NCHW) padded by `recv_lens` (top, bottom, left, right) with the edges the 8 neighbours sent; zeros
    where no neighbour sends. A piece sent in direction d carries tag d and arrives from direction (d + 4) % 8."""
    h, w = x.shape[-2], x.shape[-1]
    top, bottom, left, right = recv_lens
    lead = tuple(x.shape[:-2])
    dirs = [d for d in range(8) if recv_rank_ids[d] != -1]
    got = _swap(x, [(x[(...,) + _edge(h, w, d, send_lens)], send_rank_ids[d], d) for d in range(8)
                    if send_rank_ids[d] != -1],
                [(_extent(lead, _halo(h, w, d, recv_lens)), recv_rank_ids[d], (d + 4) % 8) for d in dirs], group)
    out = torch.zeros(lead + (h + top + bottom, w + left + right), dtype=x.dtype, device=x.device)
    out[..., top:top + h, left:left + w] = x
    for d, piece in zip(dirs, got):
        out[(...,) + _halo(h, w, d, recv_lens)] = piece
    return out


def neighbor_exchange_v2_grad(dout, send_rank_ids, send_lens, recv_rank_ids, recv_lens, data_format, group):
    """The adjoint of `neighbor_exchange_v2` with these (forward) attributes: the halos of `dout` go back to the
    neighbours they came from, and what comes back is added onto the edges this member sent."""
    top, bottom, left, right = recv_lens
    h, w = dout.shape[-2] - top - bottom, dout.shape[-1] - left - right
    lead = tuple(dout.shape[:-2])
    dirs = [d for d in range(8) if send_rank_ids[d] != -1]
    got = _swap(dout, [(dout[(...,) + _halo(h, w, d, recv_lens)], recv_rank_ids[d], (d + 4) % 8) for d in range(8)
                       if recv_rank_ids[d] != -1],
                [(_extent(lead, _edge(h, w, d, send_lens)), send_rank_ids[d], d) for d in dirs], group)
    dx = dout[..., top:top + h, left:left + w].clone()
    for d, piece in zip(dirs, got):
        dx[(...,) + _edge(h, w, d, send_lens)] += piece
    return dx


def batch_isend_irecv(*xs, op_types, remote_ranks, receive_shapes, receive_dtypes, group):
    """BatchISendIRecv's kernel: the i-th "isend" sends xs[i] to its remote rank, the k-th "irecv" receives
    receive_shapes[k] / receive_dtypes[k]; outputs follow op_types (a float32 zero at each isend)."""
    sends = [i for i, t in enumerate(op_types) if t == "isend"]
    if len(sends) != len(xs):
        raise ValueError(f"For 'BatchISendIRecv', the number of input tensors ({len(xs)}) must equal the number of "
                         f"'isend' in 'op_types' ({len(sends)}).")
    ops, k, j = [], 0, 0
    for t, peer in zip(op_types, remote_ranks):
        if t == "isend":
            ops.append(("send", xs[j], global_rank(group, peer), group, 0))
            j += 1
        else:
            ops.append(("recv", receive_shapes[k], receive_dtypes[k], global_rank(group, peer), group, 0))
            k += 1
    buffers, handles = batch(ops)
    _wait_all(handles)
    got = iter(buffers)
    return tuple(torch.zeros((), dtype=torch.float32) if t == "isend" else next(got) for t in op_types)


class Store:
    """A key-value store served over TCP by its master (the rendezvous of torch.distributed's TCPStore)."""

    def __init__(self, host, port, world_size, is_master, timeout_s, wait_for_workers, multi_tenant, use_libuv):
        self._store = dist.TCPStore(host, int(port), world_size, is_master,
                                    timeout=datetime.timedelta(seconds=timeout_s), wait_for_workers=wait_for_workers,
                                    multi_tenant=multi_tenant, use_libuv=use_libuv)

    def set(self, key, value):
        self._store.set(key, value)

    def get(self, key):
        return self._store.get(key)

    def add(self, key, amount):
        return int(self._store.add(key, amount))

    def compare_set(self, key, expected, desired):
        return self._store.compare_set(key, expected, desired)

    def wait(self, keys, timeout_s=None):
        if timeout_s is None:
            self._store.wait(keys)
        else:
            self._store.wait(keys, datetime.timedelta(seconds=timeout_s))

    def delete_key(self, key):
        return self._store.delete_key(key)

    def num_keys(self):
        return int(self._store.num_keys())

    def check(self, keys):
        return self._store.check(keys)

    @property
    def host(self):
        return self._store.host

    @property
    def port(self):
        return int(self._store.port)
