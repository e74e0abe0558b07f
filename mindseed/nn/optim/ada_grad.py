"""Adagrad: per-element rates shrinking with the accumulated squared gradients (MindSpore's ApplyAdagrad)."""
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import apply_adagrad_p

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad: :math:`h = h + g^2, \; p = p - lr \cdot g / \sqrt{h}`.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        accum (float): the initial accumulator value, >= 0. Default: ``0.1``.
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``0.001``.
        update_slots (bool): whether the accumulator is updated. Default: ``True``.
        loss_scale (float): Default: ``1.0``.
        weight_decay (Union[float, int, Cell]): Default: ``0.0``.

    State: ``accum.*``.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.Adagrad([w], learning_rate=0.1)((ms.Tensor([1.0]),))
    >>> round(float(w[0]), 4)
    0.9047
    """

    @opt_init_args_register
    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        V.value_type("accum", accum, [float], self.cls_name)
        V.value_type("update_slots", update_slots, [bool], self.cls_name)
        V.non_negative_float(accum, "accum", self.cls_name)
        self.accum = self._parameters.clone(prefix="accum", init=accum)
        self.update_slots = update_slots

    def construct(self, grads):
        grads, segments = self._begin_step(grads)
        params, accum = self._parameters, self.accum
        for lo, hi, lr in segments:
            apply_adagrad_p(params[lo:hi], accum[lo:hi], lr, grads[lo:hi], update_slots=self.update_slots)
        return self._success
