"""Vision augmentations: erasing, batch mixing (CutMix / MixUp) and policy-based augmentation."""
import math
import numbers

import numpy as np

from mindseed.dataset._random import rng
from mindseed.dataset import _validate as V
from mindseed.dataset.transforms._base import TensorOperation
from mindseed.dataset.vision import _color as C
from mindseed.dataset.vision._color import _ThreeChannels
from mindseed.dataset.vision import _geometry as G
from mindseed.dataset.vision._geometry import ImageTensorOperation, _prob, _range_arg
from mindseed.dataset.vision.utils import AutoAugmentPolicy, ImageBatchFormat, Inter

__all__ = ["CutOut", "Erase", "RandomErasing", "CutMixBatch", "MixUpBatch", "MixUp", "UniformAugment",
           "RandomSelectSubpolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide"]


class CutOut(ImageTensorOperation):
    """Zero `num_patches` random square patches of side `length` (HWC, or CHW with is_hwc=False)."""

    def __init__(self, length, num_patches=1, is_hwc=True):
        for name, v in (("length", length), ("num_patches", num_patches)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"Input {name} is not within the required interval of [1, 2147483647].")
        self.length, self.num_patches, self.is_hwc = length, num_patches, bool(is_hwc)

    def _np(self, img):
        out = img.copy()
        H, W = (img.shape[0], img.shape[1]) if self.is_hwc or img.ndim == 2 else (img.shape[1], img.shape[2])
        g = rng()
        for _ in range(self.num_patches):
            top = int(g.integers(0, max(1, H - self.length + 1)))
            left = int(g.integers(0, max(1, W - self.length + 1)))
            if self.is_hwc or img.ndim == 2:
                out[top:top + self.length, left:left + self.length] = 0
            else:
                out[:, top:top + self.length, left:left + self.length] = 0
        return out


class Erase(_ThreeChannels, ImageTensorOperation):
    """Fill the box (top, left, height, width) of an HWC image with `value` (a number or per-channel tuple)."""

    def __init__(self, top, left, height, width, value=0, inplace=False):
        for name, v in (("top", top), ("left", left), ("height", height), ("width", width)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"Input {name} is not within the required interval of [0, 2147483647].")
        self.box = (top, left, height, width)
        self.value = value
        self.inplace = bool(inplace)

    def _np(self, img):
        out = img if self.inplace and img.flags.writeable else img.copy()
        top, left, h, w = self.box
        out[top:top + h, left:left + w] = np.asarray(self.value, dtype=img.dtype)
        return out


class RandomErasing(TensorOperation):
    """With probability `prob`, erase a random box of a CHW image (area in `scale`, aspect in `ratio`).

    `value` is a number, a per-channel tuple, or 'random' (normal noise).
    """

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, max_attempts=10):
        self.prob = _prob(prob)
        self.scale = _range_arg(scale, "scale")
        self.ratio = _range_arg(ratio, "ratio")
        if not (isinstance(value, (numbers.Real, tuple, list)) or value == "random"):
            raise TypeError("value should be a number, a tuple of 3 numbers or 'random'.")
        self.value = value
        self.inplace = bool(inplace)
        self.max_attempts = max_attempts

    def _apply(self, img):
        a = np.asarray(img)
        if a.ndim != 3:
            raise ValueError(f"RandomErasing: the input should be a <C, H, W> image, but got shape {list(a.shape)}.")
        g = rng()
        if g.random() >= self.prob:
            return a
        c, H, W = a.shape
        area = H * W
        for _ in range(self.max_attempts):
            target = area * g.uniform(*self.scale)
            ar = math.exp(g.uniform(math.log(self.ratio[0]), math.log(self.ratio[1])))
            h = int(round(math.sqrt(target * ar)))
            w = int(round(math.sqrt(target / ar)))
            if h < H and w < W:
                top, left = int(g.integers(0, H - h + 1)), int(g.integers(0, W - w + 1))
                out = a if self.inplace and a.flags.writeable else a.copy()
                if self.value == "random":
                    out[:, top:top + h, left:left + w] = g.normal(size=(c, h, w)).astype(a.dtype)
                else:
                    out[:, top:top + h, left:left + w] = np.asarray(self.value, dtype=a.dtype).reshape(-1, 1, 1)
                return out
        return a


def _batch_args(images, labels, who):
    """A batch of images (N, H, W, C) / (N, C, H, W) and one-hot labels <N, C> or <N, L, C> (L labels per row)."""
    x, y = np.asarray(images), np.asarray(labels)
    if y.ndim not in (2, 3):
        if who == "CutMixBatch":
            raise RuntimeError(f"CutMixBatch: input label is not in shape of <Batch,Class> or <Batch,Row,Class>, but "
                               f"got dimension: {y.ndim}. You may need to perform OneHot and Batch first.")
        raise RuntimeError(f"{who}: wrong labels shape. The second column (labels) must have a shape of NC or NLC "
                           "where N is the batch size, L is the number of labels in each row, and C is the number of "
                           f"classes. labels must be in one-hot format and in a batch, but got rank: {y.ndim}")
    if x.ndim != 4:
        raise RuntimeError(f"{who}: rank of image shape should be: 4, but got: {x.ndim}, make sure image shape are "
                           f"<H,W,C> or <C,H,W> and batched before calling {who}.")
    if y.shape[0] != x.shape[0]:
        raise RuntimeError(f"{who}: batch sizes of image and label must be the same, but got image size: "
                           f"{x.shape[0]} and label size: {y.shape[0]}")
    return x, y


class CutMixBatch(TensorOperation):
    """CutMix on a batch: paste a random box of a shuffled partner image, mixing one-hot labels by area."""

    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        if not isinstance(image_batch_format, ImageBatchFormat):
            raise TypeError("Argument image_batch_format is not of type [<enum 'ImageBatchFormat'>].")
        if alpha <= 0:
            raise ValueError("Input alpha is not within the required interval of (0, 16777216].")
        self.image_batch_format, self.alpha, self.prob = image_batch_format, float(alpha), _prob(prob)

    def _apply(self, images, labels):
        x, y = _batch_args(images, labels, "CutMixBatch")
        g = rng()
        nhwc = self.image_batch_format == ImageBatchFormat.NHWC
        H, W = (x.shape[1], x.shape[2]) if nhwc else (x.shape[2], x.shape[3])
        out_x, out_y = x.copy(), y.astype(np.float32).copy()
        perm = g.permutation(len(x))
        for i in range(len(x)):
            if g.random() >= self.prob:
                continue
            lam = g.beta(self.alpha, self.alpha)
            ch, cw = int(H * math.sqrt(1 - lam)), int(W * math.sqrt(1 - lam))
            cy, cx = int(g.integers(0, H)), int(g.integers(0, W))
            y0, y1 = max(cy - ch // 2, 0), min(cy + ch // 2, H)
            x0, x1 = max(cx - cw // 2, 0), min(cx + cw // 2, W)
            j = perm[i]
            if nhwc:
                out_x[i, y0:y1, x0:x1] = x[j, y0:y1, x0:x1]
            else:
                out_x[i, :, y0:y1, x0:x1] = x[j, :, y0:y1, x0:x1]
            share = (y1 - y0) * (x1 - x0) / (H * W)
            out_y[i] = (1 - share) * y[i] + share * y[j]
        return out_x, out_y


class MixUpBatch(TensorOperation):
    """MixUp on a batch: blend each image and one-hot label with a shuffled partner (lambda ~ Beta(alpha))."""

    def __init__(self, alpha=1.0):
        if V.check_number(alpha, "alpha") <= 0:
            raise ValueError("Input alpha is not within the required interval of (0, 16777216].")
        self.alpha = float(alpha)

    def _apply(self, images, labels):
        x, y = _batch_args(images, labels, "MixUpBatch")
        g = rng()
        lam = g.beta(self.alpha, self.alpha)
        perm = g.permutation(len(x))
        mixed = lam * x.astype(np.float32) + (1 - lam) * x[perm].astype(np.float32)
        out_x = np.clip(np.rint(mixed), 0, 255).astype(x.dtype) if x.dtype == np.uint8 else mixed.astype(x.dtype)
        return out_x, (lam * y + (1 - lam) * y[perm]).astype(np.float32)


class MixUp(TensorOperation):
    """MixUp of a batch of images (N, H, W, C) and one-hot labels, MindSpore's Python transform (float64 out).

    `is_single=True`: each sample k is blended with sample k + 1 (circularly), lambda_k ~ Beta(alpha, alpha).
    `is_single=False`: each batch is blended with the previous mixed batch (the first batch is kept as is).
    """

    def __init__(self, batch_size, alpha, is_single=True):
        V.bool_arg(is_single, "is_single")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int):
            raise TypeError(f"Argument batch_size with value {batch_size!r} is not of type [<class 'int'>].")
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
            raise TypeError(f"Argument alpha with value {alpha!r} is not of type [<class 'int'>, <class 'float'>].")
        if batch_size < 1:
            raise ValueError("Input batch_size is not within the required interval of [1, 16777216].")
        if alpha <= 0:
            raise ValueError(f"Input alpha must be greater than 0: {alpha}")
        self.batch_size, self.alpha, self.is_single = batch_size, float(alpha), is_single
        self._image = self._label = 0
        self._first = True

    def _apply(self, image, label):
        n = self.batch_size
        lam = rng().beta(self.alpha, self.alpha, n)
        image, label = np.asarray(image), np.asarray(label)
        if self.is_single:
            shift = list(range(1, n)) + [0]
            other_image, other_label = image[shift, ...], label[shift, ...]
        else:
            if self._first:
                lam = np.ones(n)
                self._first = False
            other_image, other_label = self._image, self._label
        lam_img = lam.reshape((n, 1, 1, 1))
        mixed_image = lam_img * image + (1 - lam_img) * other_image
        lam_label = lam.reshape((n, 1))
        mixed_label = lam_label * label + (1 - lam_label) * other_label
        if not self.is_single:
            self._image, self._label = mixed_image, mixed_label
        return mixed_image, mixed_label


class UniformAugment(TensorOperation):
    """Apply `num_ops` transforms chosen at random (each with probability 0.5)."""

    def __init__(self, transforms, num_ops=2):
        if not isinstance(transforms, list) or not transforms:
            raise TypeError("transforms should be a non-empty list.")
        if isinstance(num_ops, bool) or not isinstance(num_ops, int) or not 1 <= num_ops <= len(transforms):
            raise ValueError("num_ops should be in [1, len(transforms)].")
        self.transforms, self.num_ops = list(transforms), num_ops

    def _apply(self, img):
        g = rng()
        for k in g.choice(len(self.transforms), size=self.num_ops, replace=False):
            if g.random() < 0.5:
                img = self.transforms[k](img)
        return img


class RandomSelectSubpolicy(TensorOperation):
    """Pick one sub-policy (a list of (transform, prob) pairs) at random and apply it."""

    def __init__(self, policy):
        if not isinstance(policy, list) or not policy:
            raise TypeError("policy should be a non-empty list of sub-policies.")
        for sub in policy:
            if not isinstance(sub, list) or not sub or \
                    any(not isinstance(p, (list, tuple)) or len(p) != 2 or not callable(p[0]) for p in sub):
                raise TypeError("each sub-policy should be a list of (transform, prob) tuples.")
        self.policy = policy

    def _apply(self, img):
        g = rng()
        for op, p in self.policy[int(g.integers(len(self.policy)))]:
            if g.random() < p:
                img = op(img)
        return img


# ---------------------------------------------------------------------------- policy augmentation
def _op(name, mag, inter, fill):
    """One augmentation op of the AutoAugment family at magnitude `mag` (already signed)."""
    if name == "ShearX":
        return G.Affine(0.0, (0, 0), 1.0, (math.degrees(math.atan(mag)), 0.0), inter, fill)
    if name == "ShearY":
        return G.Affine(0.0, (0, 0), 1.0, (0.0, math.degrees(math.atan(mag))), inter, fill)
    if name in ("TranslateX", "TranslateY"):
        return _Translate(name == "TranslateX", mag, inter, fill)
    if name == "Rotate":
        return G.Rotate(mag, inter, False, None, fill)
    if name == "Brightness":
        return C.AdjustBrightness(max(0.0, 1 + mag))
    if name == "Color":
        return C.AdjustSaturation(max(0.0, 1 + mag))
    if name == "Contrast":
        return C.AdjustContrast(max(0.0, 1 + mag))
    if name == "Sharpness":
        return C.AdjustSharpness(max(0.0, 1 + mag))
    if name == "Posterize":
        return C.Posterize(max(1, int(mag)))
    if name == "Solarize":
        return C.Solarize(min(255, max(0, int(mag))))
    if name == "AutoContrast":
        return C.AutoContrast()
    if name == "Equalize":
        return C.Equalize()
    if name == "Invert":
        return C.Invert()
    return None  # Identity


class _Translate(ImageTensorOperation):
    def __init__(self, horizontal, pixels_or_frac, inter, fill):
        self.horizontal, self.amount, self.inter, self.fill = horizontal, pixels_or_frac, inter, fill

    def _np(self, img):
        t = (self.amount / img.shape[1], 0.0) if self.horizontal else (0.0, self.amount / img.shape[0])
        return G.Affine(0.0, t, 1.0, (0.0, 0.0), self.inter, self.fill)._np(img)


_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)), (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)), (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)), (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)), (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)), (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)), (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)), (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)), (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)), (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None))],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)), (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)), (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)), (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)), (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)), (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)), (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)), (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)), (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)), (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)), (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)), (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)), (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None))],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)), (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)), (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)), (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)), (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)), (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)), (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)), (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)), (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)), (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)), (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None))],
}
_SIGNED = {"ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast", "Sharpness"}


def _magnitudes(bins, h, w):
    lin = lambda hi: np.linspace(0.0, hi, bins)  # noqa: E731
    return {"ShearX": lin(0.3), "ShearY": lin(0.3), "TranslateX": lin(150.0 / 331.0 * w),
            "TranslateY": lin(150.0 / 331.0 * h), "Rotate": lin(30.0), "Brightness": lin(0.9), "Color": lin(0.9),
            "Contrast": lin(0.9), "Sharpness": lin(0.9), "Posterize": 8 - (np.arange(bins) / ((bins - 1) / 4)).round(),
            "Solarize": np.linspace(255.0, 0.0, bins), "AutoContrast": np.zeros(bins), "Equalize": np.zeros(bins),
            "Invert": np.zeros(bins), "Identity": np.zeros(bins)}


def _run_named(img, name, level, bins, inter, fill, g):
    a = np.asarray(img)
    mags = _magnitudes(bins, a.shape[0], a.shape[1])
    mag = float(mags[name][level]) if level is not None else 0.0
    if name in _SIGNED and g.random() < 0.5:
        mag = -mag
    op = _op(name, mag, inter, fill)
    return img if op is None else op(img)


class AutoAugment(ImageTensorOperation):
    """AutoAugment with the ImageNet, CIFAR10 or SVHN policy."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST, fill_value=0):
        if not isinstance(policy, AutoAugmentPolicy):
            raise TypeError("Argument policy is not of type [<enum 'AutoAugmentPolicy'>].")
        self.policy, self.interpolation, self.fill_value = policy, interpolation, G._fill(fill_value)

    def _np(self, img):
        g = rng()
        sub = _POLICIES[self.policy][int(g.integers(len(_POLICIES[self.policy])))]
        for name, p, level in sub:
            if g.random() < p:
                img = _run_named(img, name, level, 10, self.interpolation, self.fill_value, g)
        return img


_RAND_OPS = ("Identity", "ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color", "Contrast",
             "Sharpness", "Posterize", "Solarize", "AutoContrast", "Equalize")


class RandAugment(ImageTensorOperation):
    """RandAugment: `num_ops` random ops at `magnitude` (of `num_magnitude_bins`)."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        for name, value in (("num_ops", num_ops), ("magnitude", magnitude), ("num_magnitude_bins", num_magnitude_bins)):
            V.type_check(value, (int,), name)
        G._inter(interpolation)
        if num_magnitude_bins < 2 or not 0 <= magnitude < num_magnitude_bins or num_ops < 0:
            raise ValueError("RandAugment: need num_ops >= 0, num_magnitude_bins >= 2, 0 <= magnitude < bins.")
        self.num_ops, self.magnitude, self.bins = num_ops, magnitude, num_magnitude_bins
        self.interpolation, self.fill_value = interpolation, G._fill(fill_value)

    def _np(self, img):
        g = rng()
        for _ in range(self.num_ops):
            name = _RAND_OPS[int(g.integers(len(_RAND_OPS)))]
            img = _run_named(img, name, self.magnitude, self.bins, self.interpolation, self.fill_value, g)
        return img


class TrivialAugmentWide(ImageTensorOperation):
    """TrivialAugment: one random op at a random magnitude."""

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        V.type_check(num_magnitude_bins, (int,), "num_magnitude_bins")
        G._inter(interpolation)
        if num_magnitude_bins < 2:
            raise ValueError("num_magnitude_bins should be >= 2.")
        self.bins, self.interpolation, self.fill_value = num_magnitude_bins, interpolation, G._fill(fill_value)

    def _np(self, img):
        g = rng()
        name = _RAND_OPS[int(g.integers(len(_RAND_OPS)))]
        return _run_named(img, name, int(g.integers(self.bins)), self.bins, self.interpolation, self.fill_value, g)
