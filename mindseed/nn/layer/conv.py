"""Convolution layers: Conv1d/2d/3d and their transposes, with MindSpore's pad modes and weight layouts.

Conv1d keeps MindSpore's 4-D weight (out, in/group, 1, k) so checkpoints line up; it runs as a 2-D
convolution over a height-1 image. A transposed convolution is the input gradient of a convolution whose
input has the output's size (MindSpore's Conv2DBackpropInput), which gives every pad mode exactly.
"""
import math

from mindseed.common import dtype as mstype
from mindseed.common.initializer import HeUniform, Uniform, _calculate_fan_in_and_fan_out, initializer
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer._utils import check_bool, check_positive_int, layer_primitive, tuple_n
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P
from mindseed.ops._prims.conv import conv_backprop_input_p, conv_p
from mindseed.ops.operations import Conv2D, Conv3D
from mindseed.ops.operations._conv import check_depth_dilation

__all__ = ["Conv2d", "Conv2dTranspose", "Conv1d", "Conv1dTranspose", "Conv3d", "Conv3dTranspose"]

_PAD_MODES = ("valid", "same", "pad")


def same_pads(sizes, kernel, stride, dilation):
    """MindSpore/TF 'same' padding (lo, hi, ...) per spatial size: output = ceil(size / stride)."""
    pads = []
    for n, k, s, d in zip(sizes, kernel, stride, dilation):
        total = max((-(-n // s) - 1) * s + d * (k - 1) + 1 - n, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def _explicit_pads(cls, padding, nd):
    """Conv padding (int or 2*nd-tuple in MindSpore's (lo0, hi0, lo1, hi1, ...) order) -> flat pads."""
    if isinstance(padding, bool) or not isinstance(padding, (int, tuple)):
        raise TypeError(f"For '{cls}', the type of 'padding' must be int or tuple(int), but got "
                        f"{type(padding).__name__}.")
    if isinstance(padding, int):
        if padding < 0:
            raise ValueError(f"For '{cls}', the 'padding' must be a non-negative int, but got {padding}.")
        return (padding,) * (2 * nd)
    if len(padding) != 2 * nd:
        raise ValueError(f"For '{cls}', the length of 'padding' must be {2 * nd}, but got {len(padding)}.")
    return non_negative_ints(cls, padding, "the 'padding item' must be a non-negative int")


def non_negative_ints(cls, padding, rule):
    """`padding` as a tuple once every item is a non-negative int (ValueError `For '{cls}', {rule}, ...` if not)."""
    for p in padding:
        if isinstance(p, bool) or not isinstance(p, int) or p < 0:
            raise ValueError(f"For '{cls}', {rule}, but got {padding}.")
    return tuple(padding)


# MindSpore's own words, class by class, for channels a `group` does not divide (the others say which one)
_GROUP_RULE = {
    **dict.fromkeys(("Conv1d", "Conv2d"), "The argument 'group' should be divisible by 'in_channels' and "
                    "'out_channels', but got group:{group}, in_channels:{in_channels}, out_channels:{out_channels}."),
    **dict.fromkeys(("Conv3d", "Conv3dTranspose"), "The argument 'group' should be divisible by 'in_channels' and "
                    "'out_channels'")}


class _Conv(Cell):
    """Shared construction of the convolution layers (weight/bias shapes, inits, checks, repr)."""

    def __init__(self, cls, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                 has_bias, weight_init, bias_init, data_format="NCHW", transposed=False, dtype=mstype.float32):
        super().__init__()
        self.in_channels = check_positive_int(cls, "in_channels", in_channels)
        self.out_channels = check_positive_int(cls, "out_channels", out_channels)
        self.kernel_size = kernel_size
        self.stride = stride
        if not isinstance(pad_mode, str) or pad_mode.lower() not in _PAD_MODES:
            raise ValueError(f"For '{cls}', the 'pad_mode' must be in ['valid', 'same', 'pad'], but got {pad_mode}.")
        self.pad_mode = pad_mode
        if data_format not in ("NCHW", "NCDHW"):
            raise ValueError(f"For '{cls}', the \"NHWC\" format only support in GPU target, but got the 'format' is "
                             f"{data_format} and the platform is CPU.")
        self.data_format = data_format
        self.padding = padding
        self.dilation = dilation
        self.group = check_positive_int(cls, "group", group)
        self.has_bias = check_bool(cls, "has_bias", has_bias)
        if cls in _GROUP_RULE and (in_channels % group or out_channels % group):
            raise ValueError(_GROUP_RULE[cls].format(group=group, in_channels=in_channels, out_channels=out_channels))
        if in_channels % group != 0:
            raise ValueError(f"For '{cls}', the attr 'in_channels' must be divisible by attr 'group', but got "
                             f"'in_channels': {in_channels} and 'group': {group}.")
        if out_channels % group != 0:
            raise ValueError(f"For '{cls}', the 'out_channels' must be divisible by attr 'group', but got "
                             f"'out_channels': {out_channels} and 'group': {group}.")
        if transposed:
            shape = [in_channels, out_channels // group, *kernel_size]
        else:
            shape = [out_channels, in_channels // group, *kernel_size]
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != tuple(shape):
            raise ValueError(f"For '{cls}', the shape of 'weight_init' must be {tuple(shape)}, but got "
                             f"{weight_init.shape}.")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight_init = weight_init
        self.weight = Parameter(initializer(weight_init, shape, dtype=dtype), name="weight")
        self.bias_init = bias_init
        if has_bias:
            if bias_init is None:
                fan_in, _ = _calculate_fan_in_and_fan_out(shape)
                bias_init = Uniform(1 / math.sqrt(fan_in)) if fan_in != 0 else "zeros"
                self.bias_init = bias_init
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype=dtype), name="bias")
        else:
            self.bias = None

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}, "
                f"padding={self.padding}, dilation={self.dilation}, group={self.group}, has_bias={self.has_bias}, "
                f"weight_init={self.weight_init}, bias_init={self.bias_init}, format={self.data_format}")


class _ConvForward(_Conv):
    """A forward convolution over `nd` spatial dims with pads fixed at init unless pad_mode is 'same'."""

    def _setup_pads(self, cls, nd, padding):
        mode = self.pad_mode.lower()
        self._nd = nd
        self._same = mode == "same"
        if mode != "pad" and padding != 0 and padding != (0,) * (2 * nd):
            raise ValueError(f"For '{cls}', the 'padding' must be zero when 'pad_mode' is not 'pad', but got "
                             f"padding {padding} and pad_mode {self.pad_mode}.")
        self._pads = _explicit_pads(cls, padding, nd) if mode == "pad" else (0,) * (2 * nd)
        # 'same' pads depend on the input size unless every stride is 1
        if self._same and all(s == 1 for s in self._stride):
            self._pads = same_pads((1,) * nd, self._kernel, self._stride, self._dilation)
            self._same = False

    def _init_nd(self, cls, nd, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation, group,
                 has_bias, weight_init, bias_init, data_format, dtype):
        """The N-d convolution's init: int or tuple kernel/stride/dilation as nd-tuples, then the pads."""
        kernel_size = tuple_n(cls, "kernel_size", kernel_size, nd)
        stride = tuple_n(cls, "stride", stride, nd)
        dilation = tuple_n(cls, "dilation", dilation, nd)
        _Conv.__init__(self, cls, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                       group, has_bias, weight_init, bias_init, data_format, dtype=dtype)
        self._kernel, self._stride, self._dilation = kernel_size, stride, dilation
        self._setup_pads(cls, nd, padding)

    def construct(self, x):
        return self._conv(x)

    def _conv_primitive(self):
        """Conv2D/Conv3D with this layer's settings, called as (x, weight) without the bias, as MindSpore's."""
        prim = Conv3D if self._nd == 3 else Conv2D
        mode = self.pad_mode.lower()
        return prim(self.out_channels, self._kernel, mode=1, pad_mode=mode, pad=self._pads if mode == "pad" else 0,
                    stride=self._stride, dilation=self._dilation, group=self.group)

    def _conv(self, x):
        if x.ndim != self._nd + 2:
            raise ValueError(f"For '{type(self).__name__}', the input must be a {self._nd + 2}D Tensor, but got "
                             f"input of {x.ndim}D.")
        pads = same_pads(x.shape[2:], self._kernel, self._stride, self._dilation) if self._same else self._pads
        return conv_p(x, self.weight, self.bias, stride=self._stride, pads=pads, dilation=self._dilation,
                      groups=self.group)


class Conv2d(_ConvForward):
    """2-D convolution over (N, C_in, H, W).

    Args:
        in_channels (int), out_channels (int), kernel_size (Union[int, tuple[int]]): sizes.
        stride (Union[int, tuple[int]]): Default ``1``.
        pad_mode (str): ``'same'`` (output = ceil(input / stride)), ``'valid'`` or ``'pad'``. Default ``'same'``.
        padding (Union[int, tuple[int]]): with 'pad': an int or (top, bottom, left, right). Default ``0``.
        dilation (Union[int, tuple[int]]): Default ``1``. group (int): Default ``1``.
        has_bias (bool): Default ``False``. weight_init / bias_init: default HeUniform(sqrt(5)) /
            U(+-1/sqrt(fan_in)).

    >>> import mindseed as ms
    >>> ms.nn.Conv2d(1, 4, 3)(ms.ops.ones((2, 1, 8, 8))).shape
    (2, 4, 8, 8)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, data_format="NCHW",
                 dtype=mstype.float32):
        self._init_nd("Conv2d", 2, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                      group, has_bias, weight_init, bias_init, data_format, dtype)

    conv2d = layer_primitive(_ConvForward._conv_primitive)


class Conv3d(_ConvForward):
    """3-D convolution over (N, C_in, D, H, W); padding an int or (head, tail, top, bottom, left, right)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW",
                 dtype=mstype.float32):
        self._init_nd("Conv3d", 3, in_channels, out_channels, kernel_size, stride, pad_mode, padding, dilation,
                      group, has_bias, weight_init, bias_init, data_format, dtype)

    conv3d = layer_primitive(_ConvForward._conv_primitive)


def _check_1d_args(cls, kernel_size, stride, padding, dilation):
    for name, v, low in (("kernel_size", kernel_size, 1), ("stride", stride, 1), ("padding", padding, 0),
                         ("dilation", dilation, 1)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"For '{cls}', the '{name}' must be int, but got {type(v).__name__}.")
        if v < low:
            raise ValueError(f"For '{cls}', the '{name}' must be >= {low}, but got {v}.")


def _expand_1d_weight(cls, weight_init):
    if isinstance(weight_init, Tensor):
        if weight_init.ndim != 3:
            raise ValueError(f"For '{cls}', the dimension of 'weight_init' must be 3, but got {weight_init.ndim}.")
        return P.reshape_p(weight_init, shape=weight_init.shape[:2] + (1,) + weight_init.shape[2:])
    return weight_init


class Conv1d(_ConvForward):
    """1-D convolution over (N, C_in, L); the weight is stored (out, in/group, 1, k) as in MindSpore."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, dtype=mstype.float32):
        _check_1d_args("Conv1d", kernel_size, stride, padding, dilation)
        super().__init__("Conv1d", in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode, padding,
                         (1, dilation), group, has_bias, _expand_1d_weight("Conv1d", weight_init), bias_init,
                         dtype=dtype)
        self.padding = (0, 0, padding, padding)
        self._kernel, self._stride, self._dilation = (1, kernel_size), (1, stride), (1, dilation)
        self._setup_pads("Conv1d", 2, self.padding)

    conv2d = layer_primitive(_ConvForward._conv_primitive)      # as MindSpore's Conv1d: a 2-D conv of height 1

    def construct(self, x):
        if x.ndim != 3:
            raise ValueError(f"For 'Conv1d', the input must be a 3D Tensor, but got input of {x.ndim}D.")
        n, c, length = x.shape
        out = self._conv(P.reshape_p(x, shape=(n, c, 1, length)))
        return P.reshape_p(out, shape=(n, out.shape[1], out.shape[3]))


def _deconv_length(mode, n, k, s, d, pad_total):
    ek = d * (k - 1) + 1
    if mode == "valid":
        return n * s + max(ek - s, 0)
    if mode == "same":
        return n * s
    return (n - 1) * s + ek - pad_total


class _ConvTranspose(_Conv):
    """A transposed convolution: the input gradient of a convolution from the output size down to the input."""

    def _setup(self, cls, nd, pads, output_padding):
        self._nd = nd
        self._mode = self.pad_mode.lower()
        self._pads = pads if self._mode == "pad" else (0,) * (2 * nd)
        self._output_padding = output_padding

    def _out_size_and_pads(self, sizes):
        out, pads = [], []
        for i, n in enumerate(sizes):
            lo, hi = self._pads[2 * i], self._pads[2 * i + 1]
            out.append(_deconv_length(self._mode, n, self._kernel[i], self._stride[i], self._dilation[i], lo + hi))
        if self._mode == "same":
            pads = same_pads(out, self._kernel, self._stride, self._dilation)
        else:
            pads = self._pads
        return out, pads

    def _deconv(self, x, extra=None):
        if x.ndim != self._nd + 2:
            raise ValueError(f"For '{type(self).__name__}', the input must be a {self._nd + 2}D Tensor, but got "
                             f"input of {x.ndim}D.")
        if x.shape[1] != self.in_channels:
            raise ValueError(f"For '{type(self).__name__}', the channel of input must be equal to 'in_channels' "
                             f"{self.in_channels}, but got {x.shape[1]}.")
        out, pads = self._out_size_and_pads(x.shape[2:])
        if extra is not None:
            out = [o + e for o, e in zip(out, extra)]
        shape = (x.shape[0], self.out_channels) + tuple(out)
        y = conv_backprop_input_p(x, self.weight, input_shape=shape, stride=self._stride, pads=pads,
                                  dilation=self._dilation, groups=self.group)
        if self.has_bias:
            y = P.add_p(y, P.reshape_p(self.bias, shape=(self.out_channels,) + (1,) * self._nd))
        return y


def _check_output_padding(output_padding, stride, dilation, is_pad):
    for i, op in enumerate(output_padding):
        if op < 0 or op >= max(dilation[i], stride[i]):
            raise ValueError(f"output_padding[{i}] must be in range of [0, max(stride, dilation)).")
        if not is_pad and op > 0:
            raise ValueError("when output_padding is not zero, pad_mode must be 'pad'")


class Conv2dTranspose(_ConvTranspose):
    """2-D transposed convolution; weight (in, out/group, kh, kw).

    Output size: 'same' -> in * stride; 'valid' -> in * stride + max(k_eff - stride, 0);
    'pad' -> (in - 1) * stride + k_eff - pad_total. `output_padding` appends zero rows/columns (MindSpore).
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
                 output_padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=mstype.float32):
        kernel_size = tuple_n("Conv2dTranspose", "kernel_size", kernel_size, 2)
        stride = tuple_n("Conv2dTranspose", "stride", stride, 2)
        dilation = tuple_n("Conv2dTranspose", "dilation", dilation, 2)
        pads = _explicit_pads("Conv2dTranspose", padding, 2)
        if isinstance(output_padding, bool) or not isinstance(output_padding, (int, tuple)):
            raise TypeError(f"For 'Conv2dTranspose', the 'output_padding' must be int or tuple, but got "
                            f"{type(output_padding).__name__}.")
        if isinstance(output_padding, tuple) and len(output_padding) != 2:
            raise ValueError(f"For 'Conv2dTranspose', the length of 'output_padding' must be 2, but got "
                             f"{len(output_padding)}.")
        super().__init__("Conv2dTranspose", in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, transposed=True, dtype=dtype)
        self._kernel, self._stride, self._dilation = kernel_size, stride, dilation
        self.output_padding = output_padding
        op = output_padding if isinstance(output_padding, tuple) else (output_padding,) * 2
        self._setup("Conv2dTranspose", 2, pads, op)

    def construct(self, x):
        y = self._deconv(x)
        op = self._output_padding
        if op[0] == 0 and op[1] == 0:
            return y
        _check_output_padding(op, self._stride, self._dilation, self._mode == "pad")
        return F.pad(y, (0, op[1], 0, op[0]))


class Conv1dTranspose(_ConvTranspose):
    """1-D transposed convolution over (N, C_in, L); weight (in, out/group, 1, k)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init=None, bias_init=None, dtype=mstype.float32):
        _check_1d_args("Conv1dTranspose", kernel_size, stride, padding, dilation)
        super().__init__("Conv1dTranspose", in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode,
                         padding, (1, dilation), group, has_bias, _expand_1d_weight("Conv1dTranspose", weight_init),
                         bias_init, transposed=True, dtype=dtype)
        self.padding = (0, 0, padding, padding)
        self._kernel, self._stride, self._dilation = (1, kernel_size), (1, stride), (1, dilation)
        self._setup("Conv1dTranspose", 2, self.padding, (0, 0))

    def construct(self, x):
        if x.ndim != 3:
            raise ValueError(f"For 'Conv1dTranspose', the dimension of input must be 3d, but got {x.ndim}.")
        n, c, length = x.shape
        y = self._deconv(P.reshape_p(x, shape=(n, c, 1, length)))
        return P.reshape_p(y, shape=(n, y.shape[1], y.shape[3]))


class Conv3dTranspose(_ConvTranspose):
    """3-D transposed convolution over (N, C_in, D, H, W); `output_padding` extends the output (pad mode)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, output_padding=0, has_bias=False, weight_init=None, bias_init=None, data_format="NCDHW",
                 dtype=mstype.float32):
        kernel_size = tuple_n("Conv3dTranspose", "kernel_size", kernel_size, 3)
        stride = tuple_n("Conv3dTranspose", "stride", stride, 3)
        dilation = tuple_n("Conv3dTranspose", "dilation", dilation, 3)
        check_depth_dilation("Conv3DTranspose", dilation)
        pads = _explicit_pads("Conv3dTranspose", padding, 3)
        self_output_padding = tuple_n("Conv3dTranspose", "output_padding", output_padding, 3, allow_zero=True)
        super().__init__("Conv3dTranspose", in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, transposed=True,
                         dtype=dtype)
        self._kernel, self._stride, self._dilation = kernel_size, stride, dilation
        self.output_padding = self_output_padding
        if any(self_output_padding):
            _check_output_padding(self_output_padding, stride, dilation, pad_mode.lower() == "pad")
        self._setup("Conv3dTranspose", 3, pads, self_output_padding)

    def construct(self, x):
        return self._deconv(x, self._output_padding if any(self._output_padding) else None)
