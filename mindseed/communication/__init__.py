"""mindspore.communication: joining a world of processes and the groups of collective communication.

torch.distributed is the engine (gloo on CPU, NCCL on GPU); see `management` for the launcher environment
`init()` reads.
"""
from mindseed.communication import comm_func, management  # noqa: F401
from mindseed.communication.management import (HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP,  # noqa: F401
                                               NCCL_WORLD_COMM_GROUP, GlobalComm, create_group, destroy_group,
                                               get_comm_name, get_group_rank_from_world_rank, get_group_size,
                                               get_local_rank, get_local_rank_size, get_process_group_ranks,
                                               get_rank, get_world_rank_from_group_rank, init, release)

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_group_size", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank", "create_group", "get_comm_name", "HCCL_WORLD_COMM_GROUP",
           "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP", "get_local_rank", "get_local_rank_size",
           "destroy_group", "get_process_group_ranks"]
