"""mindseed: the MindSpore 2.x programming model in Python, on PyTorch kernels.

    import mindseed as ms
    x = ms.Tensor([1.0, 2.0])
    ms.grad(lambda x: (x * x).sum())(x)
"""
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
from mindseed import amp, boost, dataset, experimental, log, mindrecord, train  # noqa: F401
from mindseed import numpy  # noqa: F401  (mindspore.numpy)
from mindseed import communication, context, parallel, runtime  # noqa: F401
from mindseed.parallel import (Layout, build_searched_strategy, get_ckpt_path_with_strategy,  # noqa: F401
                               load_distributed_checkpoint, load_segmented_checkpoints, merge_pipeline_strategys,
                               merge_sliced_parameter, rank_list_for_transform, restore_group_info_list,
                               transform_checkpoint_by_rank, transform_checkpoints, unified_safetensors)
from mindseed.parallel import parameter_broadcast, shard, sync_pipeline_shared_parameters  # noqa: F401
from mindseed import mint  # noqa: F401  (mindspore.mint)
from mindseed.train import *  # noqa: F401,F403
from mindseed.export import export, export_split_mindir, load, load_mindir, save_mindir  # noqa: F401
from mindseed import safeguard  # noqa: F401
from mindseed.safeguard import load_obf_params_into_net, obfuscate_ckpt  # noqa: F401
from mindseed.amp import (DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager,  # noqa: F401
                          build_train_network)  # (MindSpore re-exports these at the top level)
from mindseed import _registration  # noqa: F401  (later layers add their names to lower namespaces)
from mindseed.autograd._executor import _no_grad  # noqa: F401  (mindspore._no_grad)
from mindseed import device_context, device_manager, hal, utils  # noqa: F401
from mindseed import profiler  # noqa: F401
from mindseed import onnx  # noqa: F401  (mindspore.onnx)
from mindseed.profiler import Profiler  # noqa: F401
from mindseed.common.generator import (Generator, default_generator, get_rng_state, initial_seed,  # noqa: F401
                                       manual_seed, seed, set_rng_state)
from mindseed.log import get_level, get_log_config  # noqa: F401
from mindseed.runtime import (Event, MemPool, PluggableAllocator, Stream, StreamCtx, StreamLimitCtx,  # noqa: F401
                              communication_stream, current_stream, default_stream, dispatch_threads_num,
                              empty_cache, get_device_limit, get_stream_limit, launch_blocking, max_memory_allocated,
                              max_memory_reserved, memory_allocated, memory_reserved, memory_stats, memory_summary,
                              reset_max_memory_allocated, reset_max_memory_reserved, reset_peak_memory_stats,
                              reset_stream_limit, set_cpu_affinity, set_cur_stream, set_device_limit,
                              set_kernel_launch_capture, set_kernel_launch_group, set_memory, set_stream_limit,
                              synchronize, use_mem_pool)
from mindseed._toplevel import *  # noqa: F401,F403
from mindseed._toplevel_runtime import *  # noqa: F401,F403
from mindseed.ops.functional._tensor_more import UntypedStorage  # noqa: F401
from mindseed.ops.primitive import constexpr  # noqa: F401,E402  (MindSpore's top level has it too)
from mindseed.rewrite import Node, NodeType, ScopedValue, SymbolTree  # noqa: F401

tensor = Tensor  # MindSpore 2.x's lower-case constructor

__version__ = "0.1.0"

# Every public top-level name (MindSpore lists `dtype` but no other submodule): derived from what is imported
# above, so it stays in sync when a name is added; `from mindseed import *` and API tools read it.
__all__ = sorted(_n for _n, _v in globals().items()
                 if not _n.startswith("_") and (_n == "dtype" or type(_v).__name__ != "module"))
import sys as _sys  # noqa: E402
_registration.reexport_toplevel(_sys.modules[__name__])  # common/train re-export top-level objects, as MindSpore
# mindspore.bool / .int / .float (Bool, Int32, Float32): bound after __all__, as MindSpore keeps them out of it
globals().update(bool=dtype.bool, int=dtype.int, float=dtype.float)
