"""nn layers."""
from mindseed.nn.layer.container import *  # noqa: F401,F403
from mindseed.nn.layer.activation import *  # noqa: F401,F403
from mindseed.nn.layer.basic import *  # noqa: F401,F403
from mindseed.nn.layer.conv import *  # noqa: F401,F403
from mindseed.nn.layer.normalization import *  # noqa: F401,F403
from mindseed.nn.layer.pooling import *  # noqa: F401,F403
from mindseed.nn.layer.padding import *  # noqa: F401,F403
from mindseed.nn.layer.embedding import *  # noqa: F401,F403
from mindseed.nn.layer.rnns import *  # noqa: F401,F403
from mindseed.nn.layer.transformer import *  # noqa: F401,F403
from mindseed.nn.layer.image import *  # noqa: F401,F403
from mindseed.nn.layer.math import *  # noqa: F401,F403
from mindseed.nn.layer.combined import *  # noqa: F401,F403
from mindseed.nn.layer.thor_layer import *  # noqa: F401,F403
