"""mindspore.ops.function.random_func: random sampling ops (same objects as `mindspore.ops`)."""
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
