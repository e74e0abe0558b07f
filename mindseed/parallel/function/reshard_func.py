"""`mindspore.parallel.function.reshard`: `ops.reshard`, which gives a tensor a `Layout` for the partitioner (the
tensor itself on one device)."""
from mindseed.ops.functional._comm import reshard

__all__ = ["reshard"]
