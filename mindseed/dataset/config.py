"""`mindspore.dataset.config`: global settings of the data pipeline (seed, workers, prefetch, ...).

The seed follows MindSpore: `ds.config.set_seed` sets it, and so does `mindseed.set_seed` (whichever was
called last wins). Until either is called the seed is std::mt19937's default (5489) and shuffles draw
fresh entropy per iterator, as MindSpore's do.
"""
import enum
import json
import os
import random

import numpy as np

from mindseed import log as _logger
from mindseed.common import seed as _global_seed_mod

__all__ = [
    "set_seed", "get_seed", "set_prefetch_size", "get_prefetch_size", "set_num_parallel_workers",
    "get_num_parallel_workers", "set_numa_enable", "get_numa_enable", "set_monitor_sampling_interval",
    "get_monitor_sampling_interval", "set_auto_num_workers", "get_auto_num_workers", "set_callback_timeout",
    "get_callback_timeout", "set_enable_autotune", "get_enable_autotune", "set_autotune_interval",
    "get_autotune_interval", "set_enable_shared_mem", "get_enable_shared_mem", "set_sending_batches",
    "set_auto_offload", "get_auto_offload", "set_enable_watchdog", "get_enable_watchdog",
    "set_multiprocessing_timeout_interval", "get_multiprocessing_timeout_interval", "set_fast_recovery",
    "get_fast_recovery", "set_debug_mode", "get_debug_mode", "set_error_samples_mode", "get_error_samples_mode",
    "ErrorSamplesMode", "set_iterator_mode", "get_iterator_mode", "set_multiprocessing_start_method",
    "get_multiprocessing_start_method", "load",
]

_UINT32_MAX = 4294967295
_INT32_MAX = 2147483647
_DEFAULT_SEED = 5489


class ErrorSamplesMode(enum.Enum):
    """What the pipeline does with a sample whose processing fails."""
    RETURN = 0
    REPLACE = 1
    SKIP = 2


class _Config:
    def __init__(self):
        self.seed = None            # set by ds.config.set_seed
        self.seen_global = None     # the mindseed.set_seed value last adopted
        self.prefetch_size = 16
        self.num_parallel_workers = min(8, os.cpu_count() or 1)
        self.numa_enable = False
        self.monitor_sampling_interval = 1000
        self.auto_num_workers = False
        self.callback_timeout = 60
        self.enable_autotune = False
        self.autotune_interval = 0
        self.enable_shared_mem = True
        self.sending_batches = 0
        self.auto_offload = False
        self.enable_watchdog = True
        self.mp_timeout_interval = 300
        self.fast_recovery = True
        self.debug_mode = False
        self.debug_hooks = None     # the DebugHooks debug mode inserts around each map transform
        self.error_samples_mode = ErrorSamplesMode.RETURN
        self.iterator_mode = {"do_copy": False, "parallel_convert": False}
        self.mp_start_method = "fork"
        self.generation = 0         # bumped whenever the seed is (re)set: random transforms restart their streams


_config = _Config()


def _sync_global_seed():
    # mindseed.set_seed (layer 1) cannot call up into the dataset layer, so a new global seed is adopted here
    g = _global_seed_mod.get_seed()
    if g is not None and g != _config.seen_global:
        _config.seen_global = g
        _config.seed = g
        _config.generation += 1


def _check_int(name, value, low, high, msg):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} isn't of type int.")
    if value < low or value > high:
        raise ValueError(msg)


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be of type bool.")


def set_seed(seed):
    """Set the seed of the data pipeline's random generators (and of `random` and `numpy.random`).

    Args:
        seed (int): in [0, UINT32_MAX].

    Raises:
        TypeError: `seed` is not an int.
        ValueError: `seed` is out of range.
    """
    _check_int("seed", seed, 0, _UINT32_MAX,
               "seed given is not within the required range [0, UINT32_MAX(4294967295)].")
    _sync_global_seed()
    _config.seed = seed
    _config.generation += 1
    random.seed(seed)
    np.random.seed(seed)


def get_seed():
    """The pipeline seed; 5489 (std::mt19937's default) when none was set."""
    _sync_global_seed()
    return _DEFAULT_SEED if _config.seed is None else _config.seed


def _pipeline_seed():
    """The seed shuffles use, or None (fresh entropy) when no seed was ever set. In debug mode an unseeded pipeline
    takes seed 1 for good, as MindSpore's debug pass sets it ("Set seed to ensure deterministic results")."""
    _sync_global_seed()
    if _config.seed is None and _config.debug_mode:
        _config.seed = 1
        _config.generation += 1
    return _config.seed


def set_prefetch_size(size):
    """Set the size of the buffer queue between pipeline operations (rows)."""
    _check_int("size", size, 1, _INT32_MAX, "size is not within the required range (0, INT32_MAX(2147483647)].")
    _config.prefetch_size = size


def get_prefetch_size():
    """The buffer queue size between operations (default 16)."""
    return _config.prefetch_size


def set_num_parallel_workers(num):
    """Set the default number of parallel workers of each operation."""
    _check_int("num", num, 1, _INT32_MAX,
               "Number of parallel workers given is not within the required range (0, INT32_MAX(2147483647)].")
    cpus = os.cpu_count() or 1
    if num > cpus:   # MindSpore's config manager bounds it by the machine's hardware threads
        raise RuntimeError(f"Invalid Parameter, num_parallel_workers exceeds the boundary between 1 and {cpus}, "
                           f"as got {num}.")
    _config.num_parallel_workers = num


def get_num_parallel_workers():
    """The default number of parallel workers of each operation."""
    return _config.num_parallel_workers


def set_numa_enable(numa_enable):
    """Set whether to bind workers to NUMA nodes (recorded; binding is left to the OS here)."""
    if not isinstance(numa_enable, bool):
        raise TypeError("numa_enable must be a boolean dtype.")
    _config.numa_enable = numa_enable


def get_numa_enable():
    """Whether NUMA binding is enabled."""
    return _config.numa_enable


def set_monitor_sampling_interval(interval):
    """Set the performance monitor's sampling interval in milliseconds."""
    _check_int("interval", interval, 0, _INT32_MAX,
               "Interval given is not within the required range [0, INT32_MAX(2147483647)].")
    _config.monitor_sampling_interval = interval


def get_monitor_sampling_interval():
    """The performance monitor's sampling interval in milliseconds."""
    return _config.monitor_sampling_interval


def set_auto_num_workers(enable):
    """Set whether the number of workers is chosen automatically."""
    _check_bool("enable", enable)
    _config.auto_num_workers = enable


def get_auto_num_workers():
    """Whether the number of workers is chosen automatically."""
    return _config.auto_num_workers


def set_callback_timeout(timeout):
    """Set the timeout (seconds) of DSWaitedCallback / sync_wait."""
    _check_int("timeout", timeout, 1, _INT32_MAX, "Timeout given is not within the required range.")
    _config.callback_timeout = timeout


def get_callback_timeout():
    """The timeout (seconds) of DSWaitedCallback / sync_wait."""
    return _config.callback_timeout


def _check_independent_mode(feature, condition=True):
    """MindSpore's RuntimeError for `feature` (when `condition`) in Dataset Independent mode
    (MS_INDEPENDENT_DATASET=True)."""
    env = os.environ.get("MS_INDEPENDENT_DATASET")
    if condition and env and env.strip() in ("True", "true"):
        raise RuntimeError(f"{feature} is not supported in Dataset Independent mode.")


def set_enable_autotune(enable, filepath_prefix=None):
    """Set whether the pipeline tunes itself (recorded only)."""
    _check_bool("enable", enable)
    _check_independent_mode("Dataset AutoTune", enable)
    if filepath_prefix and not isinstance(filepath_prefix, str):
        raise TypeError(f"json_filepath must be a str value but was: {filepath_prefix}.")
    if enable and filepath_prefix == "":
        raise RuntimeError("The value of json_filepath cannot be the empty string.")
    if not enable and filepath_prefix is not None:
        _logger.warning("The value of json_filepath is ignored when enable is False.")
    if enable and filepath_prefix is None:
        _logger.warning("Dataset AutoTune is enabled but no json path is specified, check INFO log for tuned result.")
    if enable and filepath_prefix:
        _check_autotune_path(filepath_prefix)
    _config.enable_autotune = enable


def _check_autotune_path(path):
    """The checks MindSpore's config manager makes of the AutoTune output path (a file in a writable directory)."""
    if path.endswith("/") or os.path.isdir(path):
        raise RuntimeError(f"Invalid json_filepath parameter. <{path}> is a directory, not filename.")
    parent = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(parent):
        raise RuntimeError(f"Invalid json_filepath parameter.  Directory <{os.path.dirname(path)}> does not exist.")
    if not os.access(parent, os.W_OK):
        raise RuntimeError(f"Invalid json_filepath parameter. No access to write to <{parent}>.")


def get_enable_autotune():
    """Whether autotune is enabled."""
    return _config.enable_autotune


def set_autotune_interval(interval):
    """Set the autotune interval in steps."""
    _check_int("interval", interval, 0, _INT32_MAX,
               "Interval given is not within the required range [0, INT32_MAX(2147483647)].")
    _config.autotune_interval = interval


def get_autotune_interval():
    """The autotune interval in steps."""
    return _config.autotune_interval


def set_enable_shared_mem(enable):
    """Set whether process workers return large results through shared memory (else through pipes). With it
    (the default), a map of fused built-in image ops (Decode + RandomResizedCrop [+ flips] [+ Normalize
    [+ HWC2CHW]]) under a batch builds whole batches in worker processes straight into shared memory; without
    it, such maps use worker threads."""
    _check_bool("enable", enable)
    _config.enable_shared_mem = enable


def get_enable_shared_mem():
    """Whether shared memory is enabled for process workers."""
    return _config.enable_shared_mem


def set_sending_batches(batch_num):
    """Set how many batches are sent to the device in sink mode."""
    if not isinstance(batch_num, int) or isinstance(batch_num, bool):
        raise TypeError("batch_num must be an int dtype.")
    _config.sending_batches = batch_num


def set_auto_offload(offload):
    """Set whether map operations may be offloaded to the device (recorded only)."""
    if not isinstance(offload, bool):
        raise TypeError("offload must be a bool dtype")
    _check_independent_mode("Dataset Offload", offload)
    _config.auto_offload = offload


def get_auto_offload():
    """Whether automatic offload is enabled."""
    return _config.auto_offload


def set_enable_watchdog(enable):
    """Set whether worker processes are watched (they always exit when the main process dies)."""
    if not isinstance(enable, bool):
        raise TypeError("enable must be a boolean dtype.")
    _config.enable_watchdog = enable


def get_enable_watchdog():
    """Whether the watchdog is enabled."""
    return _config.enable_watchdog


def set_multiprocessing_timeout_interval(interval):
    """Set the interval (seconds) of the warning printed while waiting for a worker process."""
    _check_int("interval", interval, 1, _INT32_MAX,
               "Interval given is not within the required range (0, INT32_MAX(2147483647)].")
    _config.mp_timeout_interval = interval


def get_multiprocessing_timeout_interval():
    """The multiprocessing timeout interval in seconds."""
    return _config.mp_timeout_interval


def set_fast_recovery(fast_recovery):
    """Set whether a restarted pipeline skips to its position quickly."""
    if not isinstance(fast_recovery, bool):
        raise TypeError("fast_recovery must be a boolean dtype.")
    _config.fast_recovery = fast_recovery


def get_fast_recovery():
    """Whether fast recovery is enabled."""
    return _config.fast_recovery


def set_debug_mode(debug_mode_flag, debug_hook_list=None):
    """Set debug mode: the pipeline runs in one thread, and the hooks of `debug_hook_list` (default: one
    `debug.PrintMetaDataHook`) run before the first and after each transform of every `map`.

    Raises:
        TypeError: `debug_mode_flag` is not a bool, `debug_hook_list` not a list, or an item not a DebugHook.
    """
    from mindseed.dataset.debug import DebugHook, PrintMetaDataHook  # noqa: PLC0415 (debug imports no config)
    if not isinstance(debug_mode_flag, bool):
        raise TypeError("debug_mode_flag isn't of type boolean.")
    if debug_hook_list is None:
        debug_hook_list = [PrintMetaDataHook()]
    if not isinstance(debug_hook_list, list):
        raise TypeError("debug_hook_list is not a list.")
    for hook in debug_hook_list:
        if not isinstance(hook, DebugHook):
            raise TypeError("All items in debug_hook_list must be of type DebugHook.")
    if debug_hook_list:
        _config.debug_hooks = debug_hook_list
    _config.debug_mode = debug_mode_flag


def _get_debug_hook_list():
    """The hooks debug mode inserts (None before any were set)."""
    return _config.debug_hooks


def get_debug_mode():
    """Whether debug mode is on."""
    return _config.debug_mode


def set_error_samples_mode(error_samples_mode):
    """Set what happens to a sample whose processing fails (only RETURN, raising, is done here)."""
    if not isinstance(error_samples_mode, ErrorSamplesMode):
        raise TypeError("error_samples_mode must be of type ErrorSamplesMode.")
    _config.error_samples_mode = error_samples_mode


def get_error_samples_mode():
    """The error samples mode."""
    return _config.error_samples_mode


def set_iterator_mode(do_copy=False, parallel_convert=False):
    """Set the default iterator conversion mode."""
    _check_bool("do_copy", do_copy)
    _check_bool("parallel_convert", parallel_convert)
    _config.iterator_mode = {"do_copy": do_copy, "parallel_convert": parallel_convert}


def get_iterator_mode():
    """The iterator conversion mode."""
    return dict(_config.iterator_mode)


def set_multiprocessing_start_method(start_method="fork"):
    """Set how worker processes start ('fork' or 'spawn'; workers here are always forked)."""
    if start_method not in ("fork", "spawn"):
        raise ValueError(f"start_method should be 'fork' or 'spawn', but got {start_method}.")
    _config.mp_start_method = start_method


def get_multiprocessing_start_method():
    """The multiprocessing start method."""
    return _config.mp_start_method


def load(file):
    """Load settings from a JSON file with keys like MindSpore's config file (seed, numParallelWorkers, ...)."""
    if not isinstance(file, str):
        raise TypeError(f"file must be a str, but got {type(file).__name__}.")
    if not os.path.isfile(file):
        raise RuntimeError(f"Config load: file {file} does not exist.")
    try:
        with open(file, encoding="utf-8") as f:
            cfg = json.load(f)
    except ValueError as e:
        raise RuntimeError(f"Config load: file {file} is not valid JSON: {e}") from None
    keys = {"seed": set_seed, "numParallelWorkers": set_num_parallel_workers,
            "opConnectorSize": set_prefetch_size, "monitorSamplingInterval": set_monitor_sampling_interval,
            "callbackTimeout": set_callback_timeout}
    for k, v in cfg.items():
        if k in keys:
            keys[k](v)
