"""Pooling layers with MindSpore's pad modes: 'valid', 'same' (output = ceil(in / stride), average over the
real cells only) and 'pad' (explicit symmetric padding, dilation, ceil_mode, return_indices); adaptive, LP,
fractional pooling and max-unpooling."""
from mindseed.common import dtype as mstype
from mindseed.nn.cell import Cell
from mindseed.nn.layer.conv import non_negative_ints, same_pads
from mindseed.ops import functional as F
from mindseed.ops._prims import core as P
from mindseed.ops._prims.conv import avg_pool_p, max_pool_p, max_pool_values

__all__ = ["AvgPool3d", "MaxPool3d", "AvgPool2d", "MaxPool2d", "AvgPool1d", "MaxPool1d", "FractionalMaxPool2d",
           "FractionalMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d",
           "LPPool2d", "AvgPool2dExt", "AvgPool3dExt", "MaxPool2dExt", "AvgPool1dExt"]


def _int_or_tuple(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, (int, tuple)):
        raise TypeError(f"For '{cls}', the '{name}' must be int or tuple, but got {type(value).__name__}.")
    msg = f"For '{cls}', the '{name}' must be an positive int number or a tuple, but got {value}"
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(msg)
        return value
    for item in value:
        if isinstance(item, bool) or not isinstance(item, int) or item <= 0:
            raise ValueError(msg)
    return value[0] if len(value) == 1 else value


def _n(cls, name, value, nd):
    """An int or tuple of length nd -> a tuple of nd ints."""
    if isinstance(value, int):
        return (value,) * nd
    if len(value) != nd:
        raise ValueError(f"For {cls}, the length of {name} must be equal to {nd}, but got {len(value)}.")
    return tuple(value)


def _padding_n(cls, padding, nd):
    if isinstance(padding, bool) or not isinstance(padding, (int, tuple, list)):
        raise TypeError(f"For '{cls}', the 'padding' must be int, tuple or list, but got {type(padding).__name__}.")
    if isinstance(padding, int):
        padding = (padding,) * nd
    elif len(padding) == 1:
        padding = tuple(padding) * nd
    elif len(padding) != nd:
        raise ValueError(f"For {cls}, the length of padding must equal to {nd}, but got {len(padding)}.")
    return non_negative_ints(cls, padding, "the 'padding' must be non-negative ints")


class _PoolNd(Cell):
    """Shared arguments of the pad_mode pools and the pad computation."""

    _ND = 2

    def __init__(self, kernel_size, stride, pad_mode, data_format="NCHW"):
        super().__init__()
        cls = type(self).__name__
        if not isinstance(pad_mode, str):
            raise TypeError(f"For '{cls}', the 'pad_mode' must be str, but got {type(pad_mode).__name__}.")
        self.pad_mode = pad_mode.upper()
        if self.pad_mode not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"For '{cls}', the 'pad_mode' must be in ['VALID', 'SAME', 'PAD'], but got {pad_mode}.")
        if data_format != "NCHW":
            raise ValueError(f"For '{cls}, the 'NHWC' format only support in GPU target, but got device target CPU.")
        self.format = data_format
        self.kernel_size = _int_or_tuple(cls, "kernel_size", kernel_size)
        self.stride = _int_or_tuple(cls, "stride", stride)
        self._kernel = _n(cls, "kernel_size", self.kernel_size, self._ND)
        self._stride = _n(cls, "stride", self.stride, self._ND)
        self._pads = (0,) * (2 * self._ND)

    def _pads_for(self, x):
        if self.pad_mode == "SAME":
            return same_pads(x.shape[-self._ND:], self._kernel, self._stride, (1,) * self._ND)
        return self._pads

    def _batched(self, x):
        if x.ndim == self._ND + 1:
            return P.reshape_p(x, shape=(1,) + x.shape), True
        if x.ndim != self._ND + 2:
            raise ValueError(f"For '{type(self).__name__}', the input must be a {self._ND + 1}D or {self._ND + 2}D "
                             f"Tensor, but got input of {x.ndim}D.")
        return x, False

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"


class _MaxPoolNd(_PoolNd):
    def _setup(self, padding, dilation, return_indices, ceil_mode, pad_only_extras=True):
        cls = type(self).__name__
        self.return_indices = return_indices
        self.ceil_mode = bool(ceil_mode)
        self._dilation = (1,) * self._ND
        if self.pad_mode == "PAD":
            self.padding = _padding_n(cls, padding, self._ND)
            self._pads = tuple(p for p in self.padding for _ in range(2))
            if isinstance(dilation, bool) or not isinstance(dilation, (int, tuple)):
                raise ValueError(f"For {cls}, the 'dilation' must be int or tuple, but got {type(dilation)}.")
            if isinstance(dilation, tuple) and len(dilation) not in (1, self._ND):
                raise ValueError(f"For {cls}, the length of 'dilation' must be 1 or {self._ND}, but got "
                                 f"{len(dilation)}.")
            self._dilation = _n(cls, "dilation", dilation if not isinstance(dilation, tuple) or len(dilation) > 1
                                else dilation[0], self._ND)
        elif pad_only_extras and (padding != 0 or dilation != 1 or return_indices or ceil_mode):
            raise ValueError(f"For {cls}, the parameter 'padding', 'dilation', 'return_indices', 'ceil_mode' can not "
                             f"be set to non-default value when pad_mode is not 'pad', but got pad_mode:"
                             f"{self.pad_mode.lower()}.")
        elif dilation != 1 or return_indices:
            raise ValueError(f"For {cls}, the pad_mode must be 'pad' when dilation is not 1 or return_indices is "
                             f"True, but got pad_mode:{self.pad_mode.lower()}.")
        elif ceil_mode:    # MindSpore's MaxPool3D primitive takes ceil_mode only with explicit padding
            raise ValueError("When the 'pad_mode' is 'same' or 'valid', the 'ceil_mode' only supports 'None'.")

    def construct(self, x):
        return self._pool(x)

    def _pool(self, x):
        x, squeeze = self._batched(x)
        if not self.return_indices:
            out = max_pool_values(x, self._kernel, self._stride, self._pads_for(x), self._dilation, self.ceil_mode)
            return P.reshape_p(out, shape=out.shape[1:]) if squeeze else out
        out, idx = max_pool_p(x, kernel=self._kernel, stride=self._stride, pads=self._pads_for(x),
                              dilation=self._dilation, ceil_mode=self.ceil_mode)
        if squeeze:
            out = P.reshape_p(out, shape=out.shape[1:])
            idx = P.reshape_p(idx, shape=idx.shape[1:])
        if self.return_indices:
            return out, idx
        return out


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling over (N, C, H, W) or (C, H, W).

    Args:
        kernel_size (Union[int, tuple[int]]): Default ``1``. stride (Union[int, tuple[int]]): Default ``1``.
        pad_mode (str): ``'valid'``, ``'same'`` or ``'pad'``. Default ``'valid'``.
        padding, dilation, return_indices, ceil_mode: only with pad_mode 'pad'.

    >>> import mindseed as ms
    >>> ms.nn.MaxPool2d(2, 2)(ms.ops.ones((1, 1, 4, 4))).shape
    (1, 1, 2, 2)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, data_format)
        self._setup(padding, dilation, return_indices, ceil_mode)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W); padding is allowed in every pad mode, ceil_mode
    only with pad_mode 'pad'."""

    _ND = 3

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode)
        self._setup(padding, dilation, return_indices, ceil_mode, pad_only_extras=False)


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling over (N, C, L) or (C, L)."""

    _ND = 1

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode)
        for name, v in (("kernel_size", kernel_size), ("stride", stride)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"For 'MaxPool1d', the '{name}' must be an int >= 1, but got {v}.")
        self._setup(padding, dilation, return_indices, ceil_mode)
        self.kernel_size = (1, 1, kernel_size) if self.pad_mode == "PAD" else (1, kernel_size)
        self.stride = (1, 1, stride) if self.pad_mode == "PAD" else (1, stride)

    def construct(self, x):
        if x.ndim not in (2, 3):
            raise ValueError(f"For 'MaxPool1d', the input must has 3 dim, but got {x.ndim}")
        # torch's 1-d pool with indices exists, but the 2-d kernel is the fast path: pool a height-1 image
        squeeze = x.ndim == 2
        if squeeze:
            x = P.reshape_p(x, shape=(1,) + x.shape)
        n, c, length = x.shape
        pads = self._pads_for(x)
        out, idx = max_pool_p(P.reshape_p(x, shape=(n, c, 1, length)), kernel=(1,) + self._kernel,
                              stride=(1,) + self._stride, pads=(0, 0) + pads, dilation=(1,) + self._dilation,
                              ceil_mode=self.ceil_mode)
        shape = (c, out.shape[3]) if squeeze else (n, c, out.shape[3])
        out = P.reshape_p(out, shape=shape)
        if self.return_indices:
            return out, P.reshape_p(idx, shape=shape)
        return out


class _AvgPoolNd(_PoolNd):
    def _setup(self, padding, ceil_mode, count_include_pad, divisor_override):
        cls = type(self).__name__
        if divisor_override is not None and divisor_override <= 0:
            raise ValueError(f"For '{cls}', the 'divisor_override' must be > 0, but got {divisor_override}.")
        padding = _padding_n(cls, padding, self._ND)
        self._pads = tuple(p for p in padding for _ in range(2))
        self.ceil_mode = bool(ceil_mode)
        # MindSpore's 2-D/1-D AvgPool kernel averages 'same' windows over the real cells only (TF semantics);
        # its 3-D kernel (used for 3-D pools and whenever padding/ceil_mode/divisor options are set) counts pads
        plain = self._ND < 3 and self.pad_mode != "PAD" and padding == (0,) * self._ND and not ceil_mode and \
            count_include_pad and divisor_override is None
        self._count_pad = bool(count_include_pad) and not (plain and self.pad_mode == "SAME")
        self._divisor = divisor_override or 0

    def construct(self, x):
        return self._pool(x)

    def _pool(self, x):
        x, squeeze = self._batched(x)
        out = avg_pool_p(x, kernel=self._kernel, stride=self._stride, pads=self._pads_for(x),
                         ceil_mode=self.ceil_mode, count_include_pad=self._count_pad,
                         divisor_override=self._divisor)
        if squeeze:
            out = P.reshape_p(out, shape=out.shape[1:])
        return out


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling over (N, C, H, W) or (C, H, W) (see MaxPool2d; plus count_include_pad,
    divisor_override)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, data_format)
        self._setup(padding, ceil_mode, count_include_pad, divisor_override)


class AvgPool3d(_AvgPoolNd):
    """3-D average pooling over (N, C, D, H, W) or (C, D, H, W)."""

    _ND = 3

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__(kernel_size, stride, pad_mode)
        self._setup(padding, ceil_mode, count_include_pad, divisor_override)


class AvgPool1d(_AvgPoolNd):
    """1-D average pooling over (N, C, L) or (C, L)."""

    _ND = 1

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__(kernel_size, stride, pad_mode)
        for name, v in (("kernel_size", kernel_size), ("stride", stride)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"For 'AvgPool1d', the '{name}' must be an int >= 1, but got {v}.")
        self._setup(padding, ceil_mode, count_include_pad, None)
        if not (self.pad_mode == "PAD" or padding != 0 or ceil_mode or not count_include_pad):
            self.kernel_size, self.stride = (1, kernel_size), (1, stride)

    def construct(self, x):
        if x.ndim not in (2, 3):
            raise ValueError(f"For 'AvgPool1d', the input must has 3 dim, but got {x.ndim}")
        return self._pool(x)


class _LPPool(Cell):
    _FN = "lp_pool2d"

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def construct(self, x):
        return getattr(F, self._FN)(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool1d(_LPPool):
    """Power-average pooling: (sum over the window of x ** norm_type) ** (1 / norm_type), over (N, C, L)."""

    _FN = "lp_pool1d"


class LPPool2d(_LPPool):
    """Power-average pooling over (N, C, H, W)."""

    _FN = "lp_pool2d"


def _check_adaptive_1d(cls, x, output_size):
    if x.ndim != 3:
        raise ValueError(f"For {cls}, the input must has 3 dim, but got {x.ndim}.")
    if x.shape[2] < output_size:
        raise ValueError(f"For {cls}, the input's last dimension must be greater or equal to output size "
                         f"{output_size}, but got {x.shape[2]}.")
    if x.shape[2] % output_size != 0:
        raise ValueError(f"For {cls}, the input's last dimension must be divisible by output size {output_size}, "
                         f"but got {x.shape[2]}.")
    if x.dtype not in (mstype.float16, mstype.float32, mstype.float64):
        raise TypeError(f"For {cls}, the x_dtype must be float16, float32 or float64, but got {x.dtype}.")


def _check_output_size_int(cls, output_size):
    if isinstance(output_size, bool) or not isinstance(output_size, int):
        raise TypeError(f"For '{cls}', the 'output_size' must be int, but got {type(output_size).__name__}.")
    if output_size < 1:
        raise ValueError(f"For '{cls}', the 'output_size' must be >= 1, but got {output_size}.")


class _AdaptivePool1d(Cell):
    _FN = "adaptive_avg_pool1d"

    def __init__(self, output_size):
        super().__init__()
        _check_output_size_int(type(self).__name__, output_size)
        self.output_size = output_size

    def _pool(self, x):
        _check_adaptive_1d(type(self).__name__, x, self.output_size)
        return getattr(F, self._FN)(x, self.output_size)


class AdaptiveAvgPool1d(_AdaptivePool1d):
    """Average pooling of (N, C, L) to (N, C, output_size); L must be a multiple of output_size (MindSpore)."""

    _FN = "adaptive_avg_pool1d"

    def construct(self, input):
        return self._pool(input)


class AdaptiveMaxPool1d(_AdaptivePool1d):
    """Max pooling of (N, C, L) to (N, C, output_size); L must be a multiple of output_size (MindSpore)."""

    _FN = "adaptive_max_pool1d"

    def construct(self, x):
        return self._pool(x)


class _AdaptiveAvgPool(Cell):
    _FN = "adaptive_avg_pool2d"

    def __init__(self, output_size):
        super().__init__()
        # MindSpore's AdaptiveAvgPool2D/3D primitive checks the sizes when the cell is made
        sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * int(self._FN[-2])
        for i, v in enumerate(sizes):
            if isinstance(v, int) and not isinstance(v, bool) and v < 0:
                raise ValueError(f"For 'AdaptiveAvgPool{self._FN[-2]}D', the argument 'output_size[{i}]' must >= 0, "
                                 f"but got {v}.")
        self.output_size = output_size

    def construct(self, input):
        return getattr(F, self._FN)(input, self.output_size)


class AdaptiveAvgPool2d(_AdaptiveAvgPool):
    """Average pooling to `output_size` (int, or (H, W) where None keeps the input size)."""

    _FN = "adaptive_avg_pool2d"


class AdaptiveAvgPool3d(_AdaptiveAvgPool):
    """Average pooling to `output_size` (int, or (D, H, W) where None keeps the input size)."""

    _FN = "adaptive_avg_pool3d"


class _AdaptiveMaxPool(Cell):
    _FN = "adaptive_max_pool2d"
    _INT_TO_TUPLE = False

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        if self._INT_TO_TUPLE and isinstance(output_size, int):
            output_size = (output_size,) * 3
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, input):
        return getattr(F, self._FN)(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """Max pooling to `output_size`; with return_indices also the flat argmax per plane."""

    _FN = "adaptive_max_pool2d"


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """Max pooling of (N, C, D, H, W) to `output_size`; with return_indices also the argmax."""

    _FN = "adaptive_max_pool3d"
    _INT_TO_TUPLE = True


class _FractionalMaxPool(Cell):
    _FN = "fractional_max_pool2d"

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.output_size = output_size
        self.output_ratio = output_ratio
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, input):
        return getattr(F, self._FN)(input, self.kernel_size, self.output_size, self.output_ratio,
                                    self.return_indices, self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPool):
    """Fractional max pooling over (N, C, H, W) to `output_size` or `output_ratio` of the input."""

    _FN = "fractional_max_pool2d"


class FractionalMaxPool3d(_FractionalMaxPool):
    """Fractional max pooling over (N, C, D, H, W)."""

    _FN = "fractional_max_pool3d"


def _unpool_output_size(cls, output_size):
    if output_size is None:
        return ()
    if not isinstance(output_size, tuple):
        raise ValueError(f"For {cls}, output_size must be tuple, but type {type(output_size)}.")
    if not output_size:
        raise ValueError(f"For {cls}, the length of output_size must be positive, but got 0.")
    return output_size


class _MaxUnpool(Cell):
    _FN = "max_unpool2d"

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding

    def construct(self, x, indices, output_size=None):
        output_size = _unpool_output_size(type(self).__name__, output_size)
        return getattr(F, self._FN)(x, indices, self.kernel_size, stride=self.stride, padding=self.padding,
                                    output_size=output_size or None)


class MaxUnpool1d(_MaxUnpool):
    """Inverse of MaxPool1d: values scattered to their argmax positions, zeros elsewhere."""

    _FN = "max_unpool1d"


class MaxUnpool2d(_MaxUnpool):
    """Inverse of MaxPool2d: values scattered to their argmax positions, zeros elsewhere."""

    _FN = "max_unpool2d"


class MaxUnpool3d(_MaxUnpool):
    """Inverse of MaxPool3d: values scattered to their argmax positions, zeros elsewhere."""

    _FN = "max_unpool3d"


class MaxPool2dExt(Cell):
    """2-D max pooling with PyTorch-style arguments (stride defaults to kernel_size)."""

    def __init__(self, kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def construct(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            return_indices=self.return_indices, ceil_mode=self.ceil_mode)


class _AvgPoolExt(Cell):
    _ND = 2

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def construct(self, input):
        nd = self._ND
        kernel = _n(type(self).__name__, "kernel_size", self.kernel_size, nd)
        stride = kernel if self.stride is None else _n(type(self).__name__, "stride", self.stride, nd)
        padding = _padding_n(type(self).__name__, self.padding, nd)
        x, squeeze = input, input.ndim == nd + 1
        if squeeze:
            x = P.reshape_p(x, shape=(1,) + x.shape)
        out = avg_pool_p(x, kernel=kernel, stride=stride, pads=tuple(p for p in padding for _ in range(2)),
                         ceil_mode=bool(self.ceil_mode), count_include_pad=bool(self.count_include_pad),
                         divisor_override=self.divisor_override or 0)
        return P.reshape_p(out, shape=out.shape[1:]) if squeeze else out


class AvgPool1dExt(_AvgPoolExt):
    """1-D average pooling with PyTorch-style arguments."""

    _ND = 1

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)


class AvgPool2dExt(_AvgPoolExt):
    """2-D average pooling with PyTorch-style arguments."""


class AvgPool3dExt(_AvgPoolExt):
    """3-D average pooling with PyTorch-style arguments."""

    _ND = 3

