"""mindspore.nn.probability.bijector.power_transform."""
from mindseed.nn.probability.bijector.bijector import PowerTransform

__all__ = ["PowerTransform"]
