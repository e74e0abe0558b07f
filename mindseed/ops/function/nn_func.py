"""mindspore.ops.function.nn_func: activations, losses, normalization, convolution, pooling and resampling (same
objects as `mindspore.ops`)."""
from mindseed.ops.functional._nn import *  # noqa: F401,F403
from mindseed.ops.functional._nn import __all__ as _nn
from mindseed.ops.functional._conv import *  # noqa: F401,F403
from mindseed.ops.functional._conv import __all__ as _conv
from mindseed.ops.functional._core import relu  # noqa: F401

__all__ = list(_nn) + list(_conv) + ["relu"]
