"""Detection-box ops (iou, bounding_box_encode/decode, check_valid), signal windows (bartlett, blackman, hamming,
hann, kaiser), sample frequencies (fftfreq, rfftfreq) and dtype epsilon — composites of primitives, as MindSpore's
are written.

Box coordinates are (x0, y0, x1, y1) in pixels, both ends included: a box's width is x1 - x0 + 1, as in MindSpore's
kernels. Windows and frequencies depend on integers only: computed with numpy, no gradient.
"""
import math

import numpy as np

from mindseed._utils.errors import host_alloc
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F

__all__ = ["iou", "bounding_box_encode", "bounding_box_decode", "check_valid", "bartlett_window", "blackman_window",
           "hamming_window", "hann_window", "kaiser_window", "fftfreq", "rfftfreq", "eps"]

TENSOR_METHODS = {}


def _boxes(api, name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{api}', the '{name}' must be a Tensor, but got {type(x).__name__}.")
    if x.ndim != 2 or x.shape[1] < 4:
        raise ValueError(f"For '{api}', the '{name}' must have shape (N, 4), but got {x.shape}.")
    return [x[:, k] for k in range(4)]


def iou(anchor_boxes, gt_boxes, mode="iou"):
    """Intersection over union ('iou') or over the ground-truth area ('iof') of every (gt, anchor) pair: (M, N).

    Raises:
        KeyError: `mode` not 'iou' or 'iof'.

    >>> import mindseed as ms
    >>> ms.ops.iou(ms.Tensor([[0.0, 0, 1, 1]]), ms.Tensor([[0.0, 0, 1, 1]])).tolist()
    [[1.0]]
    """
    if mode not in ("iou", "iof"):
        raise KeyError(f"For 'IOU', the 'mode' must be 'iou' or 'iof', but got {mode!r}.")
    ax0, ay0, ax1, ay1 = (F.expand_dims(c, 0) for c in _boxes("IOU", "anchor_boxes", anchor_boxes))
    gx0, gy0, gx1, gy1 = (F.expand_dims(c, 1) for c in _boxes("IOU", "gt_boxes", gt_boxes))
    w = F.relu(F.minimum(ax1, gx1) - F.maximum(ax0, gx0) + 1)
    h = F.relu(F.minimum(ay1, gy1) - F.maximum(ay0, gy0) + 1)
    overlap = w * h
    gt_area = (gx1 - gx0 + 1) * (gy1 - gy0 + 1)
    if mode == "iof":
        return overlap / gt_area
    return overlap / ((ax1 - ax0 + 1) * (ay1 - ay0 + 1) + gt_area - overlap)


def _centers(api, name, boxes):
    x0, y0, x1, y1 = _boxes(api, name, boxes)
    return (x0 + x1) * 0.5, (y0 + y1) * 0.5, x1 - x0 + 1.0, y1 - y0 + 1.0


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """The deltas (dx, dy, dw, dh) that move each anchor onto its ground-truth box, normalised by means and stds."""
    px, py, pw, ph = _centers("BoundingBoxEncode", "anchor_box", anchor_box)
    gx, gy, gw, gh = _centers("BoundingBoxEncode", "groundtruth_box", groundtruth_box)
    deltas = F.stack([(gx - px) / pw, (gy - py) / ph, F.log(gw / pw), F.log(gh / ph)], axis=1)
    return (deltas - Tensor(list(means), deltas.dtype)) / Tensor(list(stds), deltas.dtype)


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip=0.016):
    """The boxes that `deltas` make of the anchors (the inverse of bounding_box_encode), clipped to the image of
    `max_shape` (height, width); log-scale changes are clipped to |log(wh_ratio_clip)|."""
    if not isinstance(deltas, Tensor):
        raise TypeError(f"For 'BoundingBoxDecode', the 'deltas' must be a Tensor, but got {type(deltas).__name__}.")
    px, py, pw, ph = _centers("BoundingBoxDecode", "anchor_box", anchor_box)
    d = deltas * Tensor(list(stds), deltas.dtype) + Tensor(list(means), deltas.dtype)
    limit = abs(math.log(wh_ratio_clip))
    dw, dh = F.clamp(d[:, 2], -limit, limit), F.clamp(d[:, 3], -limit, limit)
    gx, gy = px + pw * d[:, 0], py + ph * d[:, 1]
    gw, gh = pw * F.exp(dw), ph * F.exp(dh)
    height, width = max_shape[0], max_shape[1]
    x0 = F.clamp(gx - gw * 0.5 + 0.5, 0, width - 1)
    y0 = F.clamp(gy - gh * 0.5 + 0.5, 0, height - 1)
    x1 = F.clamp(gx + gw * 0.5 - 0.5, 0, width - 1)
    y1 = F.clamp(gy + gh * 0.5 - 0.5, 0, height - 1)
    return F.stack([x0, y0, x1, y1], axis=1)


def check_valid(bboxes, image_metas):
    """Whether each box lies inside the image of `image_metas` (height, width, scale ratio): a bool per box."""
    x0, y0, x1, y1 = _boxes("CheckValid", "bboxes", bboxes)
    if not isinstance(image_metas, Tensor) or image_metas.shape != (3,):
        raise ValueError(f"For 'CheckValid', the 'image_metas' must be a Tensor of shape (3,), but got "
                         f"{getattr(image_metas, 'shape', type(image_metas).__name__)}.")
    meta = image_metas.astype(bboxes.dtype)
    h, w = meta[0] * meta[2] - 1, meta[1] * meta[2] - 1
    return F.logical_and(F.logical_and(x0 >= 0, y0 >= 0), F.logical_and(x1 <= w, y1 <= h))


def _window(api, window_length, periodic, dtype, make):
    n = window_length
    if isinstance(n, Tensor):
        if n.size != 1 or not mstype.is_integral(n.dtype) or n.dtype == mstype.bool_:
            raise TypeError(f"For '{api}', the 'window_length' must be an int or a one-element int Tensor, but got "
                            f"a {n.dtype} Tensor of shape {n.shape}.")
        n = int(n.item())
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"For '{api}', the 'window_length' must be a non-negative int, but got {window_length!r}.")
    if not isinstance(periodic, bool):
        raise TypeError(f"For '{api}', the 'periodic' must be a bool, but got {type(periodic).__name__}.")
    dtype = dtype or mstype.float32
    if not mstype.is_float(dtype):
        raise TypeError(f"For '{api}', the 'dtype' must be a float type, but got {dtype}.")
    if n <= 1:
        return Tensor(np.ones(n), dtype)
    w = host_alloc(api, lambda: make(n + 1)[:-1] if periodic else make(n))
    return Tensor(np.asarray(w, np.float64), dtype)


def _cosine(m, coefficients):
    k = 2 * np.pi * np.arange(m) / (m - 1)
    return sum(c * np.cos(i * k) for i, c in enumerate(coefficients))


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """The Bartlett (triangular) window of `window_length` points (periodic: for spectral analysis)."""
    return _window("bartlett_window", window_length, periodic, dtype, np.bartlett)


def blackman_window(window_length, periodic=True, *, dtype=None):
    """The Blackman window: 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    return _window("blackman_window", window_length, periodic, dtype, lambda m: _cosine(m, (0.42, -0.5, 0.08)))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """The generalised Hamming window: alpha - beta cos(2 pi n / (N - 1))."""
    # alpha and beta are float32 attributes of MindSpore's HammingWindow kernel, which computes in double: 0.54 is
    # 0.54000002 there (the window starts at 0.08000001)
    for arg, value in (("alpha", alpha), ("beta", beta)):
        if not isinstance(value, float):
            raise TypeError(f"For 'hamming_window', '{arg}' must be float, but got {type(value).__name__}.")
    alpha, beta = float(np.float32(alpha)), float(np.float32(beta))
    return _window("hamming_window", window_length, periodic, dtype, lambda m: _cosine(m, (alpha, -beta)))


def hann_window(window_length, periodic=True, *, dtype=None):
    """The Hann window: 0.5 - 0.5 cos(2 pi n / (N - 1))."""
    return _window("hann_window", window_length, periodic, dtype, lambda m: _cosine(m, (0.5, -0.5)))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """The Kaiser window of shape parameter `beta`: I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)."""
    return _window("kaiser_window", window_length, periodic, dtype, lambda m: np.kaiser(m, beta))


def _freq(api, n, d, dtype, make):
    if isinstance(n, bool) or not isinstance(n, int) or not 0 < n < 2 ** 63:
        raise ValueError(f"For '{api}', the 'n' must be a positive int64, but got {n!r}.")
    if isinstance(d, bool) or not isinstance(d, (int, float)) or d == 0:
        raise ValueError(f"For '{api}', the 'd' must be a non-zero number, but got {d!r}.")
    return Tensor(host_alloc(api, make, n, d), dtype or mstype.float32)


def fftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an n-point fft with sample spacing d: [0, 1, ..., -1] / (d n)."""
    return _freq("fftfreq", n, d, dtype, np.fft.fftfreq)


def rfftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an n-point rfft with sample spacing d: [0, 1, ..., n // 2] / (d n)."""
    return _freq("rfftfreq", n, d, dtype, np.fft.rfftfreq)


def eps(x):
    """A Tensor like `x` filled with the machine epsilon of its float dtype (1.1920929e-07 for float32)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'Eps', the 'x' must be a Tensor, but got {type(x).__name__}.")
    if x.dtype not in (mstype.float16, mstype.float32, mstype.float64):
        raise TypeError(f"For 'Eps', the 'x' must be a Tensor of float16, float32 or float64, but got {x.dtype}.")
    return F.full_like(x, float(np.finfo(mstype.dtype_to_nptype(x.dtype)).eps))
