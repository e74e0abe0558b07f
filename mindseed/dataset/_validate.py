"""Argument checks with MindSpore's dataset error messages."""
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
    if isinstance(arg, bool) and bool not in types and int in types:
        ok = False
    else:
        ok = isinstance(arg, types)
    if not ok:
        shown = '""' if isinstance(arg, str) and not arg else arg
        raise TypeError(f"{_who(who)}Argument {name} with value {shown} is not of type {list(types)}, but got "
                        f"{type(arg)}.")


def check_range(value, low, high, name, left_open=False, who=None, right_open=False):
    """ValueError unless low <= value <= high (open bounds with left_open / right_open), in MindSpore's words."""
    if (value <= low if left_open else value < low) or (value >= high if right_open else value > high):
        lb, rb = "(" if left_open else "[", ")" if right_open else "]"
        raise ValueError(f"{_who(who)}Input {name} is not within the required interval of {lb}{low}, {high}{rb}.")


def check_pos_int32(value, name):
    type_check(value, (int,), name)
    check_range(value, 1, INT32_MAX, name)


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
    cpus = os.cpu_count() or 1
    check_range(n, 1, max(cpus, 1) * 64, "num_parallel_workers")


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
