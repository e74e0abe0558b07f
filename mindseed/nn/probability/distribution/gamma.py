"""mindspore.nn.probability.distribution.gamma."""
from mindseed.nn.probability.distribution._continuous import Gamma

__all__ = ["Gamma"]
