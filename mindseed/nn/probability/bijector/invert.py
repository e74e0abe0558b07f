"""mindspore.nn.probability.bijector.invert."""
from mindseed.nn.probability.bijector.bijector import Invert

__all__ = ["Invert"]
