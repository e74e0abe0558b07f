"""MindSpore's Primitive-class API (`ops.Add()`, `ops.MatMul(transpose_b=True)`), a view over the registry."""
from mindseed.ops.operations._base import *  # noqa: F401,F403
from mindseed.ops.operations._core import *  # noqa: F401,F403
from mindseed.ops.operations._math import *  # noqa: F401,F403
from mindseed.ops.operations._array import *  # noqa: F401,F403
from mindseed.ops.operations._linalg import *  # noqa: F401,F403
from mindseed.ops.operations._random import *  # noqa: F401,F403
from mindseed.ops.operations._nn import *  # noqa: F401,F403
from mindseed.ops.operations._conv import *  # noqa: F401,F403
from mindseed.ops.operations._optim import *  # noqa: F401,F403
from mindseed.ops.operations._state import *  # noqa: F401,F403
from mindseed.ops.operations._custom import *  # noqa: F401,F403
from mindseed.ops.operations._composite import *  # noqa: F401,F403
from mindseed.ops.operations.comm_ops import *  # noqa: F401,F403
from mindseed.ops.operations._sequence import *  # noqa: F401,F403
from mindseed.ops.operations._embedding import *  # noqa: F401,F403
from mindseed.ops.operations._inplace import *  # noqa: F401,F403
from mindseed.ops.operations._wrappers import *  # noqa: F401,F403
from mindseed.ops.operations._optim_sparse import *  # noqa: F401,F403
from mindseed.ops.operations._more import *  # noqa: F401,F403
from mindseed.ops.operations._cache_fused import *  # noqa: F401,F403
from mindseed.ops.operations._rnn import *  # noqa: F401,F403
from mindseed.ops.operations._prims_more import *  # noqa: F401,F403
from mindseed.ops.operations._patches import *  # noqa: F401,F403
from mindseed.ops.operations._runtime_prims import *  # noqa: F401,F403
from mindseed.ops.operations._mint_prims import *  # noqa: F401,F403
from mindseed.ops.operations._moe_prims import *  # noqa: F401,F403
from mindseed.ops.operations._image_prims import *  # noqa: F401,F403
from mindseed.ops.operations._custom_builder import *  # noqa: F401,F403
from mindseed.ops.operations.rl_ops import *  # noqa: F401,F403
from mindseed.ops.operations import _named_kernels  # noqa: F401 -- registers into _base.NAMED_KERNELS
from mindseed.ops import _api

globals().update(_api.classes())   # the thin classes, generated from the primitives' rows
# MindSpore's module layout (`from mindspore.ops.operations.nn_ops import Conv2D`): the same classes, by module
from mindseed.ops.operations import (_csr_ops, _embedding_cache_ops, _inner_ops, _sequence_ops,  # noqa: F401,E402
                                     array_ops, custom_ops, debug_ops, image_ops, inner_ops, linalg_ops,
                                     manually_defined, math_ops, nn_ops, other_ops, random_ops, sparse_ops,
                                     spectral_ops)
