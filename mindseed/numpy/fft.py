"""mindspore.numpy.fft: numpy's discrete Fourier transforms on Tensors, MindSpore's `ops` FFTs under numpy's
argument names (`a`, `n`/`s`, `axis`/`axes`, `norm`)."""
from mindseed import ops

__all__ = ["fftshift", "ifftshift", "fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "fftn", "ifftn", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq"]


def fftshift(x, axes=None):
    """`x` with its zero-frequency term moved to the centre."""
    return ops.fftshift(x, axes)


def ifftshift(x, axes=None):
    """The inverse of `fftshift`."""
    return ops.ifftshift(x, axes)


def _one_dim(name):
    op = getattr(ops, name)

    def transform(a, n=None, axis=-1, norm=None):
        return op(a, n, axis, norm)
    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = f"numpy.fft.{name} of `a` along `axis` (length `n`, normalisation `norm`)."
    return transform


def _n_dim(name, default_axes):
    op = getattr(ops, name)

    def transform(a, s=None, axes=default_axes, norm=None):
        return op(a, s, axes, norm)
    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = f"numpy.fft.{name} of `a` over `axes` (sizes `s`, normalisation `norm`)."
    return transform


fft, ifft, rfft, irfft, hfft, ihfft = (_one_dim(n) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (
    _n_dim(n, (-2, -1)) for n in ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"))
fftn, ifftn, rfftn, irfftn, hfftn, ihfftn = (
    _n_dim(n, None) for n in ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"))


def fftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an `n`-point FFT with sample spacing `d` (float32 by default)."""
    return ops.fftfreq(n, d, dtype)


def rfftfreq(n, d=1.0, dtype=None):
    """The non-negative sample frequencies of an `n`-point real FFT with sample spacing `d`."""
    return ops.rfftfreq(n, d, dtype)
