"""Adagrad with learning-rate decay and torch-style parameter groups (MindSpore's ApplyAdagradV2)."""

from mindseed.experimental.optim.optimizer import Optimizer, check_args
from mindseed.ops._prims.optim import apply_adagrad_v2_p

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad: :math:`h = h + g^2,\; p = p - \frac{lr}{1 + (t - 1) \cdot lr\_decay} \frac{g}{\sqrt{h} + \epsilon}`.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or groups.
        lr (Union[float, int, Tensor]): Default: ``1e-2``.
        lr_decay (float): Default: ``0.0``.
        weight_decay (float): Default: ``0.0``.
        initial_accumulator_value (float): Default: ``0.0``.
        eps (float): Default: ``1e-10``.
        maximize (bool): Default: ``False``.

    State: ``accum.*``, ``step_t``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.Adagrad([w], lr=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10, *,
                 maximize=False):
        check_args("Adagrad", (lr, "lr", ">0"), (lr_decay, "lr_decay", ">=0"), (weight_decay, "weight_decay", ">=0"),
                   (initial_accumulator_value, "initial_accumulator_value", ">=0"), (eps, "eps", ">0"))
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize))
        self.accum = self.parameters.clone(prefix="accum", init=initial_accumulator_value)
        self._step_counter("step_t")

    def construct(self, gradients):
        step = self.step_t.item()
        for gid, group in enumerate(self.param_groups):
            grads = self._group_grads(gradients, gid, group.get("maximize"), group["weight_decay"])
            lr = self._lr(gid) / (1 + step * group["lr_decay"])
            apply_adagrad_v2_p(self._slice(self.parameters, gid), self._slice(self.accum, gid), lr, grads,
                               epsilon=group["eps"])
        self._increment(self.step_t)
        return True
