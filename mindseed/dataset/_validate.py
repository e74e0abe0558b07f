"""Argument checks with MindSpore's dataset error messages."""
import functools
import inspect
import os
import re

import numpy as np

INT32_MAX = 2147483647


FLOAT_MAX_INTEGER = 16777216


def _who(who):
    return f"{who}: " if who else ""


def type_check(arg, types, name, who=None):
    """TypeError unless `arg` is an instance of `types` (bool is not an int here), in MindSpore's words (the value
    shown as str() shows it), after the op's name when `who` is given."""
    shown = '""' if isinstance(arg, str) and not arg else arg
    if isinstance(arg, bool) and bool not in types and int in types:
        # MindSpore shows the tuple of types here (a list otherwise)
        raise TypeError(f"{_who(who)}Argument {name} with value {shown} is not of type {tuple(types)}, but got "
                        f"{type(arg)}.")
    if not isinstance(arg, types):
        raise TypeError(f"{_who(who)}Argument {name} with value {shown} is not of type {list(types)}, but got "
                        f"{type(arg)}.")


def check_range(value, low, high, name, left_open=False, who=None, right_open=False):
    """ValueError unless low <= value <= high (open bounds with left_open / right_open), in MindSpore's words."""
    if (value <= low if left_open else value < low) or (value >= high if right_open else value > high):
        lb, rb = "(" if left_open else "[", ")" if right_open else "]"
        raise ValueError(f"{_who(who)}Input {name} is not within the required interval of {lb}{low}, {high}{rb}.")


def check_columns(columns, name):
    """A column name or a non-empty list of distinct, non-empty names -> list."""
    if isinstance(columns, str):
        if not columns:
            raise ValueError(f"{name} should not be an empty str.")
        return [columns]
    if not isinstance(columns, (list, tuple)):
        raise TypeError(f"Argument {name} with value {columns!r} is not of type [<class 'list'>, <class 'str'>], "
                        f"but got {type(columns)}.")
    if not columns:
        raise ValueError(f"{name} should not be empty.")
    for i, c in enumerate(columns):
        if not isinstance(c, str):
            raise TypeError(f"Argument {name}[{i}] with value {c!r} is not of type [<class 'str'>], "
                            f"but got {type(c)}.")
        if not c:
            raise ValueError(f"{name}[{i}] should not be empty.")
    if len(set(columns)) != len(columns):
        raise ValueError(f"Every column name should not be same with others in {name}.")
    return list(columns)


def check_workers(n):
    if n is None:
        return
    type_check(n, (int,), "num_parallel_workers")
    cpus = os.cpu_count() or 1      # MindSpore's validator bounds it by the machine's CPUs
    if not 1 <= n <= cpus:
        raise ValueError(f"num_parallel_workers exceeds the boundary between 1 and {cpus}!")


def check_bool(value, name):
    type_check(value, (bool,), name)


def bool_arg(value, name):
    """`value` when it is a bool; TypeError in the words of MindSpore's transforms otherwise."""
    if not isinstance(value, bool):
        raise TypeError(f"Argument {name} with value {value!r} is not of type [<class 'bool'>].")
    return value


def check_dir(path, who):
    """ValueError naming the directory when it does not exist."""
    if not isinstance(path, str):
        raise TypeError(f"Argument dataset_dir with value {path!r} is not of type [<class 'str'>], "
                        f"but got {type(path)}.")
    if not os.path.isdir(path):
        raise ValueError(f"The folder {path} does not exist or is not a directory or permission denied!")


def check_file(path, name="dataset_file"):
    if not isinstance(path, str):
        raise TypeError(f"Argument {name} with value {path!r} is not of type [<class 'str'>], "
                        f"but got {type(path)}.")
    if not os.path.isfile(path):
        raise ValueError(f"The file {path} does not exist or permission denied!")


def check_sharding(num_shards, shard_id):
    if num_shards is None and shard_id is None:
        return
    if num_shards is None or shard_id is None:
        raise RuntimeError("num_shards and shard_id need to be passed in together.")
    type_check(num_shards, (int,), "num_shards")
    type_check(shard_id, (int,), "shard_id")
    check_range(num_shards, 1, INT32_MAX, "num_shards")
    if shard_id < 0 or shard_id >= num_shards:
        raise ValueError(f"Input shard_id is not within the required interval of [0, {num_shards - 1}].")


def check_num_samples(num_samples):
    if num_samples is None:
        return
    type_check(num_samples, (int,), "num_samples")
    check_range(num_samples, 0, INT32_MAX, "num_samples")


def check_number(value, name, types=(int, float)):
    """`value` when it is an instance of `types` (never a bool); MindSpore's TypeError otherwise."""
    type_check(value, types, name)
    return value


def check_int_seq(value, name, lengths=(2,), types=(int,), seq=(list, tuple)):
    """A `seq` (list/tuple) of `types` (ints) whose length is one of `lengths` -> tuple; MindSpore's TypeError
    otherwise."""
    type_check(value, seq, name)
    if len(value) not in lengths:
        raise TypeError(f"Argument {name} with value {value!r} should be a list or tuple of length "
                        f"{' or '.join(map(str, lengths))}, but got {len(value)}.")
    for i, v in enumerate(value):
        type_check(v, types, f"{name}[{i}]")
    return tuple(value)


def to_array(value, name, dtype=None):
    """`value` as a numpy array; a TypeError naming the argument when it is ragged or of no numeric type."""
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        pass
    raise TypeError(f"Argument {name} with value {value!r} cannot be read as an array: its elements must be numbers "
                    f"of one shape{'' if dtype is None else ' (' + np.dtype(dtype).name + ')'}.")


def compile_regex(pattern, name, who):
    """`pattern` (a str) compiled; a TypeError or ValueError naming the op and the argument otherwise."""
    type_check(pattern, (str,), name)
    try:
        return re.compile(pattern)
    except re.error as e:
        msg = str(e)
    raise ValueError(f"{who}: the argument {name} {pattern!r} is not a valid regular expression: {msg}.")


# ---------------------------------------------------------------------------------------------------------------
# MindSpore's validator helpers (mindspore.dataset.core.validator_helpers), by the same names and messages. The ops'
# argument checks (audio/text/vision/transforms validators) are built from these.

INT32_MIN = -INT32_MAX - 1
UINT8_MAX = 255
UINT32_MAX = 4294967295
FLOAT_MIN_INTEGER = -FLOAT_MAX_INTEGER


def _arg(name):
    return f"{name} " if name else ""


def check_value(value, valid_range, arg_name="", left_open_interval=False, right_open_interval=False):
    """ValueError unless value lies in valid_range (closed unless told), in MindSpore's words."""
    low, high = valid_range
    if (value <= low if left_open_interval else value < low) or \
            (value >= high if right_open_interval else value > high):
        lb, rb = "(" if left_open_interval else "[", ")" if right_open_interval else "]"
        raise ValueError(f"Input {_arg(arg_name)}is not within the required interval of {lb}{low}, {high}{rb}.")


def _typed_range(types, low, high, left_open=False):
    def check(value, arg_name=""):
        type_check(value, types, arg_name)
        check_value(value, (low, high), arg_name, left_open)
    return check


check_int32 = _typed_range((int,), INT32_MIN, INT32_MAX)
check_uint8 = _typed_range((int,), 0, UINT8_MAX)
check_uint32 = _typed_range((int,), 0, UINT32_MAX)
check_pos_uint32 = _typed_range((int,), 1, UINT32_MAX)
check_pos_int32 = _typed_range((int,), 1, INT32_MAX)
check_non_negative_int32 = _typed_range((int,), 0, INT32_MAX)
check_float32 = _typed_range((float, int), FLOAT_MIN_INTEGER, FLOAT_MAX_INTEGER)
check_pos_float32 = _typed_range((float, int), 0, FLOAT_MAX_INTEGER, left_open=True)
check_non_negative_float32 = _typed_range((float, int), 0, FLOAT_MAX_INTEGER)


def check_int32_not_zero(value, arg_name=""):
    type_check(value, (int,), _arg(arg_name))  # MindSpore pads the name here
    if value < INT32_MIN or value > INT32_MAX or value == 0:
        raise ValueError(f"Input {_arg(arg_name)}is not within the required interval of "
                         f"[{INT32_MIN}, 0) and (0, {INT32_MAX}].")


def check_float32_not_zero(value, arg_name=""):
    type_check(value, (float, int), _arg(arg_name))
    if value < FLOAT_MIN_INTEGER or value > FLOAT_MAX_INTEGER or value == 0:
        raise ValueError(f"Input {_arg(arg_name)}is not within the required interval of "
                         f"[{FLOAT_MIN_INTEGER}, 0) and (0, {FLOAT_MAX_INTEGER}].")


def check_positive(value, arg_name=""):
    if value <= 0:
        raise ValueError(f"Input {_arg(arg_name)}must be greater than 0.")


def type_check_list(args, types, arg_names):
    """Every element of the list/tuple `args` an instance of `types` (names `arg_names[i]`)."""
    type_check(args, (list, tuple), arg_names)
    if isinstance(arg_names, str):
        arg_names = [f"{arg_names}[{i}]" for i in range(len(args))]
    for a, n in zip(args, arg_names):
        type_check(a, types, n)


def parse_user_args(method, *args, **kwargs):
    """The arguments of a call of `method` (self first) in its signature's order, defaults filled in."""
    sig = inspect.signature(method)
    bound = sig.bind(None, *args, **kwargs)
    bound.apply_defaults()
    return [bound.arguments[p] for p in list(sig.parameters)[1:]]


def method_check(check):
    """Turn `check(*args)` (an op's argument check, arguments in its __init__'s order) into a decorator of that
    __init__, as MindSpore's validators are."""
    def decorate(method):
        @functools.wraps(method)
        def checked(self, *args, **kwargs):
            check(*parse_user_args(method, *args, **kwargs))
            return method(self, *args, **kwargs)
        return checked
    decorate.__name__, decorate.__doc__, decorate.check = check.__name__, check.__doc__, check
    return decorate
