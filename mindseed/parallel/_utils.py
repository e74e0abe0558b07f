"""MindSpore's `mindspore.parallel._utils` queries, which model code imports to configure its training cells."""
import numpy as np

from mindseed import log as logger
from mindseed.common._parallel import (ParallelMode, _device_num_if_set, _get_gradients_mean,  # noqa: F401
                                       _get_parallel_mode, _global_rank_if_set, get_auto_parallel_context)
from mindseed.communication.management import get_rank
from mindseed.nn.wrap.grad_reducer import _get_device_num  # noqa: F401


def _get_global_rank():
    """This process's rank for parallel training: 0 stand-alone, else `global_rank` when set, else the world rank."""
    if _get_parallel_mode() == ParallelMode.STAND_ALONE:
        return 0
    rank = _global_rank_if_set()
    return get_rank() if rank is None else rank


def _get_parameter_broadcast():
    """Whether parameters are broadcast from rank 0 before training."""
    return get_auto_parallel_context("parameter_broadcast")


def _is_in_auto_parallel_mode():
    return _get_parallel_mode() in (ParallelMode.SEMI_AUTO_PARALLEL, ParallelMode.AUTO_PARALLEL)


def _get_stage_device_num():
    return _get_device_num() // get_auto_parallel_context("pipeline_stages")


def _is_sharding_propagation():
    """Whether the strategy search propagates shardings (`search_mode="sharding_propagation"` or the older flag)."""
    return get_auto_parallel_context("search_mode") == "sharding_propagation" or \
        bool(get_auto_parallel_context("sharding_propagation"))


def _get_pipeline_stages():
    return get_auto_parallel_context("pipeline_stages")


def _get_enable_parallel_optimizer():
    return get_auto_parallel_context("enable_parallel_optimizer")


def _reset_op_id():
    """Restart the numbering of operator names (`<Prim>-op<n>`) for the next compiled graph. mindseed numbers the
    operators of each compiled graph from 0 on its own (MindSpore keeps one process-wide counter, which this
    resets), so every graph compiled after it is already numbered from 0."""


def _layout_ranks(layout):
    """The ranks holding distinct slices of a tensor laid out as `layout` ([dev_mat, tensor_map, ...]): along a
    device axis the tensor map does not use, every rank holds the same slice, so only the first is kept. Device
    axis d of the tensor map is dev_mat[-1 - d]."""
    dev_mat, tensor_map = list(layout[0]), layout[1]
    grid = np.arange(int(np.prod(dev_mat))).reshape(dev_mat)
    index = tuple(slice(None) if len(dev_mat) - 1 - axis in tensor_map else 0 for axis in range(len(dev_mat)))
    return grid[index].flatten()


def _same_cut(train_layout, predict_layout):
    """Whether both layouts use the same tensor map and cut each mapped dimension into as many slices."""
    if train_layout[1] != predict_layout[1]:
        return False
    return all(d == -1 or train_layout[0][-1 - d] == predict_layout[0][-1 - d] for d in train_layout[1])


def _infer_rank_list(train_map, predict_map=None):
    """Which training ranks' checkpoint slices each parameter of a prediction network needs (MindSpore's planner
    of `load_distributed_checkpoint`). Maps name -> layout [dev_mat, tensor_map, ...]; returns name ->
    (ranks, whether this rank's slice is one of theirs as it is). Without `predict_map` every distinct slice is
    needed; a parameter missing from `predict_map` is skipped."""
    stages = _get_pipeline_stages()
    rank = _get_global_rank()
    local_rank = int(rank % (_get_device_num() / stages)) if stages > 1 else rank
    plan = {}
    for name, train_layout in train_map.items():
        ranks = _layout_ranks(train_layout)
        if not predict_map:
            plan[name] = (ranks, False)
            continue
        if name not in predict_map:
            logger.warning("predict_map does not contain %s", name)
            continue
        predict_layout = predict_map[name]
        if train_layout[0] == predict_layout[0] and train_layout[1] == predict_layout[1]:
            plan[name] = ([local_rank], True)
        elif _same_cut(train_layout, predict_layout) and len(ranks) == 1:
            plan[name] = (ranks, True)
        elif _same_cut(train_layout, predict_layout) and len(ranks) == int(np.prod(predict_layout[0])):
            plan[name] = ([ranks[local_rank]], True)
        else:
            plan[name] = (ranks, False)
    return plan
