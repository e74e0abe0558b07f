"""MindSpore's `mindspore.parallel._utils` queries, which model code imports to configure its training cells."""
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
