"""Enums and image file helpers of `mindspore.dataset.vision` (Inter, Border, read_image, encode_jpeg, ...)."""
import enum
import io
import os

import numpy as np

from mindseed.dataset._validate import to_array
from mindseed.dataset.vision._image import Image, is_pil, to_np

__all__ = ["Inter", "Border", "ImageBatchFormat", "ConvertMode", "SliceMode", "AutoAugmentPolicy", "ImageReadMode",
           "encode_jpeg", "encode_png", "get_image_num_channels", "get_image_size", "read_file", "read_image",
           "write_file", "write_jpeg", "write_png"]


class Inter(enum.IntEnum):
    """Interpolation modes."""
    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = 2
    LINEAR = 2
    BICUBIC = 3
    CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, enum.Enum):
    """Padding modes: constant value, edge value, reflect (without the edge), symmetric (with the edge)."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ImageBatchFormat(enum.IntEnum):
    """Layout of an image batch."""
    NHWC = 0
    NCHW = 1


class SliceMode(enum.IntEnum):
    """How SlicePatches treats the remainder: pad it, or drop it."""
    PAD = 0
    DROP = 1


class ImageReadMode(enum.IntEnum):
    """Channels read_image returns."""
    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


class AutoAugmentPolicy(str, enum.Enum):
    """Policies of AutoAugment."""
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


class ConvertMode(enum.IntEnum):
    """Colour conversions of ConvertColor."""
    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


def _check_image_type(image):
    if not (is_pil(image) or isinstance(image, (np.ndarray, list, tuple)) or hasattr(image, "asnumpy")):
        raise TypeError(f"Input image is not of type {np.ndarray} or {Image.Image}, but got: {type(image)}.")


def _check_path(filename, who, must_exist):
    """MindSpore's checks of a file to read (it must be a regular file) or write (it must not be a directory),
    raised as its pipeline RuntimeError."""
    from mindseed.dataset.transforms._base import op_error
    if not isinstance(filename, str):
        raise TypeError(f"Input filename is not of type {str}, but got: {type(filename)}.")
    if os.path.isdir(filename):
        raise op_error(f"{who}: Invalid file path, {filename} is not a regular file.")
    if must_exist and not os.path.isfile(filename):
        raise op_error(f"{who}: Invalid file path, {filename} does not exist.")
    if not must_exist and not os.path.isdir(os.path.dirname(os.path.abspath(filename))):
        raise op_error("No such file or directory")


def get_image_num_channels(image):
    """Number of channels of a numpy HWC/HW image or PIL image."""
    _check_image_type(image)
    if is_pil(image):
        return len(image.getbands())
    a = to_np(image)
    if a.ndim == 2:
        return 1
    if a.ndim == 3:
        return a.shape[2]
    raise ValueError(f"The shape of input image should be <H, W> or <H, W, C>, but got {list(a.shape)}.")


def get_image_size(image):
    """[height, width] of a numpy or PIL image."""
    _check_image_type(image)
    if is_pil(image):
        return [image.size[1], image.size[0]]
    a = to_np(image)
    if a.ndim not in (2, 3):
        raise ValueError(f"The shape of input image should be <H, W> or <H, W, C>, but got {list(a.shape)}.")
    return [a.shape[0], a.shape[1]]


def _encode(image, fmt, **kw):
    a = to_np(image)
    if a.dtype != np.uint8:
        raise TypeError(f"The image to encode must be uint8, but got {a.dtype}.")
    if a.ndim == 3 and a.shape[2] == 1:
        a = a[:, :, 0]
    if a.ndim not in (2, 3) or (a.ndim == 3 and a.shape[2] != 3):
        raise ValueError(f"The image to encode should be <H, W>, <H, W, 1> or <H, W, 3>, but got {list(a.shape)}.")
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format=fmt, **kw)
    return np.frombuffer(buf.getvalue(), dtype=np.uint8)


def encode_jpeg(image, quality=75):
    """JPEG bytes (1-D uint8 array) of an image."""
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise ValueError(f"Invalid quality {quality}, should be in range of [1, 100].")
    return _encode(image, "JPEG", quality=quality)


def encode_png(image, compression_level=6):
    """PNG bytes (1-D uint8 array) of an image."""
    if isinstance(compression_level, bool) or not isinstance(compression_level, int) or \
            not 0 <= compression_level <= 9:
        raise ValueError(f"Invalid compression_level {compression_level}, should be in range of [0, 9].")
    return _encode(image, "PNG", compress_level=compression_level)


def read_file(filename):
    """The bytes of a file as a 1-D uint8 array."""
    _check_path(filename, "ReadFile", True)
    return np.fromfile(filename, dtype=np.uint8)


def read_image(filename, mode=ImageReadMode.UNCHANGED):
    """Decode an image file to a HWC uint8 array (UNCHANGED keeps its channels, GRAYSCALE 1, COLOR 3)."""
    if not isinstance(mode, ImageReadMode):
        raise TypeError(f"Input mode is not of type ImageReadMode, but got: {type(mode)}.")
    _check_path(filename, "ReadImage", True)
    data = np.fromfile(filename, dtype=np.uint8)
    try:
        with Image.open(io.BytesIO(data.tobytes())) as im:
            if mode == ImageReadMode.GRAYSCALE:
                im = im.convert("L")
            elif mode == ImageReadMode.COLOR:
                im = im.convert("RGB")
            elif im.mode not in ("L", "RGB", "RGBA"):
                im = im.convert("RGB")
            a = np.asarray(im)
    except Exception as e:  # noqa: BLE001
        raise RuntimeError(f"read_image: failed to decode {filename}: {e}.") from None
    return a[:, :, None] if a.ndim == 2 else a


def _write(filename, a, who):
    _check_path(filename, who, False)
    with open(filename, "wb") as f:
        f.write(a.tobytes())


def write_file(filename, data):
    """Write a 1-D uint8 array to a file."""
    a = to_array(data, "data")
    if a.dtype != np.uint8 or a.ndim != 1:
        raise TypeError(f"The data to write must be a 1-D uint8 array, but got {a.dtype} {list(a.shape)}.")
    _write(filename, a, "WriteFile")


def write_jpeg(filename, image, quality=75):
    """Encode an image as JPEG into a file."""
    _write(filename, encode_jpeg(image, quality), "WriteJpeg")


def write_png(filename, image, compression_level=6):
    """Encode an image as PNG into a file."""
    _write(filename, encode_png(image, compression_level), "WritePng")
