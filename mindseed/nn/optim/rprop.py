"""Rprop: resilient backpropagation, per-element step sizes adapted by the sign of the gradient."""
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import rprop_p

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Resilient backpropagation.

    Each element's step size is multiplied by ``etaplus`` while its gradient keeps its sign and by ``etaminus``
    when it flips (that step then skips the element), clipped to ``step_sizes``; the parameter moves by
    :math:`-\operatorname{sign}(g) \cdot step`. The step sizes start at the learning rate.

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``0.1``.
        etas (tuple[float, float]): (etaminus, etaplus), 0 < etaminus < 1 < etaplus. Default: ``(0.5, 1.2)``.
        step_sizes (tuple[float, float]): (min, max) step size. Default: ``(1e-6, 50.)``.
        weight_decay (Union[float, int, Cell]): Default: ``0.0``.

    State: ``prev.*``, ``step_size.*``.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.Rprop([w], learning_rate=0.1)((ms.Tensor([3.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    @opt_init_args_register
    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.), weight_decay=0.):
        super().__init__(learning_rate, params, weight_decay)
        if not isinstance(etas, tuple):
            raise TypeError(f"For Rprop, etas must be a tuple, but got {type(etas)}.")
        if len(etas) != 2:
            raise ValueError(f"For Rprop, etas must be a tuple with the size of 2, but got {len(etas)}.")
        if not isinstance(step_sizes, tuple):
            raise TypeError(f"For Rprop, step_sizes must be a tuple, but got {type(etas)}.")
        if len(step_sizes) != 2:
            raise ValueError(f"For Rprop, step_sizes must be a tuple with the size of 2, but got {len(step_sizes)}.")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(f"For Rprop, maximal step size should not be less than minimal step size, but got "
                             f"{step_sizes[0]} > {step_sizes[1]}.")
        V.float_range(etas[0], 0.0, 1.0, "()", "etaminus", self.cls_name)
        V.value_type("etaplus", etas[1], [float], self.cls_name)
        if etas[1] <= 1.0:
            raise ValueError(f"For Rprop, etaplus must be greater than 1.0, but got etaplus {etas[1]}.")
        V.value_type("min_step_sizes", step_sizes[0], [float], self.cls_name)
        V.value_type("max_step_sizes", step_sizes[1], [float], self.cls_name)
        self.etaminus, self.etaplus = etas
        self.step_size_min, self.step_size_max = step_sizes
        self.prev = self._parameters.clone(prefix="prev", init="zeros")
        self.step_size = self._parameters.clone(prefix="step_size", init="zeros")

    def construct(self, gradients):
        grads, segments = self._begin_step(gradients)
        first = self.global_step.item() == 1
        for lo, hi, lr in segments:
            for i in range(lo, hi):
                rprop_p(self._parameters[i], grads[i], self.prev[i], self.step_size[i], lr, first, self.etaminus,
                        self.etaplus, self.step_size_min, self.step_size_max)
        return True
