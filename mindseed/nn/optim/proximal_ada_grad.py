"""ProximalAdagrad: Adagrad followed by the proximal step of an L1/L2 penalty (ApplyProximalAdagrad)."""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import apply_proximal_adagrad_p

__all__ = ["ProximalAdagrad"]


class ProximalAdagrad(Optimizer):
    r"""ProximalAdagrad.

    .. math::
        h = h + g^2, \quad a = \frac{lr}{\sqrt{h}}, \quad v = p - a g, \quad
        p = \frac{\operatorname{sign}(v)}{1 + a \cdot l2} \max(|v| - a \cdot l1, 0)

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        accum (float): the initial accumulator, >= 0. Default: ``0.1``.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``0.001``.
        l1 (float): >= 0. Default: ``0.0``.
        l2 (float): >= 0. Default: ``0.0``.
        use_locking (bool): Default: ``False``.
        loss_scale (float): Default: ``1.0``.
        weight_decay (Union[float, int, Cell]): Default: ``0.0``.

    State: ``accum.*``.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.ProximalAdagrad([w], learning_rate=0.1)((ms.Tensor([1.0]),))
    >>> round(float(w[0]), 4)
    0.9047
    """

    @opt_init_args_register
    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        V.value_type("accum", accum, [float], self.cls_name)
        V.value_type("l1", l1, [float], self.cls_name)
        V.value_type("l2", l2, [float], self.cls_name)
        V.value_type("use_locking", use_locking, [bool], self.cls_name)
        V.non_negative_float(accum, "accum", self.cls_name)
        V.non_negative_float(l1, "l1", self.cls_name)
        V.non_negative_float(l2, "l2", self.cls_name)
        self.accum = self._parameters.clone(prefix="accum", init=accum)
        self.l1 = Tensor(l1, mstype.float32)
        self.l2 = Tensor(l2, mstype.float32)
        self.use_locking = use_locking

    def construct(self, grads):
        grads, segments = self._begin_step(grads)
        params, accum = self._parameters, self.accum
        l1, l2 = self.l1.item(), self.l2.item()
        for lo, hi, lr in segments:
            apply_proximal_adagrad_p(params[lo:hi], accum[lo:hi], lr, l1, l2, grads[lo:hi])
        return self._success
