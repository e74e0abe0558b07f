"""The few names of MindSpore's C++ extension module (`mindspore._c_expression`) that Python code outside the
framework imports: the bytecode-capture (PIJit) records and default configuration.

mindseed compiles `jit` functions from their source (every `capture_mode` takes the AST path); a function jitted
with ``capture_mode="bytecode"`` still keeps MindSpore's compile record (`compiler/capture.py`), which
`get_code_extra` returns (None for a function never called so). `update_pijit_default_config` keeps the options it
is given.

`MSContext.get_instance()` is the context seen from the C++ side (`get_param(ms_ctx_param.mode)`, the Ascend SoC
version, which device packages are installed) and `typing` the type classes (`Float`, `BFloat`, `kFloat32`, ...),
which model code (mindformers) reads. `ParamInfo` is the attribute record of a Parameter (`ParamInfo()` names it
"Parameter"), which code defining its own parameter types (mindnlp) creates. `TensorPy` is the C++ base class of
MindSpore's Tensor; mindseed's Tensor has no such base, so the name is Tensor itself (`TensorPy(array)` makes one and
every Tensor is an instance). `pyboost_empty([size, dtype, device])` is the direct call of the `Empty` kernel in the
form MindSpore 2.3-2.5 had (mindnlp's `empty`); 2.10 moved it to `(prim, [size, dtype id, device, pin_memory])`.
`_framework_profiler_step_start()` / `_end()` delimit a framework step for a recording profiler (mindnlp's
`generate(..., profile=True)`): here a `ProfilerStep` range in its trace, nothing when no profiler records.
`CreationType` names how a view tensor was created (the values `_pynative_executor.set_creation_type` takes).
"""
import enum

from mindseed._c_expression import typing  # noqa: F401
from mindseed.common.parameter import ParamInfo  # noqa: F401
from mindseed.common.tensor import Tensor as TensorPy  # noqa: F401
from mindseed.compiler import capture as _capture

__all__ = ["get_code_extra", "update_pijit_default_config", "pijit_default_config", "MSContext", "ms_ctx_param",
           "swap_cache", "ParamInfo", "TensorPy", "pyboost_empty", "_framework_profiler_step_start",
           "_framework_profiler_step_end", "CreationType"]

_pijit_config = {}


class CreationType(enum.IntEnum):
    """How a view tensor was created: in the default way, under no-grad, as one output of several, or by a custom
    bprop."""
    DEFAULT = 0
    NO_GRAD_MODE = 1
    MULTI_OUTPUT = 2
    CUSTOM_BPROP = 3


def get_code_extra(code):
    """The bytecode-capture record of a function or code object (see the module docstring), or None."""
    if not callable(code) and type(code).__name__ != "code":
        raise TypeError(f"For 'get_code_extra', the argument must be a function or a code object, but got "
                        f"{type(code).__name__}.")
    code = getattr(code, "__code__", code)
    return _capture.record_of(code) if type(code).__name__ == "code" else None


def update_pijit_default_config(**kwargs):
    """Record default options of bytecode capture (e.g. ``compile_with_try=False``)."""
    _pijit_config.update(kwargs)


def pijit_default_config():
    """The options recorded by `update_pijit_default_config`, as a dict."""
    return dict(_pijit_config)


class ms_ctx_param:  # noqa: N801 (MindSpore's name)
    """The context keys `MSContext.get_param` / `set_param` take (`ms_ctx_param.mode`, `.device_target`, ...)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"ms_ctx_param.{self.name}"


for _key in ("mode", "device_target", "device_id", "save_graphs", "save_graphs_path", "deterministic", "jit_level",
             "jit_syntax_level", "max_call_depth", "max_device_memory", "runtime_num_threads", "print_file_path",
             "enable_compile_cache", "compile_cache_path", "pynative_synchronize", "memory_optimize_level",
             "op_timeout", "inter_op_parallel_num", "enable_graph_kernel", "graph_kernel_flags", "debug_level",
             "check_bprop"):
    setattr(ms_ctx_param, _key, ms_ctx_param(_key))


class MSContext:
    """MindSpore's C++ context singleton: reads and writes the same settings as `mindspore.get_context` /
    `set_context`."""
    _instance = None

    @classmethod
    def get_instance(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    @staticmethod
    def get_param(param):
        from mindseed.common.context import get_context  # noqa: PLC0415 (the context imports the framework)
        return get_context(param.name)

    @staticmethod
    def set_param(param, value):
        from mindseed.common.context import set_context  # noqa: PLC0415
        set_context(**{param.name: value})

    @staticmethod
    def get_ascend_soc_version():
        """The Ascend SoC of this machine: '' (there is none), as MindSpore reports on a CPU."""
        return ""

    @staticmethod
    def is_pkg_support_device(device):
        """Whether this build runs on `device`: 'CPU' only."""
        return device == "CPU"

    @staticmethod
    def ascend_soc_supports_feature(feature):
        return False

    @staticmethod
    def get_backend_policy():
        return "ms"


def swap_cache(host, device, block_mapping, is_device_to_host):
    """Swap the blocks of a paged attention cache between host and device copies, in place: for each row
    (src, dst) of `block_mapping`, block `src` of one cache (the device's when `is_device_to_host`, else the
    host's) is copied over block `dst` of the other."""
    src_cache, dst_cache = (device, host) if is_device_to_host else (host, device)
    for src, dst in block_mapping.asnumpy().reshape(-1, 2).tolist():
        dst_cache[int(dst)] = src_cache[int(src)]


def pyboost_empty(args, *more):
    """An uninitialised Tensor: `pyboost_empty([size, dtype, device])` (MindSpore 2.3-2.5's direct call of the
    `Empty` kernel; `device` is ignored, tensors live on the context's device)."""
    if more or not isinstance(args, (list, tuple)) or len(args) != 3:
        raise RuntimeError(f"For 'pyboost_empty', the argument must be one list [size, dtype, device], but got "
                           f"{1 + len(more)} argument(s): {args!r:.80}.")
    from mindseed.ops.functional._array_create import empty  # noqa: PLC0415 (ops is a layer above this module)
    size, dtype, _ = args
    return empty(size, dtype=dtype)


_profiler_step = []     # the open `ProfilerStep` range ids


def _framework_profiler_step_start():
    """Open a `ProfilerStep` range in the trace of the recording profiler (none: nothing happens)."""
    from mindseed.profiler.mstx import Mstx  # noqa: PLC0415 (the profiler is a layer above this module)
    _profiler_step.append(Mstx.range_start("ProfilerStep"))


def _framework_profiler_step_end():
    """Close the range the last `_framework_profiler_step_start` opened."""
    from mindseed.profiler.mstx import Mstx  # noqa: PLC0415
    if _profiler_step:
        Mstx.range_end(_profiler_step.pop())
