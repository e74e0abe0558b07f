"""mindspore.nn.probability.bijector.scalar_affine."""
from mindseed.nn.probability.bijector.bijector import ScalarAffine

__all__ = ["ScalarAffine"]
