"""Image kernels on numpy HWC arrays (and PIL conversions) shared by the vision transforms.

Resizing follows OpenCV's conventions (what MindSpore's C++ ops use): pixel centres at +0.5, no
antialiasing for bilinear/bicubic/nearest, box averaging for AREA when shrinking. Geometric warps go
through Pillow's C kernels one channel plane at a time, so every dtype works.
"""
import functools
import io

import numpy as np

from mindseed.dataset._validate import to_array

try:
    from PIL import Image
except ImportError:  # pragma: no cover - Pillow is a dependency of the dataset package
    Image = None

__all__ = ["is_pil", "to_np", "to_pil", "decode_bytes", "resize", "hwc", "warp_affine", "warp_perspective",
           "pad_image", "rgb_to_gray", "rgb_to_hsv", "hsv_to_rgb", "clip_cast"]


def is_pil(x):
    return Image is not None and isinstance(x, Image.Image)


def to_np(img):
    """numpy HWC (or HW) array of an image."""
    if is_pil(img):
        return pil_to_np(img)
    return to_array(img, "image")


def to_pil(img):
    """A PIL image of a numpy HWC/HW array (uint8 for 1/3/4 channels, float for HW)."""
    if is_pil(img):
        return img
    a = to_array(img, "image")
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    if a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[2] not in (3, 4)):
        raise TypeError(f"The image must be <H, W> or <H, W, C> with C in (1, 3, 4), but got shape {a.shape}.")
    if a.dtype != np.uint8 and a.ndim == 3:
        a = np.clip(np.rint(a), 0, 255).astype(np.uint8)
    return Image.fromarray(a)


def check_image(img, who, min_dim=2):
    """numpy image with 2 or 3 dims (TypeError naming the op otherwise; a rank error is a RuntimeError, as
    MindSpore's C++ image kernels raise it)."""
    a = to_np(img)
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "biuf":
        raise TypeError(f"{who}: the input should be a numpy image or PIL image, but got {type(img).__name__}"
                        f"{' of dtype ' + str(a.dtype) if isinstance(a, np.ndarray) else ''}.")
    if a.ndim not in (2, 3) or a.ndim < min_dim:
        raise RuntimeError(f"{who}: the input image should be <H, W> or <H, W, C>, but got shape {list(a.shape)}.")
    return a


def hwc(a):
    """(array as H x W x C, whether the input was 2-D)."""
    return (a[:, :, None], True) if a.ndim == 2 else (a, False)


def clip_cast(x, dtype):
    """Float results back to the input dtype, rounding and saturating like OpenCV."""
    dtype = np.dtype(dtype)
    if dtype.kind in "ui":
        info = np.iinfo(dtype)
        return np.clip(np.rint(x), info.min, info.max).astype(dtype)
    if dtype == np.bool_:
        return x.astype(bool)
    return x.astype(dtype, copy=False)


def pil_to_np(pil):
    """A writable numpy copy of a PIL image (np.asarray alone gives a read-only view of Pillow's buffer)."""
    a = np.asarray(pil)
    return a if a.flags.writeable else a.copy()


def decode_bytes(data, where="image"):
    """Decode encoded image bytes to an RGB HWC uint8 array."""
    return pil_to_np(decode_pil(data, where))


_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_header(b):
    """(height, width, components) of the first frame of JPEG bytes, or None (not a plain JPEG)."""
    if b[:3] != b"\xff\xd8\xff":
        return None
    i, n = 2, len(b)
    while i + 9 < n:
        if b[i] != 0xFF:
            return None
        m = b[i + 1]
        if m == 0xFF:  # fill byte
            i += 1
        elif m == 0xD8 or m == 0x01 or 0xD0 <= m <= 0xD7:  # markers without a length
            i += 2
        elif m in _SOF:
            return (b[i + 5] << 8) | b[i + 6], (b[i + 7] << 8) | b[i + 8], b[i + 9]
        elif m == 0xDA:  # a scan before any frame header
            return None
        else:
            i += 2 + ((b[i + 2] << 8) | b[i + 3])
    return None


def _plain_jpeg(b):
    """(height, width) of JPEG bytes the direct decoder takes (1 or 3 components, within Pillow's pixel limit),
    else None."""
    head = _jpeg_header(b)
    if head is None or head[2] not in (1, 3) or not 0 < head[0] * head[1] <= (Image.MAX_IMAGE_PIXELS or 1 << 62):
        return None
    return head[0], head[1]


def jpeg_size(data):
    """(height, width) of a JPEG given as a 1-D uint8 array that `decode_rgbx` decodes directly, or None
    (anything else, which the general decoder handles)."""
    if not (isinstance(data, np.ndarray) and data.dtype == np.uint8 and data.ndim == 1):
        return None
    return _plain_jpeg(data[:65536].tobytes())


def _decode_jpeg_rgbx(b, rows=None):
    """Pillow's own JPEG decoder run directly (what Image.open + load run for a 1- or 3-component JPEG, without
    parsing the markers in Python), writing H x W x 4 RGBX uint8 straight into a numpy array (libjpeg-turbo
    converts the colours); None when the data needs the general path.

    `rows` < H decodes only the first `rows` rows (the rest of the entropy data is not decoded) when the data
    ends with the EOI marker (so a truncated file still goes to the general path, which reports it). libjpeg
    then stops with "too few scanlines", so success is checked on the pixels: libjpeg-turbo writes X = 0xFF,
    and the last row's X bytes start at 0."""
    size = _plain_jpeg(b)
    if size is None:
        return None
    h, w = size
    if rows is None or rows >= h or not b.rstrip(b"\0").endswith(b"\xff\xd9"):
        rows = h
    rows = max(int(rows), 1)
    out = np.empty((rows, w, 4), np.uint8)
    out[rows - 1, :, 3] = 0
    target = Image.core.map_buffer(out, (w, rows), "raw", 0, ("RGBX", 0, 1))  # what Image.frombuffer maps
    dec = Image.core.jpeg_decoder("RGBX", "RGBX", "")
    try:
        dec.setimage(target, (0, 0, w, rows))
        n, err = dec.decode(b)
    finally:
        dec.cleanup()
    if n >= 0 or (err < 0 and rows == h) or not (out[rows - 1, :, 3] == 255).all():
        return None  # truncated or corrupt: the general path reports it
    return out


def decode_rgbx(data, where="image", rows=None):
    """Decode encoded image bytes to an H x W x 4 uint8 array (RGB + a padding channel): the pixels of
    `decode_pil` (libjpeg-turbo writes RGBX as fast as RGB; use a[:, :, :3]). JPEGs skip Pillow's Python-level
    parsing; with `rows`, a JPEG may decode only its first `rows` rows (the result then has that many; other
    images and unusual JPEGs come whole)."""
    if isinstance(data, np.ndarray) and data.dtype == np.uint8 and data.ndim == 1:
        b = data.tobytes()
        try:
            out = _decode_jpeg_rgbx(b, rows)
        except Exception:  # noqa: BLE001  (anything unusual: the general path decides)
            out = None
        if out is not None:
            return out
        data = b
    im = decode_pil(data, where)
    return np.frombuffer(im.tobytes("raw", "RGBX"), np.uint8).reshape(im.size[1], im.size[0], 4)


def decode_pil(data, where="image"):
    """Decode encoded image bytes to an RGB PIL image."""
    if isinstance(data, np.ndarray):
        if data.dtype.kind == "S":
            # tobytes keeps trailing NUL bytes, which numpy's bytes scalars drop
            data = data.reshape(-1)[:1].tobytes() if data.size == 1 else b"".join(data.reshape(-1).tolist())
        elif data.dtype == np.uint8 and data.ndim == 1:
            data = data.tobytes()
        else:
            raise TypeError(f"Decode: the input should be encoded image bytes (1-D uint8 array or bytes), but got an "
                            f"array of dtype {data.dtype} and shape {list(data.shape)}.")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"Decode: the input should be bytes or a 1-D uint8 numpy array, but got {type(data).__name__}.")
    try:
        im = Image.open(io.BytesIO(data))
        im.load()
        rgb = im if im.mode == "RGB" else im.convert("RGB")
    except Exception as e:  # noqa: BLE001  (Pillow raises several types for bad data)
        raise RuntimeError(f"Decode: failed to decode {where}: {type(e).__name__}: {e}. The data may not be a "
                           f"JPEG/PNG/BMP/TIFF image or may be truncated.") from None
    return rgb


# ---------------------------------------------------------------------------- resize
def _linear_points(n_in, n_out):
    """(i0, i1, w0, w1) of OpenCV's INTER_LINEAR along one axis: source point (x + 0.5) * n_in / n_out - 0.5,
    clamped to the edges (a clamped point takes one line, weight 1); weights float32."""
    f = (np.arange(n_out, dtype=np.float64) + 0.5) * (n_in / n_out) - 0.5
    np.maximum(f, 0.0, out=f)
    i0 = np.floor(f).astype(np.intp)
    w1 = (f - i0).astype(np.float32)
    np.minimum(i0, n_in - 1, out=i0)
    i1 = np.minimum(i0 + 1, n_in - 1)
    w1[i1 == i0] = 0.0
    return i0, i1, np.float32(1.0) - w1, w1


def _linear_taps(n_in, n_out):
    i0, i1, w0, w1 = _linear_points(n_in, n_out)
    return [(i0, w0), (i1, w1)]


def _cubic_taps(n_in, n_out, a=-0.75):
    scale = n_in / n_out
    x = (np.arange(n_out, dtype=np.float64) + 0.5) * scale - 0.5
    i = np.floor(x).astype(np.int64)
    t = x - i
    taps = []
    for k in (-1, 0, 1, 2):
        d = np.abs(t - k)
        w = np.where(d <= 1, ((a + 2) * d - (a + 3)) * d * d + 1,
                     np.where(d < 2, ((a * d - 5 * a) * d + 8 * a) * d - 4 * a, 0.0))
        taps.append((np.clip(i + k, 0, n_in - 1), w.astype(np.float32)))
    return taps


def _nearest_idx(n_in, n_out):
    """OpenCV's INTER_NEAREST source index: floor(x * scale), scale = 1 / (n_out / n_in) in double as OpenCV
    computes it (n_in / n_out rounds differently at some exact multiples)."""
    return np.minimum(np.floor(np.arange(n_out) * (1.0 / (n_out / n_in))).astype(np.int64), n_in - 1)


def _area_matrix(n_in, n_out):
    """Box weights (n_out x n_in) of OpenCV's INTER_AREA when shrinking."""
    scale = n_in / n_out
    w = np.zeros((n_out, n_in), dtype=np.float32)
    for o in range(n_out):
        lo, hi = o * scale, (o + 1) * scale
        for i in range(int(np.floor(lo)), min(int(np.ceil(hi)), n_in)):
            w[o, i] = (min(hi, i + 1) - max(lo, i)) / scale
    return w


def _apply_taps(a, taps, axis):
    out = None
    for idx, w in taps:
        shape = [1] * a.ndim
        shape[axis] = -1
        part = np.take(a, idx, axis=axis) * w.reshape(shape)
        out = part if out is None else out + part
    return out


@functools.lru_cache(maxsize=1024)
def _fixed_linear(n_in, n_out, clamp, area=False):
    """OpenCV's INTER_LINEAR coefficients for 8-bit images along one axis, in its fixed point (weights times 2048,
    rounded): the source point (x + 0.5) * n_in / n_out - 0.5 in float32 as OpenCV computes it, its two source
    lines and their weights. Along the columns (`clamp`) a point outside the image takes the edge pixel with
    weight 1: (s0, s1, w0, w1) shaped for an h x w x C image. Along the rows the weights stay and the lines are
    clipped: (rows used, index of s0 and of s1 among them, w0, w1). `area`: the weights INTER_AREA takes where it
    does not shrink both ways."""
    if area:    # INTER_AREA when not shrinking both ways: OpenCV's linear kernel with box-overlap weights
        inv = n_out / n_in
        s = np.floor(np.arange(n_out) * (1.0 / inv))
        f = ((np.arange(n_out) + 1) - (s + 1) * inv).astype(np.float32)
        f = np.where(f <= 0, np.float32(0), f - np.floor(f)).astype(np.float32)
    else:
        f = ((np.arange(n_out, dtype=np.float64) + 0.5) * (1.0 / (n_out / n_in)) - 0.5).astype(np.float32)
        s = np.floor(f)
        f -= s
    s = s.astype(np.intp)
    if clamp:
        f[(s < 0) | (s >= n_in - 1)] = 0
    w0 = np.rint((np.float32(1) - f) * np.float32(2048)).astype(np.int32)
    w1 = np.rint(f * np.float32(2048)).astype(np.int32)
    s0, s1 = np.clip(s, 0, n_in - 1), np.clip(s + 1, 0, n_in - 1)
    if clamp:
        return s0, s1, w0[None, :, None], w1[None, :, None]
    rows = np.unique(np.concatenate([s0, s1]))
    return rows, np.searchsorted(rows, s0), np.searchsorted(rows, s1), w0[:, None], w1[:, None]


@functools.lru_cache(maxsize=1024)
def _fixed_columns(W, w, C, area=False):
    """`_fixed_linear` along the columns of an image flattened to rows of W * C values: the two source positions
    and int32 weights of each output value."""
    s0, s1, a0, a1 = _fixed_linear(W, w, True, area)
    ch = np.arange(C)
    return ((s0[:, None] * C + ch).ravel(), (s1[:, None] * C + ch).ravel(),
            np.repeat(a0.ravel(), C), np.repeat(a1.ravel(), C))


def bilinear_u8(a, h, w, area=False):
    """Bilinear resize of an H x W x C uint8 image (any strides) to h x w as OpenCV computes it, bit for bit
    (what MindSpore's Resize gives): the columns in integer fixed point, then the rows with the truncations of
    OpenCV's 8-bit path, ``(((b0 * (S0 >> 4)) >> 16) + ((b1 * (S1 >> 4)) >> 16) + 2) >> 2``. An exact 2x
    shrink comes out as OpenCV's area average, which it switches to there. `area`: INTER_AREA where it does not
    shrink both ways (linear with box-overlap weights)."""
    H, W, C = a.shape
    x0, x1, ax0, ax1 = _fixed_columns(W, w, C, area)
    rows, y0, y1, by0, by1 = _fixed_linear(H, h, False, area)
    src = np.ascontiguousarray(a[rows] if len(rows) < H else a).reshape(len(rows), W * C)
    cols = np.take(src, x0, axis=1) * ax0
    cols += np.take(src, x1, axis=1) * ax1
    cols >>= 4
    out = np.take(cols, y0, axis=0) * by0
    out >>= 16
    low = np.take(cols, y1, axis=0) * by1
    low >>= 16
    out += low
    out += 2
    out >>= 2
    return out.astype(np.uint8).reshape(h, w, C)


@functools.lru_cache(maxsize=1024)
def _fixed_cubic(n_in, n_out):
    """OpenCV's INTER_CUBIC coefficients for 8-bit images along one axis: for each output line its four source
    lines (replicated at the edges) and int32 weights (the float32 cubic of A = -0.75 times 2048, rounded)."""
    f = ((np.arange(n_out, dtype=np.float64) + 0.5) * (1.0 / (n_out / n_in)) - 0.5).astype(np.float32)
    s = np.floor(f)
    x = f - s
    s = s.astype(np.intp)
    a, one = np.float32(-0.75), np.float32(1)
    xp, xm = x + one, one - x
    c0 = ((a * xp - np.float32(5) * a) * xp + np.float32(8) * a) * xp - np.float32(4) * a
    c1 = ((a + np.float32(2)) * x - (a + np.float32(3))) * x * x + one
    c2 = ((a + np.float32(2)) * xm - (a + np.float32(3))) * xm * xm + one
    c3 = one - c0 - c1 - c2
    weights = [np.rint(c * np.float32(2048)).astype(np.int32) for c in (c0, c1, c2, c3)]
    return [np.clip(s - 1 + k, 0, n_in - 1) for k in range(4)], weights


def bicubic_u8(a, h, w):
    """Bicubic resize of an H x W x C uint8 image as OpenCV computes it (MindSpore's Resize with Inter.BICUBIC):
    the columns in integer fixed point (weights x 2048), then the rows, rounded as (sum + 2^21) >> 22 and
    saturated."""
    H, W, C = a.shape
    xs, xw = _fixed_cubic(W, w)
    ys, yw = _fixed_cubic(H, h)
    src = np.ascontiguousarray(a).reshape(H, W * C)
    ch = np.arange(C)
    cols = sum(np.take(src, (s[:, None] * C + ch).ravel(), axis=1) * np.repeat(wt, C) for s, wt in zip(xs, xw))
    out = sum(np.take(cols, s, axis=0).astype(np.int64) * wt[:, None] for s, wt in zip(ys, yw))
    out += 1 << 21
    out >>= 22
    return np.clip(out, 0, 255).astype(np.uint8).reshape(h, w, C)


def bilinear_planes(a, h, w):
    """`bilinear_u8` as C x h x w float32 channel planes (for fused ops that normalize next)."""
    return bilinear_u8(a, h, w).transpose(2, 0, 1).astype(np.float32)


def resize(img, size, inter):
    """Resize an HWC/HW numpy image to size (h, w) with an Inter mode (0 nearest, 1 antialias, 2 bilinear,
    3 bicubic, 4 area, 5 PIL bicubic)."""
    a, flat = hwc(np.asarray(img))
    h, w = int(size[0]), int(size[1])
    if h <= 0 or w <= 0:
        raise ValueError(f"Resize: the output size ({h}, {w}) must be positive.")
    H, W = a.shape[:2]
    inter = int(inter)
    if (h, w) == (H, W):
        out = a.copy()
    elif inter == 0:
        out = a[_nearest_idx(H, h)][:, _nearest_idx(W, w)]
    elif inter == 2 and a.dtype == np.uint8:
        out = bilinear_u8(a, h, w)
    elif inter == 3 and a.dtype == np.uint8:
        out = bicubic_u8(a, h, w)
    elif inter == 4 and a.dtype == np.uint8 and not (h <= H and w <= W):
        out = bilinear_u8(a, h, w, area=True)
    elif inter in (1, 5) and a.dtype == np.uint8 and a.shape[2] in (1, 3, 4):
        out = resize_pil(Image.fromarray(a[:, :, 0] if a.shape[2] == 1 else a), (h, w), inter).reshape(h, w, -1)
    else:
        f = a.astype(np.float32)
        if inter == 4 and h <= H and w <= W:
            out = np.einsum("oh,hwc->owc", _area_matrix(H, h), f)
            out = np.einsum("pw,owc->opc", _area_matrix(W, w), out)
        elif inter in (3, 5, 1):
            out = _apply_taps(_apply_taps(f, _cubic_taps(H, h), 0), _cubic_taps(W, w), 1)
        else:
            out = _apply_taps(_apply_taps(f, _linear_taps(H, h), 0), _linear_taps(W, w), 1)
        out = clip_cast(out, a.dtype)
    return out[:, :, 0] if flat else out


def resize_pil_image(pil, size, inter):
    """`pil` resized to size (h, w) as a PIL image with Pillow's filters for antialias / PIL bicubic; None for
    the other interpolations or modes (use `resize`: bilinear is OpenCV's, computed by `bilinear_planes`)."""
    h, w = int(size[0]), int(size[1])
    W, H = pil.size
    inter = int(inter)
    if inter not in (1, 5) or pil.mode not in ("L", "RGB", "RGBA"):
        return None
    if (w, h) == (W, H):
        return pil
    return pil.resize((w, h), Image.Resampling.LANCZOS if inter == 1 else Image.Resampling.BICUBIC)


def resize_pil(pil, size, inter):
    """A PIL image resized (see `resize_pil_image`; `resize` for what Pillow does not do) -> numpy."""
    res = resize_pil_image(pil, size, inter)
    if res is not None:
        return pil_to_np(res)
    return resize(pil_to_np(pil), size, inter)


# ---------------------------------------------------------------------------- warps
_PIL_RESAMPLE = {0: 0, 1: 3, 2: 2, 3: 3, 4: 2, 5: 3}  # Inter -> PIL resample (AREA/ANTIALIAS: closest PIL filter)


def _per_plane(a, fn, fill):
    """Apply a PIL geometric function to each channel plane (mode 'F' keeps any dtype)."""
    a3, flat = hwc(a)
    fills = np.broadcast_to(np.asarray(fill, dtype=np.float64).reshape(-1), (a3.shape[2],)) \
        if np.ndim(fill) else [fill] * a3.shape[2]
    planes = []
    for c in range(a3.shape[2]):
        im = Image.fromarray(a3[:, :, c].astype(np.float32), mode="F")
        planes.append(np.asarray(fn(im, float(fills[c]))))
    out = clip_cast(np.stack(planes, axis=2), a.dtype)
    return out[:, :, 0] if flat else out


def warp_affine(a, matrix, out_size, inter, fill):
    """Inverse-map affine warp: `matrix` (a, b, c, d, e, f) maps output (x, y) to input coordinates."""
    resample = _PIL_RESAMPLE[int(inter)]
    w, h = out_size
    return _per_plane(a, lambda im, fv: im.transform((w, h), Image.Transform.AFFINE, tuple(matrix), resample=resample,
                                                     fillcolor=fv), fill)


def warp_perspective(a, coeffs, inter, fill):
    resample = _PIL_RESAMPLE[int(inter)]
    h, w = a.shape[:2]
    return _per_plane(a, lambda im, fv: im.transform((w, h), Image.Transform.PERSPECTIVE, tuple(coeffs),
                                                     resample=resample, fillcolor=fv), fill)


def pad_image(a, top, bottom, left, right, mode, fill):
    """Pad H and W; mode is 'constant', 'edge', 'reflect' or 'symmetric'; fill a number or per-channel tuple."""
    a3, flat = hwc(a)
    widths = ((top, bottom), (left, right), (0, 0))
    if mode == "constant":
        fills = np.broadcast_to(np.asarray(fill).reshape(-1), (a3.shape[2],)) if np.ndim(fill) else [fill] * \
            a3.shape[2]
        out = np.stack([np.pad(a3[:, :, c], widths[:2], mode="constant", constant_values=fills[c])
                        for c in range(a3.shape[2])], axis=2).astype(a.dtype)
    else:
        out = np.pad(a3, widths, mode=mode)
    return out[:, :, 0] if flat else out


# ---------------------------------------------------------------------------- colour
def rgb_to_gray(a):
    """ITU-R 601 luma (OpenCV's RGB2GRAY weights), float32."""
    f = a.astype(np.float32)
    return f[..., 0] * 0.299 + f[..., 1] * 0.587 + f[..., 2] * 0.114


def rgb_to_hsv(rgb):
    """float RGB in [0, 1] -> HSV in [0, 1] (matplotlib/colorsys convention)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    mx = rgb.max(-1)
    mn = rgb.min(-1)
    d = mx - mn
    s = np.where(mx > 0, d / np.where(mx > 0, mx, 1), 0)
    safe = np.where(d > 0, d, 1)
    h = np.where(mx == r, (g - b) / safe, np.where(mx == g, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    h = np.where(d > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, mx], axis=-1)


def hsv_to_rgb(hsv):
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    i = i.astype(np.int64) % 6
    r = np.choose(i, [v, q, p, p, t, v])
    g = np.choose(i, [t, v, v, q, p, p])
    b = np.choose(i, [p, p, t, v, v, q])
    return np.stack([r, g, b], axis=-1)

