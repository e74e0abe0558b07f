"""mindspore.nn.probability.bijector.softplus."""
from mindseed.nn.probability.bijector.bijector import Softplus

__all__ = ["Softplus"]
