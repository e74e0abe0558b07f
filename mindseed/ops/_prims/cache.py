"""MindSpore's embedding-cache primitives (PadAndShift, SubAndFilter, UpdateCache, MapCacheIdx) and the fused
optimizer updates
of `ops.operations.inner_ops` (FusedAdaFactor[WithGlobalNorm], FusedCastAdamWeightDecay). None has a gradient:
the cache ops move integer ids, the updates write their Parameters in place."""
from mindseed._backend.kernels import cache as K
from mindseed._backend.kernels import optim as KO
from mindseed.ops._prims.optim import OptimPrim, _num
from mindseed.ops._registry import Prim

__all__ = []

pad_and_shift_p = Prim("PadAndShift", K.pad_and_shift, fresh=True)
sub_and_filter_p = Prim("SubAndFilter", K.sub_and_filter, multi_output=True, fresh=True)
update_cache_p = OptimPrim("UpdateCache", K.update_cache_)
# NOTE: writes its hashmap and step inputs in place and returns four fresh tensors
map_cache_idx_p = Prim("MapCacheIdx", K.map_cache_idx_, multi_output=True, side_effect=True, fresh=True)


def _eps_pair(epsilon):
    if isinstance(epsilon, (list, tuple)):
        return _num(epsilon[0]), _num(epsilon[1])
    flat = epsilon.reshape(-1)
    return float(flat[0]), float(flat[1])


def _fused_ada_factor(epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, gradient, param, exp_avg,
                      exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, global_norm=None, enable_scale_parameter=False,
                      enable_first_moment=False, enable_weight_decay=False):
    eps1, eps2 = _eps_pair(epsilon)
    if global_norm is not None and _num(global_norm) > 0:
        gradient = gradient / _num(global_norm)
    KO.adafactor_(param, gradient, exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, _num(learning_rate), eps1,
                  eps2, _num(clip_threshold), _num(beta1), _num(beta2),
                  _num(weight_decay) if enable_weight_decay else 0.0, enable_scale_parameter, enable_first_moment)


fused_ada_factor_p = OptimPrim("FusedAdaFactor", _fused_ada_factor)


def _fused_cast_adam_weight_decay(var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm):
    K.fused_cast_adam_weight_decay_(var, m, v, gradient, _num(lr), _num(beta1), _num(beta2), _num(epsilon),
                                    _num(decay), _num(global_norm))


fused_cast_adam_weight_decay_p = OptimPrim("FusedCastAdamWeightDecay", _fused_cast_adam_weight_decay)
