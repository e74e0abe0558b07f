"""Functional ops over the collectives: all_gather_matmul, matmul_reduce_scatter (MindSpore's fused TP operators,
here the collective and the MatMul in sequence, differentiable through both) and reshard."""
import numpy as np

from mindseed._backend.kernels import comm as K
from mindseed._utils import _state
from mindseed.common._parallel import GlobalComm
from mindseed.common._shard_layout import Layout
from mindseed.common.tensor import Tensor
from mindseed.ops._prims.comm import all_gather_p, reduce_scatter_p
from mindseed.ops._prims.core import matmul_p, transpose_p
from mindseed.ops.operations.comm_ops import Reshard, _check_ready, _group_size

__all__ = ["all_gather_matmul", "matmul_reduce_scatter", "reshard"]


def _fused_args(name, input, x2, group, world_size, bias, comm_turn, trans_input):
    for arg, t in (("input", input), ("x2", x2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(t).__name__}.")
        if t.ndim != 2:
            raise RuntimeError(f"For '{name}', the '{arg}' must be 2-dimensional, but got shape {t.shape}.")
    if input.dtype != x2.dtype:
        raise RuntimeError(f"For '{name}', the dtypes of 'input' and 'x2' must be the same, but got {input.dtype} and "
                           f"{x2.dtype}.")
    if not isinstance(group, str):
        raise TypeError(f"For '{name}', the 'group' must be a str, but got {type(group).__name__}.")
    _check_ready(name, group)
    if isinstance(world_size, bool) or not isinstance(world_size, int):
        raise TypeError(f"For '{name}', the 'world_size' must be an int, but got {type(world_size).__name__}.")
    if world_size != K.group_size(group):
        raise RuntimeError(f"For '{name}', the 'world_size' {world_size} must be the size of group '{group}' "
                           f"({K.group_size(group)}).")
    if bias is not None:
        raise RuntimeError(f"For '{name}', the 'bias' must be None (the only value supported).")
    if comm_turn != 0:
        raise RuntimeError(f"For '{name}', the 'comm_turn' must be 0, but got {comm_turn}.")
    if trans_input:
        raise RuntimeError(f"For '{name}', the 'trans_input' must be False.")


def _times(a, x2, trans_x2):
    k = x2.shape[1] if trans_x2 else x2.shape[0]
    if a.shape[1] != k:
        raise RuntimeError(f"The k axis of 'input' shape {a.shape} and 'x2' shape {x2.shape} are not equal.")
    return matmul_p(a, transpose_p(x2, perm=(1, 0)) if trans_x2 else x2, transpose_a=False, transpose_b=False)


def all_gather_matmul(input, x2, group, world_size, *, bias=None, gather_index=0, gather_output=True, comm_turn=0,
                      trans_input=False, trans_x2=False):
    """(AllGather(input) @ x2, AllGather(input)): the members' `input` (m, k) gathered along axis 0 into
    (m * world_size, k), times `x2` (k, n) (transposed when `trans_x2`). The second output is a shape-(0,) tensor
    when `gather_output` is False.

    Raises:
        TypeError: a non-Tensor input, `group` not a str, `world_size` not an int.
        RuntimeError: inputs that are not 2-D or of different dtypes, k that differ, `world_size` not the group's
            size, or an option MindSpore does not support (bias, gather_index 1, comm_turn, trans_input).
    """
    _fused_args("all_gather_matmul", input, x2, group, world_size, bias, comm_turn, trans_input)
    if gather_index != 0:
        raise RuntimeError(f"For 'all_gather_matmul', the 'gather_index' must be 0, but got {gather_index}.")
    gathered = all_gather_p(input, group=group)
    out = _times(gathered, x2, trans_x2)
    if not gather_output:
        gathered = Tensor(np.zeros((0,), np.float32), dtype=input.dtype)
    return out, gathered


def matmul_reduce_scatter(input, x2, group, world_size, *, reduce_op="sum", bias=None, comm_turn=0,
                          trans_input=False, trans_x2=False):
    """ReduceScatter(input @ x2): the product (m, n) summed over the group, member i keeping the i-th of
    `world_size` blocks of rows.

    Raises:
        TypeError: a non-Tensor input, `group` not a str, `world_size` not an int.
        RuntimeError: as `all_gather_matmul`, and `reduce_op` other than 'sum' or m not a multiple of world_size.
    """
    _fused_args("matmul_reduce_scatter", input, x2, group, world_size, bias, comm_turn, trans_input)
    if reduce_op != "sum":
        raise RuntimeError(f"For 'matmul_reduce_scatter', the 'reduce_op' must be 'sum', but got {reduce_op!r}.")
    if input.shape[0] % world_size:
        raise RuntimeError(f"For 'matmul_reduce_scatter', the rows of 'input' ({input.shape[0]}) must be a multiple "
                           f"of 'world_size' {world_size}.")
    return reduce_scatter_p(_times(input, x2, trans_x2), op="sum", group=group)


def _layout_strategy(layout):
    """The strategy tuple of a called Layout: per dim, the product of the device-matrix axes cutting it."""
    info = layout.to_dict()
    dev = tuple(info["device_matrix"])[::-1]
    out = ()
    for ind in info["tensor_map"]:
        axes = ind if isinstance(ind, tuple) else (ind,)
        n = 1
        for a in axes:
            n *= dev[a] if a != -1 else 1
        out += (n,)
    return out


def reshard(tensor, layout):
    """`tensor`, given the layout `layout` (a `mindspore.parallel.Layout` called with a tensor map) for the parallel
    partitioner: on one device, and outside a parallel run, the tensor itself.

    Raises:
        TypeError: `tensor` is not a Tensor or `layout` not a Layout.
    """
    recording = any(getattr(t, "records_all", False) for t in _state.tapes)
    if not recording and _group_size(GlobalComm.WORLD_COMM_GROUP) == 1:
        return tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Reshard takes in Tensor type as the first input param, but got: {type(tensor)}.")
    if not isinstance(layout, Layout):
        raise TypeError(f"Reshard only support type mindspore.parallel.Layout, but got: {type(layout)}.")
    return Reshard((layout,), (layout,), (_layout_strategy(layout),))(tensor)
