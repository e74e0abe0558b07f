"""MindSpore's `mindspore.parallel._parallel_serialization` helpers for distributed checkpoints."""

__all__ = ["_get_param_list_when_first_dim_sharded"]


def _get_param_list_when_first_dim_sharded(device_arrangement, first_dim_sharded_device_index, rank):
    """The ranks whose slices the optimizer-parallel shard of `rank` covers, when a parameter's first dimension is
    already split by another parallel method along device axis `first_dim_sharded_device_index` (counted from the
    last axis of `device_arrangement`, as tensor maps count). Split along the outermost axis, the ranks form
    contiguous blocks of `device_num / device_arrangement[0]` and `rank` gets its own block; any other axis leaves
    every rank in the list."""
    total = 1
    for n in device_arrangement:
        total *= n
    if first_dim_sharded_device_index != len(device_arrangement) - 1:
        return list(range(total))
    block = total // device_arrangement[0]
    start = rank - rank % block
    return list(range(start, start + block))
