"""mindspore.nn.probability.distribution.logistic."""
from mindseed.nn.probability.distribution._continuous import Logistic

__all__ = ["Logistic"]
