"""SGD with torch-style parameter groups (MindSpore's SGD primitive per group)."""
from mindseed.common.tensor import Tensor
from mindseed.experimental.optim.optimizer import Optimizer
from mindseed.nn.optim import _validator as V
from mindseed.ops._prims.optim import sgd_p

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent with momentum, dampening, Nesterov, weight decay and `maximize`.

    .. math::
        g' = g + \lambda p, \quad b = \mu b + (1 - \tau) g' \;(b_1 = g'), \quad
        p = p - lr \cdot b \quad (\text{nesterov: } p - lr (g' + \mu b))

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or groups.
        lr (Union[float, int, Tensor]): the learning rate.
        momentum (Union[int, float]): Default: ``0``.
        dampening (Union[int, float]): Default: ``0``.
        weight_decay (float): Default: ``0.0``.
        nesterov (bool): Default: ``False``.
        maximize (bool): ascend the objective instead. Default: ``False``.

    State: ``accum.*``, ``stat.*``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = optim.SGD([w], lr=0.5)((ms.Tensor([1.0]),))
    >>> float(w[0])
    0.5
    """

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *, maximize=False):
        V.value_type("lr", lr, [float, int, Tensor], "SGD")
        if (not isinstance(lr, Tensor) or lr.ndim == 0) and float(lr) < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        V.value_type("momentum", momentum, [int, float], "SGD")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        momentum = float(momentum)
        V.value_type("nesterov", nesterov, [bool], "SGD")
        V.value_type("maximize", maximize, [bool], "SGD")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, grad_centralization=False)
        super().__init__(params, defaults)
        for group in self.param_groups:
            V.value_type("dampening", group.get("dampening"), [int, float], self.cls_name)
            group["dampening"] = float(group.get("dampening"))
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError(f"For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and 'dampening' must equal "
                             f"to 0.0, but got 'momentum' {momentum}, 'dampening' {dampening}")
        self.accum = self.parameters.clone(prefix="accum", init="zeros")
        self.stat = self.parameters.clone(prefix="stat", init="ones")

    def construct(self, gradients):
        for gid, group in enumerate(self.param_groups):
            grads = self._group_grads(gradients, gid, group.get("maximize"))
            sgd_p(self._slice(self.parameters, gid), grads, self._lr(gid), self._slice(self.accum, gid),
                  float(group.get("momentum")), self._slice(self.stat, gid), dampening=group.get("dampening"),
                  weight_decay=group.get("weight_decay"), nesterov=group.get("nesterov"))
        return True
