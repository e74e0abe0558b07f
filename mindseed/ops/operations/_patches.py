"""Primitive classes written in differentiable ops, so their gradients come from autodiff: the patch extractors
(`ExtractImagePatches`, `ExtractVolumePatches`), grayscale morphological dilation (`Dilation2D`), the fft family
in one class (`FFTWithSize`), `CopyWithSlice` and the fractional poolings. Windows follow
TensorFlow's conventions, as MindSpore's: "SAME" pads (pad_total // 2) before and the rest after, and a patch's
channels vary fastest in the output depth."""
import math

from mindseed import _checkparam as validator
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.functional import _pool as FP
from mindseed.ops.operations._base import Primitive
from mindseed.ops.operations._state import Assign

__all__ = ["ExtractImagePatches", "ExtractVolumePatches", "Dilation2D", "FFTWithSize", "CopyWithSlice",
           "FractionalMaxPool3DWithFixedKsize", "FractionalMaxPool", "FractionalAvgPool"]


def _tuple(name, arg, value, n, lead=0):
    """An int or a tuple of n ints (or of n + lead ints whose first `lead` are 1) -> tuple of n positive ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,) * n
    if not isinstance(value, (tuple, list)) or len(value) not in (n, n + lead) or \
            any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in value):
        raise ValueError(f"For '{name}' attr '{arg}' should be an positive int number or a tuple of {n}"
                         + (f" or {n + lead}" if lead else "") + f" positive int numbers, but got {value}")
    value = tuple(value)
    if len(value) == n + lead:
        if any(v != 1 for v in value[:lead]):
            raise ValueError(f"For '{name}', the first {lead} values of '{arg}' must be 1, but got {value}.")
        value = value[lead:]
    return value


def _padding(name, padding):
    validator.check_value_type("padding", padding, [str], name)
    mode = padding.upper()
    if mode not in ("SAME", "VALID"):
        raise ValueError(f"For '{name}', the 'padding' must be 'SAME' or 'VALID', but got {padding}.")
    return mode


def _windows(x, kernel, strides, rates, mode, pad_value):
    """(N, K, C, *out) where K runs over the kernel offsets (last spatial dim fastest): every window of x
    (N, C, *spatial) at the given strides and dilation rates."""
    spatial = x.shape[2:]
    extent = [(k - 1) * r + 1 for k, r in zip(kernel, rates)]
    if mode == "SAME":
        out = [math.ceil(n / s) for n, s in zip(spatial, strides)]
        totals = [max((o - 1) * s + e - n, 0) for o, s, e, n in zip(out, strides, extent, spatial)]
        pads = []
        for total in reversed(totals):                 # F.pad takes the last dim first
            pads += [total // 2, total - total // 2]
        if any(pads):
            x = F.pad(x, tuple(pads), value=pad_value)
    else:
        out = [(n - e) // s + 1 for n, e, s in zip(spatial, extent, strides)]
        if any(o <= 0 for o in out):
            raise ValueError(f"the window extents {extent} must fit in the input's spatial shape {spatial}")
    pieces = []
    for offset in _offsets(kernel):
        index = (slice(None), slice(None)) + tuple(
            slice(o * r, o * r + (n - 1) * s + 1, s) for o, r, n, s in zip(offset, rates, out, strides))
        pieces.append(x[index])
    return F.stack(pieces, 1)


def _offsets(kernel):
    if not kernel:
        return [()]
    return [(i,) + rest for i in range(kernel[0]) for rest in _offsets(kernel[1:])]


def _check_input(name, x, rank):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', the 'input_x' must be a Tensor, but got {type(x).__name__}.")
    if x.ndim != rank:
        raise ValueError(f"For '{name}', the rank of 'input_x' must be {rank}, but got {x.ndim}.")


class ExtractImagePatches(Primitive):
    """`(N, C, H, W)` -> `(N, C * kh * kw, out_h, out_w)`: the patches of `ksizes` (1, 1, kh, kw) taken every
    `strides` with dilation `rates`, each flattened (kernel row, kernel column, channel), channels fastest."""

    def __init__(self, ksizes, strides, rates, padding="VALID"):
        super().__init__("ExtractImagePatches")
        self.ksizes = _tuple(self.name, "ksizes", ksizes, 2, 2)
        self.strides = _tuple(self.name, "strides", strides, 2, 2)
        self.rates = _tuple(self.name, "rates", rates, 2, 2)
        self.padding = _padding(self.name, padding)
        self.attrs.update(ksizes=ksizes, strides=strides, rates=rates, padding=self.padding)

    def __call__(self, input_x):
        _check_input(self.name, input_x, 4)
        p = _windows(input_x, self.ksizes, self.strides, self.rates, self.padding, 0.0)
        return p.reshape((p.shape[0], -1) + tuple(p.shape[3:]))


class ExtractVolumePatches(Primitive):
    """`(N, C, D, H, W)` -> `(N, C * kd * kh * kw, out_d, out_h, out_w)`: the patches of `kernel_size`
    (1, 1, kd, kh, kw) taken every `strides` (1, 1, sd, sh, sw), flattened with channels fastest."""

    def __init__(self, kernel_size, strides, padding):
        super().__init__("ExtractVolumePatches")
        self.kernel_size = _tuple(self.name, "kernel_size", kernel_size, 3, 2)
        self.strides = _tuple(self.name, "strides", strides, 3, 2)
        self.padding = _padding(self.name, padding)
        self.attrs.update(kernel_size=kernel_size, strides=strides, padding=self.padding)

    def __call__(self, input_x):
        _check_input(self.name, input_x, 5)
        p = _windows(input_x, self.kernel_size, self.strides, (1, 1, 1), self.padding, 0.0)
        return p.reshape((p.shape[0], -1) + tuple(p.shape[3:]))


class Dilation2D(Primitive):
    """Grayscale dilation: `out[n, c, y, x] = max over (i, j) of x[n, c, y * sh + i * rh, x * sw + j * rw] +
    filter[c, i, j]` (positions outside the input never win)."""

    def __init__(self, stride, dilation, pad_mode="SAME", data_format="NCHW"):
        super().__init__("Dilation2D")
        validator.check_value_type("data_format", data_format, [str], self.name)
        if data_format.upper() != "NCHW":
            raise ValueError(f"For '{self.name}', NHWC format is not supported at present.")
        self.stride = _tuple(self.name, "stride", stride, 2, 2)
        self.dilation = _tuple(self.name, "dilation", dilation, 2, 2)
        if any(s > 255 for s in self.stride):
            raise ValueError(f"For '{self.name}', 'stride' must be in [1, 255], but got {stride}.")
        self.pad_mode = _padding(self.name, pad_mode)
        self.data_format = "NCHW"
        self.attrs.update(stride=stride, dilation=dilation, pad_mode=self.pad_mode, data_format="NCHW")

    def __call__(self, x, filter):   # noqa: A002 -- MindSpore's input name
        name = self.name
        for arg, t, rank in (("x", x, 4), ("filter", filter, 3)):
            if not isinstance(t, Tensor):
                raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(t).__name__}.")
            if t.ndim != rank:
                raise ValueError(f"For '{name}', the rank of '{arg}' must be {rank}, but got {t.ndim}.")
        if filter.dtype != x.dtype or filter.shape[0] != x.shape[1]:
            raise ValueError(f"For '{name}', 'filter' must be (C, kh, kw) of x's channels {x.shape[1]} and dtype "
                             f"{x.dtype}, but got {filter.shape} {filter.dtype}.")
        kernel = tuple(filter.shape[1:])
        low = float("-inf") if mstype.is_float(x.dtype) else int(F.min(x).item()) - 1
        p = _windows(x, kernel, self.stride, self.dilation, self.pad_mode, low)        # (N, K, C, oh, ow)
        weights = F.transpose(filter.reshape((filter.shape[0], -1)), (1, 0))           # (K, C)
        return F.amax(p + weights.reshape(weights.shape + (1, 1)), 1)


class FFTWithSize(Primitive):
    """The fft family in one class: over the last `signal_ndim` dims, fft / ifft (`real=False`, complex input),
    rfft (`real=True`, `inverse=False`; the full spectrum with `onesided=False`) or irfft (`real=True`,
    `inverse=True`; output sizes `signal_sizes`, by default 2 (n - 1) in the last dim)."""

    def __init__(self, signal_ndim, inverse, real, norm="backward", onesided=True, signal_sizes=()):
        super().__init__("FFTWithSize")
        name = self.name
        self.signal_ndim = validator.check_int_range(signal_ndim, 1, 3, validator.INC_BOTH, "signal_ndim", name)
        self.inverse = validator.check_value_type("inverse", inverse, [bool], name)
        self.real = validator.check_value_type("real", real, [bool], name)
        self.norm = validator.check_string(norm, ["backward", "forward", "ortho"], "norm", name)
        self.onesided = validator.check_value_type("onesided", onesided, [bool], name)
        self.signal_sizes = tuple(validator.check_value_type("signal_sizes", signal_sizes, [tuple, list], name))
        self.attrs.update(signal_ndim=signal_ndim, inverse=inverse, real=real, norm=norm, onesided=onesided,
                          signal_sizes=self.signal_sizes)

    def __call__(self, x):
        name, nd = self.name, self.signal_ndim
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{name}', the 'x' must be a Tensor, but got {type(x).__name__}.")
        if x.ndim < nd:
            raise ValueError(f"For '{name}', the rank of 'x' must be at least signal_ndim {nd}, but got {x.ndim}.")
        dims = tuple(range(-nd, 0))
        complex_in = x.dtype in (mstype.complex64, mstype.complex128)
        if (not self.real or self.inverse) and not complex_in:
            raise TypeError(f"For primitive[{name}], the input argument[x] in {self._mode()} mode must be a type "
                            f"of {{Complex128, Complex64}}, but got {x.dtype}.")
        if not self.real:
            return (F.ifftn if self.inverse else F.fftn)(x, dim=dims, norm=self.norm)
        if not self.inverse:
            if complex_in:
                raise TypeError(f"For primitive[{name}], the input argument[x] in rfft mode must be real, but got "
                                f"{x.dtype}.")
            return (F.rfftn if self.onesided else F.fftn)(x, dim=dims, norm=self.norm)
        if not self.onesided:
            return F.real(F.ifftn(x, dim=dims, norm=self.norm))
        if x.shape[-1] == 1 and not self.signal_sizes:
            raise ValueError(f"For '{name}', the last dimension of the input cannot be 1, but got: 1")
        sizes = list(x.shape[-nd:])
        last = 2 * (sizes[-1] - 1)
        if self.signal_sizes:
            valid = tuple(sizes[:-1]) + (last,), tuple(sizes[:-1]) + (last + 1,)
            if tuple(self.signal_sizes) not in valid:
                raise ValueError(f"For '{name}', got invalid signal_sizes: {list(self.signal_sizes)}, a valid one "
                                 f"should be {list(valid[0])}, or {list(valid[1])}.")
            sizes = list(self.signal_sizes)
        else:
            sizes[-1] = last
        return F.irfftn(x, s=tuple(sizes), dim=dims, norm=self.norm)

    def _mode(self):
        return "irfft" if self.real else ("ifft" if self.inverse else "fft")


class CopyWithSlice(Primitive):
    """`CopyWithSlice()(x, y)`: y's values written into x (a Parameter or Tensor, same shape) in place; returns x."""

    def __init__(self):
        super().__init__("CopyWithSlice")
        self.add_prim_attr("side_effect_mem", True)
        self.init_prim_io_names(inputs=["x", "y"], outputs=["x"])
        self._assign = Assign()

    def __call__(self, x, y):
        for arg, t in (("x", x), ("y", y)):
            if not isinstance(t, Tensor):
                raise TypeError(f"For '{self.name}', the '{arg}' must be a Tensor, but got {type(t).__name__}.")
        if F.broadcast_to(y, x.shape).shape != x.shape:
            raise ValueError(f"For '{self.name}', 'y' of shape {y.shape} must broadcast to x's shape {x.shape}.")
        return self._assign(x, F.cast(F.broadcast_to(y, x.shape), x.dtype))


class FractionalMaxPool3DWithFixedKsize(Primitive):
    """Fractional 3-D max pooling with windows of `ksize` placed by `random_samples` (N, C, 3) in (0, 1):
    `(x, random_samples)` -> (y, argmax), y of `output_shape` (D, H, W); argmax indexes the flattened D * H * W
    input."""

    def __init__(self, ksize, output_shape, data_format="NCDHW"):
        super().__init__("FractionalMaxPool3DWithFixedKsize")
        name = self.name
        self.ksize = _tuple(name, "ksize", ksize, 3)
        self.output_shape = _tuple(name, "output_shape", output_shape, 3)
        self.data_format = validator.check_string(data_format, ["NCDHW", "NDHWC"], "data_format", name)
        self.attrs.update(ksize=self.ksize, output_shape=self.output_shape, data_format=data_format)

    def __call__(self, x, random_samples):
        name = self.name
        for arg, t, ranks in (("x", x, (4, 5)), ("random_samples", random_samples, (3,))):
            if not isinstance(t, Tensor):
                raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(t).__name__}.")
            if t.ndim not in ranks:
                raise TypeError(f"For '{name}', the '{arg}' must be a {' or '.join(f'{r}D' for r in ranks)} "
                                f"tensor, but got rank {t.ndim}.")
        if self.data_format == "NDHWC":
            x = F.moveaxis(x, -1, -4)
        lead = x.shape[:-4] if x.ndim == 5 else (1,)
        if random_samples.shape != tuple(lead) + (x.shape[-4], 3):
            raise ValueError(f"For '{name}', 'random_samples' must be (N, C, 3) = {tuple(lead) + (x.shape[-4], 3)}, "
                             f"but got {random_samples.shape}.")
        y, argmax = FP.fractional_max_pool3d(x, self.ksize, self.output_shape, None, True, random_samples)
        if self.data_format == "NDHWC":
            y, argmax = F.moveaxis(y, -4, -1), F.moveaxis(argmax, -4, -1)
        return y, argmax


def _pooling_sequence(name, size, ratio, pseudo_random, overlapping):
    """TensorFlow's fractional pooling boundaries: out + 1 increasing ints from 0 to `size` (the last cell may end
    at size - 1 when overlapping), out = floor(size / ratio)."""
    out = int(size / ratio)
    if out <= 0:
        raise ValueError(f"For '{name}', pooling_ratio {ratio} is too large for a dimension of {size}.")
    if pseudo_random:
        alpha = size / out
        u = float(F.rand(1).item())
        start = math.ceil(alpha * u) - 1
        seq = [0] + [min(int(math.ceil(alpha * (i + u))) - 1 - start, size) for i in range(1, out)] + [size]
    else:
        base, extra = divmod(size, out)
        bumps = set(F.randperm(out).asnumpy()[:extra].tolist())
        seq = [0]
        for i in range(out):
            seq.append(seq[-1] + base + (i in bumps))
    return seq


class _FractionalPool(Primitive):
    """Fractional pooling of NHWC images (TensorFlow's, as MindSpore's): rows and columns cut at random boundaries
    into floor(size / ratio) cells; returns (y, row_pooling_sequence, col_pooling_sequence)."""

    _reduce = None

    def __init__(self, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0, seed2=0):
        super().__init__(type(self).__name__)
        name = self.name
        validator.check_value_type("pooling_ratio", pooling_ratio, [list], name)
        if len(pooling_ratio) != 4 or pooling_ratio[0] != 1.0 or pooling_ratio[3] != 1.0 or \
                any(r < 1.0 for r in pooling_ratio):
            raise ValueError(f"For '{name}', 'pooling_ratio' must be [1.0, row_ratio >= 1, col_ratio >= 1, 1.0], but "
                             f"got {pooling_ratio}.")
        for k, v in (("pseudo_random", pseudo_random), ("overlapping", overlapping),
                     ("deterministic", deterministic)):
            validator.check_value_type(k, v, [bool], name)
        for k, v in (("seed", seed), ("seed2", seed2)):
            validator.check_value_type(k, v, [int], name)
        self.pooling_ratio, self.pseudo_random, self.overlapping = pooling_ratio, pseudo_random, overlapping
        self.deterministic, self.seed, self.seed2 = deterministic, seed, seed2
        self.attrs.update(pooling_ratio=pooling_ratio, pseudo_random=pseudo_random, overlapping=overlapping,
                          deterministic=deterministic, seed=seed, seed2=seed2)
        self._fixed = None   # deterministic: the sequences of the first call, reused

    def __call__(self, x):
        name = self.name
        if not isinstance(x, Tensor) or x.ndim != 4:
            raise ValueError(f"For '{name}', 'x' must be a 4-D (N, H, W, C) Tensor, but got "
                             f"{getattr(x, 'shape', type(x).__name__)}.")
        if self._fixed is not None and self._fixed[0] == x.shape[1:3]:
            rows, cols = self._fixed[1]
        else:
            rows, cols = (_pooling_sequence(name, x.shape[axis], self.pooling_ratio[axis], self.pseudo_random,
                                            self.overlapping) for axis in (1, 2))
            if self.deterministic:
                self._fixed = (x.shape[1:3], (rows, cols))
        y = self._pool(self._pool(x, rows, 1), cols, 2)
        return y, Tensor(rows, mstype.int64), Tensor(cols, mstype.int64)

    def _pool(self, x, seq, axis):
        cells = []
        for i in range(len(seq) - 1):
            end = min(seq[i + 1] + 1, x.shape[axis]) if self.overlapping else seq[i + 1]
            index = (slice(None),) * axis + (slice(seq[i], end),)
            cells.append(self._reduce(x[index], axis, True))
        return F.concat(cells, axis)


class FractionalMaxPool(_FractionalPool):
    __doc__ = _FractionalPool.__doc__.replace("Fractional pooling", "Fractional max pooling")
    _reduce = staticmethod(F.amax)


class FractionalAvgPool(_FractionalPool):
    __doc__ = _FractionalPool.__doc__.replace("Fractional pooling", "Fractional average pooling")
    _reduce = staticmethod(F.mean)
