"""set_context / get_context with MindSpore 2.10's keys; the execution mode is read from `_state.mode`."""
import os

from mindseed import _backend as B
from mindseed._utils import _state

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "STRICT", "COMPATIBLE", "LAX", "set_context", "get_context",
           "set_device", "get_current_device", "set_deterministic", "ParallelMode", "set_recursion_limit"]

GRAPH_MODE = 0
PYNATIVE_MODE = 1
STRICT, COMPATIBLE, LAX = 0, 1, 2
RELEASE, DEBUG = 0, 1

_ASCEND_ONLY = ('precision_mode', 'jit_compile', 'atomic_clean_policy', 'matmul_allow_hf32', 'conv_allow_hf32',
                'op_precision_mode', 'host_scheduling_max_threshold', 'ge_options', 'op_debug_option')

# every key MindSpore 2.10 accepts, with its default
_DEFAULTS = {
    "mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0, "save_graphs": 0, "save_graphs_path": ".",
    "deterministic": "OFF", "max_call_depth": 1000, "variable_memory_max_size": "0", "mempool_block_size": "1GB",
    "print_file_path": "", "env_config_path": "", "precompile_only": False, "reserve_class_name_in_scope": True,
    "pynative_synchronize": False, "max_device_memory": "1024GB", "enable_graph_kernel": False,
    "graph_kernel_flags": "", "enable_reduce_precision": True, "check_bprop": False, "enable_profiling": False,
    "profiling_options": "", "aoe_tune_mode": "", "aoe_config": {}, "ascend_config": {}, "gpu_config": {},
    "jit_syntax_level": LAX, "jit_config": {}, "debug_level": RELEASE, "runtime_num_threads": 2,
    "inter_op_parallel_num": 0, "memory_optimize_level": "O0", "memory_offload": "OFF",
    "disable_format_transform": False, "op_timeout": 900, "enable_compile_cache": None, "compile_cache_path": "",
    "enable_parallel_split": False, "aoe_job_type": "2", "conv_fprop_algo": "normal", "conv_dgrad_algo": "normal",
    "conv_wgrad_algo": "normal", "conv_allow_tf32": True, "matmul_allow_tf32": False, "jit_level": "",
    "infer_boost": "off", "exec_order": "bfs", "topo_order": {}, "enable_sparse": False, "grad_for_scalar": False,
    "auto_tune_mode": "", "enable_dump": False, "save_dump_path": ".", "support_binary": False,
    "recompute_comm_overlap": False, "matmul_grad_comm_overlap": False, "pp_1f1b_overlap": "",
    "enable_task_opt": False, "enable_grad_comm_opt": False, "enable_opt_shard_comm_opt": False,
    "compute_communicate_fusion_level": 0, "dataset_broadcast_opt_level": 0, "interleaved_matmul_comm": False,
    "interleaved_layernorm_comm": False, "bias_add_comm_swap": False, "enable_begin_end_inline_opt": False,
    "enable_concat_eliminate_opt": False, "enable_fused_cast_add_opt": False, "cur_step_num": 0,
    "need_ckpt": False, "save_checkpoint_steps": 0, "last_triggered_step": 0, "hccl_watchdog": True,
    "recompute_allgather_overlap_fagrad": False, "enable_flash_attention_load_balance": False,
    "enable_allreduce_slice_to_reducescatter": False, "enable_interleave_split_concat_branch": False,
    "enable_interleave_parallel_branch": False, "enable_offloading_packed_experts": False,
}
_values = dict(_DEFAULTS)

# the Python type MindSpore's set_context checks each of these keys for (a TypeError before anything is set)
_TYPES = {
    "mode": int, "device_target": str, "device_id": int, "save_graphs": (bool, int), "save_graphs_path": str,
    "aoe_tune_mode": str, "aoe_config": dict, "enable_reduce_precision": bool, "variable_memory_max_size": str,
    "enable_auto_mixed_precision": bool, "inter_op_parallel_num": int, "enable_graph_kernel": bool,
    "reserve_class_name_in_scope": bool, "check_bprop": bool, "max_device_memory": str, "print_file_path": str,
    "max_call_depth": int, "env_config_path": str, "graph_kernel_flags": str, "save_compile_cache": bool,
    "runtime_num_threads": int, "load_compile_cache": bool, "pynative_synchronize": bool, "mempool_block_size": str,
    "disable_format_transform": bool, "op_timeout": int, "deterministic": str, "ascend_config": dict,
    "jit_syntax_level": int, "debug_level": int, "jit_enable_inplace_ops": bool, "gpu_config": dict,
    "jit_config": dict, "enable_compile_cache": bool,
}


def _check_arg_types(types, kwargs):
    """MindSpore's `args_type_check`: a value that is not None must be an instance of its key's type."""
    for key, value in kwargs.items():
        expected = types.get(key)
        if expected is not None and value is not None and not isinstance(value, expected):
            raise TypeError(f"The parameter '{key}' must be {expected}, but got {type(value)}")


def _set_mode(value):
    if value not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError(f"For 'context.set_context', the argument 'mode' should be context.GRAPH_MODE (0) or "
                         f"context.PYNATIVE_MODE (1), but got {value}.")
    _state.mode = value


def _set_device_target(value):
    if not isinstance(value, str) or value.upper() not in ("CPU", "GPU", "ASCEND"):
        raise ValueError(f"For 'context.set_context', the argument 'device_target' must be one of 'CPU', 'GPU' or "
                         f"'Ascend', but got {value!r}.")
    if value.upper() == "ASCEND":
        # MindSpore's error for a device target its process was not built for
        raise RuntimeError("For 'context.set_context', unsupported device target Ascend: mindseed runs on the "
                           "devices PyTorch supports (CPU, GPU).")
    B.set_device(value, _values.get("device_id"))
    value = "GPU" if value.upper() == "GPU" else "CPU"
    _values["device_target"] = value


def _set_deterministic(value):
    if value not in ("ON", "OFF"):
        raise ValueError(f"For 'context.set_context', the argument 'deterministic' must be 'ON' or 'OFF', but got "
                         f"{value!r}.")
    B.set_deterministic(value == "ON")


def _set_save_graphs(value):
    if value is True:
        value = 2
    if value is False:
        value = 0
    if not isinstance(value, int) or not 0 <= value <= 3:
        raise ValueError(f"value for save_graphs should be 0-3 but got '{value}'")
    return value


def _set_save_graphs_path(path):
    """The directory where graphs are saved, made absolute and created now (MindSpore's `_make_directory`)."""
    if not path.strip():
        raise ValueError(f"For 'context.set_context', the 'save_graphs_path' or the 'print_file_path' is invalid "
                         f"type, it should be Non-empty string, but got '{path}'.")
    path = os.path.realpath(path)
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except PermissionError as e:
        raise ValueError(f"{e}\nNo write permission on the directory '{path}'.") from e
    return path


def _set_threads(value):
    if not isinstance(value, int) or value < 0:
        raise ValueError("The num of thread must bigger than or equal to 0.")
    if value:
        B.set_num_threads(value)


_SETTERS = {
    "mode": _set_mode, "device_target": _set_device_target, "deterministic": _set_deterministic,
    "save_graphs": _set_save_graphs, "save_graphs_path": _set_save_graphs_path, "runtime_num_threads": _set_threads,
}


def set_context(**kwargs):
    """Set the running environment (MindSpore's keys; keys with no meaning here are recorded).

    Raises:
        TypeError: a value of the wrong Python type for its key (`mode` must be an int, `device_target` a str, ...).
        ValueError: an unknown key, or a bad value for `mode`, `device_target`, `deterministic`, `save_graphs`.

    >>> import mindseed as ms
    >>> ms.set_context(mode=ms.PYNATIVE_MODE)
    """
    _check_arg_types(_TYPES, kwargs)
    for key, value in kwargs.items():
        if key in _ASCEND_ONLY:
            raise ValueError(f"Please set '{key}' through parameter ascend_config")
        if key not in _DEFAULTS:
            raise ValueError(f"For 'context.set_context', the keyword argument {key} is not recognized! For detailed "
                             f"usage of 'set_context', please refer to the Mindspore official website.")
        if key == "jit_syntax_level" and value not in (STRICT, COMPATIBLE, LAX):
            raise ValueError(f"For 'jit_syntax_level', the value should be context.STRICT or context.LAX, but got "
                             f"{value}.")
        setter = _SETTERS.get(key)
        if setter is not None:
            result = setter(value)
            if result is not None:
                value = result
        if key != "device_target":
            _values[key] = value


def get_context(attr_key):
    """The value of a context key.

    Raises:
        ValueError: an unknown key.
    """
    if attr_key == "mode":
        return _state.mode
    if attr_key == "enable_ge":     # read-only in MindSpore too: whether the backend is Ascend's GE (never here)
        return False
    if attr_key not in _values:
        raise ValueError(f"For 'context.get_context', the argument {attr_key} is not recognized! For detailed usage "
                         f"of 'get_context', please refer to the Mindspore official website.")
    return _values[attr_key]


def set_device(device_target, device_id=None):
    """Run on 'CPU' or 'GPU' (torch's CUDA device `device_id`).

    Raises:
        TypeError: `device_target` is not a str or `device_id` not an int.
        ValueError: an unknown device, or a negative `device_id`.
    """
    _check_arg_types({"device_target": str, "device_id": int}, {"device_target": device_target,
                                                                "device_id": device_id})
    if device_id is not None and device_id < 0:
        raise ValueError("The device id must bigger than or equal to 0.")
    if device_id is not None:
        _values["device_id"] = device_id
    _set_device_target(device_target)


def get_current_device():
    return _values["device_target"]


# `set_deterministic` is once per process in MindSpore (its DeviceManagerConf remembers the call; `set_context(
# deterministic=...)` is not counted): a second call is a RuntimeError, which mindformers' context set-up catches
_deterministic_configured = set()


def set_deterministic(deterministic):
    """Deterministic kernels on (True) or off; once per process.

    Raises:
        TypeError: `deterministic` is not a bool.
        RuntimeError: it was set before.
    """
    if not isinstance(deterministic, bool):
        raise TypeError(f"For 'set_deterministic', the 'deterministic' must be bool, but got "
                        f"{type(deterministic).__name__}.")
    if _deterministic_configured:
        raise RuntimeError("The 'mindspore.set_deterministic' can not be set repeatedly.")
    _deterministic_configured.add(True)
    _set_deterministic("ON" if deterministic else "OFF")
    _values["deterministic"] = "ON" if deterministic else "OFF"


def set_recursion_limit(recursion_limit=1000):
    _values["max_call_depth"] = recursion_limit


def reset():
    _values.clear()
    _values.update(_DEFAULTS)
    _state.mode = PYNATIVE_MODE


class ParallelMode:
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]
