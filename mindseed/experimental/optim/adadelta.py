"""Adadelta with torch-style parameter groups (MindSpore's ApplyAdadelta)."""
from mindseed.experimental.optim.optimizer import Optimizer, check_args
from mindseed.ops._prims.optim import apply_adadelta_p

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta: :math:`u = \sqrt{a_u + \epsilon} / \sqrt{a + \epsilon} \cdot g`, :math:`p = p - lr \cdot u`.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or groups.
        lr (Union[float, int, Tensor]): Default: ``1.0``.
        rho (float): in [0, 1]. Default: ``0.9``.
        eps (float): Default: ``1e-6``.
        weight_decay (float): Default: ``0.0``.
        maximize (bool): Default: ``False``.

    State: ``accum.*``, ``accum_update.*``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.Adadelta([w])((ms.Tensor([1.0]),))
    >>> round(float(w[0]), 5)
    0.99684
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False):
        check_args("Adadelta", (lr, "lr", ">0"), (eps, "eps", ">0"), (weight_decay, "weight_decay", ">=0"),
                   (rho, "rho", "[0,1]"))
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize))
        self._states("accum", "accum_update", init=0)

    def construct(self, gradients):
        for gid, group in enumerate(self.param_groups):
            grads = self._group_grads(gradients, gid, group.get("maximize"), group["weight_decay"])
            apply_adadelta_p(self._slice(self.parameters, gid), self._slice(self.accum, gid),
                             self._slice(self.accum_update, gid), self._lr(gid), group["rho"], group["eps"], grads)
        return True
