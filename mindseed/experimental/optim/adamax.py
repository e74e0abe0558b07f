"""Adamax (torch-style, infinity norm) with parameter groups."""

from mindseed.experimental.optim.optimizer import Optimizer, check_adam_args
from mindseed.ops._prims.optim import adamax_p

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Adamax: :math:`u = \max(\beta_2 u, |g| + \epsilon)`, :math:`p = p - \frac{lr}{1 - \beta_1^t} \frac{m}{u}`.

    Args:
        params, lr, betas, eps, weight_decay: as in `Adam`, with `lr` defaulting to ``2e-3``.
        maximize (bool): Default: ``False``.

    State: ``step_t``, ``exp_avg.*``, ``exp_inf.*``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.Adamax([w], lr=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *, maximize=False):
        check_adam_args("Adamax", lr, betas, eps, weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": maximize})
        self._step_counter("step_t")
        self._states("exp_avg", "exp_inf")

    def construct(self, gradients):
        step = self._next_step(self.step_t)
        for gid, group in enumerate(self.param_groups):
            beta1, beta2 = group["betas"]
            grads = self._group_grads(gradients, gid, group.get("maximize"), group["weight_decay"])
            adamax_p(self._slice(self.parameters, gid), self._slice(self.exp_avg, gid), self._slice(self.exp_inf, gid),
                     grads, step, self._lr(gid), beta1, beta2, group["eps"])
        return True
