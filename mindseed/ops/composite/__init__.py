"""mindspore.ops.composite: the composite operators (MultitypeFuncGraph, HyperMap, Map, GradOperation) and the
functional helpers MindSpore re-exports here.

Every name is the same object as in `mindspore.ops`. `GradOperation` lives in autodiff (a higher layer):
`mindseed._registration` places it here, as it does in `ops`.
"""
from mindseed.ops.operations._composite import HyperMap, Map, MultitypeFuncGraph  # noqa: F401
from mindseed.ops.functional import (batch_dot, clip_by_global_norm, clip_by_value, count_nonzero,  # noqa: F401
                                     cummin, dot, gamma, laplace, matmul, mm, multinomial, normal, ones_like,
                                     poisson, repeat_elements, repeat_interleave, sequence_mask, tensor_dot,
                                     uniform, vecdot, zeros_like)
from mindseed.ops.functional._inner import (add_flags, augassign_add, augassign_div,  # noqa: F401
                                            augassign_floordiv, augassign_mod, augassign_mul, augassign_sub,
                                            env_get, hyper_add, iter_converter, ms_hasnext, ms_next, tail,
                                            zip_operation)

__all__ = ["Map", "MultitypeFuncGraph", "GradOperation", "HyperMap", "zeros_like", "ones_like", "normal", "laplace",
           "uniform", "gamma", "poisson", "multinomial", "cummin", "repeat_elements", "repeat_interleave",
           "sequence_mask", "matmul", "mm", "count_nonzero", "tensor_dot", "vecdot", "dot", "batch_dot",
           "clip_by_value", "clip_by_global_norm", "add_flags", "env_get", "tail"]
