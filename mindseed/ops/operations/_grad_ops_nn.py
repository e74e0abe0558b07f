"""The backward primitives of MindSpore's pooling, convolution, resize, batch-norm, ReLU, flatten and concat ops
(`_grad_ops.MaxPoolGrad`, `Conv2DBackpropFilter`, ...) that code calls directly. Each is the vector-Jacobian product
of its forward primitive, built with the same attributes, at the forward input (`ops.vjp`, registered into
`ops.functional` by the top level), so it agrees with what autodiff computes for that op; ReLU, Flatten, Concat and
inference BatchNorm have closed forms."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations import _conv
from mindseed.ops.operations._base import Primitive

__all__ = ["ReluGrad", "FlattenGrad", "ConcatOffset", "MaxPoolGrad", "AvgPoolGrad", "MaxPoolGradWithArgmax",
           "ResizeBilinearGrad", "Conv2DBackpropFilter", "BatchNormGrad", "MaxPoolGradGrad", "MaxPool3DGradGrad",
           "MaxPoolGradGradWithArgmax", "MaxPoolGradWithArgmaxV2"]


def _tensor(op, name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def _vjp(forward, x, dout):
    """d(sum(forward(x) * dout)) / dx."""
    _, pullback = F.vjp(forward, x)
    grads = pullback(dout)
    return grads[0] if isinstance(grads, tuple) else grads


class ReluGrad(Primitive):
    """`ReluGrad()(y_backprop, x)`: the gradient `y_backprop` where the ReLU's output `x` is positive, else 0."""

    def __init__(self):
        super().__init__("ReluGrad")

    def __call__(self, y_backprop, x):
        _tensor(self.name, "y_backprop", y_backprop)
        _tensor(self.name, "x", x)
        if tuple(y_backprop.shape) != tuple(x.shape):
            raise ValueError(f"For 'ReluGrad', 'y_backprop' and 'x' must have the same shape, but got "
                             f"{y_backprop.shape} and {x.shape}.")
        return F.select(x > 0, y_backprop, F.zeros_like(y_backprop))


class FlattenGrad(Primitive):
    """`FlattenGrad()(x, shape)`: the gradient of Flatten, `x` reshaped back to the input's `shape`."""

    def __init__(self):
        super().__init__("FlattenGrad")

    def __call__(self, x, shape):
        return F.reshape(_tensor(self.name, "x", x), tuple(shape))


class ConcatOffset(Primitive):
    """`ConcatOffset(N=2, axis=0)(input_x)`: where each of the N tensors of a concatenation along `axis` starts, as
    an int64 Tensor of shape (N, rank) (zeros but on `axis`)."""

    def __init__(self, N=2, axis=0):  # noqa: N803 (MindSpore's argument name)
        super().__init__("ConcatOffset")
        self.N, self.axis = N, axis
        self.add_prim_attr("N", N)
        self.add_prim_attr("axis", axis)

    def __call__(self, input_x):
        if not isinstance(input_x, (tuple, list)) or not input_x:
            raise TypeError(f"For 'ConcatOffset', 'input_x' must be a non-empty tuple of Tensors, but got "
                            f"{type(input_x).__name__}.")
        shapes = [tuple(_tensor(self.name, "input_x", x).shape) for x in input_x]
        rank = len(shapes[0])
        if not -rank <= self.axis < rank:
            raise ValueError(f"For 'ConcatOffset', 'axis' must be in [{-rank}, {rank}), but got {self.axis}.")
        axis = self.axis % rank
        out = np.zeros((len(shapes), rank), np.int64)
        out[1:, axis] = np.cumsum([s[axis] for s in shapes[:-1]])
        return Tensor(out, mstype.int64)


class _PoolGrad(Primitive):
    _forward = None

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", data_format="NCHW"):
        super().__init__(type(self).__name__)
        self.kernel_size, self.strides, self.pad_mode, self.data_format = kernel_size, strides, pad_mode, data_format
        self._pool = getattr(_conv, self._forward)(kernel_size, strides, pad_mode, data_format)

    def __call__(self, x, out, dout):
        _tensor(self.name, "x", x)
        _tensor(self.name, "dout", dout)
        return _vjp(self._pool, x, dout)


class _PoolGradGrad(_PoolGrad):
    """`Op(kernel_size, strides, pad_mode, data_format)(x, out, grad)`: the second-order gradient of max pooling,
    the change of the pooled output along `grad` (each window's value of `grad` at the window's maximum of `x`):
    the forward-mode derivative of the pooling at `x`."""

    def __call__(self, x, out, grad):
        _tensor(self.name, "x", x)
        _tensor(self.name, "grad", grad)
        if tuple(grad.shape) != tuple(x.shape):
            raise ValueError(f"For '{self.name}', 'grad' must have the shape of 'x' {tuple(x.shape)}, but got "
                             f"{tuple(grad.shape)}.")
        _, tangent = F.jvp(self._pool, x, grad)
        return tangent


class MaxPoolGrad(_PoolGrad):
    """`MaxPoolGrad(kernel_size, strides, pad_mode, data_format)(x, out, dout)`: the gradient of MaxPool."""
    _forward = "MaxPool"


class AvgPoolGrad(_PoolGrad):
    """`AvgPoolGrad(kernel_size, strides, pad_mode, data_format)(x, out, dout)`: the gradient of AvgPool."""
    _forward = "AvgPool"


class MaxPoolGradWithArgmax(Primitive):
    """`MaxPoolGradWithArgmax(kernel_size, strides, pad_mode)(x, grad, argmax)`: the gradient of
    MaxPoolWithArgmax's output (each window's gradient goes to its maximum)."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", data_format="NCHW"):
        super().__init__("MaxPoolGradWithArgmax")
        self.kernel_size, self.strides, self.pad_mode = kernel_size, strides, pad_mode
        self._pool = _conv.MaxPoolWithArgmax(kernel_size, strides, pad_mode, data_format)

    def __call__(self, x, grad, argmax):
        _tensor(self.name, "x", x)
        _tensor(self.name, "grad", grad)
        return _vjp(lambda v: self._pool(v)[0], x, grad)


class ResizeBilinearGrad(Primitive):
    """`ResizeBilinearGrad(align_corners=False, half_pixel_centers=False)(grads, original_image)`: the gradient of
    a bilinear resize of `original_image` to the size of `grads`."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        super().__init__("ResizeBilinearGrad")
        self.align_corners, self.half_pixel_centers = align_corners, half_pixel_centers
        self._resize = _conv.ResizeBilinearV2(align_corners, half_pixel_centers)

    def __call__(self, grads, original_image):
        _tensor(self.name, "grads", grads)
        _tensor(self.name, "original_image", original_image)
        size = tuple(grads.shape[2:])
        return _vjp(lambda v: self._resize(v, size), original_image, grads)


class Conv2DBackpropFilter(Primitive):
    """`Conv2DBackpropFilter(out_channel, kernel_size, pad_mode, pad, pad_list, mode, stride, dilation, group,
    data_format)(dout, x, filter_size)`: the gradient of Conv2D with respect to its weight."""

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=(0, 0, 0, 0), mode=1,
                 stride=(1, 1), dilation=(1, 1, 1, 1), group=1, data_format="NCHW"):
        super().__init__("Conv2DBackpropFilter")
        self.out_channel, self.kernel_size, self.pad_mode, self.pad = out_channel, kernel_size, pad_mode, pad
        self.pad_list, self.mode, self.stride, self.dilation, self.group = pad_list, mode, stride, dilation, group
        self.data_format = data_format
        self._conv = _conv.Conv2D(out_channel, kernel_size, mode=mode, pad_mode=pad_mode, pad=pad,
                                  stride=stride, dilation=dilation, group=group, data_format=data_format)

    def __call__(self, dout, x, filter_size):
        _tensor(self.name, "dout", dout)
        _tensor(self.name, "x", x)
        weight = F.zeros(tuple(filter_size), x.dtype)
        return _vjp(lambda w: self._conv(x, w), weight, dout)


class BatchNormGrad(Primitive):
    """`BatchNormGrad(is_training=False, epsilon=1e-5, data_format='NCHW')(dout, x, scale, saved_mean,
    saved_variance, reserve)` -> (dx, dscale, dbias), with `saved_mean` / `saved_variance` the batch's mean and
    variance (training: the gradient flows through them too) or the moving ones (inference: constants)."""

    def __init__(self, is_training=False, epsilon=1e-5, data_format="NCHW"):
        super().__init__("BatchNormGrad")
        self.is_training, self.epsilon, self.data_format = is_training, epsilon, data_format

    def __call__(self, dout, x, scale, saved_mean, saved_variance, reserve=None):
        for name, v in (("dout", dout), ("x", x), ("scale", scale), ("saved_mean", saved_mean),
                        ("saved_variance", saved_variance)):
            _tensor(self.name, name, v)
        channel_last = self.data_format == "NHWC"
        axes = tuple(d for d in range(x.ndim) if d != (x.ndim - 1 if channel_last else 1))
        shape = tuple(x.shape[d] if d not in axes else 1 for d in range(x.ndim))
        mean, var = F.reshape(saved_mean, shape), F.reshape(saved_variance, shape)
        inv_std = F.rsqrt(var + self.epsilon)
        x_hat = (x - mean) * inv_std
        dbias = F.sum(dout, axes)
        dscale = F.sum(dout * x_hat, axes)
        g = F.reshape(scale, shape) * inv_std
        if not self.is_training:
            return g * dout, dscale, dbias
        count = float(np.prod([x.shape[d] for d in axes]))
        dx = g * (dout - F.reshape(dbias, shape) / count - x_hat * F.reshape(dscale, shape) / count)
        return dx, dscale, dbias


class MaxPoolGradGrad(_PoolGradGrad):
    """`MaxPoolGradGrad(kernel_size, strides, pad_mode, data_format)(x, out, grad)`: MaxPool's second-order
    gradient (see `_PoolGradGrad`)."""
    _forward = "MaxPool"


class MaxPool3DGradGrad(_PoolGradGrad):
    """`MaxPool3DGradGrad(kernel_size, strides, pad_mode, data_format)(x, out, grad)`: MaxPool3D's second-order
    gradient (see `_PoolGradGrad`)."""
    _forward = "MaxPool3D"

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", data_format="NCDHW"):
        Primitive.__init__(self, type(self).__name__)
        self.kernel_size, self.strides, self.pad_mode, self.data_format = kernel_size, strides, pad_mode, data_format
        self._pool = _conv.MaxPool3D(kernel_size, strides, pad_mode, data_format=data_format)


class MaxPoolGradGradWithArgmax(Primitive):
    """`MaxPoolGradGradWithArgmax(kernel_size, strides, pad_mode)(x, grad, argmax)`: the second-order gradient of
    MaxPoolWithArgmax: each window's value of `grad` at the window's maximum, `argmax` holding those positions as flat
    indices into one sample's (C, H, W)."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID"):
        super().__init__("MaxPoolGradGradWithArgmax")
        self.kernel_size, self.strides, self.pad_mode = kernel_size, strides, pad_mode
        for name in ("kernel_size", "strides", "pad_mode"):
            self.add_prim_attr(name, getattr(self, name))

    def __call__(self, x, grad, argmax):
        for name, t in (("x", x), ("grad", grad), ("argmax", argmax)):
            _tensor(self.name, name, t)
        if not mstype.is_integral(argmax.dtype) or tuple(grad.shape) != tuple(x.shape) or argmax.ndim != x.ndim:
            raise ValueError(f"For '{self.name}', 'grad' must have the shape of 'x' {tuple(x.shape)} and 'argmax' be "
                             f"an integer Tensor of its rank, but got {tuple(grad.shape)} and {argmax.dtype} "
                             f"{tuple(argmax.shape)}.")
        n = x.shape[0]
        flat = F.reshape(grad, (n, -1))
        picked = F.gather_elements(flat, 1, F.cast(F.reshape(argmax, (n, -1)), mstype.int64))
        return F.reshape(picked, tuple(argmax.shape))


class MaxPoolGradWithArgmaxV2(Primitive):
    """`MaxPoolGradWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
    argmax_type=mstype.int64)(x, grad, argmax)`: the gradient of MaxPoolWithArgmaxV2, each value of `grad` added to
    the position `argmax` holds for it (a flat index into its (H, W) plane)."""

    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False, argmax_type=mstype.int64):
        super().__init__("MaxPoolGradWithArgmaxV2")
        self.kernel_size, self.strides, self.pads = kernel_size, strides, pads
        self.dilation, self.ceil_mode, self.argmax_type = dilation, ceil_mode, argmax_type
        for name in ("kernel_size", "strides", "pads", "dilation", "ceil_mode", "argmax_type"):
            self.add_prim_attr(name, getattr(self, name))

    def __call__(self, x, grad, argmax):
        for name, t in (("x", x), ("grad", grad), ("argmax", argmax)):
            _tensor(self.name, name, t)
        if x.ndim != 4 or tuple(argmax.shape) != tuple(grad.shape) or not mstype.is_integral(argmax.dtype):
            raise ValueError(f"For '{self.name}', 'x' must be (N, C, H, W) and 'argmax' an integer Tensor of the shape "
                             f"of 'grad' {tuple(grad.shape)}, but got {tuple(x.shape)} and {argmax.dtype} "
                             f"{tuple(argmax.shape)}.")
        n, c = x.shape[:2]
        plane = F.zeros((n, c, x.shape[2] * x.shape[3]), grad.dtype)
        idx = F.cast(F.reshape(argmax, (n, c, -1)), mstype.int64)
        out = F.tensor_scatter_elements(plane, idx, F.reshape(grad, (n, c, -1)), axis=2, reduction="add")
        return F.reshape(out, tuple(x.shape))
