"""Adam, AdamWeightDecay and AdamOffload with MindSpore's update rules and state names."""
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, _runs, opt_init_args_register
from mindseed.ops._prims.optim import adam_amsgrad_p, adam_p, adam_weight_decay_p, scalar_mul_p

__all__ = ["Adam", "AdamWeightDecay", "AdamOffload"]


def _check_param_value(beta1, beta2, eps, prim_name):
    V.value_type("beta1", beta1, [float], prim_name)
    V.value_type("beta2", beta2, [float], prim_name)
    V.value_type("eps", eps, [float], prim_name)
    V.float_range(beta1, 0.0, 1.0, "()", "beta1", prim_name)
    V.float_range(beta2, 0.0, 1.0, "()", "beta2", prim_name)
    V.positive_float(eps, "eps", prim_name)


def _moment_hypers(opt, beta1, beta2, eps):
    """Check beta1, beta2 and eps and keep them on `opt` as (1,) float32 tensors and as floats (`_hyper`)."""
    _check_param_value(beta1, beta2, eps, opt.cls_name)
    opt.beta1 = Tensor([beta1], mstype.float32)
    opt.beta2 = Tensor([beta2], mstype.float32)
    opt.eps = Tensor([eps], mstype.float32)
    opt.__dict__["_hyper"] = (opt.beta1.item(), opt.beta2.item(), opt.eps.item())


class _AdamBase(Optimizer):
    """Shared state of the Adam variants: beta powers and the two moments."""

    def _init_adam(self, beta1, beta2, eps, power_shape):
        self.beta1 = Tensor(beta1, mstype.float32)
        self.beta2 = Tensor(beta2, mstype.float32)
        self.beta1_power = Parameter(Tensor([1.0] * power_shape[0] if power_shape else 1.0, mstype.float32),
                                     name="beta1_power")
        self.beta2_power = Parameter(Tensor([1.0] * power_shape[0] if power_shape else 1.0, mstype.float32),
                                     name="beta2_power")
        self.eps = Tensor(eps, mstype.float32)
        self.__dict__["_hyper"] = (self.beta1.item(), self.beta2.item(), self.eps.item())
        self.moment1 = self._parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self._parameters.clone(prefix="moment2", init="zeros")

    def _init_dense_adam(self, beta1, beta2, eps, use_locking, use_nesterov):
        """What AdamOffload and LazyAdam share: checked hyper-parameters, (1,) powers, the two flags."""
        _check_param_value(beta1, beta2, eps, self.cls_name)
        V.value_type("use_locking", use_locking, [bool], self.cls_name)
        V.value_type("use_nesterov", use_nesterov, [bool], self.cls_name)
        self._init_adam(beta1, beta2, eps, (1,))
        self.use_nesterov = use_nesterov
        self.use_locking = use_locking

    def _next_powers(self):
        """beta_power *= beta (float32, in place, as MindSpore stores them) and their new values."""
        b1, b2, _ = self._hyper
        scalar_mul_p(self.beta1_power, b1)
        scalar_mul_p(self.beta2_power, b2)
        return self.beta1_power.item(), self.beta2_power.item()

    def _adam_step(self, gradients, vhat=None):
        grads, segments = self._begin_step(gradients)
        b1p, b2p = self._next_powers()
        b1, b2, eps = self._hyper
        params, m, v = self._parameters, self.moment1, self.moment2
        for lo, hi, lr in segments:
            if vhat is not None:
                adam_amsgrad_p(params[lo:hi], m[lo:hi], v[lo:hi], vhat[lo:hi], b1p, b2p, lr, b1, b2, eps, grads[lo:hi])
            else:
                adam_p(params[lo:hi], m[lo:hi], v[lo:hi], b1p, b2p, lr, b1, b2, eps, grads[lo:hi],
                       use_nesterov=self.use_nesterov)
        return self._success


class Adam(_AdamBase):
    r"""Adaptive Moment Estimation.

    .. math::
        m = \beta_1 m + (1 - \beta_1) g, \quad v = \beta_2 v + (1 - \beta_2) g^2, \quad
        p = p - lr \frac{\sqrt{1 - \beta_2^t}}{1 - \beta_1^t} \frac{m}{\sqrt{v} + \epsilon}

    With `use_nesterov` the numerator is :math:`\beta_1 m + (1 - \beta_1) g`; with `use_amsgrad` the
    denominator uses the running maximum of v (state ``vhat.*``).

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``1e-3``.
        beta1 (float): in (0, 1). Default: ``0.9``.
        beta2 (float): in (0, 1). Default: ``0.999``.
        eps (float): > 0. Default: ``1e-8``.
        use_locking (bool): accepted for compatibility. Default: ``False``.
        use_nesterov (bool): Default: ``False``.
        weight_decay (Union[float, int, Cell]): Default: ``0.0``.
        loss_scale (float): Default: ``1.0``.
        use_amsgrad (bool): Default: ``False``.
        kwargs: ``use_lazy`` and ``use_offload`` (bool): the same update on dense gradients.

    State: ``beta1_power``, ``beta2_power``, ``moment1.*``, ``moment2.*`` (and ``vhat.*``).

    Raises:
        TypeError: a hyper-parameter has the wrong type.
        ValueError: beta1/beta2 outside (0, 1), eps <= 0, or use_amsgrad with use_lazy/use_offload.
        KeyError: an unknown keyword argument.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.Adam([w], learning_rate=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    @opt_init_args_register
    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if set(kwargs) - {"use_lazy", "use_offload"}:
            raise KeyError(f"For 'Adam', invalid keys are passed as kwargs, supported keys are 'use_lazy' and"
                           f"'use_offload', but got {kwargs.keys()}.")
        use_lazy = kwargs.get("use_lazy", False)
        use_offload = kwargs.get("use_offload", False)
        _check_param_value(beta1, beta2, eps, self.cls_name)
        for name, flag in (("use_locking", use_locking), ("use_nesterov", use_nesterov),
                           ("use_amsgrad", use_amsgrad), ("use_lazy", use_lazy), ("use_offload", use_offload)):
            V.value_type(name, flag, [bool], self.cls_name)
        if use_lazy and use_offload:
            raise ValueError(f"For 'Adam', 'use_lazy' and 'use_offload' can not both be True.But got "
                             f"use_lazy={use_lazy}, use_offload={use_offload}.")
        if use_amsgrad and (use_lazy or use_offload):
            raise ValueError(f"For lazy Adam and Adam with offload, there is no parameter named 'use_amsgrad'.but "
                             f"got 'use_amsgrad'={use_amsgrad}.")
        self._init_adam(beta1, beta2, eps, ())
        self.use_nesterov = use_nesterov
        self.use_locking = use_locking
        self.use_amsgrad = use_amsgrad
        self.use_lazy = use_lazy
        self.use_offload = use_offload
        if use_amsgrad:
            self.vhat = self._parameters.clone(prefix="vhat", init="zeros")

    def construct(self, gradients):
        return self._adam_step(gradients, self.vhat if self.use_amsgrad else None)


class AdamOffload(_AdamBase):
    r"""Adam whose update is computed on the host (here: the same update, where the parameters live).

    Arguments, state and rule as `Adam` (without amsgrad); ``beta1_power``/``beta2_power`` have shape (1,).

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.AdamOffload([w], learning_rate=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.params = self.parameters
        self._init_dense_adam(beta1, beta2, eps, use_locking, use_nesterov)

    def construct(self, gradients):
        return self._adam_step(gradients)


class AdamWeightDecay(Optimizer):
    r"""Adam with decoupled weight decay and no bias correction.

    .. math::
        m = \beta_1 m + (1 - \beta_1) g, \quad v = \beta_2 v + (1 - \beta_2) g^2, \quad
        p = p - lr \left(\frac{m}{\sqrt{v} + \epsilon} + w p\right)

    The decay w applies to the parameters without 'beta'/'gamma' in their names (or per group).

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``1e-3``.
        beta1 (float): Default: ``0.9``.
        beta2 (float): Default: ``0.999``.
        eps (float): Default: ``1e-6``.
        weight_decay (Union[float, int, Cell]): Default: ``0.0``.

    State: ``adam_m.*``, ``adam_v.*``.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.AdamWeightDecay([w], learning_rate=0.1, weight_decay=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.6738
    """

    _support_parallel_optimizer = True

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _moment_hypers(self, beta1, beta2, eps)
        self.moments1 = self._parameters.clone(prefix="adam_m", init="zeros")
        self.moments2 = self._parameters.clone(prefix="adam_v", init="zeros")
        self.use_fused_opt = True

    def construct(self, gradients):
        if len(gradients) != self.param_length:
            raise ValueError(f"For '{self.cls_name}', the number of gradients {len(gradients)} must equal the number "
                             f"of parameters {self.param_length}.")
        grads = tuple(gradients)
        wds = self.get_weight_decay()
        segments = self._segments_with_lr()
        self._advance()
        b1, b2, eps = self._hyper
        params, m, v = self._parameters, self.moments1, self.moments2
        lr_of = [lr for lo, hi, lr in segments for _ in range(lo, hi)]
        if self.is_group:
            wd_of = [self._value(wd) if flag else 0.0 for wd, flag in zip(wds, self.decay_flags)]
        else:
            wd = self._value(wds)
            wd_of = [wd if flag else 0.0 for flag in self.decay_flags]
        for lo, hi, (lr, wd) in _runs(list(zip(lr_of, wd_of))):
            adam_weight_decay_p(params[lo:hi], m[lo:hi], v[lo:hi], lr, b1, b2, eps, wd, grads[lo:hi])
        return self._success
