"""Optimizer primitives: MindSpore's state-updating ops (ApplyMomentum, Adam, ...), each declared once.

The class API (`ops.ApplyMomentum()(var, accum, lr, grad, momentum)`), `nn.optim` and `experimental.optim`
call the same primitive, so each update rule exists once, in its kernel in `_backend/_kernels/optim.py`.

An `OptimPrim` takes, for each tensor input, either one Tensor or a sequence of them (one per parameter: the
multi-tensor kernels update a whole list at once), and for each scalar input (learning rate, betas, ...) a
Python number or a one-element Tensor. Keyword arguments are attributes (flags). An in-place primitive
(``side_effect``) updates its variable and state inputs and returns its first input (the variables); one
with fresh outputs (a processed gradient) returns new Tensors. Updates are not differentiated: calls are
never recorded for autodiff. While a graph is traced, a call is one opaque node that runs again at each
call of the compiled function (`_state.opaque_call`), writing the Parameters it was given; the optimizers
of `nn.optim` run their whole step as one such node (`Cell._graph_opaque`), and their calls run eagerly.

Primitives without a MindSpore class of that name (the rules of `experimental.optim` and of the nn
optimizers MindSpore writes as composites: Lamb, ASGD, Rprop, AdaFactor) carry the optimizer's name.
"""
from mindseed._backend.kernels import optim as K
from mindseed._utils import _state
from mindseed.common import _parallel
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.ops._registry import Prim

__all__ = ["OptimPrim"]


def _raw(x):
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, (list, tuple)):
        try:
            return [t._data for t in x]          # the common case: all Tensors (one pass, no checks)
        except AttributeError:
            return [t._data if isinstance(t, Tensor) else t for t in x]
    return x


def _written(args):
    """The Parameters among the inputs (and inside their lists): what the update may write."""
    out = []
    for a in args:
        if isinstance(a, Parameter):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(t for t in a if isinstance(t, Parameter))
    return out


def _describe(x):
    if isinstance(x, Tensor):
        return f"{x.shape} {x.dtype}"
    if isinstance(x, (list, tuple)) and x and all(isinstance(t, Tensor) for t in x):
        return "[" + ", ".join(f"{t.shape} {t.dtype}" for t in x[:4]) + (", ...]" if len(x) > 4 else "]")
    return repr(x)


class OptimPrim(Prim):
    """An optimizer primitive: tensor inputs may be lists (one tensor per parameter); never recorded for autodiff.

    Args:
        name (str): MindSpore's name of the primitive.
        impl (callable): the kernel (lists of backend tensors or backend tensors, numbers, attrs).
        fresh (bool): the kernel returns new tensors instead of updating its inputs in place (`Op.fresh`); otherwise
            it is a `side_effect`.
    """

    __slots__ = ()

    def __init__(self, name, impl, fresh=False, multi_output=None):
        super().__init__(name, impl, multi_output=fresh if multi_output is None else multi_output,
                         side_effect=not fresh, fresh=fresh)

    def __call__(self, *args, **attrs):
        if _state.tracing is not None:
            return _state.opaque_call(lambda *a: self._run(a, attrs), args, outputs=self.fresh,
                                      writes=() if self.fresh else _written(args))
        return self._run(args, attrs)

    def _run(self, args, attrs):
        try:
            out = self.impl(*[_raw(a) for a in args], **attrs)
        except Exception as exc:  # noqa: BLE001 -- every kernel failure is translated for the user
            if isinstance(exc, (TypeError, ValueError, IndexError)) and str(exc).startswith("For '"):
                raise
            shapes = ", ".join(_describe(a) for a in args)
            kind = TypeError if isinstance(exc, TypeError) else ValueError
            raise kind(f"For '{self.name}', the inputs ({shapes}) with attributes {attrs} are invalid: "
                       f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
        if not self.fresh:
            return args[0]
        if isinstance(out, (list, tuple)):
            return tuple(Tensor._from_raw(o) for o in out)
        return Tensor._from_raw(out)


class ReducingPrim(OptimPrim):
    """An optimizer primitive whose update reads reductions over its first input (the parameter) whole: norms,
    means. Under the parallel optimizer (`common._parallel.slice_reduction` set while it runs the user's optimizer
    on a rank's slices) the kernel gets ``reduce=``: it sums its partial reductions over the slices (its ``shape``
    is the whole parameter's)."""

    __slots__ = ()

    def _run(self, args, attrs):
        hook = _parallel.slice_reduction
        reduce = hook(args[0]) if hook is not None else None
        return super()._run(args, attrs if reduce is None else dict(attrs, reduce=reduce))


def _num(x):
    """A hyper-parameter as a Python number (a one-element backend tensor is read)."""
    return x if isinstance(x, (int, float)) else K.item(x)


def _each(x):
    return x if isinstance(x, list) else [x]


# ---------------------------------------------------------------- MindSpore's update primitives
def _apply_momentum(variable, accumulation, learning_rate, gradient, momentum, use_nesterov=False,
                    gradient_scale=1.0):
    grads = _each(gradient)
    if gradient_scale != 1.0:
        grads = K.scaled(grads, gradient_scale)
    K.apply_momentum_(_each(variable), grads, _each(accumulation), _num(learning_rate), _num(momentum), use_nesterov)


apply_momentum_p = OptimPrim("ApplyMomentum", _apply_momentum)


def _sgd(parameters, gradient, learning_rate, accum, momentum, stat, dampening=0.0, weight_decay=0.0,
         nesterov=False):
    K.sgd_(_each(parameters), _each(gradient), _each(accum), _each(stat), _num(learning_rate), _num(momentum),
           dampening, nesterov, weight_decay)


sgd_p = OptimPrim("SGD", _sgd)


def _adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient, use_nesterov=False):
    K.adam_(_each(var), _each(gradient), _each(m), _each(v), _num(beta1_power), _num(beta2_power), _num(lr),
            _num(beta1), _num(beta2), _num(epsilon), use_nesterov)


adam_p = OptimPrim("Adam", _adam)


def _adam_amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    K.adam_amsgrad_(_each(var), _each(grad), _each(m), _each(v), _each(vhat), _num(beta1_power), _num(beta2_power),
                    _num(lr), _num(beta1), _num(beta2), _num(epsilon))


adam_amsgrad_p = OptimPrim("ApplyAdamWithAmsgradV2", _adam_amsgrad)


def _adam_weight_decay(var, m, v, lr, beta1, beta2, epsilon, decay, gradient):
    K.adam_weight_decay_(_each(var), _each(gradient), _each(m), _each(v), _num(lr), _num(beta1), _num(beta2),
                         _num(epsilon), _num(decay))


adam_weight_decay_p = OptimPrim("AdamWeightDecay", _adam_weight_decay)


def _apply_adagrad(var, accum, lr, grad, update_slots=True):
    K.apply_adagrad_(_each(var), _each(grad), _each(accum), _num(lr), update_slots)


apply_adagrad_p = OptimPrim("ApplyAdagrad", _apply_adagrad)


def _apply_adagrad_v2(var, accum, lr, grad, epsilon=1e-6, update_slots=True):
    K.apply_adagrad_(_each(var), _each(grad), _each(accum), _num(lr), update_slots, epsilon)


apply_adagrad_v2_p = OptimPrim("ApplyAdagradV2", _apply_adagrad_v2)


def _apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    K.apply_adadelta_(_each(var), _each(grad), _each(accum), _each(accum_update), _num(lr), _num(rho), _num(epsilon))


apply_adadelta_p = OptimPrim("ApplyAdadelta", _apply_adadelta)


def _apply_ada_max(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    K.ada_max_(_each(var), _each(grad), _each(m), _each(v), _num(beta1_power), _num(lr), _num(beta1), _num(beta2),
               _num(epsilon))


apply_ada_max_p = OptimPrim("ApplyAdaMax", _apply_ada_max)


def _apply_rms_prop(var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon):
    K.apply_rms_prop_(_each(var), _each(grad), _each(mean_square), _each(moment), _num(learning_rate), _num(decay),
                      _num(momentum), _num(epsilon))


apply_rms_prop_p = OptimPrim("ApplyRMSProp", _apply_rms_prop)


def _apply_centered_rms_prop(var, mean_gradient, mean_square, moment, grad, learning_rate, decay, momentum, epsilon):
    K.apply_rms_prop_(_each(var), _each(grad), _each(mean_square), _each(moment), _num(learning_rate), _num(decay),
                      _num(momentum), _num(epsilon), _each(mean_gradient))


apply_centered_rms_prop_p = OptimPrim("ApplyCenteredRMSProp", _apply_centered_rms_prop)


def _apply_proximal_adagrad(var, accum, lr, l1, l2, grad):
    K.apply_proximal_adagrad_(_each(var), _each(grad), _each(accum), _num(lr), _num(l1), _num(l2))


apply_proximal_adagrad_p = OptimPrim("ApplyProximalAdagrad", _apply_proximal_adagrad)


def _apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power):
    K.apply_ftrl_(_each(var), _each(grad), _each(accum), _each(linear), _num(lr), _num(l1), _num(l2), _num(lr_power))


apply_ftrl_p = OptimPrim("ApplyFtrl", _apply_ftrl)


def _apply_gradient_descent(var, alpha, delta):
    K.gradient_descent_(_each(var), _each(delta), _num(alpha))


apply_gradient_descent_p = OptimPrim("ApplyGradientDescent", _apply_gradient_descent)


def _lars_update(weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate, epsilon=1e-05,
                 hyperpara=0.001, use_clip=False, reduce=None):
    """The LARS gradient; `norm_weight`/`norm_gradient` are the sums of squares, or None: computed here (over the
    slices with `reduce`)."""
    if norm_weight is None:
        return K.lars_grad(weight, gradient, _num(weight_decay), _num(learning_rate), epsilon, hyperpara, use_clip,
                           reduce=reduce)
    return K.lars_update(weight, gradient, _num(norm_weight), _num(norm_gradient), _num(weight_decay),
                         _num(learning_rate), epsilon, hyperpara, use_clip)


lars_update_p = ReducingPrim("LARSUpdate", _lars_update, fresh=True, multi_output=False)


# ---------------------------------------------------------------- rules MindSpore writes as composites
def _lamb(param, m, v, grad, lr, beta1, beta2, eps, weight_decay, step, reduce=None):
    K.lamb_(param, m, v, grad, _num(lr), _num(beta1), _num(beta2), _num(eps), _num(weight_decay), _num(step),
            reduce=reduce)


lamb_p = ReducingPrim("Lamb", _lamb)


def _asgd(param, grad, ax, eta, mu, lambd):
    K.asgd_(param, grad, ax, _num(eta), _num(mu), _num(lambd))


asgd_p = OptimPrim("ASGD", _asgd)


def _rprop(param, grad, prev, step_size, lr, first, etaminus, etaplus, step_min, step_max):
    K.rprop_(param, grad, prev, step_size, _num(lr), first, _num(etaminus), _num(etaplus), _num(step_min),
             _num(step_max))


rprop_p = OptimPrim("Rprop", _rprop)


def _adafactor(param, grad, exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, lr, eps1, eps2, clip_threshold,
               beta1, beta2t, weight_decay, scale_parameter=True, use_first_moment=True, reduce=None):
    K.adafactor_(param, grad, exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, _num(lr), _num(eps1), _num(eps2),
                 _num(clip_threshold), _num(beta1), _num(beta2t), _num(weight_decay), scale_parameter,
                 use_first_moment, reduce=reduce)


adafactor_p = ReducingPrim("AdaFactor", _adafactor)


def _adamw(var, m, v, max_v, gradient, step, lr, beta1, beta2, decay, eps, amsgrad=False):
    K.adamw_(_each(var), _each(gradient), _each(m), _each(v), _each(max_v), _num(step), _num(lr), _num(beta1),
             _num(beta2), _num(eps), _num(decay), amsgrad)


adamw_p = OptimPrim("AdamW", _adamw)


def _adamax(var, exp_avg, exp_inf, gradient, step, lr, beta1, beta2, eps):
    K.adamax_torch_style_(_each(var), _each(gradient), _each(exp_avg), _each(exp_inf), _num(step), _num(lr),
                          _num(beta1), _num(beta2), _num(eps))


adamax_p = OptimPrim("Adamax", _adamax)


def _rmsprop(var, mean_square, mean_grad, moment, gradient, lr, alpha, eps, momentum, centered=False):
    K.rmsprop_torch_style_(_each(var), _each(gradient), _each(mean_square), _each(mean_grad), _each(moment),
                           _num(lr), _num(alpha), _num(eps), _num(momentum), centered)


rmsprop_p = OptimPrim("RMSprop", _rmsprop)


def _nadam(var, exp_avg, exp_avg_sq, mu_product, gradient, step, lr, beta1, beta2, eps, momentum_decay):
    K.nadam_(var, gradient, exp_avg, exp_avg_sq, mu_product, _num(step), _num(lr), _num(beta1), _num(beta2),
             _num(eps), _num(momentum_decay))


nadam_p = OptimPrim("NAdam", _nadam)


def _radam(var, exp_avg, exp_avg_sq, gradient, step, lr, beta1, beta2, eps):
    K.radam_(_each(var), _each(gradient), _each(exp_avg), _each(exp_avg_sq), _num(step), _num(lr), _num(beta1),
             _num(beta2), _num(eps))


radam_p = OptimPrim("RAdam", _radam)


# ---------------------------------------------------------------- gradient processing and step bookkeeping
def _apply_decay(gradients, weights, weight_decay):
    return K.decayed(_each(gradients), _each(weights), _num(weight_decay))


# gradient + weight_decay * weight (MindSpore's `apply_decay` of nn.Optimizer), fused over the list
apply_decay_p = OptimPrim("ApplyDecay", _apply_decay, fresh=True)
# gradient * scale (the loss-scale division)
grad_scale_p = OptimPrim("GradScale", lambda gradients, scale: K.scaled(_each(gradients), _num(scale)), fresh=True)
# -gradient (experimental optimizers' `maximize`)
grad_neg_p = OptimPrim("GradNeg", lambda gradients: K.neg(_each(gradients)), fresh=True)
# gradient minus its mean over all axes but the first (gradient centralization)
grad_centralization_p = OptimPrim("GradCentralization", K.centralized, fresh=True, multi_output=False)
# step counter += 1
step_increment_p = OptimPrim("StepIncrement", K.step_)
# state *= factor (beta powers)
scalar_mul_p = OptimPrim("ScalarMulInPlace", lambda x, factor: K.mul_scalar_(x, _num(factor)))
# state <- value (a number, stored beyond the dtype's range as inf, as MindSpore does)
assign_value_p = OptimPrim("AssignValue", lambda x, value: K.assign_(x, value))
