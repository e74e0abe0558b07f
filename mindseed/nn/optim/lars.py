"""LARS: layer-wise adaptive rate scaling of another optimizer's gradients."""
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.optim import _validator as V
from mindseed.nn.optim.optimizer import Optimizer, opt_init_args_register
from mindseed.ops._prims.optim import lars_update_p

__all__ = ["LARS"]


def _default_lars_filter(x):
    return "LayerNorm" not in x.name and "bias" not in x.name


class LARS(Optimizer):
    r"""Wraps an optimizer: each filtered parameter's gradient is replaced before the inner update by

    .. math::
        \lambda = \frac{\eta \|w\|}{\|g\| + \delta \|w\| + \epsilon}, \qquad g' = \lambda (g + \delta w)

    with :math:`\delta` the inner optimizer's weight decay and :math:`\eta` the coefficient; with `use_clip`,
    :math:`\lambda = \min(\max(\lambda / lr, 0), 1)`. The inner optimizer's own weight decay is turned off.

    Args:
        optimizer (Optimizer): the optimizer updating the parameters.
        epsilon (float): Default: ``1e-05``.
        coefficient (float): eta. Default: ``0.001``.
        use_clip (bool): Default: ``False``.
        lars_filter (Callable): which parameters are scaled. Default: those without 'LayerNorm' or 'bias' in their
            names.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor([3.0, 4.0]), name="w")
    >>> opt = ms.nn.LARS(ms.nn.Momentum([w], 0.1, 0.9), coefficient=0.1)
    >>> _ = opt((ms.Tensor([1.0, 1.0]),))
    >>> [round(x, 4) for x in w.asnumpy().tolist()]
    [2.9646, 3.9646]
    """

    @opt_init_args_register
    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False, lars_filter=_default_lars_filter):
        super().__init__(0.0, [Parameter(Tensor(0.0, mstype.float32), name="fake_param")])
        V.value_type("optimizer", optimizer, [Optimizer], self.cls_name)
        V.value_type("epsilon", epsilon, [float], self.cls_name)
        V.value_type("coefficient", coefficient, [float], self.cls_name)
        V.value_type("use_clip", use_clip, [bool], self.cls_name)
        self.opt = optimizer
        self.dynamic_decay_flags = optimizer.dynamic_decay_flags
        self.dynamic_weight_decay = optimizer.dynamic_weight_decay
        self.weight_decay = optimizer.weight_decay
        self.global_step = optimizer.global_step
        self.parameters = optimizer.parameters
        self.use_clip = use_clip
        self.lars_flag = tuple(lars_filter(x) for x in self.parameters)
        self.is_group = optimizer.is_group
        self.learning_rate = Parameter(Tensor(0.0, mstype.float32), name="fake_lr")
        self.decay_flags = optimizer.decay_flags
        self.reciprocal_scale = optimizer.reciprocal_scale
        self.need_scale = optimizer.need_scale
        self.loss_scale = optimizer.loss_scale
        self.epsilon = epsilon
        self.coefficient = coefficient
        self.is_group_lr = optimizer.is_group_lr
        self.dynamic_lr = optimizer.dynamic_lr
        self.origin_learning_rate = optimizer.learning_rate
        if use_clip and self.is_group_lr and self.dynamic_lr:
            raise ValueError("For 'LARS', if the argument 'use_clip' is set to True, then the dynamic learning rate "
                             "and group learning rate cannot both be true.")
        # the inner optimizer sees gradients already decayed and unscaled
        optimizer.exec_weight_decay = False
        optimizer.need_scale = False
        self.__dict__["_inner_plan"] = optimizer

    def construct(self, gradients):
        inner = self._inner_plan
        lrs = inner._lr_values() if self.use_clip else None
        wds = self.get_weight_decay()
        grads = self._scaled(gradients, 1.0 / self.loss_scale) if self.need_scale else gradients
        out = []
        for i, (g, p) in enumerate(zip(grads, self.parameters)):
            if not self.lars_flag[i]:
                out.append(g)
                continue
            wd = 0.0
            if self.decay_flags[i]:
                wd = self._value(wds[i] if self.is_group else wds) / self.loss_scale
            lr = 0.0
            if self.use_clip:
                lr = lrs[next(k for lo, hi, k in inner._segments if lo <= i < hi)]
            # the sums of squares of weight and gradient are computed by the primitive (in float32)
            out.append(lars_update_p(p, g, None, None, wd, lr, epsilon=self.epsilon, hyperpara=self.coefficient,
                                     use_clip=self.use_clip))
        return self.opt(tuple(out))
