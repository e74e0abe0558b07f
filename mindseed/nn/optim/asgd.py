"""ASGD: averaged stochastic gradient descent (MindSpore's nn.ASGD)."""
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter, ParameterTuple
from mindseed.common.tensor import Tensor
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import asgd_p, assign_value_p

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Averaged Stochastic Gradient Descent.

    .. math::
        w = w (1 - \lambda \eta_t) - \eta_t g, \quad
        a = a + \mu_t (w - a), \quad \eta_{t+1} = \frac{lr}{(1 + \lambda \cdot lr \cdot t)^\alpha}, \quad
        \mu_{t+1} = \frac{1}{\max(1, t - t_0)}

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``0.1``.
        lambd (float): the decay term. Default: ``1e-4``.
        alpha (float): the power of the eta update. Default: ``0.75``.
        t0 (float): the step averaging starts at. Default: ``1e6``.
        weight_decay (Union[float, int, Cell]): Default: ``0.0``.

    State: ``mu_<param name>``, ``eta_<param name>`` (scalars), ``ax_.*`` (the average).

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.ASGD([w], learning_rate=0.1)((ms.Tensor([1.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    @opt_init_args_register
    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        V.value_type("lambd", lambd, [float], self.cls_name)
        V.value_type("alpha", alpha, [float], self.cls_name)
        V.value_type("t0", t0, [float], self.cls_name)
        self.lambd = lambd
        self.alpha = alpha
        self.t0 = Tensor([t0], mstype.float32)
        self.mu = ParameterTuple(Parameter(Tensor(1., mstype.float32), name=f"mu_{p.name}") for p in self._parameters)
        self.eta = ParameterTuple(Parameter(Tensor(0., mstype.float32), name=f"eta_{p.name}")
                                  for p in self._parameters)
        self.lens = len(self._parameters)
        self.ax = self._parameters.clone(prefix="ax_", init="zeros")

    def construct(self, gradients):
        grads, segments = self._begin_step(gradients)
        step = self.global_step.item()
        t0 = self.t0.item()
        lambd, alpha = self.lambd, self.alpha
        params = self._parameters
        for lo, hi, lr in segments:
            for i in range(lo, hi):
                eta, mu = self.eta[i], self.mu[i]
                if step == 1:
                    assign_value_p(eta, lr)
                asgd_p(params[i], grads[i], self.ax[i], eta, mu, lambd)
                assign_value_p(eta, lr / (1. + lambd * lr * step) ** alpha)
                assign_value_p(mu, 1. / max(1., step - t0))
        return True
