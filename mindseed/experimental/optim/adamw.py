"""AdamW: Adam with decoupled weight decay, torch-style parameter groups."""

from mindseed.experimental.optim.adam import Adam
from mindseed.ops._prims.optim import adamw_p

__all__ = ["AdamW"]


class AdamW(Adam):
    r"""AdamW.

    .. math::
        p = p (1 - lr \lambda), \quad m = \beta_1 m + (1 - \beta_1) g, \quad v = \beta_2 v + (1 - \beta_2) g^2,
        \quad p = p - \frac{lr}{1 - \beta_1^t} \frac{m}{\sqrt{v} / \sqrt{1 - \beta_2^t} + \epsilon}

    With `amsgrad`, v in the denominator is its running maximum. Arguments and state as `Adam`, except that
    `weight_decay` (the decoupled decay rate) defaults to ``1e-2``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.AdamW([w], lr=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.899
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)

    def construct(self, gradients):
        step = self._next_step(self.state_step)
        for gid, group in enumerate(self.param_groups):
            beta1, beta2 = group["betas"]
            grads = self._group_grads(gradients, gid, group.get("maximize"))
            adamw_p(self._slice(self.parameters, gid), self._slice(self.exp_avg, gid),
                    self._slice(self.exp_avg_sq, gid), self._slice(self.max_exp_avg_sq, gid), grads, step,
                    self._lr(gid), beta1, beta2, group.get("weight_decay"), group.get("eps"),
                    amsgrad=group.get("amsgrad"))
        return True
