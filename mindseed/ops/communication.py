"""`mindspore.ops.communication`: the torch-style collectives of MindSpore's `ops.function.comm_func`.

They are the functions of `mint.distributed` (a higher layer than ops); `mindseed._registration` places them here
(and the same objects on `ops`, except `gather` and `scatter`, whose names `ops` gives to the indexing ops).
"""
NAMES = ("TCPStore", "init_process_group", "destroy_process_group", "get_rank", "get_world_size", "new_group",
           "get_backend", "get_global_rank", "get_process_group_ranks", "get_group_rank", "all_reduce",
           "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_to_all", "all_to_all_single",
           "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "isend", "irecv", "send", "recv", "gather",
           "scatter", "all_gather", "reduce_scatter", "barrier", "broadcast", "reduce", "P2POp", "batch_isend_irecv",
           "all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list", "send_object_list",
           "recv_object_list", "is_available", "is_initialized", "set_comm_ops_inplace", "all_to_all_v_c",
           "gather_into_tensor", "scatter_tensor")
__all__ = list(NAMES)   # the functions are set by `mindseed._registration`


def __getattr__(name):
    """Names a higher layer registers here (`mindseed._registration.complete`): loaded with the top level's deferred
    part."""
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.missing(__name__, name)


def __dir__():
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.listing(__name__)
