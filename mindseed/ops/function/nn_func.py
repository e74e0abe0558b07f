"""mindspore.ops.function.nn_func: activations, losses, normalization, convolution, pooling and resampling (same
objects as `mindspore.ops`)."""
from mindseed._utils import _lazy
from mindseed.ops.functional._nn import *  # noqa: F401,F403
from mindseed.ops.functional._nn import __all__ as _nn
from mindseed.ops.functional._conv import *  # noqa: F401,F403
from mindseed.ops.functional._conv import __all__ as _conv
from mindseed.ops.functional._core import relu  # noqa: F401
from mindseed.ops.functional._resample import interpolate as _interpolate

from mindseed.common import dtype as _mstype
from mindseed.common.generator import default_generator as _default_generator
from mindseed.common.tensor import Tensor as _Tensor
from mindseed.ops.operations._nn import DropoutExt as _DropoutExt

__all__ = list(_nn) + list(_conv) + ["relu"]

_GENERATOR_STEP = 12  # offsets one call takes from the default generator (MindSpore's)


def dropout_ext(input, p=0.5, training=True, inplace=False):
    """Dropout drawing its mask from the default generator's (seed, offset) counter (`mint.nn.functional.dropout`'s
    kernel): each element zeroed with probability `p`, the rest scaled by 1 / (1 - p); `input` itself when not
    training.

    >>> import mindseed as ms
    >>> ms.ops.function.nn_func.dropout_ext(ms.ops.ones((2, 2)), p=0.5).shape
    (2, 2)
    """
    seed, offset = _default_generator._step(_Tensor(_GENERATOR_STEP, _mstype.int64))  # noqa: SLF001 -- MindSpore's counter interface
    if not training or p == 0:
        return input
    out = _DropoutExt()(input, p, seed, offset)[0]
    if inplace:
        input.assign_value(out)
        return input
    return out


def interpolate_ext(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                    recompute_scale_factor=None):
    """`mint.nn.functional.interpolate`: `ops.interpolate`, with `scale_factor` accepted in every mode (the output
    size is floor(input size * factor), as `recompute_scale_factor=True` computes it).

    >>> import mindseed as ms
    >>> ms.ops.function.nn_func.interpolate_ext(ms.ops.ones((1, 1, 2)), scale_factor=(2.0,)).shape
    (1, 1, 4)
    """
    factors = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,)
    if scale_factor is not None and not all(isinstance(f, float) for f in factors):
        raise TypeError(f"For 'interpolate', the 'scale_factor' must be a float or a tuple/list of floats, but got "
                        f"{scale_factor!r}.")
    if scale_factor is not None and size is None and recompute_scale_factor is None:
        recompute_scale_factor = True
    return _interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def __getattr__(name):
    """The internal names of mint's functions (`ops.auto_generate._ext.ALIASES`) come with the top level's deferred
    part."""
    return _lazy.missing(__name__, name)


def __dir__():
    return _lazy.listing(__name__)
