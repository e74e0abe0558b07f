"""AdaMax: Adam with the infinity norm (MindSpore's ApplyAdaMax)."""
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.optim.adam import _check_param_value
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import apply_ada_max_p, scalar_mul_p

__all__ = ["AdaMax"]


class AdaMax(Optimizer):
    r"""AdaMax.

    .. math::
        m = \beta_1 m + (1 - \beta_1) g, \quad v = \max(\beta_2 v, |g|), \quad
        p = p - \frac{lr}{1 - \beta_1^t} \frac{m}{v + \epsilon}

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``0.001``.
        beta1 (float): Default: ``0.9``.
        beta2 (float): Default: ``0.999``.
        eps (float): Default: ``1e-08``.
        weight_decay (Union[float, int, Cell]): Default: ``0.0``.
        loss_scale (float): Default: ``1.0``.

    State: ``beta1_power`` (shape (1,)), ``moment1.*``, ``moment2.*``.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.AdaMax([w], learning_rate=0.1)((ms.Tensor([2.0]),))
    >>> round(float(w[0]), 4)
    0.9
    """

    @opt_init_args_register
    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _check_param_value(beta1, beta2, eps, self.cls_name)
        self.beta1 = Tensor(beta1, mstype.float32)
        self.beta2 = Tensor(beta2, mstype.float32)
        self.beta1_power = Parameter(Tensor([1.0], mstype.float32), name="beta1_power")
        self.eps = Tensor(eps, mstype.float32)
        self.__dict__["_hyper"] = (self.beta1.item(), self.beta2.item(), self.eps.item())
        self.moment1 = self._parameters.clone(prefix="moment1", init="zeros")
        self.moment2 = self._parameters.clone(prefix="moment2", init="zeros")

    def construct(self, gradients):
        grads, segments = self._begin_step(gradients)
        b1, b2, eps = self._hyper
        scalar_mul_p(self.beta1_power, b1)
        b1p = self.beta1_power.item()
        params, m, v = self._parameters, self.moment1, self.moment2
        for lo, hi, lr in segments:
            apply_ada_max_p(params[lo:hi], m[lo:hi], v[lo:hi], b1p, lr, b1, b2, eps, grads[lo:hi])
        return self._success
