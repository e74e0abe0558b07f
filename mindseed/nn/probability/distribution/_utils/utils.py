"""Argument checks of MindSpore's distributions: value casts and range checks of parameters, the common dtype of a
distribution's parameters, and the CheckTuple / CheckTensor primitives."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.ops.operations._base import Primitive

__all__ = ["cast_to_tensor", "check_greater_equal_zero", "check_greater_zero", "check_greater", "check_prob",
           "set_param_type", "CheckTuple", "CheckTensor"]


def cast_to_tensor(t, hint_type=mstype.float32):
    """`t` (a number, list, ndarray or Tensor) as a Tensor of `hint_type`; a Parameter as it is.

    Raises:
        ValueError: `t` is None.
        TypeError: `t` a bool or of another type.
    """
    if t is None:
        raise ValueError("Input cannot be None in cast_to_tensor")
    if isinstance(t, Parameter):
        return t
    if isinstance(t, bool):
        raise TypeError("Input cannot be Type Bool")
    if isinstance(t, (Tensor, np.ndarray, list, int, float)):
        return Tensor(t, dtype=hint_type)
    raise TypeError(f"Unable to convert input of type {type(t)} to a Tensor of type {hint_type}")


def _values(value):
    """The array of a Tensor (a Parameter's data); None for a Parameter without data yet."""
    if isinstance(value, Parameter):
        value = value.data
        if not isinstance(value, Tensor):
            return None
    return value.asnumpy()


def check_greater_equal_zero(value, name):
    """ValueError unless every element of `value` is >= 0."""
    arr = _values(value)
    if arr is not None and (arr < 0).any():
        raise ValueError(f"{name} must be greater than or equal to zero.")


def check_greater_zero(value, name):
    """ValueError unless every element of `value` is > 0."""
    if value is None:
        raise ValueError("input value cannot be None in check_greater_zero")
    arr = _values(value)
    if arr is not None and not (arr > 0).all():
        raise ValueError(f"{name} must be greater than zero.")


def check_greater(a, b, name_a, name_b):
    """ValueError unless a < b elementwise (not checked when either is a Parameter)."""
    if a is None or b is None:
        raise ValueError("input value cannot be None in check_greater")
    if isinstance(a, Parameter) or isinstance(b, Parameter):
        return
    if not np.less(a.asnumpy(), b.asnumpy()).all():
        raise ValueError(f"{name_a} must be less than {name_b}")


def check_prob(p):
    """ValueError unless 0 < p < 1 elementwise."""
    if p is None:
        raise ValueError("input value cannot be None in check_greater_zero")
    arr = _values(p)
    if arr is None:
        return
    if not (arr > 0).all():
        raise ValueError("Probabilities must be greater than zero")
    if not (arr < 1).all():
        raise ValueError("Probabilities must be less than one")


_INT_TYPES = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8, mstype.uint16, mstype.uint32,
              mstype.uint64)


def set_param_type(args, hint_type):
    """The dtype a distribution computes in, from its parameters `args` ({name: value}): the one dtype of the Tensor
    and ndarray values (float32 for an integer or float64 one), else `hint_type` (float32 for an integer or None).

    Raises:
        TypeError: the Tensors / ndarrays have different dtypes.
    """
    if hint_type is None or hint_type in _INT_TYPES:
        hint_type = mstype.float32
    common = None
    for name, arg in args.items():
        if not hasattr(arg, "dtype"):
            continue
        cur = mstype.pytype_to_dtype(arg.dtype) if isinstance(arg, np.ndarray) else arg.dtype
        if common is None:
            common = cur
        elif cur != common:
            raise TypeError(f"{name} should have the same dtype as other arguments.")
    if common in _INT_TYPES or common == mstype.float64:
        return mstype.float32
    return hint_type if common is None else common


class CheckTuple(Primitive):
    """`CheckTuple()(x, name)`: `x` when it is a tuple, else TypeError naming `name`."""

    def __init__(self):
        super().__init__("CheckTuple")
        self.init_prim_io_names(inputs=["x", "name"], outputs=["dummy_output"])

    def __call__(self, x, name):
        if isinstance(x, tuple):
            return x
        raise TypeError(f"For {name}, input type must be a tuple.")


class CheckTensor(Primitive):
    """`CheckTensor()(x, name)`: `x` when it is a Tensor (or Parameter) or None, else TypeError naming `name`."""

    def __init__(self):
        super().__init__("CheckTensor")
        self.init_prim_io_names(inputs=["x", "name"], outputs=["dummy_output"])

    def __call__(self, x, name):
        if x is None or isinstance(x, Tensor):
            return x
        raise TypeError(f"For {name}, input type must be a Tensor or Parameter.")
