"""mindspore.nn: Cell, layers, losses, optimizers, learning-rate schedules, wrappers."""
from mindseed.nn.cell import Cell, GraphCell  # noqa: F401
from mindseed.nn.layer import *  # noqa: F401,F403
from mindseed.nn.loss import *  # noqa: F401,F403
from mindseed.nn.optim import *  # noqa: F401,F403
from mindseed.nn.wrap import *  # noqa: F401,F403
from mindseed.nn.learning_rate_schedule import *  # noqa: F401,F403
from mindseed.nn.dynamic_lr import *  # noqa: F401,F403
from mindseed.nn.grad import Jvp, Vjp  # noqa: F401
from mindseed.nn import sparse  # noqa: F401
from mindseed.nn.sparse import SparseTensorDenseMatmul, SparseToDense  # noqa: F401
from mindseed.nn import probability  # noqa: F401,E402
from mindseed.nn import utils  # noqa: F401,E402
from mindseed.nn.utils import no_init_parameters  # noqa: F401,E402


def __getattr__(name):
    """Names a higher layer registers here (`mindseed._registration.complete`): loaded with the top level's deferred
    part."""
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.missing(__name__, name)


def __dir__():
    from mindseed._utils import _lazy  # noqa: PLC0415
    return _lazy.listing(__name__)
