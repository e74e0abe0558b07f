"""Class API of the convolution family: convolutions, pooling, padding, layout and resizing primitives."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import conv as C
from mindseed.ops._prims import core as P
from mindseed.ops.functional import _conv as F
from mindseed.ops.functional import _pool as FP
from mindseed.ops.functional import _resample as FR
from mindseed.ops.functional._conv_args import check_float, check_rank, int_tuple, pad_pairs, same_pads
from mindseed.ops.operations._base import REQUIRED, Primitive, attr_primitive

__all__ = [
    "Conv2D", "Conv3D", "Conv2DTranspose", "Conv2DBackpropInput", "Conv3DTranspose", "MaxPool", "AvgPool",
    "MaxPoolWithArgmax", "MaxPoolWithArgmaxV2", "MaxPool3D", "MaxPool3DWithArgmax", "AvgPool3D",
    "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "MaxUnpool2D", "MaxUnpool3D",
    "FractionalMaxPoolWithFixedKsize", "Pad", "PadV3", "MirrorPad", "DepthToSpace", "SpaceToDepth", "Im2Col",
    "Col2Im", "ChannelShuffle", "ResizeNearestNeighbor", "ResizeNearestNeighborV2", "ResizeBilinearV2",
    "ResizeBilinear", "ResizeBicubic", "ResizeLinear1D", "UpsampleNearest3D", "UpsampleTrilinear3D", "GridSampler2D",
    "GridSampler3D", "AffineGrid", "ROIAlign",
]


def _spatial(name, attr, v, nd, minimum=1):
    """MindSpore attr forms: an int, nd ints, or nd + 2 ints (the NC[D]HW form, batch/channel entries ignored)."""
    if isinstance(v, (tuple, list)) and len(v) == nd + 2:
        v = tuple(v[2:])
    return int_tuple(name, attr, v, nd, minimum)


def _size_tuple(size):
    if isinstance(size, Tensor):
        return tuple(int(v) for v in size.asnumpy().reshape(-1))
    return tuple(int(v) for v in size)


def _to_nchw(x, data_format):
    return P.transpose_p(x, perm=(0, 3, 1, 2)) if data_format == "NHWC" else x


def _from_nchw(x, data_format):
    return P.transpose_p(x, perm=(0, 2, 3, 1)) if data_format == "NHWC" else x


def _check_format(name, data_format, allowed):
    if data_format not in allowed:
        raise ValueError(f"For '{name}', the 'data_format' must be one of {list(allowed)}, but got '{data_format}'.")


class _Conv(Primitive):
    """Conv2D / Conv3D: x (N, C_in, *sp) with weight (C_out, C_in / group, *k)."""

    _nd = 2

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
                 data_format="NCHW"):
        name = type(self).__name__
        super().__init__(name)
        nd = self._nd
        _check_format(name, data_format, ("NCHW", "NHWC") if nd == 2 else ("NCDHW",))
        self.out_channel, self.kernel_size = out_channel, int_tuple(name, "kernel_size", kernel_size, nd)
        self.mode, self.group, self.data_format = mode, group, data_format
        self.stride = _spatial(name, "stride", stride, nd)
        self.dilation = _spatial(name, "dilation", dilation, nd)
        self.pad_mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        if self.pad_mode not in ("valid", "same", "pad"):
            raise ValueError(f"For '{name}', the 'pad_mode' must be str and must be in ['valid', 'same', 'pad'], but "
                             f"got '{pad_mode}'.")
        self.pad = pad
        if self.pad_mode == "pad":
            self._pads = pad_pairs(name, "pad", pad, nd)
        elif pad != 0 and any(pad if isinstance(pad, (tuple, list)) else (pad,)):
            raise ValueError(f"For '{name}', the 'pad' must be zero when 'pad_mode' is not 'pad', but got 'pad': {pad} "
                             f"and 'pad_mode': {pad_mode}.")
        else:
            self._pads = (0,) * (2 * nd)
        # MindSpore's attribute names: the padding of each side and the layout
        self.padding, self.format = tuple(self._pads), data_format
        self.attrs.update(out_channel=out_channel, kernel_size=self.kernel_size, pad_mode=self.pad_mode,
                          stride=self.stride, dilation=self.dilation, group=group, data_format=data_format)

    def __call__(self, x, weight):
        x = _to_nchw(x, self.data_format)
        if self.data_format == "NHWC":
            weight = P.transpose_p(weight, perm=(0, 3, 1, 2))
        name = self.name
        if x.ndim != self._nd + 2:
            raise ValueError(f"For '{name}', the x shape size must be equal to {self._nd + 2}, but got {x.ndim}.")
        pads = same_pads(x.shape[2:], weight.shape[2:], self.stride, self.dilation) if self.pad_mode == "same" \
            else self._pads
        C.check_conv(x, weight, None, self.stride, pads, self.dilation, self.group, op=name)
        out = C.conv_p(x, weight, None, stride=self.stride, pads=pads, dilation=self.dilation, groups=self.group)
        return _from_nchw(out, self.data_format)


class Conv2D(_Conv):
    """2D convolution (MindSpore's Conv2D primitive): pad_mode 'valid' / 'same' / 'pad' with pad (t, b, l, r)."""

    _nd = 2


class Conv3D(_Conv):
    """3D convolution (MindSpore's Conv3D primitive): pad an int or (head, tail, top, bottom, left, right)."""

    _nd = 3

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
                 data_format="NCDHW"):
        super().__init__(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation, group, data_format)


class Conv2DBackpropInput(Primitive):
    """Gradient of Conv2D w.r.t. its input, called as (dout, weight, input_size): a transposed convolution."""

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1, stride=1,
                 dilation=1, group=1, data_format="NCHW"):
        name = type(self).__name__
        super().__init__(name)
        _check_format(name, data_format, ("NCHW", "NHWC"))
        self.out_channel, self.kernel_size = out_channel, int_tuple(name, "kernel_size", kernel_size, 2)
        self.stride = _spatial(name, "stride", stride, 2)
        self.dilation = _spatial(name, "dilation", dilation, 2)
        self.group, self.data_format = group, data_format
        self.pad_mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        if self.pad_mode not in ("valid", "same", "pad"):
            raise ValueError(f"For '{name}', the 'pad_mode' must be str and must be in ['valid', 'same', 'pad'], but "
                             f"got '{pad_mode}'.")
        self._pads = pad_pairs(name, "pad", pad_list if pad_list else pad, 2) if self.pad_mode == "pad" else None
        self.attrs.update(out_channel=out_channel, kernel_size=self.kernel_size, pad_mode=self.pad_mode,
                          stride=self.stride, dilation=self.dilation, group=group)

    def __call__(self, dout, weight, input_size):
        shape = _size_tuple(input_size)
        if self.data_format == "NHWC":
            dout = _to_nchw(dout, "NHWC")
            weight = P.transpose_p(weight, perm=(0, 3, 1, 2))
            shape = (shape[0], shape[3], shape[1], shape[2])
        if self.pad_mode == "same":
            pads = same_pads(shape[2:], weight.shape[2:], self.stride, self.dilation)
        else:
            pads = self._pads or (0, 0, 0, 0)
        out = C.conv_backprop_input_p(dout, weight, input_shape=shape, stride=self.stride, pads=pads,
                                      dilation=self.dilation, groups=self.group)
        return _from_nchw(out, self.data_format)


class Conv2DTranspose(Conv2DBackpropInput):
    """Transposed 2D convolution: (dout, weight, input_size) -> the output of shape input_size."""


def check_depth_dilation(name, dilation):
    """MindSpore's Conv3DTranspose takes no dilation along the depth axis (on every device)."""
    if dilation[-3] != 1:
        raise ValueError(f"For '{name}', the depth of parameter 'dilation' must be 1, but got {dilation[-3]}.")


class Conv3DTranspose(Primitive):
    """Transposed 3D convolution with MindSpore's pad_mode semantics; see `ops.conv3d_transpose`."""

    def __init__(self, in_channel, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1,
                 group=1, output_padding=0, data_format="NCDHW"):
        super().__init__("Conv3DTranspose")
        _check_format(self.name, data_format, ("NCDHW",))
        self.in_channel, self.out_channel = in_channel, out_channel
        self.kernel_size = int_tuple(self.name, "kernel_size", kernel_size, 3)
        self.pad_mode, self.pad, self.group = pad_mode, pad, group
        self.stride = _spatial(self.name, "stride", stride, 3)
        self.dilation = _spatial(self.name, "dilation", dilation, 3)
        check_depth_dilation(self.name, self.dilation)
        self.output_padding = _spatial(self.name, "output_padding", output_padding, 3, minimum=0)

    def __call__(self, dout, weight, bias=None):
        if bias is not None:
            raise ValueError(f"For '{self.name}', the 'bias' must be None, but got a {type(bias).__name__}.")
        return F.conv3d_transpose(dout, weight, self.pad_mode, self.pad, self.stride, self.dilation, self.group,
                                  self.output_padding)


# ---------------------------------------------------------------- pooling
class _Pool2D(Primitive):
    _max = True

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        name = type(self).__name__
        super().__init__(name)
        _check_format(name, data_format, ("NCHW", "NHWC"))
        self.kernel_size = _spatial(name, "kernel_size", kernel_size, 2)
        self.strides = _spatial(name, "strides", strides, 2)
        self.pad_mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        if self.pad_mode not in ("valid", "same"):
            raise ValueError(f"For '{name}', the 'pad_mode' must be in ['VALID', 'SAME'], but got '{pad_mode}'.")
        self.data_format = data_format
        self.attrs.update(kernel_size=self.kernel_size, strides=self.strides, pad_mode=self.pad_mode.upper(),
                          data_format=data_format)

    def __call__(self, x):
        x = _to_nchw(x, self.data_format)
        if isinstance(x, Tensor) and x.ndim != 4:
            raise ValueError(f"For '{self.name}', the x shape size must be equal to 4, but got {x.ndim}.")
        if self._max:
            out = FP._max_pool_nd(x, self.kernel_size, self.strides, self.pad_mode, op=self.name)
        else:
            out = FP._avg_pool_nd(x, self.kernel_size, self.strides, self.pad_mode, op=self.name)
        return _from_nchw(out, self.data_format)


class MaxPool(_Pool2D):
    """2D max pooling with pad_mode 'valid' or 'same' (TF padding with -inf, the odd cell at the end)."""


class AvgPool(_Pool2D):
    """2D average pooling with pad_mode 'valid' or 'same' (padded cells are not counted)."""

    _max = False


class MaxPoolWithArgmax(_Pool2D):
    """MaxPool that also returns the int32 argmax (flat index in each sample's C * H * W)."""

    def __call__(self, x):
        x = _to_nchw(x, self.data_format)
        pads = 0
        if self.pad_mode == "same" and isinstance(x, Tensor) and x.ndim == 4:
            # NOTE: MindSpore's kernel puts all of the 'same' padding at the end (unlike MaxPool)
            pads = same_pads(x.shape[2:], self.kernel_size, self.strides, (1, 1))
            pads = (0, pads[0] + pads[1], 0, pads[2] + pads[3])
        out, idx = FP._max_pool_nd(x, self.kernel_size, self.strides, "pad" if pads else "valid", pads,
                                   return_indices=True, op=self.name)
        # NOTE: this (v1) primitive's argmax counts over the whole C * H * W of each sample
        c, h, w = x.shape[1:]
        offsets = Tensor(np.arange(c, dtype=np.int32).reshape(1, c, 1, 1) * (h * w))
        idx = P.add_p(P.cast_p(idx, dtype="Int32"), offsets)
        return _from_nchw(out, self.data_format), _from_nchw(idx, self.data_format)


class MaxPoolWithArgmaxV2(Primitive):
    """Max pooling with explicit pads, dilation and ceil_mode, returning (output, argmax)."""

    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False, argmax_type=mstype.int64):
        super().__init__("MaxPoolWithArgmaxV2")
        self.kernel_size = _spatial(self.name, "kernel_size", kernel_size, 2)
        self.strides = self.kernel_size if strides is None else _spatial(self.name, "strides", strides, 2)
        self.pads = _spatial(self.name, "pads", pads, 2, minimum=0)
        self.dilation = _spatial(self.name, "dilation", dilation, 2)
        self.ceil_mode, self.argmax_type = ceil_mode, argmax_type

    def __call__(self, x):
        out, idx = FP._max_pool_nd(x, self.kernel_size, self.strides, "pad", self.pads, self.dilation, self.ceil_mode,
                                   True, self.name)
        return out, (idx if self.argmax_type == mstype.int64 else P.cast_p(idx, dtype=self.argmax_type.name))


class MaxPool3D(Primitive):
    """3D max pooling: pad_mode 'valid', 'same' or 'pad' (with pad_list: an int or 6 ints), ceil_mode."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", pad_list=0, ceil_mode=None, data_format="NCDHW"):
        super().__init__("MaxPool3D")
        _check_format(self.name, data_format, ("NCDHW",))
        self.kernel_size = _spatial(self.name, "kernel_size", kernel_size, 3)
        self.strides = _spatial(self.name, "strides", strides, 3)
        self.pad_mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        if ceil_mode is not None and self.pad_mode != "pad":
            raise ValueError("When the 'pad_mode' is 'same' or 'valid', the 'ceil_mode' only supports 'None'.")
        self.pad_list, self.ceil_mode = pad_list, bool(ceil_mode)

    def __call__(self, x):
        return FP._max_pool_nd(x, self.kernel_size, self.strides, self.pad_mode,
                               self.pad_list if self.pad_mode == "pad" else 0, 1, self.ceil_mode, op=self.name)


class MaxPool3DWithArgmax(Primitive):
    """3D max pooling with explicit pads, dilation and ceil_mode, returning (output, argmax)."""

    def __init__(self, ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False, data_format="NCDHW",
                 argmax_type=mstype.int64):
        super().__init__("MaxPool3DWithArgmax")
        self.ksize = _spatial(self.name, "ksize", ksize, 3)
        self.strides = _spatial(self.name, "strides", strides, 3)
        self.pads = _spatial(self.name, "pads", pads, 3, minimum=0)
        self.dilation = _spatial(self.name, "dilation", dilation, 3)
        self.ceil_mode, self.argmax_type = ceil_mode, argmax_type

    def __call__(self, x):
        out, idx = FP._max_pool_nd(x, self.ksize, self.strides, "pad", self.pads, self.dilation, self.ceil_mode, True,
                                   self.name)
        return out, (idx if self.argmax_type == mstype.int64 else P.cast_p(idx, dtype=self.argmax_type.name))


class AvgPool3D(Primitive):
    """3D average pooling: pad_mode 'valid', 'same' or 'pad' (pad: an int or 6 ints), count_include_pad..."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=0, data_format="NCDHW"):
        super().__init__("AvgPool3D")
        _check_format(self.name, data_format, ("NCDHW",))
        self.kernel_size = _spatial(self.name, "kernel_size", kernel_size, 3)
        self.strides = _spatial(self.name, "strides", strides, 3)
        self.pad_mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        self.pad, self.ceil_mode = pad, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def __call__(self, x):
        return FP._avg_pool_nd(x, self.kernel_size, self.strides, self.pad_mode,
                               self.pad if self.pad_mode == "pad" else 0, self.ceil_mode, self.count_include_pad,
                               self.divisor_override, self.name)


_SIZE = (("output_size", REQUIRED),)
AdaptiveAvgPool2D = attr_primitive("AdaptiveAvgPool2D", FP.adaptive_avg_pool2d, "Adaptive average pooling to "
                                   "output_size (an int or (h, w), None keeps a size).", _SIZE)
AdaptiveAvgPool3D = attr_primitive("AdaptiveAvgPool3D", FP.adaptive_avg_pool3d,
                                   "Adaptive 3D average pooling to output_size.", _SIZE)
AdaptiveMaxPool2D = attr_primitive("AdaptiveMaxPool2D", lambda x, size: FP.adaptive_max_pool2d(x, size, True),
                                   "Adaptive max pooling to output_size, returning (output, int64 argmax).", _SIZE)


class AdaptiveMaxPool3D(Primitive):
    """Adaptive 3D max pooling, called as (x, output_size), returning (output, int32 argmax)."""

    def __init__(self):
        super().__init__("AdaptiveMaxPool3D")

    def __call__(self, x, output_size):
        return FP.adaptive_max_pool3d(x, _size_tuple(output_size), True)


class _MaxUnpool(Primitive):
    _nd = 2

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCHW"):
        super().__init__(type(self).__name__)
        self.ksize, self.strides, self.pads = ksize, strides, pads
        self.output_shape, self.data_format = tuple(output_shape), data_format

    def __call__(self, x, argmax):
        fn = FP.max_unpool2d if self._nd == 2 else FP.max_unpool3d
        return fn(x, argmax, _spatial(self.name, "ksize", self.ksize, self._nd),
                  _spatial(self.name, "strides", self.strides, self._nd, minimum=0),
                  _spatial(self.name, "pads", self.pads, self._nd, minimum=0), self.output_shape)


class MaxUnpool2D(_MaxUnpool):
    """Inverse of 2D max pooling: (x, argmax) -> zeros with x placed at argmax."""


class MaxUnpool3D(_MaxUnpool):
    """Inverse of 3D max pooling: (x, argmax) -> zeros with x placed at argmax."""

    _nd = 3

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format="NCDHW"):
        super().__init__(ksize, strides, pads, output_shape, data_format)


class FractionalMaxPoolWithFixedKsize(Primitive):
    """Fractional max pooling with window positions from `random_samples` (N, C, 2), returning (y, argmax)."""

    def __init__(self, ksize, output_shape, data_format="NCHW"):
        super().__init__("FractionalMaxPoolWithFixedKsize")
        self.ksize, self.output_shape, self.data_format = ksize, output_shape, data_format

    def __call__(self, input_x, random_samples):
        if isinstance(input_x, Tensor) and input_x.dtype in (mstype.int32, mstype.int64):
            # MindSpore's kernel pools integers too: exactly, in float64 (the samples' float64 copy places windows)
            y, argmax = self(P.cast_p(input_x, dtype="Float64"), P.cast_p(random_samples, dtype="Float64")
                             if isinstance(random_samples, Tensor) else random_samples)
            return P.cast_p(y, dtype=input_x.dtype.name), argmax
        return FP.fractional_max_pool2d(input_x, self.ksize, self.output_shape, None, True, random_samples)


# ---------------------------------------------------------------- padding and layout
class Pad(Primitive):
    """Zero padding of every dimension by paddings ((before, after), ...)."""

    def __init__(self, paddings):
        super().__init__("Pad")
        self.paddings = paddings

    def __call__(self, x):
        for i, pair in enumerate(self.paddings):
            for j, v in enumerate(pair):
                if isinstance(v, int) and v < 0:
                    raise ValueError(f"For 'Pad', all elements of 'paddings' must be >= 0, but got "
                                     f"paddings[{i}][{j}] = {v}.")
        return F._pad_all(x, self.paddings)


class PadV3(Primitive):
    """ops.pad as a primitive: (x, paddings, value) with mode 'constant', 'reflect', 'edge' or 'circular'."""

    def __init__(self, mode="constant", paddings_contiguous=True):
        super().__init__("PadV3")
        self.mode, self.paddings_contiguous = mode, paddings_contiguous

    def __call__(self, x, paddings, value=None):
        pads = _size_tuple(paddings)
        if not self.paddings_contiguous:
            half = len(pads) // 2
            pads = tuple(v for pair in zip(pads[:half], pads[half:]) for v in pair)
        if isinstance(value, Tensor):
            value = value.item()
        mode = "replicate" if self.mode == "edge" else self.mode
        return F.pad(x, pads, mode, value if mode == "constant" else None)


class MirrorPad(Primitive):
    """Mirror padding of every dimension: mode 'REFLECT' or 'SYMMETRIC', called as (x, paddings)."""

    def __init__(self, mode="REFLECT"):
        super().__init__("MirrorPad")
        self.mode = mode

    def __call__(self, input_x, paddings):
        return F.mirror_pad(input_x, paddings, self.mode)


class DepthToSpace(Primitive):
    """NCHW depth to space: (N, C * b * b, H, W) -> (N, C, H * b, W * b), depth-major (TF's DCR order)."""

    def __init__(self, block_size):
        super().__init__("DepthToSpace")
        self.block_size = int_tuple(self.name, "block_size", block_size, 1, minimum=2)[0]

    def __call__(self, x):
        return F._depth_to_space(x, self.block_size)


class SpaceToDepth(Primitive):
    """NCHW space to depth: (N, C, H * b, W * b) -> (N, C * b * b, H, W); the inverse of DepthToSpace."""

    def __init__(self, block_size):
        super().__init__("SpaceToDepth")
        self.block_size = int_tuple(self.name, "block_size", block_size, 1, minimum=2)[0]

    def __call__(self, x):
        return F._space_to_depth(x, self.block_size)


class Im2Col(Primitive):
    """im2col of (N, C, H, W) to (N, C, kh * kw, L)."""

    def __init__(self, ksizes, strides=1, dilations=1, pads=0):
        super().__init__("Im2Col")
        self.ksizes, self.strides, self.dilations, self.pads = ksizes, strides, dilations, pads

    def __call__(self, x):
        out = F.unfold(x, self.ksizes, self.dilations, self.pads, self.strides)
        n, ckk, length = out.shape
        return P.reshape_p(out, shape=(n, x.shape[1], ckk // x.shape[1], length))


class Col2Im(Primitive):
    """col2im of (N, C, kh * kw, L) into (N, C, *output_size), called as (x, output_size)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__("Col2Im")
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def __call__(self, x, output_size):
        return F.col2im(x, output_size, self.kernel_size, self.dilation, self.padding, self.stride)


class ChannelShuffle(Primitive):
    """Interleave channels across `group` groups."""

    def __init__(self, group):
        super().__init__("ChannelShuffle")
        self.group = group

    def __call__(self, x):
        return F.channel_shuffle(x, self.group)


# ---------------------------------------------------------------- resizing (TF semantics)
def _check_image(name, x, nd=2):
    check_rank(name, x, (nd + 2,), "x")
    check_float(name, x, "x")


class ResizeNearestNeighbor(Primitive):
    """Nearest-neighbor resize of (N, C, H, W) to `size` (TF: floor, or round with align_corners)."""

    def __init__(self, size, align_corners=False, half_pixel_centers=False):
        super().__init__("ResizeNearestNeighbor")
        self.size = int_tuple(self.name, "size", size, 2)
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, input_x):
        check_rank(self.name, input_x, (4,), "input_x")
        # NOTE: MindSpore's CPU kernel of this (v1) primitive ignores half_pixel_centers; V2 honours it
        return FR._nearest_tf(input_x, self.size, self.align_corners, False)


class ResizeNearestNeighborV2(Primitive):
    """Nearest-neighbor resize called as (image, size)."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        super().__init__("ResizeNearestNeighborV2")
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, image, size):
        check_rank(self.name, image, (4,), "image")
        return FR._nearest_tf(image, _size_tuple(size), self.align_corners, self.half_pixel_centers)


def _check_centers(name, align_corners, half_pixel_centers):
    if align_corners and half_pixel_centers:
        raise ValueError(f"For '{name}', the 'half_pixel_centers' must be False when 'align_corners' is True.")


class ResizeBilinearV2(Primitive):
    """Bilinear resize (TF): called as (image, size); half_pixel_centers or align_corners or legacy corners."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        super().__init__("ResizeBilinearV2")
        _check_centers(self.name, align_corners, half_pixel_centers)
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, image, size):
        _check_image(self.name, image)
        size = int_tuple(self.name, "size", _size_tuple(size), 2)
        if self.align_corners or self.half_pixel_centers:
            return C.resize_p(image, mode="linear", size=size, align_corners=bool(self.align_corners))
        return FR._separable("linear", image, size, False, False)


class ResizeBilinear(ResizeBilinearV2):
    """The deprecated form of ResizeBilinearV2 that model zoos still call: the output `size` (h, w) is given at
    construction and the primitive is called as (x)."""

    def __init__(self, size, align_corners=False, half_pixel_centers=False):
        super().__init__(align_corners, half_pixel_centers)
        self.name = "ResizeBilinear"
        self.size = int_tuple(self.name, "size", _size_tuple(size), 2)

    def __call__(self, x):
        return super().__call__(x, self.size)


class ResizeBicubic(Primitive):
    """Bicubic resize (TF): called as (image, size)."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        super().__init__("ResizeBicubic")
        _check_centers(self.name, align_corners, half_pixel_centers)
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers

    def __call__(self, image, size):
        _check_image(self.name, image)
        size = int_tuple(self.name, "size", _size_tuple(size), 2)
        return FR._separable("cubic", image, size, self.align_corners, self.half_pixel_centers)


class ResizeLinear1D(Primitive):
    """Linear resize of (N, C, W) called as (x, size); mode 'align_corners' or 'half_pixel'."""

    def __init__(self, coordinate_transformation_mode="align_corners"):
        super().__init__("ResizeLinear1D")
        if coordinate_transformation_mode not in ("align_corners", "half_pixel"):
            raise ValueError(f"For '{self.name}', the 'coordinate_transformation_mode' must be 'align_corners' or "
                             f"'half_pixel', but got {coordinate_transformation_mode!r}.")
        self.coordinate_transformation_mode = coordinate_transformation_mode

    def __call__(self, x, size):
        _check_image(self.name, x, 1)
        size = int_tuple(self.name, "size", _size_tuple(size), 1)
        return C.resize_p(x, mode="linear", size=size,
                          align_corners=self.coordinate_transformation_mode == "align_corners")


class _Upsample3D(Primitive):
    def _size_and_scales(self, x, output_size, scales):
        if (output_size is None) == (scales is None):
            raise ValueError(f"For '{self.name}', exactly one of 'output_size' and 'scales' must be given.")
        if output_size is not None:
            return int_tuple(self.name, "output_size", _size_tuple(output_size), 3), None
        scales = tuple(float(s) for s in scales)
        return tuple(int(n * s) for n, s in zip(x.shape[2:], scales)), scales


class UpsampleNearest3D(_Upsample3D):
    """Nearest upsampling of (N, C, D, H, W), called as (x, output_size=None, scales=None)."""

    def __init__(self):
        super().__init__("UpsampleNearest3D")

    def __call__(self, x, output_size=None, scales=None):
        _check_image(self.name, x, 3)
        size, scales = self._size_and_scales(x, output_size, scales)
        return C.resize_p(x, mode="nearest", size=size, scales=scales)


class UpsampleTrilinear3D(_Upsample3D):
    """Trilinear upsampling of (N, C, D, H, W), called as (x, output_size=None, scales=None)."""

    def __init__(self, align_corners=False):
        super().__init__("UpsampleTrilinear3D")
        self.align_corners = align_corners

    def __call__(self, x, output_size=None, scales=None):
        _check_image(self.name, x, 3)
        size, scales = self._size_and_scales(x, output_size, scales)
        return C.resize_p(x, mode="linear", size=size, align_corners=bool(self.align_corners), scales=scales)


class _GridSampler(Primitive):
    def __init__(self, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False):
        super().__init__(type(self).__name__)
        self.interpolation_mode, self.padding_mode, self.align_corners = interpolation_mode, padding_mode, align_corners

    def __call__(self, input_x, grid):
        return FR.grid_sample(input_x, grid, self.interpolation_mode, self.padding_mode, self.align_corners)


class GridSampler2D(_GridSampler):
    """grid_sample of (N, C, H, W) at grid (N, H_out, W_out, 2)."""


class GridSampler3D(_GridSampler):
    """grid_sample of (N, C, D, H, W) at grid (N, D_out, H_out, W_out, 3)."""


class AffineGrid(Primitive):
    """affine_grid as a primitive: called as (theta, output_size)."""

    def __init__(self, align_corners=False):
        super().__init__("AffineGrid")
        self.align_corners = align_corners

    def __call__(self, theta, output_size):
        return FR.affine_grid(theta, _size_tuple(output_size), self.align_corners)


class ROIAlign(Primitive):
    """ROIAlign: (features (N, C, H, W), rois (R, 5) of (batch, x1, y1, x2, y2)) -> (R, C, pooled_h, pooled_w).

    roi_end_mode 1 moves the box ends by one pixel before scaling (MindSpore's default); 0 keeps them and makes
    every box at least one pixel (Caffe2).
    """

    def __init__(self, pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1):
        super().__init__("ROIAlign")
        for name, v in (("pooled_height", pooled_height), ("pooled_width", pooled_width)):
            int_tuple(self.name, name, v, 1)
        if roi_end_mode not in (0, 1):
            raise ValueError(f"For '{self.name}', the 'roi_end_mode' must be 0 or 1, but got {roi_end_mode}.")
        self.pooled_height, self.pooled_width, self.spatial_scale = pooled_height, pooled_width, spatial_scale
        self.sample_num, self.roi_end_mode = sample_num, roi_end_mode

    def __call__(self, features, rois):
        return FR._roi_align(features, rois, self.pooled_height, self.pooled_width, self.spatial_scale,
                             self.sample_num, self.roi_end_mode)
