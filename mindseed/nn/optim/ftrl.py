"""FTRL: Follow The Regularized Leader (MindSpore's ApplyFtrl)."""
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import apply_ftrl_p

__all__ = ["FTRL"]


def _non_negative(name, value, prim_name):
    V.value_type(name, value, [float], prim_name)
    if value < 0.0:
        raise ValueError(f"For '{prim_name}', the argument '{name}' must >= 0.0, but got {value}.")


def _check_param(initial_accum, learning_rate, lr_power, l1, l2, use_locking, prim_name):
    _non_negative("initial_accum", initial_accum, prim_name)
    V.value_type("learning_rate", learning_rate, [float], prim_name)
    V.positive_float(learning_rate, "learning_rate", prim_name)
    V.value_type("lr_power", lr_power, [float], prim_name)
    if lr_power > 0.0:
        raise ValueError(f"For '{prim_name}', the argument 'lr_power' must <= 0.0, but got {lr_power}.")
    _non_negative("l1", l1, prim_name)
    _non_negative("l2", l2, prim_name)
    V.value_type("use_locking", use_locking, [bool], prim_name)


class FTRL(Optimizer):
    r"""FTRL-Proximal.

    .. math::
        n' = n + g^2, \quad \sigma = \frac{n'^{-p} - n^{-p}}{lr}, \quad z = z + g - \sigma w, \quad
        w = \begin{cases} \frac{\operatorname{sign}(z) l_1 - z}{n'^{-p} / lr + 2 l_2} & |z| > l_1 \\ 0 & \text{else}
        \end{cases}

    Args:
        params (Union[list[Parameter], list[dict]]): parameters or parameter groups (fixed rate only).
        initial_accum (float): the initial n, >= 0. Default: ``0.1``.
        learning_rate (float): > 0, fixed. Default: ``0.001``.
        lr_power (float): p is -lr_power, <= 0. Default: ``-0.5``.
        l1 (float): >= 0. Default: ``0.0``.
        l2 (float): >= 0. Default: ``0.0``.
        use_locking (bool): Default: ``False``.
        loss_scale (float): Default: ``1.0``.
        weight_decay (Union[float, int, Cell]): applied to every parameter. Default: ``0.0``.

    State: ``moments.*`` (n), ``linear.*`` (z).

    Raises:
        ValueError: a dynamic or per-group learning rate.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> _ = ms.nn.FTRL([w], learning_rate=0.1)((ms.Tensor([1.0]),))
    >>> round(float(w[0]), 4)
    0.6031
    """

    @opt_init_args_register
    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
                 use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale=loss_scale)
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError(f"For 'FTRL', dynamic learning rate and group learning rate are currently not supported "
                             f"in FTRL, they should all be false, but got dynamic learning rate {self.dynamic_lr} and "
                             f"group learning rate {self.is_group_lr}.")
        _check_param(initial_accum, learning_rate, lr_power, l1, l2, use_locking, self.cls_name)
        self.moments = self._parameters.clone(prefix="moments", init=initial_accum)
        self.linear = self._parameters.clone(prefix="linear", init="zeros")
        self.l1 = l1
        self.l2 = l2
        self.lr = learning_rate
        self.lr_power = lr_power
        if not self.is_group:
            self.decay_flags = tuple(True for _ in self._parameters)
        self.use_locking = use_locking

    def construct(self, grads):
        grads, segments = self._begin_step(grads)
        params, moments, linear = self._parameters, self.moments, self.linear
        for lo, hi, lr in segments:
            apply_ftrl_p(params[lo:hi], moments[lo:hi], linear[lo:hi], grads[lo:hi], lr, self.l1, self.l2,
                         self.lr_power)
        return self._success
