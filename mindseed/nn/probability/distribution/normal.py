"""mindspore.nn.probability.distribution.normal."""
from mindseed.nn.probability.distribution._continuous import Normal

__all__ = ["Normal"]
