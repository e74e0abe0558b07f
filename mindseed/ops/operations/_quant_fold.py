"""The learned-scale fake quantization and batch-norm folding primitives of `mindspore.ops.operations._quant_ops`,
with their gradient primitives.

MindSpore computes them with GPU kernels only (its CPU build has none; Golden Stick's LSQ quantizers and its
two-convolution BN-fold cell use them). Here they are compositions of mindseed's ops whose value is the kernels'
and whose automatic gradient is the one MindSpore's bprop computes with the `...Grad` primitive — those are
provided too, as the kernels define them:

* `FakeLearnedScaleQuantPerLayer/PerChannel(x, alpha, quant_max)`: ``x / alpha`` clamped to ``[-1, 1]`` (``[0, 1]``
  with `neg_trunc`), rounded to ``1 / quant_max`` steps, times `alpha`. Gradient: the incoming one for `x` where
  ``x / alpha`` is in that range; for `alpha` the sum of ``dout * (q - x / alpha)`` there, ``+dout`` above and
  ``-dout`` below (per channel for the per-channel form); none for `quant_max`. In training the first
  `quant_delay` calls pass `x` through.
* `BatchNormFold(x, mean, variance, global_step)` → (batch_mean, batch_std, running_mean, running_std): while
  training and ``global_step[0] < freeze_bn``, the batch's mean and ``sqrt(var + eps)`` (biased variance), and the
  moving `mean`/`variance` Parameters are updated (momentum, unbiased variance, as cuDNN); otherwise 0 and 1.
  The running outputs are the moving statistics before the update (``sqrt(variance + eps)`` for the std).
* `CorrectionMul(x, batch_std, running_std)` = ``x * batch_std / running_std`` along `channel_axis`.
* `BatchNormFold2(x, beta, gamma, batch_std, batch_mean, running_std, running_mean, global_step)`: before
  `freeze_bn` steps ``x * running_std / batch_std + beta - gamma * batch_mean / batch_std``, after it
  ``x + beta - gamma * running_mean / running_std`` (channels on axis 1).
"""
from mindseed import _checkparam as validator
from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops.operations._base import Primitive

_FLOATS = (mstype.float16, mstype.float32)


def channel_view(value, ndim, axis):
    """A per-channel 1-D tensor shaped to broadcast along `axis` of an `ndim`-D tensor."""
    if axis is None:
        return value
    shape = [1] * ndim
    shape[axis] = -1
    return value.reshape(tuple(shape))


def _check_tensors(name, valid=_FLOATS, **tensors):
    """Each is a Tensor of one of `valid` dtypes; the float ones share a dtype."""
    for arg, value in tensors.items():
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{name}', the input '{arg}' must be a Tensor, but got {type(value).__name__}.")
        if value.dtype not in valid:
            raise TypeError(f"For '{name}', the dtype of '{arg}' must be in {[str(d) for d in valid]}, but got "
                            f"{value.dtype}.")
    dtypes = {str(v.dtype) for v in tensors.values()}
    if len(dtypes) > 1:
        raise TypeError(f"For '{name}', the inputs {list(tensors)} must have the same dtype, but got "
                        f"{[str(v.dtype) for v in tensors.values()]}.")


def _check_eq(name, arg_name, arg_value, value_name, value):
    if arg_value != value:
        raise ValueError(f"For '{name}', the '{arg_name}' should be = {value_name}: {value}, but got {arg_value}.")


def _check_step(name, global_step):
    _check_tensors(name, (mstype.int32,), global_step=global_step)
    if global_step.ndim != 1:
        raise ValueError(f"For '{name}', the 'global step shape len' must be = 1, but got {global_step.ndim}.")


def _check_channel_vectors(name, channels, **vectors):
    """Per-channel inputs: all of one shape, whose first dimension is the channel count."""
    first, *rest = vectors.items()
    for arg, value in rest:
        _check_eq(name, f"{first[0]} shape", first[1].shape, f"{arg} shape", value.shape)
    _check_eq(name, f"{first[0]}_shape[0]", first[1].shape[0], "input channel", channels)


def _active(global_step, freeze_bn):
    """Whether the batch statistics are still in use: ``global_step[0] < freeze_bn`` (a boolean Tensor)."""
    return global_step[0] < freeze_bn


def _stats_axes(x):
    return (0,) + tuple(range(2, x.ndim))


def _batch_mean_std(x, epsilon):
    """The per-channel (axis 1) mean, biased variance and ``sqrt(variance + epsilon)`` of `x`."""
    axes = _stats_axes(x)
    mean = x.mean(axis=axes)
    centred = x - channel_view(mean, x.ndim, 1)
    var = (centred * centred).mean(axis=axes)
    return mean, var, ops.sqrt(var + epsilon)


def _straight_through(value, *terms):
    """`value`, differentiating as the sum of `terms` (each ``(expression, coefficient)``, coefficient constant)."""
    out = ops.stop_gradient(value)
    for expression, coefficient in terms:
        out = out + (expression - ops.stop_gradient(expression)) * coefficient
    return out


# ------------------------------------------------------------------ learned-scale (LSQ) fake quantization
def _lsq_parts(x, alpha, quant_max, neg_trunc, axis):
    """(quantized, inside, alpha coefficient) of the kernels: ``r = x / alpha`` clamped and rounded."""
    alpha = ops.stop_gradient(channel_view(alpha, x.ndim, axis))
    quant_max = ops.stop_gradient(quant_max.reshape(-1)[0:1])
    ratio = x / alpha
    lower = 0.0 if neg_trunc else -1.0
    q = ops.floor(ops.clamp(ratio, lower, 1.0) * quant_max + 0.5) / quant_max
    inside = ops.logical_and(ratio >= lower, ratio <= 1.0)
    coefficient = ops.where(ratio > 1.0, ops.ones_like(ratio),
                            ops.where(ratio < lower, -ops.ones_like(ratio), q - ratio))
    return q, alpha, inside.astype(x.dtype), ops.stop_gradient(coefficient)


def _lsq(x, alpha, quant_max, neg_trunc, axis):
    q, alpha_view, inside, coefficient = _lsq_parts(x, alpha, quant_max, neg_trunc, axis)
    alpha_grad = channel_view(alpha, x.ndim, axis)
    return _straight_through(q * alpha_view, (x, inside), (alpha_grad, coefficient))


def _lsq_grad(dout, x, alpha, quant_max, neg_trunc, axis):
    _, _, inside, coefficient = _lsq_parts(x, alpha, quant_max, neg_trunc, axis)
    d_alpha = dout * coefficient
    if axis is None:
        d_alpha = d_alpha.sum().reshape(alpha.shape)
    else:
        d_alpha = ops.moveaxis(d_alpha, axis, 0).reshape((x.shape[axis], -1)).sum(axis=1).reshape(alpha.shape)
    return dout * inside, d_alpha


class _LearnedScale(Primitive):
    _channel = False

    def __init__(self, quant_delay=0, neg_trunc=False, training=True, channel_axis=1):
        super().__init__(type(self).__name__)
        self.quant_delay = validator.check_non_negative_int(quant_delay, "quant_delay", self.name)
        self.neg_trunc = validator.check_value_type("neg_trunc", neg_trunc, (bool,), self.name)
        self.training = validator.check_value_type("training", training, (bool,), self.name)
        self.attrs.update(quant_delay=quant_delay, neg_trunc=neg_trunc, training=training)
        if self._channel:
            self.channel_axis = validator.check_non_negative_int(channel_axis, "channel_axis", self.name)
            self.attrs["channel_axis"] = channel_axis
        self.global_step = 0
        self.init_prim_io_names(inputs=["input_x", "alpha", "quant_max"], outputs=["out"])

    def _axis(self, x, alpha, quant_max):
        _check_tensors(self.name, input_x=x, alpha=alpha, quant_max=quant_max)
        for arg, value in (("input_x", x), ("alpha", alpha), ("quant_max", quant_max)):
            if value.ndim < 1:
                raise ValueError(f"For '{self.name}', the '{arg} rank' should be >= 1, but got {value.ndim}.")
        if not self._channel:
            return None
        axis = 0 if x.ndim == 1 else self.channel_axis
        if axis >= x.ndim:
            raise ValueError(f"For '{self.name}', 'channel_axis' {axis} is out of range for 'input_x' of rank "
                             f"{x.ndim}.")
        _check_eq(self.name, "alpha rank", alpha.shape[0], "input_x channels", x.shape[axis])
        return axis

    def _delayed(self):
        """Counts a training call; whether it falls within `quant_delay` (the input then passes unchanged)."""
        step, self.global_step = self.global_step, self.global_step + 1
        return step < self.quant_delay


class FakeLearnedScaleQuantPerLayer(_LearnedScale):
    r"""Learned-step-size fake quantization (LSQ): ``round(clamp(x / alpha, -1, 1) * quant_max) / quant_max * alpha``
    (the clamp at 0 instead of -1 with `neg_trunc`); `alpha` ([1]) learns from the gradient (module docstring).

    Args:
        quant_delay (int): training calls during which `input_x` passes unchanged. Default: ``0``.
        neg_trunc (bool): truncate negative values (unsigned range). Default: ``False``.
        training (bool): count calls for `quant_delay`. Default: ``True``.

    Inputs: input_x (Tensor), alpha (Tensor [1]), quant_max (Tensor [1]). Outputs: Tensor like input_x.

    >>> import numpy as np, mindseed as ms
    >>> from mindseed.ops.operations._quant_ops import FakeLearnedScaleQuantPerLayer
    >>> x = ms.Tensor(np.array([0.1, -0.52, 7.0], np.float32))
    >>> op = FakeLearnedScaleQuantPerLayer()
    >>> op(x, ms.Tensor([1.0]), ms.Tensor([4.0])).asnumpy().tolist()
    [0.0, -0.5, 1.0]
    """

    def __init__(self, quant_delay=0, neg_trunc=False, training=True):
        super().__init__(quant_delay, neg_trunc, training)

    def __call__(self, input_x, alpha, quant_max):
        axis = self._axis(input_x, alpha, quant_max)
        if self.training and self._delayed():
            return input_x
        return _lsq(input_x, alpha, quant_max, self.neg_trunc, axis)


class FakeLearnedScaleQuantPerChannel(FakeLearnedScaleQuantPerLayer):
    r"""`FakeLearnedScaleQuantPerLayer` with one `alpha` per channel along `channel_axis` (axis 0 for a 1-D input).

    Args:
        as FakeLearnedScaleQuantPerLayer, and channel_axis (int): the channel axis. Default: ``1``.
    """
    _channel = True

    def __init__(self, quant_delay=0, neg_trunc=False, training=True, channel_axis=1):
        _LearnedScale.__init__(self, quant_delay, neg_trunc, training, channel_axis)


class FakeLearnedScaleQuantPerLayerGrad(_LearnedScale):
    r"""The gradient of `FakeLearnedScaleQuantPerLayer`: ``(dout, x, alpha, quant_max) -> (dx, dalpha)``; during
    the first `quant_delay` calls ``(dout, 0)``.

    Args:
        quant_delay (int): Default: ``0``. neg_trunc (bool): Default: ``False``.
    """

    def __init__(self, quant_delay=0, neg_trunc=False):
        super().__init__(quant_delay, neg_trunc)
        del self.attrs["training"]
        self.init_prim_io_names(inputs=["dout", "x", "alpha", "quant_max"], outputs=["dx", "dalpha"])

    def __call__(self, dout, x, alpha, quant_max):
        axis = self._axis(x, alpha, quant_max)
        _check_tensors(self.name, dout=dout, x=x)
        _check_eq(self.name, "dout shape", dout.shape, "x_shape", x.shape)
        if self._delayed():
            return dout, ops.zeros_like(alpha)
        return _lsq_grad(dout, x, alpha, quant_max, self.neg_trunc, axis)


class FakeLearnedScaleQuantPerChannelGrad(FakeLearnedScaleQuantPerLayerGrad):
    r"""The gradient of `FakeLearnedScaleQuantPerChannel`: `dalpha` per channel along `channel_axis`.

    Args:
        quant_delay (int): Default: ``0``. neg_trunc (bool): Default: ``False``. channel_axis (int): Default: ``1``.
    """
    _channel = True

    def __init__(self, quant_delay=0, neg_trunc=False, channel_axis=1):
        _LearnedScale.__init__(self, quant_delay, neg_trunc, True, channel_axis)
        del self.attrs["training"]
        self.init_prim_io_names(inputs=["dout", "x", "alpha", "quant_max"], outputs=["dx", "dalpha"])


# ------------------------------------------------------------------ batch-norm folding
class _FreezeBn(Primitive):
    def _init_freeze(self, freeze_bn):
        self.freeze_bn = validator.check_value_type("freeze_bn", freeze_bn, (int,), self.name)
        self.attrs["freeze_bn"] = freeze_bn


class BatchNormFold(_FreezeBn):
    r"""The batch statistics of a folded batch norm, and the moving ones (see the module docstring).

    Args:
        momentum (float): weight of the moving statistics in their update, in [0, 1]. Default: ``0.9``.
        epsilon (float): added to the variances. Default: ``1e-5``.
        is_training (bool): use and update the batch statistics. Default: ``True``.
        freeze_bn (int): the global step from which the batch statistics are no longer used. Default: ``0``.

    Inputs: x (Tensor (N, C, ...)), mean (Parameter (C,)), variance (Parameter (C,)), global_step (int32 (1,)).
    Outputs: (batch_mean, batch_std, running_mean, running_std), each (C,).
    """

    def __init__(self, momentum=0.9, epsilon=1e-5, is_training=True, freeze_bn=0):
        super().__init__("BatchNormFold")
        self.momentum = validator.check_float_range(momentum, 0, 1, validator.INC_BOTH, "momentum", self.name)
        self.epsilon = validator.check_positive_float(epsilon, "epsilon", self.name)
        self.is_training = validator.check_value_type("is_training", is_training, (bool,), self.name)
        self.attrs.update(momentum=momentum, epsilon=epsilon, is_training=is_training)
        self._init_freeze(freeze_bn)
        self.init_prim_io_names(inputs=["x", "mean", "variance", "global_step"],
                                outputs=["batch_mean", "batch_std", "running_mean", "running_std"])

    def __call__(self, x, mean, variance, global_step):
        _check_tensors(self.name, x=x, mean=mean, variance=variance)
        _check_step(self.name, global_step)
        if x.ndim < 2:
            raise ValueError(f"For '{self.name}', 'x' must have a channel axis (rank >= 2), but got {x.shape}.")
        _check_channel_vectors(self.name, x.shape[1], mean=mean, variance=variance)
        running_mean = ops.stop_gradient(mean * 1)      # the moving statistics before this call's update
        running_std = ops.stop_gradient(ops.sqrt(variance + self.epsilon))
        if not self.is_training:
            return ops.zeros_like(mean), ops.ones_like(variance), running_mean, running_std
        active = _active(global_step, self.freeze_bn)
        batch_mean, batch_var, batch_std = _batch_mean_std(x, self.epsilon)
        count = x.size // x.shape[1]
        unbiased = ops.stop_gradient(batch_var) * (count / max(count - 1, 1))
        new_mean = self.momentum * mean + (1 - self.momentum) * ops.stop_gradient(batch_mean)
        new_var = self.momentum * variance + (1 - self.momentum) * unbiased
        ops.assign(mean, ops.where(active, new_mean, mean))
        ops.assign(variance, ops.where(active, new_var, variance))
        return (ops.where(active, batch_mean, ops.zeros_like(batch_mean)),
                ops.where(active, batch_std, ops.ones_like(batch_std)), running_mean, running_std)


class BatchNormFoldGrad(_FreezeBn):
    r"""The gradient of `BatchNormFold` for `x`: ``(d_batch_mean + d_batch_std * (x - batch_mean) / batch_std) / M``
    per channel (M the elements of a channel), zero when not training or from `freeze_bn` steps on.

    Args:
        epsilon (float): Default: ``1e-5``. is_training (bool): Default: ``True``. freeze_bn (int): Default: ``0``.
    """

    def __init__(self, epsilon=1e-5, is_training=True, freeze_bn=0):
        super().__init__("BatchNormFoldGrad")
        self.epsilon = validator.check_positive_float(epsilon, "epsilon", self.name)
        self.is_training = validator.check_value_type("is_training", is_training, (bool,), self.name)
        self.attrs.update(epsilon=epsilon, is_training=is_training)
        self._init_freeze(freeze_bn)
        self.init_prim_io_names(inputs=["d_batch_mean", "d_batch_std", "x", "batch_mean", "batch_std", "global_step"],
                                outputs=["dx"])

    def __call__(self, d_batch_mean, d_batch_std, x, batch_mean, batch_std, global_step):
        _check_tensors(self.name, input=x, d_batch_mean=d_batch_mean, d_batch_std=d_batch_std,
                       batch_mean=batch_mean, batch_std=batch_std)
        _check_step(self.name, global_step)
        _check_channel_vectors(self.name, x.shape[1], d_batch_mean=d_batch_mean, d_batch_std=d_batch_std,
                               batch_mean=batch_mean, batch_std=batch_std)
        if not self.is_training:
            return ops.zeros_like(x)
        view = lambda v: channel_view(v, x.ndim, 1)  # noqa: E731
        dx = (view(d_batch_mean) + view(d_batch_std) * (x - view(batch_mean)) / view(batch_std)) / (
            x.size // x.shape[1])
        return ops.where(_active(global_step, self.freeze_bn), dx, ops.zeros_like(dx))


class _Correction(Primitive):
    def __init__(self, name, channel_axis):
        super().__init__(name)
        self.channel_axis = validator.check_non_negative_int(channel_axis, "channel_axis", self.name)
        self.attrs["channel_axis"] = channel_axis

    def _axis(self, x):
        if self.channel_axis >= x.ndim:
            raise ValueError(f"For '{self.name}', 'channel_axis' {self.channel_axis} is out of range for an input "
                             f"of rank {x.ndim}.")
        return self.channel_axis


class CorrectionMul(_Correction):
    r"""``x * batch_std / running_std`` per channel along `channel_axis`: scales folded weights to the moving
    statistics. Gradient: for `x` ``dout * batch_std / running_std``, for `batch_std` the per-channel sum of
    ``dout * x / running_std``, none for `running_std`.

    Args:
        channel_axis (int): the channel axis of `x`. Default: ``0``.
    """

    def __init__(self, channel_axis=0):
        super().__init__("CorrectionMul", channel_axis)
        self.init_prim_io_names(inputs=["x", "batch_std", "running_std"], outputs=["out"])

    def __call__(self, x, batch_std, running_std):
        _check_tensors(self.name, x=x, batch_std=batch_std, running_std=running_std)
        axis = self._axis(x)
        _check_eq(self.name, "batch_std shape", batch_std.shape, "running_std shape", running_std.shape)
        _check_eq(self.name, "batch_std_shape[0]", batch_std.shape[0], "x_shape channel size", x.shape[axis])
        return x * channel_view(batch_std / ops.stop_gradient(running_std), x.ndim, axis)


class CorrectionMulGrad(_Correction):
    r"""The gradient of `CorrectionMul`: ``(dout, x, gamma, running_std) -> (dx, d_gamma)``, `gamma` being the
    `batch_std` input.

    Args:
        channel_axis (int): Default: ``0``.
    """

    def __init__(self, channel_axis=0):
        super().__init__("CorrectionMulGrad", channel_axis)
        self.init_prim_io_names(inputs=["dout", "x", "gamma", "running_std"], outputs=["dx", "mul_dx"])

    def __call__(self, dout, x, gamma, running_std):
        _check_tensors(self.name, dout=dout, x=x, gamma=gamma, running_std=running_std)
        axis = self._axis(x)
        _check_eq(self.name, "dout shape", dout.shape, "x_shape x", x.shape)
        for arg, value in (("gamma", gamma), ("running_std", running_std)):
            _check_eq(self.name, f"{arg}_shape[0]", value.shape[0], "dout channel size", dout.shape[axis])
        view = lambda v: channel_view(v, x.ndim, axis)  # noqa: E731
        return dout * view(gamma / running_std), _channel_sum(dout * x, axis) / running_std


def _channel_sum(value, axis):
    return value.sum(axis=tuple(a for a in range(value.ndim) if a != axis))


class CorrectionMulGradReduce(_Correction):
    r"""The per-channel sum (along `channel_axis`) of ``mul_dx``: the `d_gamma` of `CorrectionMul` from its
    element-wise form.

    Args:
        channel_axis (int): Default: ``0``.
    """

    def __init__(self, channel_axis=0):
        super().__init__("CorrectionMulGradReduce", channel_axis)
        self.init_prim_io_names(inputs=["mul_dx"], outputs=["d_gamma"])

    def __call__(self, mul_dx):
        _check_tensors(self.name, mul_dx=mul_dx)
        return _channel_sum(mul_dx, self._axis(mul_dx))


def _fold2_inputs(name, x, freeze, **vectors):
    _check_tensors(name, x=x, **vectors)
    _check_step(name, freeze)
    if x.ndim < 2:
        raise ValueError(f"For '{name}', 'x' must have a channel axis (rank >= 2), but got {x.shape}.")
    _check_channel_vectors(name, x.shape[1], **vectors)
    return lambda v: channel_view(v, x.ndim, 1)


class BatchNormFold2(_FreezeBn):
    r"""Applies the folded batch norm's correction to a convolution's output (see the module docstring).

    Args:
        freeze_bn (int): the global step from which the moving statistics are used. Default: ``0``.

    Inputs: x (N, C, ...), beta, gamma, batch_std, batch_mean, running_std, running_mean (C,), global_step (1,).
    """

    def __init__(self, freeze_bn=0):
        super().__init__("BatchNormFold2")
        self._init_freeze(freeze_bn)
        self.init_prim_io_names(inputs=["x", "beta", "gamma", "batch_std", "batch_mean", "running_std",
                                        "running_mean", "global_step"], outputs=["y"])

    def __call__(self, x, beta, gamma, batch_std, batch_mean, running_std, running_mean, global_step):
        view = _fold2_inputs(self.name, x, global_step, batch_std=batch_std, running_std=running_std,
                             batch_mean=batch_mean, beta=beta, running_mean=running_mean, gamma=gamma)
        running_std, running_mean = ops.stop_gradient(running_std), ops.stop_gradient(running_mean)
        batch = x * view(running_std / batch_std) + view(beta - gamma * batch_mean / batch_std)
        frozen = x + view(beta - gamma * running_mean / running_std)
        return ops.where(_active(global_step, self.freeze_bn), batch, frozen)


class BatchNormFold2Grad(_FreezeBn):
    r"""The gradient of `BatchNormFold2`: ``(dout, x, gamma, batch_std, batch_mean, running_std, running_mean,
    global_step) -> (d_batch_std, d_batch_mean, d_beta, d_gamma, dx)``.

    Args:
        freeze_bn (int): Default: ``0``.
    """

    def __init__(self, freeze_bn=0):
        super().__init__("BatchNormFold2Grad")
        self._init_freeze(freeze_bn)
        self.init_prim_io_names(inputs=["dout", "x", "gamma", "batch_std", "batch_mean", "running_std",
                                        "running_mean", "global_step"],
                                outputs=["d_batch_std", "d_batch_mean", "d_beta", "d_gamma", "dx"])

    def __call__(self, dout, x, gamma, batch_std, batch_mean, running_std, running_mean, global_step):
        view = _fold2_inputs(self.name, dout, global_step, batch_std=batch_std, batch_mean=batch_mean,
                             running_std=running_std, running_mean=running_mean, gamma=gamma)
        _check_eq(self.name, "dout shape", dout.shape, "x shape", x.shape)
        d_beta, reduce_x = _channel_sum(dout, 1), _channel_sum(dout * x, 1)
        active = _active(global_step, self.freeze_bn)
        zeros = ops.zeros_like(d_beta)
        d_gamma = ops.where(active, -d_beta * batch_mean / batch_std, -d_beta * running_mean / running_std)
        d_batch_mean = ops.where(active, -d_beta * gamma / batch_std, zeros)
        d_batch_std = ops.where(active, (d_beta * gamma * batch_mean - reduce_x * running_std) / batch_std / batch_std,
                                zeros)
        dx = ops.where(active, dout * view(running_std / batch_std), dout)
        return d_batch_std, d_batch_mean, d_beta, d_gamma, dx
