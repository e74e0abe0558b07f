"""Kernels of the fft family: torch.fft transforms with MindSpore's input promotion.

Integer, bool and float16 inputs are transformed in float32 (a complex64 result), as MindSpore's CPU kernels do;
float64 and complex128 keep double precision.
"""
import torch

_fft = torch.fft


def _promote(x):
    if x.dtype == torch.bool:
        raise TypeError("fft of a bool tensor")      # MindSpore refuses it; the primitive's check says so
    if x.is_complex() or x.dtype in (torch.float32, torch.float64):
        return x
    return x.to(torch.float32)


def _transform(fn):
    def kernel(x, *args, norm=None, **kw):
        return fn(_promote(x), *args, norm=norm, **kw).resolve_conj()   # torch may hand back a lazy conjugate
    kernel.__name__ = fn.__name__
    return kernel


def _one_dim(fn):
    t = _transform(fn)
    return lambda x, *, n=None, dim=-1, norm=None: t(x, n=n, dim=dim, norm=norm)


def _many_dims(fn, default_dim):
    t = _transform(fn)

    def kernel(x, *, s=None, dim=default_dim, norm=None):
        if isinstance(dim, int) or isinstance(s, int):
            raise TypeError("s and dim of a multi-dimensional fft are tuples")   # torch would take an int
        return t(x, s=s, dim=dim, norm=norm)
    return kernel


def _two_dims(fn):
    return _many_dims(fn, (-2, -1))


def _n_dims(fn):
    return _many_dims(fn, None)


fft, ifft, rfft, irfft, hfft, ihfft = (_one_dim(f) for f in (_fft.fft, _fft.ifft, _fft.rfft, _fft.irfft, _fft.hfft,
                                                              _fft.ihfft))
fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (_two_dims(f) for f in (_fft.fft2, _fft.ifft2, _fft.rfft2, _fft.irfft2,
                                                                    _fft.hfft2, _fft.ihfft2))
fftn, ifftn, rfftn, irfftn, hfftn, ihfftn = (_n_dims(f) for f in (_fft.fftn, _fft.ifftn, _fft.rfftn, _fft.irfftn,
                                                                  _fft.hfftn, _fft.ihfftn))


def fftshift(x, *, dim=None):
    return _fft.fftshift(x, dim=dim)


def ifftshift(x, *, dim=None):
    return _fft.ifftshift(x, dim=dim)
