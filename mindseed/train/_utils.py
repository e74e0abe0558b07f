"""`mindspore.train._utils`: helpers of MindSpore's training code that packages built on it import
(mindspore-xai checks its arguments with `check_value_type`)."""
from collections.abc import Iterable

__all__ = ["check_value_type"]


def check_value_type(arg_name, arg_value, valid_types):
    """Raise MindSpore's TypeError unless `arg_value` is an instance of one of `valid_types` (a bool only when
    bool is listed)."""
    valid_types = tuple(valid_types) if isinstance(valid_types, Iterable) else (valid_types,)
    if not isinstance(arg_value, valid_types) or (isinstance(arg_value, bool) and bool not in valid_types):
        raise TypeError(f"For `{arg_name}` the type should be a valid type of {[t.__name__ for t in valid_types]}, "
                        f"but got {type(arg_value).__name__}.")
