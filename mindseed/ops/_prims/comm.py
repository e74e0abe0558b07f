"""Collective communication primitives and their gradients (MindSpore's grad_comm_ops rules).

Attributes: `op` ("sum", "max", "min", "prod", "avg") and `group` (a group name, already mapped from
MindSpore's default name to the world group's). Every collective is `side_effect`: other processes wait
for it, so a graph keeps each one, in order, and never merges or drops it.
"""
import sys

from mindseed._backend.kernels import comm as K
from mindseed._backend.kernels import comm_p2p as P2P
from mindseed._backend.kernels import core as K_core
from mindseed.ops import _sharding as S
from mindseed.ops._prims.core import cast_p, concat_p, div_p, equal_p, mul_p, reshape_p, zeros_like_p
from mindseed.ops._registry import Prim

all_reduce_p = Prim("AllReduce", K.all_reduce, side_effect=True)


@all_reduce_p.def_bprop
def _all_reduce_bprop(x, out, dout, op, group):
    if op == "sum":
        return (all_reduce_p(dout, op="sum", group=group),)
    if op == "avg":
        return (all_reduce_p(dout, op="avg", group=group),)
    if op == "prod":
        # d(prod_j x_j)/dx_i = out / x_i, and every member's out depends on this x
        return (div_p(all_reduce_p(mul_p(dout, out), op="sum", group=group), x),)
    # max / min: the gradient goes to the members holding the extreme value
    dx = all_reduce_p(dout, op="sum", group=group)
    return (mul_p(dx, cast_p(equal_p(x, out), dtype=dx.dtype.name)),)


all_gather_p = Prim("AllGather", K.all_gather, side_effect=True)
reduce_scatter_p = Prim("ReduceScatter", K.reduce_scatter, side_effect=True)


@all_gather_p.def_bprop
def _all_gather_bprop(x, out, dout, group):
    return (reduce_scatter_p(dout, op="sum", group=group),)


@reduce_scatter_p.def_bprop
def _reduce_scatter_bprop(x, out, dout, op, group):
    if op != "sum":
        raise RuntimeError("The reducescatter bprop only support ReduceOp.SUM until now.")
    return (all_gather_p(dout, group=group),)


broadcast_p = Prim("Broadcast", K.broadcast, multi_output=True, side_effect=True)


@broadcast_p.def_bprop
def _broadcast_bprop(*args, root_rank, group):
    # MindSpore's rule: the cotangent passes through unchanged on every member
    return args[-1]


# no bprop: a barrier has no inputs to differentiate
barrier_p = Prim("Barrier", K.barrier, side_effect=True)


# ---------------------------------------------------------------- failures: a dead peer or a timeout
def _comm_check(*args, **attrs):
    """A collective's kernel failed (the primitive runs this while handling the failure): a CommFailure of the
    backend (a dead peer, a timeout) is raised as it is, a RuntimeError naming the operator, rather than as an
    "invalid inputs" error."""
    failure = sys.exc_info()[1]
    if isinstance(failure, K.CommFailure):
        raise failure


# ---------------------------------------------------------------- AlltoAll family (MindSpore's grad_comm_ops rules)
all_to_all_p = Prim("AlltoAll", K.all_to_all, side_effect=True)


@all_to_all_p.def_bprop
def _all_to_all_bprop(x, out, dout, split_count, split_dim, concat_dim, group):
    return (all_to_all_p(dout, split_count=split_count, split_dim=concat_dim, concat_dim=split_dim, group=group),)


all_to_all_v_p = Prim("AlltoAllV", K.all_to_all_v, side_effect=True)


@all_to_all_v_p.def_bprop
def _all_to_all_v_bprop(x, out, dout, send_numel_list, recv_numel_list, group, block_size):
    dx = all_to_all_v_p(dout, send_numel_list=recv_numel_list, recv_numel_list=send_numel_list, group=group,
                        block_size=block_size)
    return (reshape_p(dx, shape=tuple(x.shape)),)


all_to_all_v_c_p = Prim("AlltoAllVC", K.all_to_all_v_c, side_effect=True)


@all_to_all_v_c_p.def_bprop
def _all_to_all_v_c_bprop(x, out, dout, send_count_matrix, group, block_size, transpose):
    dx = all_to_all_v_c_p(dout, send_count_matrix=send_count_matrix, group=group, block_size=block_size,
                          transpose=not transpose)
    return (reshape_p(dx, shape=tuple(x.shape)),)


all_gather_v_p = Prim("AllGatherV", K.all_gather_v, side_effect=True)
reduce_scatter_v_p = Prim("ReduceScatterV", K.reduce_scatter_v, side_effect=True)


@all_gather_v_p.def_bprop
def _all_gather_v_bprop(x, out, dout, output_split_sizes, group):
    dx = reduce_scatter_v_p(dout, input_split_sizes=output_split_sizes, op="sum", group=group)
    return (reshape_p(dx, shape=tuple(x.shape)),)


@reduce_scatter_v_p.def_bprop
def _reduce_scatter_v_bprop(x, out, dout, input_split_sizes, op, group):
    if op != "sum":
        raise RuntimeError("The reducescatter bprop only support ReduceOp.SUM until now.")
    dx = all_gather_v_p(dout, output_split_sizes=input_split_sizes, group=group)
    return (reshape_p(dx, shape=tuple(x.shape)),)


# ---------------------------------------------------------------- rooted collectives
reduce_p = Prim("Reduce", K.reduce, side_effect=True)


@reduce_p.def_bprop
def _reduce_bprop(x, out, dout, dest_rank, op, group):
    # MindSpore's rule: Broadcast the root's cotangent (the others' outputs are placeholders)
    mine = dout if K.group_rank(group) == dest_rank else zeros_like_p(x)
    return (broadcast_p(mine, root_rank=dest_rank, group=group)[0],)


collective_gather_p = Prim("CollectiveGather", K.collective_gather, side_effect=True)
collective_scatter_p = Prim("CollectiveScatter", K.collective_scatter, side_effect=True)


def _root_in_group(group, world_rank):
    return K.group_ranks(group).index(world_rank)


@collective_gather_p.def_bprop
def _collective_gather_bprop(x, out, dout, dest_rank, group):
    n = K.group_size(group)
    mine = dout if K.world_rank() == dest_rank else zeros_like_p(concat_p(*([x] * n), axis=0))
    grad = broadcast_p(mine, root_rank=_root_in_group(group, dest_rank), group=group)[0]
    r, rows = K.group_rank(group), x.shape[0]
    return (grad[r * rows:(r + 1) * rows],)


@collective_scatter_p.def_bprop
def _collective_scatter_bprop(x, out, dout, src_rank, group):
    gathered = collective_gather_p(dout, dest_rank=src_rank, group=group)
    return (gathered if K.world_rank() == src_rank else zeros_like_p(x),)


# ---------------------------------------------------------------- point to point
send_p = Prim("Send", P2P.send_p, side_effect=True)
receive_p = Prim("Receive", P2P.receive_p, side_effect=True)


@send_p.def_bprop
def _send_bprop(x, out, dout, sr_tag, dest_rank, group):
    # MindSpore's rule: the gradient of what was sent comes back from the receiver
    return (receive_p(sr_tag=sr_tag, src_rank=dest_rank, shape=tuple(x.shape), dtype=x.dtype.name, group=group),)


@receive_p.def_bprop
def _receive_bprop(*args, sr_tag, src_rank, shape, dtype, group):
    dout = args[-1]
    send_p(dout, sr_tag=sr_tag, dest_rank=src_rank, group=group)
    return tuple(zeros_like_p(x) for x in args[:-2])


neighbor_exchange_p = Prim("NeighborExchange", P2P.neighbor_exchange, multi_output=True, side_effect=True)


@neighbor_exchange_p.def_bprop
def _neighbor_exchange_bprop(*args, send_rank_ids, recv_rank_ids, recv_shapes, recv_type, group):
    xs, dout = args[:-2], args[-1]
    return neighbor_exchange_p(*dout, send_rank_ids=recv_rank_ids, recv_rank_ids=send_rank_ids,
                               recv_shapes=tuple(tuple(x.shape) for x in xs), recv_type=xs[0].dtype.name,
                               group=group)


neighbor_exchange_v2_p = Prim("NeighborExchangeV2", P2P.neighbor_exchange_v2, side_effect=True)
neighbor_exchange_v2_grad_p = Prim("NeighborExchangeV2Grad", P2P.neighbor_exchange_v2_grad, side_effect=True)


@neighbor_exchange_v2_p.def_bprop
def _neighbor_exchange_v2_bprop(x, out, dout, **attrs):
    return (neighbor_exchange_v2_grad_p(dout, **attrs),)


@neighbor_exchange_v2_grad_p.def_bprop
def _neighbor_exchange_v2_grad_bprop(dy, out, dout, **attrs):
    return (neighbor_exchange_v2_p(dout, **attrs),)


batch_isend_irecv_p = Prim("BatchISendIRecv", P2P.batch_isend_irecv, multi_output=True, side_effect=True)


@batch_isend_irecv_p.def_bprop
def _batch_isend_irecv_bprop(*args, op_types, remote_ranks, receive_shapes, receive_dtypes, group):
    # the adjoint exchange: each received tensor's cotangent goes back to its sender, each sent tensor's
    # cotangent comes back from its receiver
    xs, dout = args[:-2], args[-1]
    back_types = tuple("isend" if t == "irecv" else "irecv" for t in op_types)
    sent = iter(xs)
    shapes, dtypes, grads = [], [], []
    for t, d in zip(op_types, dout):
        if t == "isend":
            x = next(sent)
            shapes.append(tuple(x.shape))
            dtypes.append(x.dtype.name)
        else:
            grads.append(d)
    back = batch_isend_irecv_p(*grads, op_types=back_types, remote_ranks=remote_ranks,
                               receive_shapes=tuple(shapes), receive_dtypes=tuple(dtypes), group=group)
    return tuple(b for b, t in zip(back, op_types) if t == "isend")


for _p in (all_reduce_p, all_gather_p, reduce_scatter_p, broadcast_p, barrier_p, all_to_all_p, all_to_all_v_p,
           all_to_all_v_c_p, all_gather_v_p, reduce_scatter_v_p, reduce_p, collective_gather_p, collective_scatter_p,
           send_p, receive_p, neighbor_exchange_p, neighbor_exchange_v2_p, neighbor_exchange_v2_grad_p,
           batch_isend_irecv_p):
    _p.def_check(_comm_check)

# ---------------------------------------------------------------- Reshard: a layout for the partitioner, the identity
reshard_p = Prim("Reshard", K_core.identity, identity=True, sharding=S.elementwise)


@reshard_p.def_bprop
def _reshard_bprop(x, out, dout):
    return (dout,)
