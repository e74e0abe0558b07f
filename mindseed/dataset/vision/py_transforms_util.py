"""`mindspore.dataset.vision.py_transforms_util`: the Python vision transforms as plain functions (each runs
the transform of the same name on one image)."""
import numpy as np

from mindseed.dataset.vision import _color as C
from mindseed.dataset.vision import _geometry as G
from mindseed.dataset.vision import _image as I
from mindseed.dataset.vision.utils import Border, Inter

__all__ = ["is_pil", "is_numpy", "normalize", "decode", "hwc_to_chw", "to_pil", "horizontal_flip", "vertical_flip",
           "random_horizontal_flip", "random_vertical_flip", "crop", "resize", "center_crop", "pad", "to_type",
           "grayscale", "rotate", "five_crop", "ten_crop", "rgb_to_bgr", "rgb_to_hsv", "hsv_to_rgb",
           "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue"]


def is_pil(img):
    """Whether `img` is a PIL image."""
    return I.is_pil(img)


def normalize(img, mean, std, pad_channel=False, dtype="float32"):
    """(img - mean) / std per channel of a CHW float image (NormalizePad when `pad_channel`)."""
    a = np.asarray(img, dtype=np.float64)
    if a.ndim != 3:
        raise TypeError(f"normalize: the input should be a CHW image, but got shape {list(a.shape)}.")
    mean, std = np.asarray(mean, np.float64).reshape(-1, 1, 1), np.asarray(std, np.float64).reshape(-1, 1, 1)
    out = (a - mean) / std
    if pad_channel:
        out = np.concatenate([out, np.zeros((1,) + out.shape[1:])], axis=0)
    return out.astype(dtype)


def decode(img):
    """Decode image bytes to a PIL RGB image."""
    return I.decode_pil(np.asarray(img).tobytes() if isinstance(img, np.ndarray) else bytes(img)).convert("RGB")


def is_numpy(img):
    """Whether `img` is a numpy array."""
    return isinstance(img, np.ndarray)


def hwc_to_chw(img):
    """<H, W, C> -> <C, H, W> of a numpy image; a 2-D image is returned unchanged."""
    if not is_numpy(img):
        raise TypeError(f"hwc_to_chw: img should be NumPy array. Got {type(img)}.")
    if img.ndim not in (2, 3):
        raise TypeError(f"hwc_to_chw: img dimension should be 2 or 3. Got {img.ndim}.")
    return G.HWC2CHW()(img)


def to_pil(img):
    return G.ToPIL()(img)


def horizontal_flip(img):
    return G.HorizontalFlip()(img)


def vertical_flip(img):
    return G.VerticalFlip()(img)


def random_horizontal_flip(img, prob):
    return G.RandomHorizontalFlip(prob)(img)


def random_vertical_flip(img, prob):
    return G.RandomVerticalFlip(prob)(img)


def crop(img, top, left, height, width):
    return G.Crop((top, left), (height, width))(img)


def resize(img, size, interpolation=Inter.BILINEAR):
    return G.Resize(size, interpolation)(img)


def center_crop(img, size):
    return G.CenterCrop(size)(img)


def pad(img, padding, fill_value, padding_mode=Border.CONSTANT):
    return G.Pad(padding, fill_value, padding_mode)(img)


def to_type(img, output_type):
    return np.asarray(img).astype(output_type)


def grayscale(img, num_output_channels):
    return C.Grayscale(num_output_channels)(img)


def rotate(img, angle, resample, expand, center, fill_value):
    return G.Rotate(angle, resample, expand, center, fill_value)(img)


def five_crop(img, size):
    return G.FiveCrop(size)(img)


def ten_crop(img, size, use_vertical_flip=False):
    return G.TenCrop(size, use_vertical_flip)(img)


def rgb_to_bgr(np_rgb_img, is_hwc):
    """Swap the R and B channels of an HWC (`is_hwc`) or CHW image."""
    a = np.asarray(np_rgb_img)
    return a[..., ::-1].copy() if is_hwc else a[::-1].copy()


def rgb_to_hsv(np_rgb_img, is_hwc):
    return C.RgbToHsv(is_hwc)(np_rgb_img)


def hsv_to_rgb(np_hsv_img, is_hwc):
    return C.HsvToRgb(is_hwc)(np_hsv_img)


def adjust_brightness(img, brightness_factor):
    return C.AdjustBrightness(brightness_factor)(img)


def adjust_contrast(img, contrast_factor):
    return C.AdjustContrast(contrast_factor)(img)


def adjust_saturation(img, saturation_factor):
    return C.AdjustSaturation(saturation_factor)(img)


def adjust_hue(img, hue_factor):
    return C.AdjustHue(hue_factor)(img)
