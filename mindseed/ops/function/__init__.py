"""mindspore.ops.function: the functional ops, by MindSpore's module layout (array_func, math_func, nn_func, ...).

Every name is the same object as in `mindspore.ops` / `mindspore.ops.functional` (this package holds no
implementations). The autodiff transforms (`grad`, `vjp`, `vmap`, ...) live in a higher layer:
`mindseed._registration` places them in `function`, `function.grad` and `function.grad.grad_func`.
"""
from mindseed._utils import _lazy
from mindseed.ops.function import (array_func, clip_func, fft_func, grad, linalg_func, math_func,  # noqa: F401
                                   nn_func, other_func, random_func, sparse_func, sparse_unary_func)
from mindseed.ops.function.array_func import *  # noqa: F401,F403
from mindseed.ops.function.math_func import *  # noqa: F401,F403
from mindseed.ops.function.linalg_func import *  # noqa: F401,F403
from mindseed.ops.function.nn_func import *  # noqa: F401,F403
from mindseed.ops.function.random_func import *  # noqa: F401,F403
from mindseed.ops.function.clip_func import *  # noqa: F401,F403
from mindseed.ops.function.other_func import *  # noqa: F401,F403
from mindseed.ops.function.fft_func import *  # noqa: F401,F403
from mindseed.ops.function.sparse_func import *  # noqa: F401,F403
from mindseed.ops.function.sparse_unary_func import *  # noqa: F401,F403

__all__ = sorted(set(array_func.__all__ + math_func.__all__ + linalg_func.__all__ + nn_func.__all__
                     + random_func.__all__ + clip_func.__all__ + other_func.__all__ + fft_func.__all__
                     + sparse_func.__all__ + sparse_unary_func.__all__))


def __getattr__(name):
    """The internal names of mint's functions (`ops.auto_generate._ext.ALIASES`) come with the top level's deferred
    part."""
    return _lazy.missing(__name__, name)


def __dir__():
    return _lazy.listing(__name__)
