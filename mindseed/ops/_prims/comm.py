"""Collective communication primitives and their gradients (MindSpore's grad_comm_ops rules).

Attributes: `op` ("sum", "max", "min", "prod", "avg") and `group` (a group name, already mapped from
MindSpore's default name to the world group's). Every collective is `side_effect`: other processes wait
for it, so a graph keeps each one, in order, and never merges or drops it.
"""
from mindseed._backend.kernels import comm as K
from mindseed.ops._prims.core import cast_p, div_p, equal_p, mul_p
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
