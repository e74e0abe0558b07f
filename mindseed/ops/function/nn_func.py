"""mindspore.ops.function.nn_func: activations, losses, normalization, convolution, pooling and resampling (same
objects as `mindspore.ops`)."""
from mindseed.ops.functional._nn import *  # noqa: F401,F403
from mindseed.ops.functional._nn import __all__ as _nn
from mindseed.ops.functional._conv import *  # noqa: F401,F403
from mindseed.ops.functional._conv import __all__ as _conv
from mindseed.ops.functional._core import relu  # noqa: F401

from mindseed.common import dtype as _mstype
from mindseed.common.generator import default_generator as _default_generator
from mindseed.common.tensor import Tensor as _Tensor
from mindseed.ops.operations._nn import DropoutExt as _DropoutExt

__all__ = list(_nn) + list(_conv) + ["relu"]

_GENERATOR_STEP = _Tensor(12, _mstype.int64)  # offsets one call takes from the default generator (MindSpore's)


def dropout_ext(input, p=0.5, training=True, inplace=False):
    """Dropout drawing its mask from the default generator's (seed, offset) counter (`mint.nn.functional.dropout`'s
    kernel): each element zeroed with probability `p`, the rest scaled by 1 / (1 - p); `input` itself when not
    training.

    >>> import mindseed as ms
    >>> ms.ops.function.nn_func.dropout_ext(ms.ops.ones((2, 2)), p=0.5).shape
    (2, 2)
    """
    seed, offset = _default_generator._step(_GENERATOR_STEP)  # noqa: SLF001 -- MindSpore's counter interface
    if not training or p == 0:
        return input
    out = _DropoutExt()(input, p, seed, offset)[0]
    if inplace:
        input.assign_value(out)
        return input
    return out
