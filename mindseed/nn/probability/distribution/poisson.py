"""mindspore.nn.probability.distribution.poisson."""
from mindseed.nn.probability.distribution._discrete import Poisson

__all__ = ["Poisson"]
