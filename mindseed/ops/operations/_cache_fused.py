"""Primitive classes of MindSpore's embedding cache (`ops.PadAndShift`, `ops.SubAndFilter`, `ops.UpdateCache`,
`ops.MapCacheIdx`, module
`ops.operations._embedding_cache_ops`) and of the fused optimizer updates of `ops.operations.inner_ops`
(`FusedAdaFactor`, `FusedAdaFactorWithGlobalNorm`, `FusedCastAdamWeightDecay`), one table row each over the
primitives of `ops/_prims/cache.py`."""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops._prims import cache as P
from mindseed.ops.operations._table import primitive_class


def _int_tensor(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(x).__name__}.")
    if x.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For primitive[{name}], the input argument[{arg}] must be a type of {{Tensor[Int32], "
                        f"Tensor[Int64]}}, but got Tensor[{x.dtype}].")


def _int_scalar(name, arg, x):
    if isinstance(x, Tensor) and x.size == 1 and mstype.is_integral(x.dtype):
        return
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"For '{name}', the '{arg}' must be an int, but got {type(x).__name__}.")


def _pad_and_shift(input_x, cum_sum_arr, shift_idx):
    _int_tensor("PadAndShift", "input_x", input_x)
    _int_tensor("PadAndShift", "cum_sum_arr", cum_sum_arr)
    _int_scalar("PadAndShift", "shift_idx", shift_idx)
    return P.pad_and_shift_p(input_x, cum_sum_arr, shift_idx)


def _sub_and_filter(input_x, max_num, offset):
    _int_tensor("SubAndFilter", "input_x", input_x)
    _int_scalar("SubAndFilter", "max_num", max_num)
    _int_scalar("SubAndFilter", "offset", offset)
    return P.sub_and_filter_p(input_x, max_num, offset)


def _update_cache(input_x, indices, update, max_num):
    if not isinstance(input_x, Tensor) or not isinstance(update, Tensor):
        raise TypeError(f"For 'UpdateCache', 'input_x' and 'update' must be Tensors, but got "
                        f"{type(input_x).__name__} and {type(update).__name__}.")
    _int_tensor("UpdateCache", "indices", indices)
    _int_scalar("UpdateCache", "max_num", max_num)
    P.update_cache_p(input_x, indices, update, max_num)
    return F.zeros((1,), input_x.dtype)   # MindSpore's output is a placeholder of shape [1]


def _map_cache_idx(hashmap, indices, step, emb_max_num, offset):
    _int_tensor("MapCacheIdx", "hashmap", hashmap)
    _int_tensor("MapCacheIdx", "indices", indices)
    if hashmap.ndim != 2 or hashmap.shape[1] != 4:
        raise ValueError(f"For 'MapCacheIdx', the dimension of hashmap must be equal to 2 (rows of key, value, step, "
                         f"tag), but got shape {hashmap.shape}.")
    if hashmap.shape[0] == 0:
        raise ValueError("For 'MapCacheIdx', the first dimension of 'HashMap' must be greater than 0, but got 0.")
    if hashmap.dtype != indices.dtype:
        raise TypeError(f"For 'MapCacheIdx', 'hashmap' and 'indices' must have the same dtype, but got "
                        f"{hashmap.dtype} and {indices.dtype}.")
    if not isinstance(step, Tensor) or step.size < 1 or not mstype.is_integral(step.dtype):
        raise TypeError(f"For 'MapCacheIdx', the 'step' must be an integer Tensor of at least one element (it is "
                        f"advanced in place), but got {step!r}.")
    _int_scalar("MapCacheIdx", "emb_max_num", emb_max_num)
    _int_scalar("MapCacheIdx", "offset", offset)
    try:
        return P.map_cache_idx_p(hashmap, indices, step, emb_max_num, offset)
    except ValueError as exc:
        if "hashmap is full" in str(exc):    # a cache too small for the batch: MindSpore's RuntimeError
            raise RuntimeError(str(exc)) from None
        raise


_ADA_IN = ("epsilon", "clip_threshold", "beta1", "beta2", "weight_decay", "learning_rate", "gradient", "param",
           "exp_avg", "exp_avg_sq_row", "exp_avg_sq_col", "exp_avg_sq")
_ADA_FLAGS = (("enable_scale_parameter", False), ("enable_first_moment", False), ("enable_weight_decay", False))


def _check_flags(name, attrs):
    for k, v in attrs.items():
        if not isinstance(v, bool):
            raise TypeError(f"For '{name}', the '{k}' must be a bool, but got {type(v).__name__}.")


def _ada_factor(name):
    def call(*args, **attrs):
        grad, param = args[6], args[7]
        if grad.shape != param.shape:
            raise ValueError(f"For '{name}', the shape of 'gradient' {grad.shape} must be the same as the shape of "
                             f"'param' {param.shape}.")
        P.fused_ada_factor_p(*args[:12], args[12] if len(args) > 12 else None, **attrs)
        return F.zeros_like(param)   # MindSpore's output: a placeholder of the param's shape and dtype
    return call


def _fused_cast_adam(var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm, use_locking=False):
    for arg, t in (("var", var), ("gradient", gradient)):
        if t.dtype not in (mstype.float16, mstype.float32):
            raise TypeError(f"For 'FusedCastAdamWeightDecay', the '{arg}' must be float16 or float32, but got "
                            f"{t.dtype}.")
    P.fused_cast_adam_weight_decay_p(var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm)
    return var, m, v


_ROWS = {
    # name: (function, constructor attributes, inputs, Tensor inputs, inputs of the first one's shape, doc)
    "PadAndShift": (_pad_and_shift, (), ("input_x", "cum_sum_arr", "shift_idx"), (), (),
                    "A Tensor of cum_sum_arr[-1] elements -1, with input_x[:end - start] copied to [start, end), "
                    "start, end = cum_sum_arr[shift_idx], cum_sum_arr[shift_idx + 1]."),
    "SubAndFilter": (_sub_and_filter, (), ("input_x", "max_num", "offset"), (), (),
                     "(input_x - offset) where it lies in [0, max_num), and the positions of those elements."),
    "UpdateCache": (_update_cache, (), ("input_x", "indices", "update", "max_num"), (), (),
                    "input_x[indices[i]] = update[i] for the indices in [0, max_num), in place; returns a "
                    "placeholder of shape [1]."),
    "MapCacheIdx": (_map_cache_idx, (), ("hashmap", "indices", "step", "emb_max_num", "offset"), (), (),
                    "Cache slots of the ids indices - offset in the open-addressing hashmap (rows key, value, step, "
                    "tag); misses evict entries unused for two steps. Updates hashmap and step in place; returns "
                    "(cache_idx, old_emb_idx, miss_emb_idx, swap_cache_idx)."),
    "FusedAdaFactor": (_ada_factor("FusedAdaFactor"), _ADA_FLAGS, _ADA_IN, ("gradient", "param", "exp_avg"), (),
                       "AdaFactor (factored second moments for matrices), updating param and its state in place."),
    "FusedAdaFactorWithGlobalNorm": (
        _ada_factor("FusedAdaFactorWithGlobalNorm"), _ADA_FLAGS, _ADA_IN + ("global_norm",),
        ("gradient", "param", "exp_avg"), (), "FusedAdaFactor on the gradient divided by global_norm."),
    "FusedCastAdamWeightDecay": (
        _fused_cast_adam, (("use_locking", False),),
        ("var", "m", "v", "lr", "beta1", "beta2", "epsilon", "decay", "gradient", "global_norm"),
        ("var", "m", "v", "gradient"), ("var", "m", "v", "gradient"),
        "AdamWeightDecay on a float16 or float32 var with float32 moments, the gradient divided by global_norm; "
        "returns (var, m, v), updated in place."),
}

globals().update({_name: primitive_class(_name, _fn, _attrs, _inputs, tensors=_tensors, same_shape=_same, doc=_doc,
                                        check=lambda attrs, _name=_name: _check_flags(_name, attrs))
                  for _name, (_fn, _attrs, _inputs, _tensors, _same, _doc) in _ROWS.items()})
__all__ = list(_ROWS)
