"""Argument checks shared by the `mindspore.dataset.audio` transforms (`mindspore.dataset.audio.validators`)."""

__all__ = ["check_enum", "check_int", "check_number", "check_positive", "check_range"]


def check_enum(value, enum_cls, name, who):
    """`value` as a member of `enum_cls`, or a TypeError naming the op and argument."""
    if isinstance(value, enum_cls):
        return value
    raise TypeError(f"{who}: argument {name} with value {value!r} is not of type [{enum_cls.__name__}].")


def check_number(value, name, who):
    """`value` as a float, or a TypeError naming the op and argument."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{who}: argument {name} with value {value!r} is not of type [int, float].")
    return float(value)


def check_positive(value, name, who):
    """`value` as a positive float, or a ValueError naming the op and argument."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"{who}: {name} should be a positive number, but got {value!r}.")
    return float(value)


def check_int(value, name, who, low=1):
    """`value` as an int >= low, or a ValueError naming the op and argument."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"{who}: {name} should be an int >= {low}, but got {value!r}.")
    return value


def check_range(value, name, who, low, high):
    """`value` as a float in [low, high], or an error naming the op and argument."""
    v = check_number(value, name, who)
    if not low <= v <= high:
        raise ValueError(f"{who}: {name} should be in range [{low}, {high}], but got {value}.")
    return v
