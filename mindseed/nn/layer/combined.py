"""Composite layers: Conv2dBnAct, DenseBnAct and TimeDistributed."""
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer.activation import LeakyReLU, get_activation
from mindseed.nn.layer.basic import Dense
from mindseed.nn.layer.conv import Conv2d
from mindseed.nn.layer.normalization import BatchNorm1d, BatchNorm2d
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P

__all__ = ["Conv2dBnAct", "DenseBnAct", "TimeDistributed"]


def _activation(cls, activation, alpha):
    if activation == "leakyrelu":
        return LeakyReLU(alpha)
    act = get_activation(activation) if isinstance(activation, str) else activation
    if activation is not None and not isinstance(act, Cell) and not callable(act):
        raise TypeError(f"For '{cls}', the 'activation' must be str or Cell or Primitive, but got "
                        f"{type(activation).__name__}.")
    return act


class _BnAct(Cell):
    """The optional batch norm and activation that follow the main layer of Conv2dBnAct / DenseBnAct."""

    def _setup_bn_act(self, cls, bn_cls, out_channels, has_bn, momentum, eps, activation, alpha, after_fake):
        if not isinstance(has_bn, bool) or not isinstance(after_fake, bool):
            raise TypeError(f"For '{cls}', the 'has_bn' and 'after_fake' must be bool.")
        self.has_bn = has_bn
        self.has_act = activation is not None
        self.after_fake = after_fake
        if has_bn:
            self.batchnorm = bn_cls(out_channels, eps, momentum)
        self.activation = _activation(cls, activation, alpha)

    def _bn_act(self, x):
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


class Conv2dBnAct(_BnAct):
    """Conv2d, then optional BatchNorm2d (momentum 0.997), then optional activation."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init="normal", bias_init="zeros", has_bn=False, momentum=0.997,
                 eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, pad_mode=pad_mode,
                           padding=padding, dilation=dilation, group=group, has_bias=has_bias,
                           weight_init=weight_init, bias_init=bias_init)
        self._setup_bn_act("Conv2dBnAct", BatchNorm2d, out_channels, has_bn, momentum, eps, activation, alpha,
                           after_fake)

    def construct(self, x):
        return self._bn_act(self.conv(x))


class DenseBnAct(_BnAct):
    """Dense, then optional BatchNorm1d, then optional activation."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True,
                 has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2, after_fake=True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self._setup_bn_act("DenseBnAct", BatchNorm1d, out_channels, has_bn, momentum, eps, activation, alpha,
                           after_fake)

    def construct(self, x):
        return self._bn_act(self.dense(x))


class TimeDistributed(Cell):
    """Apply `layer` to every time step of a (N, T, ...) input (time axis `time_axis`).

    With `reshape_with_axis` the time axis is merged into that axis for one call of the layer instead of a loop.
    """

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        if not isinstance(layer, Cell) and not callable(layer):
            raise TypeError(f"For 'TimeDistributed', the 'layer' must be Cell or Primitive instance, but got type: "
                            f"{type(layer).__name__}.")
        super().__init__()
        for name, v in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"For 'TimeDistributed', the '{name}' must be int, but got {type(v).__name__}.")
        self.layer = layer
        self.time_axis = time_axis
        self.reshape_with_axis = reshape_with_axis

    def construct(self, inputs):
        if not isinstance(inputs, Tensor):
            raise TypeError("For 'TimeDistributed', the inputs and outputs must be a Tensor.")
        nd = inputs.ndim
        if nd < 3:
            raise ValueError(f"For 'TimeDistributed', the inputs shape must be at least 3D, but got {nd}.")
        time_axis = self.time_axis % nd
        if self.reshape_with_axis is not None:
            return self._merged(inputs, time_axis, self.reshape_with_axis % nd)
        steps = inputs.shape[time_axis]
        outs = []
        for t in range(steps):
            index = (slice(None),) * time_axis + (t,)
            out = self.layer(P.getitem_p(inputs, index=index))
            if not isinstance(out, Tensor):
                raise TypeError("For 'TimeDistributed', the inputs and outputs must be a Tensor.")
            if time_axis > out.ndim:
                raise ValueError(f"For 'TimeDistributed', the value of 'time_axis' must be in range of "
                                 f"[{-out.ndim - 1}, {out.ndim}], but got {time_axis}.")
            outs.append(out)
        return P.stack_p(*outs, axis=time_axis)

    def _merged(self, inputs, time_axis, reshape_axis):
        nd = inputs.ndim
        time_new = nd - 2 if reshape_axis == nd - 1 else (reshape_axis + 1 if time_axis > reshape_axis
                                                          else reshape_axis - 1)
        pos = time_new if time_new < reshape_axis else reshape_axis
        perm = list(range(nd))
        a, b = sorted((time_new, time_axis))
        perm = perm[:a] + [perm[b]] + perm[a:b] + perm[b + 1:]
        x = F.transpose(inputs, tuple(perm))
        shape = x.shape
        x = P.reshape_p(x, shape=shape[:pos] + (-1,) + shape[pos + 2:])
        out = self.layer(x)
        if not isinstance(out, Tensor):
            raise TypeError("For 'TimeDistributed', the inputs and outputs must be a Tensor.")
        if pos >= out.ndim or x.shape[pos] != out.shape[pos]:
            raise ValueError(f"For 'TimeDistributed', the 'reshape_with_axis' is invalid in the input and output. "
                             f"The 'reshape_pos' must be less than the length of 'outputs_shape', and the "
                             f"'inputs_shape[reshape_pos]' must be equal to 'outputs_shape[reshape_pos]', but got "
                             f"'reshape_pos': {pos}, 'inputs_shape': {x.shape}, 'outputs_shape': {out.shape}. You may "
                             f"try pass parameters without 'reshape_with_axis'.")
        new_shape = out.shape[:pos] + shape[pos:pos + 2]
        if pos + 1 < out.ndim:
            new_shape += out.shape[pos + 1:]
        return P.reshape_p(out, shape=(-1,) + new_shape[1:])
