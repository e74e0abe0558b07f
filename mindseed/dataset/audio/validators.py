"""Argument checks shared by the `mindspore.dataset.audio` transforms (`mindspore.dataset.audio.validators`), in
MindSpore's words (`Argument x with value v is not of type [...]`, `Input x is not within the required interval of
[a, b].`), after the op's name."""
from mindseed.dataset._validate import FLOAT_MAX_INTEGER, INT32_MAX
from mindseed.dataset._validate import check_range as _interval
from mindseed.dataset._validate import type_check

__all__ = ["check_enum", "check_int", "check_number", "check_positive", "check_range", "check_float32",
           "check_int32_not_zero"]


def check_enum(value, enum_cls, name, who):
    """`value` as a member of `enum_cls`, or a TypeError naming the op and argument."""
    type_check(value, (enum_cls,), name, who)
    return value


def check_number(value, name, who):
    """`value` as a float, or a TypeError naming the op and argument."""
    type_check(value, (float, int), name, who)
    return float(value)


def check_positive(value, name, who):
    """`value` as a float in (0, 16777216], or an error naming the op and argument."""
    v = check_number(value, name, who)
    _interval(v, 0, FLOAT_MAX_INTEGER, name, left_open=True, who=who)
    return v


def check_int(value, name, who, low=1):
    """`value` as an int in [low, 2147483647], or an error naming the op and argument."""
    type_check(value, (int,), name, who)
    _interval(value, low, INT32_MAX, name, who=who)
    return value


def check_range(value, name, who, low, high):
    """`value` as a float in [low, high], or an error naming the op and argument."""
    v = check_number(value, name, who)
    _interval(v, low, high, name, who=who)
    return v


def check_float32(value, name, who):
    """`value` as a float in [-16777216, 16777216] (MindSpore's float32 range for arguments)."""
    v = check_number(value, name, who)
    _interval(v, -FLOAT_MAX_INTEGER, FLOAT_MAX_INTEGER, name, who=who)
    return v


def check_int32_not_zero(value, name, who):
    """`value` as a non-zero int32."""
    type_check(value, (int,), name, who)
    if value == 0 or not -INT32_MAX - 1 <= value <= INT32_MAX:
        raise ValueError(f"{who}: Input {name} is not within the required interval of [{-INT32_MAX - 1}, 0) and "
                         f"(0, {INT32_MAX}].")
    return value
