"""Optimizer primitives of the class API (`ops.ApplyMomentum()(var, accum, lr, grad, momentum)`, ...).

Each checks its arguments and calls its primitive of `ops._prims.optim`, the one nn.optim and
experimental.optim call too: it updates its Parameter arguments in place and they are returned; the
update is not differentiated. Scalar inputs may be numbers or one-element Tensors.
"""
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import optim as P
from mindseed.ops.functional._core import inplace_result
from mindseed.ops.operations._base import Primitive

__all__ = ["ApplyMomentum", "SGD", "Adam", "ApplyAdamWithAmsgradV2", "AdamWeightDecay", "ApplyAdagrad",
           "ApplyAdagradV2", "ApplyAdadelta", "ApplyAdaMax", "ApplyRMSProp", "ApplyCenteredRMSProp",
           "ApplyProximalAdagrad", "ApplyFtrl", "ApplyGradientDescent", "LARSUpdate"]


def _check_tensors(name, **tensors):
    for arg, value in tensors.items():
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{name}', the '{arg}' must be a Tensor or Parameter, but got "
                            f"{type(value).__name__}.")
    shapes = {arg: v.shape for arg, v in tensors.items()}
    first = next(iter(shapes.values()))
    for arg, shape in shapes.items():
        if shape != first:
            raise ValueError(f"For '{name}', the shape of '{arg}' {shape} must be the same as the shape of the "
                             f"variable {first}.")


def _updated(*tensors):
    """The updated inputs an op returns: Tensors of the Parameters' new values (MindSpore's outputs), one or a
    tuple."""
    out = tuple(inplace_result(t) for t in tensors)
    return out[0] if len(out) == 1 else out


class _OptimPrim(Primitive):
    """A class-API optimizer op: constructor arguments become attributes; `__call__` checks the inputs and calls
    the primitive (in a traced graph, one opaque node run again at every call of the compiled function)."""

    def __init__(self, **attrs):
        super().__init__(type(self).__name__)
        for k, v in attrs.items():
            self.add_prim_attr(k, v)


class _LockingOptimPrim(_OptimPrim):
    """An optimizer op whose only constructor argument is `use_locking`."""

    def __init__(self, use_locking=False):
        super().__init__(use_locking=use_locking)


class ApplyMomentum(_OptimPrim):
    """accum = accum * momentum + grad; var -= lr * accum (nesterov: lr * grad + lr * momentum * accum).

    >>> import mindseed as ms
    >>> w, a = ms.Parameter(ms.Tensor([1.0]), name="w"), ms.Parameter(ms.Tensor([0.0]), name="a")
    >>> float(ms.ops.ApplyMomentum()(w, a, 0.1, ms.Tensor([1.0]), 0.9)[0])
    0.9
    """

    def __init__(self, use_locking=False, use_nesterov=False, gradient_scale=1.0):
        super().__init__(use_locking=use_locking, use_nesterov=use_nesterov, gradient_scale=gradient_scale)

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum):
        _check_tensors(self.name, variable=variable, accumulation=accumulation, gradient=gradient)
        P.apply_momentum_p(variable, accumulation, learning_rate, gradient, momentum, use_nesterov=self.use_nesterov,
                           gradient_scale=self.gradient_scale)
        return _updated(variable)


class SGD(_OptimPrim):
    """MindSpore's SGD primitive (momentum with a first-step seed `stat`, dampening, weight decay, Nesterov)."""

    def __init__(self, dampening=0.0, weight_decay=0.0, nesterov=False):
        super().__init__(dampening=dampening, weight_decay=weight_decay, nesterov=nesterov)

    def __call__(self, parameters, gradient, learning_rate, accum, momentum, stat):
        _check_tensors(self.name, parameters=parameters, gradient=gradient, accum=accum, stat=stat)
        P.sgd_p(parameters, gradient, learning_rate, accum, momentum, stat, dampening=self.dampening,
                weight_decay=self.weight_decay, nesterov=self.nesterov)
        return _updated(parameters)


class Adam(_OptimPrim):
    """Adam: var -= lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + eps); returns (var, m, v)."""

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__(use_locking=use_locking, use_nesterov=use_nesterov)

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
        _check_tensors(self.name, var=var, m=m, v=v, gradient=gradient)
        P.adam_p(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient,
                 use_nesterov=self.use_nesterov)
        return _updated(var, m, v)


class ApplyAdamWithAmsgradV2(_LockingOptimPrim):
    """Adam with the running maximum `vhat` of v in the denominator; returns (var, m, v, vhat)."""

    def __call__(self, var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
        _check_tensors(self.name, var=var, m=m, v=v, vhat=vhat, grad=grad)
        P.adam_amsgrad_p(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)
        return _updated(var, m, v, vhat)


class AdamWeightDecay(_LockingOptimPrim):
    """var -= lr * (m / (sqrt(v) + eps) + decay * var), no bias correction; returns (var, m, v)."""

    def __call__(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient):
        _check_tensors(self.name, var=var, m=m, v=v, gradient=gradient)
        P.adam_weight_decay_p(var, m, v, lr, beta1, beta2, epsilon, decay, gradient)
        return _updated(var, m, v)


class ApplyAdagrad(_OptimPrim):
    """accum += grad^2 (with update_slots); var -= lr * grad / sqrt(accum); returns (var, accum)."""

    def __init__(self, update_slots=True):
        super().__init__(update_slots=update_slots)

    def __call__(self, var, accum, lr, grad):
        _check_tensors(self.name, var=var, accum=accum, grad=grad)
        P.apply_adagrad_p(var, accum, lr, grad, update_slots=self.update_slots)
        return _updated(var, accum)


class ApplyAdagradV2(_OptimPrim):
    """accum += grad^2; var -= lr * grad / (sqrt(accum) + epsilon); returns (var, accum)."""

    def __init__(self, epsilon, update_slots=True):
        super().__init__(epsilon=epsilon, update_slots=update_slots)

    def __call__(self, var, accum, lr, grad):
        _check_tensors(self.name, var=var, accum=accum, grad=grad)
        P.apply_adagrad_v2_p(var, accum, lr, grad, epsilon=self.epsilon, update_slots=self.update_slots)
        return _updated(var, accum)


class ApplyAdadelta(_OptimPrim):
    """Adadelta; returns (var, accum, accum_update)."""

    def __call__(self, var, accum, accum_update, lr, rho, epsilon, grad):
        _check_tensors(self.name, var=var, accum=accum, accum_update=accum_update, grad=grad)
        P.apply_adadelta_p(var, accum, accum_update, lr, rho, epsilon, grad)
        return _updated(var, accum, accum_update)


class ApplyAdaMax(_OptimPrim):
    """v = max(beta2 * v, |grad|); var -= lr / (1 - beta1_power) * m / (v + eps); returns (var, m, v)."""

    def __call__(self, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
        _check_tensors(self.name, var=var, m=m, v=v, grad=grad)
        P.apply_ada_max_p(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad)
        return _updated(var, m, v)


class ApplyRMSProp(_LockingOptimPrim):
    """ms = decay * ms + (1 - decay) * grad^2; mom = momentum * mom + lr * grad / sqrt(ms + eps); var -= mom."""

    def __call__(self, var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon):
        _check_tensors(self.name, var=var, mean_square=mean_square, moment=moment, grad=grad)
        P.apply_rms_prop_p(var, mean_square, moment, learning_rate, grad, decay, momentum, epsilon)
        return _updated(var)


class ApplyCenteredRMSProp(_LockingOptimPrim):
    """RMSProp with the mean gradient subtracted in the denominator: sqrt(ms - mg^2 + eps)."""

    def __call__(self, var, mean_gradient, mean_square, moment, grad, learning_rate, decay, momentum, epsilon):
        _check_tensors(self.name, var=var, mean_gradient=mean_gradient, mean_square=mean_square, moment=moment,
                       grad=grad)
        P.apply_centered_rms_prop_p(var, mean_gradient, mean_square, moment, grad, learning_rate, decay, momentum,
                                    epsilon)
        return _updated(var)


class ApplyProximalAdagrad(_LockingOptimPrim):
    """Adagrad followed by the proximal step of l1/l2 (rate lr / sqrt(accum)); returns (var, accum)."""

    def __call__(self, var, accum, lr, l1, l2, grad):
        _check_tensors(self.name, var=var, accum=accum, grad=grad)
        P.apply_proximal_adagrad_p(var, accum, lr, l1, l2, grad)
        return _updated(var, accum)


class ApplyFtrl(_LockingOptimPrim):
    """FTRL-Proximal with accumulators `accum` and `linear`; returns var."""

    def __call__(self, var, accum, linear, grad, lr, l1, l2, lr_power):
        _check_tensors(self.name, var=var, accum=accum, linear=linear, grad=grad)
        P.apply_ftrl_p(var, accum, linear, grad, lr, l1, l2, lr_power)
        return _updated(var)


class ApplyGradientDescent(_OptimPrim):
    """var -= alpha * delta; returns var."""

    def __call__(self, var, alpha, delta):
        _check_tensors(self.name, var=var, delta=delta)
        P.apply_gradient_descent_p(var, alpha, delta)
        return _updated(var)


class LARSUpdate(_OptimPrim):
    """The LARS gradient from the sums of squares of weight and gradient (see `nn.LARS`); returns a new Tensor."""

    def __init__(self, epsilon=1e-05, hyperpara=0.001, use_clip=False):
        super().__init__(epsilon=epsilon, hyperpara=hyperpara, use_clip=use_clip)

    def __call__(self, weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate):
        _check_tensors(self.name, weight=weight, gradient=gradient)
        return P.lars_update_p(weight, gradient, norm_weight, norm_gradient, weight_decay, learning_rate,
                               epsilon=self.epsilon, hyperpara=self.hyperpara, use_clip=self.use_clip)
