"""mindspore.nn.probability.distribution.laplace."""
from mindseed.nn.probability.distribution._continuous import Laplace

__all__ = ["Laplace"]
