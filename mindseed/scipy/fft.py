"""mindspore.scipy.fft: the orthonormal discrete cosine transform of type II (`dct`, `dctn`) and its inverse (`idct`,
`idctn`), the types and normalization MindSpore supports. Each transform is a product with the orthonormal DCT-II
matrix along an axis, so it is differentiable and compiles like any composite."""
import functools
import math

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F

__all__ = ["dct", "idct", "dctn", "idctn"]

_NUMBERS = (mstype.int16, mstype.int32, mstype.int64, mstype.float16, mstype.float32, mstype.float64,
            mstype.complex64, mstype.complex128)


@functools.lru_cache(maxsize=64)
def _dct_matrix(n):
    """C[k, j] = f_k cos(pi k (2 j + 1) / (2 n)), f_0 = sqrt(1 / n), f_k = sqrt(2 / n): orthogonal (C^-1 = C^T)."""
    k, j = np.arange(n)[:, None], np.arange(n)[None, :]
    c = np.cos(np.pi * k * (2 * j + 1) / (2 * n)) * math.sqrt(2.0 / n)
    c[0] /= math.sqrt(2.0)
    return c


def _check(func, x, type, norm):  # noqa: A002 -- SciPy's argument name
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{func}', the 'x' must be a Tensor, but got {type(x).__name__}.")
    if x.dtype not in _NUMBERS:
        raise TypeError(f"For '{func}', the 'x' data type must be one of int16, int32, int64, float16, float32, "
                        f"float64, complex64, complex128, but got {x.dtype}.")
    if type != 2:
        raise ValueError("Only dct type II is supported currently.")
    if norm not in (None, "ortho"):
        raise ValueError(f"For '{func}', the 'norm' must be 'ortho' (or None), but got {norm!r}.")
    if x.dtype in (mstype.float64, mstype.complex64, mstype.complex128):
        return x
    return F.cast(x, mstype.float32)


def _along(x, n, axis, inverse, func):
    """The (inverse) orthonormal DCT-II of `x` along `axis`, cut or zero-padded to `n` first."""
    def _int(name, v):
        if isinstance(v, Tensor) and v.ndim == 0 and mstype.is_integral(v.dtype) and v.dtype != mstype.bool_:
            return int(v.item())            # a `mutable` int
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise TypeError(f"For '{func}', the '{name}' must be int, but got {type(v).__name__}.")
        return v

    n, axis = _int("n", n), _int("axis", axis)
    if x.ndim == 0 or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"For '{func}', the 'axis' must be in [{-x.ndim}, {x.ndim}), but got {axis}.")
    y = F.moveaxis(x, axis, -1)
    size = y.shape[-1]
    n = size if n is None else n
    if n < 1:
        raise ValueError(f"For '{func}', the 'n' must be positive, but got {n}.")
    if n < size:
        y = F.narrow(y, -1, 0, n)
    elif n > size:
        y = F.pad(y, (0, n - size))
    c = _dct_matrix(n)
    m = Tensor(c if inverse else c.T, mstype.float64 if y.dtype in (mstype.float64, mstype.complex128)
               else mstype.float32)
    if mstype.is_complex(y.dtype):
        m = F.cast(m, y.dtype)
    return F.moveaxis(F.matmul(y, m), -1, axis)


def dct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002 -- SciPy's argument name
    """The orthonormal DCT-II of `x` along `axis` (cut or zero-padded to `n`); float64 / complex stay, other numbers
    become float32.

    >>> import mindseed as ms
    >>> from mindseed.scipy.fft import dct
    >>> dct(ms.Tensor([0.0, 1.0, 2.0, 3.0]))
    Tensor(shape=[4], dtype=Float32, value= [ 3.00000000e+00 -2.23044252e+00  0.00000000e+00 -1.58512712e-01])
    """
    return _along(_check("dct", x, type, norm), n, axis, False, "dct")


def idct(x, type=2, n=None, axis=-1, norm=None):  # noqa: A002 -- SciPy's argument name
    """The inverse of `dct` along `axis` (the orthonormal DCT-III)."""
    return _along(_check("idct", x, type, norm), n, axis, True, "idct")


def _nd(func, x, type, s, axes, norm, inverse):  # noqa: A002 -- SciPy's argument name
    x = _check(func, x, type, norm)
    if axes is None:
        axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    sizes = (None,) * len(axes) if s is None else ((s,) if isinstance(s, int) else tuple(s))
    if len(sizes) != len(axes):
        raise ValueError(f"For '{func}', 's' and 'axes' must have the same length, but got {len(sizes)} and "
                         f"{len(axes)}.")
    for n, axis in zip(sizes, axes):
        x = _along(x, n, axis, inverse, func)
    return x


def dctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002 -- SciPy's argument name
    """The orthonormal DCT-II of `x` over `axes` (all by default; the last len(s) with `s`), each cut or padded to
    its size in `s`."""
    return _nd("dctn", x, type, s, axes, norm, False)


def idctn(x, type=2, s=None, axes=None, norm=None):  # noqa: A002 -- SciPy's argument name
    """The inverse of `dctn` over `axes`."""
    return _nd("idctn", x, type, s, axes, norm, True)
