"""Image primitive classes of TensorFlow lineage: ScaleAndTranslate (separable resampling with a choice of
kernels, antialiased when shrinking; a matrix product per axis, differentiable in the images) and
SampleDistortedBoundingBoxV2 (a random crop that keeps enough of the given boxes); and GetNext, the reader of a
dataset's data queue."""
import math

import numpy as np

from mindseed._utils import _data_queues
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations._table import primitive_class

__all__ = ["ScaleAndTranslate", "SampleDistortedBoundingBoxV2", "GetNext"]


# ---------------------------------------------------------------- ScaleAndTranslate
def _lanczos(radius):
    def k(x):
        if x > radius:
            return 0.0
        if x <= 1e-3:
            return 1.0
        return radius * math.sin(math.pi * x) * math.sin(math.pi * x / radius) / (math.pi * math.pi * x * x)
    return k, float(radius)


def _box(x):
    return 1.0 if x < 0.5 else 0.5 if x == 0.5 else 0.0


def _keys_cubic(x):
    if x >= 2.0:
        return 0.0
    if x >= 1.0:
        return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return (1.5 * x - 2.5) * x * x + 1.0


def _mitchell_cubic(x):
    if x >= 2.0:
        return 0.0
    if x >= 1.0:
        return (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0
    return ((7.0 / 6.0 * x - 2.0) * x) * x + 8.0 / 9.0


_KERNELS = {
    "lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
    "gaussian": (lambda x: 0.0 if x >= 1.5 else math.exp(-x * x / (2 * 0.5 * 0.5)), 1.5),
    "box": (_box, 1.0), "triangle": (lambda x: max(0.0, 1.0 - x), 1.0),
    "keyscubic": (_keys_cubic, 2.0), "mitchellcubic": (_mitchell_cubic, 2.0),
}


def _span_weights(kernel_type, antialias, out_size, in_size, scale, translate):
    """The (out_size, in_size) resampling matrix of one axis (TensorFlow's ComputeSpans, in float32 arithmetic as
    there: which source pixels a span holds depends on it)."""
    kernel, radius = _KERNELS[kernel_type]
    f32 = np.float32
    inv_scale = f32(1.0) / f32(scale)
    inv_translate = -inv_scale * f32(translate)
    kernel_scale = max(inv_scale, f32(1.0)) if antialias else f32(1.0)
    reach = f32(radius) * kernel_scale
    weights = np.zeros((out_size, in_size), np.float64)
    for x in range(out_size):
        sample = (f32(x) + f32(0.5)) * inv_scale + inv_translate
        if sample < 0 or sample > in_size:
            continue
        start = min(max(math.ceil(sample - reach - f32(0.5)), 0), in_size - 1)
        end = min(max(math.floor(sample + reach - f32(0.5)), 0), in_size - 1) + 1
        row = [kernel(float(abs((f32(src) + f32(0.5) - sample) * (f32(1.0) / kernel_scale))))
               for src in range(start, end)]
        total = sum(row)
        if abs(total) >= 1000 * np.finfo(np.float32).tiny:
            row = [w / total for w in row]
        weights[x, start:end] = row
    return weights


def _scale_and_translate(images, size, scale, translation, kernel_type="lanczos3", antialias=True):
    api = "ScaleAndTranslate"
    if not isinstance(kernel_type, str):
        raise TypeError(f"For '{api}', the 'kernel_type' must be a str, but got {type(kernel_type).__name__}.")
    if kernel_type not in _KERNELS:
        raise ValueError(f"For '{api}', the 'kernel_type' must be in {list(_KERNELS)}, but got {kernel_type!r}.")
    if not isinstance(antialias, bool):
        raise TypeError(f"For '{api}', the 'antialias' must be a bool, but got {type(antialias).__name__}.")
    for name, t, dtype in (("images", images, None), ("size", size, mstype.int32), ("scale", scale, mstype.float32),
                           ("translation", translation, mstype.float32)):
        if not isinstance(t, Tensor) or dtype is not None and t.dtype != dtype:
            got = t.dtype if isinstance(t, Tensor) else type(t).__name__
            raise TypeError(f"For '{api}', the '{name}' must be a Tensor{'' if dtype is None else ' of ' + str(dtype)}"
                            f", but got {got}.")
        if dtype is not None and t.shape != (2,):
            raise ValueError(f"For '{api}', the shape of '{name}' must be (2,), but got {t.shape}.")
    if images.ndim != 4:
        raise ValueError(f"For '{api}', the rank of 'images' must be 4, but got {images.ndim}.")
    (oh, ow), (sh, sw), (th, tw) = size.asnumpy().tolist(), scale.asnumpy().tolist(), translation.asnumpy().tolist()
    if oh <= 0 or ow <= 0 or sh <= 0 or sw <= 0:
        raise ValueError(f"For '{api}', 'size' and 'scale' must be positive, but got {[oh, ow]} and {[sh, sw]}.")
    _, h, w, _ = images.shape
    wh = Tensor(_span_weights(kernel_type, antialias, oh, h, sh, th), mstype.float32)
    ww = Tensor(_span_weights(kernel_type, antialias, ow, w, sw, tw), mstype.float32)
    x = F.transpose(images.astype(mstype.float32), (0, 3, 1, 2))               # (B, C, H, W)
    out = F.matmul(F.matmul(wh, x), F.transpose(ww, (1, 0)))                  # (B, C, oh, ow)
    return F.transpose(out, (0, 2, 3, 1))


ScaleAndTranslate = primitive_class(
    "ScaleAndTranslate", _scale_and_translate, (("kernel_type", "lanczos3"), ("antialias", True)),
    ("images", "size", "scale", "translation"),
    doc="Resample NHWC images to `size`: output pixel (y + 0.5) samples the input at (y + 0.5) / scale - "
        "translation / scale with the chosen kernel (widened by 1 / scale when shrinking with antialias); float32.")


# ---------------------------------------------------------------- SampleDistortedBoundingBoxV2
def _random_crop(rng, width, height, min_rel, max_rel, aspect):
    """TensorFlow's GenerateRandomCrop: (x, y, w, h) of a crop of that aspect ratio and area, or None."""
    min_area, max_area = min_rel * width * height, max_rel * width * height
    h = int(round(math.sqrt(min_area / aspect)))
    max_h = int(round(math.sqrt(max_area / aspect)))
    if round(max_h * aspect) > width:
        max_h = int((width + 0.5 - 1e-7) / aspect)
        if round(max_h * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += int(rng.integers(0, max_h - h + 1))
    w = int(round(h * aspect))
    area = w * h
    if area < min_area:
        h += 1
        w = int(round(h * aspect))
    elif area > max_area:
        h -= 1
        w = int(round(h * aspect))
    area = w * h
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = int(rng.integers(0, height - h + 1)) if h < height else 0
    x = int(rng.integers(0, width - w + 1)) if w < width else 0
    return x, y, w, h


def _covers(crop, boxes, height, width, min_covered):
    x, y, w, h = crop
    for y0, x0, y1, x1 in boxes:
        by0, bx0, by1, bx1 = y0 * height, x0 * width, y1 * height, x1 * width
        area = (by1 - by0) * (bx1 - bx0)
        if area <= 0:
            continue
        inter = max(0.0, min(by1, y + h) - max(by0, y)) * max(0.0, min(bx1, x + w) - max(bx0, x))
        if inter / area >= min_covered:
            return True
    return False


class SampleDistortedBoundingBoxV2(Primitive):
    """A random crop of an image of `image_size` = [height, width, channels] whose aspect ratio lies in
    `aspect_ratio_range`, whose area fraction lies in `area_range`, and which covers at least `min_object_covered`
    of one of `bounding_boxes` ((batch, N, 4) of [y_min, x_min, y_max, x_max] in [0, 1]); after `max_attempts`
    failures, the whole image. Returns (begin [y, x, 0], size [h, w, -1], bboxes (1, 1, 4)). Seeded by `seed` /
    `seed2` when either is non-zero (one stream per primitive object), else by the global seed.
    """

    def __init__(self, seed=0, seed2=0, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0), max_attempts=100,
                 use_image_if_no_bounding_boxes=False):
        super().__init__("SampleDistortedBoundingBoxV2")
        api = self.name
        for name, v in (("seed", seed), ("seed2", seed2), ("max_attempts", max_attempts)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"For '{api}', the '{name}' must be an int, but got {type(v).__name__}.")
        for name, v in (("aspect_ratio_range", aspect_ratio_range), ("area_range", area_range)):
            if not isinstance(v, (list, tuple)) or len(v) != 2 or not all(isinstance(e, (int, float)) for e in v):
                raise TypeError(f"For '{api}', the '{name}' must be a list or tuple of 2 floats, but got {v!r}.")
        if not isinstance(use_image_if_no_bounding_boxes, bool):
            raise TypeError(f"For '{api}', the 'use_image_if_no_bounding_boxes' must be a bool, but got "
                            f"{type(use_image_if_no_bounding_boxes).__name__}.")
        if max_attempts <= 0:
            raise ValueError(f"For '{api}', the 'max_attempts' must be positive, but got {max_attempts}.")
        if not 0 < area_range[0] <= area_range[1] <= 1:
            raise ValueError(f"For '{api}', the 'area_range' must be in (0.0, 1.0], but got {area_range}.")
        if not 0 < aspect_ratio_range[0] <= aspect_ratio_range[1]:
            raise ValueError(f"For '{api}', the 'aspect_ratio_range' must be positive, but got {aspect_ratio_range}.")
        for k, v in (("seed", seed), ("seed2", seed2), ("aspect_ratio_range", tuple(aspect_ratio_range)),
                     ("area_range", tuple(area_range)), ("max_attempts", max_attempts),
                     ("use_image_if_no_bounding_boxes", use_image_if_no_bounding_boxes)):
            self.add_prim_attr(k, v)
        self._rng = np.random.default_rng([seed, seed2]) if seed or seed2 else None

    def __call__(self, image_size, bounding_boxes, min_object_covered):
        api, a = self.name, self.attrs
        for name, t in (("image_size", image_size), ("bounding_boxes", bounding_boxes),
                        ("min_object_covered", min_object_covered)):
            if not isinstance(t, Tensor):
                raise TypeError(f"For '{api}', the '{name}' must be a Tensor, but got {type(t).__name__}.")
        if image_size.ndim != 1 or image_size.shape[0] != 3:
            raise ValueError(f"For '{api}', the 'image_size' must be 1-D with 3 elements, but got shape "
                             f"{image_size.shape}.")
        if bounding_boxes.ndim != 3 or bounding_boxes.shape[-1] != 4:
            raise ValueError(f"For '{api}', the 'bounding_boxes' must have shape (batch, N, 4), but got "
                             f"{bounding_boxes.shape}.")
        height, width, _ = (int(v) for v in image_size.asnumpy())
        boxes = bounding_boxes.asnumpy().reshape(-1, 4).astype(np.float64).tolist()
        covered = float(min_object_covered.asnumpy().reshape(-1)[0])
        if height <= 0 or width <= 0:
            raise ValueError(f"For '{api}', the 'image_size' must be positive, but got {[height, width]}.")
        if not 0.0 <= covered <= 1.0:
            raise ValueError(f"For '{api}', the 'min_object_covered' must be in [0.0, 1.0], but got {covered}.")
        if not boxes:
            if not a["use_image_if_no_bounding_boxes"]:
                raise ValueError(f"For '{api}', no bounding box was supplied: set 'use_image_if_no_bounding_boxes' "
                                 f"to True to use the whole image.")
            boxes = [[0.0, 0.0, 1.0, 1.0]]
        rng = self._rng
        if rng is None:
            draw = F.uniform((2,), Tensor(0.0, mstype.float32), Tensor(1.0, mstype.float32)).asnumpy()
            rng = np.random.default_rng((draw * 2 ** 31).astype(np.int64).tolist())
        crop = None
        (lo_ar, hi_ar), (lo_area, hi_area) = a["aspect_ratio_range"], a["area_range"]
        for _ in range(a["max_attempts"]):
            candidate = _random_crop(rng, width, height, lo_area, hi_area, rng.uniform(lo_ar, hi_ar))
            if candidate is not None and _covers(candidate, boxes, height, width, covered):
                crop = candidate
                break
        x, y, w, h = crop if crop is not None else (0, 0, width, height)
        dtype = image_size.dtype
        last = 255 if dtype == mstype.uint8 else -1
        begin = Tensor(np.array([y, x, 0]), dtype)
        size = Tensor(np.array([h, w, last]), dtype)
        bbox = Tensor(np.array([[[y / height, x / width, (y + h) / height, (x + w) / width]]], np.float32))
        return begin, size, bbox


# ---------------------------------------------------------------- GetNext
class GetNext(Primitive):
    """The next element of the data queue `shared_name` (a dataset sent there by `dataset.device_que(queue_name=
    shared_name)`): a tuple of `output_num` Tensors of `types` and `shapes` (a -1 or None dim: any size).

    Raises:
        TypeError: `types`/`shapes` not lists or tuples, `output_num` not an int.
        ValueError: `types` and `shapes` of different lengths.
        RuntimeError: (at a call) no such queue, or an element that does not match `types` / `shapes`.
    """

    def __init__(self, types, shapes, output_num, shared_name):
        super().__init__("GetNext")
        for name, v in (("types", types), ("shapes", shapes)):
            if not isinstance(v, (list, tuple)):
                raise TypeError(f"For 'GetNext', the '{name}' must be a list or tuple, but got {type(v).__name__}.")
        if len(types) != len(shapes):
            raise ValueError(f"For 'GetNext', the 'types length' must be equal to 'shapes length', but got "
                             f"{len(types)} and {len(shapes)}.")
        if not isinstance(output_num, int) or isinstance(output_num, bool):
            raise TypeError(f"For 'GetNext', the 'output_num' must be an int, but got {type(output_num).__name__}.")
        for k, v in (("types", list(types)), ("shapes", [tuple(s) for s in shapes]), ("output_num", output_num),
                     ("shared_name", shared_name)):
            self.add_prim_attr(k, v)

    def __call__(self):
        row = _data_queues.next_row(self.attrs["shared_name"])
        if len(row) != self.attrs["output_num"]:
            raise RuntimeError(f"For 'GetNext', the queue {self.attrs['shared_name']!r} gives {len(row)} columns, but "
                               f"'output_num' is {self.attrs['output_num']}.")
        for i, (t, dtype, shape) in enumerate(zip(row, self.attrs["types"], self.attrs["shapes"])):
            if not isinstance(dtype, mstype.Type):
                dtype = mstype.pytype_to_dtype(dtype)
            fits = len(shape) == t.ndim and all(s in (-1, None) or s == d for s, d in zip(shape, t.shape))
            if t.dtype != dtype or not fits:
                raise RuntimeError(f"For 'GetNext', column {i} of the queue is {t.dtype} {t.shape}, but {dtype} "
                                   f"{shape} was declared.")
        return tuple(row)
