"""Adadelta (MindSpore's ApplyAdadelta)."""
from mindseed.common.tensor import Tensor
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import apply_adadelta_p

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta.

    .. math::
        a = \rho a + (1 - \rho) g^2, \quad u = \frac{\sqrt{a_u + \epsilon}}{\sqrt{a + \epsilon}} g, \quad
        a_u = \rho a_u + (1 - \rho) u^2, \quad p = p - lr \cdot u

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``1.0``.
        rho (float): in [0, 1]. Default: ``0.9``.
        epsilon (float): >= 0. Default: ``1e-6``.
        loss_scale (float): Default: ``1.0``.
        weight_decay (Union[float, int, Cell]): Default: ``0.0``.

    State: ``accum.*``, ``accum_update.*``.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.Adadelta([w])((ms.Tensor([1.0]),))
    >>> round(float(w[0]), 5)
    0.99684
    """

    @opt_init_args_register
    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        V.value_type("rho", rho, [float], self.cls_name)
        V.value_type("epsilon", epsilon, [float], self.cls_name)
        V.float_range(rho, 0.0, 1.0, "[]", "rho", self.cls_name)
        V.non_negative_float(epsilon, "epsilon", self.cls_name)
        self.accum = self.parameters.clone(prefix="accum", init=0)
        self.accum_update = self.parameters.clone(prefix="accum_update", init=0)
        self.rho = rho
        self.epsilon = epsilon

    def construct(self, grads):
        if not isinstance(grads, tuple) or not isinstance(grads[0], Tensor):
            raise TypeError("For 'Adadelta', the 'grads' must be a tuple of Tensor.")
        grads, segments = self._begin_step(grads)
        params, accum, accum_update = self._parameters, self.accum, self.accum_update
        for lo, hi, lr in segments:
            apply_adadelta_p(params[lo:hi], accum[lo:hi], accum_update[lo:hi], lr, self.rho, self.epsilon,
                             grads[lo:hi])
        return self._success
