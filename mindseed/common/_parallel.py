"""Process-wide parallel state: the auto-parallel context and the world communication information.

Both live here, below `ops` and `nn`, because the collective primitives (ops), the gradient reducer and
TrainOneStepCell (nn) read them; `mindseed.communication` and the top level re-export the public names.
The keys, defaults, checks and error messages of `set_auto_parallel_context` are MindSpore 2.10's.
"""
import contextlib
import copy
import os
import warnings
import weakref

from mindseed._utils import _state
from mindseed.common.context import ParallelMode

__all__ = ["set_auto_parallel_context", "get_auto_parallel_context", "reset_auto_parallel_context", "GlobalComm",
           "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP"]

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"


class GlobalComm:
    """World communication information (MindSpore's `GlobalComm`).

    - ``BACKEND``: the communication library, ``"hccl"`` until `init` sets ``"mccl"`` (CPU) or ``"nccl"`` (GPU).
    - ``WORLD_COMM_GROUP``: the name of the world group, ``"hccl_world_group"`` until `init` sets the backend's.
    - ``INITED``: whether `init` has run.
    - ``CHECK_ENVS``: whether to check the launcher's environment variables.
    """
    BACKEND = "hccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


# while `mindseed.parallel._train.simulate(world)` runs: the runner of a training step on that simulated world of
# ranks (`runner(train_one_step_cell, inputs)`), to which `nn.TrainOneStepCell` hands its steps
simulated_training = None
# the parallel optimizer's reductions over a parameter's slices (`parallel._zero`, read by ops/_prims/optim's
# `ReducingPrim`): while it runs the user's optimizer on a rank's slices, a callable (Parameter) -> None (a
# parameter held whole) or reduce: reduce(numpy partial sums, parameter dims) sums a partial reduction over the
# ranks holding the other pieces of those dims; reduce.shape is the whole parameter's shape
slice_reduction = None

# `process_training()`: the runner of TrainOneStepCell's steps on the processes of a real run (semi-auto / auto
# parallel after `init()`), installed by mindseed.parallel (nn sits below it)
process_training = None

# id(Parameter) -> (weak reference to it, slicer(param) giving this process's slice of it as a Tensor): the slices a
# sharded training step on real processes cut (mindseed.parallel._train), which save_checkpoint(...,
# integrated_save=False) saves
parameter_slices = {}

# id(Parameter) -> (weak reference to it, gatherer(param) giving it whole as a Tensor): the Parameters a sharded step on
# real processes keeps in this process's slices (mindseed.parallel._sliced), which save_checkpoint(...,
# integrated_save=True) gathers (every process saves together, as MindSpore's integrated save all-gathers)
parameter_wholes = {}

# id(Parameter) -> weak reference to it: the Parameters another process holds (another pipeline stage's, left without
# data here by mindseed.parallel._train), which this process neither initializes nor saves (as MindSpore's stage
# checkpoint holds its stage's Parameters only)
parameter_elsewhere = {}

# id(Parameter) -> (weak reference to it, strategy tuple or Layout): the starting layouts a `parameter_plan` of
# `mindspore.shard` / `Cell.shard` gives (mindseed.nn._shard writes them, mindseed.parallel._spmd reads them)
PARAMETER_PLANS = {}


# while `mindseed.parallel.auto_parallel.AutoParallel` runs a function on a world of ranks: the runner whose
# `gradients(fn, args, weights, graph, kwargs)` runs the function's outermost gradient call (`grad` /
# `value_and_grad`: `graph` the gradient function, traced in GRAPH_MODE, `kwargs` its keywords) partitioned, as
# MindSpore compiles the function's forward and backward passes sharded
gradient_runner = None


# weak references to the `nn.PipelineCell`s made, in order: the pipeline a gradient call inside `AutoParallel` runs
# in stages is the latest whose parameters hold the call's weights
pipeline_cells = []


def register_pipeline_cell(cell):
    """Note a new `nn.PipelineCell` (the references to collected cells dropped)."""
    pipeline_cells[:] = [r for r in pipeline_cells if r() is not None]
    pipeline_cells.append(weakref.ref(cell))


def partitioned_gradients():
    """The runner of an outermost gradient call inside an `AutoParallel` function (`gradient_runner`): None inside a
    recording, a graph trace or another gradient call, or outside `AutoParallel`."""
    runner = gradient_runner
    if runner is None or _state.tapes or _state.tracing is not None:
        return None
    return runner


def runs_plain():
    """Whether compiled functions run as PyNative calls now: while the partitioner records, or while `AutoParallel`
    runs a function on a world (its gradient calls are then partitioned as recorded)."""
    return gradient_runner is not None or partitioner_recording()


@contextlib.contextmanager
def overlaid(values):
    """The auto-parallel context with `values` ({store key: value}, what `AutoParallel` configures) in place of the
    process's while the block runs (MindSpore's `AutoParallel` configures the compilation of its own network)."""
    saved = {k: _values[k] for k in values}
    _values.update(values)
    try:
        yield
    finally:
        _values.update(saved)


def auto_parallel_cell(net):
    """The `mindspore.parallel.auto_parallel.AutoParallel` cell of `net`'s tree (the first), or None."""
    return next((c for _, c in net.cells_and_names() if hasattr(type(c), "_context_values")), None)


def auto_parallel_values(cell):
    """The context values of the `AutoParallel` cell in `cell`'s tree (its `_context_values()`), or None."""
    found = cell.__dict__.get("_auto_parallel_cell", False)
    if found is False:  # looked up once
        found = cell.__dict__["_auto_parallel_cell"] = auto_parallel_cell(cell)
    return None if found is None else found._context_values()


def partitioner_recording():
    """Whether the parallel partitioner is recording a step now (`mindseed.parallel._spmd.record`: a recorder with
    `partitions = True` on the stack of tapes)."""
    return any(getattr(t, "partitions", False) for t in _state.tapes)


def abstract_recording():
    """Whether the partitioner records a step abstractly now (`mindseed.parallel._spmd.record(..., abstract=True)`: no
    kernel computes, so Parameters waiting for their initialization keep waiting, for a run that initializes them
    in slices)."""
    return any(getattr(h, "abstract", False) for h in _state.profiling)


def group_info_file():
    """Where a sharded run writes its group information file: the environment's ``GROUP_INFO_FILE`` (which
    MindSpore reads first), else the context's ``group_ckpt_save_file``; "" for none."""
    return os.environ.get("GROUP_INFO_FILE") or _values["group_ckpt_save_file"]


def simulated_runner(cell=None, traced=False):
    """The runner of `mindseed.parallel._train.simulate` when a sharded call outside a training step is to run
    partitioned on its simulated world: under ``semi_auto_parallel`` / ``auto_parallel``, outside a recording, outside
    a graph trace (`traced`: inside one, whose outermost compiled call then runs there), and (given `cell`) when a
    cell of `cell`'s tree has a `Cell.shard` strategy; else None."""
    runner = simulated_training
    if runner is None or partitioner_recording() or (_state.tracing is not None) != traced:
        return None
    if _values["parallel_mode"] not in ("semi_auto_parallel", "auto_parallel"):
        return None
    if cell is not None and all(c.__dict__.get("_in_strategy") is None for _, c in cell.cells_and_names()):
        return None
    return runner


def rank_slice(param):
    """This process's slice of `param` when a sharded run on real processes cut it, else `param` itself."""
    entry = parameter_slices.get(id(param))
    if entry is None or entry[0]() is not param:
        return param
    return entry[1](param)


def held_elsewhere(param):
    """Whether another process of a sharded run holds `param` and this one does not (`parameter_elsewhere`)."""
    entry = parameter_elsewhere.get(id(param))
    return entry is not None and entry() is param


def whole_of(param):
    """`param` whole when a sharded run on real processes holds it in slices (gathered from every process), else
    `param` itself."""
    entry = parameter_wholes.get(id(param))
    if entry is None or entry[0]() is not param:
        return param
    return entry[1](param)


def _get_group(group):
    """The world group's current name for MindSpore's default group name; other names unchanged."""
    if group == HCCL_WORLD_COMM_GROUP:
        return GlobalComm.WORLD_COMM_GROUP
    return group


# ---------------------------------------------------------------- auto-parallel context
_FUSION_DEFAULT = {"openstate": True, "allreduce": {"mode": "auto", "config": None},
                   "allgather": {"mode": "auto", "config": None}, "reducescatter": {"mode": "auto", "config": None}}
_DEFAULTS = {
    "device_num": 1, "global_rank": 0, "gradients_mean": False, "gradient_fp32_sync": True,
    "loss_repeated_mean": True, "pipeline_stages": 1, "auto_pipeline": False, "pipeline_result_broadcast": False,
    "pipeline_interleave": False, "pipeline_scheduler": "1f1b", "pipeline_segments": 1,
    "parallel_mode": ParallelMode.STAND_ALONE, "search_mode": "recursive_programming", "parameter_broadcast": False,
    "strategy_ckpt_load_file": "", "strategy_ckpt_save_file": "", "group_ckpt_save_file": "",
    "only_trainable_params": True, "full_batch": False, "dataset_strategy": None, "enable_parallel_optimizer": False,
    "force_fp32_communication": False, "grad_accumulation_step": 1, "all_reduce_fusion_config": [],
    "communi_parallel_mode": "all_group_parallel", "optimizer_weight_shard_size": -1,
    "optimizer_weight_shard_aggregated_save": False, "sharding_propagation": False, "enable_alltoall": False,
    "comm_fusion": _FUSION_DEFAULT, "full_batch_is_set": False, "dump_local_norm": False, "dump_local_norm_path": "",
    "dump_device_local_norm": False, "auto_parallel_new_interface": False, "init_param_in_compile": True,
    "parallel_optimizer_config": {}, "device_num_is_set": False, "global_rank_is_set": False,
    # sharding propagation's operator-strategy files (`set_op_strategy_config`, AutoParallel's)
    "ops_strategy_save_file": "", "ops_strategy_load_file": "",
    # the fusion switches only `auto_parallel_context().set_enable_<comm>_fusion` reaches (not a context key)
    "enable_all_reduce_fusion": False, "enable_all_gather_fusion": False, "enable_reduce_scatter_fusion": False,
}
_values = copy.deepcopy(_DEFAULTS)

# the type checks MindSpore's `set_auto_parallel_context` runs on its arguments before setting any of them
_TYPES = {
    "device_num": int, "global_rank": int, "gradients_mean": bool, "gradient_fp32_sync": bool,
    "loss_repeated_mean": bool, "parallel_mode": str, "search_mode": str, "auto_parallel_search_mode": str,
    "parameter_broadcast": bool, "strategy_ckpt_load_file": str, "strategy_ckpt_save_file": str, "full_batch": bool,
    "enable_parallel_optimizer": bool, "grad_accumulation_step": int, "all_reduce_fusion_config": list,
    "group_ckpt_save_file": str, "communi_parallel_mode": str, "optimizer_weight_shard_size": int,
    "sharding_propagation": bool, "optimizer_weight_shard_aggregated_save": bool, "enable_alltoall": bool,
    "comm_fusion": dict, "strategy_ckpt_config": dict, "force_fp32_communication": bool, "pipeline_stages": int,
    "pipeline_segments": int, "pipeline_result_broadcast": bool, "parallel_optimizer_config": dict,
    "pipeline_config": dict,
}
_SEARCH_MODES = ("recursive_programming", "dynamic_programming", "sharding_propagation")
_SCHEDULERS = ("1f1b", "gpipe", "seqpipe", "seqvpp", "seqsmartvpp", "zero_bubble_v")
_SCA = "set_auto_parallel_context"


def _store(key):
    def setter(value):
        _values[key] = value
    return setter


def _need_bool(key, value, where=_SCA):
    if not isinstance(value, bool):
        raise TypeError(f"For '{where}', the argument '{key}' must be bool, but got the type : {type(value)}.")


def _set_device_num(value):
    if value < 1:
        raise ValueError(f"The context configuration parameter 'device_num' must be a positive integer, but got the "
                         f"value of device_num : {value}.")
    _values["device_num"], _values["device_num_is_set"] = value, True


def _set_global_rank(value):
    if value < 0 or value > 4095:
        raise ValueError(f"The context configuration parameter 'global_rank' must be in [0, 4095], but got the value "
                         f"of global_rank : {value}.")
    _values["global_rank"], _values["global_rank_is_set"] = value, True


def _set_parallel_mode(value):
    if value not in ParallelMode.MODE_LIST:
        raise ValueError(f"The context configuration parameter 'parallel_mode' only support 'stand_alone', "
                         f"'data_parallel', 'hybrid_parallel', 'semi_auto_parallel' and 'auto_parallel', but got the "
                         f"value : {value}.")
    _values["parallel_mode"] = value


def _search_mode_setter(other_name):
    # NOTE: MindSpore's message for 'search_mode' names 'auto_parallel_search_mode' and the other way round
    def setter(value):
        if value not in _SEARCH_MODES:
            raise ValueError(f"The context configuration parameter '{other_name}' only support "
                             f"'recursive_programming', 'dynamic_programming' and 'sharding_propagation', but got "
                             f"the value: {value}.")
        _values["search_mode"] = value
    return setter


def _int_at_least_one(key):
    def setter(value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For '{_SCA}', the argument '{key}' must be int, but got the type : {type(value)}.")
        if value < 1:
            raise ValueError(f"For '{_SCA}', the argument '{key}' should be greater or equal 1, but got the value of "
                             f"{key.split('_')[1]} : {value}.")
        _values[key] = value
    return setter


def _bool_setter(key, where=_SCA, arg=None):
    def setter(value):
        _need_bool(arg or key, value, where)
        _values[key] = value
    return setter


def _set_full_batch(value):
    _values["full_batch"], _values["full_batch_is_set"] = value, True


def _set_dataset_strategy(value):
    if isinstance(value, str):
        if value not in ("full_batch", "data_parallel"):
            raise ValueError(f"For '{_SCA}', the argument 'dataset_strategy' must be 'full_batch' or 'data_parallel', "
                             f"but got the value : {value}.")
        _set_full_batch(value == "full_batch")
        _values["dataset_strategy"] = None
        return
    if not isinstance(value, tuple):
        raise TypeError(f"For '{_SCA}', the argument 'dataset_strategy' must be str or tuple type, but got the type : "
                        f"{type(value)}.")
    for ele in value:
        if not isinstance(ele, tuple):
            raise TypeError(f"For '{_SCA}', the element of argument 'dataset_strategy' must be tuple, but got the "
                            f"type : {type(ele)} .")
        for dim in ele:
            if not isinstance(dim, int):
                raise TypeError(f"For '{_SCA}', the element of argument 'dataset_strategy' must be int type, but got "
                                f"the type : {type(dim)} .")
    _values["dataset_strategy"] = value


def _get_dataset_strategy():
    if _values["dataset_strategy"] is None:
        return "full_batch" if _values["full_batch"] else "data_parallel"
    return _values["dataset_strategy"]


def _file_setter(key):
    def setter(value):
        # MindSpore creates the directory of a file it will write
        dir_path = os.path.dirname(value)
        if dir_path and not os.path.exists(dir_path):
            os.makedirs(dir_path, mode=0o700, exist_ok=True)
        _values[key] = value
    return setter


def _set_strategy_ckpt_config(value):
    if not isinstance(value, dict):
        raise TypeError(f"For '{_SCA}', the argument 'strategy_ckpt_config' must be dict, but got the type : "
                        f"{type(value)}.")
    for name in value:
        if name not in ("load_file", "save_file", "only_trainable_params"):
            raise ValueError(f"Unknown config: {[name]}")
    where = "set_auto_parallel_context().set_strategy_ckpt_config"
    for name, kind, key in (("load_file", str, "strategy_ckpt_load_file"),
                            ("save_file", str, "strategy_ckpt_save_file"),
                            ("only_trainable_params", bool, "only_trainable_params")):
        if name in value:
            if not isinstance(value[name], kind):
                raise TypeError(f"For '{where}', the argument '{name}' must be {kind.__name__}, but got the type : "
                                f"{type(value[name])} .")
            _values[key] = value[name]


def _get_strategy_ckpt_config():
    return {"load_file": _values["strategy_ckpt_load_file"], "save_file": _values["strategy_ckpt_save_file"],
            "only_trainable_params": _values["only_trainable_params"]}


def _set_grad_accumulation_step(value):
    if value > 1:
        raise ValueError("The interface is deprecated. To use gradient accumulation, please use GradAccumulationCell "
                         "in mindspore.nn.wrap.cell_wrapper.")
    if isinstance(value, bool) or value < 1:
        raise ValueError(f"For 'grad_accumulation_step', the 'grad_accumulation_step' must be a positive int, but got "
                         f"{value}.")
    _values["grad_accumulation_step"] = value


def _set_all_reduce_fusion_config(indices):
    where = "set_auto_parallel_context().set_all_reduce_fusion_split_indices"
    if not indices:
        raise ValueError(f"For '{where}', the argument 'indices' can not be empty")
    if not isinstance(indices, list):
        raise TypeError(f"For '{where}', the argument 'indices' must be list, but got the type : {type(indices)} .")
    for index in indices:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"For '{where}', the argument 'index' must be int, but got the type : {type(index)} .")
    if len(set(indices)) != len(indices):
        raise ValueError("The indices has duplicate elements")
    if sorted(indices) != indices:
        raise ValueError(f"For '{where}', the elements in argument 'indices' must be sorted in ascending order")
    _values["all_reduce_fusion_config"] = list(indices)


def _set_communi_parallel_mode(value):
    where = "set_auto_parallel_context().set_communi_parallel_mode"
    if not isinstance(value, str):
        raise TypeError(f"For '{where}', the argument 'communi_parallel_mode' must be str, but got the type : "
                        f"{type(value)}.")
    if value not in ("all_group_parallel", "same_server_group_parallel", "no_group_parallel"):
        raise ValueError(f"For '{where}', the argument 'communi_parallel_mode' only support 'ALL_GROUP_PARALLEL', "
                         f"'SAME_SEVER_GROUP_PARALLEL' and 'NO_GROUP_PARALLEL', but got the value : {value}.")
    _values["communi_parallel_mode"] = value


def _set_optimizer_weight_shard_size(value, stacklevel=3):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"The type of optimizer_weight_shard_size must be int, but got {type(value)}.")
    if value <= 1:
        # stacklevel: the warning names the user's set_auto_parallel_context call
        warnings.warn("The setting 'optimizer_weight_shard_size' is invalid. Please use the integer larger than 1.",
                      stacklevel=stacklevel)
        return
    _values["optimizer_weight_shard_size"] = value


def _set_shard_aggregated_save(value):
    if not isinstance(value, bool):
        raise TypeError("optimizer_weight_shard_aggregated_save is invalid type")
    _values["optimizer_weight_shard_aggregated_save"] = value


def _set_pipeline_config(value):
    if not isinstance(value, dict):
        raise TypeError(f"For 'set_pipeline_config', the argument 'pipeine_config' must be dict, but got the type : "
                        f"{type(value)}.")
    for name in value:
        if name not in ("pipeline_interleave", "pipeline_scheduler"):
            raise ValueError(f"Unknown config: {[name]}")
    interleave, scheduler = value["pipeline_interleave"], value["pipeline_scheduler"]
    if not isinstance(interleave, bool):
        raise TypeError(f"For 'pipeline_interleave', the 'pipeline_interleave' must be bool, but got "
                        f"{type(interleave).__name__}.")
    if scheduler not in _SCHEDULERS:
        raise ValueError(f"The 'pipeline_scheduler' must be one of {list(_SCHEDULERS)}, but got '{scheduler}'.")
    if not interleave and scheduler != "1f1b":
        raise TypeError(f"When pipeline_interleave is False, {scheduler!r} is not supported, only '1f1b' is allowed.")
    _values["pipeline_interleave"], _values["pipeline_scheduler"] = interleave, scheduler


def _set_parallel_optimizer_config(value):
    known = ("gradient_accumulation_shard", "parallel_optimizer_threshold", "optimizer_weight_shard_size",
             "optimizer_level")
    for name in value:
        if name not in known:
            raise ValueError(f"Unknown config: {[name]}")
    level = value.get("optimizer_level")
    if "gradient_accumulation_shard" in value:
        if not isinstance(value["gradient_accumulation_shard"], bool):
            raise TypeError(f"For 'gradient_accumulation_shard', the 'gradient_accumulation_shard' must be bool, but "
                            f"got {type(value['gradient_accumulation_shard']).__name__}.")
        if level is not None and level != "level2":
            raise ValueError(f"The optimizer_level is set as {level}, thus cannot set grad_accumulation_shard as "
                             f"True.")
    threshold = value.get("parallel_optimizer_threshold", 0)
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
        raise ValueError(f"For 'parallel_optimizer_threshold', the 'parallel_optimizer_threshold' must be a "
                         f"non-negative int, but got {threshold}.")
    size = value.get("optimizer_weight_shard_size", -1)
    if size != -1:
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
            raise ValueError(f"For 'optimizer_weight_shard_size', the 'optimizer_weight_shard_size' must be a "
                             f"positive int, but got {size}.")
        _set_optimizer_weight_shard_size(size, stacklevel=4)
    if level is not None and level not in ("level1", "level2", "level3"):
        raise ValueError(f"Optimizer level should in ['level1', 'level2', 'level3'], but got {level}")
    _values["parallel_optimizer_config"] = {**_values["parallel_optimizer_config"], **value}


def _set_comm_fusion(config):
    config = copy.deepcopy(config)
    config.setdefault("openstate", True)
    new = copy.deepcopy(_values["comm_fusion"])
    for key, item in config.items():
        if key == "openstate":
            if not isinstance(item, bool):
                raise TypeError(f"For 'comm_fusion', the 'openstate' must be bool, but got the type : {type(item)}.")
        elif key in ("allreduce", "allgather", "reducescatter"):
            _check_fusion(key, item)
            if key != "allreduce":  # configuring an all-gather / reduce-scatter fusion switches it on
                _values[_FUSION_SWITCHES[key]] = True
        else:
            raise KeyError(f"comm fusion type must be openstate,allreduce, allgather or reducescatter, but got {key}")
        new[key] = item
    _values["comm_fusion"] = new


_FUSION_SWITCHES = {"allreduce": "enable_all_reduce_fusion", "allgather": "enable_all_gather_fusion",
                    "reducescatter": "enable_reduce_scatter_fusion"}


def set_fusion_switch(key, value):
    """`auto_parallel_context().set_<key>(value)` for the three `enable_<comm>_fusion` switches."""
    if not isinstance(value, bool):
        raise TypeError(f"For 'set_auto_parallel_context().set_{key}', the argument 'enable_fusion' must be bool, "
                        f"but got the type : {type(value)}.")
    _values[key] = value


def get_fusion_switch(key):
    return _values[key]


def _check_fusion(comm_type, item):
    if not isinstance(item, dict):
        what = "the 'allreduce' config" if comm_type == "allreduce" else f"{comm_type} config"
        raise TypeError(f"For 'comm_fusion', {what} must be dict, but got the type : {type(item)}.")
    for key in ("mode", "config"):
        if key not in item:
            raise KeyError(f"For 'comm_fusion', the key '{key}' should be contained.")
    modes = ("auto", "index", "size") if comm_type == "allreduce" else ("auto", "size")
    if item["mode"] not in modes:
        raise KeyError(f"fusion method mode must be {' or '.join([', '.join(modes[:-1]), modes[-1]])}, but got "
                       f"{item['mode']}")
    if item["mode"] == "size" and item["config"] < 0:
        raise ValueError(f"fusion threshold must be larger than 0, but got {item['config']}")
    if item["mode"] == "index":
        _set_all_reduce_fusion_config(item["config"])


def _set_sharding_propagation(value):
    warnings.warn("This attribute is replaced by context.set_auto_parallel_context(search_mode='sharding_propagation'),"
                  " and this attribute will be deleted in a future MindSpore version.", stacklevel=3)
    _need_bool("sharding_propagation", value, "set_auto_parallel_context().set_sharding_propagation")
    _values["sharding_propagation"] = value


_SETTERS = {
    "device_num": _set_device_num, "global_rank": _set_global_rank, "gradients_mean": _store("gradients_mean"),
    "gradient_fp32_sync": _store("gradient_fp32_sync"),
    "loss_repeated_mean": _bool_setter("loss_repeated_mean"),
    "pipeline_stages": _int_at_least_one("pipeline_stages"), "auto_pipeline": _bool_setter("auto_pipeline"),
    "pipeline_result_broadcast": _bool_setter("pipeline_result_broadcast",
                                              "set_auto_parallel_context().set_pipeline_result_broadcast"),
    "pipeline_segments": _int_at_least_one("pipeline_segments"), "parallel_mode": _set_parallel_mode,
    "search_mode": _search_mode_setter("auto_parallel_search_mode"),
    "auto_parallel_search_mode": _search_mode_setter("search_mode"),
    "parameter_broadcast": _store("parameter_broadcast"),
    "strategy_ckpt_load_file": _store("strategy_ckpt_load_file"),
    "strategy_ckpt_save_file": _file_setter("strategy_ckpt_save_file"),
    "group_ckpt_save_file": _file_setter("group_ckpt_save_file"), "full_batch": _set_full_batch,
    "dataset_strategy": _set_dataset_strategy,
    "enable_parallel_optimizer": _bool_setter("enable_parallel_optimizer"),
    "force_fp32_communication": _bool_setter("force_fp32_communication"),
    "parallel_optimizer_config": _set_parallel_optimizer_config, "pipeline_config": _set_pipeline_config,
    "grad_accumulation_step": _set_grad_accumulation_step, "all_reduce_fusion_config": _set_all_reduce_fusion_config,
    "communi_parallel_mode": _set_communi_parallel_mode,
    "optimizer_weight_shard_size": _set_optimizer_weight_shard_size,
    "optimizer_weight_shard_aggregated_save": _set_shard_aggregated_save,
    "sharding_propagation": _set_sharding_propagation,
    "enable_alltoall": _bool_setter("enable_alltoall", "set_auto_parallel_context().set_enable_alltoall",
                                    "enable_a2a"),
    "strategy_ckpt_config": _set_strategy_ckpt_config, "comm_fusion": _set_comm_fusion,
    "dump_local_norm": _store("dump_local_norm"), "dump_local_norm_path": _store("dump_local_norm_path"),
    "dump_device_local_norm": _store("dump_device_local_norm"),
    "auto_parallel_new_interface": _store("auto_parallel_new_interface"),
    "init_param_in_compile": _store("init_param_in_compile"),
}
# keys whose stored value is not simply _values[key]
_GETTERS = {"auto_parallel_search_mode": lambda: _values["search_mode"], "dataset_strategy": _get_dataset_strategy,
            "strategy_ckpt_config": _get_strategy_ckpt_config}
_GET_KEYS = ("device_num", "global_rank", "gradients_mean", "gradient_fp32_sync", "loss_repeated_mean",
             "pipeline_stages", "auto_pipeline", "pipeline_result_broadcast", "pipeline_interleave",
             "pipeline_scheduler", "parallel_mode", "search_mode", "auto_parallel_search_mode", "parameter_broadcast",
             "strategy_ckpt_load_file", "strategy_ckpt_save_file", "full_batch", "dataset_strategy",
             "enable_parallel_optimizer", "force_fp32_communication", "grad_accumulation_step",
             "all_reduce_fusion_config", "communi_parallel_mode", "optimizer_weight_shard_size",
             "optimizer_weight_shard_aggregated_save", "sharding_propagation", "enable_alltoall", "comm_fusion",
             "strategy_ckpt_config", "full_batch_is_set", "dump_local_norm", "dump_local_norm_path",
             "dump_device_local_norm", "auto_parallel_new_interface", "init_param_in_compile")


def set_auto_parallel_context(**kwargs):
    """Set the auto-parallel context (MindSpore 2.10's keys, defaults, checks and errors).

    mindseed runs ``"stand_alone"``, ``"data_parallel"`` and ``"hybrid_parallel"`` (gradients all-reduced by
    `nn.TrainOneStepCell`); the other keys are recorded and read back by `get_auto_parallel_context`.

    Args:
        **kwargs: ``device_num`` (int, [1, 4096]), ``global_rank`` (int, [0, 4095]), ``gradients_mean`` (bool),
            ``parallel_mode`` (str, one of `ParallelMode.MODE_LIST`), ``parameter_broadcast`` (bool),
            ``gradient_fp32_sync``, ``loss_repeated_mean``, ``search_mode``, ``full_batch``, ``dataset_strategy``,
            ``all_reduce_fusion_config``, ``comm_fusion``, ``pipeline_stages``, ``pipeline_config``,
            ``parallel_optimizer_config``, ``strategy_ckpt_config``, ... (every key MindSpore 2.10 accepts).

    Raises:
        TypeError: a value of the wrong type.
        ValueError: an unknown key (``Set context keyword foo is not recognized!``) or a bad value.

    >>> import mindseed as ms
    >>> ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    >>> ms.get_auto_parallel_context("gradients_mean")
    True
    >>> ms.reset_auto_parallel_context()
    """
    for name, value in kwargs.items():
        kind = _TYPES.get(name)
        if kind is not None and value is not None and not isinstance(value, kind):
            raise TypeError(f"The parameter '{name}' must be {kind}, but got {type(value)}")
    for key, value in kwargs.items():
        setter = _SETTERS.get(key)
        if setter is None:
            raise ValueError(f"Set context keyword {key} is not recognized!")
        setter(value)


def get_auto_parallel_context(attr_key):
    """The value of one auto-parallel context key.

    Raises:
        ValueError: an unknown key.

    >>> import mindseed as ms
    >>> ms.get_auto_parallel_context("parallel_mode")
    'stand_alone'
    """
    if attr_key not in _GET_KEYS:
        raise ValueError(f"Get context keyword {attr_key} is not recognized!")
    getter = _GETTERS.get(attr_key)
    return getter() if getter is not None else _values[attr_key]


def reset_auto_parallel_context():
    """Reset every auto-parallel context key to its default (``parallel_mode='stand_alone'``, ``device_num=1``, ...)."""
    _values.clear()
    _values.update(copy.deepcopy(_DEFAULTS))


def _get_parallel_mode():
    return _values["parallel_mode"]


def _get_gradients_mean():
    return _values["gradients_mean"]


def _device_num_if_set():
    """`device_num` when the user set it, else None (MindSpore then uses the world group's size)."""
    return _values["device_num"] if _values["device_num_is_set"] else None


def _global_rank_if_set():
    return _values["global_rank"] if _values["global_rank_is_set"] else None
