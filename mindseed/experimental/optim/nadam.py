"""NAdam: Adam with Nesterov momentum and momentum decay, torch-style parameter groups."""

from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.experimental.optim.optimizer import Optimizer, check_args
from mindseed.ops._prims.optim import nadam_p

__all__ = ["NAdam"]


class NAdam(Optimizer):
    r"""NAdam (Dozat, 2016) with the momentum schedule :math:`\mu_t = \beta_1 (1 - 0.5 \cdot 0.96^{t \psi})`.

    Args:
        params, lr, betas, eps, weight_decay: as in `Adam`, with `lr` defaulting to ``2e-3``.
        momentum_decay (float): psi. Default: ``4e-3``.

    State: ``step_t``, ``exp_avg.*``, ``exp_avg_sq.*``, ``mu_product_<name>``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.NAdam([w], lr=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.8944
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3):
        check_args("NAdam", (lr, "lr", ">0"), (eps, "eps", ">0"), (weight_decay, "weight_decay", ">=0"),
                   (momentum_decay, "momentum_decay", ">=0"), (betas[0], "betas[0]", "[0,1)"),
                   (betas[1], "betas[1]", "[0,1)"))
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "momentum_decay": momentum_decay})
        self._step_counter("step_t")
        self._states("exp_avg", "exp_avg_sq")
        self.mu_product = [Parameter(Tensor(1.), "mu_product_" + p.name) for p in self.parameters]

    def construct(self, gradients):
        step = self._next_step(self.step_t)
        for gid, group in enumerate(self.param_groups):
            lo, _ = self._span(gid)
            beta1, beta2 = group["betas"]
            grads = self._group_grads(gradients, gid, False, group["weight_decay"])
            lr = self._lr(gid)
            for k, g in enumerate(grads):
                i = lo + k
                nadam_p(self.parameters[i], self.exp_avg[i], self.exp_avg_sq[i], self.mu_product[i], g, step, lr, beta1,
                        beta2, group["eps"], group["momentum_decay"])
        return True
