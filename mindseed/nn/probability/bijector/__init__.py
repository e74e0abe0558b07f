"""mindspore.nn.probability.bijector: Bijector, Exp, PowerTransform, ScalarAffine, Softplus, GumbelCDF, Invert."""
from mindseed.nn.probability.bijector.bijector import (Bijector, Exp, GumbelCDF, Invert, PowerTransform,
                                                       ScalarAffine, Softplus)
from mindseed.nn.probability.bijector import (bijector, exp, gumbel_cdf, invert, power_transform,  # noqa: F401
                                              scalar_affine, softplus)

__all__ = ["Bijector", "Exp", "PowerTransform", "ScalarAffine", "Softplus", "GumbelCDF", "Invert"]
