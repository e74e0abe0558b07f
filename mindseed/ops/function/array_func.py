"""mindspore.ops.function.array_func: creation, shape, indexing and scatter/gather ops (same objects as
`mindspore.ops`)."""
from mindseed.ops.functional._array import *  # noqa: F401,F403
from mindseed.ops.functional._array import __all__ as _family
from mindseed.ops.functional._core import (broadcast_to, cast, cat, concat, fill, full, full_like,  # noqa: F401
                                           ones, ones_like, permute, reshape, stack, tensor_getitem,
                                           tensor_setitem, transpose, where, zeros, zeros_like)

__all__ = list(_family) + ["broadcast_to", "cast", "cat", "concat", "fill", "full", "full_like", "ones", "ones_like",
                           "permute", "reshape", "stack", "tensor_getitem", "tensor_setitem", "transpose", "where",
                           "zeros", "zeros_like"]
