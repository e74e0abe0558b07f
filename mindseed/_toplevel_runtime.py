"""Top-level runtime and compile helpers of MindSpore: dynamic-shape declarations (`enable_dynamic`, `Symbol`),
the dump switch of a Cell (`set_dump`), compiled-graph memory and work (`ms_memory_recycle`, `flops_collection`),
allocator replay (`memory_replay`), the device context (`DeviceCtx`) and the MindIO checkpoint cache settings."""
import inspect
import json
import os
import types

import numpy as np

from mindseed import _backend as B
from mindseed.common import context as _context
from mindseed.common.file_system import mindio_preload, mindio_server_info, set_mindio_server_info  # noqa: F401
from mindseed.common.symbol import Symbol
from mindseed.common.tensor import Tensor
from mindseed.compiler import flops as _flops
from mindseed.compiler.dynamic import _signature_of
from mindseed.compiler.jit import _Compiled
from mindseed.runtime.memory import memory_replay  # noqa: F401  (a top-level name too, as MindSpore)

__all__ = ["enable_dynamic", "Symbol", "set_dump", "ms_memory_recycle", "memory_replay", "flops_collection",
           "DeviceCtx", "mindio_preload", "set_mindio_server_info"]


# ---------------------------------------------------------------- enable_dynamic
def _check_dynamic_arg(arg, name):
    if isinstance(arg, (tuple, list)):
        for item in arg:
            _check_dynamic_arg(item, name)
    elif not isinstance(arg, Tensor):
        raise TypeError(f"The decorator enable_dynamic only supports Tensor or a tuple/list of Tensor, but the "
                        f"argument : {name} is type of:{type(arg)}.")


def _has_dynamic_dim(arg):
    if isinstance(arg, (tuple, list)):
        return any(_has_dynamic_dim(a) for a in arg)
    sig = _signature_of([arg])[0]
    return sig == "rank" or None in sig


def enable_dynamic(**kwargs):
    r"""Declare arguments of a `jit` function as dynamic: `name=Tensor(shape=[None, 3], dtype=...)` (None dims
    dynamic; ``shape=None``: dynamic rank). The function then compiles one graph for every size of those dims.

    Args:
        \*\*kwargs (dict[str, Union[Tensor, tuple[Tensor], list[Tensor]]]): placeholders by argument name.

    Returns:
        A decorator for a function (or method) made by `jit`.

    Raises:
        ValueError: no argument, more arguments than the function has, or a function not made by `jit`.
        TypeError: a placeholder that is not a Tensor (or tuple/list of them), or one without a None dim.

    >>> import numpy as np, mindseed as ms
    >>> @ms.enable_dynamic(y=ms.Tensor(shape=None, dtype=ms.float32))
    ... @ms.jit
    ... def f(x, y):
    ...     return x + 1, y + 1
    >>> f(ms.Tensor(np.ones(2), ms.float32), ms.Tensor(np.ones((2, 3)), ms.float32))[1].shape
    (2, 3)
    """
    if not kwargs:
        raise ValueError("When using decorator enable_dynamic, the input cannot be empty!")
    for name, arg in kwargs.items():
        _check_dynamic_arg(arg, name)
        if not _has_dynamic_dim(arg):
            raise TypeError(f"When using decorator enable_dynamic, the shape of argument '{name}' at least have one "
                            f"None.")

    def decorator(func):
        if not isinstance(func, (types.FunctionType, types.MethodType, _Compiled)):
            raise ValueError(f"Decorator enable_dynamic can only be used for function or method decrocated by ms.jit, "
                             f"but got {func}.")
        if not isinstance(func, _Compiled):
            raise ValueError(f"Decorator enable_dynamic can only be used for function or method decrocated by ms.jit, "
                             f"but got {func} without ms.jit.")
        names = [n for n in inspect.signature(func.fn).parameters if n != "self"]
        if len(kwargs) > len(names):
            raise ValueError(f"When using decorator enable_dynamic, the number of arguments {len(kwargs)} exceeds the "
                             f"number of function arguments {len(names)}.")
        for key, value in kwargs.items():
            if key not in names:
                raise ValueError(f"When using decorator enable_dynamic, '{key}' is not an argument of {func.name} "
                                 f"(arguments: {names}).")
            if isinstance(value, (tuple, list)):
                raise TypeError(f"For 'enable_dynamic', the argument '{key}': tuple/list placeholders are declared "
                                f"per Tensor argument here; give the Tensor argument its placeholder.")
        placeholders = [kwargs.get(n) for n in names]
        func.dyn = _signature_of(placeholders)
        func.cache.clear()
        return func
    return decorator


# ---------------------------------------------------------------- set_dump
def _dump_settings():
    """The `common_dump_settings` of the file MINDSPORE_DUMP_CONFIG names, when it asks for dump_mode 2."""
    path = os.environ.get("MINDSPORE_DUMP_CONFIG")
    if not path or not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        settings = json.load(f).get("common_dump_settings", {})
    return settings if int(settings.get("dump_mode", 0)) == 2 else None


def _dump_hook(cell, args, output):
    settings = _dump_settings()
    if settings is None or not cell._flags.get("dump", False):
        return None
    step = cell.__dict__.get("_dump_step", 0)
    cell.__dict__["_dump_step"] = step + 1
    folder = os.path.join(settings.get("path", "."), "rank_0", settings.get("net_name", "Net"), "0", str(step))
    os.makedirs(folder, exist_ok=True)
    which = int(settings.get("input_output", 0))     # 0: both, 1: inputs, 2: outputs
    stem = f"{type(cell).__name__}.{cell.__dict__.get('_dump_name', type(cell).__name__)}"
    groups = ([("input", args)] if which in (0, 1) else []) + ([("output", output)] if which in (0, 2) else [])
    for kind, values in groups:
        values = values if isinstance(values, (tuple, list)) else (values,)
        for i, v in enumerate(values):
            if isinstance(v, Tensor):
                np.save(os.path.join(folder, f"{stem}.{kind}.{i}.npy"), v.asnumpy())
    return None


def set_dump(target, enabled=True):
    """Turn dumping of `target` (a Cell, with the cells inside it, or a Primitive) on or off.

    With the dump configuration file named by MINDSPORE_DUMP_CONFIG asking for ``"dump_mode": 2``, each call of a
    marked Cell writes its inputs and outputs (``input_output`` 0: both, 1: inputs, 2: outputs) as ``.npy`` files
    under ``<path>/rank_0/<net_name>/0/<call number>/``. A Primitive gets the attribute ``dump`` (``"true"`` or
    ``"false"``).

    Raises:
        ValueError: `target` neither a Cell nor a Primitive.
        ValueError: `enabled` not a bool.
    """
    from mindseed.nn.cell import Cell  # noqa: PLC0415 -- nn imports the top level's layers
    from mindseed.ops.operations._base import Primitive  # noqa: PLC0415
    if not isinstance(target, (Cell, Primitive)):
        raise ValueError(f"The \"target\" parameter must be an instance of Cell or Primitive, but got an instance of "
                         f"{type(target)}.")
    if not isinstance(enabled, bool):
        raise ValueError(f"The \"enabled\" parameter must be bool, but got {type(enabled)}.")
    if isinstance(target, Primitive):
        target.add_prim_attr("dump", "true" if enabled else "false")
        return
    for name, cell in target.cells_and_names():
        cell.add_flags(dump=enabled)
        for prim in list(cell.__dict__.values()):
            # a primitive of the cell already marked (set_dump on it) follows the cell's switch
            if isinstance(prim, Primitive) and "dump" in prim.attrs:
                prim.add_prim_attr("dump", "true" if enabled else "false")
        if enabled and not cell.__dict__.get("_dump_hooked"):
            cell.__dict__["_dump_name"] = name or "Default"
            cell.__dict__["_dump_hooked"] = True
            cell.register_forward_hook(_dump_hook)


# ---------------------------------------------------------------- compiled graphs
def ms_memory_recycle():
    """Release what compiled graphs keep: every jitted function's and graph-mode Cell's cached graphs (they compile
    again on their next call), then the device allocator's cached memory.

    >>> import mindseed as ms
    >>> ms.ms_memory_recycle()
    """
    for compiled in _flops.compiled_functions():
        compiled.cache.clear()
        compiled.value_keyed.clear()
        compiled.value_graphs.clear()
        compiled.last_graph = None
    B.empty_cache()


def flops_collection(phase="train"):
    """The floating-point work of the newest compiled graph of a Cell in `phase` ('train' or 'predict'; any
    compiled function for another string): (full model flops, full hardware flops, shard model flops, shard
    hardware flops, is dynamic shape). Counted: matrix products, convolutions and flash attention, forward and
    backward; hardware flops add recomputed work. Without model parallelism the shard figures are the full ones.

    Raises:
        RuntimeError: nothing was compiled yet.
    """
    compiled = _flops.newest(phase if phase in ("train", "predict") else None)
    if compiled is None:
        raise RuntimeError(f"For 'flops_collection', no graph of phase '{phase}' has been compiled: it counts the work "
                           f"of a graph-mode (jit) network after its first step.")
    graph = compiled.last_graph
    if graph.dynamic:
        return 0.0, 0.0, 0.0, 0.0, True
    model, hardware = _flops.graph_flops(graph)
    return float(model), float(hardware), float(model), float(hardware), False


# ---------------------------------------------------------------- device context
class DeviceCtx:
    """Run the block on device `name` ('CPU' or 'GPU', card `device_id`), restoring the previous device after.

    Raises:
        ValueError: an unknown device name, a negative `device_id`, or a device this machine does not have.

    >>> import mindseed as ms
    >>> with ms.DeviceCtx("CPU"):
    ...     ms.get_current_device()
    'CPU'
    """

    def __init__(self, name: str, device_id=None):
        self.name = name
        self.device_id = device_id
        self._saved = []

    def __enter__(self):
        valid = ["CPU", "GPU", "Ascend", "meta"]
        if self.name not in valid:
            raise ValueError(f"For DeviceCtx, the name must be one of {valid}, but got {self.name}.")
        if self.device_id is not None and self.device_id < 0:
            raise ValueError("For DeviceCtx, the device_id must be greater than or equal to 0.")
        if self.name in ("Ascend", "meta"):
            raise ValueError(f"For DeviceCtx, the device '{self.name}' is not available: mindseed runs on the devices "
                             f"PyTorch supports (CPU, GPU).")
        self._saved.append((_context.get_current_device(), _context.get_context("device_id")))
        _context.set_device(self.name, 0 if self.device_id is None else self.device_id)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        target, device_id = self._saved.pop()
        _context.set_device(target, device_id)


# MindIO (the top level's `mindio_preload`, `set_mindio_server_info`) lives in common.file_system, MindSpore's module
