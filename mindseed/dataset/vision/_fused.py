"""Fused forms of runs of built-in vision ops that map applies in one step (same results, less work)."""
import numpy as np

from mindseed.dataset.vision import _color as C
from mindseed.dataset.vision import _geometry as G
from mindseed.dataset.vision import _image as I
from mindseed.dataset.vision._geometry import ImageTensorOperation
from mindseed.dataset.vision.utils import Inter

__all__ = ["DecodeRandomResizedCrop", "fuse_ops"]


class DecodeRandomResizedCrop(ImageTensorOperation):
    """Decode + RandomResizedCrop, with the flips right after it and a Normalize (+ HWC2CHW) after those, as
    one op (map fuses them; see `fuse_ops`). It gives exactly what the separate ops give, with the same random
    draws in the same order, but without their intermediate images:

    * JPEGs decode straight to RGBX (`decode_rgbx`), only down to the crop's bottom row (the box is drawn from
      the header's size first), and the crop is a view of those pixels;
    * the resize writes float32 channel planes (`bilinear_planes`), and the flips mirror those as they are
      rounded;
    * Normalize reads the resize's rounded float32 values directly (float32(uint8 value) is that value) and
      writes float32 HWC or CHW, so no uint8 image is made;
    * `_into` writes the row straight into its slot of a batch, so batching copies nothing.
    """

    def __init__(self, rrc, flips=(), normalize=None, chw=False):
        self.rrc = rrc
        self.flips = tuple(flips)
        self.normalize = normalize
        self.chw = bool(chw) and normalize is not None
        h, w = G._hw(rrc.size)
        if normalize is None:
            self.out_shape, self.out_dtype = (h, w, 3), np.dtype(np.uint8)
        else:
            self.out_shape, self.out_dtype = ((3, h, w) if self.chw else (h, w, 3)), np.dtype(np.float32)

    @property
    def _op_name(self):
        return "Decode"

    def _apply(self, data):
        out = np.empty(self.out_shape, self.out_dtype)
        self._into(data, out)
        return out

    def _into(self, data, out):
        """Decode `data` and write the transformed image into `out` (an array of out_shape / out_dtype)."""
        rrc = self.rrc
        bilinear = rrc.interpolation == Inter.BILINEAR
        size = I.jpeg_size(data) if bilinear else None
        if size is not None:  # the box first, then only the rows down to its bottom are decoded
            H, W = size
            top, left, h, w = G._rrc_box(H, W, rrc.scale, rrc.ratio, rrc.max_attempts)
            a = I.decode_rgbx(data, rows=top + h)
            if a.shape[1] != W or not top + h <= a.shape[0] <= H:
                raise RuntimeError(f"Decode: the image decoded to {a.shape[1]}x{a.shape[0]} pixels but its JPEG "
                                   f"header gives {W}x{H}; the data may be corrupt.")
        else:
            if bilinear:
                a = I.decode_rgbx(data)
                H, W = a.shape[:2]
            else:
                im = I.decode_pil(data)
                W, H = im.size
            top, left, h, w = G._rrc_box(H, W, rrc.scale, rrc.ratio, rrc.max_attempts)
        flip_x = flip_y = False
        for f in self.flips:
            if not f._random or G._coin(f):  # the random flips draw exactly as their _np does
                if f._transpose == G.HorizontalFlip._transpose:
                    flip_x = not flip_x
                else:
                    flip_y = not flip_y
        oh, ow = G._hw(rrc.size)
        norm = self.normalize
        if bilinear:
            planes = I.bilinear_planes(a[top:top + h, left:left + w, :3], oh, ow)
            if flip_x:
                planes = planes[:, :, ::-1]
            if flip_y:
                planes = planes[:, ::-1]
            if norm is not None and self.chw:  # rounded (as Resize rounds) straight into `out`, then Normalize
                np.rint(planes, out=out)
                mean, std = norm._channels(3)
                out -= mean[:, None, None]
                out /= std[:, None, None]
                return
            vals = np.rint(planes).transpose(1, 2, 0)
        else:  # the plain ops' kernels
            vals = I.resize(I.pil_to_np(im)[top:top + h, left:left + w], (oh, ow), rrc.interpolation)
            if flip_x:
                vals = vals[:, ::-1]
            if flip_y:
                vals = vals[::-1]
        if norm is None:
            out[...] = vals
            return
        mean, std = norm._channels(3)
        if self.chw:
            for c in range(3):
                np.subtract(vals[:, :, c], mean[c], out=out[c])
                out[c] /= std[c]
        else:
            out[...] = vals
            out -= mean
            out /= std


_FLIPS = ("HorizontalFlip", "VerticalFlip", "RandomHorizontalFlip", "RandomVerticalFlip")


def fuse_ops(ops):
    """Fuse runs of map operations that have a cheaper joint form with the same result: Decode +
    RandomResizedCrop (+ the flips right after it, + a Normalize(is_hwc=True) after those, + HWC2CHW) into one
    op that writes the final image directly, and otherwise Normalize(is_hwc=True) + HWC2CHW. Only exact types
    fuse (a user subclass may override what it does)."""
    flips = tuple(getattr(G, n) for n in _FLIPS)
    out, i = [], 0
    while i < len(ops):
        op = ops[i]
        if type(op) is G.Decode and not op.to_pil and i + 1 < len(ops) and type(ops[i + 1]) is G.RandomResizedCrop:
            j = i + 2
            while j < len(ops) and type(ops[j]) in flips:
                j += 1
            flip_ops, norm, chw = ops[i + 2:j], None, False
            # a decoded image has 3 channels: a Normalize with another count must fail as the plain op does
            if j < len(ops) and type(ops[j]) is C.Normalize and ops[j].is_hwc and len(ops[j].mean) in (1, 3):
                norm = ops[j]
                j += 1
                if j < len(ops) and type(ops[j]) is G.HWC2CHW:
                    chw = True
                    j += 1
            out.append(DecodeRandomResizedCrop(ops[i + 1], flip_ops, norm, chw))
            i = j
            continue
        if type(op) is C.Normalize and op.is_hwc and i + 1 < len(ops) and type(ops[i + 1]) is G.HWC2CHW:
            out.append(C._NormalizeHWC2CHW(op))
            i += 2
            continue
        out.append(op)
        i += 1
    return out
