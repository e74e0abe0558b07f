"""The collectives MindSpore's `ops` namespace has beside mint.distributed's (mindspore.ops.function.comm_func):
gather_into_tensor, scatter_tensor, all_to_all_v_c, with mint's conventions (results written into the given
output tensors, world ranks, `group` None for the world, a handle with `async_op`)."""
from mindseed.communication import comm_func as _cf
from mindseed.mint.distributed import distributed as _d

__all__ = ["gather_into_tensor", "scatter_tensor", "all_to_all_v_c"]


def gather_into_tensor(output_tensor, input_tensor, dst=0, group=None, async_op=False):
    """On world rank `dst`: output_tensor := the members' input tensors concatenated along axis 0."""
    group = _d._group("gather_into_tensor", group)
    _d._tensor("gather_into_tensor", "output_tensor", output_tensor)
    out = _cf.gather_into_tensor(_d._tensor("gather_into_tensor", "input_tensor", input_tensor), dst, group)
    if _d._m.get_rank() == dst:
        _d._write(output_tensor, out)
    return _d._handle(async_op)


def scatter_tensor(output_tensor, input_tensor, src=0, group=None, async_op=False):
    """output_tensor := my block (along axis 0) of world rank `src`'s input tensor, cut in group-size parts."""
    group = _d._group("scatter_tensor", group)
    _d._tensor("scatter_tensor", "output_tensor", output_tensor)
    _d._write(output_tensor, _cf.scatter_tensor(_d._tensor("scatter_tensor", "input_tensor", input_tensor), src,
                                                group))
    return _d._handle(async_op)


def all_to_all_v_c(output, input, send_count_matrix, group=None, async_op=False):
    """send_count_matrix[i * n + j] rows go from member i to member j; `output` := the rows received."""
    return _cf.all_to_all_v_c(output, input, send_count_matrix, _d._group("all_to_all_v_c", group), async_op)


gather_into_tensor = _d._in_place_mode("gather_into_tensor", gather_into_tensor)
scatter_tensor = _d._in_place_mode("scatter_tensor", scatter_tensor)
all_to_all_v_c = _d._in_place_mode("all_to_all_v_c", all_to_all_v_c)
