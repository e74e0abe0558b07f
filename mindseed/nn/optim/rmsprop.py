"""RMSProp, plain or centered (MindSpore's ApplyRMSProp / ApplyCenteredRMSProp)."""
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import apply_centered_rms_prop_p, apply_rms_prop_p

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    r"""Root Mean Square Propagation.

    .. math::
        s = \rho s + (1 - \rho) g^2, \quad m = \beta m + \frac{lr \cdot g}{\sqrt{s + \epsilon}}, \quad p = p - m

    Centered: :math:`\bar g = \rho \bar g + (1 - \rho) g` and the denominator is :math:`\sqrt{s - \bar g^2 + \epsilon}`.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``0.1``.
        decay (float): rho, >= 0. Default: ``0.9``.
        momentum (float): beta, >= 0. Default: ``0.0``.
        epsilon (float): > 0. Default: ``1e-10``.
        use_locking (bool): Default: ``False``.
        centered (bool): Default: ``False``.
        loss_scale (float): Default: ``1.0``.
        weight_decay (Union[float, int, Cell]): Default: ``0.0``.

    State: ``mean_square.*`` (ones), ``moment.*`` (and ``mean_grad.*`` when centered).

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.RMSProp([w], learning_rate=0.1)((ms.Tensor([1.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    @opt_init_args_register
    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        V.value_type("decay", decay, [float], self.cls_name)
        V.non_negative_float(decay, "decay", self.cls_name)
        V.value_type("momentum", momentum, [float], self.cls_name)
        V.non_negative_float(momentum, "momentum", self.cls_name)
        V.value_type("epsilon", epsilon, [float], self.cls_name)
        V.positive_float(epsilon, "epsilon", self.cls_name)
        V.value_type("use_locking", use_locking, [bool], self.cls_name)
        V.value_type("centered", centered, [bool], self.cls_name)
        self.centered = centered
        if centered:
            self.mg = self._parameters.clone(prefix="mean_grad", init="zeros")
        self.momentum = momentum
        self.ms = self._parameters.clone(prefix="mean_square", init="ones")
        self.moment = self._parameters.clone(prefix="moment", init="zeros")
        self.epsilon = epsilon
        self.decay = decay

    def construct(self, gradients):
        grads, segments = self._begin_step(gradients)
        params, ms, mom = self._parameters, self.ms, self.moment
        for lo, hi, lr in segments:
            if self.centered:
                apply_centered_rms_prop_p(params[lo:hi], self.mg[lo:hi], ms[lo:hi], mom[lo:hi], grads[lo:hi], lr,
                                          self.decay, self.momentum, self.epsilon)
            else:
                apply_rms_prop_p(params[lo:hi], ms[lo:hi], mom[lo:hi], lr, grads[lo:hi], self.decay, self.momentum,
                                 self.epsilon)
        return self._success
