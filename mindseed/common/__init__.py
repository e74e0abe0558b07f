"""Data types, Tensor, Parameter, initializers, seed and context."""
from mindseed.common import dtype  # noqa: F401
from mindseed.common.dtype import *  # noqa: F401,F403
from mindseed.common.parameter import Parameter, ParameterTuple  # noqa: F401
from mindseed.common.seed import get_seed, set_seed  # noqa: F401
from mindseed.common.tensor import COOTensor, CSRTensor, RowTensor, Tensor  # noqa: F401
from mindseed.common import _stub_tensor  # noqa: F401,E402  (`mindspore.common._stub_tensor.StubTensor`, read as an attribute)


def __getattr__(name):
    """Names a higher layer registers here (`mindseed._registration.complete`): loaded with the top level's deferred
    part."""
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.missing(__name__, name)


def __dir__():
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.listing(__name__)
