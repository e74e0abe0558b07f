"""Vision transforms that move pixels: decode, resize, crops, flips, pads, rotations, warps, layout."""
import math
import numbers

import numpy as np

from mindseed.dataset._random import rng, std_engine
from mindseed.dataset._std_random import bernoulli, uniform_float, uniform_int
from mindseed.dataset import _validate as V
from mindseed.dataset.transforms._base import PyTensorOperation, TensorOperation
from mindseed.dataset.vision import _image as I
from mindseed.dataset.vision import _pil_ops as PO
from mindseed.dataset.vision._image import Image
from mindseed.dataset.vision.utils import Border, Inter, SliceMode

__all__ = ["ImageTensorOperation", "Decode", "Resize", "RandomResize", "CenterCrop", "Crop", "RandomCrop",
           "RandomResizedCrop", "ResizedCrop", "RandomCropDecodeResize", "HorizontalFlip", "VerticalFlip",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Pad", "PadToSize", "Rotate", "RandomRotation", "Affine",
           "RandomAffine", "Perspective", "RandomPerspective", "FiveCrop", "TenCrop", "SlicePatches", "HWC2CHW",
           "ToTensor", "ToPIL", "ToNumpy", "ToType"]


def _listed(values):
    return "(" + ", ".join(str(v) for v in values) + ")"


class ImageTensorOperation(TensorOperation):
    """An image transform: numpy HWC/HW arrays via `_np`, PIL images via `_pil` when defined.

    `_batch_images`: MindSpore's kernel also takes a batch <..., H, W, C> of images (applied image by image).
    `_valid_ranks`, `_valid_channels`, `_valid_dtypes`: what MindSpore's kernel validates a numpy image against
    (None: anything), refused with its RuntimeError messages.
    """

    _batch_images = False
    _valid_ranks = _valid_channels = _valid_dtypes = None

    def _validate(self, a):
        who = type(self).__name__
        if self._valid_ranks and a.ndim not in self._valid_ranks:
            shapes = " or ".join("<H, W, C>" if r == 3 else "<H, W>" for r in self._valid_ranks)
            raise RuntimeError(f"{who}: the dimension of image tensor does not match the requirement of operator. "
                               f"Expecting tensor in dimension of {_listed(self._valid_ranks)}, in shape of {shapes}. "
                               f"But got dimension {a.ndim}.")
        if self._valid_channels and a.ndim == 3 and a.shape[2] not in self._valid_channels:
            raise RuntimeError(f"{who}: the channel of image tensor does not match the requirement of operator. "
                               f"Expecting tensor in channel of {_listed(self._valid_channels)}. But got channel "
                               f"{a.shape[2]}.")
        if self._valid_dtypes and a.dtype.name not in self._valid_dtypes:
            raise RuntimeError(f"{who}: the data type of image tensor does not match the requirement of operator. "
                               f"Expecting tensor in type of {_listed(self._valid_dtypes)}. But got type "
                               f"{a.dtype.name}.")

    def _apply(self, img):
        if I.is_pil(img) and getattr(self, "_pil", None) is not None:
            return self._pil(img)
        a = I.to_np(img)
        if isinstance(a, np.ndarray):
            self._validate(a)
        if self._batch_images and isinstance(img, np.ndarray) and img.ndim > 3:
            who = type(self).__name__
            outs = [self._np(I.check_image(x, who)) for x in img.reshape((-1,) + img.shape[-3:])]
            return np.stack(outs).reshape(img.shape[:-3] + outs[0].shape)
        return self._np(I.check_image(img, type(self).__name__))


# ---------------------------------------------------------------------------- argument checks
def _size_arg(size, name="size"):
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        if size <= 0:
            raise ValueError(f"Input {name} is not within the required interval of [1, 16777216].")
        return int(size)
    if isinstance(size, (list, tuple)) and len(size) == 2 and all(isinstance(s, numbers.Integral) and
                                                                  not isinstance(s, bool) for s in size):
        if any(s <= 0 for s in size):
            raise ValueError(f"Input {name} is not within the required interval of [1, 16777216].")
        return (int(size[0]), int(size[1]))
    raise TypeError(f"Argument {name} with value {size!r} is not of type [<class 'int'>, <class 'list'>, "
                    f"<class 'tuple'>] of length 2.")


def _hw(size):
    return (size, size) if isinstance(size, int) else size


def _inter(v, name="interpolation"):
    if not isinstance(v, Inter):
        raise TypeError(f"Argument {name} with value {v!r} is not of type [<enum 'Inter'>], but got {type(v)}.")
    return v


def _prob(p):
    if not isinstance(p, numbers.Real) or isinstance(p, bool):
        raise TypeError(f"Argument prob with value {p!r} is not of type [<class 'float'>, <class 'int'>].")
    if not 0 <= p <= 1:
        raise ValueError("Input prob is not within the required interval of [0.0, 1.0].")
    return float(p)


def _fill(v):
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        if not 0 <= v <= 255:
            raise ValueError("Input fill_value is not within the required interval of [0, 255].")
        return int(v)
    if isinstance(v, tuple) and len(v) == 3 and all(isinstance(x, numbers.Integral) for x in v):
        return tuple(int(x) for x in v)
    raise TypeError(f"Argument fill_value with value {v!r} is not of type [int, tuple of 3 int].")


def _range_arg(v, name, low=None, center=None):
    """A number -> (center - v, center + v) or (low.., v); a 2-sequence -> as given (checked ordered)."""
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        if center is not None:
            if v < 0:
                raise ValueError(f"Input {name} is not within the required interval of [0, 16777216].")
            return (center - v, center + v)
        return (low, float(v))
    if isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, numbers.Real) for x in v):
        if v[0] > v[1]:
            raise ValueError(f"{name} should be in (min,max) format. Got (max,min).")
        return (float(v[0]), float(v[1]))
    raise TypeError(f"Argument {name} with value {v!r} is not of type [number, list/tuple of 2 numbers].")


def _padding_arg(padding):
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        p = [int(padding)] * 4
    elif isinstance(padding, (list, tuple)) and len(padding) in (2, 4):
        p = list(V.check_int_seq(padding, "padding", (2, 4)))
        p = [p[0], p[1], p[0], p[1]] if len(p) == 2 else p
    else:
        raise TypeError(f"Argument padding with value {padding!r} is not of type [int, list/tuple of 2 or 4 int].")
    if any(x < 0 for x in p):
        raise ValueError("Input padding is not within the required interval of [0, 2147483647].")
    return p  # left, top, right, bottom


def _resize_to(img, size, inter):
    """Resize with MindSpore's `size` rule: an int sets the shorter edge (aspect kept), a pair is (h, w)."""
    h, w = img.shape[:2]
    if isinstance(size, int):
        if h <= w:
            out = (size, int(size * w / h))
        else:
            out = (int(size * h / w), size)
    else:
        out = size
    return I.resize(img, out, inter)


# ---------------------------------------------------------------------------- decode / layout
class Decode(ImageTensorOperation):
    """Decode JPEG/PNG/BMP/TIFF bytes (1-D uint8 array or bytes) to an RGB HWC uint8 image (PIL with to_pil)."""

    def __init__(self, to_pil=False):
        V.bool_arg(to_pil, "to_pil")
        self.to_pil = to_pil

    def _apply(self, data):
        a = I.decode_bytes(data)
        return I.Image.fromarray(a) if self.to_pil else a


class HWC2CHW(ImageTensorOperation):
    """<H, W, C> -> <C, H, W> (2-D images are returned unchanged)."""

    def _np(self, img):
        return np.ascontiguousarray(img.transpose(2, 0, 1)) if img.ndim == 3 else img

    def _batch_apply(self, x):
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2)) if x.ndim == 4 else x


class ToTensor(ImageTensorOperation):
    """HWC image in [0, 255] -> CHW `output_type` array in [0, 1]."""

    def __init__(self, output_type=np.float32):
        from mindseed.dataset.transforms._transforms import _np_dtype
        self.output_type = output_type
        self._dtype = _np_dtype(output_type, "output_type")

    def _np(self, img):
        a = img[:, :, None] if img.ndim == 2 else img
        # as MindSpore's kernel: times float32(1 / 255) (dividing by 255 differs in the last bit)
        return (a.astype(np.float32) * np.float32(1.0 / 255.0)).transpose(2, 0, 1).astype(self._dtype)

    def _pil(self, img):
        # a PIL image takes MindSpore's Python path: divided by 255 in double precision
        a = np.asarray(img)
        a = a[:, :, None] if a.ndim == 2 else a
        return (a / 255.0).transpose(2, 0, 1).astype(self._dtype)


class ToPIL(ImageTensorOperation):
    """A decoded numpy image -> PIL image."""

    def _pil(self, img):
        return img

    def _np(self, img):
        return I.to_pil(img)


class ToNumpy(PyTensorOperation):
    """A PIL image (or any array-like) -> numpy array, as MindSpore's Python `np.array(img)` (no shape check)."""

    def _apply(self, img):
        return np.array(img)


class ToType(ImageTensorOperation):
    """Cast to `data_type` (numpy or mindseed dtype)."""

    def __init__(self, data_type):
        from mindseed.dataset.transforms._transforms import _np_dtype
        self.data_type = data_type
        self._dtype = _np_dtype(data_type)

    def _apply(self, img):
        return np.asarray(img).astype(self._dtype)

    def _batch_apply(self, x):
        return x.astype(self._dtype)


# ---------------------------------------------------------------------------- resize / crop
class Resize(ImageTensorOperation):
    """Resize to `size` (int: shorter edge, aspect kept; (h, w): exact) with `interpolation`."""

    _batch_images = True

    def __init__(self, size, interpolation=Inter.BILINEAR):
        self.size = _size_arg(size)
        self.interpolation = _inter(interpolation)

    def _np(self, img):
        return _resize_to(img, self.size, self.interpolation)

    def _pil(self, img):
        return PO.resize(img, self.size, self.interpolation)


class RandomResize(ImageTensorOperation):
    """Resize with an interpolation chosen at random."""

    def __init__(self, size):
        self.size = _size_arg(size)

    def _np(self, img):
        inter = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA)[int(rng().integers(4))]
        return _resize_to(img, self.size, inter)


def _crop(img, top, left, h, w):
    H, W = img.shape[:2]
    if top < 0 or left < 0 or top + h > H or left + w > W:
        raise RuntimeError(f"Crop: the box (top={top}, left={left}, height={h}, width={w}) is outside the image of "
                           f"size ({H}, {W}).")  # MindSpore's kernel check: a RuntimeError
    return img[top:top + h, left:left + w]


class Crop(ImageTensorOperation):
    """Crop the box at `coordinates` (top, left) of `size` (h, w or int)."""

    def __init__(self, coordinates, size):
        if not isinstance(coordinates, (list, tuple)) or len(coordinates) != 2:
            raise TypeError("Argument coordinates should be a list or tuple of (top, left).")
        self.coordinates = V.check_int_seq(coordinates, "coordinates")
        self.size = _size_arg(size)

    def _np(self, img):
        h, w = _hw(self.size)
        return _crop(img, self.coordinates[0], self.coordinates[1], h, w).copy()


class CenterCrop(ImageTensorOperation):
    """Crop the centre `size` box (padding with zeros when the image is smaller)."""

    _batch_images = True

    def __init__(self, size):
        self.size = _size_arg(size)

    def _np(self, img):
        h, w = _hw(self.size)
        H, W = img.shape[:2]
        if h > H or w > W:
            ph, pw = max(0, h - H), max(0, w - W)
            img = I.pad_image(img, ph - ph // 2, ph // 2, pw - pw // 2, pw // 2, "constant", 0)
            H, W = img.shape[:2]
        top, left = (H - h) // 2, (W - w) // 2
        return img[top:top + h, left:left + w].copy()

    def _pil(self, img):
        return PO.center_crop(img, self.size)


class RandomCrop(ImageTensorOperation):
    """Crop a random `size` box, after optional padding (`pad_if_needed` pads images smaller than size)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _size_arg(size)
        self.padding = None if padding is None else _padding_arg(padding)
        V.bool_arg(pad_if_needed, "pad_if_needed")
        self.pad_if_needed = pad_if_needed
        self.fill_value = _fill(fill_value)
        if not isinstance(padding_mode, Border):
            raise TypeError(f"Argument padding_mode with value {padding_mode!r} is not of type [<enum 'Border'>].")
        self.padding_mode = padding_mode

    def _padded_box(self, img):
        """(padded image, pad top, pad left, crop top, crop left, h, w) of one random crop."""
        h, w = _hw(self.size)
        pad_top = pad_left = 0
        if self.padding is not None:
            left, top, right, bottom = self.padding
            img = I.pad_image(img, top, bottom, left, right, self.padding_mode.value, self.fill_value)
            pad_top, pad_left = top, left
        H, W = img.shape[:2]
        exact = H == h and W == w  # MindSpore draws nothing then
        if self.pad_if_needed and (H < h or W < w):
            ph, pw = max(0, h - H), max(0, w - W)
            img = I.pad_image(img, ph, ph, pw, pw, self.padding_mode.value, self.fill_value)
            pad_top, pad_left = pad_top + ph, pad_left + pw
            H, W = img.shape[:2]
        if H < h or W < w:
            err = RuntimeError(f"{type(self).__name__}: the crop size ({h}, {w}) is larger than the image ({H}, "
                               f"{W}); set pad_if_needed=True or padding.")
            err._status = "shape"   # MindSpore's shape-mismatch status
            raise err
        if exact:
            return img, pad_top, pad_left, 0, 0, h, w
        g = std_engine(self, 2)
        if g is None:
            g = rng()
            top = int(g.integers(0, H - h + 1))
            left = int(g.integers(0, W - w + 1))
        else:  # MindSpore's RandomCrop draws the left edge, then the top one
            left = uniform_int(g, 0, W - w)
            top = uniform_int(g, 0, H - h)
        return img, pad_top, pad_left, top, left, h, w

    def _np(self, img):
        img, _, _, top, left, h, w = self._padded_box(img)
        return img[top:top + h, left:left + w].copy()


def _rrc_box(H, W, scale, ratio, max_attempts):
    g = rng()
    area = H * W
    s0, s_span = scale[0], scale[1] - scale[0]
    r0 = math.log(ratio[0])
    r_span = math.log(ratio[1]) - r0
    for _ in range(max_attempts):
        # low + (high - low) * random() is exactly what Generator.uniform(low, high) computes, at a third the cost
        target = area * (s0 + s_span * g.random())
        ar = math.exp(r0 + r_span * g.random())
        w = int(round(math.sqrt(target * ar)))
        h = int(round(math.sqrt(target / ar)))
        if 0 < w <= W and 0 < h <= H:
            return int(g.integers(0, H - h + 1)), int(g.integers(0, W - w + 1)), h, w
    in_ratio = W / H
    if in_ratio < ratio[0]:
        w, h = W, int(round(W / ratio[0]))
    elif in_ratio > ratio[1]:
        h, w = H, int(round(H * ratio[1]))
    else:
        w, h = W, H
    return (H - h) // 2, (W - w) // 2, h, w


def _check_rrc(size, scale, ratio, interpolation, max_attempts):
    size = _size_arg(size)
    scale = _range_arg(V.check_int_seq(scale, "scale", types=(int, float)), "scale")
    ratio = _range_arg(V.check_int_seq(ratio, "ratio", types=(int, float)), "ratio")
    if scale[0] < 0 or ratio[0] <= 0:
        raise ValueError("Input scale and ratio must be positive.")
    if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
        raise ValueError("Input max_attempts is not within the required interval of [1, 2147483647].")
    return size, scale, ratio, _inter(interpolation), max_attempts


class RandomResizedCrop(ImageTensorOperation):
    """Crop a random box (area fraction in `scale`, aspect ratio in `ratio`) and resize it to `size`."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        self.size, self.scale, self.ratio, self.interpolation, self.max_attempts = _check_rrc(
            size, scale, ratio, interpolation, max_attempts)

    def _np(self, img):
        top, left, h, w = _rrc_box(img.shape[0], img.shape[1], self.scale, self.ratio, self.max_attempts)
        return I.resize(img[top:top + h, left:left + w], _hw(self.size), self.interpolation)


class RandomCropDecodeResize(RandomResizedCrop):
    """Decode, then RandomResizedCrop (one op)."""

    def _apply(self, data):
        from mindseed.dataset.vision._fused import DecodeRandomResizedCrop
        return DecodeRandomResizedCrop(self)._apply(data)


class ResizedCrop(ImageTensorOperation):
    """Crop the box (top, left, height, width) and resize it to `size`."""

    def __init__(self, top, left, height, width, size, interpolation=Inter.BILINEAR):
        for name, v in (("top", top), ("left", left), ("height", height), ("width", width)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"Argument {name} with value {v!r} is not of type [<class 'int'>].")
        if top < 0 or left < 0 or height <= 0 or width <= 0:
            raise ValueError("ResizedCrop: top/left must be >= 0 and height/width > 0.")
        self.box = (top, left, height, width)
        self.size = _size_arg(size)
        self.interpolation = _inter(interpolation)

    def _np(self, img):
        return I.resize(_crop(img, *self.box), _hw(self.size), self.interpolation)


def _mid_range_draw(g, bounds):
    """MindSpore's RandomRotation / RandomSharpness draw: mid + r * half range in float32, r from
    uniform_real_distribution<float>(-1, 1) on the op's std::mt19937 `g`."""
    lo, hi = np.float32(bounds[0]), np.float32(bounds[1])
    r = np.float32(uniform_float(g, -1.0, 1.0))
    return float((hi + lo) / np.float32(2) + r * ((hi - lo) / np.float32(2)))


# ---------------------------------------------------------------------------- flips
def _coin(op):
    """Whether random flip `op` flips this row: in a map, MindSpore's bernoulli draw from the op's generator."""
    g = std_engine(op, 2)
    return rng().random() < op.prob if g is None else bernoulli(g, op.prob)


def _hflip(img):
    """Left-right mirror as a contiguous array (one strided copy per channel is ~6x faster than copying
    img[:, ::-1] whole, and a contiguous result keeps batching cheap)."""
    if img.ndim == 2:
        return img[:, ::-1].copy()
    out = np.empty_like(img)
    for c in range(img.shape[2]):
        out[:, :, c] = img[:, ::-1, c]
    return out


class HorizontalFlip(ImageTensorOperation):
    """Mirror left-right."""

    _batch_images = True

    _random = False
    _transpose = Image.Transpose.FLIP_LEFT_RIGHT if Image is not None else None

    def _np(self, img):
        return _hflip(img)

    def _batch_apply(self, x):
        return np.ascontiguousarray(x[:, :, ::-1])


class VerticalFlip(ImageTensorOperation):
    """Mirror top-bottom."""

    _batch_images = True

    _random = False
    _transpose = Image.Transpose.FLIP_TOP_BOTTOM if Image is not None else None

    def _np(self, img):
        return img[::-1].copy()

    def _batch_apply(self, x):
        return np.ascontiguousarray(x[:, ::-1])


class RandomHorizontalFlip(ImageTensorOperation):
    """Mirror left-right with probability `prob`."""

    _random = True
    _transpose = HorizontalFlip._transpose

    def __init__(self, prob=0.5):
        self.prob = _prob(prob)

    def _np(self, img):
        return _hflip(img) if _coin(self) else img

    def _pil(self, img):
        return img.transpose(Image.FLIP_LEFT_RIGHT) if _coin(self) else img


class RandomVerticalFlip(ImageTensorOperation):
    """Mirror top-bottom with probability `prob`."""

    _random = True
    _transpose = VerticalFlip._transpose

    def __init__(self, prob=0.5):
        self.prob = _prob(prob)

    def _np(self, img):
        return img[::-1].copy() if _coin(self) else img

    def _pil(self, img):
        return img.transpose(Image.FLIP_TOP_BOTTOM) if _coin(self) else img


# ---------------------------------------------------------------------------- pads
class Pad(ImageTensorOperation):
    """Pad the borders: padding int (all), (left/right, top/bottom) or (left, top, right, bottom)."""

    _valid_ranks, _valid_channels = (2, 3), (1, 3)

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _padding_arg(padding)
        self.fill_value = _fill(fill_value)
        if not isinstance(padding_mode, Border):
            raise TypeError(f"Argument padding_mode with value {padding_mode!r} is not of type [<enum 'Border'>].")
        self.padding_mode = padding_mode

    def _np(self, img):
        left, top, right, bottom = self.padding
        return I.pad_image(img, top, bottom, left, right, self.padding_mode.value, self.fill_value)

    def _pil(self, img):
        return PO.pad(img, self.padding, self.fill_value, self.padding_mode.value)


class PadToSize(ImageTensorOperation):
    """Pad to `size` (h, w), the image at `offset` (top, left; default centred)."""

    _valid_ranks, _valid_channels = (2, 3), (1, 3)

    def __init__(self, size, offset=None, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _size_arg(size)
        if offset is not None:
            offset = (offset, offset) if isinstance(offset, int) else V.check_int_seq(offset, "offset")
        self.offset = offset
        self.fill_value = _fill(fill_value)
        self.padding_mode = padding_mode

    def _np(self, img):
        h, w = _hw(self.size)
        H, W = img.shape[:2]
        if H > h or W > w:
            raise ValueError(f"PadToSize: the target size ({h}, {w}) is smaller than the image ({H}, {W}).")
        top, left = self.offset if self.offset is not None else ((h - H) // 2, (w - W) // 2)
        if top + H > h or left + W > w:
            raise ValueError(f"PadToSize: offset {self.offset} puts the image outside the target size ({h}, {w}).")
        return I.pad_image(img, top, h - H - top, left, w - W - left, self.padding_mode.value, self.fill_value)


# ---------------------------------------------------------------------------- rotations and warps
def _affine_inverse(center, angle, translate, scale, shear):
    """torchvision's inverse affine matrix (angle/shear in degrees; output -> input coordinates)."""
    rot = math.radians(angle)
    sx, sy = (math.radians(s) for s in shear)
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [d, -b, 0.0, -c, a, 0.0]
    m = [x / scale for x in m]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
    m[2] += cx
    m[5] += cy
    return m


def _to_pil_centres(m):
    """An inverse matrix in OpenCV's convention (pixel centres at integers) -> PIL's (centres at +0.5)."""
    m[2] += 0.5 - 0.5 * (m[0] + m[1])
    m[5] += 0.5 - 0.5 * (m[3] + m[4])
    return m


def _rotate(img, degrees, resample, expand, center, fill):
    H, W = img.shape[:2]
    cx, cy = ((W - 1) * 0.5, (H - 1) * 0.5) if center is None else center
    m = _affine_inverse((cx, cy), -degrees, (0, 0), 1.0, (0.0, 0.0))
    ow, oh = W, H
    if expand:
        # OpenCV's bounding box of the rotated frame; the forward map is shifted to centre it
        rot = math.radians(degrees)
        bw = abs(W * math.cos(rot)) + abs(H * math.sin(rot))
        bh = abs(W * math.sin(rot)) + abs(H * math.cos(rot))
        ow, oh = int(round(bw)), int(round(bh))
        sx, sy = bw / 2 - W / 2, bh / 2 - H / 2
        m[2] -= m[0] * sx + m[1] * sy
        m[5] -= m[3] * sx + m[4] * sy
    return I.warp_affine(img, _to_pil_centres(m), (ow, oh), resample, fill)


def _degrees_arg(degrees, name="degrees"):
    if isinstance(degrees, numbers.Real) and not isinstance(degrees, bool):
        if degrees < 0:
            raise ValueError(f"Input {name} is not within the required interval of [0, 16777216].")
        return (-float(degrees), float(degrees))
    return _range_arg(degrees, name)


class Rotate(ImageTensorOperation):
    """Rotate counter-clockwise by `degrees` about `center` (default the image centre)."""

    @property
    def _batch_images(self):
        return not self.expand  # an expanded batch cannot be stacked back: MindSpore fails it too

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        if not isinstance(degrees, numbers.Real) or isinstance(degrees, bool):
            raise TypeError(f"Argument degrees with value {degrees!r} is not of type [<class 'float'>, <class 'int'>].")
        self.degrees = float(degrees)
        self.resample = _inter(resample, "resample")
        self.expand = bool(expand)
        self.center = center
        self.fill_value = _fill(fill_value)

    def _np(self, img):
        return _rotate(img, self.degrees, self.resample, self.expand, self.center, self.fill_value)


class RandomRotation(Rotate):
    """Rotate by an angle drawn uniformly from `degrees` (a number d means (-d, d))."""

    _batch_images = False

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        super().__init__(0.0, resample, expand, center, fill_value)
        self.degrees = _degrees_arg(degrees)

    def _np(self, img):
        g = std_engine(self, 1)
        if g is None:
            angle = float(rng().uniform(*self.degrees))
        else:
            angle = _mid_range_draw(g, self.degrees)
        return _rotate(img, angle, self.resample, self.expand, self.center, self.fill_value)


def _affine(img, angle, translate, scale, shear, resample, fill):
    """MindSpore's Affine: `translate` is a fraction of (width, height); positive angles turn clockwise."""
    H, W = img.shape[:2]
    center = ((W - 1) * 0.5, (H - 1) * 0.5)
    m = _affine_inverse(center, angle, (translate[0] * W, translate[1] * H), scale, shear)
    return I.warp_affine(img, _to_pil_centres(m), (W, H), resample, fill)


class Affine(ImageTensorOperation):
    """Affine transform: rotation `degrees`, `translate` (dx, dy as fractions of the size, in [-1, 1]), `scale`,
    `shear` (x, y degrees)."""

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0):
        self.degrees = float(V.check_number(degrees, "degrees"))
        if not isinstance(translate, (list, tuple)) or len(translate) != 2:
            raise TypeError("Argument translate should be a list or tuple of 2 numbers.")
        for i, t in enumerate(translate):
            if not -1 <= V.check_number(t, f"translate[{i}]") <= 1:
                raise ValueError(f"Input translate[{i}] is not within the required interval of [-1.0, 1.0].")
        self.translate = tuple(float(t) for t in translate)
        if not isinstance(scale, numbers.Real) or scale <= 0:
            raise ValueError("Input scale must be greater than 0.")
        self.scale = float(scale)
        if not isinstance(shear, numbers.Real):
            shear = tuple(V.check_number(shear, "shear", (list, tuple)))
        shear = (shear, 0.0) if isinstance(shear, numbers.Real) else shear
        self.shear = tuple(float(V.check_number(s, f"shear[{i}]")) for i, s in enumerate(shear))
        self.resample = _inter(resample, "resample")
        self.fill_value = _fill(fill_value)

    def _np(self, img):
        return _affine(img, self.degrees, self.translate, self.scale, self.shear, self.resample, self.fill_value)


class RandomAffine(ImageTensorOperation):
    """Random affine: degrees range, translate fractions (x, y), scale range, shear ranges."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST, fill_value=0):
        self.degrees = _degrees_arg(degrees)
        if translate is not None:
            if not isinstance(translate, (list, tuple)) or len(translate) not in (2, 4):
                raise TypeError("Argument translate should be a list or tuple of 2 or 4 numbers.")
            if any(not -1 <= t <= 1 for t in translate):
                raise ValueError("Input translate is not within the required interval of [-1.0, 1.0].")
            # (tx_min, tx_max[, ty_min, ty_max]): two numbers translate along x only, as MindSpore's do
            translate = tuple(float(t) for t in translate) + (0.0, 0.0)[:4 - len(translate)]
        self.translate = translate
        self.scale = None if scale is None else _range_arg(scale, "scale")
        if shear is not None:
            if isinstance(shear, numbers.Real):
                shear = (-float(shear), float(shear), 0.0, 0.0)
            elif len(shear) == 2:
                shear = (float(shear[0]), float(shear[1]), 0.0, 0.0)
            else:
                shear = tuple(float(s) for s in shear)
        self.shear = shear
        self.resample = _inter(resample, "resample")
        self.fill_value = _fill(fill_value)

    def _np(self, img):
        g = rng()
        H, W = img.shape[:2]
        angle = float(g.uniform(*self.degrees))
        if self.translate is not None:
            tx = round(float(g.uniform(*sorted(self.translate[:2]))) * W) / W
            ty = round(float(g.uniform(*sorted(self.translate[2:]))) * H) / H
        else:
            tx = ty = 0.0
        scale = float(g.uniform(*self.scale)) if self.scale is not None else 1.0
        shear = (float(g.uniform(self.shear[0], self.shear[1])), float(g.uniform(self.shear[2], self.shear[3]))) \
            if self.shear is not None else (0.0, 0.0)
        return _affine(img, angle, (tx, ty), scale, shear, self.resample, self.fill_value)


def _perspective_coeffs(start, end):
    """PIL perspective coefficients mapping `end` points back to `start` points (OpenCV pixel centres)."""
    a = []
    start = [(x + 0.5, y + 0.5) for x, y in start]
    end = [(x + 0.5, y + 0.5) for x, y in end]
    for (x, y), (u, v) in zip(end, start):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    b = np.asarray(start, dtype=np.float64).reshape(8)
    return np.linalg.solve(np.asarray(a, dtype=np.float64), b).tolist()


class Perspective(ImageTensorOperation):
    """Warp so that the 4 `start_points` move to `end_points` ([[x, y], ...])."""

    def __init__(self, start_points, end_points, interpolation=Inter.BILINEAR):
        for name, pts in (("start_points", start_points), ("end_points", end_points)):
            if not isinstance(pts, (list, tuple)) or len(pts) != 4 or any(len(p) != 2 for p in pts):
                raise TypeError(f"Argument {name} should be a list of 4 [x, y] points.")
        self.start_points = [list(p) for p in start_points]
        self.end_points = [list(p) for p in end_points]
        self.interpolation = _inter(interpolation)

    def _np(self, img):
        return I.warp_perspective(img, _perspective_coeffs(self.start_points, self.end_points), self.interpolation, 0)


class RandomPerspective(ImageTensorOperation):
    """With probability `prob`, a random perspective warp of strength `distortion_scale`."""

    def __init__(self, distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC):
        if not 0 <= V.check_number(distortion_scale, "distortion_scale") <= 1:
            raise ValueError("Input distortion_scale is not within the required interval of [0.0, 1.0].")
        self.distortion_scale = float(distortion_scale)
        self.prob = _prob(prob)
        self.interpolation = _inter(interpolation)

    def _np(self, img):
        g = rng()
        if g.random() >= self.prob:
            return img
        H, W = img.shape[:2]
        dx, dy = int(self.distortion_scale * W / 2), int(self.distortion_scale * H / 2)
        tl = [int(g.integers(0, dx + 1)), int(g.integers(0, dy + 1))]
        tr = [W - 1 - int(g.integers(0, dx + 1)), int(g.integers(0, dy + 1))]
        br = [W - 1 - int(g.integers(0, dx + 1)), H - 1 - int(g.integers(0, dy + 1))]
        bl = [int(g.integers(0, dx + 1)), H - 1 - int(g.integers(0, dy + 1))]
        start = [[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]]
        return I.warp_perspective(img, _perspective_coeffs(start, [tl, tr, br, bl]), self.interpolation, 0)


# ---------------------------------------------------------------------------- multi-crops
class FiveCrop(ImageTensorOperation):
    """The four corner crops and the centre crop of `size` (a tuple of 5 images)."""

    def __init__(self, size):
        self.size = _size_arg(size)

    def _crops(self, img):
        h, w = _hw(self.size)
        H, W = img.shape[:2]
        if h > H or w > W:
            raise ValueError(f"FiveCrop: the crop size ({h}, {w}) is bigger than the image ({H}, {W}).")
        top, left = (H - h) // 2, (W - w) // 2
        return (img[:h, :w], img[:h, W - w:], img[H - h:, :w], img[H - h:, W - w:], img[top:top + h, left:left + w])

    def _np(self, img):
        return tuple(c.copy() for c in self._crops(img))

    def _pil(self, img):
        return tuple(I.Image.fromarray(np.ascontiguousarray(c)) for c in self._crops(np.asarray(img)))


class TenCrop(FiveCrop):
    """FiveCrop of the image and of its flip (horizontal, or vertical with use_vertical_flip)."""

    def __init__(self, size, use_vertical_flip=False):
        super().__init__(size)
        self.use_vertical_flip = bool(use_vertical_flip)

    def _both(self, img):
        flipped = img[::-1] if self.use_vertical_flip else img[:, ::-1]
        return self._crops(img) + self._crops(flipped)

    def _np(self, img):
        return tuple(np.ascontiguousarray(c) for c in self._both(img))

    def _pil(self, img):
        return tuple(I.Image.fromarray(np.ascontiguousarray(c)) for c in self._both(np.asarray(img)))


class SlicePatches(ImageTensorOperation):
    """Cut the image into num_height x num_width patches (the remainder padded with fill_value or dropped)."""

    def __init__(self, num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0):
        for name, v in (("num_height", num_height), ("num_width", num_width)):
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 512:
                raise ValueError(f"Input {name} is not within the required interval of [1, 512].")
        if not isinstance(slice_mode, SliceMode):
            raise TypeError(f"Argument slice_mode with value {slice_mode!r} is not of type [<enum 'SliceMode'>].")
        self.num_height, self.num_width = num_height, num_width
        self.slice_mode = slice_mode
        self.fill_value = _fill(fill_value)

    def _np(self, img):
        H, W = img.shape[:2]
        if self.slice_mode == SliceMode.PAD:
            ph, pw = -(-H // self.num_height), -(-W // self.num_width)
            img = I.pad_image(img, 0, ph * self.num_height - H, 0, pw * self.num_width - W, "constant",
                              self.fill_value)
        else:
            ph, pw = H // self.num_height, W // self.num_width
        return tuple(img[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw].copy()
                     for i in range(self.num_height) for j in range(self.num_width))
