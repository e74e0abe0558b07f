"""mindspore.ops.operations._quant_ops: the quantization-aware-training primitives (simulated quantization).

`MinMaxUpdatePerLayer/PerChannel` track the range of a tensor; `FakeQuantPerLayer/PerChannel` quantize and
dequantize it within that range as MindSpore's kernels do — the range is nudged so that zero is exactly
representable, values are clamped to it and rounded to the nearest of the 2**num_bits levels — with the
straight-through gradient: the incoming gradient where the input lies in the nudged range, zero outside.
`FakeQuantParam` carries the quantization parameters of a converted network and passes its input through.
The learned-scale (LSQ) fake quantization, the batch-norm folding primitives (`BatchNormFold`, `CorrectionMul`,
`BatchNormFold2`) and the gradient primitives of all three families are in `_quant_fold` and re-exported here.
Built from mindseed's ops, they run and differentiate in both execution modes (MindSpore has GPU kernels only).
"""
from mindseed import _checkparam as validator
from mindseed import ops
from mindseed.common.dtype import QuantDtype
from mindseed.common.tensor import Tensor
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations._quant_fold import channel_view

__all__ = ["MinMaxUpdatePerLayer", "MinMaxUpdatePerChannel", "FakeQuantPerLayer", "FakeQuantPerChannel",
           "FakeQuantParam", "FakeLearnedScaleQuantPerLayer", "FakeLearnedScaleQuantPerLayerGrad",
           "FakeLearnedScaleQuantPerChannel", "FakeLearnedScaleQuantPerChannelGrad", "BatchNormFold",
           "BatchNormFoldGrad", "CorrectionMul", "CorrectionMulGrad", "CorrectionMulGradReduce", "BatchNormFold2",
           "BatchNormFold2Grad"]


def _check_ema(name, ema, ema_decay):
    validator.check_value_type("ema", ema, (bool,), name)
    validator.check_float_range(ema_decay, 0, 1, validator.INC_BOTH, "ema_decay", name)
    if ema and not ema_decay:
        raise ValueError(f"For '{name}', the attributes 'ema' and 'ema_decay' must be set together.")


def _check_range_inputs(name, x, min_value, max_value, channels=None):
    for arg, value in (("x", x), ("min", min_value), ("max", max_value)):
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{name}', the input '{arg}' must be a Tensor, but got {type(value).__name__}.")
    if x.ndim < 1:
        raise ValueError(f"For '{name}', the rank of 'x' must be at least 1, but got shape {x.shape}.")
    if min_value.shape != max_value.shape or len(min_value.shape) != 1:
        raise ValueError(f"For '{name}', 'min' and 'max' must be 1-D of the same shape, but got {min_value.shape} "
                         f"and {max_value.shape}.")
    if channels is not None and min_value.shape[0] != channels:
        raise ValueError(f"For '{name}', 'min' and 'max' must have one value per channel ({channels}), but got "
                         f"shape {min_value.shape}.")


def _min_max_update(x, min_value, max_value, ema, ema_decay, axis):
    """The new (min, max): the range of `x` (per channel along `axis`), blended as MindSpore's kernels blend it
    with EMA, and widened to contain 0."""
    x = ops.stop_gradient(x)
    if axis is None:
        x_min, x_max = x.min().reshape((1,)), x.max().reshape((1,))
    else:
        moved = ops.moveaxis(x, axis, 0).reshape((x.shape[axis], -1))
        x_min, x_max = moved.min(axis=1), moved.max(axis=1)
    if ema:
        x_min = ema_decay * x_min + (1 - ema_decay) * min_value
        x_max = ema_decay * x_max + (1 - ema_decay) * max_value
    zero = ops.zeros_like(x_min)
    return ops.minimum(x_min, zero).astype(min_value.dtype), ops.maximum(x_max, zero).astype(max_value.dtype)


def _quant_bounds(num_bits, narrow_range):
    return (1.0 if narrow_range else 0.0), float((1 << num_bits) - 1)


def _nudge(min_value, max_value, quant_min, quant_max, symmetric):
    """(nudged min, nudged max, scale): the range moved so that 0 falls on a quantization level."""
    if symmetric:
        use_max = ops.abs(min_value) < max_value
        min_value, max_value = ops.where(use_max, -max_value, min_value), ops.where(use_max, max_value, -min_value)
    scale = (max_value - min_value) / (quant_max - quant_min)
    safe = ops.where(scale == 0, ops.ones_like(scale), scale)
    zp_from_min = ops.where(scale == 0, ops.zeros_like(scale), quant_min - min_value / safe)
    rounded = ops.sign(zp_from_min) * ops.floor(ops.abs(zp_from_min) + 0.5)
    nudge_zp = ops.clamp(rounded, quant_min, quant_max)
    return (quant_min - nudge_zp) * scale, (quant_max - nudge_zp) * scale, scale


def _fake_quant(x, min_value, max_value, num_bits, symmetric, narrow_range, axis):
    quant_min, quant_max = _quant_bounds(num_bits, narrow_range)
    nudge_min, nudge_max, scale = _nudge(ops.stop_gradient(min_value), ops.stop_gradient(max_value), quant_min,
                                         quant_max, symmetric)
    nudge_min, nudge_max, scale = (channel_view(v, x.ndim, axis) for v in (nudge_min, nudge_max, scale))
    inside = ops.logical_and(x >= nudge_min, x <= nudge_max).astype(x.dtype)
    clamped = ops.minimum(ops.maximum(x, nudge_min), nudge_max)
    safe = ops.where(scale == 0, ops.ones_like(scale), scale)
    quantized = ops.floor((clamped - nudge_min) / safe + 0.5) * scale + nudge_min
    passed = x * inside
    return passed + ops.stop_gradient(quantized - passed)


class _MinMaxUpdate(Primitive):
    _channel = False

    def __init__(self, ema=False, ema_decay=0.999, channel_axis=1):
        super().__init__(type(self).__name__)
        _check_ema(self.name, ema, ema_decay)
        self.ema, self.ema_decay = ema, float(ema_decay)
        self.attrs.update(ema=ema, ema_decay=ema_decay)
        if self._channel:
            self.channel_axis = validator.check_non_negative_int(channel_axis, "channel_axis", self.name)
            self.attrs["channel_axis"] = channel_axis
        self.init_prim_io_names(inputs=["x", "min", "max"], outputs=["min_up", "max_up"])

    def _axis(self, x):
        if not self._channel:
            return None
        if self.channel_axis >= x.ndim:
            raise ValueError(f"For '{self.name}', 'channel_axis' {self.channel_axis} is out of range for 'x' of rank "
                             f"{x.ndim}.")
        return self.channel_axis

    def __call__(self, x, min_value, max_value):
        axis = self._axis(x) if isinstance(x, Tensor) else None
        _check_range_inputs(self.name, x, min_value, max_value, None if axis is None else x.shape[axis])
        return _min_max_update(x, min_value, max_value, self.ema, self.ema_decay, axis)


class MinMaxUpdatePerLayer(_MinMaxUpdate):
    r"""Updates the range of a tensor: outputs (min, max) of `x` as shape-[1] tensors, with EMA
    ``decay * current + (1 - decay) * previous`` when `ema`; the range always contains 0.

    Args:
        ema (bool): blend with the previous range. Default: ``False``.
        ema_decay (float): the blending factor, in [0, 1]. Default: ``0.999``.

    Inputs: x (Tensor), min (Tensor [1]), max (Tensor [1]). Outputs: (min_up, max_up).
    """

    def __init__(self, ema=False, ema_decay=0.999):
        super().__init__(ema, ema_decay)


class MinMaxUpdatePerChannel(_MinMaxUpdate):
    r"""Updates the range of each channel (along `channel_axis`) of a tensor: as `MinMaxUpdatePerLayer`, per
    channel; min and max have one value per channel.

    Args:
        ema (bool): blend with the previous range. Default: ``False``.
        ema_decay (float): the blending factor, in [0, 1]. Default: ``0.999``.
        channel_axis (int): the channel axis of `x`. Default: ``1``.
    """
    _channel = True


class _FakeQuant(Primitive):
    _channel = False

    def __init__(self, num_bits=8, ema=False, ema_decay=0.999, quant_delay=0, symmetric=False, narrow_range=False,
                 training=True, channel_axis=1):
        super().__init__(type(self).__name__)
        if num_bits not in (4, 7, 8):
            raise ValueError(f"For '{self.name}', 'num_bits' must be one of [4, 7, 8], but got {num_bits}.")
        _check_ema(self.name, ema, ema_decay)
        self.num_bits = num_bits
        self.ema, self.ema_decay = ema, ema_decay
        self.quant_delay = validator.check_non_negative_int(quant_delay, "quant_delay", self.name)
        self.symmetric = validator.check_value_type("symmetric", symmetric, (bool,), self.name)
        self.narrow_range = validator.check_value_type("narrow_range", narrow_range, (bool,), self.name)
        self.training = validator.check_value_type("training", training, (bool,), self.name)
        self.attrs.update(num_bits=num_bits, ema=ema, ema_decay=ema_decay, quant_delay=quant_delay,
                          symmetric=symmetric, narrow_range=narrow_range, training=training)
        if self._channel:
            self.channel_axis = validator.check_non_negative_int(channel_axis, "channel_axis", self.name)
            self.attrs["channel_axis"] = channel_axis
        self.global_step = 0
        self.init_prim_io_names(inputs=["x", "min", "max"], outputs=["out"])

    def __call__(self, x, min_value, max_value):
        axis = None
        if self._channel:
            if not isinstance(x, Tensor) or self.channel_axis >= x.ndim:
                raise ValueError(f"For '{self.name}', 'channel_axis' {self.channel_axis} is out of range for 'x' "
                                 f"of shape {getattr(x, 'shape', None)}.")
            axis = self.channel_axis
        _check_range_inputs(self.name, x, min_value, max_value, None if axis is None else x.shape[axis])
        if self.training:
            step, self.global_step = self.global_step, self.global_step + 1
            if step < self.quant_delay:     # before the delay the input passes unchanged
                return x
        return _fake_quant(x, min_value, max_value, self.num_bits, self.symmetric, self.narrow_range, axis)


class FakeQuantPerLayer(_FakeQuant):
    r"""Simulates quantization of a tensor in training: quantize-dequantize `x` within the nudged [min, max]
    (shape [1]) on 2**num_bits levels; the gradient passes where `x` lies in the nudged range.

    Args:
        num_bits (int): 4, 7 or 8. Default: ``8``.
        ema (bool), ema_decay (float): kept as attributes (the range comes from the inputs).
        quant_delay (int): training steps during which `x` passes unchanged. Default: ``0``.
        symmetric (bool): a range symmetric about 0. Default: ``False``.
        narrow_range (bool): leave out the lowest level. Default: ``False``.
        training (bool): count steps for `quant_delay`. Default: ``True``.

    >>> import numpy as np, mindseed as ms
    >>> from mindseed.ops.operations._quant_ops import FakeQuantPerLayer
    >>> x = ms.Tensor(np.array([0.1, 0.5, 2.0]), ms.float32)
    >>> FakeQuantPerLayer()(x, ms.Tensor([0.0]), ms.Tensor([1.0])).asnumpy().round(4).tolist()
    [0.098, 0.498, 1.0]
    """

    def __init__(self, num_bits=8, ema=False, ema_decay=0.999, quant_delay=0, symmetric=False, narrow_range=False,
                 training=True):
        super().__init__(num_bits, ema, ema_decay, quant_delay, symmetric, narrow_range, training)


class FakeQuantPerChannel(_FakeQuant):
    r"""`FakeQuantPerLayer` per channel along `channel_axis`: min and max have one value per channel.

    Args:
        as FakeQuantPerLayer, and channel_axis (int): the channel axis of `x`. Default: ``1``.
    """
    _channel = True


class FakeQuantParam(Primitive):
    r"""Carries quantization parameters (as attributes) through a network; its output is its input.

    Args:
        quant_dtype (QuantDtype): the quantized data type.
        quant_algo_name (str): the algorithm; `FakeQuantParam.attr_value_linear_quant_algo_name` for linear
            quantization.
        is_per_channel (bool): parameters per channel or per layer.
        kwargs: further parameters (a linear quantization's scale and zero point: `linear_quant_param`).
    """

    attr_key_linear_quant_scale = "linear_quant_scale"
    attr_key_linear_quant_zero_point = "linear_quant_zero_point"
    attr_value_linear_quant_algo_name = "linear_quant_algo"

    def __init__(self, quant_dtype, quant_algo_name, is_per_channel, **kwargs):
        super().__init__("FakeQuantParam")
        validator.check_value_type("quant_dtype", quant_dtype, [QuantDtype], self.name)
        validator.check_value_type("quant_algo_name", quant_algo_name, [str], self.name)
        validator.check_value_type("is_per_channel", is_per_channel, [bool], self.name)
        self.add_prim_attr("quant_algo_name", quant_algo_name)
        self.add_prim_attr("is_per_channel", is_per_channel)
        self.add_prim_attr("quant_dtype", quant_dtype.value())
        for key, value in kwargs.items():
            self.add_prim_attr(key, value)

    @classmethod
    def linear_quant_param(cls, quant_dtype, scale, zp, is_per_channel=False, **kwargs):
        """A FakeQuantParam of linear quantization with `scale` and zero point `zp` (one or per channel)."""
        validator.check_value_type("scale", scale, [float, tuple, list], "FakeQuantParam")
        validator.check_value_type("zero_point", zp, [int, tuple, list], "FakeQuantParam")
        validator.check_value_type("is_per_channel", is_per_channel, [bool], "FakeQuantParam")
        kwargs[cls.attr_key_linear_quant_scale] = [scale] if isinstance(scale, float) else list(scale)
        kwargs[cls.attr_key_linear_quant_zero_point] = [zp] if isinstance(zp, int) else list(zp)
        return cls(quant_dtype, cls.attr_value_linear_quant_algo_name, is_per_channel, **kwargs)

    def __call__(self, x):
        return x


from mindseed.ops.operations._quant_fold import (  # noqa: E402 -- they use this module's helpers
    BatchNormFold, BatchNormFold2, BatchNormFold2Grad, BatchNormFoldGrad, CorrectionMul, CorrectionMulGrad,
    CorrectionMulGradReduce, FakeLearnedScaleQuantPerChannel, FakeLearnedScaleQuantPerChannelGrad,
    FakeLearnedScaleQuantPerLayer, FakeLearnedScaleQuantPerLayerGrad)

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import PrimitiveWithInfer  # noqa: E402,F401
