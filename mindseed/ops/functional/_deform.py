"""Deformable sampling: convolution (MindSpore's `ops.deformable_conv2d` and the `DeformableOffsets` primitive
class: the input sampled bilinearly at the kernel positions moved by learned offsets and scaled by a modulation mask,
laid out so that a convolution with stride = kernel size finishes the job) and multi-scale deformable attention
(`ops.multi_scale_deformable_attn_function`). Composites of gathers and arithmetic: differentiable in the values,
the sampling positions and the weights."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F

__all__ = ["deformable_conv2d", "multi_scale_deformable_attn_function"]


def _ints(api, name, v, n):
    if not isinstance(v, (tuple, list)) or len(v) != n or not all(isinstance(i, int) and not isinstance(i, bool)
                                                                  for i in v):
        raise TypeError(f"For '{api}', the '{name}' must be a tuple of {n} ints, but got {v!r}.")
    return tuple(v)


def _check_nc_ones(api, name, v):
    if v[0] != 1 or v[1] != 1:
        raise ValueError(f"For '{api}', the N and C dimensions of '{name}' must be set to 1, but got {v}.")


def _bilinear(x, py, px):
    """x (N, G, Cg, H, W) sampled at float positions py, px (N, G, P): (N, G, Cg, P), zero outside the image."""
    n, g, cg, h, w = x.shape
    flat = F.reshape(x, (n, g, cg, h * w))
    y0, x0 = F.floor(py), F.floor(px)
    out = None
    for dy in (0, 1):
        for dx in (0, 1):
            yy, xx = y0 + dy, x0 + dx
            weight = (1 - F.abs(py - yy)) * (1 - F.abs(px - xx))
            inside = (yy >= 0) & (yy <= h - 1) & (xx >= 0) & (xx <= w - 1)
            idx = F.clamp(yy, 0, h - 1) * w + F.clamp(xx, 0, w - 1)
            idx = F.broadcast_to(F.expand_dims(idx.astype(mstype.int64), 2), (n, g, cg, idx.shape[-1]))
            term = F.gather_elements(flat, 3, idx) * F.expand_dims(weight * inside.astype(weight.dtype), 2)
            out = term if out is None else out + term
    return out


def deformable_offsets(x, offsets, strides, pads, ksize, dilations=(1, 1, 1, 1), data_format="NCHW",
                       deformable_groups=1, modulated=True, out_of_offsets=False):
    """The deformed patches of `x` (N, C, H, W): shape (N, C, H_out * kh, W_out * kw), element
    [n, c, i * kh + u, j * kw + v] = mask * x[n, c] sampled bilinearly at (i * sh - pad_top + u * dh + dy,
    j * sw - pad_left + v * dw + dx); `offsets` (N, 3 * deformable_groups * kh * kw, H_out, W_out) holds the dx,
    dy and mask planes in that order, each indexed by (group, u, v). With `out_of_offsets` (MindSpore's gradient
    kernel) the output positions are those of the offsets' H_out x W_out, at most those of the formula."""
    api = "DeformableOffsets"
    for name, t in (("x", x), ("offsets", offsets)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{api}', the '{name}' must be a Tensor, but got {type(t).__name__}.")
    strides = _ints(api, "strides", strides, 4)
    pads = _ints(api, "pads", pads, 4)
    kh, kw = _ints(api, "ksize", ksize, 2)
    dilations = _ints(api, "dilations", dilations, 4)
    _check_nc_ones(api, "strides", strides)
    _check_nc_ones(api, "dilations", dilations)
    if data_format != "NCHW":
        raise ValueError(f"For '{api}', the 'data_format' must be 'NCHW', but got {data_format!r}.")
    if not isinstance(modulated, bool):
        raise TypeError(f"For '{api}', the 'modulated' must be a bool, but got {type(modulated).__name__}.")
    if not modulated:
        raise ValueError(f"For '{api}', the 'modulated' must be True (DeformableConv2D v2), but got False.")
    if x.ndim != 4 or offsets.ndim != 4:
        raise ValueError(f"For '{api}', 'x' and 'offsets' must be 4-D, but got {x.shape} and {offsets.shape}.")
    n, c, h, w = x.shape
    dg = deformable_groups
    if not isinstance(dg, int) or dg < 1 or c % dg:
        raise ValueError(f"For '{api}', the 'deformable_groups' must be a positive divisor of the input channels "
                         f"{c}, but got {dg}.")
    sh, sw, dh, dw = strides[2], strides[3], dilations[2], dilations[3]
    ho = (h + pads[0] + pads[1] - (kh - 1) * dh - 1) // sh + 1
    wo = (w + pads[2] + pads[3] - (kw - 1) * dw - 1) // sw + 1
    k = kh * kw
    if out_of_offsets and offsets.ndim == 4 and offsets.shape[2] <= ho and offsets.shape[3] <= wo:
        ho, wo = offsets.shape[2:]
    if offsets.shape != (n, 3 * dg * k, ho, wo):
        raise ValueError(f"For '{api}', the 'offsets' must have shape {(n, 3 * dg * k, ho, wo)} for this input and "
                         f"kernel, but got {offsets.shape}.")
    planes = F.reshape(offsets, (n, 3, dg, kh, kw, ho, wo)).astype(x.dtype)
    # base sampling grid (kh, kw, ho, wo)
    base_y = (np.arange(ho) * sh - pads[0])[None, None, :, None] + (np.arange(kh) * dh)[:, None, None, None]
    base_x = (np.arange(wo) * sw - pads[2])[None, None, None, :] + (np.arange(kw) * dw)[None, :, None, None]
    base_y = np.broadcast_to(base_y, (kh, kw, ho, wo)).astype(np.float64)
    base_x = np.broadcast_to(base_x, (kh, kw, ho, wo)).astype(np.float64)
    py = F.reshape(planes[:, 1] + Tensor(base_y, x.dtype), (n, dg, -1))
    px = F.reshape(planes[:, 0] + Tensor(base_x, x.dtype), (n, dg, -1))
    sampled = _bilinear(F.reshape(x, (n, dg, c // dg, h, w)), py, px)          # (N, G, Cg, kh*kw*ho*wo)
    sampled = sampled * F.expand_dims(F.reshape(planes[:, 2], (n, dg, -1)), 2)
    out = F.reshape(sampled, (n, c, kh, kw, ho, wo))
    return F.reshape(F.transpose(out, (0, 1, 4, 2, 5, 3)), (n, c, ho * kh, wo * kw))


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None, dilations=(1, 1, 1, 1), groups=1,
                      deformable_groups=1, modulated=True):
    r"""2-D deformable convolution (v2): y(p) = sum_k w_k x(p + p_k + dp_k) m_k, with the offsets dp and the mask m
    in `offsets` (N, 3 * deformable_groups * kh * kw, H_out, W_out), planes ordered (offset_x, offset_y, mask).

    Args:
        kernel_size (tuple[int]): (kh, kw).
        strides (tuple[int]): 4 ints, N and C set to 1.
        padding (tuple[int]): (top, bottom, left, right).
        bias (Tensor): (C_out,). Default: ``None``.
        dilations (tuple[int]): 4 ints, N and C set to 1. Default: ``(1, 1, 1, 1)``.
        groups (int): convolution groups. Default: ``1``.
        deformable_groups (int): groups of channels sharing offsets. Default: ``1``.
        modulated (bool): must be True (v2). Default: ``True``.

    Returns:
        Tensor (N, C_out, H_out, W_out).

    >>> import numpy as np, mindseed as ms
    >>> x = ms.Tensor(np.ones((4, 3, 10, 10)), ms.float32)
    >>> w = ms.Tensor(np.ones((5, 3, 3, 3)), ms.float32)
    >>> off = ms.Tensor(np.ones((4, 27, 8, 8)), ms.float32)
    >>> ms.ops.deformable_conv2d(x, w, off, (3, 3), (1, 1, 1, 1), (0, 0, 0, 0)).shape
    (4, 5, 8, 8)
    """
    kernel_size = _ints("deformable_conv2d", "kernel_size", kernel_size, 2)
    patches = deformable_offsets(x, offsets, strides, padding, kernel_size, dilations, "NCHW", deformable_groups,
                                 modulated)
    if not isinstance(weight, Tensor):
        raise TypeError(f"For 'deformable_conv2d', the 'weight' must be a Tensor, but got {type(weight).__name__}.")
    out = F.conv2d(patches, weight.astype(patches.dtype), stride=kernel_size, groups=groups)
    if bias is not None:
        out = out + F.reshape(bias.astype(out.dtype), (1, -1, 1, 1))
    return out


def multi_scale_deformable_attn_function(value, shape, offset, locations, weight):
    r"""Multi-scale deformable attention (Deformable DETR): for each query, head, level and point, the level's
    feature map sampled bilinearly at `locations` (x, y in [0, 1] of the map; zero outside, pixel centres at
    (i + 0.5) / size), weighted by `weight` and summed over levels and points.

    Args:
        value (Tensor): (bs, num_keys, num_heads, embed_dims), the levels' maps flattened one after another.
        shape (Tensor): (num_levels, 2) int, each level's (H, W).
        offset (Tensor): (num_levels,) int, where each level starts in num_keys.
        locations (Tensor): (bs, num_queries, num_heads, num_levels, num_points, 2).
        weight (Tensor): (bs, num_queries, num_heads, num_levels, num_points).

    Returns:
        Tensor (bs, num_queries, num_heads * embed_dims).

    Raises:
        TypeError: non-Tensor inputs, or `shape`/`offset` not int32/int64.
        ValueError: shapes that do not agree.
    """
    api = "multi_scale_deformable_attn_function"
    for name, t in (("value", value), ("shape", shape), ("offset", offset), ("locations", locations),
                    ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For '{api}', the '{name}' must be a Tensor, but got {type(t).__name__}.")
    for name, t in (("shape", shape), ("offset", offset)):
        if t.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{api}', the dtype of '{name}' must be int32 or int64, but got {t.dtype}.")
    if value.ndim != 4 or locations.ndim != 6 or weight.ndim != 5:
        raise ValueError(f"For '{api}', 'value', 'locations' and 'weight' must be 4-D, 6-D and 5-D, but got "
                         f"{value.shape}, {locations.shape} and {weight.shape}.")
    bs, keys, heads, dim = value.shape
    _, queries, _, levels, points, _ = locations.shape
    sizes, starts = shape.asnumpy().reshape(-1, 2).tolist(), offset.asnumpy().reshape(-1).tolist()
    if len(sizes) != levels or len(starts) != levels or weight.shape != locations.shape[:-1]:
        raise ValueError(f"For '{api}', {levels} levels in 'locations' need {levels} rows of 'shape' and 'offset' "
                         f"and 'weight' shaped {locations.shape[:-1]}, but got {len(sizes)}, {len(starts)} and "
                         f"{weight.shape}.")
    out = None
    for lvl, ((h, w), start) in enumerate(zip(sizes, starts)):
        if start + h * w > keys:
            raise ValueError(f"For '{api}', level {lvl} ({h}x{w} from key {start}) runs past the {keys} keys.")
        fmap = F.transpose(value[:, start:start + h * w], (0, 2, 3, 1))           # (bs, heads, dim, h*w)
        fmap = F.reshape(fmap, (bs, heads, dim, h, w))
        loc = F.transpose(locations[:, :, :, lvl].astype(value.dtype), (0, 2, 1, 3, 4))   # (bs, heads, Q, P, 2)
        px = F.reshape(loc[..., 0] * w - 0.5, (bs, heads, -1))
        py = F.reshape(loc[..., 1] * h - 0.5, (bs, heads, -1))
        sampled = _bilinear(fmap, py, px)                                           # (bs, heads, dim, Q*P)
        wt = F.reshape(F.transpose(weight[:, :, :, lvl].astype(value.dtype), (0, 2, 1, 3)), (bs, heads, 1, -1))
        part = F.reshape(sampled * wt, (bs, heads, dim, queries, points)).sum(-1)
        out = part if out is None else out + part
    return F.reshape(F.transpose(out, (0, 3, 1, 2)), (bs, queries, heads * dim))
