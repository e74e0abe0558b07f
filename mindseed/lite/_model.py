"""The Lite runtime's objects: Context (targets, threads), Tensor (numpy in/out), Model, ModelParallelRunner."""
import enum
import os
import threading
import time

import numpy as np

from mindseed import _backend as B
from mindseed.common.tensor import Tensor as _MsTensor
from mindseed.export import load as _load_mindir
from mindseed.lite._compile import _time, compile_model
from mindseed.lite._native import build_native
from mindseed.nn import GraphCell


class ModelType(enum.Enum):
    MINDIR = 0
    MINDIR_LITE = 4


class DataType(enum.Enum):
    UNKNOWN = 0
    BOOL = 30
    INT8 = 32
    INT16 = 33
    INT32 = 34
    INT64 = 35
    UINT8 = 37
    UINT16 = 38
    UINT32 = 39
    UINT64 = 40
    FLOAT16 = 42
    FLOAT32 = 43
    FLOAT64 = 44


class Format(enum.Enum):
    DEFAULT_FORMAT = -1
    NCHW = 0
    NHWC = 1


_NP_OF = {DataType.BOOL: np.bool_, DataType.INT8: np.int8, DataType.INT16: np.int16, DataType.INT32: np.int32,
          DataType.INT64: np.int64, DataType.UINT8: np.uint8, DataType.UINT16: np.uint16, DataType.UINT32: np.uint32,
          DataType.UINT64: np.uint64, DataType.FLOAT16: np.float16, DataType.FLOAT32: np.float32,
          DataType.FLOAT64: np.float64}
_DT_OF = {np.dtype(v): k for k, v in _NP_OF.items()}


class CPUDeviceInfo:
    """CPU settings: `thread_num` (0: the runtime's default), `thread_affinity_mode`, `precision_mode`."""

    def __init__(self):
        self.thread_num = 0
        self.thread_affinity_mode = 0
        self.thread_affinity_core_list = []
        self.inter_op_parallel_num = 0
        self.precision_mode = "preferred_fp32"


class GPUDeviceInfo:
    """GPU settings: `device_id`, `precision_mode`."""

    def __init__(self):
        self.device_id = 0
        self.precision_mode = "preferred_fp32"


class Context:
    """Where and how a Model runs: `target` is a list of "cpu" / "gpu" (the first available is used)."""

    def __init__(self):
        self._target = ["cpu"]
        self.cpu = CPUDeviceInfo()
        self.gpu = GPUDeviceInfo()

    @property
    def target(self):
        return list(self._target)

    @target.setter
    def target(self, value):
        if not isinstance(value, (list, tuple)) or not value or any(t not in ("cpu", "gpu", "ascend") for t in value):
            raise ValueError(f"For 'Context', the 'target' must be a non-empty list of 'cpu', 'gpu' or 'ascend', but "
                             f"got {value!r}.")
        self._target = list(value)

    def _device(self):
        for t in self._target:
            if t == "cpu" or t == "gpu" and B.gpu_available():
                return t
        raise RuntimeError(f"For 'Model', none of the context's targets {self._target} is available on this "
                           f"machine.")


class Tensor:
    """A Lite tensor: name, shape, dtype and numpy data (`set_data_from_numpy` / `get_data_to_numpy`)."""

    def __init__(self, tensor=None, shape=None, dtype=DataType.FLOAT32, name=""):
        self.name, self.format = name, Format.NCHW
        if tensor is not None:
            self._array = np.asarray(tensor, order="C")
            self._shape, self._dtype = list(self._array.shape), _DT_OF[self._array.dtype]
        else:
            self._array, self._shape, self._dtype = None, list(shape or []), dtype

    @property
    def shape(self):
        return list(self._shape)

    @shape.setter
    def shape(self, value):
        self._shape, self._array = [int(d) for d in value], None

    @property
    def dtype(self):
        return self._dtype

    @property
    def element_num(self):
        return int(np.prod(self._shape, dtype=np.int64))

    @property
    def data_size(self):
        return self.element_num * np.dtype(_NP_OF[self._dtype]).itemsize

    def set_data_from_numpy(self, numpy_obj):
        if not isinstance(numpy_obj, np.ndarray):
            raise TypeError(f"For 'Tensor.set_data_from_numpy', the input must be a numpy.ndarray, but got "
                            f"{type(numpy_obj).__name__}.")
        if np.dtype(numpy_obj.dtype) != np.dtype(_NP_OF[self._dtype]):
            raise RuntimeError(f"For 'Tensor.set_data_from_numpy', tensor '{self.name}' has dtype {self._dtype.name}, "
                               f"but the numpy array has {numpy_obj.dtype}.")
        if any(d < 0 for d in self._shape):
            # a dynamic dim (-1, as get_inputs shows it) takes the array's size; the fixed dims must match
            if numpy_obj.ndim != len(self._shape) or any(d >= 0 and d != n for d, n in zip(self._shape,
                                                                                        numpy_obj.shape)):
                raise RuntimeError(f"For 'Tensor.set_data_from_numpy', tensor '{self.name}' has shape "
                                   f"{self._shape} (-1: any size), but the numpy array has shape "
                                   f"{list(numpy_obj.shape)}.")
            self._shape = list(numpy_obj.shape)
        if list(numpy_obj.shape) != self._shape and numpy_obj.size != self.element_num:
            raise RuntimeError(f"For 'Tensor.set_data_from_numpy', tensor '{self.name}' has shape {self._shape} "
                               f"({self.element_num} elements), but the numpy array has shape "
                               f"{list(numpy_obj.shape)}.")
        self._array = np.asarray(numpy_obj, order="C").reshape(self._shape)

    def get_data_to_numpy(self):
        if self._array is None:
            raise RuntimeError(f"For 'Tensor.get_data_to_numpy', tensor '{self.name}' has no data.")
        return self._array

    def __repr__(self):
        return f"name: {self.name},\ndtype: {self._dtype},\nshape: {self._shape},\nformat: {self.format}"


# tracing uses process-wide state: one model compiles at a time (running compiled code needs no lock)
_COMPILE_LOCK = threading.Lock()


class Model:
    """An inference model: `build_from_file`, `get_inputs`, `resize`, `predict`."""

    def __init__(self):
        self._graph = None
        self._cell = None
        self._inputs = None
        self._compiled = {}     # input signature -> CompiledModel
        self._native = {}       # input signature -> NativeModel, where the generated C is the faster
        self._path = None
        self._threads = 0

    def build_from_file(self, model_path, model_type, context=None, config_path="", config_dict=None):
        if not isinstance(model_type, ModelType):
            raise TypeError(f"For 'Model.build_from_file', the 'model_type' must be ModelType, but got "
                            f"{type(model_type).__name__}.")
        if not os.path.isfile(model_path):
            raise RuntimeError(f"For 'Model.build_from_file', the model file '{model_path}' does not exist.")
        context = context if context is not None else Context()
        context._device()
        if context.cpu.thread_num:
            B.set_num_threads(int(context.cpu.thread_num))
        self._threads = int(context.cpu.thread_num or 0)
        graph = _load_mindir(model_path)
        self._graph, self._path = graph, model_path
        # inference only: the loaded graph compiled once per input signature (weights folded, generated code)
        self._cell = GraphCell(graph)
        self._inputs = [Tensor(shape=[-1 if d is None else d for d in shape], dtype=_DT_OF[np.dtype(dt)], name=name)
                        for name, shape, dt in graph.input_specs]

    def _check_built(self, what):
        if self._graph is None:
            raise RuntimeError(f"For 'Model.{what}', build the model first (build_from_file).")

    def get_inputs(self):
        self._check_built("get_inputs")
        return list(self._inputs)

    def resize(self, inputs, dims):
        """Give the inputs new shapes (the model must compute with them: a shape baked into the file, e.g. a
        reshape target, fails when predict runs)."""
        self._check_built("resize")
        if len(inputs) != len(self._inputs) or len(dims) != len(inputs):
            raise ValueError(f"For 'Model.resize', 'inputs' and 'dims' must both have {len(self._inputs)} entries, "
                             f"but got {len(inputs)} and {len(dims)}.")
        specs = []
        for t, d, (name, shape, dt) in zip(self._inputs, dims, self._graph.input_specs):
            if len(d) != len(shape):
                raise ValueError(f"For 'Model.resize', input '{name}' has rank {len(shape)}, but the new shape is "
                                 f"{list(d)}.")
            t.shape = d
            specs.append((name, tuple(None if int(v) < 0 else int(v) for v in d), dt))
        self._graph.input_specs = specs

    def predict(self, inputs, outputs=None):
        self._check_built("predict")
        if len(inputs) != len(self._inputs):
            raise ValueError(f"For 'Model.predict', the model takes {len(self._inputs)} inputs, but got "
                             f"{len(inputs)}.")
        arrays = [t.get_data_to_numpy() for t in inputs]
        signature = tuple((a.shape, a.dtype) for a in arrays)
        compiled = self._compiled.get(signature)
        if compiled is None:
            compiled = self._compile(arrays, signature)
        native = self._native.get(signature)
        if native is not None:
            return [Tensor(r, name=f"output_{i}") for i, r in enumerate(native.run(*arrays))]
        result = compiled.run(*[B.from_numpy(a, copy=False) for a in arrays])
        return [Tensor(np.array(B.to_numpy(r)), name=f"output_{i}") for i, r in enumerate(result)]

    def _compile(self, arrays, signature):
        """Compile for the inputs' signature; the model compiled to C too (when it has a C translation and a C
        compiler is found) runs instead where it is the faster on these inputs."""
        with _COMPILE_LOCK:
            compiled = compile_model(self._cell, [_MsTensor(a) for a in arrays])
        native = build_native(self._path, arrays)
        if native is not None:
            tensors = [B.from_numpy(a, copy=False) for a in arrays]
            # one thread: the CPU time each costs (on a shared machine wall time mostly measures the other processes)
            clock = time.process_time if self._threads == 1 else time.perf_counter
            if _time(native.run, arrays, {}, runs=5, clock=clock) < _time(compiled.run, tensors, {}, runs=5,
                                                                           clock=clock):
                self._native[signature] = native
        self._compiled[signature] = compiled
        return compiled

    def uses_native(self):
        """Whether each input signature compiled so far runs the generated C (in compile order)."""
        self._check_built("uses_native")
        return [s in self._native for s in self._compiled]

    def memory_plan(self):
        """The static activation plans of the input signatures compiled so far (the latest last): each has
        `peak_bytes` (the planned arena) and `total_bytes` (the sum of all activations) of the kernel path."""
        self._check_built("memory_plan")
        return [c.plan for c in self._compiled.values()]

    def native_arena_bytes(self):
        """The static arena of the generated C of each input signature compiled so far (None where it does not
        run), in compile order."""
        self._check_built("native_arena_bytes")
        return [self._native[s].arena_bytes if s in self._native else None for s in self._compiled]


class RunnerConfig:
    """ModelParallelRunner settings: `workers_num` models serving `predict` calls, each with `context`."""

    def __init__(self, context=None, workers_num=1, config_info=None, config_path=""):
        self.context = context if context is not None else Context()
        self.workers_num = int(workers_num) if workers_num else 1
        self.config_info = config_info or {}


class ModelParallelRunner:
    """A pool of Models of one file; `predict` may be called from several threads at once."""

    def __init__(self):
        self._models, self._free, self._cv = [], [], threading.Condition()

    def build_from_file(self, model_path, runner_config=None):
        cfg = runner_config if runner_config is not None else RunnerConfig()
        for _ in range(max(1, cfg.workers_num)):
            m = Model()
            m.build_from_file(model_path, ModelType.MINDIR, cfg.context)
            self._models.append(m)
        self._free = list(self._models)

    def get_inputs(self):
        if not self._models:
            raise RuntimeError("For 'ModelParallelRunner.get_inputs', build the runner first (build_from_file).")
        return self._models[0].get_inputs()

    def predict(self, inputs, outputs=None):
        if not self._models:
            raise RuntimeError("For 'ModelParallelRunner.predict', build the runner first (build_from_file).")
        with self._cv:
            while not self._free:
                self._cv.wait()
            model = self._free.pop()
        try:
            return model.predict(inputs)
        finally:
            with self._cv:
                self._free.append(model)
                self._cv.notify()
