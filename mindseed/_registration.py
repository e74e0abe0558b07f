"""Names that MindSpore exposes in a lower namespace but that live in a higher layer here.

`mindspore.ops.GradOperation`, `ops.grad`, ... are autodiff (layer L3) but users reach them through
`ops` (L2); the top level puts them there once, by registration, so `ops` never imports upward.

Importing this module registers what the core (autodiff, the compiler) gives the lower namespaces; `complete()`,
which the top level runs when it loads its deferred part (`mindseed._complete`), registers what train, mint, amp and
export give them. The namespaces receiving those answer a missing name by loading that part
(`_utils._lazy.missing`), and `DEFERRED_MODULES` are the modules it makes.
"""
import importlib
import sys as _sys

from mindseed import autograd, common, compiler, nn, ops
from mindseed.common import _grad_function as _common_grad_function
from mindseed.common import api as _common_api
from mindseed.compiler.jit import _no_recursive
from mindseed.ops.function import grad as _function_grad
from mindseed._utils._lazy import made_module as _made_module


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
_common_api._no_recursive = _no_recursive
# ... and MindSpore's module mindspore.common.mutable (`from mindspore.common.mutable import mutable`), whose name
# common's attribute `mutable` (the function) covers, as in MindSpore
_mutable_module = _made_module("mindseed.common.mutable", "MindSpore's `common.mutable`: `mutable`.")
_mutable_module.mutable = compiler.mutable
_mutable_module.__all__ = ["mutable"]
_sys.modules.setdefault("mindseed.common.mutable", _mutable_module)
# ... and MindSpore's modules of the other compilation hints under common (`import mindspore.common.lazy_inline`)
from mindseed import _toplevel as _toplevel_hints  # noqa: E402
for _module_name, _names, _owner in (("jit_config", ("JitConfig",), compiler),
                                     ("lazy_inline", ("lazy_inline",), _toplevel_hints),
                                     ("no_inline", ("no_inline",), _toplevel_hints)):
    _hint_module = _made_module(f"mindseed.common.{_module_name}", f"MindSpore's `common.{_module_name}`.")
    for _name in _names:
        setattr(_hint_module, _name, getattr(_owner, _name))
    _hint_module.__all__ = list(_names)
    _sys.modules.setdefault(f"mindseed.common.{_module_name}", _hint_module)

# gradient hooks of tensors live with the tape (autograd) but are Tensor methods
from mindseed.autograd import hooks as _hooks  # noqa: E402
common.Tensor.register_hook = _hooks.register_hook
common.Tensor.hooks = _hooks.hooks
common.Tensor.remove_hook = staticmethod(_hooks.remove_hook)

# the PyNative executor's switches (the tape's), reached from mindspore.common.api
from mindseed.autograd import _executor as _pynative  # noqa: E402
_common_api._pynative_executor = _pynative._pynative_executor
_common_api._PyNativeExecutor = _pynative._PyNativeExecutor
_common_api._no_grad = _pynative._no_grad

# PIJit's decorator object (common) compiles with the compiler's jit
from mindseed.common import _pijit_context  # noqa: E402
from mindseed.compiler.jit import jit as _jit  # noqa: E402
_pijit_context._jit = _jit


# modules the deferred registrations make (no file holds them): found by loading the deferred part
DEFERRED_MODULES = ("mindseed.nn.metrics", "mindseed.ops.function.comm_func", "mindseed.common.recompute")


def complete(package):
    """Register what the deferred packages (train, amp, mint, export, the top level's runtime helpers) give the lower
    namespaces, and the top-level objects MindSpore also exports from `common` and `train` (`package`: the top
    level, its namespace complete)."""
    from mindseed import _toplevel_runtime, amp, mint, train  # noqa: PLC0415
    from mindseed.export import _graph_executor as executor  # noqa: PLC0415
    from mindseed.mint import distributed as mint_distributed  # noqa: PLC0415
    from mindseed.mint.distributed import _ops_extra  # noqa: PLC0415
    from mindseed.ops import communication as ops_communication  # noqa: PLC0415
    from mindseed.ops.auto_generate import _ext as ops_ext  # noqa: PLC0415

    # MindSpore's nn namespace also carries the metrics (and their module `nn.metrics`, the old home of the metrics)
    for name in list(train.metrics.__all__) + ["get_metrics"]:
        setattr(nn, name, getattr(train.metrics, name))
    nn_metrics = _made_module("mindseed.nn.metrics", "MindSpore's `nn.metrics`: the train metrics.")
    nn_metrics.__all__ = list(train.metrics.__all__)
    for name in nn_metrics.__all__:
        setattr(nn_metrics, name, getattr(train.metrics, name))
    _sys.modules.setdefault("mindseed.nn.metrics", nn_metrics)
    nn.metrics = nn_metrics

    # loss-scale managers are importable from mindspore.train as well as mindspore.amp
    for name in ("FixedLossScaleManager", "DynamicLossScaleManager", "LossScaleManager"):
        setattr(train, name, getattr(amp, name))

    # MindSpore's ops namespace carries the torch-style collectives (mindspore.ops.function.comm_func, also the
    # module ops.communication): the same functions as mint.distributed
    for name in ops_communication.NAMES:
        fn = getattr(_ops_extra if name in _ops_extra.__all__ else mint_distributed.distributed, name)
        setattr(ops_communication, name, fn)
        if name not in ("gather", "scatter"):
            setattr(ops, name, fn)
    _function_module("comm_func", _FUNCTION_MODULE_NAMES["comm_func"], ops_communication)

    # the graph executor tools call through mindspore.common.api (it serializes graphs with the exporter), and so
    # does the compiled graphs' flop count
    _common_api._cell_graph_executor = executor._cell_graph_executor
    _common_api._CellGraphExecutor = executor._CellGraphExecutor
    nn.Cell.get_func_graph_proto = executor.get_func_graph_proto
    _common_api.flops_collection = _toplevel_runtime.flops_collection

    # MindSpore's `<name>_ext` functions of ops.auto_generate / ops.function.array_func are mint's forms, and the
    # internal names of mint's functions in ops' modules are mint's functions
    ops_ext.SOURCES[:] = [mint, mint.nn.functional]
    ops_ext.install_aliases(ops, {"mint": mint, "mint.nn.functional": mint.nn.functional, "mint.linalg": mint.linalg})
    _reexport_toplevel(package, train)


_COMMON_REEXPORTS = ("DeviceCtx", "Generator", "SparseTensor", "Symbol", "UntypedStorage", "default_generator",
                     "enable_dynamic", "flops_collection", "from_numpy", "get_rng_state", "set_rng_state",
                     "initial_seed", "manual_seed", "is_tensor", "lazy_inline", "no_inline", "recompute",
                     "load_mindir", "save_mindir", "mindio_preload", "set_mindio_server_info", "ms_memory_recycle",
                     "register_saved_tensors_hooks", "saved_tensors_hooks", "set_dump", "set_recursion_limit")
_TRAIN_REEXPORTS = ("export", "load", "export_split_mindir", "build_searched_strategy", "merge_sliced_parameter",
                    "load_distributed_checkpoint", "get_ckpt_path_with_strategy", "restore_group_info_list")


def _reexport_toplevel(package, train):
    """Put the top-level objects MindSpore also exports from `common` and `train` there."""
    recompute_module = _made_module("mindseed.common.recompute", "MindSpore's `common.recompute` module.")
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


def _function_module(module_name, names, source):
    """Fill MindSpore's module `ops.function.<module_name>` (made when mindseed has no file of it) with `names` from
    `source`."""
    full = f"mindseed.ops.function.{module_name}"
    module = _sys.modules.get(full)
    if module is None:
        try:
            module = importlib.import_module(full)
        except ModuleNotFoundError:
            module = _made_module(full, f"MindSpore's `ops.function.{module_name}`.")
            module.__all__ = list(names)
            _sys.modules[full] = module
            setattr(ops.function, module_name, module)
    for name in names:
        setattr(module, name, getattr(source, name))
        if source is ops and not hasattr(ops.function, name):
            setattr(ops.function, name, getattr(ops, name))   # the package re-exports its modules' names


for _module_name, _names in _FUNCTION_MODULE_NAMES.items():
    if _module_name != "comm_func":   # the collectives are mint's (`complete`)
        _function_module(_module_name, _names, ops)
ops.function.stop_gradient_ = ops.stop_gradient_
# MindSpore's ops.functional imports these from ops.operations (`F.P` is the operations package)
ops.functional.P = ops.operations
for _name in ("AdaptiveMaxPool2D", "DtypeToEnum", "Median", "Roll", "TensorToTuple", "UniqueConsecutive",
              "array_ops", "linalg_ops", "other_ops"):
    setattr(ops.functional, _name, getattr(ops.operations, _name))
ops.functional.auto_generate = ops.auto_generate
ops.functional.geswitch, ops.functional.merge = ops.operations.GeSwitch(), ops.operations.Merge()
