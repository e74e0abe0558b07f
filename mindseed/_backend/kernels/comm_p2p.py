"""Point-to-point communication and the key-value store, on torch.distributed (mint.distributed's send/recv,
isend/irecv, batch_isend_irecv and TCPStore).

Ranks are world ranks (as torch.distributed and mint.distributed take them); groups are mindseed's group names.
"""
import datetime

import torch
import torch.distributed as dist

from mindseed._backend import _TORCH_DTYPES
from mindseed._backend.kernels.comm import _pg

__all__ = ["send", "recv", "isend", "irecv", "batch", "Store"]


class _Pending:
    """The handle of a started non-blocking operation; `wait()` blocks until it is complete."""

    def __init__(self, work):
        self._work = work

    def wait(self):
        self._work.wait()
        return True

    def is_completed(self):
        return self._work.is_completed()


def send(x, dst, group, tag):
    dist.send(x.contiguous(), dst=dst, group=_pg(group), tag=tag)


def recv(shape, dtype, src, group, tag):
    """A new tensor of `shape` and `dtype` (a dtype name) holding what world rank `src` sent."""
    out = torch.empty(tuple(shape), dtype=_TORCH_DTYPES[dtype])
    dist.recv(out, src=src, group=_pg(group), tag=tag)
    return out


def isend(x, dst, group, tag):
    return _Pending(dist.isend(x.contiguous(), dst=dst, group=_pg(group), tag=tag))


def irecv(shape, dtype, src, group, tag):
    """(buffer, handle): the buffer holds the message once the handle's `wait()` has returned."""
    out = torch.empty(tuple(shape), dtype=_TORCH_DTYPES[dtype])
    return out, _Pending(dist.irecv(out, src=src, group=_pg(group), tag=tag))


def batch(ops):
    """Start every operation of `ops`, a list of ("send", tensor, peer, group, tag) / ("recv", shape, dtype, peer,
    group, tag); returns (the receive buffers in order, the handles)."""
    p2p, buffers = [], []
    for op in ops:
        if op[0] == "send":
            _, x, peer, group, tag = op
            p2p.append(dist.P2POp(dist.isend, x.contiguous(), peer, _pg(group), tag))
        else:
            _, shape, dtype, peer, group, tag = op
            out = torch.empty(tuple(shape), dtype=_TORCH_DTYPES[dtype])
            buffers.append(out)
            p2p.append(dist.P2POp(dist.irecv, out, peer, _pg(group), tag))
    works = dist.batch_isend_irecv(p2p) if p2p else []
    return buffers, [_Pending(w) for w in works]


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
