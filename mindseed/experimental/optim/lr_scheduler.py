"""Learning-rate schedulers for `mindspore.experimental.optim` optimizers (MindSpore's formulas).

A scheduler owns the optimizer's per-group learning-rate Parameters (`optimizer.lrs`) and rewrites
them in place on `step()`; `get_last_lr()` returns the rates now in use.
"""
import math
from bisect import bisect_right
from collections import Counter

from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.compiler.jit import jit_class
from mindseed.experimental.optim.optimizer import Optimizer
from mindseed.nn.optim import _validator as V
from mindseed.ops._prims.optim import assign_value_p

__all__ = ["StepLR", "LinearLR", "LRScheduler", "ExponentialLR", "PolynomialLR", "MultiplicativeLR", "ConstantLR",
           "MultiStepLR", "LambdaLR", "SequentialLR", "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts",
           "CosineAnnealingLR"]


def _value(x):
    """A Python float of a Parameter/Tensor/number."""
    if isinstance(x, Tensor):
        return x.item()
    return float(x)


def _set(param, value):
    assign_value_p(param, value if isinstance(value, Tensor) else float(value))


def _tensors(values):
    return [Tensor(float(v), mstype.float32) for v in values]


@jit_class
class LRScheduler:
    """Base class of the schedulers: subclasses define `get_lr()` (and optionally `_get_closed_form_lr()`).

    Args:
        optimizer (Optimizer): an optimizer of `mindspore.experimental.optim`.
        last_epoch (int): the index of the last epoch; -1 starts from the optimizer's rates. Default: ``-1``.

    Raises:
        TypeError: `optimizer` is not an experimental Optimizer, `last_epoch` not an int.
        ValueError: `last_epoch` < -1.
        KeyError: resuming (last_epoch >= 0) when a group has no ``'initial_lr'``.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> w = ms.Parameter(ms.Tensor([1.0]), name="w")
    >>> opt = optim.SGD([w], lr=0.1)
    >>> sched = optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    >>> sched.step()
    True
    >>> round(float(sched.get_last_lr()[0]), 4)
    0.05
    """

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        V.value_type("last_epoch", last_epoch, [int])
        if last_epoch < -1:
            raise ValueError(f"Invalid last_epoch: {last_epoch}")
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", Tensor(_value(group["lr"]), mstype.float32))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming an "
                                   f"optimizer")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.optimizer = optimizer
        self._last_lr = list(optimizer.lrs)
        self.groups_num = len(optimizer.param_groups)
        self.last_epoch = Parameter(Tensor(float(last_epoch), mstype.float32), name="last_epoch_" + type(self).__name__)
        self.step()

    def get_lr(self):
        """The learning rates of the current epoch, one per group."""
        raise AttributeError(f"For '{type(self).__name__}', the method 'get_lr' is not defined.")

    def get_last_lr(self):
        """The learning rates in use, one Tensor per group."""
        return [lr.value() for lr in self._last_lr]

    def step(self, epoch=None):
        """Advance one epoch (or jump to `epoch`) and write the new rates into the optimizer.

        The epoch counter and the rates stay Tensors, so a step compiles inside a graph (even under STRICT).
        """
        if epoch is None:
            _set(self.last_epoch, self.last_epoch + 1)
            values = self.get_lr()
        else:
            _set(self.last_epoch, epoch)
            values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        for i in range(self.groups_num):
            _set(self._last_lr[i], values[i])
        return True

    # ------------------------------------------------------------ float views for the formulas
    def _epoch(self):
        return _value(self.last_epoch)

    def _lrs(self):
        return [_value(lr) for lr in self._last_lr]

    def _bases(self):
        return [_value(b) for b in self.base_lrs]


@jit_class
class StepLR(LRScheduler):
    """Multiply the rates by `gamma` every `step_size` epochs.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> opt = optim.SGD([ms.Parameter(ms.Tensor([1.0]), name="w")], lr=0.1)
    >>> s = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    >>> _ = s.step(); _ = s.step()
    >>> round(float(s.get_last_lr()[0]), 6)
    0.01
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        if not isinstance(step_size, int):
            raise TypeError(f"For 'StepLR', the 'step_size' must be int, but got {type(step_size)}.")
        if not isinstance(gamma, float):
            raise TypeError(f"For 'StepLR', the 'gamma' must be float, but got {type(gamma)}.")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [lr * 1. for lr in self._last_lr]
        return [lr * self.gamma for lr in self._last_lr]

    def _get_closed_form_lr(self):
        return _tensors(b * self.gamma ** (self._epoch() // self.step_size) for b in self._bases())


@jit_class
class LinearLR(LRScheduler):
    """Scale the rates linearly from `start_factor` to `end_factor` over `total_iters` epochs."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less than or equal "
                             "to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        if not isinstance(total_iters, int):
            raise TypeError(f"For 'LinearLR', the type of total_iters must be int, but got {type(total_iters)}.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._last_lr]
        if self.last_epoch > self.total_iters:
            return [lr * 1. for lr in self._last_lr]
        delta = self.end_factor - self.start_factor
        factor = 1. + delta / (self.total_iters * self.start_factor + (self.last_epoch - 1) * delta)
        return [lr * factor for lr in self._last_lr]

    def _get_closed_form_lr(self):
        e = self._epoch()
        return _tensors(b * (self.start_factor + (self.end_factor - self.start_factor)
                             * min(self.total_iters, e) / self.total_iters) for b in self._bases())


@jit_class
class ExponentialLR(LRScheduler):
    """Multiply the rates by `gamma` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        if not isinstance(gamma, float):
            raise TypeError(f"For 'ExponentialLR', the 'gamma' must be float, but got {type(gamma)}.")
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * 1. for lr in self._last_lr]
        return [lr * self.gamma for lr in self._last_lr]

    def _get_closed_form_lr(self):
        return _tensors(b * self.gamma ** self._epoch() for b in self._bases())


@jit_class
class PolynomialLR(LRScheduler):
    """Decay the rates as (1 - epoch / total_iters) ** power, reaching 0 at `total_iters`."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        if not isinstance(power, float):
            raise TypeError(f"For 'PolynomialLR', the 'power' must be float, but got {type(power)}.")
        if power < 0:
            raise ValueError(f"For 'PolynomialLR', the 'power' must be >= 0, but got {power}.")
        if not isinstance(total_iters, int):
            raise TypeError(f"For 'PolynomialLR', the type of total_iters must be int, but got {type(total_iters)}.")
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch > self.total_iters:
            return [lr * 1. for lr in self._last_lr]
        factor = ((1.0 - self.last_epoch / self.total_iters)
                  / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [lr * factor for lr in self._last_lr]

    def _get_closed_form_lr(self):
        e = self._epoch()
        return _tensors(b * (1.0 - min(self.total_iters, e) / self.total_iters) ** self.power for b in self._bases())


@jit_class
class LambdaLR(LRScheduler):
    """Set the rates to initial_lr * lr_lambda(epoch) (one function, or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = _per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [b * fn(self.last_epoch) for fn, b in zip(self.lr_lambdas, self.base_lrs)]


@jit_class
class MultiplicativeLR(LRScheduler):
    """Multiply the rates by lr_lambda(epoch) every epoch."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = _per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch > 0:
            return [lr * fn(self.last_epoch) for fn, lr in zip(self.lr_lambdas, self._last_lr)]
        return [lr * 1. for lr in self._last_lr]


@jit_class
class MultiStepLR(LRScheduler):
    """Multiply the rates by `gamma` at each milestone epoch."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        V.value_type("milestones", milestones, [list])
        for milestone in milestones:
            if not isinstance(milestone, int):
                raise TypeError(f"For 'MultiStepLR', elements of the 'milestones' must be type of int, but got one "
                                f"element of 'milestones' type: {type(milestone)}.")
        V.value_type("gamma", gamma, [float, int])
        self.milestones = Counter(milestones)
        self.milestones_keys = list(self.milestones.keys())
        self.milestones_values = list(self.milestones.values())
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = [lr.value() for lr in self._last_lr]
        for key, count in zip(self.milestones_keys, self.milestones_values):
            if self.last_epoch == key:
                return [lr * self.gamma ** count for lr in lrs]
        return lrs

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self._epoch())
        return _tensors(b * self.gamma ** passed for b in self._bases())


@jit_class
class ConstantLR(LRScheduler):
    """Scale the rates by `factor` until epoch `total_iters`, then restore them."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        if not isinstance(total_iters, int):
            raise TypeError(f"For 'ConstantLR', the type of total_iters must be int, but got {type(total_iters)}.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._last_lr]
        if self.last_epoch != self.total_iters:
            return [lr * 1. for lr in self._last_lr]
        return [lr / self.factor for lr in self._last_lr]

    def _get_closed_form_lr(self):
        e = self._epoch()
        return _tensors(b * (self.factor + (e >= self.total_iters) * (1 - self.factor)) for b in self._bases())


@jit_class
class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing from the initial rate to `eta_min` over `T_max` epochs (and back, periodically)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        if not isinstance(eta_min, (float, int)):
            raise TypeError(f"For 'CosineAnnealingLR', the 'eta_min' must be float or int, but got {type(eta_min)}.")
        if not isinstance(T_max, int):
            raise TypeError(f"For 'CosineAnnealingLR', the 'T_max' must be int, but got {type(T_max)}.")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, t = self.last_epoch, self.T_max
        if e == 0:
            return [lr * 1. for lr in self._last_lr]
        if (e - 1 - t) % (2 * t) == 0:
            return [lr + (b - self.eta_min) * (1 - math.cos(math.pi / t)) / 2
                    for b, lr in zip(self.base_lrs, self._last_lr)]
        ratio = (1 + ops.cos(math.pi * e / t)) / (1 + ops.cos(math.pi * (e - 1) / t))
        return [ratio * (lr - self.eta_min) + self.eta_min for lr in self._last_lr]

    def _get_closed_form_lr(self):
        e = self._epoch()
        return _tensors(self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * e / self.T_max)) / 2
                        for b in self._bases())


@jit_class
class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs, T_i growing by `T_mult` after each restart."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1):
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"T_0 should be an integer and equal or greater than 0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"T_mult should be an integer and equal or greater than 1, but got {T_mult}")
        V.value_type("eta_min", eta_min, [float, int])
        self.T_0 = Parameter(Tensor(float(T_0), mstype.float32), name="T_0")
        self._t0 = float(T_0)
        self.T_i = Parameter(Tensor(float(T_0), mstype.float32), name="T_i")
        self.T_mult = T_mult
        self.eta_min = Tensor(eta_min)
        self.T_cur = Parameter(Tensor(float(last_epoch), mstype.float32), name="T_cur")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        pct = math.pi * self.T_cur / self.T_i
        return [self.eta_min + (b - self.eta_min) * (1 + ops.cos(pct)) / 2 for b in self.base_lrs]

    def step(self, epoch=None):
        """Advance one epoch, or jump to `epoch` (restarts follow T_0 and T_mult)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            _set(self.T_cur, self.T_cur + 1)
            if self.T_cur >= self.T_i:
                _set(self.T_cur, self.T_cur - self.T_i)
                _set(self.T_i, self.T_i * self.T_mult)
        else:
            epoch = _value(epoch)
            if epoch < 0:
                raise ValueError(f"epoch should be a non-negative integer, but got {epoch}")
            t0 = self._t0  # T_0 never changes: its Python value, so a step to a given epoch compiles under STRICT
            if epoch >= t0:
                if self.T_mult == 1:
                    _set(self.T_cur, epoch % t0)
                else:
                    n = int(math.log(epoch / t0 * (self.T_mult - 1) + 1, self.T_mult))
                    _set(self.T_cur, epoch - t0 * (self.T_mult ** n - 1) / (self.T_mult - 1))
                    _set(self.T_i, t0 * self.T_mult ** n)
            else:
                _set(self.T_i, t0)
                _set(self.T_cur, epoch)
        _set(self.last_epoch, ops.floor(epoch) if isinstance(epoch, Tensor) else math.floor(epoch))
        for param, lr in zip(self._last_lr, self.get_lr()):
            _set(param, lr)
        return True


@jit_class
class CyclicLR(LRScheduler):
    """Cycle the rates between `base_lr` and `max_lr` (modes 'triangular', 'triangular2', 'exp_range')."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", last_epoch=-1):
        base_lrs = self._preprocess_input_param(optimizer, base_lr, "base_lr")
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set(group["lr"], lr)
        self.max_lrs = [Tensor(float(lr), mstype.float32) for lr in
                        self._preprocess_input_param(optimizer, max_lr, "max_lr")]
        step_size_up = float(step_size_up)
        step_size_down = step_size_up if step_size_down is None else float(step_size_down)
        self.total_step_size = step_size_up + step_size_down
        self.step_up_ratio = step_size_up / self.total_step_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        if scale_fn is None:
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        super().__init__(optimizer, last_epoch)
        self.base_lrs = [Tensor(float(lr), mstype.float32) for lr in base_lrs]

    @staticmethod
    def _preprocess_input_param(optimizer, param, name):
        if isinstance(param, (list, tuple)):
            if len(param) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} values for {name}, got {len(param)}")
            return list(param)
        return [param] * len(optimizer.param_groups)

    def scale_fn(self, x):
        """The amplitude scale of cycle (or iteration) x."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.
        if self.mode == "triangular2":
            return 1 / (2. ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        e = self.last_epoch
        cycle = ops.floor(1 + e / self.total_step_size)
        x = 1. + e / self.total_step_size - cycle
        if x <= self.step_up_ratio:
            scale = x / self.step_up_ratio
        else:
            scale = (x - 1) / (self.step_up_ratio - 1)
        amplitude = self.scale_fn(cycle if self.scale_mode == "cycle" else e)
        return [b + (m - b) * scale * amplitude for b, m in zip(self.base_lrs, self.max_lrs)]


@jit_class
class SequentialLR:
    """Run schedulers one after the other, switching at the `milestones` epochs.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> opt = optim.SGD([ms.Parameter(ms.Tensor([1.0]), name="w")], lr=0.1)
    >>> warm = optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> decay = optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    >>> s = optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[2])
    >>> round(float(s.get_last_lr()[0]), 4)
    0.05
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        for i, scheduler in enumerate(schedulers):
            if scheduler.optimizer is not optimizer:
                raise ValueError(f"Sequential Schedulers expects all schedulers to belong to the same optimizer, but "
                                 f"got scheduler at index {i} is different from the optimizer passed in.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones {len(milestones)}")
        self._schedulers = schedulers
        self.milestones = milestones
        self.milestones_len = len(milestones)
        self.last_epoch = Parameter(Tensor(float(last_epoch + 1), mstype.float32), name="last_epoch_SequentialLR")
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            _set(group["lr"], group["initial_lr"])
        for scheduler in schedulers:
            _set(scheduler.last_epoch, _value(scheduler.last_epoch) - 1)
        schedulers[0].step()
        self._last_lr = schedulers[0]._last_lr

    def step(self):
        """Advance one epoch in the scheduler owning it."""
        _set(self.last_epoch, _value(self.last_epoch) + 1)
        epoch = int(_value(self.last_epoch))
        idx = bisect_right(self.milestones, epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self.milestones[idx - 1] == epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        return True

    def get_last_lr(self):
        """The learning rates in use, one Tensor per group."""
        return _tensors(_value(lr) for lr in self._last_lr)


@jit_class
class ReduceLROnPlateau:
    """Reduce the rates by `factor` when a metric stops improving for `patience` epochs.

    >>> import mindseed as ms
    >>> from mindseed.experimental import optim
    >>> opt = optim.SGD([ms.Parameter(ms.Tensor([1.0]), name="w")], lr=0.1)
    >>> s = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    >>> _ = s.step(1.0); _ = s.step(1.0)
    >>> round(float(s.get_last_lr()[0]), 4)
    0.01
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("The lr factor should be less than 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"Expected an `Optimizer`, but got type {type(optimizer).__name__}")
        self.factor = factor
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"Expected {n} min_lrs, got {len(min_lr)}")
            self.min_lrs = [Tensor(float(lr), mstype.float32) for lr in min_lr]
        else:
            self.min_lrs = [Tensor(float(min_lr), mstype.float32)] * n
        if mode not in ("min", "max"):
            raise ValueError(f"`mode` should be 'min' or 'max', but got {mode}.")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"`threshold mode` should be 'rel' or 'abs', but got {threshold_mode}.")
        self.mode = mode
        self.patience = patience
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.cooldown = cooldown
        self.eps = eps
        self.mode_worse = float("inf") if mode == "min" else float("-inf")
        self.last_epoch = Parameter(Tensor(0, mstype.int32), name="last_epoch_ReduceLROnPlateau")
        self.best = Parameter(Tensor(self.mode_worse, mstype.float32), name="best")
        self.cooldown_counter = Parameter(Tensor(0.0, mstype.float32), name="cooldown_counter")
        self.wait = Parameter(Tensor(0.0, mstype.float32), name="wait")
        self._last_lr = [group["lr"] for group in optimizer.param_groups]

    def step(self, metrics):
        """Record this epoch's metric and reduce the rates when it has plateaued."""
        epoch = self.last_epoch + 1
        current = ops.cast(metrics, mstype.float32)
        _set(self.last_epoch, epoch)
        if self._is_improvement(current, self.best):
            _set(self.best, current)
            _set(self.wait, 0)
        else:
            _set(self.wait, self.wait + 1)
        if self.in_cooldown():
            _set(self.cooldown_counter, self.cooldown_counter - 1)
            _set(self.wait, 0)
        if self.wait > self.patience:
            self._reduce_lr(epoch)
            _set(self.cooldown_counter, self.cooldown)
            _set(self.wait, 0)
        return True

    def _reduce_lr(self, epoch):
        for lr, min_lr in zip(self._last_lr, self.min_lrs):
            old = lr.value()
            new = ops.maximum(old * self.factor, min_lr)
            if old > new + self.eps:
                _set(lr, new)
        return True

    def in_cooldown(self):
        """Whether the scheduler is waiting after a reduction."""
        return self.cooldown_counter > 0

    def _is_improvement(self, current, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return current < best * (1. - self.threshold)
        if self.mode == "min":
            return current < best - self.threshold
        if self.threshold_mode == "rel":
            return current > best * (self.threshold + 1.)
        return current > best + self.threshold

    def get_last_lr(self):
        """The learning rates in use, one Tensor per group."""
        return [lr.value() for lr in self._last_lr]


def _per_group(optimizer, lr_lambda):
    """One function per parameter group: the list given, or the one function repeated."""
    n = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n:
            raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)
    return [lr_lambda] * n
