"""mint's random functions: torch-style signatures (`*size`, `generator=`) on the random primitives."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as _F
from mindseed.ops._prims import core as P
from mindseed.ops._prims import random as R
from mindseed.ops.functional import _random as _r
from mindseed.ops.functional._core import _dtype_arg

__all__ = ["rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "randperm", "normal", "multinomial"]


def _like(op, input, dtype, default_check):
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'mint.{op}', the 'input' must be a Tensor, but got {type(input).__name__}.")
    return default_check(op, dtype, input.dtype)


def _size_arg(size):
    """`size` as mint.rand/randn read it: a tuple or list first is the shape, and what follows it is ignored
    (`randn((2, 3), ms.float32)` is float32 because that is the default, as in MindSpore)."""
    return size[0] if size and isinstance(size[0], (tuple, list)) else size


def rand(*size, generator=None, dtype=None, device=None):
    """Samples uniform in [0, 1) of shape `size` (Float32 unless `dtype`).

    >>> import mindseed as ms
    >>> ms.mint.rand(2, 3).shape
    (2, 3)
    """
    dtype = _r._float_dtype("rand", dtype)
    return R.uniform_real_p(shape=_r._sizes("rand", _size_arg(size)), dtype=dtype.name,
                            gen=_r._generator(generator))


def rand_like(input, *, dtype=None, device=None):
    """Samples uniform in [0, 1) of input's shape (and dtype unless given)."""
    dtype = _like("rand_like", input, dtype, _r._float_dtype)
    return R.uniform_real_p(shape=input.shape, dtype=dtype.name, gen=_r._generator(None))


def randn(*size, generator=None, dtype=None, device=None):
    """Samples of N(0, 1) of shape `size` (Float32 unless `dtype`)."""
    dtype = _r._float_dtype("randn", dtype)
    return R.standard_normal_p(shape=_r._sizes("randn", _size_arg(size)), dtype=dtype.name,
                               gen=_r._generator(generator))


def randn_like(input, *, dtype=None, device=None):
    """Samples of N(0, 1) of input's shape (and dtype unless given)."""
    dtype = _like("randn_like", input, dtype, _r._float_dtype)
    return R.standard_normal_p(shape=input.shape, dtype=dtype.name, gen=_r._generator(None))


def _low_high(op, args, n_after):
    """randint(high, size) / randint(low, high, size): ((low, high), the remaining arguments)."""
    if len(args) == n_after + 1:
        return _r._bounds(op, 0, args[0]), args[1:]
    if len(args) == n_after + 2:
        return _r._bounds(op, args[0], args[1]), args[2:]
    raise TypeError(f"For 'mint.{op}', the arguments must be ([low,] high{', size' if n_after else ''}), but got "
                    f"{args}.")


def randint(*args, generator=None, dtype=None, device=None):
    """Random integers in [low, high) (low 0 unless given) of shape `size`: randint([low,] high, size).

    >>> import mindseed as ms
    >>> ms.mint.randint(0, 5, (3,)).shape
    (3,)
    """
    (low, high), (size,) = _low_high("randint", args, 1)
    dtype = _r._int_dtype("randint", dtype)
    return R.uniform_int_p(shape=_r._sizes("randint", (size,)), low=low, high=high, dtype=dtype.name,
                           gen=_r._generator(generator))


def randint_like(*args, dtype=None, device=None):
    """Random integers in [low, high) of input's shape: randint_like(input, [low,] high)."""
    if not args:
        raise TypeError("For 'mint.randint_like', the 'input' is missing.")
    input, rest = args[0], args[1:]
    (low, high), _ = _low_high("randint_like", rest, 0)
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'mint.randint_like', the 'input' must be a Tensor, but got {type(input).__name__}.")
    dtype = input.dtype if dtype is None else dtype
    return _F.cast(R.uniform_int_p(shape=input.shape, low=low, high=high, dtype="Int64", gen=_r._generator(None)),
                   dtype)


def randperm(n, *, generator=None, dtype=mstype.int64):
    """A random permutation of 0..n-1."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"For 'mint.randperm', the 'n' must be a non-negative int, but got {n!r}.")
    return R.randperm_p(n=int(n), dtype=_dtype_arg("mint.randperm", dtype).name, gen=_r._generator(generator))


def normal(mean=0.0, std=1.0, size=None, generator=None):
    """Samples of N(mean, std^2): mean and std Tensors (broadcast) or numbers (then `size` gives the shape).
    Gradients flow to Tensor mean and std (mean + std * z)."""
    shapes = [v.shape for v in (mean, std) if isinstance(v, Tensor)]
    if shapes:
        if size is not None:
            raise TypeError("For 'mint.normal', 'size' is given only when 'mean' and 'std' are numbers.")
        shape = _r._broadcast_shape("mint.normal", *shapes)
    else:
        if size is None:
            raise TypeError("For 'mint.normal', 'size' is required when 'mean' and 'std' are numbers.")
        shape = _r._shape("mint.normal", size)
    dtype = next((v.dtype for v in (mean, std) if isinstance(v, Tensor) and mstype.is_float(v.dtype)),
                 mstype.float32)
    z = R.standard_normal_p(shape=shape, dtype=dtype.name, gen=_r._generator(generator))
    return _F.add(_F.mul(z, std), mean)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """num_samples category indices per row of `input` (probabilities up to scale), Int64."""
    x = _r._probs("mint.multinomial", input)
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)) or num_samples <= 0:
        raise ValueError(f"For 'mint.multinomial', the 'num_samples' must be a positive int, but got {num_samples!r}.")
    if not replacement and x.shape[-1] < num_samples:
        raise ValueError(f"For 'mint.multinomial', 'num_samples' {num_samples} exceeds the {x.shape[-1]} categories "
                         f"of 'input' without 'replacement'.")
    return R.multinomial_p(P.stop_gradient_p(x), num_samples=int(num_samples), replacement=bool(replacement),
                           gen=_r._generator(generator))
