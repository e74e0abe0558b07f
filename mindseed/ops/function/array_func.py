"""mindspore.ops.function.array_func: creation, shape, indexing and scatter/gather ops (same objects as
`mindspore.ops`)."""
from mindseed.ops.functional._array import *  # noqa: F401,F403
from mindseed.ops.functional._array import __all__ as _family
from mindseed.ops.functional._array import _new_ones, _new_zeros
from mindseed.ops.functional import _math_reduce as _reduce
from mindseed.ops.functional._core import (broadcast_to, cast, cat, concat, fill, full, full_like,  # noqa: F401
                                           ones, ones_like, permute, reshape, stack, tensor_getitem,
                                           tensor_setitem, transpose, where, zeros, zeros_like)

__all__ = list(_family) + ["broadcast_to", "cast", "cat", "concat", "fill", "full", "full_like", "ones", "ones_like",
                           "permute", "reshape", "stack", "tensor_getitem", "tensor_setitem", "transpose", "where",
                           "zeros", "zeros_like", "new_zeros", "new_ones"]
# MindSpore's array_func also holds max_ext/min_ext (mint.max/min's form), outside its __all__, as here


def new_zeros(input, size, dtype=None):
    """A Tensor of zeros of shape `size` (an int or a tuple), with `input`'s dtype unless `dtype` is given
    (`Tensor.new_zeros` as a function)."""
    return _new_zeros(input, size, dtype=dtype)


def new_ones(input, size, dtype=None):
    """A Tensor of ones of shape `size` (an int or a tuple), with `input`'s dtype unless `dtype` is given
    (`Tensor.new_ones` as a function)."""
    return _new_ones(input, size, dtype=dtype)


def _extreme_ext(op, input, dim, keepdim):
    if dim is None:
        if keepdim is not False:
            raise ValueError(f"For '{op}', the `keepdim` must be False when the `dim` is None, but got {keepdim}.")
        return (_reduce.amax if op == "max" else _reduce.amin)(input)
    return (_reduce.max if op == "max" else _reduce.min)(input, dim, keepdim)


def max_ext(input, dim=None, keepdim=False):
    """The maximum of all elements (`dim` None), else `(values, indices)` along `dim` (`mint.max`'s form)."""
    return _extreme_ext("max", input, dim, keepdim)


def min_ext(input, dim=None, keepdim=False):
    """The minimum of all elements (`dim` None), else `(values, indices)` along `dim` (`mint.min`'s form)."""
    return _extreme_ext("min", input, dim, keepdim)


# the operator instances MindSpore's array_func holds under snake-case names (outside its __all__)
_INSTANCES = {"arg_max_with_value_": "ArgMaxWithValue", "arg_min_with_value_": "ArgMinWithValue"}


def __getattr__(name):
    """The operator instances of `_INSTANCES`; MindSpore's `<name>_ext` functions: mint's forms
    (`ops.auto_generate._ext`)."""
    if name in _INSTANCES:
        from mindseed.ops import operations  # noqa: PLC0415 -- operations imports this module's package
        globals()[name] = op = getattr(operations, _INSTANCES[name])()
        return op
    from mindseed.ops.auto_generate import _ext  # noqa: PLC0415
    globals()[name] = fn = _ext.lookup(__name__, name)
    return fn
