"""The remaining optimizer primitive classes (`ops.ApplyAddSign()(var, m, lr, alpha, sign_decay, beta, grad)`,
`ops.SparseApplyAdagrad(lr=0.1)(var, accum, grad, indices)`, ...), one table row each over the primitives of
`ops/_prims/optim_sparse.py`. The variable and state inputs are updated in place and returned."""
from mindseed.ops._prims import optim_sparse as P
from mindseed.ops.operations._table import REQUIRED, primitive_class

_LOCK = ("use_locking", False)
_NESTEROV = ("use_nesterov", False)


def _drop(prim, *unused):
    """prim called without the attributes it does not read (locking flags)."""
    def call(*args, **attrs):
        for k in unused:
            attrs.pop(k, None)
        return prim(*args, **attrs)
    return call


_ADAM_IN = ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad", "indices")
_ROWS = {
    # name: (primitive, constructor attributes, inputs, inputs of the variable's shape, returned inputs, doc)
    "ApplyAddSign": (P.apply_add_sign_p, (), ("var", "m", "lr", "alpha", "sign_decay", "beta", "grad"),
                     ("var", "m", "grad"), ("var", "m"),
                     "AddSign: m = beta m + (1 - beta) g; var -= lr (alpha + sign_decay sign(g) sign(m)) g."),
    "ApplyPowerSign": (P.apply_power_sign_p, (), ("var", "m", "lr", "logbase", "sign_decay", "beta", "grad"),
                       ("var", "m", "grad"), ("var", "m"),
                       "PowerSign: m = beta m + (1 - beta) g; var -= lr exp(logbase sign_decay sign(g) sign(m)) g."),
    "ApplyProximalGradientDescent": (
        P.apply_proximal_gradient_descent_p, (), ("var", "alpha", "l1", "l2", "delta"), ("var", "delta"), "var",
        "prox = var - alpha delta; var = sign(prox) max(|prox| - alpha l1, 0) / (1 + alpha l2)."),
    "ApplyKerasMomentum": (_drop(P.apply_keras_momentum_p, "use_locking"), (_LOCK, _NESTEROV),
                           ("var", "accum", "lr", "grad", "momentum"), ("var", "accum", "grad"), ("var", "accum"),
                           "Keras momentum: accum = momentum accum - lr g; var += accum (Nesterov: "
                           "var += momentum accum - lr g)."),
    "ApplyAdagradDA": (_drop(P.apply_adagrad_da_p, "use_locking"), (_LOCK,),
                       ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "lr", "l1", "l2",
                        "global_step"), ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad"),
                       "var", "Adagrad dual averaging: gacc += g, gsq += g^2, var = -lr shrink(gacc, l1 t) / "
                       "(l2 t lr + sqrt(gsq))."),
    "AdamNoUpdateParam": (_drop(P.adam_no_update_param_p, "use_locking"), (_LOCK, _NESTEROV),
                          ("m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "gradient"),
                          ("m", "v", "gradient"), None,
                          "Adam's moments m, v updated in place; returns the update Adam adds to the parameter."),
    "FusedWeightScaleApplyMomentum": (
        P.fused_weight_scale_apply_momentum_p, (),
        ("weight_decay", "loss_scale", "variable", "accumulation", "learning_rate", "gradient", "momentum"),
        ("variable", "accumulation", "gradient"), "variable",
        "Momentum on g = gradient / loss_scale + weight_decay variable."),
    "SparseApplyAdagrad": (_drop(P.sparse_apply_adagrad_p, "use_locking"),
                           (("lr", REQUIRED), ("update_slots", True), _LOCK), ("var", "accum", "grad", "indices"),
                           ("var", "accum"), ("var", "accum"), "Adagrad on the rows `indices` of var and accum."),
    "SparseApplyAdagradV2": (_drop(P.sparse_apply_adagrad_p, "use_locking"),
                             (("lr", REQUIRED), ("epsilon", REQUIRED), _LOCK, ("update_slots", True)),
                             ("var", "accum", "grad", "indices"), ("var", "accum"), ("var", "accum"),
                             "Adagrad with epsilon on the rows `indices` of var and accum."),
    "SparseApplyAdadelta": (_drop(P.sparse_apply_adadelta_p, "use_locking"), (("epsilon", REQUIRED), _LOCK),
                            ("var", "accum", "accum_update", "lr", "rho", "grad", "indices"),
                            ("var", "accum", "accum_update"), ("var", "accum", "accum_update"),
                            "Adadelta on the rows `indices`."),
    "SparseApplyRMSProp": (_drop(P.sparse_apply_rms_prop_p, "use_locking"),
                           (("rho", REQUIRED), ("momentum", REQUIRED), ("epsilon", REQUIRED), _LOCK),
                           ("var", "ms", "mom", "lr", "grad", "indices"), ("var", "ms", "mom"), ("var", "ms", "mom"),
                           "RMSProp on the rows `indices`."),
    "SparseApplyCenteredRMSProp": (_drop(P.sparse_apply_centered_rms_prop_p, "use_locking"), (_LOCK,),
                                   ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad", "indices"),
                                   ("var", "mg", "ms", "mom"), "var",
                                   "Centered RMSProp on the rows `indices` (mean gradient mg and mean square ms)."),
    "SparseApplyMomentum": (_drop(P.sparse_apply_momentum_p, "use_locking"), (_LOCK, _NESTEROV),
                            ("var", "accum", "lr", "grad", "indices", "momentum"), ("var", "accum"), "var",
                            "Momentum on the rows `indices`, one index after another: accum = accum * momentum + g; "
                            "var -= lr * accum (Nesterov: var -= lr * g + lr * momentum * accum)."),
    "SparseApplyProximalGradientDescent": (
        _drop(P.sparse_apply_proximal_gradient_descent_p, "use_locking"), (_LOCK,),
        ("var", "alpha", "l1", "l2", "grad", "indices"), ("var",), "var",
        "Proximal gradient descent (FOBOS) on the rows `indices`: prox = var - alpha g; var = sign(prox) "
        "max(|prox| - alpha l1, 0) / (1 + alpha l2)."),
    "SparseApplyAdagradDA": (_drop(P.sparse_apply_adagrad_da_p, "use_locking"), (_LOCK,),
                             ("var", "grad_accum", "grad_square_accum", "grad", "indices", "lr", "l1", "l2",
                              "global_step"), ("var", "grad_accum", "grad_square_accum"), "var",
                             "Adagrad dual averaging on the rows `indices`: gacc += g, gsq += g^2, var = "
                             "-shrink(gacc / t, l1) / (l2 + sqrt(gsq) / (t lr))."),
    "SparseApplyProximalAdagrad": (_drop(P.sparse_apply_proximal_adagrad_p, "use_locking"), (_LOCK,),
                                   ("var", "accum", "lr", "l1", "l2", "grad", "indices"), ("var", "accum"),
                                   ("var", "accum"), "Proximal Adagrad on the rows `indices`."),
    "FusedSparseProximalAdagrad": (_drop(P.sparse_apply_proximal_adagrad_p, "use_locking"), (_LOCK,),
                                   ("var", "accum", "lr", "l1", "l2", "grad", "indices"), ("var", "accum"),
                                   ("var", "accum"), "Proximal Adagrad on the rows `indices`."),
    "SparseApplyFtrl": (_drop(P.sparse_apply_ftrl_p, "use_locking"),
                        (("lr", REQUIRED), ("l1", REQUIRED), ("l2", REQUIRED), ("lr_power", REQUIRED), _LOCK),
                        ("var", "accum", "linear", "grad", "indices"), ("var", "accum", "linear"),
                        ("var", "accum", "linear"), "FTRL-Proximal on the rows `indices`."),
    "FusedSparseFtrl": (_drop(P.sparse_apply_ftrl_p, "use_locking"),
                        (("lr", REQUIRED), ("l1", REQUIRED), ("l2", REQUIRED), ("lr_power", REQUIRED), _LOCK),
                        ("var", "accum", "linear", "grad", "indices"), ("var", "accum", "linear"),
                        ("var", "accum", "linear"), "FTRL-Proximal on the rows `indices`."),
    "SparseApplyFtrlV2": (_drop(P.sparse_apply_ftrl_v2_p, "use_locking"),
                          (("lr", REQUIRED), ("l1", REQUIRED), ("l2", REQUIRED), ("l2_shrinkage", REQUIRED),
                           ("lr_power", REQUIRED), _LOCK),
                          ("var", "accum", "linear", "grad", "indices"), ("var", "accum", "linear"),
                          ("var", "accum", "linear"),
                          "FTRL-Proximal with L2 shrinkage (the linear term sees grad + 2 l2_shrinkage var) on the "
                          "rows `indices`."),
    "FusedSparseLazyAdam": (_drop(P.fused_sparse_lazy_adam_p, "use_locking"), (_LOCK, _NESTEROV), _ADAM_IN,
                            ("var", "m", "v"), ("var", "m", "v"),
                            "Adam on the rows `indices` only (the other rows' moments are left as they are)."),
    "FusedSparseAdam": (_drop(P.fused_sparse_adam_p, "use_locking"), (_LOCK, _NESTEROV), _ADAM_IN,
                        ("var", "m", "v"), ("var", "m", "v"),
                        "Adam on the dense gradient made of the rows `indices` (every row's moments decay)."),
}

# these kernels take every integer and float dtype (MindSpore's CPU kernels are templated over them)
_ANY_REAL = ("SparseApplyMomentum", "SparseApplyProximalGradientDescent", "SparseApplyAdagradDA")
globals().update({_name: primitive_class(
    _name, _fn, _attrs, _inputs, tensors=_same + tuple(a for a in ("grad",) if a in _inputs and a not in _same),
    same_shape=_same[:1] + tuple(s for s in _same[1:] if s not in ("grad", "gradient")), returns=_ret, doc=_doc,
    int_tensors=("indices",) if "indices" in _inputs else (),
    # MindSpore's SparseApply* kernels take float16 / float32 variables, states and gradients only
    half_single=tuple(dict.fromkeys(_same + ("grad",))) if _name.startswith("SparseApply") and _name not in _ANY_REAL
    else ())
    for _name, (_fn, _attrs, _inputs, _same, _ret, _doc) in _ROWS.items()})
__all__ = list(_ROWS)
