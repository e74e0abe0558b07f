"""mindspore.ops.function.random_func: random sampling ops (same objects as `mindspore.ops`)."""
from mindseed.ops.functional._random import *  # noqa: F401,F403
from mindseed.ops.functional._random import __all__ as _family

__all__ = list(_family)
