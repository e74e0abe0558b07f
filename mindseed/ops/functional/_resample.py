"""Functional ops: resampling (interpolate/upsample, TF-style resizes), grid sampling, affine grids.

The TF-style resizes that torch has no kernel for (bicubic with Keys' a = -0.5 and edge renormalization, legacy
"asymmetric" bilinear, align_corners nearest) are separable linear maps: a constant (out, in) weight matrix per
spatial axis, applied by matmul, or a constant index gather. Their gradients then come for free.
"""
import functools
import math

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import conv as C
from mindseed.ops._prims import core as P
from mindseed.ops.functional._conv_args import _is_int, check_float, check_rank, check_tensor

__all__ = ["interpolate", "upsample", "grid_sample", "affine_grid", "crop_and_resize"]


# ---------------------------------------------------------------- separable TF-style weights
def _tf_scale(n_in, n_out, align_corners):
    return (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out


@functools.lru_cache(maxsize=256)
def _linear_weights(n_in, n_out, align_corners, half_pixel):
    """(n_out, n_in) weights of TF's ResizeBilinear along one axis."""
    scale = _tf_scale(n_in, n_out, align_corners)
    w = np.zeros((n_out, n_in))
    for o in range(n_out):
        src = (o + 0.5) * scale - 0.5 if half_pixel else o * scale
        f = math.floor(src)
        lerp = src - f
        w[o, min(max(f, 0), n_in - 1)] += 1 - lerp
        w[o, min(math.ceil(src), n_in - 1)] += lerp
    return w


@functools.lru_cache(maxsize=8)
def _cubic_table(a):
    """TF's tabulated Keys cubic coefficients (1024 steps; float32 arithmetic as the reference kernel)."""
    size = 1024
    t = np.arange(size + 1, dtype=np.float32) / np.float32(size)
    a = np.float32(a)
    near = ((a + 2) * t - (a + 3)) * t * t + 1
    t1 = t + np.float32(1.0)
    far = ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a
    return near.astype(np.float64), far.astype(np.float64)


@functools.lru_cache(maxsize=256)
def _cubic_weights(n_in, n_out, align_corners, half_pixel):
    """(n_out, n_in) weights of TF's ResizeBicubic along one axis (MindSpore's kernel)."""
    near, far = _cubic_table(-0.5 if half_pixel else -0.75)
    scale = np.float32(_tf_scale(n_in, n_out, align_corners))
    w = np.zeros((n_out, n_in))
    for o in range(n_out):
        src = (np.float32(o) + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel else np.float32(o) * scale
        base = math.floor(src)
        off = int(np.rint((src - base) * 1024))
        taps = (far[off], near[off], near[1024 - off], far[1024 - off])
        idx = [base - 1 + j for j in range(4)]
        bounded = [min(max(i, 0), n_in - 1) for i in idx]
        if half_pixel:  # taps outside the image get no weight; the rest are renormalized
            taps = [t if b == i else 0.0 for t, b, i in zip(taps, bounded, idx)]
            total = sum(taps)
            taps = [t / total for t in taps]
        for t, b in zip(taps, bounded):
            w[o, b] += t
    return w


@functools.lru_cache(maxsize=256)
def _nearest_index(n_in, n_out, align_corners, half_pixel):
    """Source index per output cell of TF's ResizeNearestNeighbor along one axis."""
    scale = _tf_scale(n_in, n_out, align_corners)
    out = []
    for o in range(n_out):
        src = (o + 0.5) * scale if half_pixel else o * scale
        i = math.floor(src + 0.5) if align_corners else math.floor(src)
        out.append(min(max(i, 0), n_in - 1))
    return tuple(out)


_WEIGHT_CACHE = {}


def _weight_tensor(kind, n_in, n_out, align_corners, half_pixel, dtype):
    key = (kind, n_in, n_out, align_corners, half_pixel, dtype)
    t = _WEIGHT_CACHE.get(key)
    if t is None:
        fn = _cubic_weights if kind == "cubic" else _linear_weights
        if len(_WEIGHT_CACHE) > 256:
            _WEIGHT_CACHE.clear()
        t = _WEIGHT_CACHE[key] = Tensor(fn(n_in, n_out, align_corners, half_pixel), dtype)
    return t


def _separable(kind, x, size, align_corners, half_pixel):
    """Resize the last len(size) axes of x by per-axis weight matrices (out = W @ x along each axis)."""
    nd = len(size)
    for i, n_out in enumerate(size):
        axis = x.ndim - nd + i
        n_in = x.shape[axis]
        w = _weight_tensor(kind, n_in, n_out, bool(align_corners), bool(half_pixel), x.dtype)
        if axis == x.ndim - 1:
            x = P.matmul_p(x, w, transpose_b=True)
        else:
            # bring the axis last, apply, move it back
            perm = tuple(j for j in range(x.ndim) if j != axis) + (axis,)
            inv = [0] * x.ndim
            for j, p in enumerate(perm):
                inv[p] = j
            y = P.matmul_p(P.transpose_p(x, perm=perm), w, transpose_b=True)
            x = P.transpose_p(y, perm=tuple(inv))
    return x


def _nearest_tf(x, size, align_corners, half_pixel):
    """TF's ResizeNearestNeighbor of the last len(size) axes (an index gather per axis)."""
    nd = len(size)
    for i, n_out in enumerate(size):
        axis = x.ndim - nd + i
        x = C.axis_gather_p(x, axis=axis, index=_nearest_index(x.shape[axis], n_out, bool(align_corners),
                                                                 bool(half_pixel)))
    return x


# ---------------------------------------------------------------- interpolate
_SUPPORTED = {
    "nearest": {3: (), 4: (), 5: ("scale_factor",)},
    "linear": {3: ("align_corners",)},
    "bilinear": {4: ("align_corners",)},
    "bicubic": {4: ("align_corners",)},
    "area": {3: ("scale_factor",), 4: ("scale_factor",), 5: ("scale_factor",)},
    "nearest-exact": {3: (), 4: ()},
    "trilinear": {5: ("align_corners", "scale_factor")},
}


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _positive_numbers(op, name, v, n, kind):
    """`v` (one number, or one per spatial dimension) as a tuple of n positive `kind`s (int or float)."""
    if (_is_int if kind is int else _is_number)(v):
        v = (kind(v),) * n
    element = _is_int if kind is int else lambda s: isinstance(s, (int, float))
    if not isinstance(v, (tuple, list)) or not all(element(s) and s > 0 for s in v):
        raise ValueError(f"For '{op}', the '{name}' must be a positive {kind.__name__} or a sequence of positive "
                         f"{kind.__name__}s, but got {v!r}.")
    if len(v) != n:
        raise ValueError(f"For '{op}', 'input' and '{name}' must have the same spatial dimensions, but got 'input' is "
                         f"{n}D, '{name}' is {len(v)}D")
    return tuple(kind(s) for s in v)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """Resample the spatial dimensions of (N, C, *spatial) to `size` or by `scale_factor`.

    Args:
        input (Tensor): 3D, 4D or 5D float tensor.
        size (Union[int, tuple[int]]): target spatial size; exactly one of size / scale_factor.
        scale_factor (Union[float, tuple[float]]): per-axis factor (output floor(in * factor)); accepted only where
            MindSpore accepts it (nearest 5D, trilinear, area) unless recompute_scale_factor is True.
        mode (str): 'nearest', 'linear' (3D), 'bilinear' (4D), 'bicubic' (4D, TF's kernel), 'trilinear' (5D),
            'area' (adaptive average) or 'nearest-exact' (3D/4D).
        align_corners (bool): corner-aligned coordinates, for the linear and cubic modes.
        recompute_scale_factor (bool): turn scale_factor into a size first.

    Raises:
        TypeError: input not a Tensor.
        ValueError: both or neither of size and scale_factor, unsupported mode / rank / option combination.

    >>> import mindseed as ms
    >>> ms.ops.interpolate(ms.ops.ones((1, 2, 3)), size=6).shape
    (1, 2, 6)
    """
    op = "interpolate"
    if not isinstance(input, Tensor):
        raise TypeError(f"For '{op}', 'input' must be a tensor, but got {type(input)}")
    rank = input.ndim
    n = rank - 2
    if size is not None and scale_factor is not None:
        raise ValueError(f"For '{op}', 'size' and 'scale_factor' cannot be set simultaneously")
    if size is None and scale_factor is None:
        raise ValueError(f"For '{op}', 'size' and 'scale_factor' cannot be both empty")
    if isinstance(mode, list) or mode not in _SUPPORTED:
        raise ValueError(f"For '{op}', 'mode' must be in '{list(_SUPPORTED)}', but got {mode}")
    if rank not in _SUPPORTED[mode]:
        raise ValueError(f"For '{op}', {mode} only support '{list(_SUPPORTED[mode])}'D, but got {rank}D")
    if size is not None:
        size = _positive_numbers(op, "size", size, n, int)
    else:
        scale_factor = _positive_numbers(op, "scale_factor", scale_factor, n, float)
    if mode == "area" and size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        if size is not None:
            raise ValueError(f"For '{op}', it is incorrect to set 'recompute_scale_factor' to True after specifying "
                             f"an explicit 'size'.")
        size = tuple(math.floor(s * f) for s, f in zip(input.shape[2:], scale_factor))
        scale_factor = None
    elif scale_factor is not None and "scale_factor" not in _SUPPORTED[mode][rank]:
        raise ValueError(f"For '{op}', 'scale_factor' option cannot currently be set with the mode = {mode} and "
                         f"dim = {rank}D.")
    if align_corners is not None:
        if not isinstance(align_corners, bool):
            raise TypeError(f"For '{op}', the 'align_corners' must be a bool, but got {type(align_corners).__name__}.")
        if "align_corners" not in _SUPPORTED[mode][rank]:
            raise ValueError(f"For '{op}', 'align_corners' option cannot currently be set with the mode = {mode}, "
                             f"and dim = {rank}D")
    align_corners = bool(align_corners)
    check_float(op, input)
    scales = None
    if size is None:
        size = tuple(math.floor(s * f) for s, f in zip(input.shape[2:], scale_factor))
        scales = scale_factor
    if min(size) < 1:
        raise ValueError(f"For '{op}', the output size {size} must be positive.")
    if mode == "area":
        return C.adaptive_avg_pool_p(input, output_size=size)
    if mode == "bicubic":
        return _separable("cubic", input, size, align_corners, not align_corners)
    if mode in ("linear", "bilinear", "trilinear"):
        return C.resize_p(input, mode="linear", size=size, align_corners=align_corners, scales=scales)
    return C.resize_p(input, mode=mode, size=size, scales=scales)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """Alias of `interpolate`."""
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


# ---------------------------------------------------------------- grid sampling
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample (N, C, H, W) at grid (N, H_out, W_out, 2) of (x, y) in [-1, 1] (or 5D input with a (..., 3) grid).

    Args:
        mode (str): 'bilinear' or 'nearest'.
        padding_mode (str): 'zeros', 'border' or 'reflection' for points outside [-1, 1].
        align_corners (bool): -1 and 1 are the centers (True) or the outer edges (False, default) of the corners.

    Raises:
        TypeError: inputs not float Tensors of one dtype.
        ValueError: ranks, batch sizes or the grid's last dimension do not match, bad mode.
    """
    op = "grid_sample"
    check_rank(op, input, (4, 5))
    check_tensor(op, "grid", grid)
    nd = input.ndim - 2
    if grid.ndim != input.ndim or grid.shape[-1] != nd or grid.shape[0] != input.shape[0]:
        raise ValueError(f"For '{op}', the 'grid' shape must be (N, *out_spatial, {nd}) matching the input shape "
                         f"{input.shape}, but got {grid.shape}.")
    check_float(op, input)
    if grid.dtype != input.dtype:
        raise TypeError(f"For '{op}', the 'input' dtype {input.dtype} and 'grid' dtype {grid.dtype} must be the same.")
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"For '{op}', the 'mode' must be 'bilinear' or 'nearest', but got {mode!r}.")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"For '{op}', the 'padding_mode' must be 'zeros', 'border' or 'reflection', but got "
                         f"{padding_mode!r}.")
    return C.grid_sample_p(input, grid, mode=mode, padding_mode=padding_mode, align_corners=bool(align_corners))


@functools.lru_cache(maxsize=64)
def _base_grid(spatial, align_corners):
    """(prod(spatial), nd + 1) homogeneous coordinates, x fastest, as numpy float64."""
    axes = []
    for n in spatial:
        v = np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
        axes.append(v if align_corners else v * (n - 1) / n)
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [m.reshape(-1) for m in reversed(mesh)]  # (x, y[, z]): the last axis first
    return np.stack(coords + [np.ones_like(coords[0])], axis=1)


def affine_grid(theta, size, align_corners=False):
    """Sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps theta (N, 2, 3) (or (N, 3, 4)).

    Args:
        theta (Tensor): float affine matrices.
        size (tuple[int]): the output image size (N, C, H, W) or (N, C, D, H, W).
        align_corners (bool): see `grid_sample`.

    Raises:
        TypeError: theta not a float Tensor.
        ValueError: theta's shape does not match `size`.
    """
    op = "affine_grid"
    check_rank(op, theta, (3,), "theta")
    check_float(op, theta, "theta")
    if not isinstance(size, (tuple, list)) or len(size) not in (4, 5) or not all(_is_int(s) and s > 0 for s in size):
        raise ValueError(f"For '{op}', the 'size' must be a tuple of 4 or 5 positive ints, but got {size!r}.")
    nd = len(size) - 2
    if theta.shape != (size[0], nd, nd + 1):
        raise ValueError(f"For '{op}', the 'theta' shape must be {(size[0], nd, nd + 1)} for size {tuple(size)}, but "
                         f"got {theta.shape}.")
    spatial = tuple(int(s) for s in size[2:])
    base = Tensor(_base_grid(spatial, bool(align_corners)), theta.dtype)
    out = P.matmul_p(base, P.transpose_p(theta, perm=(0, 2, 1)))  # (N, prod(spatial), nd)
    return P.reshape_p(out, shape=(size[0],) + spatial + (nd,))


_CROP_INT_IMAGES = (mstype.int8, mstype.int16, mstype.int32, mstype.int64, mstype.uint8, mstype.uint16)


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0):
    """Crop boxes out of NHWC images and resize each to `crop_size` (TF's CropAndResize).

    Args:
        image (Tensor): (batch, H, W, depth) images (float, or integer: a float32 result).
        boxes (Tensor): (num_boxes, 4) normalized [y1, x1, y2, x2]; y maps to y * (H - 1).
        box_indices (Tensor): (num_boxes,) int image index of each box.
        crop_size (tuple[int]): (crop_height, crop_width).
        method (str): 'bilinear' or 'nearest'.
        extrapolation_value (float): the value of sample points outside the image.

    Returns:
        Tensor of shape (num_boxes, crop_height, crop_width, depth).

    Raises:
        TypeError: image or boxes not float Tensors.
        ValueError: bad ranks or shapes, bad method or crop_size.
    """
    op = "CropAndResize"
    check_rank(op, image, (4,), "image")
    check_rank(op, boxes, (2,), "boxes")
    check_rank(op, box_indices, (1,), "box_indices")
    if image.dtype in _CROP_INT_IMAGES:
        image = P.cast_p(image, dtype="Float32")   # MindSpore samples integer images into a float32 result
    check_float(op, image, "image")
    check_float(op, boxes, "boxes")
    if boxes.shape[1] != 4 or box_indices.shape[0] != boxes.shape[0]:
        raise ValueError(f"For '{op}', the 'boxes' must be (num_boxes, 4) and 'box_indices' (num_boxes,), but got "
                         f"{boxes.shape} and {box_indices.shape}.")
    if not isinstance(crop_size, (tuple, list)) or len(crop_size) != 2 or not all(_is_int(c) and c > 0
                                                                                  for c in crop_size):
        raise ValueError(f"For '{op}', the 'crop_size' must be a tuple of two positive ints, but got {crop_size!r}.")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"For '{op}', the 'method' must be 'bilinear' or 'nearest', but got {method!r}.")
    _, h, w, _ = image.shape
    ch, cw = int(crop_size[0]), int(crop_size[1])
    if boxes.dtype != image.dtype:
        boxes = P.cast_p(boxes, dtype=image.dtype.name)
    index = tuple(int(i) for i in box_indices.asnumpy().reshape(-1))
    if any(not 0 <= i < image.shape[0] for i in index):
        raise ValueError(f"For '{op}', the 'box_indices' must be in [0, {image.shape[0]}), but got {list(index)}.")
    picked = C.axis_gather_p(P.transpose_p(image, perm=(0, 3, 1, 2)), axis=0, index=index)  # (B, C, H, W)
    y1, x1, y2, x2 = (P.getitem_p(boxes, index=(slice(None), slice(k, k + 1))) for k in range(4))

    def axis_coords(lo, hi, size, n):
        # TF: lo * (size - 1) + i * (hi - lo) * (size - 1) / (n - 1); the box center when n == 1
        steps = Tensor(np.arange(n, dtype=np.float64).reshape(1, n) / max(n - 1, 1), image.dtype)
        if n == 1:
            return P.mul_p(P.add_p(lo, hi), 0.5 * (size - 1))
        return P.mul_p(P.add_p(lo, P.mul_p(P.sub_p(hi, lo), steps)), float(size - 1))

    ys = axis_coords(y1, y2, h, ch)  # (B, ch) pixel coordinates
    xs = axis_coords(x1, x2, w, cw)  # (B, cw)
    nb = boxes.shape[0]
    gy = P.broadcast_to_p(P.reshape_p(ys, shape=(nb, ch, 1, 1)), shape=(nb, ch, cw, 1))
    gx = P.broadcast_to_p(P.reshape_p(xs, shape=(nb, 1, cw, 1)), shape=(nb, ch, cw, 1))
    # normalized for grid_sample with align_corners: -1 is pixel 0, 1 is pixel size - 1
    grid = P.concat_p(P.sub_p(P.mul_p(gx, 2.0 / max(w - 1, 1)), 1.0), P.sub_p(P.mul_p(gy, 2.0 / max(h - 1, 1)), 1.0),
                      axis=3)
    if method == "nearest":
        # TF rounds half away from zero, grid_sample half to even: snap the (non-differentiable) points to pixels
        grid = Tensor(_nearest_crop_grid(boxes.asnumpy().astype(np.float32), h, w, ch, cw), image.dtype)
    out = C.grid_sample_p(picked, grid, mode="bilinear" if method == "bilinear" else "nearest",
                          padding_mode="border", align_corners=True)
    outside = P.greater_p(P.add_p(P.cast_p(P.less_p(gy, 0.0), dtype=image.dtype.name),
                                  P.add_p(P.cast_p(P.greater_p(gy, float(h - 1)), dtype=image.dtype.name),
                                          P.add_p(P.cast_p(P.less_p(gx, 0.0), dtype=image.dtype.name),
                                                  P.cast_p(P.greater_p(gx, float(w - 1)), dtype=image.dtype.name)))),
                          0.0)  # (B, ch, cw, 1)
    out = P.transpose_p(out, perm=(0, 2, 3, 1))  # (B, ch, cw, C)
    fill = P.cast_p(P.zeros_like_p(out), dtype=image.dtype.name)
    return P.where_p(P.broadcast_to_p(outside, shape=out.shape), P.add_p(fill, float(extrapolation_value)), out)



def _tf_crop_coords(lo, hi, size, n):
    """TF's float32 sample coordinates of a crop along one axis: (num_boxes, n)."""
    f = np.float32
    if n == 1:
        return (f(0.5) * (lo + hi) * f(size - 1))[:, None]
    scale = (hi - lo) * f(size - 1) / f(n - 1)
    return lo[:, None] * f(size - 1) + np.arange(n, dtype=f)[None, :] * scale[:, None]


def _nearest_crop_grid(boxes, h, w, ch, cw):
    """Normalized (align_corners) grid at TF's rounded (half away from zero) nearest pixels."""
    ys = _tf_crop_coords(boxes[:, 0], boxes[:, 2], h, ch)
    xs = _tf_crop_coords(boxes[:, 1], boxes[:, 3], w, cw)
    ys, xs = (np.sign(v) * np.floor(np.abs(v) + 0.5) for v in (ys, xs))
    gy = np.broadcast_to(ys[:, :, None], (len(boxes), ch, cw)) * 2.0 / max(h - 1, 1) - 1.0
    gx = np.broadcast_to(xs[:, None, :], (len(boxes), ch, cw)) * 2.0 / max(w - 1, 1) - 1.0
    return np.stack([gx, gy], axis=-1)


def _roi_grid(rois, h, w, pooled, scale, sample_num, end_mode):
    """(grid, inside mask, samples per bin) of ROIAlign for rois (R, 5) = (batch, x1, y1, x2, y2), in numpy."""
    ph, pw = pooled
    x1, y1 = rois[:, 1] * scale, rois[:, 2] * scale
    if end_mode == 1:  # MindSpore: ends moved by one pixel before scaling, no minimum size
        x2, y2 = (rois[:, 3] + 1) * scale, (rois[:, 4] + 1) * scale
        rw, rh = x2 - x1, y2 - y1
    else:  # Caffe2/Detectron: boxes at least one pixel
        rw = np.maximum(rois[:, 3] * scale - x1, 1.0)
        rh = np.maximum(rois[:, 4] * scale - y1, 1.0)
    gh = sample_num if sample_num > 0 else int(np.ceil(rh.max() / ph))
    gw = sample_num if sample_num > 0 else int(np.ceil(rw.max() / pw))
    iy = (np.arange(ph)[:, None] + (np.arange(gh)[None, :] + 0.5) / gh).reshape(-1)  # (ph * gh,) in bins
    ix = (np.arange(pw)[:, None] + (np.arange(gw)[None, :] + 0.5) / gw).reshape(-1)
    ys = y1[:, None] + iy[None, :] * (rh / ph)[:, None]  # (R, ph * gh)
    xs = x1[:, None] + ix[None, :] * (rw / pw)[:, None]
    ys = np.broadcast_to(ys[:, :, None], (len(rois), ph * gh, pw * gw))
    xs = np.broadcast_to(xs[:, None, :], (len(rois), ph * gh, pw * gw))
    inside = (ys >= -1.0) & (ys <= h) & (xs >= -1.0) & (xs <= w)
    grid = np.stack([xs * 2.0 / max(w - 1, 1) - 1.0, ys * 2.0 / max(h - 1, 1) - 1.0], axis=-1)
    return grid, inside[:, None].astype(np.float64), (gh, gw)


def _roi_align(features, rois, pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1):
    """ROIAlign of (N, C, H, W) features over rois (R, 5): the average of bilinear samples per output bin.

    Samples outside (-1, size) count as zero and those within one pixel of the edge are clamped (Caffe2 rules).
    With sample_num 0 every roi uses ceil(largest roi size / pooled size) samples per bin. The rois are not
    differentiated.
    """
    op = "ROIAlign"
    check_rank(op, features, (4,), "features")
    check_rank(op, rois, (2,), "rois")
    check_float(op, features, "features")
    if rois.shape[1] != 5:
        raise ValueError(f"For '{op}', the 'rois' must have shape (num_rois, 5), but got {rois.shape}.")
    r = rois.asnumpy().astype(np.float64)
    index = tuple(int(b) for b in r[:, 0])
    if any(not 0 <= b < features.shape[0] for b in index):
        raise ValueError(f"For '{op}', the batch indices of 'rois' must be in [0, {features.shape[0]}), but got "
                         f"{list(index)}.")
    h, w = features.shape[2:]
    ph, pw = int(pooled_height), int(pooled_width)
    grid, inside, (gh, gw) = _roi_grid(r, h, w, (ph, pw), float(spatial_scale), int(sample_num), int(roi_end_mode))
    picked = C.axis_gather_p(features, axis=0, index=index)
    sampled = C.grid_sample_p(picked, Tensor(grid, features.dtype), mode="bilinear", padding_mode="border",
                              align_corners=True)
    sampled = P.mul_p(sampled, Tensor(inside, features.dtype))
    n, c = sampled.shape[:2]
    blocks = P.reshape_p(sampled, shape=(n, c, ph, gh, pw, gw))
    return P.mul_p(P.reduce_sum_p(blocks, axis=(3, 5)), 1.0 / (gh * gw))
