"""Names that MindSpore exposes in a lower namespace but that live in a higher layer here.

`mindspore.ops.GradOperation`, `ops.grad`, ... are autodiff (layer L3) but users reach them through
`ops` (L2); the top level puts them there once, by registration, so `ops` never imports upward.
"""
import importlib

from mindseed import amp, autograd, common, compiler, nn, ops, train
from mindseed.common import _grad_function as _common_grad_function
from mindseed.common import api as _common_api
from mindseed.ops.function import grad as _function_grad

_AUTODIFF = ("grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "get_grad", "vmap", "linearize", "jet",
             "derivative")
for _name in ("GradOperation", "Morph") + _AUTODIFF:
    setattr(ops, _name, getattr(autograd, _name))
ops.operations.Morph = autograd.Morph
# ... and where MindSpore's module layout puts them: ops.functional / ops.function(.grad.grad_func), ops.composite
for _module in (ops.functional, ops.function, _function_grad, _function_grad.grad_func):
    for _name in _AUTODIFF:
        setattr(_module, _name, getattr(autograd, _name))
ops.composite.GradOperation = autograd.GradOperation
# the J transform primitive of MindSpore's ops namespace
from mindseed.autograd.j_transform import J as _J  # noqa: E402
ops.J = ops.functional.J = _J
_function_grad.custom_vjp = _function_grad.grad_func.custom_vjp = autograd.custom_vjp
_function_grad.stop_gradient_ = _function_grad.grad_func.stop_gradient_ = ops.stop_gradient_

# the sparse tensors' methods (mv, mm, sum, +, *, /) run the sparse functional ops
from mindseed.common import sparse_tensor as _sparse_tensor  # noqa: E402
from mindseed.ops.functional import _sparse as _sparse_functional  # noqa: E402
_sparse_tensor._SPARSE_OPS.append(_sparse_functional)

# recomputation (the compiler's) through ops.recompute_block, as MindSpore's composite
from mindseed._toplevel import recompute_block as _recompute_block  # noqa: E402
ops.recompute_block = ops.composite.recompute_block = _recompute_block

# the custom autograd function (autodiff) of mindspore.common._grad_function
from mindseed.autograd._function import _Function  # noqa: E402
_common_grad_function._Function = _Function

# graph compilation, reached from mindspore.common and mindspore.common.api
for _name in ("jit", "jit_class", "mutable", "JitConfig"):
    setattr(common, _name, getattr(compiler, _name))
for _name in ("jit", "jit_class"):
    setattr(_common_api, _name, getattr(compiler, _name))
# ... and MindSpore's module mindspore.common.mutable (`from mindspore.common.mutable import mutable`), whose name
# common's attribute `mutable` (the function) covers, as in MindSpore
import sys as _sys  # noqa: E402
import types as _types  # noqa: E402
_mutable_module = _types.ModuleType("mindseed.common.mutable", "MindSpore's `common.mutable`: `mutable`.")
_mutable_module.mutable = compiler.mutable
_mutable_module.__all__ = ["mutable"]
_sys.modules.setdefault("mindseed.common.mutable", _mutable_module)

# MindSpore's nn namespace also carries the metrics (and their module)
nn.metrics = train.metrics
for _name in list(train.metrics.__all__) + ["get_metrics"]:
    setattr(nn, _name, getattr(train.metrics, _name))

# loss-scale managers are importable from mindspore.train as well as mindspore.amp
for _name in ("FixedLossScaleManager", "DynamicLossScaleManager", "LossScaleManager"):
    setattr(train, _name, getattr(amp, _name))

# the summary ops (ops.ScalarSummary, ...) hand their values to SummaryRecord's cache
from mindseed.ops.operations import _more as _ops_more  # noqa: E402
from mindseed.train.summary import summary_record as _summary_record  # noqa: E402
_ops_more._SUMMARY_SINKS.append(_summary_record._record_summary_tensor)

# MindSpore's ops namespace carries the torch-style collectives (mindspore.ops.function.comm_func, also the module
# ops.communication): the same functions as mint.distributed
from mindseed.mint import distributed as _mint_distributed  # noqa: E402
from mindseed.mint.distributed import _ops_extra  # noqa: E402
from mindseed.ops import communication as _ops_communication  # noqa: E402
for _name in _ops_communication.NAMES:
    _fn = getattr(_ops_extra if _name in _ops_extra.__all__ else _mint_distributed.distributed, _name)
    setattr(_ops_communication, _name, _fn)
    if _name not in ("gather", "scatter"):
        setattr(ops, _name, _fn)

# gradient hooks of tensors live with the tape (autograd) but are Tensor methods
from mindseed.autograd import hooks as _hooks  # noqa: E402
common.Tensor.register_hook = _hooks.register_hook
common.Tensor.hooks = _hooks.hooks
common.Tensor.remove_hook = staticmethod(_hooks.remove_hook)

# the graph executor tools call through mindspore.common.api (it serializes graphs with the exporter)
from mindseed.export import _graph_executor as _executor  # noqa: E402
_common_api._cell_graph_executor = _executor._cell_graph_executor
_common_api._CellGraphExecutor = _executor._CellGraphExecutor
nn.Cell.get_func_graph_proto = _executor.get_func_graph_proto
# ... and so do the PyNative executor's switches (the tape's) and the compiled graphs' flop count
from mindseed import _toplevel_runtime  # noqa: E402
from mindseed.autograd import _executor as _pynative  # noqa: E402
_common_api._pynative_executor = _pynative._pynative_executor
_common_api._PyNativeExecutor = _pynative._PyNativeExecutor
_common_api._no_grad = _pynative._no_grad
_common_api.flops_collection = _toplevel_runtime.flops_collection

# PIJit's decorator object (common) compiles with the compiler's jit
from mindseed.common import _pijit_context  # noqa: E402
from mindseed.compiler.jit import jit as _jit  # noqa: E402
_pijit_context._jit = _jit

# MindSpore's `<name>_ext` functions of ops.auto_generate / ops.function.array_func are mint's forms
from mindseed import mint as _mint  # noqa: E402
from mindseed.ops.auto_generate import _ext as _ops_ext  # noqa: E402
_ops_ext.SOURCES[:] = [_mint, _mint.nn.functional]


# MindSpore's module paths that re-export names mindseed defines in higher layers: `import mindspore.nn.metrics`
# (the old home of the metrics), `nn.layer.dense/channel_shuffle/timedistributed` come from their own files
_nn_metrics_module = _types.ModuleType("mindseed.nn.metrics", "MindSpore's `nn.metrics`: the train metrics.")
_nn_metrics_module.__all__ = list(train.metrics.__all__)
for _name in _nn_metrics_module.__all__:
    setattr(_nn_metrics_module, _name, getattr(train.metrics, _name))
_sys.modules.setdefault("mindseed.nn.metrics", _nn_metrics_module)
nn.metrics = _nn_metrics_module

_COMMON_REEXPORTS = ("DeviceCtx", "Generator", "SparseTensor", "Symbol", "UntypedStorage", "default_generator",
                     "enable_dynamic", "flops_collection", "from_numpy", "get_rng_state", "set_rng_state",
                     "initial_seed", "manual_seed", "is_tensor", "lazy_inline", "no_inline", "recompute",
                     "load_mindir", "save_mindir", "mindio_preload", "set_mindio_server_info", "ms_memory_recycle",
                     "register_saved_tensors_hooks", "saved_tensors_hooks", "set_dump", "set_recursion_limit")
_TRAIN_REEXPORTS = ("export", "load", "export_split_mindir", "build_searched_strategy", "merge_sliced_parameter",
                    "load_distributed_checkpoint", "get_ckpt_path_with_strategy", "restore_group_info_list")


def reexport_toplevel(package):
    """Put the top-level objects MindSpore also exports from `common` and `train` there (called by the package
    once its namespace is complete)."""
    recompute_module = _types.ModuleType("mindseed.common.recompute", "MindSpore's `common.recompute` module.")
    recompute_module.recompute, recompute_module.__all__ = package.recompute, ["recompute"]
    _sys.modules.setdefault("mindseed.common.recompute", recompute_module)   # `common.recompute` stays the function
    for name in _COMMON_REEXPORTS:
        setattr(common, name, getattr(package, name))
    for name in _TRAIN_REEXPORTS:
        setattr(train, name, getattr(package, name))


# MindSpore's ops.function submodules hold the same function objects as `ops` (`from
# mindspore.ops.function.math_func import cdist`); the names mindseed's modules lack, and the modules it has
# not (comm_func's collectives belong to a higher layer), are filled in here
_FUNCTION_MODULE_NAMES = {
    "array_func": ("affine_grid", "aminmax", "argmax", "col2im", "fold", "ger", "hamming_window", "lstsq", "max",
            "min", "mvlgamma", "population_count", "scalar_cast", "unfold", "unsorted_segment_max",
            "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_sum"),
    "clip_func": ("clamp", "clamp_", "clip"),
    "fft_func": ("fftfreq", "rfftfreq"),
    "math_func": ("adjoint", "atleast_1d", "atleast_2d", "atleast_3d", "baddbmm_ext", "bernoulli", "bincount",
            "block_diag", "bucketize", "cartesian_prod", "cdist", "combinations", "cosine_similarity", "diag_embed",
            "dstack", "einsum_ext", "eps", "gumbel_softmax", "hann_window", "histc", "inplace_add",
            "inplace_index_add", "inplace_sub", "inplace_update", "iou", "kaiser_window", "linspace",
            "log_matrix_determinant", "logspace", "matrix_norm", "matrix_solve",
            "multi_scale_deformable_attn_function", "numel", "ormqr", "permute", "roll", "rot90", "row_stack",
            "sparse_segment_mean", "stft", "t", "tanhshrink", "trace", "tril_indices", "triu_indices",
            "vector_norm", "view_as_real", "vstack", "fft", "fft2", "fftn", "ifft", "ifft2", "ifftn"),
    "nn_func": ("deformable_conv2d", "fast_gelu", "flash_attention_score", "flip", "fliplr", "flipud",
            "fused_infer_attention_score", "hardsigmoid", "hardswish", "incre_flash_attention", "inplace_sigmoid",
            "is_floating_point", "logsigmoid", "mish", "moe_token_permute", "moe_token_unpermute", "msort",
            "nsa_compress", "nsa_select_attention", "prompt_flash_attention", "ring_attention_update", "sigmoid",
            "silu", "softsign", "speed_fusion_attention"),
    "other_func": ("moe_init_routing_v2", "move_to", "rotary_position_embedding"),
    "comm_func": ("P2POp", "TCPStore", "gather", "scatter", "all_gather", "all_gather_into_tensor",
            "all_gather_into_tensor_uneven", "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single",
            "all_to_all_v_c", "barrier",
            "batch_isend_irecv", "broadcast", "broadcast_object_list", "destroy_process_group",
            "gather_into_tensor", "gather_object", "get_backend", "get_global_rank", "get_group_rank",
            "get_process_group_ranks", "get_rank", "get_world_size", "init_process_group", "irecv", "is_available",
            "is_initialized", "isend", "new_group", "recv", "recv_object_list", "reduce", "reduce_scatter",
            "reduce_scatter_tensor", "reduce_scatter_tensor_uneven", "scatter_object_list", "scatter_tensor",
            "send", "send_object_list", "set_comm_ops_inplace"),
    "debug_func": ("print_", "tensordump"),
    "image_func": ("bounding_box_decode", "bounding_box_encode", "check_valid", "crop_and_resize"),
    "parameter_func": ("assign", "assign_add", "assign_sub", "index_add"),
    "reshard_func": ("reshard",),
    "spectral_func": ("bartlett_window", "blackman_window"),
    "vmap_func": ("vmap",),
}
for _module_name, _names in _FUNCTION_MODULE_NAMES.items():
    _full = f"mindseed.ops.function.{_module_name}"
    _module = _sys.modules.get(_full)
    if _module is None:
        try:
            _module = importlib.import_module(_full)
        except ModuleNotFoundError:
            _module = _types.ModuleType(_full, f"MindSpore's `ops.function.{_module_name}`.")
            _module.__all__ = list(_names)
            _sys.modules[_full] = _module
            setattr(ops.function, _module_name, _module)
    _source = _ops_communication if _module_name == "comm_func" else ops
    for _name in _names:
        setattr(_module, _name, getattr(_source, _name))
        if _module_name != "comm_func" and not hasattr(ops.function, _name):
            setattr(ops.function, _name, getattr(ops, _name))   # the package re-exports its modules' names
ops.function.stop_gradient_ = ops.stop_gradient_
# MindSpore's ops.functional imports these from ops.operations (`F.P` is the operations package)
ops.functional.P = ops.operations
for _name in ("AdaptiveMaxPool2D", "DtypeToEnum", "Median", "Roll", "TensorToTuple", "UniqueConsecutive",
              "array_ops", "linalg_ops", "other_ops"):
    setattr(ops.functional, _name, getattr(ops.operations, _name))
ops.functional.auto_generate = ops.auto_generate
ops.functional.geswitch, ops.functional.merge = ops.operations.GeSwitch(), ops.operations.Merge()
