"""Learning-rate schedules: Cells mapping the global step (a Tensor) to the learning rate of that step.

An optimizer given a schedule calls it once per step with its `global_step`; the formulas are
MindSpore's, computed in float32.
"""
import math

from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.nn.cell import Cell
from mindseed.nn.optim import _validator as V

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR", "CosineDecayLR",
           "PolynomialDecayLR", "WarmUpLR"]


class LearningRateSchedule(Cell):
    """Base class of learning-rate schedules: subclasses define `construct(global_step)` returning the rate.

    >>> import mindseed as ms
    >>> class Halving(ms.nn.LearningRateSchedule):
    ...     def construct(self, global_step):
    ...         return 0.1 * 0.5 ** ms.ops.cast(global_step, ms.float32)
    >>> round(float(Halving()(ms.Tensor(2, ms.int32))), 6)
    0.025
    """

    def construct(self, global_step):
        raise AttributeError(f"For '{type(self).__name__}', the method 'construct' is not defined.")


def _check_inputs(learning_rate, decay_rate, decay_steps, is_stair, cls_name):
    V.positive_int(decay_steps, "decay_steps", cls_name)
    V.positive_float(learning_rate, "learning_rate", cls_name)
    V.is_float(learning_rate, "learning_rate", cls_name)
    V.positive_float(decay_rate, "decay_rate", cls_name)
    V.is_float(decay_rate, "decay_rate", cls_name)
    V.value_type("is_stair", is_stair, [bool], cls_name)


def _step(global_step):
    return ops.cast(global_step, mstype.float32)


class _DecayLR(LearningRateSchedule):
    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _check_inputs(learning_rate, decay_rate, decay_steps, is_stair, type(self).__name__)
        self.learning_rate = learning_rate
        self.decay_rate = decay_rate
        self.decay_steps = decay_steps
        self.is_stair = is_stair


class ExponentialDecayLR(_DecayLR):
    r"""lr * decay_rate ^ p with p = step / decay_steps (floored when `is_stair`).

    Args:
        learning_rate (float): the initial rate.
        decay_rate (float): the decay factor.
        decay_steps (int): the steps per decay period.
        is_stair (bool): decay in whole periods. Default: ``False``.

    Raises:
        TypeError: `learning_rate` or `decay_rate` is not a float, `decay_steps` not an int.
        ValueError: a value is not positive.

    >>> import mindseed as ms
    >>> float(ms.nn.ExponentialDecayLR(0.1, 0.9, 4)(ms.Tensor(2, ms.int32)))  # doctest: +ELLIPSIS
    0.0948683...
    """

    def construct(self, global_step):
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate * ops.pow(self.decay_rate, p)


class NaturalExpDecayLR(_DecayLR):
    r"""lr * e ^ (-decay_rate * p) with p = step (rounded down to whole `decay_steps` periods when `is_stair`).

    >>> import mindseed as ms
    >>> round(float(ms.nn.NaturalExpDecayLR(0.1, 0.9, 4)(ms.Tensor(2, ms.int32))), 6)
    0.01653
    """

    def construct(self, global_step):
        p = _step(global_step)
        if self.is_stair:
            p = ops.floor(p / self.decay_steps) * self.decay_steps
        return self.learning_rate * ops.pow(math.e, -self.decay_rate * p)


class InverseDecayLR(_DecayLR):
    r"""lr / (1 + decay_rate * p) with p = step / decay_steps (floored when `is_stair`).

    >>> import mindseed as ms
    >>> round(float(ms.nn.InverseDecayLR(0.1, 0.5, 2)(ms.Tensor(2, ms.int32))), 6)
    0.066667
    """

    def construct(self, global_step):
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate / (1 + self.decay_rate * p)


class CosineDecayLR(LearningRateSchedule):
    r"""min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(step, decay_steps) / decay_steps)).

    Args:
        min_lr (float): the final rate.
        max_lr (float): the initial rate, greater than `min_lr`.
        decay_steps (int): steps to go from `max_lr` to `min_lr`.

    >>> import mindseed as ms
    >>> round(float(ms.nn.CosineDecayLR(0.01, 0.1, 4)(ms.Tensor(2, ms.int32))), 6)
    0.055
    """

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        V.non_negative_float_typed(min_lr, "min_lr", "CosineDecayLR", "CosineDecayLR")
        V.positive_float(max_lr, "max_lr", "CosineDecayLR")
        V.is_float(max_lr, "max_lr", "CosineDecayLR")
        V.positive_int(decay_steps, "decay_steps", "CosineDecayLR")
        if min_lr >= max_lr:
            raise ValueError(f"For 'CosineDecayLR', the 'max_lr' must be greater than the 'min_lr', but got 'max_lr' "
                             f"value: {max_lr}, 'min_lr' value: {min_lr}.")
        self.min_lr = min_lr
        self.max_lr = max_lr
        self.decay_steps = decay_steps
        self.delta = 0.5 * (max_lr - min_lr)

    def construct(self, global_step):
        p = ops.cast(ops.minimum(global_step, self.decay_steps), mstype.float32)
        return self.min_lr + self.delta * (1.0 + ops.sin(math.pi * (p / self.decay_steps + 0.5)))


class PolynomialDecayLR(LearningRateSchedule):
    r"""(lr - end_lr) * (1 - p) ^ power + end_lr with p = min(step, decay_steps) / decay_steps.

    With `update_decay_steps`, the period grows to the next multiple of `decay_steps` instead of stopping.

    >>> import mindseed as ms
    >>> round(float(ms.nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5)(ms.Tensor(2, ms.int32))), 6)
    0.07364
    """

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power, update_decay_steps=False):
        super().__init__()
        V.positive_float(learning_rate, "learning_rate")
        V.is_float(learning_rate, "learning_rate")
        V.non_negative_float_typed(end_learning_rate, "end_learning_rate", "PolynomialDecayLR", "PolynomialDecayLR")
        V.positive_int(decay_steps, "decay_steps", "PolynomialDecayLR")
        V.value_type("update_decay_steps", update_decay_steps, [bool], "PolynomialDecayLR")
        V.positive_float(power, "power", "PolynomialDecayLR")
        V.is_float(power, "power", "PolynomialDecayLR")
        self.decay_steps = decay_steps
        self.start_learning_rate = learning_rate
        self.end_learning_rate = end_learning_rate
        self.diff_learning_rate = learning_rate - end_learning_rate
        self.power = power
        self.update_decay_steps = update_decay_steps

    def construct(self, global_step):
        step = _step(global_step)
        decay_steps = self.decay_steps
        if self.update_decay_steps:
            decay_steps = decay_steps * ops.maximum(ops.ceil(step / decay_steps), 1)
        else:
            step = ops.minimum(step, decay_steps)
        p = step / decay_steps
        return self.diff_learning_rate * ops.pow(1.0 - p, self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    r"""lr * min(step, warmup_steps) / warmup_steps.

    >>> import mindseed as ms
    >>> round(float(ms.nn.WarmUpLR(0.1, 4)(ms.Tensor(2, ms.int32))), 6)
    0.05
    """

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        V.non_negative_float_typed(learning_rate, "learning_rate", "WarmUpLR", "WarmUpLR")
        V.positive_int(warmup_steps, "warmup_steps", "WarmUpLR")
        self.warmup_steps = warmup_steps
        self.learning_rate = learning_rate

    def construct(self, global_step):
        percent = ops.cast(ops.minimum(global_step, self.warmup_steps), mstype.float32) / self.warmup_steps
        return self.learning_rate * percent
