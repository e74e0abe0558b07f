"""mindspore.mint.distributed: torch.distributed-style collectives on mindseed's communication layer.

The collectives write their result into the tensors they are given (`all_reduce(t)` updates `t`), as
torch.distributed does; they run the collective primitives of `ops._prims.comm` (AllReduce, AllGather,
ReduceScatter, Broadcast, Barrier), so under a grad transform they differentiate as those primitives do.
Collectives torch has and those primitives lack (gather, scatter, reduce, all_to_all, the uneven forms) are
compositions of them. Point-to-point operations and the key-value store use the backend's p2p kernels.
`group` is a group name (None: the world); `src`/`dst`/`peer` are world ranks. With ``async_op=True`` a
handle is returned whose `wait()` returns at once: the operation has completed.
"""
import datetime
import functools
import os

import numpy as np

from mindseed import ops as _ops
from mindseed._backend.kernels import comm_p2p as _K
from mindseed.common._parallel import GlobalComm, _get_group
from mindseed.common.tensor import Tensor
from mindseed.communication import management as _m
from mindseed.communication.comm_func import CommHandle, split_sizes
from mindseed.mint._impl import inplace
from mindseed.mint.distributed import _objects
from mindseed.ops._prims import comm as _C

__all__ = [
    "P2POp", "TCPStore", "all_gather", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_gather_object",
    "all_reduce", "all_to_all", "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast",
    "broadcast_object_list", "destroy_process_group", "gather", "gather_object", "get_backend", "get_global_rank",
    "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size", "init_process_group", "irecv",
    "is_available", "is_initialized", "isend", "new_group", "recv", "recv_object_list", "reduce", "reduce_scatter",
    "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "scatter", "scatter_object_list", "send",
    "send_object_list",
]

_OPS = ("sum", "prod", "min", "max", "avg")
_BACKENDS = {"hccl": None, "mccl": "mccl", "gloo": "mccl", "nccl": "nccl", None: None}


# ---------------------------------------------------------------- arguments
def _group(op, group):
    _ready(op)
    if group is None:
        return GlobalComm.WORLD_COMM_GROUP
    if not isinstance(group, str):
        raise TypeError(f"For 'mint.distributed.{op}', the 'group' must be a str or None, but got "
                        f"{type(group).__name__}.")
    return _get_group(group)


def _ready(op):
    if not GlobalComm.INITED:
        raise RuntimeError(f"For 'mint.distributed.{op}', the process group is not initialized: call "
                           f"init_process_group() first.")


def _tensor(op, name, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For 'mint.distributed.{op}', the '{name}' must be a Tensor, but got "
                        f"{type(value).__name__}.")
    return value


def _tensors(op, name, values):
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"For 'mint.distributed.{op}', the '{name}' must be a list of Tensors, but got "
                        f"{type(values).__name__}.")
    for v in values:
        _tensor(op, name, v)
    return values


def _reduce_op(op, value):
    if value not in _OPS:
        raise ValueError(f"For 'mint.distributed.{op}', the 'op' must be one of {_OPS}, but got {value!r}.")
    return value


def _size(group):
    return _m.get_group_size(group)


def _rank(group):
    return _m.get_rank(group)


def _group_rank_of(group, world_rank):
    if group == GlobalComm.WORLD_COMM_GROUP:
        return world_rank
    return _m.get_group_rank_from_world_rank(world_rank, group)


def _handle(async_op):
    return CommHandle() if async_op else None


def _write(target, value):
    """`target` made to hold `value` (reshaped to target's shape)."""
    inplace(target, lambda old: _ops.cast(_ops.reshape(value, old.shape), old.dtype))


def _split_sizes(op, name, sizes, total, n):
    return split_sizes(sizes, total, n, f"For 'mint.distributed.{op}', dimension 0 ({{total}}) must be divisible by "
                                        f"the group size {{n}} when '{name}' is not given.",
                       f"For 'mint.distributed.{op}', '{name}' must have {{n}} entries summing to {{total}}, but got "
                       f"{{sizes}}.")


# ---------------------------------------------------------------- process groups
def is_available():
    """Whether distributed communication is available (it is: torch.distributed is the engine)."""
    return True


def is_initialized():
    """Whether `init_process_group` has run."""
    return GlobalComm.INITED


def init_process_group(backend="hccl", init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Join the world of processes: from the launcher's environment (msrun, mpirun), or from `init_method`
    ("env://" or "tcp://host:port") with `world_size` and `rank`. The arguments given are set as the launcher
    variables `mindspore.communication.init` reads (MASTER_ADDR, MASTER_PORT, RANK_SIZE, RANK_ID, MS_TOPO_TIMEOUT).

    Args:
        backend (str): "hccl" (the device's default), "mccl"/"gloo" (CPU) or "nccl" (GPU).
        init_method (str): where the processes meet; default: the launcher's environment.
        timeout (datetime.timedelta): how long to wait for the others.
        world_size (int), rank (int): the number of processes and this one's rank (-1: from the environment).
        store (TCPStore): not used to rendezvous (give `init_method`); accepted as None only.

    Raises:
        ValueError: an unknown backend or init_method, or a store.
        RuntimeError: the processes could not join.
    """
    if not isinstance(backend, str) or backend not in _BACKENDS:
        raise ValueError(f"For 'mint.distributed.init_process_group', the 'backend' must be one of "
                         f"{sorted(k for k in _BACKENDS if k)}, but got {backend!r}.")
    if store is not None:
        raise ValueError("For 'mint.distributed.init_process_group', the processes meet at 'init_method' or the "
                         "launcher's address; a 'store' cannot be given.")
    env = {}
    if init_method not in (None, "env://"):
        if not (isinstance(init_method, str) and init_method.startswith("tcp://") and ":" in init_method[6:]):
            raise ValueError(f"For 'mint.distributed.init_process_group', the 'init_method' must be 'env://' or "
                             f"'tcp://host:port', but got {init_method!r}.")
        env["MASTER_ADDR"], env["MASTER_PORT"] = init_method[6:].rsplit(":", 1)
    if world_size != -1:
        env["RANK_SIZE"] = str(int(world_size))
    if rank != -1:
        env["RANK_ID"] = str(int(rank))
    if timeout is not None:
        env["MS_TOPO_TIMEOUT"] = str(int(timeout.total_seconds()))
    os.environ.update(env)
    _m.init(_BACKENDS[backend])


def destroy_process_group(group=None):
    """Leave the world (group None) or destroy a group made by `new_group`."""
    if group is None or _get_group(group) == GlobalComm.WORLD_COMM_GROUP:
        _m.release()
    else:
        _m.destroy_group(_group("destroy_process_group", group))


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None):
    """A group of the world ranks `ranks` (None: the world); returns its name. Processes outside `ranks` get the
    name without joining."""
    _ready("new_group")
    if ranks is None:
        return GlobalComm.WORLD_COMM_GROUP
    ranks = sorted(int(r) for r in ranks)
    name = group_desc or "mint_group_" + "_".join(map(str, ranks))
    if _m.get_rank() in ranks and not _m._user_groups.get(name):
        _m.create_group(name, ranks)
    return name


def get_backend(group=None):
    """The communication library of `group` ("mccl" on CPU, "nccl" on GPU)."""
    _group("get_backend", group)
    return GlobalComm.BACKEND


def get_rank(group=None):
    """This process's rank in `group` (-1 before `init_process_group`)."""
    if not GlobalComm.INITED:
        return -1
    return _rank(_group("get_rank", group))


def get_world_size(group=None):
    """The number of processes of `group` (-1 before `init_process_group`)."""
    if not GlobalComm.INITED:
        return -1
    return _size(_group("get_world_size", group))


def get_global_rank(group, group_rank):
    """The world rank of the member of `group` whose rank in it is `group_rank`."""
    group = _group("get_global_rank", group)
    return group_rank if group == GlobalComm.WORLD_COMM_GROUP else _m.get_world_rank_from_group_rank(group, group_rank)


def get_group_rank(group, global_rank):
    """The rank in `group` of the process whose world rank is `global_rank`."""
    return _group_rank_of(_group("get_group_rank", group), global_rank)


def get_process_group_ranks(group=None):
    """The world ranks of the members of `group`, in group-rank order."""
    return list(_m.get_process_group_ranks(_group("get_process_group_ranks", group)))


# ---------------------------------------------------------------- collectives
def all_reduce(tensor, op="sum", group=None, async_op=False):
    """`tensor` reduced over the group by `op`, on every member (in place)."""
    group, op = _group("all_reduce", group), _reduce_op("all_reduce", op)
    _write(_tensor("all_reduce", "tensor", tensor), _C.all_reduce_p(tensor, op=op, group=group))
    return _handle(async_op)


def reduce(tensor, dst, op="sum", group=None, async_op=False):
    """`tensor` reduced over the group by `op`, written on the member of world rank `dst` only."""
    group, op = _group("reduce", group), _reduce_op("reduce", op)
    out = _C.all_reduce_p(_tensor("reduce", "tensor", tensor), op=op, group=group)
    if _m.get_rank() == dst:
        _write(tensor, out)
    return _handle(async_op)


def _gathered(op, tensor, group):
    """(group size, every member's tensor stacked along a new axis 0)."""
    _tensor(op, "tensor", tensor)
    return _size(group), _C.all_gather_p(_ops.expand_dims(tensor, 0), group=group)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[i] := the tensor of the group's member i."""
    group = _group("all_gather", group)
    n, out = _gathered("all_gather", tensor, group)
    if len(_tensors("all_gather", "tensor_list", tensor_list)) != n:
        raise ValueError(f"For 'mint.distributed.all_gather', 'tensor_list' must hold {n} tensors, but got "
                         f"{len(tensor_list)}.")
    for i, t in enumerate(tensor_list):
        _write(t, out[i])
    return _handle(async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """output_tensor := the members' input tensors concatenated along axis 0 (or stacked: output's shape)."""
    group = _group("all_gather_into_tensor", group)
    _tensor("all_gather_into_tensor", "output_tensor", output_tensor)
    out = _C.all_gather_p(_tensor("all_gather_into_tensor", "input_tensor", input_tensor), group=group)
    if out.size != output_tensor.size:
        raise ValueError(f"For 'mint.distributed.all_gather_into_tensor', the 'output_tensor' {output_tensor.shape} "
                         f"must hold the group's {_size(group)} inputs of shape {input_tensor.shape}.")
    _write(output_tensor, out)
    return _handle(async_op)


def all_gather_into_tensor_uneven(output, input, output_split_sizes=None, group=None, async_op=False):
    """output := the members' inputs concatenated along axis 0, member i's of length output_split_sizes[i]."""
    group = _group("all_gather_into_tensor_uneven", group)
    n = _size(group)
    sizes = _split_sizes("all_gather_into_tensor_uneven", "output_split_sizes", output_split_sizes,
                         _tensor("all_gather_into_tensor_uneven", "output", output).shape[0], n)
    _tensor("all_gather_into_tensor_uneven", "input", input)
    m = max(sizes)
    padded = _ops.pad(input, (0, 0) * (input.ndim - 1) + (0, m - input.shape[0]))
    everyone = _ops.reshape(_C.all_gather_p(padded, group=group), (n, m) + tuple(input.shape[1:]))
    _write(output, _ops.cat([everyone[i][:sizes[i]] for i in range(n)], 0))
    return _handle(async_op)


def reduce_scatter(output, input_list, op="sum", group=None, async_op=False):
    """output := the reduction over the group of input_list[my rank]."""
    group, op = _group("reduce_scatter", group), _reduce_op("reduce_scatter", op)
    _tensors("reduce_scatter", "input_list", input_list)
    stacked = _ops.stack(list(input_list), 0)
    _write(_tensor("reduce_scatter", "output", output), _C.reduce_scatter_p(stacked, op=op, group=group))
    return _handle(async_op)


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):
    """output := my chunk (along axis 0) of `input` reduced over the group."""
    group, op = _group("reduce_scatter_tensor", group), _reduce_op("reduce_scatter_tensor", op)
    out = _C.reduce_scatter_p(_tensor("reduce_scatter_tensor", "input", input), op=op, group=group)
    _write(_tensor("reduce_scatter_tensor", "output", output), out)
    return _handle(async_op)


def reduce_scatter_tensor_uneven(output, input, input_split_sizes=None, op="sum", group=None, async_op=False):
    """output := my piece (length input_split_sizes[my rank] along axis 0) of `input` reduced over the group."""
    group, op = _group("reduce_scatter_tensor_uneven", group), _reduce_op("reduce_scatter_tensor_uneven", op)
    sizes = _split_sizes("reduce_scatter_tensor_uneven", "input_split_sizes", input_split_sizes,
                         _tensor("reduce_scatter_tensor_uneven", "input", input).shape[0], _size(group))
    r = _rank(group)
    start = sum(sizes[:r])
    total = _C.all_reduce_p(input, op=op, group=group)
    _write(_tensor("reduce_scatter_tensor_uneven", "output", output), total[start:start + sizes[r]])
    return _handle(async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """tensor := the tensor of the process of world rank `src`."""
    group = _group("broadcast", group)
    out = _C.broadcast_p(_tensor("broadcast", "tensor", tensor), root_rank=_group_rank_of(group, src), group=group)
    _write(tensor, out[0])
    return _handle(async_op)


def gather(tensor, gather_list, dst=0, group=None, async_op=False):
    """On world rank `dst`: gather_list[i] := the tensor of the group's member i."""
    group = _group("gather", group)
    _, out = _gathered("gather", tensor, group)
    if _m.get_rank() == dst:
        for i, t in enumerate(_tensors("gather", "gather_list", gather_list)):
            _write(t, out[i])
    return _handle(async_op)


def scatter(tensor, scatter_list, src=0, group=None, async_op=False):
    """tensor := scatter_list[my group rank] of the process of world rank `src`."""
    group = _group("scatter", group)
    n = _size(group)
    _tensor("scatter", "tensor", tensor)
    if _m.get_rank() == src:
        if len(_tensors("scatter", "scatter_list", scatter_list)) != n:
            raise ValueError(f"For 'mint.distributed.scatter', 'scatter_list' must hold {n} tensors, but got "
                             f"{len(scatter_list)}.")
        pieces = _ops.stack([_ops.cast(t, tensor.dtype) for t in scatter_list], 0)
    else:
        pieces = _ops.zeros((n,) + tuple(tensor.shape), tensor.dtype)
    everyone = _C.broadcast_p(pieces, root_rank=_group_rank_of(group, src), group=group)[0]
    _write(tensor, everyone[_rank(group)])
    return _handle(async_op)


def _exchange(op, inputs, output_shapes, group):
    """The tensors member i sends to me (inputs[j] goes to member j), shaped `output_shapes`: every member's
    inputs, flattened and padded to one length, are all-gathered with the table of their sizes."""
    n, r = _size(group), _rank(group)
    if len(inputs) != n or len(output_shapes) != n:
        raise ValueError(f"For 'mint.distributed.{op}', there must be {n} inputs and outputs, but got "
                         f"{len(inputs)} and {len(output_shapes)}.")
    dtype = inputs[0].dtype
    flat = [_ops.reshape(_ops.cast(t, dtype), (-1,)) for t in inputs]
    sizes = Tensor(np.array([t.size for t in inputs], np.int64))
    table = _C.all_gather_p(sizes, group=group).asnumpy().reshape(n, n)
    longest = int(table.sum(1).max())
    mine = _ops.cat(flat, 0) if flat else _ops.zeros((0,), dtype)
    mine = _ops.pad(mine, (0, longest - mine.shape[0]))
    everyone = _ops.reshape(_C.all_gather_p(mine, group=group), (n, longest))
    out = []
    for i in range(n):
        start = int(table[i, :r].sum())
        out.append(_ops.reshape(everyone[i][start:start + int(table[i, r])], output_shapes[i]))
    return out


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """output_tensor_list[i] := input_tensor_list[my rank] of the group's member i."""
    group = _group("all_to_all", group)
    outs = _tensors("all_to_all", "output_tensor_list", output_tensor_list)
    got = _exchange("all_to_all", _tensors("all_to_all", "input_tensor_list", input_tensor_list),
                    [t.shape for t in outs], group)
    for t, v in zip(outs, got):
        _write(t, v)
    return _handle(async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    """Member j gets my rows input_split_sizes[j] (along axis 0); `output` is the pieces from every member,
    output_split_sizes[i] rows from member i, concatenated."""
    group = _group("all_to_all_single", group)
    n = _size(group)
    _tensor("all_to_all_single", "output", output)
    isz = _split_sizes("all_to_all_single", "input_split_sizes", input_split_sizes,
                       _tensor("all_to_all_single", "input", input).shape[0], n)
    osz = _split_sizes("all_to_all_single", "output_split_sizes", output_split_sizes, output.shape[0], n)
    starts = np.cumsum([0] + isz)
    pieces = [input[int(starts[j]):int(starts[j + 1])] for j in range(n)]
    got = _exchange("all_to_all_single", pieces, [(s,) + tuple(output.shape[1:]) for s in osz], group)
    _write(output, _ops.cat(got, 0))
    return _handle(async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Block until every member of the group has reached the barrier."""
    _C.barrier_p(group=_group("barrier", group))
    return _handle(async_op)


# ---------------------------------------------------------------- Python objects
def _gather_bytes(group, data):
    """Every member's bytes (uint8 arrays), in group-rank order."""
    n = _size(group)
    lengths = _C.all_gather_p(Tensor(np.array([data.size], np.int64)), group=group).asnumpy()
    longest = int(lengths.max())
    padded = np.zeros(longest, np.uint8)
    padded[:data.size] = data
    everyone = _C.all_gather_p(Tensor(padded), group=group).asnumpy().reshape(n, longest)
    return [everyone[i, :int(lengths[i])] for i in range(n)]


def _broadcast_bytes(group, data, src):
    root = _group_rank_of(group, src)
    length = _C.broadcast_p(Tensor(np.array([0 if data is None else data.size], np.int64)), root_rank=root,
                            group=group)[0]
    buf = Tensor(data if data is not None else np.zeros(int(length.asnumpy()[0]), np.uint8))
    return _C.broadcast_p(buf, root_rank=root, group=group)[0].asnumpy()


def all_gather_object(object_list, obj, group=None):
    """object_list[i] := the object of the group's member i (see `_objects` for the types that travel)."""
    group = _group("all_gather_object", group)
    for i, data in enumerate(_gather_bytes(group, _objects.encode(obj))):
        object_list[i] = _objects.decode(data)


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """On world rank `dst`: object_gather_list[i] := the object of the group's member i."""
    group = _group("gather_object", group)
    everyone = _gather_bytes(group, _objects.encode(obj))
    if _m.get_rank() == dst:
        if object_gather_list is None:
            raise ValueError("For 'mint.distributed.gather_object', 'object_gather_list' is required on 'dst'.")
        for i, data in enumerate(everyone):
            object_gather_list[i] = _objects.decode(data)


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """object_list[:] := the object_list of world rank `src`."""
    group = _group("broadcast_object_list", group)
    data = _broadcast_bytes(group, _objects.encode(list(object_list)) if _m.get_rank() == src else None, src)
    object_list[:] = _objects.decode(data)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0, group=None):
    """scatter_object_output_list[0] := scatter_object_input_list[my group rank] of world rank `src`."""
    group = _group("scatter_object_list", group)
    sent = _objects.encode(list(scatter_object_input_list)) if _m.get_rank() == src else None
    scatter_object_output_list[0] = _objects.decode(_broadcast_bytes(group, sent, src))[_rank(group)]


def send_object_list(object_list, dst, group=None, device=None):
    """Send the objects of `object_list` to world rank `dst` (its `recv_object_list`)."""
    group = _group("send_object_list", group)
    data = _objects.encode(list(object_list))
    _K.send(Tensor(np.array([data.size], np.int64))._data, dst, group, 0)
    _K.send(Tensor(data)._data, dst, group, 0)


def recv_object_list(object_list, src=0, group=None, device=None):
    """object_list[:] := the objects world rank `src` sent with `send_object_list`; returns `src`."""
    group = _group("recv_object_list", group)
    length = Tensor._from_raw(_K.recv((1,), "Int64", src, group, 0)).asnumpy()[0]
    data = Tensor._from_raw(_K.recv((int(length),), "UInt8", src, group, 0)).asnumpy()
    object_list[:] = _objects.decode(data)
    return src


# ---------------------------------------------------------------- point to point
def send(tensor, dst=0, group=None, tag=0):
    """Send `tensor` to world rank `dst` (which calls `recv`)."""
    _K.send(_tensor("send", "tensor", tensor)._data, dst, _group("send", group), tag)


def recv(tensor, src=0, group=None, tag=0):
    """tensor := what world rank `src` sent (its shape and dtype); returns `src`."""
    group = _group("recv", group)
    raw = _K.recv(_tensor("recv", "tensor", tensor).shape, tensor.dtype.name, src, group, tag)
    _write(tensor, Tensor._from_raw(raw))
    return src


class _Receiving:
    """The handle of an `irecv`: `wait()` blocks until the message is there and writes it into the tensor."""

    def __init__(self, tensor, buffers, handles):
        self._tensors, self._buffers, self._handles = tensor, buffers, handles

    def wait(self):
        for h in self._handles:
            h.wait()
        for t, raw in zip(self._tensors, self._buffers):
            _write(t, Tensor._from_raw(raw))
        self._tensors = self._buffers = ()
        return True

    def is_completed(self):
        return all(h.is_completed() for h in self._handles)


def isend(tensor, dst=0, group=None, tag=0):
    """Start sending `tensor` to world rank `dst`; returns a handle (`wait()`)."""
    return _K.isend(_tensor("isend", "tensor", tensor)._data, dst, _group("isend", group), tag)


def irecv(tensor, src=0, group=None, tag=0):
    """Start receiving from world rank `src` into `tensor`; returns a handle whose `wait()` completes it."""
    group = _group("irecv", group)
    raw, handle = _K.irecv(_tensor("irecv", "tensor", tensor).shape, tensor.dtype.name, src, group, tag)
    return _Receiving([tensor], [raw], [handle])


class P2POp:
    """One point-to-point operation for `batch_isend_irecv`: `op` is `isend` or `irecv`, `peer` a world rank.

    Raises:
        TypeError: `op` is neither isend nor irecv, or `tensor` is not a Tensor.
    """

    def __init__(self, op, tensor, peer, group=None, tag=0):
        if op not in (isend, irecv, "isend", "irecv"):
            raise TypeError(f"For 'mint.distributed.P2POp', the 'op' must be isend or irecv, but got {op!r}.")
        self.op = op if isinstance(op, str) else op.__name__
        self.tensor, self.peer, self.group, self.tag = _tensor("P2POp", "tensor", tensor), peer, group, tag


def batch_isend_irecv(p2p_op_list):
    """Start every P2POp of the list together; returns their handles (`wait()` on each)."""
    if not isinstance(p2p_op_list, (list, tuple)) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise TypeError("For 'mint.distributed.batch_isend_irecv', the argument must be a list of P2POp.")
    specs, receivers = [], []
    for p in p2p_op_list:
        group = _group("batch_isend_irecv", p.group)
        if p.op == "isend":
            specs.append(("send", p.tensor._data, p.peer, group, p.tag))
        else:
            specs.append(("recv", p.tensor.shape, p.tensor.dtype.name, p.peer, group, p.tag))
            receivers.append(p.tensor)
    buffers, handles = _K.batch(specs)
    return [_Receiving(receivers, buffers, handles)] if specs else []


class TCPStore:
    """A key-value store over TCP: the master serves it, the others connect (torch's TCPStore).

    >>> from mindseed.mint.distributed import TCPStore
    >>> store = TCPStore("127.0.0.1", 0, 1, True)
    >>> store.set("k", "v"); store.get("k")
    b'v'
    """

    def __init__(self, host_name, port, world_size=None, is_master=False, timeout=datetime.timedelta(seconds=300),
                 wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True):
        api = "mint.distributed.TCPStore"
        if not isinstance(host_name, str):
            raise TypeError(f"For '{api}', the 'host_name' must be a str, but got {type(host_name).__name__}.")
        for name, v, lo in (("port", port, 0), ("world_size", world_size, 1)):
            if v is None and name == "world_size":
                continue
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For '{api}', the '{name}' must be an int, but got {type(v).__name__}.")
            if not lo <= v <= (65535 if name == "port" else 2 ** 31 - 1):
                raise ValueError(f"For '{api}', the '{name}' {v} is out of range.")
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError(f"For '{api}', the 'timeout' must be a datetime.timedelta, but got "
                            f"{type(timeout).__name__}.")
        self._store = _K.Store(host_name, port, world_size, is_master, timeout.total_seconds(), wait_for_workers,
                               multi_tenant, use_libuv)

    def set(self, key, value):
        """Store `value` (str or bytes) under `key`."""
        self._store.set(key, value)

    def get(self, key):
        """The bytes under `key` (waits for it to be set)."""
        return self._store.get(key)

    def add(self, key, amount):
        """Add `amount` to the integer under `key` (0 when new); returns the new value."""
        return self._store.add(key, amount)

    def compare_set(self, key, expected_value, desired_value):
        """Set `key` to `desired_value` if it holds `expected_value`; returns the value now held."""
        return self._store.compare_set(key, expected_value, desired_value)

    def wait(self, keys, timeout=None):
        """Block until every key of `keys` is set."""
        self._store.wait(list(keys), None if timeout is None else timeout.total_seconds())

    def delete_key(self, key):
        """Remove `key`; returns whether it was there."""
        return self._store.delete_key(key)

    def num_keys(self):
        """The number of keys set."""
        return self._store.num_keys()

    def check(self, keys):
        """Whether every key of `keys` is set (without waiting)."""
        return self._store.check(list(keys))

    @property
    def host(self):
        return self._store.host

    @property
    def port(self):
        return self._store.port


# ---------------------------------------------------------------- in-place mode (ops.set_comm_ops_inplace)
# MindSpore's ops namespace carries these functions too; `set_comm_ops_inplace(False, [...])` makes all_reduce,
# all_gather_into_tensor, reduce_scatter_tensor, recv and irecv return their results instead of writing them, and
# the others refuse to run ("Non-inplace mode is currently not supported.", as MindSpore).
COMM_FUNCS = ("all_reduce", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_to_all",
              "all_to_all_single", "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "isend", "irecv", "send",
              "recv", "gather", "scatter", "all_gather", "reduce_scatter", "barrier", "broadcast", "reduce",
              "batch_isend_irecv", "all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
              "send_object_list", "recv_object_list", "gather_into_tensor", "scatter_tensor", "all_to_all_v_c")
_INPLACE = dict.fromkeys(COMM_FUNCS, True)


def set_comm_ops_inplace(is_enable, func_list=None):
    """Whether the communication functions of `func_list` (None: all of them) write their results into the
    tensors they are given (the default) or return them.

    Raises:
        TypeError: `is_enable` is not a bool, `func_list` not a list/tuple.
        ValueError: a name of `func_list` is not a communication function.
    """
    if not isinstance(is_enable, bool):
        raise TypeError(f"For 'set_comm_ops_inplace', the argument 'is_enable' must be type of bool, but got "
                        f"'is_enable' type : {type(is_enable)}.")
    if func_list is None:
        func_list = COMM_FUNCS
    if not isinstance(func_list, (list, tuple)):
        raise TypeError(f"Expected list or tuple, but got {type(func_list)}.")
    for name in func_list:
        if name not in _INPLACE:
            raise ValueError(f"The function name in `func_list` must be correct, but got {name}.")
    for name in func_list:
        _INPLACE[name] = is_enable


def is_inplace_func(caller_name=None):
    """Whether the communication function `caller_name` runs in place."""
    return _INPLACE.get(caller_name, False)


def _returning_all_reduce(tensor, op="sum", group=None, async_op=False):
    group, op = _group("all_reduce", group), _reduce_op("all_reduce", op)
    return _C.all_reduce_p(_tensor("all_reduce", "tensor", tensor), op=op, group=group), _handle(async_op)


def _returning_all_gather(output_tensor, input_tensor, group=None, async_op=False):
    group = _group("all_gather_into_tensor", group)
    out = _C.all_gather_p(_tensor("all_gather_into_tensor", "input_tensor", input_tensor), group=group)
    return out, _handle(async_op)


def _returning_reduce_scatter(output, input, op="sum", group=None, async_op=False):
    group, op = _group("reduce_scatter_tensor", group), _reduce_op("reduce_scatter_tensor", op)
    return _C.reduce_scatter_p(_tensor("reduce_scatter_tensor", "input", input), op=op, group=group), \
        _handle(async_op)


def _returning_recv(tensor, src=0, group=None, tag=0):
    group = _group("recv", group)
    return Tensor._from_raw(_K.recv(_tensor("recv", "tensor", tensor).shape, tensor.dtype.name, src, group, tag))


def _returning_irecv(tensor, src=0, group=None, tag=0):
    group = _group("irecv", group)
    raw, handle = _K.irecv(_tensor("irecv", "tensor", tensor).shape, tensor.dtype.name, src, group, tag)
    return Tensor._from_raw(raw), CommHandle(handle)


def _in_place_mode(name, fn, returning=None):
    """`fn` as the in-place mode table says: itself, `returning` (the returning form), or refused."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if _INPLACE[name]:
            return fn(*args, **kwargs)
        if returning is None:
            raise ValueError("Non-inplace mode is currently not supported.")
        return returning(*args, **kwargs)
    return call


_RETURNING = {"all_reduce": _returning_all_reduce, "all_gather_into_tensor": _returning_all_gather,
              "reduce_scatter_tensor": _returning_reduce_scatter, "recv": _returning_recv, "irecv": _returning_irecv}
for _name in COMM_FUNCS:
    if _name in globals():
        globals()[_name] = _in_place_mode(_name, globals()[_name], _RETURNING.get(_name))
