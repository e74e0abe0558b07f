"""Functional collectives (`mindspore.communication.comm_func`): the collective primitives as functions.

They run synchronously; with ``async_op=True`` the returned handle's `wait()` returns at once, because the
operation has already completed.
"""
from mindseed.common._parallel import GlobalComm, _get_group
from mindseed.common.tensor import Tensor
from mindseed.communication.management import get_group_rank_from_world_rank
from mindseed.ops.operations.comm_ops import AllGather, AllReduce, Barrier, Broadcast, ReduceOp, ReduceScatter

__all__ = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast", "barrier", "CommHandle"]


class CommHandle:
    """The handle of a collective called with ``async_op=True``; the operation is already complete."""

    def wait(self):
        """Wait for the operation (it has completed: returns at once)."""
        return None


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
