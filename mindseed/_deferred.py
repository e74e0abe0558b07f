"""The top level's deferred part: the packages the core does not need (datasets, training, export, mint, numpy,
runtime and device tools, ...) and their top-level names. `mindseed._complete()` imports this module when a name of
the top level is first read that the core does not define, and copies its names into the package."""
from mindseed import amp, boost, dataset, experimental, mindrecord, train  # noqa: F401
from mindseed import numpy  # noqa: F401  (mindspore.numpy)
from mindseed import runtime  # noqa: F401
from mindseed.parallel import (build_searched_strategy, get_ckpt_path_with_strategy,  # noqa: F401
                               load_distributed_checkpoint, load_segmented_checkpoints, merge_pipeline_strategys,
                               merge_sliced_parameter, rank_list_for_transform, restore_group_info_list,
                               transform_checkpoint_by_rank, transform_checkpoints, unified_safetensors)
from mindseed import mint  # noqa: F401  (mindspore.mint)
from mindseed.train import *  # noqa: F401,F403
from mindseed.export import export, export_split_mindir, load, load_mindir, save_mindir  # noqa: F401
from mindseed import safeguard  # noqa: F401
from mindseed.safeguard import load_obf_params_into_net, obfuscate_ckpt  # noqa: F401
from mindseed.amp import (DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager,  # noqa: F401
                          build_train_network)  # (MindSpore re-exports these at the top level)
from mindseed import device_context, device_manager, hal, utils  # noqa: F401
from mindseed.utils.ms_dispatch import MsDispatchMode  # noqa: F401
from mindseed import profiler  # noqa: F401
from mindseed import onnx  # noqa: F401  (mindspore.onnx)
from mindseed.profiler import Profiler  # noqa: F401
from mindseed.runtime import (Event, MemPool, PluggableAllocator, Stream, StreamCtx, StreamLimitCtx,  # noqa: F401
                              communication_stream, current_stream, default_stream, dispatch_threads_num,
                              empty_cache, get_device_limit, get_stream_limit, launch_blocking, max_memory_allocated,
                              max_memory_reserved, memory_allocated, memory_reserved, memory_stats, memory_summary,
                              reset_max_memory_allocated, reset_max_memory_reserved, reset_peak_memory_stats,
                              reset_stream_limit, set_cpu_affinity, set_cur_stream, set_device_limit,
                              set_kernel_launch_capture, set_kernel_launch_group, set_memory, set_stream_limit,
                              synchronize, use_mem_pool)
from mindseed._toplevel_runtime import *  # noqa: F401,F403
from mindseed.rewrite import Node, NodeType, ScopedValue, SymbolTree  # noqa: F401
