"""The fft family: MindSpore's `ops.fft`, `ifft`, `rfft`, `irfft`, `hfft`, `ihfft` in one, two and n dimensions,
and `fftshift` / `ifftshift` — one primitive each, with its gradient and its public names.

Gradients follow MindSpore's (and PyTorch's) convention for complex numbers: the cotangent of a complex value z
is dL/dRe(z) + i dL/dIm(z), so the gradient of a linear transform is its adjoint applied to the cotangent:

* complex-to-complex (fft, ifft): the opposite transform with the opposite normalisation ("backward" <->
  "forward"; "ortho" is its own), then cropped or zero-padded back to the input's size where `n`/`s` changed it;
* real-to-complex (rfft): the cotangent's half spectrum zero-extended to the full one, transformed back, its real part;
* complex-to-real (irfft): rfft of the cotangent, the frequencies that stand for two (all but 0 and Nyquist)
  doubled;
* hfft = irfft(conj(x)) and ihfft = conj(rfft(x)) with the opposite normalisation.
"""
import numpy as np

from mindseed._backend.kernels import fft as K
from mindseed.common.tensor import Tensor
from mindseed.ops._api import public
from mindseed.ops._prims.conv import pad_constant_p
from mindseed.ops._prims.core import mul_p
from mindseed.ops._prims.math import conj_p, real_p
from mindseed.ops._registry import Prim

_NORMS = (None, "backward", "forward", "ortho")
_OPPOSITE = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _dims(x, n_or_s, dim, rank):
    """The transformed dims (non-negative) and their output sizes (None: unchanged) of one call."""
    if rank == 1:
        return (dim % x.ndim,), (n_or_s,)
    s = None if n_or_s is None else tuple(n_or_s)
    if dim is None:
        dim = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    dims = tuple(d % x.ndim for d in dim)
    return dims, (s if s is not None else (None,) * len(dims))


def _resize(g, dims, sizes):
    """g cropped or zero-padded at the end of each of `dims` to `sizes`."""
    pads = [0] * (2 * g.ndim)
    for d, size in zip(dims, sizes):
        pads[2 * (g.ndim - 1 - d) + 1] = size - g.shape[d]
    return pad_constant_p(g, pads=tuple(pads)) if any(pads) else g


def _size_attrs(rank, dims, sizes):
    return {"n": sizes[0], "dim": dims[0]} if rank == 1 else {"s": tuple(sizes), "dim": dims}


def _real_like(g, x):
    return g if x.dtype.name.startswith("Complex") else real_p(g)


# ---------------------------------------------------------------- gradients of the three kinds of transform
def _c2c_bprop(rank, inverse):
    def bprop(x, out, dout, norm=None, **size):
        dims, _ = _dims(x, size.get("n", size.get("s")), size.get("dim"), rank)
        g = inverse(dout, norm=_OPPOSITE[norm], **_size_attrs(rank, dims, [out.shape[d] for d in dims]))
        return (_real_like(_resize(g, dims, [x.shape[d] for d in dims]), x),)
    return bprop


def _r2c_bprop(rank, full_inverse):
    def bprop(x, out, dout, norm=None, **size):
        dims, sizes = _dims(x, size.get("n", size.get("s")), size.get("dim"), rank)
        full = [x.shape[d] if s is None else s for d, s in zip(dims, sizes)]
        g = _resize(dout, dims[-1:], full[-1:])             # the half spectrum zero-extended
        g = full_inverse(g, norm=_OPPOSITE[norm], **_size_attrs(rank, dims, full))
        return (real_p(_resize(g, dims, [x.shape[d] for d in dims])),)
    return bprop


def _c2r_bprop(rank, forward):
    def bprop(x, out, dout, norm=None, **size):
        dims, _ = _dims(x, size.get("n", size.get("s")), size.get("dim"), rank)
        g = forward(dout, norm=_OPPOSITE[norm], **_size_attrs(rank, dims, [out.shape[d] for d in dims]))
        last, half = dims[-1], g.shape[dims[-1]]
        doubled = out.shape[last] - half
        if doubled > 0:
            scale = np.ones(half, dtype=np.float64 if g.dtype.name == "Complex128" else np.float32)
            scale[1:1 + doubled] = 2.0
            g = mul_p(g, Tensor(scale.reshape((half,) + (1,) * (g.ndim - 1 - last))))
        return (_resize(g, dims, [x.shape[d] for d in dims]),)
    return bprop


# ---------------------------------------------------------------- the primitives, by number of transformed dims
_SIGNATURES = {1: "(input, n=None, dim=-1, norm=None)", 2: "(input, s=None, dim=(-2, -1), norm=None)",
               3: "(input, s=None, dim=None, norm=None)"}
_SUFFIX = {1: "", 2: "2", 3: "n"}
_RANK = {1: 1, 2: 2, 3: 2}      # how `_dims` reads the size argument: n (one dim) or s (several)


def _declare(kind, rank):
    name = kind + _SUFFIX[rank]
    return Prim(name.upper(), getattr(K, name))


FFT = {rank: {kind: _declare(kind, rank) for kind in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")}
       for rank in (1, 2, 3)}

for _rank, _p in FFT.items():
    _r = _RANK[_rank]
    _p["fft"].def_bprop(_c2c_bprop(_r, _p["ifft"]))
    _p["ifft"].def_bprop(_c2c_bprop(_r, _p["fft"]))
    _p["rfft"].def_bprop(_r2c_bprop(_r, _p["ifft"]))
    _p["irfft"].def_bprop(_c2r_bprop(_r, _p["rfft"]))


def _hfft_bprop(irfft_bprop):
    def bprop(x, out, dout, norm=None, **size):      # hfft(x) = irfft(conj(x)) with the opposite norm
        (g,) = irfft_bprop(conj_p(x), out, dout, norm=_OPPOSITE[norm], **size)
        return (conj_p(g),)
    return bprop


def _ihfft_bprop(rfft_bprop):
    def bprop(x, out, dout, norm=None, **size):      # ihfft(x) = conj(rfft(x)) with the opposite norm
        return rfft_bprop(x, conj_p(out), conj_p(dout), norm=_OPPOSITE[norm], **size)
    return bprop


for _rank, _p in FFT.items():
    _r = _RANK[_rank]
    _p["hfft"].def_bprop(_hfft_bprop(_c2r_bprop(_r, _p["rfft"])))
    _p["ihfft"].def_bprop(_ihfft_bprop(_r2c_bprop(_r, _p["ifft"])))

fftshift_p = Prim("FFTShift", K.fftshift)
ifftshift_p = Prim("IFFTShift", K.ifftshift)
fftshift_p.def_bprop(lambda x, out, dout, dim=None: (ifftshift_p(dout, dim=dim),))
ifftshift_p.def_bprop(lambda x, out, dout, dim=None: (fftshift_p(dout, dim=dim),))


# ---------------------------------------------------------------- errors: checked only after a kernel failed
def _check(rank):
    def check(x, norm=None, **size):
        op = f"For '{check.prim.name}'"
        if norm not in _NORMS:
            raise ValueError(f"{op}, 'norm' must be one of {_NORMS}, but got {norm!r}.")
        n_or_s, dim = size.get("n", size.get("s")), size.get("dim")
        if rank == 1:
            if n_or_s is not None and (isinstance(n_or_s, bool) or not isinstance(n_or_s, int) or n_or_s < 1):
                raise ValueError(f"{op}, 'n' must be an int >= 1 or None, but got {n_or_s!r}.")
            dims = (dim,)
        else:
            if n_or_s is not None and (not isinstance(n_or_s, (tuple, list)) or
                                       any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in n_or_s)):
                raise ValueError(f"{op}, 's' must be a tuple of ints >= 1 or None, but got {n_or_s!r}.")
            dims = () if dim is None else dim
            if not isinstance(dims, (tuple, list)):
                raise TypeError(f"{op}, 'dim' must be a tuple of ints or None, but got {type(dim).__name__}.")
            if n_or_s is not None and dim is not None and len(n_or_s) != len(dims):
                raise ValueError(f"{op}, 's' and 'dim' must have the same length, but got {len(n_or_s)} and "
                                 f"{len(dims)}.")
        for d in dims:
            if isinstance(d, bool) or not isinstance(d, int):
                raise TypeError(f"{op}, 'dim' must be int, but got {type(d).__name__}.")
            if not -x.ndim <= d < x.ndim:
                raise ValueError(f"{op}, 'dim' must be in [{-x.ndim}, {x.ndim}), but got {d}.")
        if x.dtype.name == "Bool":
            raise TypeError(f"{op}, the 'input' must be a Tensor of int, float or complex type, but got Bool.")
    return check


for _rank, _p in FFT.items():
    for _prim in _p.values():
        _c = _check(_RANK[_rank])
        _c.prim = _prim
        _prim.def_check(_c)


# ---------------------------------------------------------------- public names: ops.fft, ops.ifft2, ops.rfftn, ...
for _rank, _p in FFT.items():
    for _kind, _prim in _p.items():
        _name = _kind + _SUFFIX[_rank]
        public(_prim, _name + _SIGNATURES[_rank], doc=f"The {_name} transform of `input` (MindSpore's ops.{_name}): "
               f"{'one dimension' if _rank == 1 else 'two dimensions' if _rank == 2 else 'n dimensions'}; `norm` is "
               f"'backward' (None), 'forward' or 'ortho'.")
public(fftshift_p, "fftshift(input, dim=None)", doc="The zero frequency moved to the centre of `dim` (all dims by "
       "default).")
public(ifftshift_p, "ifftshift(input, dim=None)", doc="The inverse of `fftshift`.")
