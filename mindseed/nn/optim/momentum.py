"""Momentum: SGD with (Nesterov) momentum, MindSpore's ApplyMomentum rule."""
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import apply_momentum_p

__all__ = ["Momentum"]


class Momentum(Optimizer):
    r"""Stochastic gradient descent with momentum.

    .. math::
        v_{t+1} = v_t \cdot u + g_t, \qquad
        p_{t+1} = p_t - lr \cdot v_{t+1} \quad (\text{nesterov: } p_t - lr \cdot (g_t + u \cdot v_{t+1}))

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): see `Optimizer`.
        momentum (float): the momentum u, >= 0.
        weight_decay (Union[float, int, Cell]): see `Optimizer`. Default: ``0.0``.
        loss_scale (float): see `Optimizer`. Default: ``1.0``.
        use_nesterov (bool): Nesterov momentum. Default: ``False``.

    State: ``moments.<param name>`` (zeros), ``momentum``.

    Raises:
        TypeError: `momentum` is not a float, `use_nesterov` not a bool.
        ValueError: `momentum` < 0.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    >>> opt = ms.nn.Momentum([w], learning_rate=0.1, momentum=0.9)
    >>> _ = opt((ms.Tensor([1.0, 1.0]),))
    >>> w.asnumpy().tolist()
    [0.8999999761581421, 1.899999976158142]
    """

    @opt_init_args_register
    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0, use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        V.value_type("momentum", momentum, [float], self.cls_name)
        if momentum < 0.0:
            raise ValueError(f"For 'Momentum', the argument 'momentum' must be at least 0.0, but got {momentum}")
        self.momentum = Parameter(Tensor(momentum, mstype.float32), name="momentum")
        self.params = self._parameters
        self.use_nesterov = V.boolean(use_nesterov, "use_nesterov", self.cls_name)
        self.moments = self.params.clone(prefix="moments", init="zeros")

    def construct(self, gradients):
        grads, segments = self._begin_step(gradients)
        params, moments = self._parameters, self.moments
        momentum = self.momentum.item()
        for lo, hi, lr in segments:
            apply_momentum_p(params[lo:hi], moments[lo:hi], lr, grads[lo:hi], momentum, use_nesterov=self.use_nesterov)
        return self._success
