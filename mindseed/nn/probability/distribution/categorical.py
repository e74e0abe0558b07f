"""mindspore.nn.probability.distribution.categorical."""
from mindseed.nn.probability.distribution._discrete import Categorical

__all__ = ["Categorical"]
