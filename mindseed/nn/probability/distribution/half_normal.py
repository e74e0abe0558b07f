"""mindspore.nn.probability.distribution.half_normal."""
from mindseed.nn.probability.distribution._continuous import HalfNormal

__all__ = ["HalfNormal"]
