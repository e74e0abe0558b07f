"""Learning-rate lists, one value per step, for an optimizer's dynamic `learning_rate` (MindSpore's formulas)."""
import math

from mindseed.nn.optim import _validator as V

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr",
           "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def piecewise_constant_lr(milestone, learning_rates):
    """learning_rates[i] for the steps before milestone[i] (and from milestone[i-1]).

    Args:
        milestone (Union[list[int], tuple[int]]): increasing step counts.
        learning_rates (Union[list[float], tuple[float]]): one rate per milestone.

    Returns:
        list[float] of length milestone[-1].

    Raises:
        ValueError: the lengths differ or the milestones decrease.

    >>> import mindseed as ms
    >>> ms.nn.piecewise_constant_lr([2, 5], [0.1, 0.05])
    [0.1, 0.1, 0.05, 0.05, 0.05]
    """
    V.value_type("milestone", milestone, (tuple, list))
    V.value_type("learning_rates", learning_rates, (tuple, list))
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For 'piecewise_constant_lr', the size of 'milestone' must be same with the size of "
                         f"'learning_rates', but got 'milestone' size: {len(milestone)}, 'learning_rates' size: "
                         f"{len(learning_rates)}.")
    lr = []
    last_item = 0
    for i, item in enumerate(milestone):
        V.positive_int(item, f"milestone[{i}]")
        V.is_float(learning_rates[i], f"learning_rates[{i}]")
        if item < last_item:
            raise ValueError(f"For 'piecewise_constant_lr', the value of milestone[{i}] must be greater than "
                             f"milestone[{i - 1}], but got milestone[{i}]: {milestone[i]}, milestone[{i - 1}]: "
                             f"{milestone[i - 1]}.")
        lr += [learning_rates[i]] * (item - last_item)
        last_item = item
    return lr


def _positive_real(value, name):
    V.positive_float(value, name)
    V.is_float(value, name)


def _step_counts(total_step, step_per_epoch, decay_epoch):
    V.positive_int(total_step, "total_step")
    V.positive_int(step_per_epoch, "step_per_epoch")
    V.positive_int(decay_epoch, "decay_epoch")


def _check_inputs(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair):
    _step_counts(total_step, step_per_epoch, decay_epoch)
    _positive_real(learning_rate, "learning_rate")
    _positive_real(decay_rate, "decay_rate")
    V.value_type("is_stair", is_stair, [bool])


def _per_step(total_step, step_per_epoch, lr_at_epoch):
    """[lr_at_epoch(epoch of step i) for each of the total_step steps]."""
    return [lr_at_epoch(math.floor(i / step_per_epoch)) for i in range(total_step)]


def _decay_lr(name, factor, doc):
    """A per-step schedule lr * factor(decay_rate, p, e): p = epoch / decay_epoch and e = epoch, both rounded down
    to whole `decay_epoch`s when is_stair."""
    def schedule(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair=False):
        _check_inputs(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)

        def lr_at(epoch):
            if is_stair:
                p = math.floor(epoch / decay_epoch)
                return learning_rate * factor(decay_rate, p, p * decay_epoch)
            return learning_rate * factor(decay_rate, epoch / decay_epoch, epoch)
        return _per_step(total_step, step_per_epoch, lr_at)
    schedule.__name__ = schedule.__qualname__ = name
    schedule.__doc__ = doc
    return schedule


exponential_decay_lr = _decay_lr("exponential_decay_lr", lambda r, p, e: r ** p, """\
lr * decay_rate ^ (epoch / decay_epoch) per step, epoch = floor(step / step_per_epoch).

    >>> import mindseed as ms
    >>> [round(x, 4) for x in ms.nn.exponential_decay_lr(0.1, 0.9, 4, 1, 2, True)]
    [0.1, 0.1, 0.09, 0.09]
    """)

natural_exp_decay_lr = _decay_lr("natural_exp_decay_lr", lambda r, p, e: math.e ** (-r * e), """\
lr * e ^ (-decay_rate * epoch) per step (epoch rounded down to whole `decay_epoch`s when `is_stair`).

    >>> import mindseed as ms
    >>> [round(x, 4) for x in ms.nn.natural_exp_decay_lr(0.1, 0.5, 3, 1, 2)]
    [0.1, 0.0607, 0.0368]
    """)

inverse_decay_lr = _decay_lr("inverse_decay_lr", lambda r, p, e: 1 / (1 + r * p), """\
lr / (1 + decay_rate * epoch / decay_epoch) per step (the ratio floored when `is_stair`).

    >>> import mindseed as ms
    >>> [round(x, 4) for x in ms.nn.inverse_decay_lr(0.1, 0.5, 3, 1, 1)]
    [0.1, 0.0667, 0.05]
    """)


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(epoch, decay_epoch) / decay_epoch)) per step.

    >>> import mindseed as ms
    >>> [round(x, 4) for x in ms.nn.cosine_decay_lr(0.01, 0.1, 3, 1, 2)]
    [0.1, 0.055, 0.01]
    """
    V.non_negative_float_typed(min_lr, "min_lr", "cosine_decay_lr", None)
    _positive_real(max_lr, "max_lr")
    _step_counts(total_step, step_per_epoch, decay_epoch)
    if min_lr >= max_lr:
        raise ValueError(f"For 'cosine_decay_lr', the 'max_lr' must be greater than the 'min_lr', but got 'max_lr' "
                         f"value: {max_lr}, 'min_lr' value: {min_lr}.")
    delta = 0.5 * (max_lr - min_lr)
    return _per_step(total_step, step_per_epoch,
                     lambda epoch: min_lr + delta * (1 + math.cos(math.pi * min(epoch, decay_epoch) / decay_epoch)))


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch, power,
                        update_decay_epoch=False):
    """(lr - end_lr) * (1 - epoch / decay_epoch) ^ power + end_lr per step.

    With `update_decay_epoch`, the decay period grows to the next multiple of `decay_epoch` instead of stopping.

    >>> import mindseed as ms
    >>> [round(x, 4) for x in ms.nn.polynomial_decay_lr(0.1, 0.01, 3, 1, 2, 1.0)]
    [0.1, 0.055, 0.01]
    """
    _positive_real(learning_rate, "learning_rate")
    V.non_negative_float_typed(end_learning_rate, "end_learning_rate", "polynomial_decay_lr", None)
    _positive_real(power, "power")
    _step_counts(total_step, step_per_epoch, decay_epoch)
    V.value_type("update_decay_epoch", update_decay_epoch, [bool])
    delta = learning_rate - end_learning_rate

    def lr_at(epoch):
        period = decay_epoch
        if update_decay_epoch:
            period = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            epoch = min(period, epoch)
        return delta * (1 - epoch / period) ** power + end_learning_rate
    return _per_step(total_step, step_per_epoch, lr_at)


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """lr * min(epoch, warmup_epoch) / warmup_epoch per step.

    >>> import mindseed as ms
    >>> ms.nn.warmup_lr(0.1, 4, 1, 2)
    [0.0, 0.05, 0.1, 0.1]
    """
    V.non_negative_float_typed(learning_rate, "learning_rate", "warmup_lr", None)
    V.positive_int(warmup_epoch, "warmup_epoch")
    V.positive_int(total_step, "total_step")
    V.positive_int(step_per_epoch, "step_per_epoch")
    return _per_step(total_step, step_per_epoch,
                     lambda epoch: learning_rate * min(warmup_epoch, epoch) / warmup_epoch)
