"""mindspore.nn.probability.distribution.bernoulli."""
from mindseed.nn.probability.distribution._discrete import Bernoulli

__all__ = ["Bernoulli"]
