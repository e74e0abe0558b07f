"""mindspore.nn.probability.distribution.gumbel."""
from mindseed.nn.probability.distribution._continuous import Gumbel

__all__ = ["Gumbel"]
