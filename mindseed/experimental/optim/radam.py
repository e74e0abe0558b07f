"""RAdam: Adam with variance rectification, torch-style parameter groups."""

from mindseed.experimental.optim.optimizer import Optimizer, check_adam_args
from mindseed.ops._prims.optim import radam_p

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""RAdam (Liu et al., 2019): plain momentum steps while :math:`\rho_t \le 5`, rectified Adam steps after.

    Args:
        params, lr, betas, eps, weight_decay: as in `Adam`, with `lr` defaulting to ``1e-3``.

    State: ``step_t``, ``exp_avg.*``, ``exp_avg_sq.*``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.RAdam([w], lr=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.8
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        check_adam_args("RAdam", lr, betas, eps, weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay})
        self._step_counter("step_t")
        self._states("exp_avg", "exp_avg_sq")

    def construct(self, gradients):
        step = self._next_step(self.step_t)
        for gid, group in enumerate(self.param_groups):
            beta1, beta2 = group["betas"]
            grads = self._group_grads(gradients, gid, False, group["weight_decay"])
            radam_p(self._slice(self.parameters, gid), self._slice(self.exp_avg, gid),
                    self._slice(self.exp_avg_sq, gid), grads, step, self._lr(gid), beta1, beta2, group["eps"])
        return True
