"""Functional ops, random family: samplers of the standard distributions, permutations, categorical draws.

The ops MindSpore runs on its seeded CPU kernels (rand, randn, randint, uniform, normal, standard_normal,
standard_laplace, laplace, the *_like forms, multinomial, shuffle, randperm, bernoulli, choice_with_mask, and
dropout in `_nn`) give MindSpore's numbers: each call takes the seed pair MindSpore's functional op takes
(`common.seed._get_graph_seed(seed, kernel_name)`, which advances the op seed) and draws from a fresh
`KernelEngines`, the numpy reproduction of that kernel's C++ engines (`_backend.kernels.std_engine`). The others
draw from a torch generator chosen by `common.seed.op_generator(seed, seed2)`: the global stream (restarted by
`ms.set_seed`) when the op has no seed of its own, else a stream kept per seed. A distribution with parameters is
a standard sample shifted and scaled by mindseed ops, so its parameters get gradients (the reparameterization
MindSpore's composite ops have too).
"""
import numbers
import random

import numpy as np

from mindseed import _backend as B
from mindseed.common import dtype as mstype
from mindseed.common import seed as _seed
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import array as A
from mindseed.ops._prims import core as P
from mindseed.ops._prims import random as R
from mindseed.ops.functional._array_index import _inplace
from mindseed.ops.functional._array_shape import _int
from mindseed.ops.functional._core import _check_tensor, _dtype_arg, cast

__all__ = [
    "uniform", "normal", "laplace", "gamma", "poisson", "random_gamma", "random_poisson", "standard_normal",
    "standard_laplace", "rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "randperm",
    "multinomial", "multinomial_with_replacement", "random_categorical", "bernoulli", "shuffle", "choice_with_mask",
    "uniform_candidate_sampler", "log_uniform_candidate_sampler", "uniform_", "normal_", "bernoulli_", "random_",
    "exponential_", "bernoulli_ext",
]


def _check_seed(seed, seed2=0):
    seed = 0 if seed is None else seed
    for name, s in (("seed", seed), ("offset", seed2)):
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):     # MindSpore: a TypeError, bool too
            raise TypeError(f"The random '{name}' must be int and must >= 0, but got {s!r} with type "
                            f"'{type(s).__name__}'.")
        if not 0 <= s < 2 ** 63:
            raise ValueError(f"The random '{name}' must be a non-negative int, but got {s!r}.")
    return int(seed), int(seed2)


def _gen(seed=None, seed2=0):
    return _seed.op_generator(*_check_seed(seed, seed2))


def _engines(seed, kernel_name):
    """The engines of the primitive MindSpore's functional op makes at each call (UniformReal, UniformInt,
    StandardNormal): seeded by the pair `_get_graph_seed(seed, kernel_name)` gives, which then advances."""
    seed = _check_seed(seed)[0]
    return B.KernelEngines(*_seed._get_graph_seed(seed, kernel_name))


def _real(op, name, v):
    """A distribution parameter given as a Python number (or a one-element Tensor), as a float."""
    if isinstance(v, Tensor) and v.size == 1:
        v = v.item()
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Real, np.number)) or \
            isinstance(v, np.complexfloating):
        raise TypeError(f"For '{op}', the '{name}' must be an int or float, but got {type(v).__name__}.")
    return float(v)


def _generator(generator):
    """A user `generator=` argument (a backend Generator, or an object holding one) -> backend Generator."""
    if generator is None:
        return _seed.op_generator(0, 0)
    if isinstance(generator, B.Generator):
        return generator
    inner = getattr(generator, "_generator", None)
    if isinstance(inner, B.Generator):
        return inner
    raise TypeError(f"The 'generator' must be a mindspore Generator, but got {type(generator).__name__}.")


def _shape(op, shape):
    if isinstance(shape, Tensor):
        if shape.ndim > 1:
            raise ValueError(f"For '{op}', a Tensor 'shape' must be 1-D, but got rank {shape.ndim}.")
        shape = tuple(int(v) for v in shape.asnumpy().reshape(-1))
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"For '{op}', the 'shape' must be a tuple of ints, but got {type(shape).__name__}.")
    out = []
    for s in shape:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"For '{op}', the elements of 'shape' must be int, but got {shape}.")
        if s < 0:
            raise ValueError(f"For '{op}', the elements of 'shape' must be non-negative, but got {tuple(shape)}.")
        out.append(int(s))
    return tuple(out)


def _sizes(op, size):
    """rand(2, 3), rand((2, 3)) and rand([2, 3]) all mean the shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Tensor)):
        size = size[0]
    return _shape(op, tuple(size) if not isinstance(size, Tensor) else size)


def _float_dtype(op, dtype, default=mstype.float32):
    dtype = default if dtype is None else _dtype_arg(op, dtype)
    if not mstype.is_float(dtype):
        raise ValueError(f"For '{op}', the 'dtype' must be a float type, but got {dtype}.")
    return dtype


def _int_dtype(op, dtype, default=mstype.int64):
    dtype = default if dtype is None else _dtype_arg(op, dtype)
    if dtype == mstype.bool_ or not mstype.is_integral(dtype):
        raise ValueError(f"For '{op}', the 'dtype' must be an int type, but got {dtype}.")
    return dtype


def _param(op, name, v):
    if isinstance(v, Tensor):
        return v
    if isinstance(v, (numbers.Real, np.number)) and not isinstance(v, bool):
        return Tensor(float(v), mstype.float32)
    raise TypeError(f"For '{op}', the '{name}' must be a Tensor or a number, but got {type(v).__name__}.")


def _broadcast_shape(op, *shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"For '{op}', the shapes {shapes} cannot be broadcast together.") from None


# ---------------------------------------------------------------- continuous distributions
def standard_normal(shape, seed=None):
    """Samples of N(0, 1) of `shape` (Float32).

    >>> import mindseed as ms
    >>> ms.set_seed(0)
    >>> ms.ops.standard_normal((2, 3)).shape
    (2, 3)
    """
    shape = _shape("StandardNormal", shape)
    return R.std_standard_normal_p(shape=shape, engines=_engines(seed, "standard_normal"))


def standard_laplace(shape, seed=None):
    """Samples of the Laplace distribution with mean 0 and scale 1 (Float32)."""
    shape = _shape("StandardLaplace", shape)
    return R.std_standard_laplace_p(shape=shape, engines=_engines(seed, "standard_laplace"))


def uniform(shape, minval, maxval, seed=None, dtype=mstype.float32):
    """Samples uniform in [minval, maxval) of `shape` (Float32, or Int32 integers when dtype is int32).

    Raises:
        TypeError: minval/maxval are not Tensors of `dtype`, or dtype is neither float32 nor int32.
    """
    if not isinstance(minval, Tensor) or not isinstance(maxval, Tensor):
        raise TypeError("For 'uniform', the 'minval' and 'maxval' must be Tensors.")
    dtype = _dtype_arg("uniform", dtype)
    if dtype not in (mstype.int32, mstype.float32):
        raise TypeError(f"For 'uniform', the 'dtype' must be int32 or float32, but got {dtype}.")
    for name, v in (("minval", minval), ("maxval", maxval)):
        if v.dtype != dtype:
            raise TypeError(f"For 'uniform', the '{name}' dtype {v.dtype} is not consistent with 'dtype' {dtype}.")
    shape = _shape("uniform", shape)
    engines = _engines(seed, "uniform")
    if dtype == mstype.int32:
        lo, hi = int(minval.item()), int(maxval.item())
        if lo >= hi:
            raise ValueError(f"For 'uniform', 'minval' {lo} must be less than 'maxval' {hi}.")
        return R.std_uniform_int_p(shape=shape, low=lo, high=hi, engines=engines)
    u = R.std_uniform_real_p(shape=shape, engines=engines)
    return P.add_p(P.mul_p(u, P.sub_p(maxval, minval)), minval)


def normal(shape, mean, stddev, seed=None):
    """Samples of N(mean, stddev^2): the output shape is `shape` broadcast with mean's and stddev's."""
    mean, stddev = _param("normal", "mean", mean), _param("normal", "stddev", stddev)
    engines = _engines(seed, "normal")
    z = R.std_standard_normal_p(shape=_shape("normal", shape), engines=engines)
    return P.add_p(P.mul_p(z, stddev), mean)


def laplace(shape, mean, lambda_param, seed=None):
    """Samples of the Laplace distribution with location `mean` and scale `lambda_param`."""
    mean, lam = _param("laplace", "mean", mean), _param("laplace", "lambda_param", lambda_param)
    engines = _engines(seed, "laplace")
    z = R.std_standard_laplace_p(shape=_shape("laplace", shape), engines=engines)
    return P.add_p(P.mul_p(z, lam), mean)


def _standard_gamma(op, shape, alpha, seed):
    a = P.broadcast_to_p(alpha, shape=shape) if alpha.shape != shape else alpha
    if not mstype.is_float(a.dtype):
        a = cast(a, mstype.float32)
    return R.standard_gamma_p(P.stop_gradient_p(a), gen=_gen(seed))


def gamma(shape, alpha, beta, seed=None):
    """Samples of Gamma(alpha, rate beta): shape broadcast with alpha's and beta's (Float32)."""
    alpha, beta = _param("Gamma", "alpha", alpha), _param("Gamma", "beta", beta)
    out_shape = _broadcast_shape("Gamma", _shape("Gamma", shape), alpha.shape, beta.shape)
    return P.div_p(_standard_gamma("Gamma", out_shape, alpha, seed), beta)


def random_gamma(shape, alpha, seed=None):
    """Samples of Gamma(alpha, 1) of shape `shape + alpha.shape`, with alpha's dtype."""
    _check_tensor("RandomGamma", "alpha", alpha)
    shape = _shape("RandomGamma", shape) + alpha.shape
    return cast(_standard_gamma("RandomGamma", shape, alpha, seed), alpha.dtype)


def poisson(shape, mean, seed=None):
    """Samples of Poisson(mean): shape broadcast with mean's (Float32)."""
    mean = _param("Poisson", "mean", mean)
    out_shape = _broadcast_shape("Poisson", _shape("Poisson", shape), mean.shape)
    rate = cast(P.broadcast_to_p(mean, shape=out_shape) if mean.shape != out_shape else mean, mstype.float32)
    return R.poisson_p(rate, gen=_gen(seed))


def random_poisson(shape, rate, seed=None, dtype=mstype.float32):
    """Samples of Poisson(rate) of shape `shape + rate.shape`, of `dtype`; `shape` a 1-D int32 / int64 Tensor, as
    MindSpore takes it.

    Raises:
        TypeError: `shape` not an int32 / int64 Tensor, `rate` not a Tensor.
    """
    if not isinstance(shape, Tensor) or shape.dtype not in (mstype.int32, mstype.int64):
        got = f"Tensor[{shape.dtype}]" if isinstance(shape, Tensor) else type(shape).__name__
        raise TypeError(f"For primitive[RandomPoisson], the input argument[shape] must be a type of {{Tensor[Int32], "
                        f"Tensor[Int64]}}, but got {got}.")
    _check_tensor("RandomPoisson", "rate", rate)
    allowed = (mstype.float16, mstype.float32, mstype.float64, mstype.int32, mstype.int64)
    if rate.dtype not in allowed:
        raise TypeError(f"For primitive[RandomPoisson], the input argument[rate] must be a type of {{Tensor[Float16], "
                        f"Tensor[Float32], Tensor[Float64], Tensor[Int32], Tensor[Int64]}}, but got "
                        f"Tensor[{rate.dtype}].")
    dtype = _dtype_arg("RandomPoisson", dtype)
    if dtype not in allowed:
        raise TypeError(f"For 'RandomPoisson', the 'dtype' should be one of [mindspore.int64, mindspore.int32, "
                        f"mindspore.float16, mindspore.float32, mindspore.float64], but got {dtype}.")
    shape = _shape("RandomPoisson", shape) + rate.shape
    r = cast(P.broadcast_to_p(rate, shape=shape) if rate.shape != shape else rate, mstype.float32)
    return cast(R.poisson_p(r, gen=_gen(seed)), dtype)


# ---------------------------------------------------------------- rand / randn / randint
def _float_samples(prim, op, dtype, seed, size=None, input=None):
    """Samples of MindSpore's float32 kernel `prim` of shape `size` (rand(): (1,)), or of input's shape, cast to
    `dtype` (Float32 by default; input's dtype for rand_like)."""
    if size is not None:
        dtype = _float_dtype(op, dtype)
        shape = _sizes(op, size) if size else (1,)
    else:
        _check_tensor(op, "input", input)
        dtype = _float_dtype(op, dtype, input.dtype)
        shape = input.shape
    out = prim(shape=shape, engines=_engines(seed, op))
    return out if dtype == mstype.float32 else cast(out, dtype)


def rand(*size, dtype=None, seed=None):
    """Samples uniform in [0, 1) of shape `size` (Float32 unless `dtype`, a float type): MindSpore's numbers for
    the same seeds.

    >>> import mindseed as ms
    >>> ms.set_seed(1)
    >>> ms.ops.rand(2)
    Tensor(shape=[2], dtype=Float32, value= [ 5.42962015e-01,  8.05786252e-01])
    """
    return _float_samples(R.std_uniform_real_p, "rand", dtype, seed, size=size)


def randn(*size, dtype=None, seed=None):
    """Samples of N(0, 1) of shape `size` (Float32 unless `dtype`)."""
    return _float_samples(R.std_standard_normal_p, "randn", dtype, seed, size=size)


def rand_like(input, seed=None, *, dtype=None):
    """Samples uniform in [0, 1) of input's shape (and dtype unless given)."""
    return _float_samples(R.std_uniform_real_p, "rand_like", dtype, seed, input=input)


def randn_like(input, seed=None, *, dtype=None):
    """Samples of N(0, 1) of input's shape, Float32 unless `dtype` (MindSpore does not follow input's dtype here,
    where `rand_like` does)."""
    _check_tensor("randn_like", "input", input)
    return _float_samples(R.std_standard_normal_p, "randn_like", dtype if dtype is not None else mstype.float32,
                          seed, input=input)


def _bounds(op, low, high):
    for name, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(v).__name__}.")
    if low >= high:
        raise ValueError(f"For '{op}', 'low' {low} must be less than 'high' {high}.")
    return int(low), int(high)


def _uniform_int(op, shape, low, high, dtype, seed, engines=None):
    """MindSpore's UniformInt (int32 bounds and output) cast to `dtype`; `engines` those of a Primitive instance,
    else a functional call's (of `seed`)."""
    for name, v in (("low", low), ("high", high)):
        if not -2 ** 31 <= v < 2 ** 31:
            raise ValueError(f"For '{op}', '{name}' must be in the int32 range, but got {v}.")
    engines = _engines(seed, op) if engines is None else engines
    out = R.std_uniform_int_p(shape=shape, low=low, high=high, engines=engines)
    return out if dtype == mstype.int32 else cast(out, dtype)


def randint(low, high, size, seed=None, *, dtype=None):
    """Random integers in [low, high) of shape `size` (a tuple; Int64 unless `dtype`): MindSpore's numbers for the
    same seeds."""
    dtype = _int_dtype("randint", dtype)
    if not isinstance(size, tuple):
        raise ValueError(f"For 'randint', the input 'size' must be a tuple, but got {size}.")
    low, high = _bounds("randint", low, high)
    return _uniform_int("randint", _shape("randint", size), low, high, dtype, seed)


def randint_like(input, low, high, seed=None, *, dtype=None):
    """Random integers in [low, high) of input's shape (input's dtype, which must be an int type, unless given)."""
    _check_tensor("randint_like", "input", input)
    dtype = _int_dtype("randint_like", dtype, input.dtype)
    low, high = _bounds("randint_like", low, high)
    return _uniform_int("randint_like", input.shape, low, high, dtype, seed)


def randperm(n, seed=0, offset=0, dtype=mstype.int64):
    """A random permutation of 0..n-1."""
    if isinstance(n, Tensor):
        if n.size != 1 or n.dtype == mstype.bool_ or not mstype.is_integral(n.dtype):
            raise TypeError(f"For 'randperm', the 'n' given as a Tensor must hold one integer, but got shape "
                            f"{n.shape} and dtype {n.dtype}.")
        n = int(n.item())
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"For 'randperm', the 'n' must be a non-negative int, but got {n!r}.")
    dtype = _dtype_arg("randperm", dtype)
    if dtype == mstype.bool_ or not (mstype.is_integral(dtype) or mstype.is_float(dtype)):
        raise TypeError(f"For 'randperm', the 'dtype' must be an int or float type, but got {dtype}.")
    seed, offset = _randperm_seed(seed, offset)
    return R.std_randperm_p(n=int(n), seed=seed, offset=offset, dtype=dtype.name)


def _randperm_seed(seed, offset):
    """RandpermV2's seed (-1: non-deterministic) and offset, as ints."""
    out = []
    for name, v in (("seed", seed), ("offset", offset)):
        if isinstance(v, Tensor) and v.size == 1:
            v = v.item()
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"For 'RandpermV2', the type of '{name}' should be one of '[Tensor, int]', but got "
                            f"{type(v)}.")
        if v < (-1 if name == "seed" else 0):
            allowed = "greater than 0 or equal to 0 or -1" if name == "seed" else "greater than 0 or equal to 0"
            raise ValueError(f"For 'RandpermV2', the input '{name}' must be {allowed}, but got data: {v}.")
        out.append(int(v))
    return out


# ---------------------------------------------------------------- discrete draws
def _probs(op, x):
    _check_tensor(op, "input", x)
    if x.ndim not in (1, 2):
        raise ValueError(f"For '{op}', the dimension of inputs must be 1d or 2d, but got {x.ndim}.")
    if not mstype.is_float(x.dtype):
        x = cast(x, mstype.float32)
    return x


def multinomial(input, num_samples, replacement=True, seed=None):
    """num_samples indices per row drawn with probabilities proportional to input's rows (Int32), MindSpore's
    draws for the same seeds: with replacement its Multinomial kernel, without it the top num_samples of
    log(u) / (input + 1e-6) for uniform u (its composite).

    Raises:
        ValueError: input is not 1-D/2-D, or num_samples exceeds the categories without replacement.
    """
    x = _probs("multinomial", input)
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)) or num_samples <= 0:
        raise ValueError(f"For 'multinomial', the 'num_samples' must be a positive int, but got {num_samples!r}.")
    if not replacement and x.shape[-1] < num_samples:
        raise ValueError(f"For 'multinomial', the 'num_samples' must be at most the last dimension of input "
                         f"without 'replacement', but got 'num_samples': {num_samples} and input {x.shape}.")
    engines = _engines(seed, "multinomial")
    x = P.stop_gradient_p(x)
    if replacement:
        return cast(R.std_multinomial_p(x, num_samples=int(num_samples), engines=engines), mstype.int32)
    rows = x.shape[0] if x.ndim == 2 else 1
    u = R.std_uniform_real_p(shape=(rows * x.shape[-1],), engines=engines)
    if rows != 1:
        u = P.reshape_p(u, shape=(rows, x.shape[-1]))
    vals = P.div_p(P.log_p(u), P.add_p(x, 1e-6))
    return cast(A.topk_p(vals, k=int(num_samples))[1], mstype.int32)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """multinomial draws with an explicit (seed, offset) stream (Int64)."""
    for name, v in (("seed", seed), ("offset", offset)):
        if isinstance(v, Tensor):
            continue
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"For multinomial_with_replacement, the input[{name}] must be int, but got {type(v)}.")
    seed = int(seed.item()) if isinstance(seed, Tensor) else seed
    offset = int(offset.item()) if isinstance(offset, Tensor) else offset
    p = _probs("MultinomialWithReplacement", x)
    out = R.multinomial_p(P.stop_gradient_p(p), num_samples=int(numsamples), replacement=bool(replacement),
                          gen=_gen(seed, offset))
    return cast(out, mstype.int64)


def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64):
    """num_sample class indices per row of 2-D logits (unnormalized log-probabilities)."""
    _check_tensor("RandomCategorical", "logits", logits)
    if logits.ndim != 2:
        raise ValueError(f"For 'RandomCategorical', the 'logits' must be 2-D, but got shape {logits.shape}.")
    dtype = _dtype_arg("RandomCategorical", dtype)
    if dtype not in (mstype.int16, mstype.int32, mstype.int64):
        raise TypeError(f"For 'RandomCategorical', the 'dtype' must be int16, int32 or int64, but got {dtype}.")
    z = P.stop_gradient_p(logits if mstype.is_float(logits.dtype) else cast(logits, mstype.float32))
    seed = _check_seed(seed)[0]
    engine = B.MinstdRand0(B.mix_seed(0, seed) if seed else random.SystemRandom().getrandbits(32))
    out = R.categorical_p(z, num_samples=_int("RandomCategorical", "num_sample", num_sample), engine=engine)
    return cast(out, dtype)


_bernoulli_streams = {}     # MindSpore caches one Bernoulli primitive per seed: its kernels' streams, by shapes


def _bernoulli(input, p, stream_of):
    """MindSpore's Bernoulli kernel on input's shape; `stream_of(key)` the stream of its kernel for `key`."""
    _check_tensor("Bernoulli", "input", input)
    if not isinstance(p, Tensor):
        if isinstance(p, bool) or not isinstance(p, (numbers.Real, np.number)):
            raise TypeError(f"For 'Bernoulli', the 'p' must be a float or a Tensor, but got {type(p).__name__}.")
        p = Tensor([float(p)], mstype.float32)
    if p.size != 1 and p.shape != input.shape:
        raise ValueError("For 'Bernoulli', 'x' and 'p' should have same shape or 'p' have a size of 1.")
    values = p.asnumpy()
    if values.size and (values.min() < 0 or values.max() > 1 or np.isnan(values).any()):
        bad = values.reshape(-1)[0] if p.size == 1 else None
        raise ValueError("For bernoulli, p should be in [0, 1]" + (f", but got {bad:g}." if bad is not None else "."))
    return R.std_bernoulli_p(input, P.stop_gradient_p(p), stream=stream_of((input.shape, p.shape)))


def bernoulli(input, p=0.5, seed=None):
    """0/1 samples of input's shape and dtype, 1 with probability p (a number, or a Tensor of input's shape or of one
    element): MindSpore's draws for the same seed (None: -1, non-deterministic). As MindSpore's cached primitive,
    successive calls with one seed and shape first use up the Philox block the previous call left unfinished."""
    seed = -1 if seed is None else seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"For 'bernoulli', the 'seed' must be int, but got {type(seed).__name__}.")

    def stream_of(key):
        streams = _bernoulli_streams.setdefault(int(seed), {})
        if key not in streams:
            streams[key] = B.PhiloxLeftover(int(seed))
        return streams[key]
    return _bernoulli(input, p, stream_of)


def bernoulli_ext(input, *, generator=None):
    """0/1 samples with input as the probabilities (input's dtype)."""
    _check_tensor("bernoulli_ext", "input", input)
    if not mstype.is_float(input.dtype):
        raise TypeError(f"For 'bernoulli_ext', the 'input' must be a float Tensor, but got {input.dtype}.")
    return cast(R.bernoulli_p(P.stop_gradient_p(input), gen=_generator(generator)), input.dtype)


def shuffle(x, seed=None):
    """x with its first dimension randomly permuted, MindSpore's permutation for the same seeds."""
    _check_tensor("RandomShuffle", "x", x)
    engines = _engines(seed, "shuffle")
    return R.std_random_shuffle_p(x, engines=engines)


def choice_with_mask(input_x, count=256, seed=None):
    """`count` random positions of the True elements of a bool tensor (Int32, (count, rank)) and a mask of
    which rows are real (the rest are zero padding): MindSpore's for the same seeds."""
    _check_choice(input_x, count)
    return _choice_with_mask(input_x, count, _engines(seed, "choice_with_mask"))


def _check_choice(input_x, count):
    _check_tensor("RandomChoiceWithMask", "input_x", input_x)
    if input_x.dtype != mstype.bool_:
        raise TypeError(f"For 'RandomChoiceWithMask', the 'input_x' must be a bool Tensor, but got "
                        f"{input_x.dtype}.")
    if not 1 <= input_x.ndim <= 5:
        raise ValueError(f"For 'RandomChoiceWithMask', the rank of 'input_x' must be in [1, 5], but got "
                         f"{input_x.ndim}.")
    if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
        raise ValueError(f"For 'RandomChoiceWithMask', the 'count' must be a positive int, but got {count!r}.")
    # the (count, rank) int32 indices and the count-long mask
    B.check_allocation(count * (4 * input_x.ndim + 1), "RandomChoiceWithMask")


def _choice_with_mask(input_x, count, engines):
    return tuple(R.std_choice_with_mask_p(input_x, count=count, engines=engines))


def _check_sampler(op, true_classes, num_true, num_sampled, unique, range_max):
    _check_tensor(op, "true_classes", true_classes)
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise ValueError(f"For '{op}', the 'true_classes' must have shape (batch, num_true={num_true}), but got "
                         f"{true_classes.shape}.")
    if num_sampled <= 0 or range_max <= 0 or (unique and num_sampled > range_max):
        raise ValueError(f"For '{op}', 'num_sampled' {num_sampled} and 'range_max' {range_max} must be positive "
                         f"(and num_sampled <= range_max when unique).")


def _sampler(op, true_classes, num_true, num_sampled, unique, range_max, seed, log_uniform, avoid, gen=None):
    """The candidate samplers; `gen` (a Primitive instance's own stream) replaces the generator of `seed`."""
    _check_sampler(op, true_classes, num_true, num_sampled, unique, range_max)
    out = R.candidate_sampler_p(true_classes, num_sampled=int(num_sampled), unique=bool(unique),
                                range_max=int(range_max), log_uniform=log_uniform, avoid=avoid,
                                gen=gen if gen is not None else _gen(seed))
    return out[0], out[1], out[2]


def _uniform_sampler(true_classes, num_true, num_sampled, unique, range_max, avoid, engine):
    """UniformCandidateSampler drawing from `engine` (MindSpore's C++ engine of the op's seed, advanced in
    place: a Primitive instance keeps one across calls)."""
    _check_sampler("UniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max)
    out = R.uniform_candidate_sampler_p(true_classes, num_sampled=int(num_sampled), unique=bool(unique),
                                        range_max=int(range_max), avoid=avoid, engine=engine)
    return out[0], out[1], out[2]


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """num_sampled classes drawn uniformly from [0, range_max) and the expected counts of the true and sampled
    classes; a non-zero seed gives MindSpore's draws (each call starts the seed's stream afresh, as MindSpore's
    functional form does)."""
    _gen(seed)      # the seed's checks
    return _uniform_sampler(true_classes, num_true, num_sampled, unique, range_max,
                            bool(remove_accidental_hits) and bool(unique), R.std_engine(int(seed), _gen(0)))


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
    """num_sampled classes drawn from the log-uniform (Zipfian) distribution over [0, range_max), and the
    expected counts of the true and sampled classes."""
    return _sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max, seed, True,
                    False)


# ---------------------------------------------------------------- in-place fills
def _float_target(op, input):
    _check_tensor(op, "input", input)
    if not mstype.is_float(input.dtype):
        raise TypeError(f"For '{op}', the 'input' must be a float Tensor, but got {input.dtype}.")


def uniform_(input, from_=0, to=1, *, generator=None):
    """Fill input in place with samples uniform in [from_, to)."""
    _float_target("uniform_", input)
    lo, hi = _real("uniform_", "from_", from_), _real("uniform_", "to", to)
    g = _generator(generator)

    def fn(old):
        u = R.uniform_real_p(shape=old.shape, dtype=old.dtype.name, gen=g)
        return P.add_p(P.mul_p(u, hi - lo), lo)
    return _inplace(input, fn)


def normal_(input, mean=0, std=1, *, generator=None):
    """Fill input in place with samples of N(mean, std^2)."""
    _float_target("normal_", input)
    g = _generator(generator)

    def fn(old):
        z = R.standard_normal_p(shape=old.shape, dtype=old.dtype.name, gen=g)
        return P.add_p(P.mul_p(z, std), mean)
    return _inplace(input, fn, mean, std)


def bernoulli_(input, p=0.5, *, generator=None):
    """Fill input in place with 0/1 samples, 1 with probability p."""
    _check_tensor("bernoulli_", "input", input)
    g = _generator(generator)

    def fn(old):
        if isinstance(p, Tensor):
            prob = cast(P.broadcast_to_p(p, shape=old.shape) if p.shape != old.shape else p, mstype.float32)
        else:
            prob = P.fill_p(shape=old.shape, value=_real("bernoulli_", "p", p), dtype="Float32")
        return cast(R.bernoulli_p(P.stop_gradient_p(prob), gen=g), old.dtype)
    return _inplace(input, fn)


def random_(input, from_=0, to=None, *, generator=None):
    """Fill input in place with random integers in [from_, to); with no `to`, up to the largest integer the
    dtype holds exactly (2**mantissa for floats, the maximum for ints)."""
    _check_tensor("random_", "input", input)
    if mstype.is_complex(input.dtype):
        raise TypeError(f"For 'random_', the 'input' must have a real number or bool dtype, but got {input.dtype}.")
    g = _generator(generator)
    if to is None:
        dt = input.dtype
        if mstype.is_float(dt):
            to = 2 ** {mstype.float16: 11, mstype.bfloat16: 8, mstype.float32: 24}.get(dt, 53) + 1
        elif dt == mstype.bool_:
            to = 2
        else:
            to = min(int(np.iinfo(mstype.dtype_to_nptype(dt)).max), 2 ** 62)
    low, high = _bounds("random_", from_, to)
    return _inplace(input, lambda old: cast(R.uniform_int_p(shape=old.shape, low=low, high=high, dtype="Int64",
                                                            gen=g), old.dtype))


def exponential_(input, lambd=1, *, generator=None):
    """Fill input in place with samples of the exponential distribution of rate lambd."""
    _float_target("exponential_", input)
    lambd = _real("exponential_", "lambd", lambd)
    if lambd <= 0:
        raise ValueError(f"For 'exponential_', the 'lambd' must be positive, but got {lambd}.")
    g = _generator(generator)
    return _inplace(input, lambda old: R.exponential_p(shape=old.shape, lambd=float(lambd), dtype=old.dtype.name,
                                                       gen=g))


# ---------------------------------------------------------------- Tensor methods
def _uniform_method(self, from_=0.0, to=1.0, generator=None):
    _float_target("uniform", self)
    lo, hi = _real("uniform", "from_", from_), _real("uniform", "to", to)
    u = R.uniform_real_p(shape=self.shape, dtype=self.dtype.name, gen=_generator(generator))
    return P.add_p(P.mul_p(u, hi - lo), lo)


def _cauchy_method(self, median=0.0, sigma=1.0):
    _float_target("cauchy", self)
    return R.cauchy_p(shape=self.shape, median=_real("cauchy", "median", median),
                      sigma=_real("cauchy", "sigma", sigma), dtype=self.dtype.name, gen=_gen())


def _log_normal_method(self, mean=1.0, std=2.0):
    _float_target("log_normal", self)
    return R.log_normal_p(shape=self.shape, mean=_real("log_normal", "mean", mean),
                             std=_real("log_normal", "std", std), dtype=self.dtype.name, gen=_gen())


TENSOR_METHODS = {
    "uniform": _uniform_method, "uniform_": uniform_, "normal_": normal_, "bernoulli": bernoulli_ext,
    "bernoulli_": bernoulli_, "random_": random_, "exponential_": exponential_, "cauchy": _cauchy_method,
    "log_normal": _log_normal_method, "multinomial": multinomial, "random_categorical": random_categorical,
}
