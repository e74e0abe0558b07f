"""Vision transforms of an (image, bounding boxes) pair, as MindSpore's C++ ops do them.

Boxes are a float32 (N, >= 4) array of [x, y, width, height, ...] rows (extra columns such as labels ride
along). Every op first checks the boxes against the image (float32, at least 4 columns, inside the image,
non-negative corners). A crop keeps the boxes that overlap the crop window, clipped to it and moved into its
coordinates (a box touching the window's edge is kept, with zero extent); a resize scales x and width by the
width ratio and y and height by the height ratio.
"""
import numpy as np

from mindseed.dataset._random import rng
from mindseed.dataset.transforms._base import TensorOperation
from mindseed.dataset.vision import _image as I
from mindseed.dataset.vision._geometry import (RandomCrop, RandomResizedCrop, _hflip, _hw, _inter, _prob,
                                               _resize_to, _rrc_box, _size_arg)
from mindseed.dataset.vision.utils import Border, Inter

__all__ = ["BoundingBoxAugment", "RandomCropWithBBox", "RandomHorizontalFlipWithBBox", "RandomResizeWithBBox",
           "RandomResizedCropWithBBox", "RandomVerticalFlipWithBBox", "ResizeWithBBox"]


def check_bboxes(img, bboxes, who):
    """(image, float32 boxes copy) after MindSpore's BoundingBox validation, errors naming the op."""
    img = I.check_image(img, who)
    b = np.asarray(bboxes)
    if b.ndim < 2:
        raise RuntimeError(f"{who}: bounding boxes should have to be two-dimensional matrix at least, but got "
                           f"{b.ndim} dimension.")
    if b.shape[1] < 4:
        raise RuntimeError(f"{who}: bounding boxes should be have at least 4 features, but got: {b.shape[1]}")
    if b.dtype != np.float32:
        raise RuntimeError(f"{who}: bounding boxes should be of type float32, but got {b.dtype}.")
    H, W = img.shape[:2]
    for x, y, w, h in b[:, :4].tolist():
        if x + w > W or y + h > H:
            raise RuntimeError(f"{who}: bounding boxes is out of bounds of the image, as image width: {W}, bbox "
                               f"width coordinate: {x + w:f}, and image height: {H}, bbox height coordinate: "
                               f"{y + h:f}")
        if int(x) < 0 or int(y) < 0:
            raise RuntimeError(f"{who}: the coordinates of the bounding boxes has negative value, got: "
                               f"({x:f},{y:f}).")
    return img, b.copy()


def crop_bboxes(b, x0, y0, x1, y1):
    """Boxes overlapping the window [x0, x1] x [y0, y1], clipped to it, in its coordinates."""
    x, y = b[:, 0], b[:, 1]
    xe, ye = x + b[:, 2], y + b[:, 3]
    keep = ~((x > x1) | (y > y1) | (xe < x0) | (ye < y0))
    b = b[keep].copy()
    x, y, xe, ye = x[keep], y[keep], xe[keep], ye[keep]
    nx = np.maximum(x - np.minimum(0, x - x0) - x0, 0)
    ny = np.maximum(y - np.minimum(0, y - y0) - y0, 0)
    nxe = np.minimum(xe - np.maximum(0, xe - x1) - x0, x1 - x0)
    nye = np.minimum(ye - np.maximum(0, ye - y1) - y0, y1 - y0)
    b[:, 0], b[:, 1], b[:, 2], b[:, 3] = nx, ny, nxe - nx, nye - ny
    return b


def resize_bboxes(b, new_hw, old_hw):
    sx, sy = np.float32(new_hw[1] / old_hw[1]), np.float32(new_hw[0] / old_hw[0])
    b[:, 0] *= sx
    b[:, 2] *= sx
    b[:, 1] *= sy
    b[:, 3] *= sy
    return b


class _BBoxOp(TensorOperation):
    def _apply(self, img, bboxes):
        img, b = check_bboxes(img, bboxes, type(self).__name__)
        return self._pair(img, b)


class ResizeWithBBox(_BBoxOp):
    """Resize to `size` (int: shorter edge, aspect kept; (h, w)) and scale the boxes."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        self.size = _size_arg(size)
        self.interpolation = _inter(interpolation)

    def _resize(self, img, b, inter):
        out = _resize_to(img, self.size, inter)
        return out, resize_bboxes(b, out.shape[:2], img.shape[:2])

    def _pair(self, img, b):
        return self._resize(img, b, self.interpolation)


class RandomResizeWithBBox(ResizeWithBBox):
    """ResizeWithBBox with an interpolation drawn at random (nearest, bilinear, bicubic or area)."""

    def __init__(self, size):
        super().__init__(size)

    def _pair(self, img, b):
        inter = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA)[int(rng().integers(4))]
        return self._resize(img, b, inter)


class _FlipWithBBox(_BBoxOp):
    _axis = 1  # image axis mirrored: 1 left-right (moves x), 0 top-bottom (moves y)

    def __init__(self, prob=0.5):
        self.prob = _prob(prob)

    def _pair(self, img, b):
        if rng().random() < self.prob:
            pos, extent = (0, 2) if self._axis == 1 else (1, 3)
            b[:, pos] = img.shape[self._axis] - b[:, pos] - b[:, extent]
            img = _hflip(img) if self._axis == 1 else img[::-1].copy()
        return img, b


class RandomHorizontalFlipWithBBox(_FlipWithBBox):
    """Mirror the image and its boxes left-right with probability `prob`."""


class RandomVerticalFlipWithBBox(_FlipWithBBox):
    """Mirror the image and its boxes top-bottom with probability `prob`."""

    _axis = 0


class RandomCropWithBBox(_BBoxOp, RandomCrop):
    """RandomCrop (same arguments) that moves the boxes by the padding and keeps those overlapping the crop."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        RandomCrop.__init__(self, size, padding, pad_if_needed, fill_value, padding_mode)

    def _pair(self, img, b):
        img, pad_top, pad_left, top, left, h, w = self._padded_box(img)
        b[:, 0] += pad_left
        b[:, 1] += pad_top
        return img[top:top + h, left:left + w].copy(), crop_bboxes(b, left, top, left + w, top + h)


class RandomResizedCropWithBBox(_BBoxOp, RandomResizedCrop):
    """RandomResizedCrop (same arguments) applied to the boxes too."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        RandomResizedCrop.__init__(self, size, scale, ratio, interpolation, max_attempts)

    def _pair(self, img, b):
        top, left, h, w = _rrc_box(img.shape[0], img.shape[1], self.scale, self.ratio, self.max_attempts)
        b = crop_bboxes(b, left, top, left + w, top + h)
        out = I.resize(img[top:top + h, left:left + w], _hw(self.size), self.interpolation)
        return out, resize_bboxes(b, out.shape[:2], (h, w))


class BoundingBoxAugment(_BBoxOp):
    """Apply `transform` to each box's image region with probability `ratio` (boxes unchanged)."""

    def __init__(self, transform, ratio=0.3):
        if not callable(transform):
            raise TypeError(f"Argument transform with value {transform!r} is not a callable transform.")
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)):
            raise TypeError(f"Argument ratio with value {ratio!r} is not of type [<class 'float'>, <class 'int'>].")
        if not 0 <= ratio <= 1:
            raise ValueError("Input ratio is not within the required interval of [0.0, 1.0].")
        self.transform, self.ratio = transform, float(ratio)

    def _pair(self, img, b):
        out = img.copy()
        g = rng()
        for x, y, w, h in b[:, :4].tolist():
            if g.random() >= self.ratio:
                continue
            x, y, w, h = int(x), int(y), int(w), int(h)
            if w <= 0 or h <= 0:
                continue
            region = np.asarray(self.transform(out[y:y + h, x:x + w].copy()))
            if region.shape[:2] != (h, w):
                region = I.resize(region, (h, w), Inter.BILINEAR)
            out[y:y + h, x:x + w] = region.astype(out.dtype, copy=False).reshape(out[y:y + h, x:x + w].shape)
        return out, b
