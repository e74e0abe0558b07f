"""Functional collectives (`mindspore.communication.comm_func`): the collective primitives as functions.

The collectives run synchronously; with ``async_op=True`` the returned handle's `wait()` returns at once, because
the operation has already completed. The point-to-point operations `isend`, `irecv` and `batch_isend_irecv` are
asynchronous: they start the transfer and return a `CommHandle` whose `wait()` blocks until it is done (an `irecv`'s
output holds the message after that). Ranks given as `src`/`dst`/`peer` are world ranks, as MindSpore's.
"""
import numpy as np

from mindseed import ops as _ops
from mindseed._backend.kernels import comm_p2p as _P2P
from mindseed.common import dtype as _mstype
from mindseed.common._parallel import GlobalComm, _get_group
from mindseed.common.tensor import Tensor
from mindseed.communication.management import get_group_rank_from_world_rank, get_group_size, get_rank
from mindseed.ops.functional._core import update_in_place
from mindseed.ops.operations.comm_ops import (AllGather, AllReduce, AlltoAllV, AlltoAllVC, Barrier, BatchISendIRecv,
                                              Broadcast, CollectiveGather, CollectiveScatter, Reduce, ReduceOp,
                                              ReduceScatter, _check_ready)

__all__ = ["all_reduce", "all_gather_into_tensor", "all_to_all_with_output_shape",
           "all_to_all_single_with_output_shape", "barrier", "broadcast", "gather_into_tensor", "isend", "irecv",
           "reduce_scatter_tensor", "reduce", "scatter_tensor", "send", "recv", "P2POp", "batch_isend_irecv",
           "all_to_all_v_c"]


class CommHandle:
    """The handle of an asynchronous communication: `wait()` blocks until it is complete (a collective called with
    ``async_op=True`` has completed already, and its handle returns at once).

    Args:
        handle: the backend's handle of a started transfer (None: nothing to wait for).
        exec_sync (bool): accepted for MindSpore's signature (CPU execution is synchronous).
    """

    def __init__(self, handle=None, exec_sync=False):
        self.handle, self.exec_sync = handle, exec_sync

    def wait(self):
        """Block until the operation has completed (at most the execution timeout: a dead peer raises
        RuntimeError)."""
        if self.handle is not None:
            self.handle.wait()
            self.handle = None

    def __repr__(self):
        return f"CommHandle(done={self.handle is None or self.handle.is_completed()})"


def _handle(async_op):
    return CommHandle() if async_op else None


def all_reduce(tensor, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """Reduce `tensor` over `group`; returns ``(result, handle)`` (handle None unless `async_op`).

    Raises:
        TypeError: `tensor` is not a Tensor, `op` not one of 'sum', 'prod', 'min', 'max'.
        RuntimeError: called before `mindspore.communication.init()`.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError("For all_reduce, the input tensor must be tensor")
    if not isinstance(op, str):
        raise TypeError("For all_reduce, the input op type must be str")
    if op not in ("sum", "prod", "min", "max"):
        raise TypeError("For all_reduce, the input op value must be one of sum, prod, min, max")
    return AllReduce(op, _get_group(group))(tensor), _handle(async_op)


def all_gather_into_tensor(tensor, group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """The members' tensors concatenated along axis 0; returns ``(result, handle)``.

    Raises:
        TypeError: `tensor` is not a Tensor.
        RuntimeError: called before `mindspore.communication.init()`.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError("For all_gather_into_tensor, the input tensor must be tensor")
    return AllGather(_get_group(group))(tensor), _handle(async_op)


def reduce_scatter_tensor(tensor, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """Reduce `tensor` over `group` and keep this member's chunk along axis 0; returns ``(result, handle)``.

    Raises:
        TypeError: `tensor` is not a Tensor.
        ValueError: `tensor.shape[0]` is not a multiple of the group size.
        RuntimeError: called before `mindspore.communication.init()`.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError("For reduce_scatter_tensor, the input tensor must be tensor")
    return ReduceScatter(op, _get_group(group))(tensor), _handle(async_op)


def broadcast(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP):
    """The tensor of the process with world rank `src`, on every member of `group`.

    Raises:
        TypeError: `tensor` is not a Tensor or `src` not an int.
        RuntimeError: called before `mindspore.communication.init()`.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError("For broadcast, the input tensor must be tensor")
    if not isinstance(src, int):
        raise TypeError("For broadcast, the src must be int")
    group = _get_group(group)
    root = src if group == GlobalComm.WORLD_COMM_GROUP else get_group_rank_from_world_rank(src, group)
    return Broadcast(root, group)((tensor,))[0]


def barrier(group=GlobalComm.WORLD_COMM_GROUP):
    """Block until every member of `group` has called `barrier`.

    Raises:
        TypeError: `group` is not a str.
        RuntimeError: called before `mindspore.communication.init()`.
    """
    if not isinstance(group, str):
        raise TypeError(f"group must be type of string, but got {type(group)}")
    Barrier(_get_group(group))()


# ---------------------------------------------------------------- helpers
def _world_group(group):
    return GlobalComm.WORLD_COMM_GROUP if group is None else _get_group(group)


def _group_rank(world_rank, group):
    """The rank in `group` of the process of world rank `world_rank`."""
    return world_rank if group == GlobalComm.WORLD_COMM_GROUP else get_group_rank_from_world_rank(world_rank, group)


def _need(name, value, arg, kind):
    """`value` when it is a `kind` ("tensor" or "int"), else comm_func's TypeError."""
    ok = isinstance(value, Tensor) if kind == "tensor" else isinstance(value, int) and not isinstance(value, bool)
    if not ok:
        raise TypeError(f"For {name}, the {arg} must be {kind}")
    return value


def _p2p_ready(name, tensor, peer, group, arg):
    _need(name, tensor, "input tensor", "tensor")
    _need(name, peer, arg, "int")
    group = _world_group(group)
    _check_ready(name, group)
    return group


# ---------------------------------------------------------------- rooted collectives
def reduce(tensor, dst, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP):
    """`tensor` reduced over `group` on the process of world rank `dst`; the others get a shape-[1] tensor with no
    meaning.

    Raises:
        TypeError: `tensor` is not a Tensor, `op` or `group` not a str.
        RuntimeError: called before `init()`, or a peer died / timed out.
    """
    _need("reduce", tensor, "input tensor", "tensor")
    group = _get_group(group)
    return Reduce(_group_rank(dst, group), op, group)(tensor)


def gather_into_tensor(tensor, dst=0, group=GlobalComm.WORLD_COMM_GROUP):
    """The members' tensors concatenated along axis 0, on the process of world rank `dst` (the others: a shape-[1]
    tensor with no meaning).

    Raises:
        TypeError: `tensor` is not a Tensor or `dst` not an int.
    """
    _need("gather_into_tensor", tensor, "input tensor", "tensor")
    _need("gather_into_tensor", dst, "dst", "int")
    return CollectiveGather(dst, _get_group(group))(tensor)


def scatter_tensor(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP):
    """Member i of `group` gets the i-th of equal blocks (along axis 0) of the tensor of world rank `src`.

    Raises:
        TypeError: `tensor` is not a Tensor or `src` not an int.
        ValueError: `tensor.shape[0]` is not a multiple of the group size.
    """
    _need("scatter_tensor", tensor, "input tensor", "tensor")
    _need("scatter_tensor", src, "src", "int")
    return CollectiveScatter(src, _get_group(group))(tensor)


# ---------------------------------------------------------------- point to point
def send(tensor, dst=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """Send `tensor` to the process of world rank `dst`, which receives it with `recv` (same `tag`); returns when
    the message has been handed over.

    Raises:
        TypeError: `tensor` is not a Tensor or `dst` not an int.
        RuntimeError: called before `init()`, or the peer died / timed out.
    """
    group = _p2p_ready("send", tensor, dst, group, "dst")
    _P2P.send(tensor._data, dst, group, tag)


def recv(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """The tensor the process of world rank `src` sent with `send` (same `tag`); `tensor` gives its shape and dtype
    (its value is not used).

    Raises:
        TypeError: `tensor` is not a Tensor or `src` not an int.
        RuntimeError: called before `init()`, or the peer died / timed out.
    """
    group = _p2p_ready("recv", tensor, src, group, "src")
    return Tensor._from_raw(_P2P.recv(tensor.shape, tensor.dtype.name, src, group, tag))


def isend(tensor, dst=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """Start sending `tensor` to the process of world rank `dst`; returns a CommHandle (`wait()` until sent).

    Raises:
        TypeError: `tensor` is not a Tensor or `dst` not an int.
    """
    group = _p2p_ready("isend", tensor, dst, group, "dst")
    return CommHandle(_P2P.isend(tensor._data, dst, group, tag))


def irecv(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """Start receiving, from the process of world rank `src`, a tensor of `tensor`'s shape and dtype; returns
    ``(output, handle)``: `output` holds the message once `handle.wait()` has returned.

    Raises:
        TypeError: `tensor` is not a Tensor or `src` not an int.
    """
    group = _p2p_ready("irecv", tensor, src, group, "src")
    raw, pending = _P2P.irecv(tensor.shape, tensor.dtype.name, src, group, tag)
    return Tensor._from_raw(raw), CommHandle(pending)


class P2POp:
    """One "isend" or "irecv" for `batch_isend_irecv`.

    Args:
        op (Union[str, function]): ``"isend"`` / ``"irecv"``, or the functions `isend` / `irecv`.
        tensor (Union[Tensor, tuple[int]]): the tensor sent, or (irecv) a tensor giving the shape and dtype
            received, or the shape itself (then `recv_dtype` is needed).
        peer (int): the remote process's world rank.
        group (str): the communication group. Default: ``None`` (the world).
        tag (int): only ``0``.

    Keyword Args:
        recv_dtype (mindspore.dtype): the dtype received when `tensor` is a shape.

    Raises:
        TypeError: `op` is neither a str nor a function, `tensor` neither a Tensor nor a tuple, `peer` not an int.
        ValueError: `op` is not isend/irecv.
        NotImplementedError: `tag` is not 0 (MindSpore does not support tags here either).
    """

    def __new__(cls, op, tensor, peer, group=None, tag=0, recv_dtype=None):
        if not (isinstance(op, str) or callable(op)):
            raise TypeError(f"op must be type of string or function, but got type of {type(op)}")
        op_name = op if isinstance(op, str) else op.__name__
        if op_name not in ("isend", "irecv"):
            raise ValueError(f"Expected ``op`` to be of type ``isend`` or `irecv``, but got {op_name}")
        if not isinstance(tensor, (Tensor, tuple)):
            raise TypeError(f"Expected ``tensor`` to be type of tuple or Tensor, but got {type(tensor)}.")
        if tag != 0:
            raise NotImplementedError("``tag`` not support yet.")
        return object.__new__(cls)

    def __init__(self, op, tensor, peer, group=None, tag=0, *, recv_dtype=None):
        if isinstance(peer, bool) or not isinstance(peer, int):
            raise TypeError(f"peer must be type of int, but got type of {type(peer)}")
        if recv_dtype is not None and not hasattr(recv_dtype, "name"):
            raise TypeError(f"recv_dtype must be type of mindspore dtype, but got type of {type(recv_dtype)}")
        self.op, self.tensor, self.peer, self.group, self.tag, self.recv_dtype = op, tensor, peer, group, tag, \
            recv_dtype


def batch_isend_irecv(p2p_op_list):
    """Run the P2POps of the list together (one group); returns a tuple with, per P2POp, a float32 zero for an
    "isend" and the received tensor for an "irecv".

    Raises:
        TypeError: `p2p_op_list` is not a non-empty list of P2POp.
        ValueError: an irecv given by shape without `recv_dtype`.
    """
    if not isinstance(p2p_op_list, list):
        raise TypeError(f"p2p_op_list must be type of list, but got type of {p2p_op_list}.")
    if not p2p_op_list:
        raise TypeError("p2p_op_list can not be empty list.")
    if not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise TypeError(f"For 'batch_isend_irecv', every element of 'p2p_op_list' must be a P2POp, but got "
                        f"{[type(p).__name__ for p in p2p_op_list]}.")
    group = _world_group(p2p_op_list[0].group)
    sends, types, ranks, shapes, dtypes = [], [], [], [], []
    for i, p in enumerate(p2p_op_list):
        if not isinstance(p, P2POp):
            raise TypeError("must be type of P2POp")
        kind = p.op if isinstance(p.op, str) else p.op.__name__
        types.append(kind)
        ranks.append(_group_rank(p.peer, group))
        if kind == "isend":
            sends.append(_need("batch_isend_irecv", p.tensor, "isend tensor", "tensor"))
        elif isinstance(p.tensor, Tensor):
            shapes.append(p.tensor.shape)
            dtypes.append(p.tensor.dtype)
        else:
            if p.recv_dtype is None:
                raise ValueError(f"'recv_dtype' of {i}th P2POp in p2p_op_list is None but op_types is'irecv' and "
                                 f"P2POp.tensor is a tuple type.")
            shapes.append(p.tensor)
            dtypes.append(p.recv_dtype)
    return BatchISendIRecv(types, ranks, shapes, dtypes, group)(tuple(sends))


# ---------------------------------------------------------------- AlltoAll with output shapes
def _flat(tensors, dtype):
    """The tensors flattened and concatenated (an empty tensor of `dtype` for none)."""
    return _ops.cat([_ops.reshape(t, (-1,)) for t in tensors]) if tensors else _ops.zeros((0,), dtype)


def _pieces(out, numels, shapes, dtype):
    """`out` (flat, or the shape-() placeholder when nothing came) cut into pieces of `numels`, shaped `shapes`."""
    flat = _ops.reshape(out, (-1,))
    result, offset = [], 0
    for numel, shape in zip(numels, shapes):
        result.append(_ops.reshape(flat[offset:offset + numel], shape) if numel else _ops.zeros(shape, dtype))
        offset += numel
    return tuple(result)


def all_to_all_with_output_shape(output_shape_list, input_tensor_list, group=None, async_op=False):
    """input_tensor_list[j] goes to member j; returns ``(outputs, handle)``: outputs[i] is the tensor member i
    sent, of shape output_shape_list[i] (a shape tuple or a Tensor giving it).

    Raises:
        TypeError: the inputs are not a list of Tensors of one dtype, the output shapes not tuples or Tensors.
    """
    if not isinstance(input_tensor_list, (list, tuple)) or not all(isinstance(t, Tensor) for t in input_tensor_list):
        raise TypeError(f"Expected list or tuple of tensors, but got {type(input_tensor_list)}.")
    if not isinstance(output_shape_list, (list, tuple)) or \
            not all(isinstance(t, (Tensor, tuple, list)) for t in output_shape_list):
        raise TypeError(f"Expected list or tuple of tensors or shapes, but got {type(output_shape_list)}.")
    dtypes = {t.dtype for t in input_tensor_list}
    if len(dtypes) > 1:
        raise TypeError(f"all_to_all input dtype must be the same, but got {sorted(map(str, dtypes))}.")
    group = _world_group(group)
    dtype = input_tensor_list[0].dtype if input_tensor_list else _mstype.float32
    shapes = [tuple(t.shape) if isinstance(t, Tensor) else tuple(t) for t in output_shape_list]
    recv = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    out = AlltoAllV(group)(_flat(list(input_tensor_list), dtype), [t.size for t in input_tensor_list], recv)
    return _pieces(out, recv, shapes, dtype), _handle(async_op)


def split_sizes(sizes, total, n, uneven, mismatch):
    """`sizes` as a list of ints (n equal parts of `total` when None or empty). `uneven` and `mismatch` are the
    messages of the ValueErrors for a `total` n does not divide and for sizes that are not n parts of `total`
    (`str.format`ted with total, n and sizes)."""
    if sizes is None or len(sizes) == 0:
        if total % n:
            raise ValueError(uneven.format(total=total, n=n, sizes=sizes))
        return [total // n] * n
    sizes = [int(v) for v in sizes]
    if len(sizes) != n or sum(sizes) != total:
        raise ValueError(mismatch.format(total=total, n=n, sizes=sizes))
    return sizes


def _split_rows(which, sizes, rows, n):
    return split_sizes(sizes, rows, n, which + " shape at dim 0 must be divided by world_size, but got {total} and "
                                             "{n}.",
                       "For all_to_all_single_with_output_shape, the " + which + "_split_sizes must have {n} entries "
                       "summing to {total}, but got {sizes}.")


def all_to_all_single_with_output_shape(output_shape, tensor, output_split_sizes=None, input_split_sizes=None,
                                        group=None, async_op=False):
    """Member j gets rows input_split_sizes[j] of `tensor` (along axis 0; equal parts by default); returns
    ``(output, handle)``, output of `output_shape` holding output_split_sizes[i] rows from each member i (a
    shape-() zero when nothing arrives).

    Raises:
        TypeError: `tensor` is not a Tensor, `output_shape` neither a tuple nor a Tensor.
        ValueError: split sizes that do not match the shapes and the group size.
    """
    _need("all_to_all_single_with_output_shape", tensor, "input tensor", "tensor")
    if not isinstance(output_shape, (Tensor, tuple, list)):
        raise TypeError(f"Expected tensor or tuple, but got {type(output_shape)}")
    group = _world_group(group)
    n = get_group_size(group)
    shape = tuple(output_shape.shape) if isinstance(output_shape, Tensor) else tuple(output_shape)
    if not shape or tensor.ndim == 0 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0
                                            for v in shape):
        raise ValueError(f"For 'all_to_all_single_with_output_shape', the 'output_shape' and the input tensor must "
                         f"have at least one dim of non-negative ints, but got {shape} and {tensor.shape}.")
    send_rows = _split_rows("input", input_split_sizes, tensor.shape[0], n)
    recv_rows = _split_rows("output", output_split_sizes, shape[0], n)
    inner_in, inner_out = int(np.prod(tensor.shape[1:], dtype=np.int64)), int(np.prod(shape[1:], dtype=np.int64))
    me = get_rank(group)
    if send_rows[me] * inner_in != recv_rows[me] * inner_out:
        raise ValueError(f"For 'all_to_all_single_with_output_shape', this member sends itself "
                         f"{send_rows[me] * inner_in} elements but expects {recv_rows[me] * inner_out} from itself "
                         f"(input shape {tensor.shape}, output shape {shape}).")
    out = AlltoAllV(group)(_ops.reshape(tensor, (-1,)), [r * inner_in for r in send_rows],
                           [r * inner_out for r in recv_rows])
    if any(recv_rows):
        out = _ops.reshape(out, (-1,) + shape[1:])
    return out, _handle(async_op)


def all_to_all_v_c(output, input, send_count_matrix, group=None, async_op=False):
    """`send_count_matrix[i * n + j]` rows (along axis 0) go from member i to member j; `output` is made to hold
    the rows this member receives, in rank order. Returns the handle (None unless `async_op`).

    Raises:
        TypeError: `input`/`output` not Tensors, `group` not a str, `async_op` not a bool, the matrix not a list
            of n * n ints.
        ValueError: `input` and `output` rows of different sizes.
    """
    for t in (input, output):
        if not isinstance(t, Tensor):
            raise TypeError(f"Expected tensor, but got {type(t)}")
    group = _world_group(group)
    if not isinstance(group, str):
        raise TypeError(f"The argument 'group' must be type of string, but got 'group' type : {type(group)}.")
    if not isinstance(async_op, bool):
        raise TypeError(f"The argument 'async_op' must be a bool, but got {type(async_op)}.")
    if not isinstance(send_count_matrix, list):
        raise TypeError(f"send_count_matrix must be list, but got {type(send_count_matrix)}")
    if not all(isinstance(x, int) for x in send_count_matrix):
        raise TypeError("send_count_matrix elements must be of type int")
    n = get_group_size(group)
    if n * n != len(send_count_matrix):
        raise TypeError(f"send_count_matrix must be square matrix, but got {len(send_count_matrix)}.")
    inner_in, inner_out = int(np.prod(input.shape[1:], dtype=np.int64)), int(np.prod(output.shape[1:], dtype=np.int64))
    if inner_in != inner_out:
        raise ValueError(f"The input and output dimensions except 0 must be of equal size, but got {inner_in} and "
                         f"{inner_out}.")
    out = AlltoAllVC(group)(_ops.reshape(input, (-1,)), [c * inner_in for c in send_count_matrix])
    update_in_place(output, lambda old: _ops.reshape(_ops.cast(out, old.dtype), old.shape) if out.size else old)
    return _handle(async_op)
