"""mindspore.ops.auto_generate: the operators MindSpore generates from its op definitions — the Primitive classes
(`gen_ops_prim`) and the functional ops over them (`gen_ops_def`).

mindseed declares each primitive once in its registry and builds both APIs from it, so these modules hold the same
objects as `mindspore.ops.operations` and `mindspore.ops`, under MindSpore's module names.
"""
from mindseed.ops.auto_generate import gen_ops_def, gen_ops_prim  # noqa: F401
from mindseed.ops.auto_generate.gen_ops_def import *  # noqa: F401,F403
from mindseed.ops.auto_generate.gen_ops_prim import *  # noqa: F401,F403

__all__ = sorted(set(gen_ops_def.__all__) | set(gen_ops_prim.__all__))


def __getattr__(name):
    # the operator instances `<name>_op` and the `<name>_ext` functions, made on first use (gen_ops_def)
    return gen_ops_def.__getattr__(name)
