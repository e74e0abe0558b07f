"""mindspore.ops.auto_generate.gen_ops_def: the functional ops (the same functions as `mindspore.ops`) and, as in
MindSpore, the Primitive classes of `gen_ops_prim`."""
from mindseed.ops.auto_generate.gen_ops_prim import *  # noqa: F401,F403
from mindseed.ops.auto_generate.gen_ops_prim import __all__ as _prims
from mindseed.ops.function import *  # noqa: F401,F403
from mindseed.ops.function import __all__ as _functions

__all__ = sorted(set(_prims) | set(_functions))
