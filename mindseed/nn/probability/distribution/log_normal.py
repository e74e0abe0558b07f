"""mindspore.nn.probability.distribution.log_normal."""
from mindseed.nn.probability.distribution._continuous import LogNormal

__all__ = ["LogNormal"]
