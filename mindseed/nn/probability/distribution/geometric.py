"""mindspore.nn.probability.distribution.geometric."""
from mindseed.nn.probability.distribution._discrete import Geometric

__all__ = ["Geometric"]
