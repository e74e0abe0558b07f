"""mindspore.nn.probability.distribution.exponential."""
from mindseed.nn.probability.distribution._continuous import Exponential

__all__ = ["Exponential"]
