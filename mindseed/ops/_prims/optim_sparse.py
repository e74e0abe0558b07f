"""The remaining optimizer primitives of MindSpore: sign-based rules, proximal gradient descent, Keras momentum,
Adagrad-DA, Adam without the parameter update, weight-scaled momentum, and the row-sparse forms (SparseApply*,
FusedSparse*) of the dense rules of `optim.py`, whose kernels they reuse on the rows named by `indices`."""
from mindseed._backend.kernels import optim_sparse as K
from mindseed.ops._prims.optim import OptimPrim, _num

__all__ = []


def _add_sign(var, m, lr, alpha, sign_decay, beta, grad):
    K.add_sign_(var, m, grad, _num(lr), _num(alpha), _num(sign_decay), _num(beta))


def _power_sign(var, m, lr, logbase, sign_decay, beta, grad):
    K.power_sign_(var, m, grad, _num(lr), _num(logbase), _num(sign_decay), _num(beta))


def _proximal_gradient_descent(var, alpha, l1, l2, delta):
    K.proximal_gradient_descent_(var, delta, _num(alpha), _num(l1), _num(l2))


def _keras_momentum(var, accum, lr, grad, momentum, use_nesterov=False):
    K.keras_momentum_(var, accum, grad, _num(lr), _num(momentum), use_nesterov)


def _adagrad_da(var, gacc, gsq, grad, lr, l1, l2, global_step):
    K.adagrad_da_(var, gacc, gsq, grad, _num(lr), _num(l1), _num(l2), _num(global_step))


def _adam_no_update_param(m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient, use_nesterov=False):
    return K.adam_delta(m, v, gradient, _num(beta1_power), _num(beta2_power), _num(lr), _num(beta1), _num(beta2),
                        _num(epsilon), use_nesterov)


def _weight_scale_momentum(weight_decay, loss_scale, variable, accumulation, learning_rate, gradient, momentum):
    g = gradient / _num(loss_scale) + _num(weight_decay) * variable
    K.momentum_([variable], [g], [accumulation], _num(learning_rate), _num(momentum))


apply_add_sign_p = OptimPrim("ApplyAddSign", _add_sign)
apply_power_sign_p = OptimPrim("ApplyPowerSign", _power_sign)
apply_proximal_gradient_descent_p = OptimPrim("ApplyProximalGradientDescent", _proximal_gradient_descent)
apply_keras_momentum_p = OptimPrim("ApplyKerasMomentum", _keras_momentum)
apply_adagrad_da_p = OptimPrim("ApplyAdagradDA", _adagrad_da)
adam_no_update_param_p = OptimPrim("AdamNoUpdateParam", _adam_no_update_param, fresh=True, multi_output=False)
fused_weight_scale_apply_momentum_p = OptimPrim("FusedWeightScaleApplyMomentum", _weight_scale_momentum)


# ---------------------------------------------------------------- row-sparse forms: (var, *state, grad, indices)
def _sparse_adagrad(var, accum, grad, indices, lr, update_slots=True, epsilon=0.0):
    K.sparse_rows_(K.adagrad_, [var, accum], grad, indices, _num(lr), update_slots, _num(epsilon))


def _sparse_adadelta(var, accum, accum_update, lr, rho, grad, indices, epsilon=1e-6):
    K.sparse_rows_(K.adadelta_, [var, accum, accum_update], grad, indices, _num(lr), _num(rho), epsilon)


def _sparse_rms_prop(var, ms, mom, lr, grad, indices, rho=0.9, momentum=0.0, epsilon=1e-10):
    K.sparse_rows_(K.rms_prop_, [var, ms, mom], grad, indices, _num(lr), rho, momentum, epsilon)


def _sparse_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices):
    K.sparse_rows_(K.centered_rms_prop_, [var, mg, ms, mom], grad, indices, _num(lr), _num(rho), _num(momentum),
                   _num(epsilon))


def _sparse_proximal_adagrad(var, accum, lr, l1, l2, grad, indices):
    K.sparse_rows_(K.proximal_adagrad_, [var, accum], grad, indices, _num(lr), _num(l1), _num(l2))


def _sparse_ftrl(var, accum, linear, grad, indices, lr=0.01, l1=0.0, l2=0.0, lr_power=-0.5):
    K.sparse_rows_(K.ftrl_, [var, accum, linear], grad, indices, lr, l1, l2, lr_power, skip_outside=True)


def _sparse_ftrl_v2(var, accum, linear, grad, indices, lr=0.01, l1=0.0, l2=0.0, l2_shrinkage=0.0, lr_power=-0.5):
    K.sparse_rows_(K.ftrl_, [var, accum, linear], grad, indices, lr, l1, l2, lr_power, l2_shrinkage)


def _sparse_lazy_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices,
                      use_nesterov=False):
    K.sparse_rows_(K.adam_, [var, m, v], grad, indices, _num(beta1_power), _num(beta2_power), _num(lr), _num(beta1),
                   _num(beta2), _num(epsilon), use_nesterov)


def _sparse_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices, use_nesterov=False):
    # not lazy: every row's moments decay (absent rows see a zero gradient), as the dense rule on the dense gradient
    K.adam_([var], [K.dense_grad(var, grad, indices)], [m], [v], _num(beta1_power), _num(beta2_power), _num(lr),
            _num(beta1), _num(beta2), _num(epsilon), use_nesterov)


def _sparse_momentum(var, accum, lr, grad, indices, momentum, use_nesterov=False):
    del use_nesterov            # read by MindSpore's constructor, not by its CPU kernel (plain momentum either way)
    K.sequential_rows_(K.momentum_rows_, [var, accum], grad, indices, lr, momentum)


def _sparse_proximal_gradient_descent(var, alpha, l1, l2, grad, indices):
    K.sequential_rows_(K.proximal_gradient_descent_rows_, [var], grad, indices, alpha, l1, l2)


def _sparse_adagrad_da(var, grad_accum, grad_square_accum, grad, indices, lr, l1, l2, global_step):
    K.sequential_rows_(K.adagrad_da_rows_, [var, grad_accum, grad_square_accum], grad, indices, lr, l1, l2,
                       global_step)


sparse_apply_adagrad_p = OptimPrim("SparseApplyAdagrad", _sparse_adagrad)
sparse_apply_adadelta_p = OptimPrim("SparseApplyAdadelta", _sparse_adadelta)
sparse_apply_rms_prop_p = OptimPrim("SparseApplyRMSProp", _sparse_rms_prop)
sparse_apply_centered_rms_prop_p = OptimPrim("SparseApplyCenteredRMSProp", _sparse_centered_rms_prop)
sparse_apply_proximal_adagrad_p = OptimPrim("SparseApplyProximalAdagrad", _sparse_proximal_adagrad)
sparse_apply_ftrl_p = OptimPrim("SparseApplyFtrl", _sparse_ftrl)
sparse_apply_ftrl_v2_p = OptimPrim("SparseApplyFtrlV2", _sparse_ftrl_v2)
fused_sparse_lazy_adam_p = OptimPrim("FusedSparseLazyAdam", _sparse_lazy_adam)
fused_sparse_adam_p = OptimPrim("FusedSparseAdam", _sparse_adam)
sparse_apply_momentum_p = OptimPrim("SparseApplyMomentum", _sparse_momentum)
sparse_apply_proximal_gradient_descent_p = OptimPrim("SparseApplyProximalGradientDescent",
                                                     _sparse_proximal_gradient_descent)
sparse_apply_adagrad_da_p = OptimPrim("SparseApplyAdagradDA", _sparse_adagrad_da)
