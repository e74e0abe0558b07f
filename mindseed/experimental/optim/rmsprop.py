"""RMSprop (torch-style) with parameter groups."""
from mindseed.experimental.optim.optimizer import Optimizer, check_args
from mindseed.ops._prims.optim import rmsprop_p

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop: :math:`s = \alpha s + (1 - \alpha) g^2`, :math:`p = p - lr \frac{g}{\sqrt{s} + \epsilon}`.

    Centered: the denominator is :math:`\sqrt{s - \bar g^2} + \epsilon`; with momentum
    :math:`b = \mu b + g / (\ldots)` and :math:`p = p - lr \cdot b`.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or groups.
        lr (Union[float, int, Tensor]): Default: ``1e-2``.
        alpha (float): Default: ``0.99``.
        eps (float): Default: ``1e-8``.
        weight_decay (float): Default: ``0.0``.
        momentum (float): Default: ``0.0``.
        centered (bool): Default: ``False``.
        maximize (bool): Default: ``False``.

    State: ``mean_grad.*``, ``mean_square.*``, ``moment.*``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.RMSprop([w], lr=0.01)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
                 maximize=False):
        check_args("RMSprop", (lr, "lr", ">0"), (alpha, "alpha", ">=0"), (eps, "eps", ">0"),
                   (momentum, "momentum", ">=0"), (weight_decay, "weight_decay", ">=0"))
        super().__init__(params, {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                                  "weight_decay": weight_decay, "maximize": maximize})
        self._states("mean_grad", "mean_square", "moment")

    def construct(self, gradients):
        for gid, group in enumerate(self.param_groups):
            grads = self._group_grads(gradients, gid, group.get("maximize"), group["weight_decay"])
            rmsprop_p(self._slice(self.parameters, gid), self._slice(self.mean_square, gid),
                      self._slice(self.mean_grad, gid), self._slice(self.moment, gid), grads, self._lr(gid),
                      group["alpha"], group["eps"], group["momentum"], centered=group["centered"])
        return True
