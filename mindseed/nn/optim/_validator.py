"""Argument checks of optimizers, schedules and wrappers, with MindSpore's `_checkparam` messages."""
import math

_GT, _GE = ">", ">="


def _prefix(prim):
    return f"For '{prim}', the " if prim else "The "


def _number(value, bound, rel, kind, name, prim):
    who = _prefix(prim) + (f"'{name}'" if name else "input value")
    if isinstance(value, kind) and not isinstance(value, bool):
        if math.isinf(value) or math.isnan(value):
            raise ValueError(f"{who} must be a legal value, but got '{value}'.")
    else:
        raise TypeError(f"{who} must be {kind.__name__}, but got '{type(value).__name__}'")
    if not (value > bound if rel == _GT else value >= bound):
        raise ValueError(f"{who} must be {kind.__name__} and must {rel} {bound}, but got '{value}' with type "
                         f"'{type(value).__name__}'.")
    return value


def positive_int(value, name=None, prim=None):
    return _number(value, 0, _GT, int, name, prim)


def positive_float(value, name=None, prim=None):
    return _number(value, 0, _GT, float, name, prim)


def non_negative_float(value, name=None, prim=None):
    return _number(value, 0, _GE, float, name, prim)


def non_negative_float_typed(value, name, owner, prim=None):
    """A float >= 0; a non-float is a TypeError naming `owner` (the schedule), as MindSpore's schedules say."""
    if not isinstance(value, float):
        raise TypeError(f"For '{owner}', the argument '{name}' must be type of float, but got '{name}' "
                        f"type: {type(value)}.")
    return non_negative_float(value, name, prim)


def is_float(value, name=None, prim=None):
    head = f"For '{prim}', the" if prim else "The"
    arg = f"'{name}'" if name else "input value"
    if not isinstance(value, float):
        raise TypeError(f"{head} type of {arg} must be 'float', but got '{type(value).__name__}'.")
    if math.isinf(value) or math.isnan(value):
        raise ValueError(f"{head} {arg} must be a legal float, but got '{value}'.")
    return value


def value_type(name, value, types, prim=None):
    """isinstance check; bool passes only when bool is listed (MindSpore's check_value_type)."""
    types = tuple(types) if isinstance(types, (list, tuple)) else (types,)
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        names = [t.__name__ for t in types]
        who = f"For '{prim}', the" if prim else "The"
        shown = f"one of '{names}'" if len(names) > 1 else f"'{names[0]}'"
        raise TypeError(f"{who} type of '{name}' should be {shown}, but got type '{type(value).__name__}'.")
    return value


def float_range(value, lower, upper, include, name, prim):
    """lower (<|<=) value (<|<=) upper; include is '()', '[)', '(]' or '[]'."""
    who = f"For '{prim}', the '{name}'" if prim else f"The '{name}'"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{who} must be 'float',  but got '{type(value).__name__}'.")
    lo_ok = value >= lower if include[0] == "[" else value > lower
    hi_ok = value <= upper if include[1] == "]" else value < upper
    if not (lo_ok and hi_ok):
        raise ValueError(f"{who} must be in range of {include[0]}{lower}, {upper}{include[1]}, but got {value} "
                         f"with type '{type(value).__name__}'.")
    return value


def boolean(value, name, prim=None):
    if not isinstance(value, bool):
        who = f"For '{prim}', the" if prim else "The"
        raise TypeError(f"{who} '{name}' must be a bool, but got {type(value).__name__}.")
    return value
