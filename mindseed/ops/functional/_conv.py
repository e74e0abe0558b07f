"""Functional ops: convolution, padding and layout (pooling in _pool.py, resampling in _resample.py).

Private helpers for the nn layers (documented, stable for mindseed's own use):
`_conv_nd`, `_conv_transpose_nd`, `_conv_pads` and `_same_pads` here; `_max_pool_nd` and `_avg_pool_nd` in
_pool.py.
"""
import functools

from mindseed.common.tensor import Tensor
from mindseed.ops._prims import conv as C
from mindseed.ops._prims import core as P
from mindseed.ops.functional import _pool, _resample
from mindseed.ops.functional._core import _int_tensor_values
from mindseed.ops.functional._conv_args import (_is_int, check_rank, check_tensor, int_tuple, mode_pads, pad_pairs,
                                                same_pads)
from mindseed.ops.functional._pool import *  # noqa: F401,F403
from mindseed.ops.functional._resample import *  # noqa: F401,F403

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose2d", "conv3d_transpose", "pad", "mirror_pad", "unfold", "fold",
    "col2im", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
] + _pool.__all__ + _resample.__all__

_same_pads = same_pads


# ---------------------------------------------------------------- convolution
def _conv_pads(op, pad_mode, padding, x, w, stride, dilation):
    """Flat (lo, hi) spatial pads of a convolution for pad_mode 'valid' / 'same' / 'pad' (see `same_pads`)."""
    return mode_pads(op, pad_mode, padding, x.shape[2:], w.shape[2:], stride, dilation)


def _conv_nd(x, w, b, stride, pads, dilation, groups):
    """Convolution with normalized arguments, for the nn layers: no argument checks on the hot path.

    Args:
        x (Tensor): (N, C_in, *spatial); w (Tensor): (C_out, C_in / groups, *kernel); b (Tensor or None): (C_out,).
        stride, dilation (tuple[int]): one per spatial dimension.
        pads (tuple[int]): flat (lo, hi) pairs per spatial dimension, e.g. from `_conv_pads` or `_same_pads`.
        groups (int): channel groups.

    Bad shapes still raise MindSpore-style errors (the primitive's check runs when the kernel fails).
    """
    return C.conv_p(x, w, b, stride=stride, pads=pads, dilation=dilation, groups=groups)


def _conv(op, nd, input, weight, bias, stride, pad_mode, padding, dilation, groups):
    check_tensor(op, "input", input)
    check_tensor(op, "weight", weight)
    stride = int_tuple(op, "stride", stride, nd)
    dilation = int_tuple(op, "dilation", dilation, nd)
    if not _is_int(groups) or groups < 1:
        raise TypeError(f"For '{op}', the 'groups' must be a positive int, but got {groups!r}.")
    if input.ndim != nd + 2:
        raise ValueError(f"For '{op}', the input must be a {nd + 2}D Tensor, but got input of {input.ndim}D.")
    if weight.ndim != nd + 2:
        raise ValueError(f"For '{op}', the weight must be a {nd + 2}D Tensor, but got weight of {weight.ndim}D.")
    pads = _conv_pads(op, pad_mode, padding, input, weight, stride, dilation)
    C.check_conv(input, weight, bias, stride, pads, dilation, groups, op=op)
    return C.conv_p(input, weight, bias, stride=stride, pads=pads, dilation=dilation, groups=int(groups))


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """1D convolution (cross-correlation) of (N, C_in, L) with weight (C_out, C_in / groups, K).

    Args:
        pad_mode (str): 'valid' (no padding), 'same' (output length ceil(L / stride); the odd cell of padding goes
            to the right) or 'pad' (`padding` cells on both sides).

    Raises:
        ValueError: bad ranks, channels not matching `groups`, kernel larger than the padded input, bad pad_mode.
    """
    return _conv("conv1d", 1, input, weight, bias, stride, pad_mode, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """2D convolution (cross-correlation) of (N, C_in, H, W) with weight (C_out, C_in / groups, kH, kW).

    Args:
        input (Tensor): (N, C_in, H, W).
        weight (Tensor): (C_out, C_in / groups, kH, kW).
        bias (Tensor, optional): (C_out,).
        stride, dilation (Union[int, tuple[int]]): one int or two.
        pad_mode (str): 'valid', 'same' (output ceil(in / stride), extra padding at the bottom/right) or 'pad'.
        padding (Union[int, tuple[int]]): with 'pad': one int, (pad_h, pad_w) or (top, bottom, left, right).
        groups (int): channel groups.

    Returns:
        Tensor of shape (N, C_out, H_out, W_out).

    Raises:
        TypeError: input or weight not a Tensor, dtypes differ.
        ValueError: bad ranks, channels not matching `groups`, kernel larger than the padded input, bad pad_mode,
            nonzero padding without pad_mode 'pad'.

    >>> import mindseed as ms
    >>> ms.ops.conv2d(ms.ops.ones((1, 3, 8, 8)), ms.ops.ones((4, 3, 3, 3)), pad_mode="same", stride=2).shape
    (1, 4, 4, 4)
    """
    return _conv("conv2d", 2, input, weight, bias, stride, pad_mode, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """3D convolution of (N, C_in, D, H, W) with weight (C_out, C_in / groups, kD, kH, kW); see `conv2d`."""
    return _conv("conv3d", 3, input, weight, bias, stride, pad_mode, padding, dilation, groups)


def _add_channel_bias(out, bias):
    return P.add_p(out, P.reshape_p(bias, shape=(bias.shape[0],) + (1,) * (out.ndim - 2)))


def _conv_transpose_nd(x, w, b, output_shape, stride, pads, dilation, groups):
    """Transposed convolution (gradient of `_conv_nd` w.r.t. its input), for the nn layers.

    Args:
        x (Tensor): (N, C_in, *spatial); w (Tensor): (C_in, C_out / groups, *kernel); b: (C_out,) or None.
        output_shape (tuple[int]): the full output shape (N, C_out, *out_spatial).
        pads (tuple[int]): flat (lo, hi) pads of the forward convolution that maps the output back to x; an
            output_padding `op` on a dimension is expressed as hi = pad - op.
    """
    out = C.conv_backprop_input_p(x, w, input_shape=tuple(output_shape), stride=stride, pads=pads,
                                  dilation=dilation, groups=groups)
    return out if b is None else _add_channel_bias(out, b)


def _transpose_checks(op, nd, x, w, groups):
    check_tensor(op, "input", x)
    check_tensor(op, "weight", w)
    if x.ndim != nd + 2 or w.ndim != nd + 2:
        raise ValueError(f"For '{op}', the input and weight must be {nd + 2}D Tensors, but got {x.ndim}D and "
                         f"{w.ndim}D.")
    if not _is_int(groups) or groups < 1 or x.shape[1] % groups:
        raise ValueError(f"For '{op}', the 'groups' must be a positive int dividing the input channels "
                         f"{x.shape[1]}, but got {groups}.")
    if x.shape[1] != w.shape[0]:
        raise ValueError(f"For '{op}', the input channels {x.shape[1]} must equal the weight's first dimension "
                         f"{w.shape[0]}.")
    if x.dtype != w.dtype:
        raise TypeError(f"For '{op}', the 'input' dtype {x.dtype} and 'weight' dtype {w.dtype} must be the same.")


def _transpose_out(op, x, w, stride, pads, dilation, output_padding):
    """(output spatial size, adjusted pads) of a transposed convolution with per-dimension output_padding."""
    spatial, new_pads = [], []
    for i, n in enumerate(x.shape[2:]):
        lo, hi, op_ = pads[2 * i], pads[2 * i + 1], output_padding[i]
        if op_ >= max(stride[i], dilation[i]):
            raise ValueError(f"For '{op}', the 'output_padding' {tuple(output_padding)} must be smaller than "
                             f"'stride' {stride} or 'dilation' {dilation}.")
        size = (n - 1) * stride[i] - lo - hi + dilation[i] * (w.shape[2 + i] - 1) + 1 + op_
        if size <= 0:
            raise ValueError(f"For '{op}', the computed output size {size} is not positive.")
        spatial.append(size)
        new_pads += [lo, hi - op_]
    return tuple(spatial), tuple(new_pads)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """2D transposed convolution of (N, C_in, H, W) with weight (C_in, C_out / groups, kH, kW).

    H_out = (H - 1) * stride - 2 * padding + dilation * (kH - 1) + output_padding + 1 (likewise W).

    Raises:
        ValueError: bad ranks or channels, output_padding not smaller than stride or dilation.
    """
    op = "conv_transpose2d"
    unbatched = isinstance(input, Tensor) and input.ndim == 3
    if unbatched:
        input = P.reshape_p(input, shape=(1,) + input.shape)
    _transpose_checks(op, 2, input, weight, groups)
    stride = int_tuple(op, "stride", stride, 2)
    dilation = int_tuple(op, "dilation", dilation, 2)
    pads = pad_pairs(op, "padding", padding, 2)
    output_padding = int_tuple(op, "output_padding", output_padding, 2, minimum=0)
    spatial, pads = _transpose_out(op, input, weight, stride, pads, dilation, output_padding)
    out_shape = (input.shape[0], weight.shape[1] * groups) + spatial
    out = _conv_transpose_nd(input, weight, bias, out_shape, stride, pads, dilation, int(groups))
    return P.reshape_p(out, shape=out.shape[1:]) if unbatched else out


def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1, group=1, output_padding=0):
    """3D transposed convolution with MindSpore's pad_mode semantics.

    D_out is (D - 1) * stride + dilation * (kD - 1) + 1 for 'valid', D * stride for 'same', and
    (D - 1) * stride - (pad_head + pad_tail) + dilation * (kD - 1) + output_padding + 1 for 'pad' (likewise H, W).

    Raises:
        ValueError: bad ranks or channels, bad pad_mode, padding or output_padding outside 'pad' mode.
    """
    op = "Conv3DTranspose"
    _transpose_checks(op, 3, inputs, weight, group)
    stride = int_tuple(op, "stride", stride, 3)
    dilation = int_tuple(op, "dilation", dilation, 3)
    output_padding = int_tuple(op, "output_padding", output_padding, 3, minimum=0)
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode != "pad" and any(output_padding):
        raise ValueError(f"For '{op}', the 'output_padding' must be zero when 'pad_mode' is not 'pad', but got "
                         f"{output_padding}.")
    if mode == "same":
        mode_pads(op, pad_mode, padding, (), (), (), ())  # validates padding == 0
        spatial = tuple(n * s for n, s in zip(inputs.shape[2:], stride))
        pads = same_pads(spatial, weight.shape[2:], stride, dilation)
    else:
        pads = mode_pads(op, pad_mode, padding, inputs.shape[2:], weight.shape[2:], stride, dilation)
        spatial, pads = _transpose_out(op, inputs, weight, stride, pads, dilation, output_padding)
    out_shape = (inputs.shape[0], weight.shape[1] * group) + spatial
    return _conv_transpose_nd(inputs, weight, None, out_shape, stride, pads, dilation, int(group))


# ---------------------------------------------------------------- padding
@functools.lru_cache(maxsize=512)
def _pad_index(mode, n, lo, hi):
    """Source index of each output cell of a padded axis of length n. Circular mode crops the negative sides first
    and wraps around what is left (MindSpore's PadV3)."""
    if mode == "circular":
        start = max(-lo, 0)
        kept = n - start - max(-hi, 0)
        return tuple(start + j % kept for j in range(-max(lo, 0), kept + max(hi, 0)))
    idx = []
    for j in range(-lo, n + hi):
        if mode == "reflect":
            i = -j if j < 0 else 2 * (n - 1) - j if j >= n else j
        elif mode == "symmetric":
            i = -j - 1 if j < 0 else 2 * n - 1 - j if j >= n else j
        else:  # replicate / edge
            i = min(max(j, 0), n - 1)
        idx.append(i)
    return tuple(idx)


def _pad_axes(op, x, pairs, mode):
    """Pad by gathering: `pairs` maps axis -> (lo, hi); reflect/symmetric/circular/replicate."""
    limit = {"reflect": 1, "symmetric": 0, "circular": 0}.get(mode)
    for axis, (lo, hi) in pairs:
        if not lo and not hi:
            continue
        n = x.shape[axis]
        if limit is not None and max(lo, hi) > n - limit:
            raise ValueError(f"For '{op}', the padding ({lo}, {hi}) of dimension {axis} in '{mode}' mode must be "
                             f"{'less than' if limit else 'at most'} the input size {n}.")
        if n == 0:
            raise ValueError(f"For '{op}', '{mode}' padding needs a non-empty dimension {axis}.")
        kept = n - max(-lo, 0) - max(-hi, 0)
        if mode == "circular" and (kept <= 0 or max(lo, hi) > kept):
            raise ValueError(f"For '{op}', the circular padding ({lo}, {hi}) of dimension {axis} must wrap at most "
                             f"the {kept} elements its negative side leaves of {n}.")
        x = C.axis_gather_p(x, axis=axis, index=_pad_index(mode, n, lo, hi))
    return x


def pad(input_x, padding=None, mode="constant", value=None, *, paddings=None):
    """Pad the last len(padding) // 2 dimensions: padding = (left, right, top, bottom, front, back, ...).

    Args:
        input_x (Tensor): the tensor to pad.
        padding (Union[tuple[int], list[int], Tensor]): pairs from the last dimension backwards; negative values
            crop (constant mode).
        mode (str): 'constant', 'reflect', 'replicate' or 'circular'.
        value (Union[int, float, None]): the fill of 'constant' mode (0 when None).
        paddings (tuple[tuple[int]]): the MindSpore 1.x form, instead of `padding` (also accepted by position):
            one (before, after) pair per dimension, from the first; zeros are padded.

    Raises:
        TypeError: input_x not a Tensor, padding not ints.
        ValueError: odd padding length, more than 6 pads or a `value` outside constant mode, bad mode, reflect
            padding not smaller than the dimension.

    >>> import mindseed as ms
    >>> ms.ops.pad(ms.ops.ones((1, 2, 2)), (1, 1), value=0.5).shape
    (1, 2, 4)
    """
    op = "pad"
    check_tensor(op, "input_x", input_x)
    if (padding is None) == (paddings is None):
        raise TypeError(f"For '{op}', give exactly one of 'padding' and the 1.x form 'paddings', but got "
                        f"padding={padding!r} and paddings={paddings!r}.")
    if isinstance(padding, (tuple, list)) and padding and all(isinstance(p, (tuple, list)) for p in padding):
        padding, paddings = None, padding       # the 1.x pairs given by position
    if paddings is not None:
        padding = tuple(v for pair in reversed(_pairs_arg(op, input_x, paddings)) for v in pair)
    if isinstance(padding, Tensor):
        padding = tuple(_int_tensor_values(op, "padding", padding))
    if not isinstance(padding, (tuple, list)) or not all(_is_int(p) for p in padding):
        raise TypeError(f"For '{op}', the 'padding' must be a tuple or list of ints, but got {padding!r}.")
    if not padding:
        return input_x
    if len(padding) % 2:
        raise ValueError(f"For '{op}', the length of 'padding' must be even, but got {len(padding)}.")
    if len(padding) // 2 > input_x.ndim:
        raise ValueError(f"For '{op}', the 'padding' {tuple(padding)} pads more dimensions than the input has "
                         f"({input_x.ndim}).")
    padding = tuple(int(p) for p in padding)
    if mode == "constant":
        return C.pad_constant_p(input_x, pads=padding, value=0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise ValueError(f"For '{op}', the 'mode' must be 'constant', 'reflect', 'replicate' or 'circular', but got "
                         f"'{mode}'.")
    padded = len(padding)
    while padded > 6 and padding[padded - 2:padded] == (0, 0):      # outer dims left as they are
        padded -= 2
    if padded > 6:
        raise ValueError(f"For '{op}', the padding must be less than or equal to 6, but got {len(padding)}.")
    if value is not None:
        raise ValueError(f"For '{op}', the padding mode '{mode}' can not set value, but got value {value}.")
    pairs = [(input_x.ndim - 1 - i, (padding[2 * i], padding[2 * i + 1])) for i in range(len(padding) // 2)]
    return _pad_axes(op, input_x, pairs, mode)


def _pairs_arg(op, x, paddings):
    if isinstance(paddings, Tensor):
        paddings = paddings.asnumpy().tolist()
    try:
        pairs = [(int(a), int(b)) for a, b in paddings]
    except (TypeError, ValueError):
        raise TypeError(f"For '{op}', the 'paddings' must be pairs of ints, one per dimension, but got "
                        f"{paddings!r}.") from None
    if len(pairs) != x.ndim:
        raise ValueError(f"For '{op}', the 'paddings' must have one (before, after) pair per input dimension "
                         f"({x.ndim}), but got {len(pairs)}.")
    if any(a < 0 or b < 0 for a, b in pairs):
        raise ValueError(f"For '{op}', the 'paddings' must be non-negative, but got {pairs}.")
    return pairs


def mirror_pad(input_x, paddings, mode):
    """Pad every dimension by mirroring: mode 'REFLECT' (edge not repeated) or 'SYMMETRIC' (edge repeated).

    Args:
        paddings (Union[Tensor, tuple]): shape (rank, 2): (before, after) per dimension.
    """
    op = "MirrorPad"
    check_tensor(op, "input_x", input_x)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"For '{op}', the 'mode' must be 'REFLECT' or 'SYMMETRIC', but got {mode!r}.")
    pairs = _pairs_arg(op, input_x, paddings)
    return _pad_axes(op, input_x, list(enumerate(pairs)), mode.lower())


def _pad_all(x, paddings):
    """Zero padding of every dimension by (before, after) pairs (the class `ops.Pad`)."""
    pairs = _pairs_arg("Pad", x, paddings)
    flat = []
    for a, b in reversed(pairs):
        flat += [a, b]
    return C.pad_constant_p(x, pads=tuple(flat), value=0)


# ---------------------------------------------------------------- im2col / col2im
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of (N, C, H, W) as columns: (N, C * kH * kW, L) (im2col).

    Raises:
        ValueError: input not 4D, non-positive kernel/stride/dilation, negative padding, no complete block.
    """
    op = "unfold"
    check_rank(op, input, (4,))
    kernel = int_tuple(op, "kernel_size", kernel_size, 2)
    dilation = int_tuple(op, "dilation", dilation, 2)
    padding = int_tuple(op, "padding", padding, 2, minimum=0)
    stride = int_tuple(op, "stride", stride, 2)
    _blocks(op, input.shape[2:], kernel, dilation, padding, stride)
    return C.unfold_p(input, kernel=kernel, dilation=dilation, padding=padding, stride=stride)


def _blocks(op, spatial, kernel, dilation, padding, stride):
    n = 1
    for s, k, d, p, st in zip(spatial, kernel, dilation, padding, stride):
        span = s + 2 * p - d * (k - 1) - 1
        if span < 0:
            raise ValueError(f"For '{op}', the spatial size {tuple(spatial)} with padding {padding} is smaller than "
                             f"the dilated kernel {kernel}.")
        n *= span // st + 1
    return n


def _size_arg(op, output_size):
    if isinstance(output_size, Tensor):
        output_size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
    if isinstance(output_size, (tuple, list)) and any(isinstance(v, int) and v < 0 for v in output_size):
        raise ValueError(f"For 'Col2Im', the value of 'output_size' must not be negative, but got "
                         f"{list(output_size)}.")
    return int_tuple(op, "output_size", output_size, 2)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum columns (N, C * kH * kW, L) back into (N, C, *output_size) (col2im; the adjoint of `unfold`).

    Raises:
        ValueError: input not 3D, channels not divisible by the kernel size, L not the number of blocks.
    """
    op = "fold"
    check_rank(op, input, (3,))
    output_size = _size_arg(op, output_size)
    kernel = int_tuple(op, "kernel_size", kernel_size, 2)
    dilation = int_tuple(op, "dilation", dilation, 2)
    padding = int_tuple(op, "padding", padding, 2, minimum=0)
    stride = int_tuple(op, "stride", stride, 2)
    if input.shape[1] % (kernel[0] * kernel[1]):
        raise ValueError(f"For '{op}', the input's second dimension {input.shape[1]} must be divisible by the "
                         f"kernel size product {kernel[0] * kernel[1]}.")
    blocks = _blocks(op, output_size, kernel, dilation, padding, stride)
    if input.shape[2] != blocks:
        raise ValueError(f"For '{op}', the input's last dimension must be equal to the calculated number of sliding "
                         f"blocks {blocks}, but got {input.shape[2]}.")
    return C.fold_p(input, output_size=output_size, kernel=kernel, dilation=dilation, padding=padding,
                    stride=stride)


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """col2im of (N, C, kH * kW, L) into (N, C, *output_size); see `fold`."""
    check_rank("col2im", input_x, (4,), "input_x")
    n, c, kk, length = input_x.shape
    x = P.reshape_p(input_x, shape=(n, c * kk, length))
    return fold(x, output_size, kernel_size, dilation, padding_value, stride)


# ---------------------------------------------------------------- layout
def _check_shuffle(op, name, v, xname, x):
    """The checks of the channel/pixel shuffles: `name` a positive int, `x` a Tensor of rank 3 or more."""
    if not _is_int(v) or v < 1:
        raise ValueError(f"For '{op}', the '{name}' must be a positive int, but got {v!r}.")
    check_tensor(op, xname, x)
    if x.ndim < 3:
        raise ValueError(f"For '{op}', the dimension of '{xname}' must be at least 3, but got {x.ndim}.")


def pixel_shuffle(input, upscale_factor):
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r).

    >>> import mindseed as ms
    >>> ms.ops.pixel_shuffle(ms.ops.ones((1, 8, 2, 3)), 2).shape
    (1, 2, 4, 6)
    """
    op = "pixel_shuffle"
    _check_shuffle(op, "upscale_factor", upscale_factor, "input", input)
    r = upscale_factor
    *pre, c, h, w = input.shape
    if c % (r * r):
        raise ValueError(f"For '{op}', the length of third to last dimension {c} is not divisible by "
                         f"'upscale_factor' squared {r * r}.")
    pre, k = tuple(pre), len(pre)
    x = P.reshape_p(input, shape=pre + (c // (r * r), r, r, h, w))
    x = P.transpose_p(x, perm=tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return P.reshape_p(x, shape=pre + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W); the inverse of `pixel_shuffle`."""
    op = "pixel_unshuffle"
    _check_shuffle(op, "downscale_factor", downscale_factor, "input", input)
    r = downscale_factor
    *pre, c, h, w = input.shape
    if h % r or w % r:
        raise ValueError(f"For '{op}', the last two dimensions ({h}, {w}) must be divisible by "
                         f"'downscale_factor' {r}.")
    pre, k = tuple(pre), len(pre)
    x = P.reshape_p(input, shape=pre + (c, h // r, r, w // r, r))
    x = P.transpose_p(x, perm=tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return P.reshape_p(x, shape=pre + (c * r * r, h // r, w // r))


def channel_shuffle(x, groups):
    """Interleave the channels of (N, C, *) across `groups`: (N, g, C / g, *) -> (N, C / g, g, *)."""
    op = "channel_shuffle"
    _check_shuffle(op, "groups", groups, "x", x)
    n, c, *rest = x.shape
    if c % groups:
        raise ValueError(f"For '{op}', the number of channels {c} must be divisible by 'groups' {groups}.")
    y = P.reshape_p(x, shape=(n, groups, c // groups) + tuple(rest))
    y = P.transpose_p(y, perm=(0, 2, 1) + tuple(range(3, y.ndim)))
    return P.reshape_p(y, shape=x.shape)


def _depth_to_space(x, block_size):
    """TF/MindSpore DepthToSpace on NCHW: out[n, c, h*b + i, w*b + j] = x[n, (i*b + j) * C' + c, h, w]."""
    op = "DepthToSpace"
    check_rank(op, x, (4,), "x")
    b = block_size
    n, c, h, w = x.shape
    if c % (b * b):
        raise ValueError(f"For '{op}', the channels {c} must be divisible by block_size squared {b * b}.")
    y = P.reshape_p(x, shape=(n, b, b, c // (b * b), h, w))
    y = P.transpose_p(y, perm=(0, 3, 4, 1, 5, 2))
    return P.reshape_p(y, shape=(n, c // (b * b), h * b, w * b))


def _space_to_depth(x, block_size):
    """TF/MindSpore SpaceToDepth on NCHW; the inverse of `_depth_to_space`."""
    op = "SpaceToDepth"
    check_rank(op, x, (4,), "x")
    b = block_size
    n, c, h, w = x.shape
    if h % b or w % b:
        raise ValueError(f"For '{op}', the height and width ({h}, {w}) must be divisible by block_size {b}.")
    y = P.reshape_p(x, shape=(n, c, h // b, b, w // b, b))
    y = P.transpose_p(y, perm=(0, 3, 5, 1, 2, 4))
    return P.reshape_p(y, shape=(n, c * b * b, h // b, w // b))


def _unfold_method(self, kernel_size, dilation=1, padding=0, stride=1):
    return unfold(self, kernel_size, dilation, padding, stride)


def _fold_method(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return fold(self, output_size, kernel_size, dilation, padding, stride)


def _col2im_method(self, output_size, kernel_size, dilation, padding_value, stride):
    return col2im(self, output_size, kernel_size, dilation, padding_value, stride)


# name -> function(self, ...) attached to Tensor
TENSOR_METHODS = {"unfold": _unfold_method, "fold": _fold_method, "col2im": _col2im_method}
