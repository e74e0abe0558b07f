"""`mindspore.train._utils`: helpers of MindSpore's training code that packages built on it import
(mindspore-xai checks its arguments with `check_value_type`; mindformers' checkpoint savers ask which rank saves which
parameter with `get_parameter_redundancy` and `remove_param_redundancy`; mindspore-rl makes its checkpoint directory
with `_make_directory`)."""
import math
import os
from collections.abc import Iterable

__all__ = ["check_value_type", "get_parameter_redundancy", "remove_param_redundancy", "_make_directory",
           "_construct_tensor_list"]

_MAX_PATH_LENGTH = 1024


def check_value_type(arg_name, arg_value, valid_types):
    """Raise MindSpore's TypeError unless `arg_value` is an instance of one of `valid_types` (a bool only when
    bool is listed)."""
    valid_types = tuple(valid_types) if isinstance(valid_types, Iterable) else (valid_types,)
    if not isinstance(arg_value, valid_types) or (isinstance(arg_value, bool) and bool not in valid_types):
        raise TypeError(f"For `{arg_name}` the type should be a valid type of {[t.__name__ for t in valid_types]}, "
                        f"but got {type(arg_value).__name__}.")


def get_parameter_redundancy(layout_obj, initial_rank=None):
    """{parameter name: tuple of rank tuples}, sorted by name: for each parameter, the groups of ranks that hold the
    same slice of it (MindSpore's redundancy map, which checkpoint savers use to write each slice once).

    Args:
        layout_obj (Union[str, dict, Cell]): a strategy file, a parameter layout dict (name -> [device matrix, tensor
            map, slice shape, field, uniform split, optimizer-shard group, ...]), or a network (stand-alone: every
            rank of the world group holds every parameter).
        initial_rank (int): the first rank of the pipeline stage. Default: ``None``, the stage of this rank.
    """
    from mindseed.nn import Cell  # noqa: PLC0415  (train sits above nn; loaded on first use)
    from mindseed.parallel.parameter_broadcast import parameter_redundancy  # noqa: PLC0415
    if isinstance(layout_obj, Cell):
        from mindseed.communication.management import get_process_group_ranks  # noqa: PLC0415
        ranks = (tuple(get_process_group_ranks()),)
        return {name: ranks for name in sorted(p.name for _, p in layout_obj.parameters_and_names())}
    if isinstance(layout_obj, str):
        from mindseed.parallel._strategy_file import read_strategy_file  # noqa: PLC0415
        records, _, _ = read_strategy_file(layout_obj, "get_parameter_redundancy")
        layout = {k: [r.dev_matrix[0].dim, r.tensor_map[0].dim] for k, r in records.items()}
        opt_shard = {k: (r.opt_weight_shard_step, r.opt_weight_shard_size) for k, r in records.items()}
    else:
        layout = {k: list(v[:2]) for k, v in layout_obj.items()}
    if initial_rank is None:
        from mindseed.communication.management import get_rank  # noqa: PLC0415
        devices = math.prod(next(iter(layout.values()))[0]) if layout else 1
        initial_rank = get_rank() // devices * devices
    redundancy = parameter_redundancy(layout, initial_rank)
    for name in layout:
        if isinstance(layout_obj, str):
            step, size = opt_shard[name]
            if size == 0:
                continue
            if size == -1:
                size = len(redundancy[name]) * len(redundancy[name][0]) // step
        else:
            group = layout_obj[name][5] if len(layout_obj[name]) > 5 else ""
            if not group:
                continue
            from mindseed.communication.management import get_group_size  # noqa: PLC0415
            size = get_group_size(group)
        # the optimizer shards the parameter again over `size` ranks of each group: every size-th rank holds the
        # same piece
        redundancy[name] = tuple(ranks[i::size] for ranks in redundancy[name] if len(ranks) % size == 0
                                 for i in range(size))
    return {name: redundancy[name] for name in sorted(redundancy)}


def remove_param_redundancy(param_redundancy_dict, keep_redundancy=1):
    """{rank: set of parameter names}: which rank saves which parameters so that each slice is saved
    `keep_redundancy` times. In every group of ranks holding the same slices, the parameters sharing that group go
    round-robin over its ranks (in the order of the groups' parameters); each further copy starts one rank on."""
    by_group = {}
    for name, groups in param_redundancy_dict.items():
        for group in groups:
            by_group.setdefault(group, []).append(name)
    result = {}
    for shift in range(keep_redundancy):
        for group, names in by_group.items():
            ranks = [group[(shift + j) % len(group)] for j in range(len(group))]
            for k, name in enumerate(names):
                result.setdefault(ranks[k % len(ranks)], set()).add(name)
    return result


def _make_directory(path, arg_name="path"):
    """The real path of the directory `path`, made (mode 0o700, with its parents) when missing, with MindSpore's
    checks: TypeError for a path that is not a str, ValueError for a blank or too long one, NotADirectoryError
    when it names a file."""
    if not isinstance(path, str):
        raise TypeError(f"The {arg_name} is invalid, the type should be string.")
    if not path.strip():
        raise ValueError(f"The {arg_name} is invalid, it should be non-blank.")
    path = os.path.realpath(path)
    if len(path) > _MAX_PATH_LENGTH:
        raise ValueError(f"The {arg_name} length is too long, it should be limited in {_MAX_PATH_LENGTH}.")
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise NotADirectoryError(f"The path({path}) is a file path, it should be a directory path.")
        return path
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except PermissionError as e:
        raise TypeError("No write permission on the directory.") from e
    return path


def _construct_tensor_list(types, shapes, batch_expand_num=1):
    """Zero tensors of the dataset's column types and shapes (the first dimension times `batch_expand_num`), which
    MindSpore's Model uses to compile a network before the data arrives."""
    import numpy as np  # noqa: PLC0415
    from mindseed.common import dtype as mstype  # noqa: PLC0415
    from mindseed.common.tensor import Tensor  # noqa: PLC0415
    if len(types) != len(shapes):
        raise ValueError(f"The length of dataset types must be equal to dataset shapes, but got dataset types={types} "
                         f"and dataset shapes={shapes}")
    tensors = []
    for type_, shape in zip(types, shapes):
        shape = tuple(d * batch_expand_num if i == 0 else d for i, d in enumerate(shape))
        tensor = Tensor(np.zeros(shape, mstype.dtype_to_nptype(type_)), dtype=type_)
        tensor.virtual_flag = True
        tensors.append(tensor)
    return tensors
