"""ASGD with torch-style parameter groups."""

from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.experimental.optim.optimizer import Optimizer, check_args
from mindseed.ops._prims.optim import asgd_p, assign_value_p

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Averaged SGD: :math:`p = p (1 - \lambda \eta) - \eta g`, with the running average in ``ax.*``.

    :math:`\eta` starts at lr and becomes :math:`lr / (1 + \lambda \cdot lr \cdot t)^\alpha`; the averaging weight
    is :math:`1 / \max(1, t - t_0)`.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or groups.
        lr (Union[float, int, Tensor]): Default: ``1e-2``.
        lambd (float): Default: ``1e-4``.
        alpha (float): Default: ``0.75``.
        t0 (float): Default: ``1e6``.
        weight_decay (float): Default: ``0.0``.
        maximize (bool): Default: ``False``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.ASGD([w], lr=0.1)((ms.Tensor([1.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, maximize=False):
        check_args("ASGD", (lr, "lr", ">0"), (weight_decay, "weight_decay", ">=0"))
        if not isinstance(lambd, float):
            raise TypeError(f"For 'ASGD', the type of lambd must be float, but got {type(lambd)}.")
        if not isinstance(t0, float):
            raise TypeError(f"For 'ASGD', the type of t0 must be float, but got {type(t0)}.")
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                                  "maximize": maximize})
        self.mu = [Parameter(Tensor(1.), "mu_" + p.name) for p in self.parameters]
        self.eta = [Parameter(Tensor(0.), "eta_" + p.name) for p in self.parameters]
        self.ax = self.parameters.clone(prefix="ax", init="zeros")
        self._step_counter("step_t")

    def construct(self, gradients):
        step = self._next_step(self.step_t)
        for gid, group in enumerate(self.param_groups):
            lo, _ = self._span(gid)
            grads = self._group_grads(gradients, gid, group.get("maximize"), group["weight_decay"])
            lr, lambd, alpha, t0 = self._lr(gid), group["lambd"], group["alpha"], group["t0"]
            for k, g in enumerate(grads):
                i = lo + k
                eta, mu = self.eta[i], self.mu[i]
                if step == 1:
                    assign_value_p(eta, lr)
                asgd_p(self.parameters[i], g, self.ax[i], eta, mu, lambd)
                assign_value_p(eta, lr / (1. + lambd * lr * step) ** alpha)
                assign_value_p(mu, 1. / max(1., step - t0))
        return True
