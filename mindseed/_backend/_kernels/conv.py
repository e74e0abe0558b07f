"""Kernels of the convolution family: convolution and its two gradients, pooling, padding, resampling.

Conventions shared by every kernel here:
* inputs are batched and channel-first, (N, C, *spatial); the public functions add/remove batch axes;
* `pads` is a flat tuple (lo0, hi0, lo1, hi1, ...) in spatial-dimension order (first spatial dim first), so
  asymmetric ("same" with an odd total) and negative (crop) paddings are expressible; the torch order for
  F.pad (last dimension first) is derived by `_torch_pad`.
"""
import torch
import torch.nn.functional as F

from mindseed._backend._kernels.core import widen_half

_CONV = {1: torch.conv1d, 2: torch.conv2d, 3: torch.conv3d}
_CONV_T = {1: torch.conv_transpose1d, 2: torch.conv_transpose2d, 3: torch.conv_transpose3d}


def _torch_pad(pads):
    """(lo0, hi0, lo1, hi1, ...) -> F.pad's order (lo_last, hi_last, ..., lo0, hi0)."""
    out = []
    for i in range(len(pads) - 2, -1, -2):
        out.append(pads[i])
        out.append(pads[i + 1])
    return out


def _symmetric(pads):
    """The per-dimension padding when every lo == hi >= 0, else None."""
    lo = pads[0::2]
    if lo == pads[1::2] and min(lo) >= 0:
        return lo
    return None


def _neg(pads):
    return [-p for p in pads]


# ---------------------------------------------------------------- convolution
# Channels-last (NHWC) memory for 2-d convolutions on the CPU: oneDNN runs them and their gradients 15-25%
# faster on it when it has enough output channels, and gives NHWC results, which the batch norms, activations,
# pools and additions between convolutions keep; so a CNN converts once, at its input. The logical layout stays
# NCHW. A convolution is NHWC when it has at least _NHWC_MIN_C output channels (below that, e.g. LeNet's first
# convolution, the reorders cost more than they save); so is its weight gradient. Its data gradient, whose result
# has the input's channels, is NHWC only when both counts reach _NHWC_MIN_C: oneDNN's NHWC data gradient with few
# input channels is slower than the NCHW one (LeNet's second convolution, 6 -> 16: 530 vs 370 us).
_NHWC_MIN_C = 16
_NHWC_DTYPES = (torch.float32, torch.bfloat16)


def _nhwc_conv(t, c_out):
    """Whether a convolution with input `t` (or its gradient) runs NHWC."""
    return c_out >= _NHWC_MIN_C and t.dim() == 4 and t.device.type == "cpu" and t.dtype in _NHWC_DTYPES


def _nhwc(t):
    if t.is_contiguous(memory_format=torch.channels_last):
        return t
    return t.contiguous(memory_format=torch.channels_last)


@widen_half
def conv(x, w, b=None, *, stride, pads, dilation, groups):
    """N-d cross-correlation of x (N, C, *sp) with w (O, C/groups, *k), explicit per-side padding."""
    if _nhwc_conv(x, w.shape[0]):
        x = _nhwc(x)
    else:
        w = w.contiguous()   # a channels-last weight (see optim._fusable) would make oneDNN run NHWC
    pad = _symmetric(pads)
    if pad is None:
        x = F.pad(x, _torch_pad(pads))
        pad = 0
    return _CONV[x.dim() - 2](x, w, b, stride, pad, dilation, groups)


def conv_gemm(x, w, b=None, *, stride, pads, dilation, groups):
    """2-d convolution as im2col + one matrix product (aten's slow_conv2d), NCHW: for small images and batches
    (batch-1 LeNet) it skips oneDNN's per-call set-up and runs 2-3x faster; `conv` otherwise. Same arguments."""
    pad = _symmetric(pads)
    if x.dim() != 4 or groups != 1 or tuple(dilation) != (1, 1) or pad is None or x.device.type != "cpu":
        return conv(x, w, b, stride=stride, pads=pads, dilation=dilation, groups=groups)
    return _slow_conv2d(x.contiguous(), w.contiguous(), tuple(w.shape[2:]), b, tuple(stride), tuple(pad))


_slow_conv2d = torch.ops.aten._slow_conv2d_forward


def pack_conv_weight(w, x_shape, *, stride, pads, dilation, groups):
    """The weight of a 2-d float32 CPU convolution reordered once into oneDNN's blocked layout for inputs of shape
    `x_shape` (an inference model's constant weight), for `conv_packed`; None where that path does not apply."""
    pad = _symmetric(pads)
    if w.dim() != 4 or w.dtype != torch.float32 or w.device.type != "cpu" or pad is None \
            or not torch.backends.mkldnn.is_available():
        return None
    return torch._C._nn.mkldnn_reorder_conv2d_weight(w.contiguous().to_mkldnn(), list(pad), list(stride),
                                                      list(dilation), groups, list(x_shape))


def conv_packed(x, w_packed, b=None, *, stride, pads, dilation, groups, relu=False):
    """2-d convolution by a `pack_conv_weight` weight, NHWC, with the ReLU after it fused when `relu`."""
    return _conv_pointwise(_nhwc(x), w_packed, b, list(_symmetric(pads)), list(stride), list(dilation), groups,
                           "relu" if relu else "none", [], "")


_conv_pointwise = torch.ops.mkldnn._convolution_pointwise


@widen_half
def conv_backprop_input(dy, w, *, input_shape, stride, pads, dilation, groups):
    """Gradient of conv w.r.t. its input (a transposed convolution), shaped `input_shape`."""
    nd = dy.dim() - 2
    pad = _symmetric(pads)
    if pad is not None and _nhwc_conv(dy, min(w.shape[0], input_shape[1])):
        # NHWC: the data gradient of aten's own convolution backward (oneDNN; conv_transpose takes a slow path
        # there); only the input's shape, dtype and layout are read
        dy = _nhwc(dy)
        # explicit NHWC strides: torch.compile (jit_level O1) keeps these, where it may lay out an
        # empty(memory_format=...) as NCHW (and oneDNN would then reorder the gradient back and forth)
        n, c, h, w_ = input_shape
        x = torch.empty_strided(input_shape, (h * w_ * c, 1, w_ * c, c), dtype=dy.dtype, device=dy.device)
        return torch.ops.aten.convolution_backward(dy, x, w, None, stride, pad, dilation, False, [0] * nd, groups,
                                                   [True, False, False])[0]
    # NCHW: a channels-last dy (from NHWC layers above) or weight would make oneDNN run this one channels-last too
    dy = dy.contiguous()
    w = w.contiguous()
    ops = []
    single = True
    for i in range(nd):
        lo, hi = pads[2 * i], pads[2 * i + 1]
        eff = dilation[i] * (w.shape[2 + i] - 1) + 1
        rem = (input_shape[2 + i] + lo + hi - eff) % stride[i]
        op = lo - hi + rem
        ops.append(op)
        if lo < 0 or not 0 <= op < max(stride[i], dilation[i]):
            single = False
    if single:
        return _CONV_T[nd](dy, w, None, stride, pads[0::2], ops, groups, dilation)
    # general case: the gradient w.r.t. the padded input, then undo the padding (crop, or zeros where the
    # forward cropped)
    full_ops = []
    for i in range(nd):
        eff = dilation[i] * (w.shape[2 + i] - 1) + 1
        full_ops.append((input_shape[2 + i] + pads[2 * i] + pads[2 * i + 1] - eff) % stride[i])
    full = _CONV_T[nd](dy, w, None, stride, 0, full_ops, groups, dilation)
    return F.pad(full, _neg(_torch_pad(pads)))


@widen_half
def conv_backprop_filter(x, dy, *, weight_shape, stride, pads, dilation, groups):
    """Gradient of conv w.r.t. its weight, shaped `weight_shape`."""
    nhwc = _nhwc_conv(x, dy.shape[1])
    if nhwc:
        x, dy = _nhwc(x), _nhwc(dy)
    nd = dy.dim() - 2
    pad = _symmetric(pads)
    if pad is None:
        x = F.pad(x, _torch_pad(pads))
        pad = [0] * nd
    # NOTE: the weight argument only carries shape/dtype/layout here; its values are never read. NHWC: a
    # channels-last dummy, which aten would otherwise convert (a copy of uninitialized memory) before oneDNN
    if nhwc:
        o, c, kh, kw = weight_shape
        w = torch.empty_strided(weight_shape, (kh * kw * c, 1, kw * c, c), dtype=dy.dtype, device=dy.device)
    else:
        w = torch.empty(weight_shape, dtype=dy.dtype, device=dy.device)
    return torch.ops.aten.convolution_backward(dy, x, w, None, stride, pad, dilation, False, [0] * nd, groups,
                                               [False, True, False])[1]


# ---------------------------------------------------------------- pooling
_MAX_POOL = {1: torch.max_pool1d_with_indices, 2: torch.ops.aten.max_pool2d_with_indices,
             3: torch.ops.aten.max_pool3d_with_indices}


def explicit_pool_pads(kernel, pads):
    """`pads` when a pool must pad its input explicitly, else None.

    torch pools take only symmetric implicit padding of at most half the window; MindSpore's 'same' padding
    can be asymmetric.
    """
    pad = _symmetric(pads)
    if pad is not None and all(p <= k // 2 for p, k in zip(pad, kernel)):
        return None
    return pads


def _pool_pad(x, kernel, pads, value):
    """(x, implicit padding) for a torch pool."""
    if explicit_pool_pads(kernel, pads) is None:
        return x, pads[0::2]
    return F.pad(x, _torch_pad(pads), value=value), [0] * len(kernel)


def _lowest(x):
    return float("-inf") if x.is_floating_point() else torch.iinfo(x.dtype).min


def max_pool(x, *, kernel, stride, pads, dilation, ceil_mode):
    """(max values, argmax) of N-d max pooling; argmax is the flat index in each (N, C) plane of x."""
    xp, pad = _pool_pad(x, kernel, pads, _lowest(x))
    out, idx = _MAX_POOL[len(kernel)](xp, kernel, stride, pad, dilation, ceil_mode)
    if xp is not x:
        idx = _unpad_index(idx, xp.shape[2:], pads)
    return out, idx


# ---------------------------------------------------------------- 2x2/stride-2 max pooling without indices
# The most common pooling of CNNs, as elementwise maxima of strided views: ~10x faster on CPU than aten's
# max_pool2d_with_indices. The gradient goes to the first maximum of each window in row-major order
# (00, 01, 10, 11), as aten's does, so results are identical.
def _quads(x):
    h, w = x.shape[-2] // 2 * 2, x.shape[-1] // 2 * 2
    return (x[..., 0:h:2, 0:w:2], x[..., 0:h:2, 1:w:2], x[..., 1:h:2, 0:w:2], x[..., 1:h:2, 1:w:2])


def max_pool_2x2(x):
    h, w = x.shape[-2] // 2 * 2, x.shape[-1] // 2 * 2
    # the row pairs first: whole rows, read contiguously in NCHW; then the column pairs of half as many values
    rows = torch.maximum(x[..., 0:h:2, 0:w], x[..., 1:h:2, 0:w])
    return torch.maximum(rows[..., 0::2], rows[..., 1::2])


def max_pool_2x2_grad(x, out, dout):
    """dout routed to the first maximum of each 2x2 window; zeros elsewhere (and in an odd last row/column)."""
    if x.dim() == 4 and x.device.type == "cpu" and x.is_contiguous(memory_format=torch.channels_last) \
            and not x.is_contiguous():
        # NHWC: aten's pooling kernels vectorize over channels; recomputing the argmax and routing dout with it
        # beats the elementwise form below 2x (same first-maximum rule, so the same result)
        _, idx = torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2], [0, 0], [1, 1], False)
        return torch.ops.aten.max_pool2d_with_indices_backward(dout, x, [2, 2], [2, 2], [0, 0], [1, 1], False, idx)
    # The first maximum in row-major order lies in the first row pair half holding the window's maximum, at the
    # first column of that half holding it. So: pick the top or bottom of each window by the column-pair maxima
    # (top on ties), then the left or right of each pair by its values (left on ties).
    h, w = x.shape[-2] // 2 * 2, x.shape[-1] // 2 * 2
    left, right = x[..., 0:h, 0:w:2], x[..., 0:h, 1:w:2]
    pairs = torch.maximum(left, right)
    dpairs = torch.empty_like(pairs)
    top = torch.mul(dout, torch.ge(pairs[..., 0::2, :], pairs[..., 1::2, :]), out=dpairs[..., 0::2, :])
    torch.sub(dout, top, out=dpairs[..., 1::2, :])
    dx = torch.zeros_like(x) if x.shape[-1] % 2 or x.shape[-2] % 2 else torch.empty_like(x)
    dleft = torch.mul(dpairs, torch.ge(left, right), out=dx[..., 0:h, 0:w:2])
    torch.sub(dpairs, dleft, out=dx[..., 0:h, 1:w:2])
    return dx


def max_pool_2x2_grad_grad(x, out, ddx):
    """The value of ddx at each window's first maximum (the gradient of max_pool_2x2_grad w.r.t. dout)."""
    q, dq = _quads(x), _quads(ddx)
    taken = torch.zeros_like(out)
    result = torch.zeros_like(out)
    for k in range(4):
        hit = torch.eq(q[k], out).to(out.dtype) * (1 - taken)
        result = result + hit * dq[k]
        taken = taken + hit
    return result


def _unpad_index(idx, padded, pads):
    """Flat indices into the padded plane -> flat indices into the unpadded one."""
    coords = []
    rem = idx
    for size in reversed(padded):
        coords.append(rem % size)
        rem = rem // size
    flat = None
    for i, c in enumerate(reversed(coords)):
        c = c - pads[2 * i]
        flat = c if flat is None else flat * (padded[i] - pads[2 * i] - pads[2 * i + 1]) + c
    return flat


def _flat_spatial(t):
    return t.reshape(t.shape[0], t.shape[1], -1)


def index_scatter(dout, idx, *, shape, accumulate=True):
    """Zeros of `shape` with dout added (or written) at the flat per-(N, C)-plane indices `idx`."""
    out = dout.new_zeros((shape[0], shape[1], _prod(shape[2:])))
    src, index = _flat_spatial(dout), _flat_spatial(idx).long()
    if accumulate:
        out.scatter_add_(2, index, src)
    else:
        out.scatter_(2, index, src)
    return out.reshape(shape)


def index_gather(x, idx):
    """x's values at the flat per-(N, C)-plane indices `idx`, shaped like idx."""
    return torch.gather(_flat_spatial(x), 2, _flat_spatial(idx).long()).reshape(idx.shape)


def _prod(xs):
    n = 1
    for v in xs:
        n *= v
    return n


_AVG_POOL = {2: F.avg_pool2d, 3: F.avg_pool3d}
_AVG_POOL_BWD = {2: torch.ops.aten.avg_pool2d_backward, 3: torch.ops.aten.avg_pool3d_backward}


def _avg_count(shape, kernel, stride, pads, ceil_mode, like):
    """How many real (unpadded) cells each window covers, for count_include_pad=False with explicit padding."""
    ones = torch.ones((1, 1) + tuple(shape), dtype=like.dtype, device=like.device)
    ones = F.pad(ones, _torch_pad(pads))
    return _AVG_POOL[len(kernel)](ones, kernel, stride, 0, ceil_mode, True, 1)


def avg_pool(x, *, kernel, stride, pads, ceil_mode, count_include_pad, divisor_override):
    """N-d average pooling (1-d runs as 2-d); divisor_override 0 means none."""
    if len(kernel) == 1:
        return avg_pool(x.unsqueeze(2), kernel=(1,) + tuple(kernel), stride=(1,) + tuple(stride),
                        pads=(0, 0) + tuple(pads), ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                        divisor_override=divisor_override).squeeze(2)
    div = divisor_override or None
    xp, pad = _pool_pad(x, kernel, pads, 0.0)
    if xp is x or count_include_pad or div:
        return _AVG_POOL[len(kernel)](xp, kernel, stride, pad, ceil_mode, count_include_pad, div)
    total = _AVG_POOL[len(kernel)](xp, kernel, stride, 0, ceil_mode, True, 1)
    return total / _avg_count(x.shape[2:], kernel, stride, pads, ceil_mode, x)


def avg_pool_grad(dout, *, shape, kernel, stride, pads, ceil_mode, count_include_pad, divisor_override):
    """Gradient of avg_pool w.r.t. its input of `shape`."""
    if len(kernel) == 1:
        return avg_pool_grad(dout.unsqueeze(2), shape=(shape[0], shape[1], 1, shape[2]), kernel=(1,) + tuple(kernel),
                             stride=(1,) + tuple(stride), pads=(0, 0) + tuple(pads), ceil_mode=ceil_mode,
                             count_include_pad=count_include_pad, divisor_override=divisor_override).squeeze(2)
    nd = len(kernel)
    div = divisor_override or None
    if explicit_pool_pads(kernel, pads) is None:
        x = torch.empty(shape, dtype=dout.dtype, device=dout.device)  # shape carrier only
        return _AVG_POOL_BWD[nd](dout, x, kernel, stride, pads[0::2], ceil_mode, count_include_pad, div)
    padded = tuple(shape[:2]) + tuple(s + pads[2 * i] + pads[2 * i + 1] for i, s in enumerate(shape[2:]))
    xp = torch.empty(padded, dtype=dout.dtype, device=dout.device)
    if not (count_include_pad or div):
        dout = dout / _avg_count(shape[2:], kernel, stride, pads, ceil_mode, dout)
        div = 1
    g = _AVG_POOL_BWD[nd](dout, xp, kernel, stride, [0] * nd, ceil_mode, True, div)
    return F.pad(g, _neg(_torch_pad(pads)))


_ADAPTIVE_AVG = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}
_ADAPTIVE_MAX = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d, 3: F.adaptive_max_pool3d}


def adaptive_avg_pool(x, *, output_size):
    return _ADAPTIVE_AVG[len(output_size)](x, output_size)


def adaptive_avg_pool_grad(dout, *, shape):
    """Gradient of adaptive_avg_pool w.r.t. its input of `shape`."""
    nd = dout.dim() - 2
    if nd == 1:
        return adaptive_avg_pool_grad(dout.unsqueeze(2), shape=(shape[0], shape[1], 1, shape[2])).squeeze(2)
    x = torch.empty(shape, dtype=dout.dtype, device=dout.device)  # shape carrier only
    if nd == 2:
        return torch.ops.aten._adaptive_avg_pool2d_backward(dout, x)
    return torch.ops.aten._adaptive_avg_pool3d_backward(dout, x)


def adaptive_max_pool(x, *, output_size):
    return _ADAPTIVE_MAX[len(output_size)](x, output_size, True)


def fractional_max_pool(x, samples, *, kernel, output_size):
    """(values, argmax) of fractional max pooling with the given per-plane random samples in [0, 1)."""
    if len(kernel) == 2:
        return torch.ops.aten.fractional_max_pool2d(x, kernel, output_size, samples.to(x.dtype))
    return torch.ops.aten.fractional_max_pool3d(x, kernel, output_size, samples.to(x.dtype))


def uniform_samples(*, shape, dtype, generator):
    """Uniform [0, 1) samples from a mindseed backend Generator (on CPU, then moved to the current device)."""
    from mindseed._backend import _core as _backend  # noqa: PLC0415 -- the current device, set at run time
    out = torch.rand(shape, generator=generator.raw, dtype=_backend.torch_dtype(dtype))
    return out.to(_backend.device())


# ---------------------------------------------------------------- padding and gathers along one axis
def pad_constant(x, *, pads, value=0):
    """F.pad in constant mode; `pads` is in torch order (last dimension first); negative values crop."""
    return F.pad(x, pads, value=value)


def axis_gather(x, *, axis, index):
    """x.index_select(axis, index) with a constant index (a tuple)."""
    return x.index_select(axis, torch.tensor(index, device=x.device))


def axis_gather_grad(dout, *, axis, index, size):
    """Adjoint of axis_gather: dout summed into zeros of length `size` along `axis`."""
    shape = list(dout.shape)
    shape[axis] = size
    return dout.new_zeros(shape).index_add_(axis, torch.tensor(index, device=dout.device), dout)


# ---------------------------------------------------------------- im2col / col2im
def unfold(x, *, kernel, dilation, padding, stride):
    return F.unfold(x, kernel, dilation, padding, stride)


def fold(x, *, output_size, kernel, dilation, padding, stride):
    return F.fold(x, output_size, kernel, dilation, padding, stride)


# ---------------------------------------------------------------- resize
_NEAREST = {1: torch.ops.aten.upsample_nearest1d, 2: torch.ops.aten.upsample_nearest2d,
            3: torch.ops.aten.upsample_nearest3d}
_NEAREST_BWD = {1: torch.ops.aten.upsample_nearest1d_backward, 2: torch.ops.aten.upsample_nearest2d_backward,
                3: torch.ops.aten.upsample_nearest3d_backward}
_EXACT = {1: torch.ops.aten._upsample_nearest_exact1d, 2: torch.ops.aten._upsample_nearest_exact2d,
          3: torch.ops.aten._upsample_nearest_exact3d}
_EXACT_BWD = {1: torch.ops.aten._upsample_nearest_exact1d_backward,
              2: torch.ops.aten._upsample_nearest_exact2d_backward,
              3: torch.ops.aten._upsample_nearest_exact3d_backward}
_LINEAR = {1: torch.ops.aten.upsample_linear1d, 2: torch.ops.aten.upsample_bilinear2d,
           3: torch.ops.aten.upsample_trilinear3d}
_LINEAR_BWD = {1: torch.ops.aten.upsample_linear1d_backward, 2: torch.ops.aten.upsample_bilinear2d_backward,
               3: torch.ops.aten.upsample_trilinear3d_backward}


def resize(x, *, mode, size, align_corners=False, scales=None):
    """Nearest ('nearest', 'nearest-exact') or (bi/tri)linear ('linear') resampling of the spatial dims to `size`."""
    scales = scales or (None,) * len(size)
    if mode == "linear":
        return _LINEAR[len(size)](x, size, align_corners, *scales)
    return (_NEAREST if mode == "nearest" else _EXACT)[len(size)](x, size, *scales)


def resize_grad(dout, *, shape, mode, size, align_corners=False, scales=None):
    """Gradient of resize w.r.t. its input of `shape`."""
    scales = scales or (None,) * len(size)
    if mode == "linear":
        return _LINEAR_BWD[len(size)](dout, size, shape, align_corners, *scales)
    return (_NEAREST_BWD if mode == "nearest" else _EXACT_BWD)[len(size)](dout, size, shape, *scales)


# ---------------------------------------------------------------- grid sampling
_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDING = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(x, grid, *, mode, padding_mode, align_corners):
    return torch.grid_sampler(x, grid, _GRID_MODES[mode], _GRID_PADDING[padding_mode], align_corners)


def grid_sample_grad(dout, x, grid, *, mode, padding_mode, align_corners):
    """(d input, d grid) of grid_sample."""
    fn = torch.ops.aten.grid_sampler_2d_backward if x.dim() == 4 else torch.ops.aten.grid_sampler_3d_backward
    return fn(dout, x, grid, _GRID_MODES[mode], _GRID_PADDING[padding_mode], align_corners, [True, True])
