"""mindspore.ops functional API, by family (each module owns its names and its Tensor methods)."""
from mindseed._utils import _lazy
from mindseed.ops.functional import _array, _conv, _linalg, _math, _nn, _random
from mindseed.ops.functional._core import *  # noqa: F401,F403
from mindseed.ops.functional._math import *  # noqa: F401,F403
from mindseed.ops.functional._array import *  # noqa: F401,F403
from mindseed.ops.functional._linalg import *  # noqa: F401,F403
from mindseed.ops.functional._random import *  # noqa: F401,F403
from mindseed.ops.functional._nn import *  # noqa: F401,F403
from mindseed.ops.functional._conv import *  # noqa: F401,F403
from mindseed.ops.functional._misc import *  # noqa: F401,F403
from mindseed.ops import _api, _prims

_prims.load_all()
globals().update(_api.FUNCTIONS)   # the thin functions, generated from the primitives' rows
from mindseed.ops.functional._sparse import *  # noqa: F401,F403,E402
from mindseed.ops.functional._inner import *  # noqa: F401,F403,E402
from mindseed.ops.functional._boxes import *  # noqa: F401,F403,E402
from mindseed.ops.functional._rope import *  # noqa: F401,F403,E402
from mindseed.ops.functional._attention import *  # noqa: F401,F403,E402
from mindseed.ops.functional._nsa import *  # noqa: F401,F403,E402
from mindseed.ops.functional._comm import *  # noqa: F401,F403,E402
from mindseed.ops.functional._runtime import *  # noqa: F401,F403,E402
from mindseed.ops.functional._deform import *  # noqa: F401,F403,E402
from mindseed.ops.functional import _tensor_more  # noqa: E402

# Tensor methods declared by each family (name -> function(self, ...)); attached by mindseed.ops
TENSOR_METHOD_TABLES = [_api.METHODS] + [m.TENSOR_METHODS for m in (_math, _array, _linalg, _random, _nn, _conv,
                                                                     _tensor_more)]


def __getattr__(name):
    """The internal names of mint's functions (`ops.auto_generate._ext.ALIASES`) come with the top level's deferred
    part."""
    return _lazy.missing(__name__, name)


def __dir__():
    return _lazy.listing(__name__)
