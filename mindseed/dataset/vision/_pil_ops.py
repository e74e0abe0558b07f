"""The PIL implementations MindSpore 2.10 runs when an eager vision transform is given a PIL image (its
`_execute_py` / py_transforms_util): the result is a PIL image again, computed by Pillow (its own resampling
filters, ImageEnhance and ImageOps), not by the OpenCV-style numpy kernels used for arrays."""
import numpy as np

from mindseed.dataset.vision._image import Image
from mindseed.dataset.vision.utils import Inter


def pil_filter(inter):
    """Inter -> Pillow resampling filter (MindSpore's Inter.to_python_type)."""
    table = {Inter.NEAREST: Image.NEAREST, Inter.ANTIALIAS: Image.LANCZOS, Inter.LINEAR: Image.BILINEAR,
             Inter.CUBIC: Image.BICUBIC}
    if inter not in table:
        raise TypeError("Current Interpolation is not supported with PIL input.")
    return table[inter]


def resize(img, size, inter):
    """int size: the shorter edge becomes `size` (the other truncated from the aspect ratio); (h, w): exact."""
    resample = pil_filter(inter)
    if isinstance(size, int):
        w, h = img.size
        if min(w, h) == size:
            return img
        if w < h:
            return img.resize((size, int(size / (w / h))), resample)
        return img.resize((int(size * (w / h)), size), resample)
    return img.resize((size[1], size[0]), resample)


def center_crop(img, size):
    """The box at round((H - h) / 2), round((W - w) / 2); Pillow fills what lies outside the image with 0."""
    h, w = (size, size) if isinstance(size, int) else size
    W, H = img.size
    top, left = int(round((H - h) / 2.0)), int(round((W - w) / 2.0))
    return img.crop((left, top, left + w, top + h))


def pad(img, padding, fill_value, mode):
    """padding (left, top, right, bottom); mode 'constant' fills with `fill_value` (ImageOps.expand), the other
    modes pad the array with numpy's mode of that name."""
    from PIL import ImageOps

    left, top, right, bottom = padding
    if mode == "constant":
        fill = fill_value if isinstance(fill_value, tuple) else (fill_value,) * 3
        if img.mode in ("L", "1"):
            fill = fill[0]
        return ImageOps.expand(img, border=(left, top, right, bottom), fill=fill)
    a = np.asarray(img)
    widths = ((top, bottom), (left, right)) + (((0, 0),) if a.ndim == 3 else ())
    return Image.fromarray(np.pad(a, widths, mode))


def enhance(img, kind, factor):
    """ImageEnhance.<kind>(img).enhance(factor): Brightness, Contrast or Color (saturation)."""
    from PIL import ImageEnhance

    return getattr(ImageEnhance, kind)(img).enhance(factor)


def adjust_hue(img, factor):
    """The H channel of Pillow's HSV shifted by uint8(factor * 255), wrapping (single-band images unchanged)."""
    if img.mode in ("L", "1", "I", "F"):
        return img
    h, s, v = img.convert("HSV").split()
    shift = int(factor * 255) % 256
    h = Image.fromarray((np.asarray(h, dtype=np.uint8) + np.uint8(shift)).astype(np.uint8), "L")
    return Image.merge("HSV", (h, s, v)).convert(img.mode)


def adjust_gamma(img, gamma, gain):
    """Pillow point table int(255.999 * gain * (x / 255) ** gamma), for one- or three-band images."""
    table = [int((255 + 1 - 1e-3) * gain * pow(x / 255.0, gamma)) for x in range(256)]
    bands = len(img.getbands())
    if bands not in (1, 3):
        return img
    return img.point(table * bands)


def image_ops(name, img, *args):
    """ImageOps.<name>(img, *args): invert, equalize, autocontrast."""
    from PIL import ImageOps

    return getattr(ImageOps, name)(img, *args)


def require_pil(img):
    """Grayscale and the other PIL-only transforms refuse arrays, as MindSpore's py_transforms_util does."""
    if not isinstance(img, Image.Image):
        raise TypeError(f"img should be PIL image. Got {type(img)}. Use Decode() for encoded data or ToPIL() for "
                        f"decoded data.")
    return img
