"""Argument checks shared by the layers, with MindSpore's messages."""
import functools
import numbers

from mindseed._utils.errors import check_type
from mindseed.ops import functional as F


def check_positive_int(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{cls}', the type of '{name}' must be int, but got {type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{cls}', the '{name}' must be a positive int, but got {value}.")
    return int(value)


def check_non_negative_int(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{cls}', the type of '{name}' must be int, but got {type(value).__name__}.")
    if value < 0:
        raise ValueError(f"For '{cls}', the '{name}' must be a non-negative int, but got {value}.")
    return int(value)


def check_bool(cls, name, value):
    return check_type(cls, name, value, bool)


def check_float(cls, name, value):
    return check_type(cls, name, value, float)  # a bool is not a float


def check_string(cls, name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"For '{cls}', the '{name}' must be in {list(choices)}, but got {value}.")
    return value


def tuple_n(cls, name, value, n, allow_zero=False):
    """An int or a tuple of n ints -> a tuple of n ints (positive unless allow_zero)."""
    if isinstance(value, bool):
        raise TypeError(f"For '{cls}', the type of '{name}' must be int or tuple of {n} ints, but got bool.")
    if isinstance(value, numbers.Integral):
        value = (int(value),) * n
    elif isinstance(value, (tuple, list)) and len(value) == n and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
        value = tuple(int(v) for v in value)
    else:
        raise ValueError(f"For '{cls}', the '{name}' must be an int or a tuple of {n} ints, but got {value}.")
    low = 0 if allow_zero else 1
    for v in value:
        if v < low:
            kind = "non-negative" if allow_zero else "positive"
            raise ValueError(f"For '{cls}', the elements of '{name}' must be {kind}, but got {value}.")
    return value


def div_no_nan(x, y):
    """x / y, and 0 where y == 0."""
    zero = F.equal(y, 0)
    safe = F.where(zero, F.ones_like(y), y)
    return F.where(zero, F.zeros_like(F.div(x, safe)), F.div(x, safe))


def layer_primitive(make):
    """A MindSpore layer's primitive attribute (`Conv2d.conv2d`, `LayerNorm.layer_norm`), built from the layer's
    settings on first read: MindSpore layers hold one, and subclasses call it with their own inputs (a
    standardised weight, a transposed input)."""
    return functools.cached_property(make)
