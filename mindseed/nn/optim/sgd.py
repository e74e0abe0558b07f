"""SGD with momentum, dampening, Nesterov and weight decay: MindSpore's SGD primitive."""
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import sgd_p

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent, optionally with momentum.

    .. math::
        v_{t+1} = u \cdot v_t + (1 - dampening) \cdot g_{t+1} \;(v_1 = g_1), \qquad
        p_{t+1} = p_t - lr \cdot v_{t+1} \quad (\text{nesterov: } p_t - lr \cdot (g_{t+1} + u \cdot v_{t+1}))

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (see `Optimizer`).
        learning_rate (Union[float, int, Tensor, Iterable, LearningRateSchedule]): Default: ``0.1``.
        momentum (float): >= 0. Default: ``0.0``.
        dampening (float): >= 0. Default: ``0.0``.
        weight_decay (Union[float, int]): Default: ``0.0``.
        nesterov (bool): needs momentum > 0 and dampening 0. Default: ``False``.
        loss_scale (float): Default: ``1.0``.

    State: ``accum.<param name>`` (zeros), ``stat.<param name>`` (ones: the first step seeds the buffer),
    ``momentum``.

    Raises:
        TypeError: `momentum` or `dampening` is not a float, `nesterov` not a bool, or weight decay is a Cell.
        ValueError: `momentum` or `dampening` < 0, or `nesterov` with momentum 0 or dampening != 0.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.SGD([w], learning_rate=0.5)((ms.Tensor([1.0]),))
    >>> float(w[0])
    0.5
    """

    @opt_init_args_register
    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                 loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(momentum, int) and not isinstance(momentum, bool):
            momentum = float(momentum)
        if not isinstance(momentum, float):
            raise TypeError(f"For 'SGD', the argument 'momentum' must be float type, but got {type(momentum)}.")
        if momentum < 0.0:
            raise ValueError(f"For 'SGD', the argument 'momentum' must be at least 0.0, but got {momentum}.")
        if isinstance(dampening, int) and not isinstance(dampening, bool):
            dampening = float(dampening)
        if not isinstance(dampening, float):
            raise TypeError(f"For 'SGD', the argument 'dampening' must be float type, but got {type(dampening)}.")
        if dampening < 0.0:
            raise ValueError(f"For 'SGD', the argument 'dampening' must be at least 0.0, but got 'dampening' "
                             f"{dampening}")
        self.dampening = dampening
        V.value_type("nesterov", nesterov, [bool], self.cls_name)
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError(f"For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must equal "
                             f"to 0.0, but got 'momentum' {momentum}, 'dampening' {dampening}.")
        self.nesterov = nesterov
        if self.dynamic_weight_decay:
            raise TypeError("For 'SGD', dynamic weight decay is currently not supported, the argument 'weight_decay' "
                            "or 'weight_decay' set in grouped 'params' must be float or int type.")
        self.momentum = Parameter(Tensor(momentum, mstype.float32), name="momentum")
        self.accum = self._parameters.clone(prefix="accum", init="zeros")
        self.stat = self._parameters.clone(prefix="stat", init="ones")

    def construct(self, gradients):
        grads, segments = self._begin_step(gradients)
        params, accum, stat = self._parameters, self.accum, self.stat
        momentum = self.momentum.item()
        for lo, hi, lr in segments:
            sgd_p(params[lo:hi], grads[lo:hi], lr, accum[lo:hi], momentum, stat[lo:hi], dampening=self.dampening,
                  nesterov=self.nesterov)
        return self._success
