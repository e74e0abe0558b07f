"""mindspore.nn.probability.distribution.beta."""
from mindseed.nn.probability.distribution._continuous import Beta

__all__ = ["Beta"]
