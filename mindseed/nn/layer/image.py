"""Image layers: PixelShuffle/Unshuffle, ChannelShuffle, CentralCrop, ImageGradients, PSNR, SSIM, MSSSIM."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.nn.cell import Cell
from mindseed.nn.layer.container import CellList
from mindseed.nn.layer.conv import Conv2d
from mindseed.nn.layer.pooling import AvgPool2d
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P

__all__ = ["ImageGradients", "SSIM", "MSSSIM", "PSNR", "CentralCrop", "PixelShuffle", "PixelUnshuffle",
           "ChannelShuffle"]


class PixelShuffle(Cell):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Cell):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)


class ChannelShuffle(Cell):
    """Split the channels into `groups` and transpose group and channel-within-group."""

    def __init__(self, groups):
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int):
            raise TypeError(f"For ChannelShuffle, the param `groups` must be int, but got {type(groups)}.")
        if groups < 1:
            raise ValueError(f"For ChannelShuffle, the param `groups` must be larger than 0, but got {groups}.")
        self.groups = groups

    def construct(self, x):
        shape = x.shape
        n, c = shape[0], shape[1]
        if c % self.groups:
            raise ValueError(f"For ChannelShuffle, the channel {c} must be divisible by groups {self.groups}.")
        out = P.reshape_p(x, shape=(n, self.groups, c // self.groups, -1))
        out = P.transpose_p(out, perm=(0, 2, 1, 3))
        return P.reshape_p(out, shape=shape)


class CentralCrop(Cell):
    """The central `central_fraction` of (C, H, W) or (N, C, H, W) images."""

    def __init__(self, central_fraction):
        super().__init__()
        if isinstance(central_fraction, bool) or not isinstance(central_fraction, float):
            raise TypeError(f"For 'CentralCrop', the 'central_fraction' must be float, but got "
                            f"{type(central_fraction).__name__}.")
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"For 'CentralCrop', the 'central_fraction' must be in range (0.0, 1.0], but got "
                             f"{central_fraction}.")
        self.central_fraction = central_fraction

    def construct(self, image):
        if image.ndim not in (3, 4):
            raise ValueError(f"CentralCrop image must be 3d or 4d, but got shape {image.shape}")
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        h0 = int((float(h) - float(h * self.central_fraction)) / 2)
        w0 = int((float(w) - float(w * self.central_fraction)) / 2)
        index = (Ellipsis, slice(h0, h - h0), slice(w0, w - w0))
        return P.getitem_p(image, index=index)


def _check_4d(cls, name, x):
    if x.ndim != 4:
        raise ValueError(f"For '{cls}', the dimension of '{name}' must be 4d, but got {x.ndim}.")


class ImageGradients(Cell):
    """(dy, dx): forward differences along height and width, zero in the last row/column."""

    def construct(self, images):
        _check_4d("ImageGradients", "images", images)
        n, c, h, w = images.shape
        zero_row = F.zeros((n, c, 1, w), images.dtype)
        zero_col = F.zeros((n, c, h, 1), images.dtype)
        if h == 1:
            dy = zero_row
        else:
            dy = F.concat((P.sub_p(images[:, :, 1:, :], images[:, :, :h - 1, :]), zero_row), 2)
        if w == 1:
            dx = zero_col
        else:
            dx = F.concat((P.sub_p(images[:, :, :, 1:], images[:, :, :, :w - 1]), zero_col), 3)
        return dy, dx


def _dtype_max(dtype):
    if mstype.is_integral(dtype) and dtype != mstype.bool_:
        return float(np.iinfo(mstype.dtype_to_nptype(dtype)).max)
    return 1.0


def _to_float(img, max_val):
    """Images as float32, integer images scaled to [0, 1] by their dtype's maximum."""
    ret = F.cast(img, mstype.float32)
    if max_val > 1.0:
        ret = P.mul_p(ret, 1.0 / max_val)
    return ret


def _same_type_shape(cls, img1, img2):
    if img1.dtype != img2.dtype:
        raise TypeError(f"For '{cls}', the dtype of 'img1' and 'img2' must be the same, but got {img1.dtype} and "
                        f"{img2.dtype}.")
    if img1.shape != img2.shape:
        raise ValueError(f"For '{cls}', the shape of 'img1' and 'img2' must be the same, but got {img1.shape} and "
                         f"{img2.shape}.")


class PSNR(Cell):
    """Peak signal-to-noise ratio per image: 10 * log10(max_val^2 / MSE)."""

    def __init__(self, max_val=1.0):
        super().__init__()
        _check_max_val("PSNR", max_val)
        self.max_val = max_val

    def construct(self, img1, img2):
        _check_4d("PSNR", "img1", img1)
        _check_4d("PSNR", "img2", img2)
        _same_type_shape("PSNR", img1, img2)
        dmax = _dtype_max(img1.dtype)
        max_val = self.max_val / dmax if dmax > 1.0 else float(self.max_val)
        img1, img2 = _to_float(img1, dmax), _to_float(img2, dmax)
        diff = P.sub_p(img1, img2)
        mse = F.mean(P.mul_p(diff, diff), (-3, -2, -1))
        return P.div_p(P.mul_p(F.log(P.div_p(max_val * max_val, mse)), 10.0), float(np.log(10.0)))


def _create_window(size, sigma):
    x_data, y_data = np.mgrid[-size // 2 + 1:size // 2 + 1, -size // 2 + 1:size // 2 + 1]
    g = np.exp(-(x_data.astype(np.float32) ** 2 + y_data.astype(np.float32) ** 2) / (2 * sigma ** 2))
    return (g / g.sum()).astype(np.float32).reshape(1, 1, size, size)


def _gauss_conv(filter_size, filter_sigma):
    conv = Conv2d(1, 1, filter_size, pad_mode="valid", weight_init=Tensor(_create_window(filter_size, filter_sigma)))
    conv.weight.requires_grad = False
    return conv


def _ssim_per_channel(c1, c2, img1, img2, conv):
    mu1, mu2 = conv(img1), conv(img2)
    mu1_sq, mu2_sq, mu1_mu2 = P.mul_p(mu1, mu1), P.mul_p(mu2, mu2), P.mul_p(mu1, mu2)
    sigma1_sq = P.sub_p(conv(P.mul_p(img1, img1)), mu1_sq)
    sigma2_sq = P.sub_p(conv(P.mul_p(img2, img2)), mu2_sq)
    sigma12 = P.sub_p(conv(P.mul_p(img1, img2)), mu1_mu2)
    a = P.add_p(P.mul_p(mu1_mu2, 2), c1)
    b = P.add_p(P.add_p(mu1_sq, mu2_sq), c1)
    v1 = P.add_p(P.mul_p(sigma12, 2), c2)
    v2 = P.add_p(P.add_p(sigma1_sq, sigma2_sq), c2)
    return P.div_p(P.mul_p(a, v1), P.mul_p(b, v2)), P.div_p(v1, v2)


def _ssim_and_cs(c1, c2, img1, img2, conv):
    """Per-image, per-channel mean SSIM and contrast-structure terms: (N, C) each."""
    c = img1.shape[1]
    ssims, css = [], []
    for i in range(c):
        s, cs = _ssim_per_channel(c1, c2, img1[:, i:i + 1], img2[:, i:i + 1], conv)
        ssims.append(s)
        css.append(cs)
    ssim = F.concat(ssims, 1) if c > 1 else ssims[0]
    cs = F.concat(css, 1) if c > 1 else css[0]
    return F.mean(ssim, (2, 3)), F.mean(cs, (2, 3))


def _check_max_val(cls, max_val):
    if isinstance(max_val, bool) or not isinstance(max_val, (int, float)):
        raise TypeError(f"For '{cls}', the 'max_val' must be int or float, but got {type(max_val).__name__}.")
    if max_val <= 0:
        raise ValueError(f"For '{cls}', the 'max_val' must be a number greater than 0, but got {max_val}.")


def _check_ssim_args(cls, max_val, filter_size, filter_sigma, k1, k2):
    _check_max_val(cls, max_val)
    if isinstance(filter_size, bool) or not isinstance(filter_size, int):
        raise TypeError(f"For '{cls}', the 'filter_size' must be int, but got '{type(filter_size).__name__}'.")
    if filter_size < 1:
        raise ValueError(f"For '{cls}', the 'filter_size' must be int and must >= 1, but got '{filter_size}'.")
    if isinstance(filter_sigma, bool) or not isinstance(filter_sigma, float):
        raise TypeError(f"For '{cls}', the 'filter_sigma' must be float, but got '{type(filter_sigma).__name__}'.")
    if filter_sigma <= 0:
        raise ValueError(f"For '{cls}', the 'filter_sigma' must be float and must > 0, but got '{filter_sigma}'.")
    for name, v in (("k1", k1), ("k2", k2)):
        if isinstance(v, bool) or not isinstance(v, float):
            raise TypeError(f"For '{cls}', the '{name}' must be float, but got {type(v).__name__}.")


class SSIM(Cell):
    """Structural similarity of two (N, C, H, W) image batches with a Gaussian window; output (N,)."""

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        _check_ssim_args("SSIM", max_val, filter_size, filter_sigma, k1, k2)
        self.max_val, self.filter_size, self.filter_sigma, self.k1, self.k2 = max_val, filter_size, filter_sigma, \
            k1, k2
        self.conv = _gauss_conv(filter_size, filter_sigma)

    def construct(self, img1, img2):
        if img1.dtype not in (mstype.float32, mstype.float16):
            raise TypeError(f"For 'SSIM', the 'img1' must be float32 or float16, but got {img1.dtype}.")
        _check_4d("SSIM", "img1", img1)
        if img1.shape[2] < self.filter_size or img1.shape[3] < self.filter_size:
            raise ValueError(f"For 'SSIM', the height and width of 'img1' must be >= filter_size "
                             f"{self.filter_size}, but got {img1.shape}.")
        _same_type_shape("SSIM", img1, img2)
        max_val = float(self.max_val)
        img1, img2 = F.cast(img1, mstype.float32), F.cast(img2, mstype.float32)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        ssim, _ = _ssim_and_cs(c1, c2, img1, img2, self.conv)
        return F.mean(ssim, -1)


class MSSSIM(Cell):
    """Multi-scale SSIM: contrast-structure terms of `len(power_factors)` scales (2x average-pooled) weighted
    by `power_factors`; output (N,)."""

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333), filter_size=11,
                 filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        _check_ssim_args("MSSSIM", max_val, filter_size, filter_sigma, k1, k2)
        if not isinstance(power_factors, (tuple, list)):
            raise TypeError(f"For 'MSSSIM', the 'power_factors' must be tuple or list, but got "
                            f"{type(power_factors).__name__}.")
        self.max_val, self.filter_size, self.filter_sigma, self.k1, self.k2 = max_val, filter_size, filter_sigma, \
            k1, k2
        self.level = len(power_factors)
        self.multi_convs_list = CellList([_gauss_conv(filter_size, filter_sigma) for _ in range(self.level)])
        self.weight_tensor = Tensor(power_factors, mstype.float32)
        self.avg_pool = AvgPool2d(kernel_size=2, stride=2, pad_mode="valid")

    def construct(self, img1, img2):
        _check_4d("MSSSIM", "img1", img1)
        _check_4d("MSSSIM", "img2", img2)
        if img1.dtype not in (mstype.float64, mstype.float32, mstype.float16, mstype.uint8):
            raise TypeError(f"For 'MSSSIM', the 'img1' must be float64, float32, float16 or uint8, but got "
                            f"{img1.dtype}.")
        _same_type_shape("MSSSIM", img1, img2)
        dmax = _dtype_max(img1.dtype)
        max_val = self.max_val / dmax if dmax > 1.0 else float(self.max_val)
        img1, img2 = _to_float(img1, dmax), _to_float(img2, dmax)
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        mcs = []
        sim = None
        for i in range(self.level):
            sim, cs = _ssim_and_cs(c1, c2, img1, img2, self.multi_convs_list[i])
            mcs.append(F.relu(cs))
            img1, img2 = self.avg_pool(img1), self.avg_pool(img2)
        stacked = P.stack_p(*(mcs[:-1] + [F.relu(sim)]), axis=-1)
        ms_ssim = F.prod(P.pow_p(stacked, self.weight_tensor), -1)
        return F.mean(ms_ssim, -1)
