"""Convolution-family primitives: convolution and its gradients, pooling, padding, im2col, resampling.

Every gradient primitive here is linear in the tensor it differentiates, so its own bprop is the forward
primitive it came from (conv <-> backprop-input/filter, avg_pool <-> avg_pool_grad, unfold <-> fold, gather
<-> scatter, resize <-> resize_grad): grad of grad works to any order at the cost of one kernel per gradient.

Spatial padding attrs (`pads`) are flat (lo0, hi0, lo1, hi1, ...) tuples in spatial-dimension order.
"""
from mindseed._backend.kernels import conv as K
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims.core import reduce_sum_p
from mindseed.ops import _infer as I
from mindseed.ops import _sharding_nn as SN
from mindseed.ops._registry import Prim, RandomPrim

# ---------------------------------------------------------------- convolution
conv_p = Prim("Convolution", K.conv, fresh=True, heavy=True, sharding=SN.conv)
# the same convolution by im2col + matmul (inference compilers pick it per shape where it is faster; no bprop)
conv_gemm_p = Prim("ConvolutionGemm", K.conv_gemm, fresh=True, heavy=True)
# ... and with a weight pre-packed for oneDNN (K.pack_conv_weight) and an optional fused ReLU (`relu=True`)
conv_packed_p = Prim("ConvolutionPacked", K.conv_packed, fresh=True, heavy=True)


@conv_p.def_bprop(takes_needs=True)
def _conv_bprop(x, w, b, out, dout, needs, stride, pads, dilation, groups):
    # NOTE: the input gradient costs as much as the forward and the first layer's input never needs one
    dx = dw = db = None
    if needs[0]:
        dx = conv_backprop_input_p(dout, w, input_shape=x.shape, stride=stride, pads=pads, dilation=dilation,
                                   groups=groups)
    if needs[1]:
        dw = conv_backprop_filter_p(x, dout, weight_shape=w.shape, stride=stride, pads=pads, dilation=dilation,
                                    groups=groups)
    if b is not None and needs[2]:
        db = reduce_sum_p(dout, axis=(0,) + tuple(range(2, dout.ndim)))
    return dx, dw, db


def check_conv(x, w, b=None, stride=(), pads=(), dilation=(), groups=1, op="Conv2D"):
    """MindSpore-style errors for a convolution call (shapes, channels, dtypes)."""
    if op == "Conv2D" and len(stride) == 3:
        op = "Conv3D"     # MindSpore runs 1-D convolutions as Conv2D, 3-D ones as Conv3D
    if not isinstance(x, Tensor) or not isinstance(w, Tensor):
        bad = "x" if not isinstance(x, Tensor) else "weight"
        raise TypeError(f"For '{op}', the '{bad}' must be a Tensor, but got "
                        f"{type(x if bad == 'x' else w).__name__}.")
    nd = len(stride)
    if x.ndim != nd + 2:
        raise ValueError(f"For '{op}', the input must be a {nd + 2}D Tensor, but got input of {x.ndim}D.")
    if w.ndim != nd + 2:
        raise ValueError(f"For '{op}', the weight must be a {nd + 2}D Tensor, but got weight of {w.ndim}D.")
    if x.dtype != w.dtype:
        raise TypeError(f"For '{op}', the 'x' dtype {x.dtype} and 'weight' dtype {w.dtype} must be the same.")
    if not mstype.is_float(x.dtype):
        raise TypeError(f"For '{op}', the 'x' must be a float Tensor, but got {x.dtype}.")
    c_in, c_out = x.shape[1], w.shape[0]
    if c_in % groups or c_out % groups:
        raise ValueError(f"For '{op}', the 'groups' should divide 'in_channel' and 'out_channel', but got "
                         f"groups: {groups}, in_channel: {c_in}, out_channel: {c_out}.")
    if c_in // groups != w.shape[1]:
        # MindSpore's CPU Conv2D kernel (which also runs 1-D convolutions) raises this as a RuntimeError; its Conv3D
        # shape inference raises a ValueError
        kind = ValueError if nd == 3 else RuntimeError
        raise kind(f"For '{op}', 'C_in' of input 'x' shape divide by parameter 'group' must be equal to 'C_in' of "
                   f"input 'weight' shape: {w.shape[1]}, but got 'C_in' of input 'x' shape: {c_in}, and 'group': "
                   f"{groups}.")
    padded = tuple(s + pads[2 * i] + pads[2 * i + 1] for i, s in enumerate(x.shape[2:]))
    eff = tuple(d * (k - 1) + 1 for d, k in zip(dilation, w.shape[2:]))
    if any(p < e for p, e in zip(padded, eff)):
        raise ValueError(f"For '{op}', the input spatial shape {x.shape[2:]} after padding {padded} must be greater "
                         f"than or equal to the dilated kernel size {eff}.")
    if b is not None:
        if not isinstance(b, Tensor):
            raise TypeError(f"For '{op}', the 'bias' must be a Tensor, but got {type(b).__name__}.")
        if b.shape != (c_out,):
            raise ValueError(f"For '{op}', given weight of size {w.shape}, expected bias to be 1-dimensional with "
                             f"{c_out} elements, but got bias of size {b.shape}.")


conv_p.def_check(check_conv)

conv_backprop_input_p = Prim("ConvBackpropInput", K.conv_backprop_input, fresh=True, heavy=True,
                             sharding=SN.conv_backprop_input)


@conv_backprop_input_p.def_bprop
def _conv_backprop_input_bprop(dy, w, out, ddx, input_shape, stride, pads, dilation, groups):
    d_dy = conv_p(ddx, w, None, stride=stride, pads=pads, dilation=dilation, groups=groups)
    d_w = conv_backprop_filter_p(ddx, dy, weight_shape=w.shape, stride=stride, pads=pads, dilation=dilation,
                                 groups=groups)
    return d_dy, d_w


conv_backprop_filter_p = Prim("ConvBackpropFilter", K.conv_backprop_filter, heavy=True,
                              sharding=SN.conv_backprop_filter)


@conv_backprop_filter_p.def_bprop
def _conv_backprop_filter_bprop(x, dy, out, ddw, weight_shape, stride, pads, dilation, groups):
    d_x = conv_backprop_input_p(dy, ddw, input_shape=x.shape, stride=stride, pads=pads, dilation=dilation,
                                groups=groups)
    d_dy = conv_p(x, ddw, None, stride=stride, pads=pads, dilation=dilation, groups=groups)
    return d_x, d_dy


# ---------------------------------------------------------------- 2x2 max pooling, stride 2, no padding
def _halved(x):
    """The last two dims halved (an odd last row or column dropped)."""
    *lead, h, w = x.shape
    return I.Abstract(tuple(lead) + (None if h is None else h // 2, None if w is None else w // 2), x.dtype)


max_pool_2x2_p = Prim("MaxPool2x2", K.max_pool_2x2, infer=_halved, sharding=SN.pool_2x2)
max_pool_2x2_grad_p = Prim("MaxPool2x2Grad", K.max_pool_2x2_grad, fresh=True, infer=I.same, sharding=SN.pool_2x2)
max_pool_2x2_grad_grad_p = Prim("MaxPool2x2GradGrad", K.max_pool_2x2_grad_grad, sharding=SN.pool_2x2)


@max_pool_2x2_p.def_bprop
def _max_pool_2x2_bprop(x, out, dout):
    return (max_pool_2x2_grad_p(x, out, dout),)


@max_pool_2x2_grad_p.def_bprop
def _max_pool_2x2_grad_bprop(x, y, dout, out, ddx):
    # piecewise constant in x and y; linear in dout
    return None, None, max_pool_2x2_grad_grad_p(x, y, ddx)


@max_pool_2x2_grad_grad_p.def_bprop
def _max_pool_2x2_grad_grad_bprop(x, y, ddx, out, c):
    return None, None, max_pool_2x2_grad_p(x, y, c)


# ---------------------------------------------------------------- gathers/scatters by flat per-plane index
# Shared by max pooling, adaptive/fractional max pooling and max unpooling: the gradient of picking values by
# argmax is adding them back at the argmax, and the other way round.
index_scatter_p = Prim("IndexScatterPlane", K.index_scatter, sharding=SN.index_scatter)


@index_scatter_p.def_bprop
def _index_scatter_bprop(dout, idx, out, ddx, shape, accumulate=True):
    return index_gather_p(ddx, idx), None


index_gather_p = Prim("IndexGatherPlane", K.index_gather, sharding=SN.planes)


@index_gather_p.def_bprop
def _index_gather_bprop(x, idx, out, dout):
    return index_scatter_p(dout, idx, shape=x.shape), None


# ---------------------------------------------------------------- pooling
max_pool_p = Prim("MaxPoolWithArgmaxV2", K.max_pool, multi_output=True, sharding=SN.max_pool)


@max_pool_p.def_bprop
def _max_pool_bprop(x, out, dout, kernel, stride, pads, dilation, ceil_mode):
    return (index_scatter_p(dout[0], out[1], shape=x.shape),)


def max_pool_values(x, kernel, stride, pads, dilation, ceil_mode):
    """Max pooling's values (no argmax), through the fast 2x2 kernel when the window allows it."""
    if (kernel == (2, 2) and stride == (2, 2) and dilation == (1, 1) and not any(pads) and x.ndim == 4
            and (not ceil_mode or (x.shape[2] % 2 == 0 and x.shape[3] % 2 == 0))):
        return max_pool_2x2_p(x)
    return max_pool_p(x, kernel=kernel, stride=stride, pads=pads, dilation=dilation, ceil_mode=ceil_mode)[0]


def _transposed_pair(name, kernel, grad_name, grad_kernel):
    """A linear op of x (its attrs as keywords) and its transpose, a grad op that also takes x's shape: each one's
    bprop is the other."""
    forward, transpose = Prim(name, kernel), Prim(grad_name, grad_kernel)

    @forward.def_bprop
    def _forward_bprop(x, out, dout, **attrs):
        return (transpose(dout, shape=x.shape, **attrs),)

    @transpose.def_bprop
    def _transpose_bprop(dout, out, ddx, shape, **attrs):
        return (forward(ddx, **attrs),)
    return forward, transpose


avg_pool_p, avg_pool_grad_p = _transposed_pair("AvgPool3D", K.avg_pool, "AvgPoolGrad", K.avg_pool_grad)
avg_pool_p.sharding, avg_pool_grad_p.sharding = SN.pool, SN.pool_grad


adaptive_avg_pool_p = Prim("AdaptiveAvgPool", K.adaptive_avg_pool, sharding=SN.adaptive_pool)


@adaptive_avg_pool_p.def_bprop
def _adaptive_avg_pool_bprop(x, out, dout, output_size):
    return (adaptive_avg_pool_grad_p(dout, shape=x.shape),)


adaptive_avg_pool_grad_p = Prim("AdaptiveAvgPoolGrad", K.adaptive_avg_pool_grad, sharding=SN.adaptive_pool_grad)


@adaptive_avg_pool_grad_p.def_bprop
def _adaptive_avg_pool_grad_bprop(dout, out, ddx, shape):
    return (adaptive_avg_pool_p(ddx, output_size=dout.shape[2:]),)


adaptive_max_pool_p = Prim("AdaptiveMaxPool", K.adaptive_max_pool, multi_output=True)


@adaptive_max_pool_p.def_bprop
def _adaptive_max_pool_bprop(x, out, dout, output_size):
    return (index_scatter_p(dout[0], out[1], shape=x.shape),)


fractional_max_pool_p = Prim("FractionalMaxPoolWithFixedKsize", K.fractional_max_pool, multi_output=True)


@fractional_max_pool_p.def_bprop
def _fractional_max_pool_bprop(x, samples, out, dout, kernel, output_size):
    return index_scatter_p(dout[0], out[1], shape=x.shape), None


# the window positions of fractional max pooling: random, never differentiated
uniform_samples_p = RandomPrim("FractionalPoolSamples", K.uniform_samples)

# ---------------------------------------------------------------- padding and constant gathers along an axis
pad_constant_p = Prim("PadV3", K.pad_constant)


@pad_constant_p.def_bprop
def _pad_constant_bprop(x, out, dout, pads, value=0):
    return (pad_constant_p(dout, pads=tuple(-p for p in pads)),)  # a negative pad crops


axis_gather_p = Prim("AxisGather", K.axis_gather)


@axis_gather_p.def_bprop
def _axis_gather_bprop(x, out, dout, axis, index):
    return (axis_gather_grad_p(dout, axis=axis, index=index, size=x.shape[axis]),)


axis_gather_grad_p = Prim("AxisGatherGrad", K.axis_gather_grad)


@axis_gather_grad_p.def_bprop
def _axis_gather_grad_bprop(dout, out, ddx, axis, index, size):
    return (axis_gather_p(ddx, axis=axis, index=index),)


# ---------------------------------------------------------------- im2col / col2im
unfold_p = Prim("Im2Col", K.unfold)


@unfold_p.def_bprop
def _unfold_bprop(x, out, dout, kernel, dilation, padding, stride):
    return (fold_p(dout, output_size=x.shape[2:], kernel=kernel, dilation=dilation, padding=padding,
                   stride=stride),)


fold_p = Prim("Col2Im", K.fold)


@fold_p.def_bprop
def _fold_bprop(x, out, dout, output_size, kernel, dilation, padding, stride):
    return (unfold_p(dout, kernel=kernel, dilation=dilation, padding=padding, stride=stride),)


# ---------------------------------------------------------------- resampling
resize_p, resize_grad_p = _transposed_pair("Upsample", K.resize, "UpsampleGrad", K.resize_grad)


grid_sample_p = Prim("GridSampler", K.grid_sample)


@grid_sample_p.def_bprop
def _grid_sample_bprop(x, grid, out, dout, **attrs):
    return grid_sample_grad_p(dout, x, grid, **attrs)


# NOTE: first order only: the backward of bilinear sampling is piecewise in the grid and its second derivative
# needs a dedicated kernel that the backend does not have, so this primitive has no bprop.
grid_sample_grad_p = Prim("GridSamplerGrad", K.grid_sample_grad, multi_output=True)
