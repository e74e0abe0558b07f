"""mindspore.nn.probability.distribution.uniform."""
from mindseed.nn.probability.distribution._continuous import Uniform

__all__ = ["Uniform"]
