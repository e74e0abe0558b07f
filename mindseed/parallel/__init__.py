"""mindspore.parallel: distributed-training helpers.

The auto-parallel context is `mindseed.set_auto_parallel_context`. Data parallelism runs on processes today
(`nn.TrainOneStepCell` all-reduces gradients under ``parallel_mode='data_parallel'``).

The foundation of semi-auto parallel runs in one process on a simulated world of N ranks, and on the processes of a
real run (`_process_world.ProcessWorld`; `nn.TrainOneStepCell` uses it after `init()` under semi-auto / auto
parallel):

* `_layout`: `DeviceMesh` and `TensorLayout` (strategy tuples and `Layout` compile into it), `shard_array` /
  `assemble` between a global array and the ranks' shards;
* `_world`: `SimulatedWorld`, the collectives on per-rank lists, with their bytes logged;
* `_redistribute`: `plan(src, dst)`, the collectives and local slices from one layout to another;
* `_spmd`: `record(fn, *args)` keeps the primitive calls of a run (backward included) with the strategies given
  to `Primitive.shard`; `execute(program, world)` runs them on shards by the primitives' sharding rules;
* `_strategy_file` and `checkpoint_transform`: MindSpore's strategy files, and distributed checkpoints merged or
  re-cut for another strategy (`merge_sliced_parameter`, `transform_checkpoints`, `load_distributed_checkpoint`, ...).
"""
from mindseed.common import _parallel as _context
from mindseed.common._shard_layout import Layout

from mindseed.parallel._operator_strategy import set_op_strategy_config
from mindseed.parallel._pipeline_sync import sync_pipeline_shared_parameters
from mindseed.parallel.parameter_broadcast import parameter_broadcast
from mindseed.parallel.shard import shard
from mindseed.common._search_contexts import get_algo_parameters, reset_algo_parameters, set_algo_parameters


def _process_training():
    """The runner of `nn.TrainOneStepCell`'s steps on real processes (`_train.process_training`, imported on first
    use): what the cell calls under semi-auto / auto parallel after `init()`."""
    from mindseed.parallel._train import process_training  # noqa: PLC0415  (imports the whole partitioner)
    return process_training()


_context.process_training = _process_training

__all__ = ["shard", "parameter_broadcast", "sync_pipeline_shared_parameters", "set_algo_parameters",
           "reset_algo_parameters", "get_algo_parameters",
           "Layout", "build_searched_strategy", "merge_pipeline_strategys", "restore_group_info_list",
           "get_ckpt_path_with_strategy", "load_distributed_checkpoint", "load_segmented_checkpoints",
           "merge_sliced_parameter", "rank_list_for_transform", "transform_checkpoint_by_rank",
           "transform_checkpoints", "unified_safetensors", "rank_list_for_convert", "convert_checkpoint_by_rank",
           "convert_checkpoints", "set_op_strategy_config"]


# the strategy files and distributed checkpoints (they read and write checkpoints with mindseed.train): imported on
# first use, so that the partitioner and the planner load without the training package
_LAZY = {"mindseed.parallel._strategy_file": ("build_searched_strategy", "merge_pipeline_strategys",
                                               "restore_group_info_list"),
         "mindseed.parallel.checkpoint_transform": (
             "convert_checkpoint_by_rank", "convert_checkpoints", "get_ckpt_path_with_strategy",
             "load_distributed_checkpoint", "load_segmented_checkpoints", "merge_sliced_parameter",
             "rank_list_for_convert", "rank_list_for_transform", "transform_checkpoint_by_rank",
             "transform_checkpoints", "unified_safetensors")}
_LAZY_NAMES = {name: module for module, names in _LAZY.items() for name in names}


# the submodules MindSpore's `import mindspore` has already bound as attributes of `mindspore.parallel` (imported here
# on first use: `ms.parallel.nn.MicroBatchInterleaved` works without importing `mindspore.parallel.nn`)
_SUBMODULES = ("nn", "function", "checkpoint_convert", "transform_safetensors", "algo_parameter_config",
               "data_access_adapter")


def __getattr__(name):
    import importlib  # noqa: PLC0415
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    module = _LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY_NAMES) | set(_SUBMODULES))
