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
from mindseed.ops import _api

globals().update(_api.classes())   # the thin classes, generated from the primitives' rows
