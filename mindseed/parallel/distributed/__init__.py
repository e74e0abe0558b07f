"""MindSpore's `mindspore.parallel.distributed`: `DistributedDataParallel`."""
from mindseed.parallel.distributed.distributed_data_parallel import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
