"""Vision transforms that change pixel values: rescale/normalise, colour adjustments, histogram ops, blur."""
import numbers

import numpy as np

from mindseed.dataset import _validate as V
from mindseed.dataset._random import rng, std_engine
from mindseed.dataset._std_random import shuffle_list, uniform_float
from mindseed.dataset.vision import _image as I
from mindseed.dataset.transforms._base import PyTensorOperation
from mindseed.dataset.vision import _pil_ops as PO
from mindseed.dataset.vision._geometry import ImageTensorOperation, _mid_range_draw, _prob, _range_arg
from mindseed.dataset.vision.utils import ConvertMode

__all__ = ["Rescale", "Normalize", "NormalizePad", "AdjustBrightness", "AdjustContrast", "AdjustSaturation",
           "AdjustHue", "AdjustGamma", "AdjustSharpness", "RandomColorAdjust", "RandomColor", "RandomSharpness",
           "RandomAdjustSharpness", "Grayscale", "RandomGrayscale", "ConvertColor", "Invert", "RandomInvert",
           "AutoContrast", "RandomAutoContrast", "Equalize", "RandomEqualize", "Posterize", "RandomPosterize",
           "Solarize", "RandomSolarize", "RgbToHsv", "HsvToRgb", "GaussianBlur", "LinearTransformation",
           "RandomLighting"]


def _number(v, name):
    if not isinstance(v, numbers.Real) or isinstance(v, bool):
        raise TypeError(f"Argument {name} with value {v!r} is not of type [<class 'numbers.Number'>], "
                        f"but got {type(v)}.")
    return float(v)


def _nonneg(v, name):
    v = _number(v, name)
    if v < 0:
        raise ValueError(f"Input {name} is not within the required interval of [0, 16777216].")
    return v


def _rgb(img, who):
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"{who}: the input image should be RGB <H, W, 3>, but got shape {list(img.shape)}.")
    return img


def _blend(a, b, factor, dtype):
    """a * factor + b * (1 - factor), saturated to `dtype` (PIL's ImageEnhance rule)."""
    return I.clip_cast(b + (a.astype(np.float32) - b) * factor, dtype)


class Rescale(ImageTensorOperation):
    """x * rescale + shift as MindSpore computes it (OpenCV's convertTo): in double precision with rescale and shift
    rounded to float32, the result rounded to float32."""

    def __init__(self, rescale, shift):
        self.rescale = _number(rescale, "rescale")
        self.shift = _number(shift, "shift")

    def _apply(self, img):
        return self._batch_apply(np.asarray(img))

    def _batch_apply(self, x):
        out = x.astype(np.float64)
        out *= float(np.float32(self.rescale))
        out += float(np.float32(self.shift))
        return out.astype(np.float32)


def _mean_std(mean, std):
    if not isinstance(mean, (list, tuple)) or not isinstance(std, (list, tuple)):
        raise TypeError("mean and std should be lists or tuples of numbers.")
    if len(mean) != len(std):
        raise ValueError("Length of mean and std must be equal.")
    if not mean or len(mean) > 4 and len(mean) != 1:
        raise ValueError("Length of mean and std must be 1 or the number of channels.")
    for m in mean:
        if not 0 <= m <= 255:
            raise ValueError("Input mean_value is not within the required interval of [0, 255].")
    for s in std:
        if not 0 < s <= 255:
            raise ValueError("Input std_value is not within the required interval of (0, 255].")
    return np.asarray(mean, dtype=np.float32), np.asarray(std, dtype=np.float32)


# batches of images at least this large (values per image) are normalised image by image (cache-sized passes);
# smaller ones in whole-batch passes (fewer numpy calls)
_PER_IMAGE = 1 << 15


class Normalize(ImageTensorOperation):
    """(image - mean) / std per channel, float32 (`is_hwc=False` for CHW input)."""

    _batch_images = True

    def __init__(self, mean, std, is_hwc=True):
        self.mean, self.std = _mean_std(mean, std)
        self.is_hwc = bool(is_hwc)

    def _channels(self, c):
        """(mean, std) as float32 vectors of `c` values (a single mean/std applies to every channel)."""
        if len(self.mean) == c:
            return self.mean, self.std
        return np.full(c, self.mean[0], np.float32), np.full(c, self.std[0], np.float32)

    def _check(self, x, channels):
        if len(self.mean) not in (1, channels):
            raise RuntimeError(f"Normalize: number of channels does not match the size of mean and std vector, got "
                               f"channels: {channels}, size of mean: {len(self.mean)}")

    # Every path computes float32(x), then `-= mean`, then `/= std`, all in float32 as MindSpore's kernel does (so
    # all paths agree with it bit for bit). Writing the cast into a preallocated output and running the two in-place
    # ops over long contiguous rows (an HWC row is W*C values: the per-channel constants are tiled along it) keeps
    # numpy on its fast inner loops.
    def _hwc_into(self, out, img):
        h, w, c = img.shape
        m, s = self._channels(c)
        o = out.reshape(h, w * c)
        o[...] = img.reshape(h, w * c)
        o -= np.tile(m, w)
        o /= np.tile(s, w)

    def _np(self, img):
        if img.ndim == 2:
            self._check(img, 1)
            out = np.empty(img.shape, np.float32)
            out[...] = img
            out -= self.mean[0]
            out /= self.std[0]
            return out
        axis = 2 if self.is_hwc else 0
        self._check(img, img.shape[axis])
        out = np.empty(img.shape, np.float32)
        if self.is_hwc:
            self._hwc_into(out, img)
            return out
        m, s = self._channels(img.shape[0])
        out[...] = img
        out -= m.reshape(-1, 1, 1)
        out /= s.reshape(-1, 1, 1)
        return out

    def _batch_apply(self, x):
        if x.ndim != 4:
            return np.stack([self._np(r) for r in x])
        axis = 3 if self.is_hwc else 1
        self._check(x, x.shape[axis])
        out = np.empty(x.shape, np.float32)
        if self.is_hwc:
            if x[0].size < _PER_IMAGE:
                n, h, w, c = x.shape
                self._hwc_into(out.reshape(n * h, w, c), x.reshape(n * h, w, c))
                return out
            for i in range(x.shape[0]):  # one image at a time stays in cache across the three passes
                self._hwc_into(out[i], x[i])
            return out
        m, s = self._channels(x.shape[1])
        m, s = m.reshape(-1, 1, 1), s.reshape(-1, 1, 1)
        for o, xi in ((out, x),) if x[0].size < _PER_IMAGE else zip(out, x):
            o[...] = xi
            o -= m
            o /= s
        return out


class _NormalizeHWC2CHW(ImageTensorOperation):
    """Normalize(is_hwc=True) followed by HWC2CHW in one pass (map fuses the pair; same float32 operations)."""

    def __init__(self, normalize):
        self.normalize = normalize

    @property
    def _op_name(self):
        return "Normalize"

    def _np(self, img):
        if img.ndim != 3:
            return self.normalize._np(img)
        n = self.normalize
        c = img.shape[2]
        n._check(img, c)
        m, s = n._channels(c)
        out = np.empty((c,) + img.shape[:2], np.float32)
        out[...] = img.transpose(2, 0, 1)
        out -= m.reshape(-1, 1, 1)
        out /= s.reshape(-1, 1, 1)
        return out

    def _batch_apply(self, x):
        if x.ndim != 4:
            return self.normalize._batch_apply(x)
        n = self.normalize
        c = x.shape[3]
        n._check(x, c)
        m, s = n._channels(c)
        m, s = m.reshape(-1, 1, 1), s.reshape(-1, 1, 1)
        out = np.empty((x.shape[0], c) + x.shape[1:3], np.float32)
        if x[0].size < _PER_IMAGE:  # small images: three passes over the whole batch
            out[...] = x.transpose(0, 3, 1, 2)
            out -= m
            out /= s
            return out
        for i in range(x.shape[0]):  # one image at a time stays in cache across the three passes
            o = out[i]
            o[...] = x[i].transpose(2, 0, 1)
            o -= m
            o /= s
        return out


class NormalizePad(Normalize):
    """Normalize, then append a channel of zeros (HWC: 3 -> 4 channels), in `dtype` float32 or float16."""

    _batch_images = False

    def __init__(self, mean, std, dtype="float32", is_hwc=True):
        super().__init__(mean, std, is_hwc)
        if dtype not in ("float32", "float16"):
            raise ValueError(f"dtype should be 'float32' or 'float16', but got {dtype}.")
        self.dtype = dtype

    def _np(self, img):
        out = super()._np(img[:, :, None] if img.ndim == 2 else img)
        axis = 2 if self.is_hwc else 0
        pad_shape = list(out.shape)
        pad_shape[axis] = 1
        return np.concatenate([out, np.zeros(pad_shape, np.float32)], axis=axis).astype(self.dtype)

    def _batch_apply(self, x):
        return np.stack([self._np(r) for r in x])


class AdjustBrightness(ImageTensorOperation):
    """Multiply by `brightness_factor` (0 gives black)."""

    _valid_ranks, _valid_channels = (2, 3), (1, 3)

    def __init__(self, brightness_factor):
        self.brightness_factor = _nonneg(brightness_factor, "brightness_factor")

    def _np(self, img):
        return I.clip_cast(img.astype(np.float32) * self.brightness_factor, img.dtype)

    def _pil(self, img):
        return PO.enhance(img, "Brightness", self.brightness_factor)


def _contrast(img, factor):
    gray = I.rgb_to_gray(img) if img.ndim == 3 and img.shape[2] == 3 else img.astype(np.float32)
    mean = float(np.rint(gray.mean())) if img.dtype == np.uint8 else float(gray.mean())
    return _blend(img, mean, factor, img.dtype)


class AdjustContrast(ImageTensorOperation):
    """Blend with the mean grey level: factor 0 gives flat grey, 1 the original."""

    _valid_ranks, _valid_channels, _valid_dtypes = (3,), (3,), ("uint8", "uint16", "float32")

    def __init__(self, contrast_factor):
        self.contrast_factor = _nonneg(contrast_factor, "contrast_factor")

    def _np(self, img):
        return _contrast(img, self.contrast_factor)

    def _pil(self, img):
        return PO.enhance(img, "Contrast", self.contrast_factor)


def _saturation(img, factor):
    img = _rgb(img, "AdjustSaturation")
    gray = I.rgb_to_gray(img)[:, :, None]
    if img.dtype == np.uint8:
        gray = np.rint(gray)
    return _blend(img, gray, factor, img.dtype)


class AdjustSaturation(ImageTensorOperation):
    """Blend with the grey image: 0 gives grey, 1 the original, 2 doubles saturation."""

    _valid_ranks, _valid_channels, _valid_dtypes = (3,), (3,), ("uint8", "uint16", "float32")

    def __init__(self, saturation_factor):
        self.saturation_factor = _nonneg(saturation_factor, "saturation_factor")

    def _np(self, img):
        return _saturation(img, self.saturation_factor)

    def _pil(self, img):
        return PO.enhance(img, "Color", self.saturation_factor)


def _hue(img, factor):
    img = _rgb(img, "AdjustHue")
    scale = 255.0 if img.dtype == np.uint8 else 1.0
    hsv = I.rgb_to_hsv(img.astype(np.float64) / scale)
    hsv[..., 0] = (hsv[..., 0] + factor) % 1.0
    return I.clip_cast(I.hsv_to_rgb(hsv) * scale, img.dtype)


class AdjustHue(ImageTensorOperation):
    """Shift the hue by `hue_factor` of a full turn, in [-0.5, 0.5]."""

    _valid_ranks, _valid_channels, _valid_dtypes = (3,), (3,), ("uint8", "float32")

    def __init__(self, hue_factor):
        self.hue_factor = _number(hue_factor, "hue_factor")
        if not -0.5 <= self.hue_factor <= 0.5:
            raise ValueError("Input hue_factor is not within the required interval of [-0.5, 0.5].")

    def _np(self, img):
        return _hue(img, self.hue_factor)

    def _pil(self, img):
        return PO.adjust_hue(img, self.hue_factor)


class AdjustGamma(ImageTensorOperation):
    """gain * (image / 255) ** gamma, scaled back (MindSpore's table, truncating)."""

    def _validate(self, a):
        _one_or_three_channels(a, "AdjustGamma", ranks_checked=False)

    _batch_images = True

    def __init__(self, gamma, gain=1):
        self.gamma = _nonneg(gamma, "gamma")
        self.gain = _number(gain, "gain")

    def _np(self, img):
        if img.dtype == np.uint8:
            table = np.floor((255 + 1 - 1e-3) * self.gain * np.power(np.arange(256) / 255.0, self.gamma))
            return np.clip(table, 0, 255).astype(np.uint8)[img]
        return (self.gain * np.power(img.astype(np.float32), self.gamma)).astype(img.dtype)

    def _pil(self, img):
        return PO.adjust_gamma(img, self.gamma, self.gain)


def _smooth(img):
    """PIL's SMOOTH kernel [[1,1,1],[1,5,1],[1,1,1]]/13 on the interior, borders kept."""
    f = img.astype(np.float32)
    out = f.copy()
    if img.shape[0] > 2 and img.shape[1] > 2:
        acc = np.zeros_like(f[1:-1, 1:-1])
        for dy in (0, 1, 2):
            for dx in (0, 1, 2):
                acc += f[dy:dy + f.shape[0] - 2, dx:dx + f.shape[1] - 2] * (5.0 if dy == dx == 1 else 1.0)
        out[1:-1, 1:-1] = acc / 13.0
    if img.dtype == np.uint8:
        out = np.rint(out)
    return out


def _sharpness(img, factor):
    return _blend(img, _smooth(img), factor, img.dtype)


class AdjustSharpness(ImageTensorOperation):
    """Blend with a smoothed image: 0 blurs, 1 keeps, 2 sharpens."""

    def __init__(self, sharpness_factor):
        self.sharpness_factor = _nonneg(sharpness_factor, "sharpness_factor")

    def _np(self, img):
        return _sharpness(img, self.sharpness_factor)


def _factor_range(v, name):
    """RandomColorAdjust's brightness, contrast or saturation: a number v >= 0 is the range (max(0, 1 - v), 1 + v), a
    (min, max) pair is taken as given; both ends must lie in [0, 16777216] (MindSpore's bounds)."""
    lo, hi = _range_arg(v, name, center=1.0)
    if isinstance(v, numbers.Real):
        lo = max(0.0, lo)
    if lo < 0 or hi > 16777216:
        raise ValueError(f"Input {name} is not within the required interval of [0, 16777216].")
    return (lo, hi)


class RandomColorAdjust(ImageTensorOperation):
    """Random brightness, contrast, saturation (factors around 1) and hue (shift around 0), in random order."""

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        self.brightness = _factor_range(brightness, "brightness")
        self.contrast = _factor_range(contrast, "contrast")
        self.saturation = _factor_range(saturation, "saturation")
        self.hue = _range_arg(hue, "hue", center=0.0)
        if self.hue[0] < -0.5 or self.hue[1] > 0.5:
            raise ValueError("Input hue is not within the required interval of [-0.5, 0.5].")

    def _np(self, img):
        active = {"brightness": self.brightness != (1.0, 1.0), "contrast": self.contrast != (1.0, 1.0),
                  "saturation": self.saturation != (1.0, 1.0), "hue": self.hue != (0.0, 0.0)}
        g = std_engine(self, 2 + sum(active.values()))
        if g is None:
            return self._numpy_draws(img)
        # MindSpore: shuffle the four names, then each active one draws its float factor and runs
        apply = {"brightness": lambda x, f: I.clip_cast(x.astype(np.float32) * f, x.dtype), "contrast": _contrast,
                 "saturation": _saturation, "hue": _hue}
        for name in shuffle_list(["brightness", "contrast", "saturation", "hue"], g):
            if active[name]:
                img = apply[name](img, uniform_float(g, *getattr(self, name)))
        return img

    def _numpy_draws(self, img):
        g = rng()
        steps = []
        if self.brightness != (1.0, 1.0):
            f = g.uniform(*self.brightness)
            steps.append(lambda x: I.clip_cast(x.astype(np.float32) * f, x.dtype))
        if self.contrast != (1.0, 1.0):
            c = g.uniform(*self.contrast)
            steps.append(lambda x: _contrast(x, c))
        if self.saturation != (1.0, 1.0):
            s = g.uniform(*self.saturation)
            steps.append(lambda x: _saturation(x, s))
        if self.hue != (0.0, 0.0):
            h = g.uniform(*self.hue)
            steps.append(lambda x: _hue(x, h))
        for k in g.permutation(len(steps)):
            img = steps[k](img)
        return img


class RandomColor(ImageTensorOperation):
    """AdjustSaturation with a factor drawn from `degrees`."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _range_arg(degrees, "degrees")

    def _np(self, img):
        return _saturation(img, rng().uniform(*self.degrees))


class RandomSharpness(ImageTensorOperation):
    """AdjustSharpness with a factor drawn from `degrees`."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _range_arg(degrees, "degrees")

    def _np(self, img):
        g = std_engine(self, 1)
        return _sharpness(img, rng().uniform(*self.degrees) if g is None else _mid_range_draw(g, self.degrees))


class RandomAdjustSharpness(ImageTensorOperation):
    """With probability `prob`, AdjustSharpness(degree)."""

    def __init__(self, degree, prob=0.5):
        self.degree = _nonneg(degree, "degree")
        self.prob = _prob(prob)

    def _np(self, img):
        return _sharpness(img, self.degree) if rng().random() < self.prob else img


def _gray(img, channels):
    g = I.rgb_to_gray(_rgb(img, "Grayscale"))
    out = I.clip_cast(g, img.dtype)
    return np.repeat(out[:, :, None], 3, axis=2) if channels == 3 else out[:, :, None]


class Grayscale(ImageTensorOperation):
    """RGB -> grey with 1 or 3 channels (PIL in, PIL out)."""

    def __init__(self, num_output_channels=1):
        if num_output_channels not in (1, 3):
            raise ValueError("num_output_channels should be 1 or 3.")
        self.num_output_channels = num_output_channels

    def _np(self, img):
        return _gray(PO.require_pil(img), self.num_output_channels)  # MindSpore: a PIL-only transform

    def _pil(self, img):
        g = img.convert("L")
        return g if self.num_output_channels == 1 else I.Image.merge("RGB", [g, g, g])


class RandomGrayscale(Grayscale):
    """Grayscale (keeping the channel count) with probability `prob`."""

    def __init__(self, prob=0.1):
        super().__init__(1)
        self.prob = _prob(prob)

    def _np(self, img):
        if rng().random() >= self.prob:
            return img
        return _gray(img, 3 if img.ndim == 3 and img.shape[2] == 3 else 1)

    def _pil(self, img):
        if rng().random() >= self.prob:
            return img
        g = img.convert("L")
        return I.Image.merge("RGB", [g, g, g]) if img.mode == "RGB" else g


_CONVERT = {0: ("add_alpha", None), 1: ("drop_alpha", None), 2: ("add_alpha", "swap"), 3: ("drop_alpha", "swap"),
            4: (None, "swap"), 5: (None, "swap"), 6: ("gray", "bgr"), 7: ("gray", None), 8: ("from_gray", None),
            9: ("from_gray_a", None), 10: ("gray", "bgra"), 11: ("gray", None)}


class ConvertColor(ImageTensorOperation):
    """Colour space conversion between RGB/BGR/RGBA/BGRA/GRAY (a ConvertMode)."""

    def __init__(self, convert_mode):
        if not isinstance(convert_mode, ConvertMode):
            raise TypeError(f"Argument convert_mode with value {convert_mode!r} is not of type [<enum 'ConvertMode'>].")
        self.convert_mode = convert_mode

    def _np(self, img):
        op, order = _CONVERT[int(self.convert_mode)]
        a = img
        if op == "from_gray" or op == "from_gray_a":
            g = a if a.ndim == 2 else a[:, :, 0]
            chans = [g, g, g] + ([np.full_like(g, 255 if a.dtype == np.uint8 else 1)] if op == "from_gray_a" else [])
            return np.stack(chans, axis=2)
        if a.ndim != 3:
            raise ValueError(f"ConvertColor: the input should be <H, W, C>, but got shape {list(a.shape)}.")
        if order in ("swap", "bgr", "bgra"):
            a = np.concatenate([a[:, :, 2::-1], a[:, :, 3:]], axis=2)
        if op == "gray":
            return I.clip_cast(I.rgb_to_gray(a[:, :, :3]), img.dtype)
        if op == "add_alpha":
            return np.concatenate([a[:, :, :3], np.full(a.shape[:2] + (1,), 255 if a.dtype == np.uint8 else 1,
                                                        a.dtype)], axis=2)
        if op == "drop_alpha":
            return np.ascontiguousarray(a[:, :, :3])
        return np.ascontiguousarray(a)


class _ThreeChannels:
    """Mixin: MindSpore's rank-3 / 3-channel check with the op's own words."""

    _rank_words = "input tensor is not in shape of <H,W,C>, but got rank: {}"
    _channel_words = "channel of input image should be 3, but got: {}"

    def _validate(self, a):
        who = type(self).__name__
        if a.ndim != 3:
            raise RuntimeError(f"{who}: " + self._rank_words.format(a.ndim))
        if a.shape[2] != 3:
            raise RuntimeError(f"{who}: " + self._channel_words.format(a.shape[2]))


class Invert(_ThreeChannels, ImageTensorOperation):
    """255 - image."""

    _channel_words = "the number of channels of input tensor is not 3, but got: {}"

    def _np(self, img):
        # 255 - x saturated to the image's type, as MindSpore (a uint16 pixel above 255 gives 0)
        if img.dtype == np.uint8:
            return np.uint8(255) - img
        return I.clip_cast(255 - img.astype(np.int64), img.dtype) if img.dtype.kind in "ui" else 255 - img

    def _pil(self, img):
        return PO.image_ops("invert", img)

    def _batch_apply(self, x):
        return self._np(x)


class RandomInvert(ImageTensorOperation):
    """Invert with probability `prob`."""

    def __init__(self, prob=0.5):
        self.prob = _prob(prob)

    def _np(self, img):
        return Invert()._np(img) if rng().random() < self.prob else img


def _autocontrast(img, cutoff, ignore):
    a3, flat = I.hwc(img)
    out = np.empty_like(a3)
    for c in range(a3.shape[2]):
        ch = a3[:, :, c]
        hist = np.bincount(ch.reshape(-1).astype(np.int64), minlength=256)[:256]
        if ignore is not None:
            hist[list(ignore) if isinstance(ignore, (list, tuple)) else [ignore]] = 0
        if cutoff:
            cut = int(hist.sum() * cutoff / 100)
            for order in (range(256), range(255, -1, -1)):
                left = cut
                for i in order:
                    take = min(left, hist[i])
                    hist[i] -= take
                    left -= take
                    if left <= 0:
                        break
        nz = np.flatnonzero(hist)
        if len(nz) == 0 or nz[0] == nz[-1]:
            out[:, :, c] = ch
            continue
        lo, hi = nz[0], nz[-1]
        scale = 255.0 / (hi - lo)
        lut = np.clip(np.arange(256) * scale - lo * scale, 0, 255)
        out[:, :, c] = lut.astype(np.uint8)[ch]
    return out[:, :, 0] if flat else out


def _uint8(img, who):
    if img.dtype != np.uint8:
        raise RuntimeError(f"{who}: the input image should be uint8, but got {img.dtype}.")
    return img


def _one_or_three_channels(a, who, ranks_checked=True):
    """MindSpore's check of the histogram/table kernels (AutoContrast, Equalize, AdjustGamma)."""
    if ranks_checked and a.ndim not in (2, 3):
        raise RuntimeError(f"{who}: image rank should be 2 or 3,  but got: {a.ndim}")
    if a.ndim == 3 and a.shape[2] not in (1, 3):
        raise RuntimeError(f"{who}: channel of input image should be 1 or 3, but got: {a.shape[2]}")


class AutoContrast(ImageTensorOperation):
    """Stretch each channel to [0, 255], cutting `cutoff` percent of pixels at both ends (ignoring `ignore`)."""

    def _validate(self, a):
        _one_or_three_channels(a, type(self).__name__)

    def __init__(self, cutoff=0.0, ignore=None):
        self.cutoff = _number(cutoff, "cutoff")
        if not 0 <= self.cutoff < 50:
            raise ValueError("Input cutoff is not within the required interval of [0, 50).")
        self.ignore = ignore

    def _np(self, img):
        return _autocontrast(_uint8(img, "AutoContrast"), self.cutoff, self.ignore)

    def _pil(self, img):
        return PO.image_ops("autocontrast", img, self.cutoff, self.ignore)


class RandomAutoContrast(AutoContrast):
    """AutoContrast with probability `prob`."""

    _pil = None  # no PIL implementation in MindSpore: a PIL image is run as an array

    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        super().__init__(cutoff, ignore)
        self.prob = _prob(prob)

    def _np(self, img):
        return super()._np(img) if rng().random() < self.prob else img


def _equalize(img):
    """OpenCV's equalizeHist per channel (what MindSpore's Equalize runs)."""
    a3, flat = I.hwc(_uint8(img, "Equalize"))
    out = np.empty_like(a3)
    for c in range(a3.shape[2]):
        ch = a3[:, :, c]
        hist = np.bincount(ch.reshape(-1), minlength=256)
        i0 = int(np.flatnonzero(hist)[0])
        total = ch.size
        if hist[i0] == total:
            out[:, :, c] = i0
            continue
        scale = 255.0 / (total - hist[i0])
        lut = np.zeros(256, dtype=np.float64)
        lut[i0 + 1:] = np.cumsum(hist[i0 + 1:]) * scale
        out[:, :, c] = np.clip(np.rint(lut), 0, 255).astype(np.uint8)[ch]
    return out[:, :, 0] if flat else out


class Equalize(ImageTensorOperation):
    """Histogram equalisation per channel (PIL's ImageOps.equalize)."""

    def _validate(self, a):
        _one_or_three_channels(a, type(self).__name__)

    def _np(self, img):
        return _equalize(img)

    def _pil(self, img):
        return PO.image_ops("equalize", img)


class RandomEqualize(ImageTensorOperation):
    """Equalize with probability `prob`."""

    def __init__(self, prob=0.5):
        self.prob = _prob(prob)

    def _np(self, img):
        return _equalize(img) if rng().random() < self.prob else img


def _bits(b):
    if isinstance(b, bool) or not isinstance(b, int) or not 1 <= b <= 8:
        raise ValueError("Input bits is not within the required interval of [1, 8].")
    return b


class Posterize(ImageTensorOperation):
    """Keep the top `bits` bits of each uint8 channel."""

    def __init__(self, bits):
        self.bits = _bits(bits)

    def _validate(self, a):
        if a.dtype not in (np.int8, np.uint8):
            raise RuntimeError(f"Posterize: data type of input image should be int8 or uint8, but got {a.dtype}")
        if a.ndim not in (2, 3):
            raise RuntimeError(f"Posterize: input image is not in shape of <H,W,C> or <H,W>, but got rank: {a.ndim}")

    def _np(self, img):
        # MindSpore's kernel works on the bytes: an int8 image comes back uint8
        return img.view(np.uint8) & np.uint8((0xFF << (8 - self.bits)) & 0xFF)


class RandomPosterize(ImageTensorOperation):
    """Posterize with bits drawn from the range `bits`."""

    def __init__(self, bits=(8, 8)):
        bits = (bits, bits) if isinstance(bits, int) else V.check_int_seq(bits, "bits")
        self.bits = (_bits(bits[0]), _bits(bits[1]))

    def _np(self, img):
        b = int(rng().integers(self.bits[0], self.bits[1] + 1))
        return img & np.uint8((0xFF << (8 - b)) & 0xFF)


def _solarize(img, lo, hi):
    inv = Invert()._np(img)
    return np.where((img >= lo) & (img <= hi), inv, img)


class Solarize(ImageTensorOperation):
    """Invert the pixels >= threshold (or within a (min, max) threshold range)."""

    _valid_ranks, _valid_channels = (2, 3), (1, 3)

    def __init__(self, threshold):
        t = (threshold, 255) if isinstance(threshold, numbers.Real) and not isinstance(threshold, bool) else \
            V.check_int_seq(threshold, "threshold", types=(int, float))
        if len(t) != 2 or not 0 <= t[0] <= t[1] <= 255:
            raise ValueError("Input threshold is not within the required interval of [0, 255].")
        self.threshold = t

    def _np(self, img):
        return _solarize(img, *self.threshold)


class RandomSolarize(ImageTensorOperation):
    """Solarize with a threshold range drawn inside `threshold`."""

    def __init__(self, threshold=(0, 255)):
        t = V.check_int_seq(threshold, "threshold", types=(int, float), seq=(tuple,))
        if len(t) != 2 or not 0 <= t[0] <= t[1] <= 255:
            raise ValueError("Input threshold is not within the required interval of [0, 255].")
        self.threshold = t

    def _np(self, img):
        a, b = sorted(int(x) for x in rng().integers(self.threshold[0], self.threshold[1] + 1, size=2))
        return _solarize(img, a, b)


class RgbToHsv(ImageTensorOperation):
    """RGB in [0, 1] -> HSV in [0, 1] (HWC, or CHW with is_hwc=False)."""

    def __init__(self, is_hwc=False):
        self.is_hwc = bool(is_hwc)

    def _np(self, img):
        a = img if self.is_hwc else np.moveaxis(img, 0, -1)
        if a.shape[-1] != 3:
            raise TypeError(f"img should be 3 channels RGB img. Got {a.shape[-1]} channels.")
        out = I.rgb_to_hsv(a.astype(np.float64))
        return out if self.is_hwc else np.moveaxis(out, -1, 0)


class HsvToRgb(RgbToHsv):
    """HSV in [0, 1] -> RGB in [0, 1]."""

    def _np(self, img):
        a = img if self.is_hwc else np.moveaxis(img, 0, -1)
        if a.shape[-1] != 3:
            raise TypeError(f"img should be 3 channels HSV img. Got {a.shape[-1]} channels.")
        out = I.hsv_to_rgb(a.astype(np.float64))
        return out if self.is_hwc else np.moveaxis(out, -1, 0)


def _gauss_kernel(k, sigma):
    x = np.arange(k, dtype=np.float64) - (k - 1) / 2
    w = np.exp(-x * x / (2 * sigma * sigma))
    return (w / w.sum()).astype(np.float32)


class GaussianBlur(ImageTensorOperation):
    """Blur with a Gaussian of odd `kernel_size` (int or (w, h)) and `sigma` (default from the size)."""

    def __init__(self, kernel_size, sigma=None):
        k = (kernel_size, kernel_size) if isinstance(kernel_size, int) else V.check_int_seq(kernel_size, "kernel_size")
        if len(k) != 2 or any(isinstance(v, bool) or not isinstance(v, int) or v <= 0 or v % 2 == 0 for v in k):
            raise ValueError("Input kernel_size should be positive and odd.")
        if sigma is None:
            s = tuple(0.3 * ((v - 1) * 0.5 - 1) + 0.8 for v in k)
        else:
            s = (sigma, sigma) if isinstance(sigma, numbers.Real) and not isinstance(sigma, bool) else \
                V.check_int_seq(sigma, "sigma", types=(int, float))
            if any(v <= 0 for v in s):
                raise ValueError("Input sigma should be positive.")
        self.kernel_size, self.sigma = k, tuple(float(v) for v in s)

    def _np(self, img):
        a3, flat = I.hwc(img)
        f = a3.astype(np.float32)
        for axis, (k, s) in ((1, (self.kernel_size[0], self.sigma[0])), (0, (self.kernel_size[1], self.sigma[1]))):
            r = k // 2
            widths = [(0, 0)] * 3
            widths[axis] = (r, r)
            p = np.pad(f, widths, mode="reflect") if f.shape[axis] > r else np.pad(f, widths, mode="edge")
            w = _gauss_kernel(k, s)
            n = f.shape[axis]
            f = sum(np.take(p, np.arange(i, i + n), axis=axis) * w[i] for i in range(k))
        out = I.clip_cast(f, img.dtype)
        return out[:, :, 0] if flat else out


class LinearTransformation(PyTensorOperation):
    """Flatten, subtract `mean_vector`, multiply by `transformation_matrix`, reshape back.

    As MindSpore's Python transform the arithmetic is numpy's on the arrays as given, so the result takes numpy's
    promoted dtype (a float32 image with a float64 matrix gives float64).
    """

    def __init__(self, transformation_matrix, mean_vector):
        V.to_array(transformation_matrix, "transformation_matrix", np.float64)
        V.to_array(mean_vector, "mean_vector", np.float64)
        m, v = np.asarray(transformation_matrix), np.asarray(mean_vector)  # numbers checked above; dtype kept
        if m.ndim != 2 or m.shape[0] != m.shape[1] or v.shape != (m.shape[0],):
            raise ValueError("transformation_matrix should be square D x D and mean_vector of length D.")
        self.transformation_matrix, self.mean_vector = m, v

    def _apply(self, img):
        if not isinstance(img, np.ndarray):
            raise TypeError(f"img should be NumPy array. Got {type(img)}")
        m = self.transformation_matrix
        if img.size != m.shape[0]:
            raise ValueError(f"transformation_matrix shape {m.shape} not compatible with Numpy image shape "
                             f"{img.shape}.")
        return np.dot(img.reshape(1, -1) - self.mean_vector, m).reshape(img.shape)


class RandomLighting(ImageTensorOperation):
    """AlexNet-style PCA lighting noise with strength `alpha`."""

    _EIGVAL = np.array([0.2175, 0.0188, 0.0045])
    _EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]])

    def __init__(self, alpha=0.05):
        self.alpha = _nonneg(alpha, "alpha")

    def _np(self, img):
        img = _rgb(img, "RandomLighting")
        if self.alpha == 0:
            return img
        a = rng().normal(0, self.alpha, 3)
        rgb = (self._EIGVEC @ (a * self._EIGVAL)) * 255.0
        return I.clip_cast(img.astype(np.float32) + rgb.astype(np.float32), img.dtype)
