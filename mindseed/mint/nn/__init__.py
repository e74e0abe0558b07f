"""mindspore.mint.nn: torch-style layers and losses (`layer`), and `functional` (also as `F`)."""
from mindseed.mint.nn import functional  # noqa: F401
from mindseed.mint.nn import layer  # noqa: F401
from mindseed.mint.nn.layer import *  # noqa: F401,F403

F = functional
__all__ = list(layer.__all__)
