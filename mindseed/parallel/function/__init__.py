"""MindSpore's `mindspore.parallel.function`: `reshard`."""
from mindseed.parallel.function import reshard_func  # noqa: F401  (MindSpore binds it)
from mindseed.parallel.function.reshard_func import reshard

__all__ = ["reshard"]
