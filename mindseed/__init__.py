"""mindseed: the MindSpore 2.x programming model in Python, on PyTorch kernels.

    import mindseed as ms
    x = ms.Tensor([1.0, 2.0])
    ms.grad(lambda x: (x * x).sum())(x)

`import mindseed` loads the core (Tensor, Parameter, ops, nn, autodiff, the compiler, communication, parallel); the
rest (`mindseed._deferred`: dataset, train, export, mint, numpy, ...) loads when one of its names is first read, as
`ms.dataset` or `from mindseed import Model` (PEP 562), so a tool that needs only the core (the parallel planner)
starts quickly. `import mindseed.dataset` loads that package directly.
"""
import sys as _sys
import threading as _threading

from mindseed.common import dtype  # noqa: F401
from mindseed.common.dtype import *  # noqa: F401,F403
from mindseed.common.context import (COMPATIBLE, GRAPH_MODE, LAX, PYNATIVE_MODE, STRICT,  # noqa: F401
                                     ParallelMode, get_context, get_current_device, set_context, set_deterministic,
                                     set_device, set_recursion_limit)
from mindseed.common._search_contexts import (get_algo_parameters, get_ps_context,  # noqa: F401
                                              reset_algo_parameters, set_algo_parameters, set_ps_context)
from mindseed.common._parallel import (get_auto_parallel_context, reset_auto_parallel_context,  # noqa: F401
                                       set_auto_parallel_context)
from mindseed.common.parameter import Parameter, ParameterTuple  # noqa: F401
from mindseed.common.seed import get_seed, set_seed  # noqa: F401
from mindseed.common.tensor import COOTensor, CSRTensor, RowTensor, Tensor  # noqa: F401
from mindseed.common import initializer as _initializer  # noqa: F401
from mindseed import ops  # noqa: F401
from mindseed import nn  # noqa: F401
from mindseed.compiler import JitConfig, jit, jit_class, mutable  # noqa: F401
from mindseed.autograd import (GradOperation as _GradOperation, get_grad, grad, jacfwd, jacrev, jvp,  # noqa: F401
                               register_saved_tensors_hooks, saved_tensors_hooks, value_and_grad, vjp, vmap)
from mindseed import communication, context, log, parallel  # noqa: F401
from mindseed.parallel import Layout, parameter_broadcast, shard, sync_pipeline_shared_parameters  # noqa: F401
from mindseed import _registration  # noqa: F401  (later layers add their names to lower namespaces)
from mindseed.autograd._executor import _no_grad  # noqa: F401  (mindspore._no_grad)
from mindseed.common.generator import (Generator, default_generator, get_rng_state, initial_seed,  # noqa: F401
                                       manual_seed, seed, set_rng_state)
from mindseed.log import get_level, get_log_config  # noqa: F401
from mindseed._toplevel import *  # noqa: F401,F403
from mindseed.ops.functional._tensor_more import UntypedStorage  # noqa: F401
from mindseed.ops.primitive import constexpr  # noqa: F401  (MindSpore's top level has it too)
from mindseed._utils import _lazy

tensor = Tensor  # MindSpore 2.x's lower-case constructor

__version__ = "0.1.0"

# mindspore.bool / .int / .float (Bool, Int32, Float32): top-level names, kept out of __all__ as in MindSpore
globals().update(bool=dtype.bool, int=dtype.int, float=dtype.float)

_DEFERRED = []   # "loading", then "loaded"
_LOADING = _threading.RLock()   # another thread reading a deferred name waits for the load
_sys.meta_path.insert(0, _lazy.DeferredModules(_registration.DEFERRED_MODULES))


def _complete():
    """Load the deferred part (`mindseed._deferred`) into this namespace and run its registrations; True when this
    call loaded it (False once loaded, or while this thread loads it)."""
    if _DEFERRED and _DEFERRED[0] == "loaded":
        return False
    with _LOADING:
        if _DEFERRED:
            return False
        _DEFERRED.append("loading")
        try:
            _load()
        except BaseException:
            _DEFERRED.clear()
            raise
        _DEFERRED[0] = "loaded"
        return True


def _load():
    from mindseed import _deferred  # noqa: PLC0415
    namespace = globals()
    namespace.update((k, v) for k, v in vars(_deferred).items() if not k.startswith("__"))
    namespace["tensor"] = Tensor
    # Every public top-level name (MindSpore lists `dtype` but no other submodule): derived from the namespace, so it
    # stays in sync when a name is added; `from mindseed import *` and API tools read it.
    # mindspore.bool / .int / .float (Bool, Int32, Float32) stay out of it, as in MindSpore
    namespace["__all__"] = sorted(n for n, v in namespace.items()
                                  if not n.startswith("_") and (n == "dtype" or type(v).__name__ != "module")
                                  and n not in ("bool", "int", "float"))
    _registration.complete(_sys.modules[__name__])


def __getattr__(name):
    partial = _sys.modules.get(f"{__name__}.{name}")
    if partial is not None:
        # a submodule still being imported (`import mindseed.runtime as rt` inside it): that module, without loading
        # the deferred part, which imports from it
        return partial
    if name == "__all__" or not name.startswith("__"):
        _complete()
        if name in globals():
            return globals()[name]
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


def __dir__():
    _complete()
    return sorted(globals())
