"""mindspore.nn.probability.bijector.gumbel_cdf."""
from mindseed.nn.probability.bijector.bijector import GumbelCDF

__all__ = ["GumbelCDF"]
