"""`mindspore.parallel.parameter_broadcast`: make the ranks that hold the same slice of a parameter agree.

For every parameter of the layout dict, the ranks of a pipeline stage that hold the same slice form a redundancy
group (they differ only along device-matrix axes its tensor map does not use). In each group one rank keeps its
value (MindSpore's assignment: the group's parameters, in name order, go round-robin over its ranks) and the
others receive it: the non-keepers zero their copy and the group all-reduces, as MindSpore does.
"""
import itertools

import numpy as np

from mindseed.common._parallel import auto_parallel_cell, get_auto_parallel_context
from mindseed.common.tensor import Tensor
from mindseed.communication.management import create_group, get_group_size, get_rank
from mindseed.ops.operations.comm_ops import AllReduce

__all__ = ["parameter_broadcast", "parameter_redundancy"]


def parameter_redundancy(layout, initial_rank=0):
    """{name: tuple of rank tuples}: per parameter, the groups of ranks holding the same slice.

    Args:
        layout (dict): name -> [device_matrix, tensor_map, ...] (MindSpore's parameter layout dict).
        initial_rank (int): the first rank of the pipeline stage.
    """
    out = {}
    for name in sorted(layout):
        dev_matrix, tensor_map = list(layout[name][0]), layout[name][1]
        used = set()
        for entry in tensor_map:
            for axis in (entry if isinstance(entry, (tuple, list)) else (entry,)):
                if axis != -1:
                    used.add(len(dev_matrix) - 1 - axis)   # the tensor map counts axes from the right
        groups = {}
        # groups in MindSpore's order: by the coordinates of the used axes, the rightmost axis first
        order = sorted(used, reverse=True)
        for index, coords in enumerate(itertools.product(*(range(d) for d in dev_matrix))):
            key = tuple(coords[i] for i in order)
            groups.setdefault(key, []).append(index + initial_rank)
        out[name] = tuple(tuple(groups[k]) for k in sorted(groups))
    return out


def _keepers(redundancy):
    """{rank: set of parameter names it keeps}: each group's parameters go round-robin over its ranks."""
    by_group = {}
    for name, groups in redundancy.items():
        for group in groups:
            by_group.setdefault(group, []).append(name)
    keep = {}
    for group, names in by_group.items():
        for i, name in enumerate(names):
            keep.setdefault(group[i % len(group)], set()).add(name)
    return keep


def parameter_broadcast(net, layout, cur_rank=0, initial_rank=0):
    """Broadcast, within each group of ranks holding the same slice of a parameter of `net`, one rank's value.

    Args:
        net (Cell): the network whose parameters are made consistent.
        layout (dict): parameter name -> [device_matrix, tensor_map, ...] (`Cell.parameter_layout_dict`'s form, or
            read from a strategy file).
        cur_rank (int): this process's rank.
        initial_rank (int): the first rank of this process's pipeline stage.

    Raises:
        ValueError: `cur_rank` is not this process's rank, `initial_rank` not the start of a stage, or a name of
            `layout` not a parameter of `net`.
    """
    if not layout or get_group_size() <= 1:
        return
    parallel_net = auto_parallel_cell(net)   # an AutoParallel's own pipeline setting, else the context's
    stages = parallel_net.get_pipeline_stages() if parallel_net is not None else \
        get_auto_parallel_context("pipeline_stages")
    if cur_rank != get_rank():
        raise ValueError(f"For parameter broadcast, the cur_rank: {cur_rank} is wrong.")
    if initial_rank % (get_group_size() / stages) != 0:
        raise ValueError(f"For parameter broadcast, the initial_rank: {initial_rank} is wrong.")
    redundancy = parameter_redundancy(layout, initial_rank)
    keep = _keepers(redundancy).get(cur_rank, set())
    params = net.parameters_dict()
    mine = {}
    for name, groups in redundancy.items():
        for group in groups:
            if len(group) > 1 and cur_rank in group:
                mine.setdefault(group, []).append(name)
    for group, names in mine.items():
        create_group(str(group), list(group))
        reduce = AllReduce(group=str(group))
        for name in names:
            if name not in params:
                raise ValueError(f"For parameter broadcast, the param: {name} can not be found.")
            param = params[name]
            value = param if name in keep else Tensor(np.zeros(param.shape), dtype=param.dtype)
            param.set_data(reduce(value))
