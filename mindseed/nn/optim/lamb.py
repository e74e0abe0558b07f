"""Lamb: layer-wise adaptive moments for large-batch training."""
from mindseed.nn.optim.adam import _moment_hypers
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import lamb_p

__all__ = ["Lamb"]


class Lamb(Optimizer):
    r"""Lamb.

    .. math::
        m = \beta_1 m + (1 - \beta_1) g, \quad v = \beta_2 v + (1 - \beta_2) g^2, \quad
        r = \frac{m / (1 - \beta_1^t)}{\sqrt{v / (1 - \beta_2^t)} + \epsilon} + \lambda w, \quad
        w = w - lr \frac{\|w\|}{\|r\|} r

    The trust ratio :math:`\|w\| / \|r\|` is 1 when either norm is 0; the decay :math:`\lambda` applies to the
    parameters without 'beta'/'gamma' in their names (or per group).

    Args:
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): the rate (required).
        params, beta1, beta2, eps, weight_decay: as in `AdamWeightDecay` (same defaults).

    State: ``lamb_m.*``, ``lamb_v.*``.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([3.0, 4.0]), name="w")
    >>> _ = ms.nn.Lamb([w], learning_rate=0.1)((ms.Tensor([1.0, 1.0]),))
    >>> [round(x, 4) for x in w.asnumpy().tolist()]
    [2.6464, 3.6464]
    """

    _support_parallel_optimizer = True

    @opt_init_args_register
    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _moment_hypers(self, beta1, beta2, eps)
        self.params = self._parameters
        self.moments1 = self.params.clone(prefix="lamb_m", init="zeros")
        self.moments2 = self.params.clone(prefix="lamb_v", init="zeros")

    def construct(self, gradients):
        wds = self.get_weight_decay()
        segments = self._segments_with_lr()
        self._advance()
        grads = self._centralized(gradients, self._gc_flags) if self.is_group else gradients
        step = self.global_step.item()
        b1, b2, eps = self._hyper
        wd_all = None if self.is_group else self._value(wds)
        for lo, hi, lr in segments:
            for i in range(lo, hi):
                if not self.decay_flags[i]:
                    wd = 0.0
                else:
                    wd = self._value(wds[i]) if self.is_group else wd_all
                lamb_p(self.params[i], self.moments1[i], self.moments2[i], grads[i], lr, b1, b2, eps, wd, step)
        return self._success
