"""mindspore.nn.probability.bijector.exp."""
from mindseed.nn.probability.bijector.bijector import Exp

__all__ = ["Exp"]
