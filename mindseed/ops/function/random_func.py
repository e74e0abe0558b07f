"""mindspore.ops.function.random_func: random sampling ops (same objects as `mindspore.ops`)."""
from mindseed._utils import _lazy
from mindseed.ops.functional._random import *  # noqa: F401,F403
from mindseed.common import seed as _seed_mod
from mindseed.ops.functional._random import __all__ as _family

__all__ = list(_family)


def _get_seed(op_seed, kernel_name):
    """The graph-level seed pair of a random kernel (`common.seed._get_graph_seed`), as MindSpore names it here."""
    return _seed_mod._get_graph_seed(op_seed, kernel_name)


def _set_prim_op_user_data(prim, key, value):
    """Set a primitive attribute and return the primitive (MindSpore's helper for random ops' `random_cache`)."""
    prim.add_prim_attr(key, value)
    return prim


def __getattr__(name):
    """The internal names of mint's functions (`ops.auto_generate._ext.ALIASES`) come with the top level's deferred
    part."""
    return _lazy.missing(__name__, name)


def __dir__():
    return _lazy.listing(__name__)
