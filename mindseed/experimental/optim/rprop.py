"""Rprop with torch-style parameter groups."""
import numpy as np

from mindseed.experimental.optim.optimizer import Optimizer, check_args
from mindseed.ops._prims.optim import rprop_p

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Resilient backpropagation: per-element step sizes, grown by etaplus and shrunk by etaminus on sign flips.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or groups.
        lr (Union[float, int, Tensor]): the initial step size. Default: ``1e-2``.
        etas (tuple[float, float]): (etaminus, etaplus). Default: ``(0.5, 1.2)``.
        step_sizes (tuple[float, float]): (min, max). Default: ``(1e-6, 50)``.
        maximize (bool): Default: ``False``.

    State: ``prev.*``, ``step_size.*``, ``step_t``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.Rprop([w], lr=0.1)((ms.Tensor([3.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False):
        check_args("Rprop", (lr, "lr", ">0"), (etas[1], "etas[1]", ">1"), (etas[0], "etas[0]", "(0,1)"))
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes, "maximize": maximize})
        self._states("prev", "step_size")
        self._step_counter("step_t")

    def construct(self, gradients):
        self._increment(self.step_t)
        first = self.step_t.item() == 1
        for gid, group in enumerate(self.param_groups):
            lo, _ = self._span(gid)
            etaminus, etaplus = (float(np.float32(e)) for e in group["etas"])
            step_min, step_max = group["step_sizes"]
            grads = self._group_grads(gradients, gid, group.get("maximize"))
            lr = self._lr(gid)
            for k, g in enumerate(grads):
                i = lo + k
                rprop_p(self.parameters[i], g, self.prev[i], self.step_size[i], lr, first, etaminus, etaplus,
                        step_min, step_max)
        return True
