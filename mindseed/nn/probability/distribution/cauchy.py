"""mindspore.nn.probability.distribution.cauchy."""
from mindseed.nn.probability.distribution._continuous import Cauchy

__all__ = ["Cauchy"]
