"""Adam with torch-style parameter groups (MindSpore's Adam primitive: eps added to sqrt(v))."""
import numpy as np

from mindseed.experimental.optim.optimizer import Optimizer
from mindseed.ops._prims.optim import adam_p

__all__ = ["Adam"]


class Adam(Optimizer):
    r"""Adam.

    .. math::
        m = \beta_1 m + (1 - \beta_1) g, \quad v = \beta_2 v + (1 - \beta_2) g^2, \quad
        p = p - lr \frac{\sqrt{1 - \beta_2^t}}{1 - \beta_1^t} \frac{m}{\sqrt{v} + \epsilon}

    The L2 penalty `weight_decay` is added to the gradients. As in MindSpore 2.10, `amsgrad` is accepted and its
    state ``max_exp_avg_sq.*`` created, but the update is Adam's.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or groups.
        lr (Union[float, int, Tensor]): Default: ``1e-3``.
        betas (tuple[float, float]): Default: ``(0.9, 0.999)``.
        eps (float): Default: ``1e-8``.
        weight_decay (float): Default: ``0.0``.
        amsgrad (bool): Default: ``False``.
        maximize (bool): Default: ``False``.

    State: ``exp_avg.*``, ``exp_avg_sq.*``, ``max_exp_avg_sq.*``, ``state_step``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.Adam([w], lr=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
                 maximize=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize}
        super().__init__(params, defaults)
        self._states("exp_avg", "exp_avg_sq", "max_exp_avg_sq")
        self._step_counter("state_step")

    def construct(self, gradients):
        step = self._next_step(self.state_step)
        for gid, group in enumerate(self.param_groups):
            beta1, beta2 = group.get("betas")
            grads = self._group_grads(gradients, gid, group.get("maximize"), group.get("weight_decay"))
            b1p, b2p = _f32(beta1) ** step, _f32(beta2) ** step
            adam_p(self._slice(self.parameters, gid), self._slice(self.exp_avg, gid), self._slice(self.exp_avg_sq, gid),
                   b1p, b2p, self._lr(gid), beta1, beta2, group.get("eps"), grads)
        return True


def _f32(x):
    return float(np.float32(x))


def _check_adam_args(lr, betas, eps, weight_decay):
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
