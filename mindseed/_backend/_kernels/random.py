"""Kernels of the random family. Each takes the op's `Generator` (mindseed._backend.Generator) as the
attribute `gen`; numbers are drawn on the CPU generator and moved to the current device, so a seed gives
the same numbers on every device."""
import math

import numpy as np
import torch

from mindseed._backend._core import _TORCH_DTYPES
import random as _pyrandom

from mindseed._backend.kernels import std_engine as _std
from mindseed._backend.kernels.std_engine import (MinstdRand0, Mt19937, minstd_normal, minstd_uniform_float, mix_seed,
                                                  philox_unit_float)


def _dev():
    from mindseed._backend import _core as _backend  # noqa: PLC0415 -- the current device is chosen at run time
    return _backend.device()


def _out(t, like=None):
    dev = like.device if like is not None else _dev()
    return t if t.device == dev else t.to(dev)


def _cpu(x):
    return x if x.device.type == "cpu" else x.cpu()


def _numel(shape):
    return math.prod(shape)


def std_uniform_real(shape, engines):
    """MindSpore's CPU UniformReal: float32 of uniform_real_distribution<double>(0, 1) from the kernel's mt19937."""
    u = engines.engine(shape, Mt19937).canonical(_numel(shape)).astype(np.float32)
    return _out(torch.from_numpy(u.reshape(shape)))


def std_standard_normal(shape, engines):
    """MindSpore's CPU StandardNormal: normal_distribution<float> from the kernel's minstd_rand0."""
    z = minstd_normal(engines.engine(shape, MinstdRand0), _numel(shape))
    return _out(torch.from_numpy(z.reshape(shape)))


def std_uniform_int(shape, low, high, engines):
    """MindSpore's CPU UniformInt: int32 of uniform_int_distribution<int>(low, high - 1) from the kernel's mt19937."""
    k = engines.engine(shape, Mt19937).uniform_int(_numel(shape), low, high - 1).astype(np.int32)
    return _out(torch.from_numpy(k.reshape(shape)))


_LAPLACE_LOW = np.nextafter(np.float32(-1.0), np.float32(0.0))


def std_standard_laplace(shape, engines):
    """MindSpore's CPU StandardLaplace: u of uniform_real_distribution<float>(nextafter(-1, 0), 1) from the kernel's
    minstd_rand0, -sign(u) * log(1 - |u|) in double, rounded to float32."""
    u = minstd_uniform_float(engines.engine(shape, MinstdRand0), _numel(shape))
    u *= np.float32(1.0) - _LAPLACE_LOW
    u += _LAPLACE_LOW
    z = -np.copysign(1.0, u).astype(np.float64) * np.log(1.0 - np.abs(u).astype(np.float64))
    return _out(torch.from_numpy(z.astype(np.float32).reshape(shape)))


def std_random_shuffle(x, engines):
    """MindSpore's CPU RandomShuffle: x's first dimension permuted by std::shuffle with the kernel's minstd_rand0
    (a 0-d x or a first dimension of 0 or 1: copied, drawing nothing)."""
    if x.dim() == 0 or x.shape[0] <= 1:
        return x.clone()
    perm = _std.shuffle(x.shape[0], engines.engine(tuple(x.shape), MinstdRand0))
    return x[torch.tensor(perm, device=x.device)]


def std_randperm(n, seed, offset, dtype):
    """MindSpore's CPU RandpermV2: std::shuffle of [0, n) with an mt19937 of `offset`, else of `seed`, else (seed
    -1) of a non-deterministic seed: each call starts afresh."""
    final = offset if offset != 0 else seed if seed != -1 else _pyrandom.SystemRandom().getrandbits(32)
    perm = _std.shuffle(n, Mt19937(final))
    return _out(torch.tensor(perm, dtype=torch.int64).to(_TORCH_DTYPES[dtype]))


def std_multinomial(probs, num_samples, engines):
    """MindSpore's CPU Multinomial (with replacement), int64 indices of probs' shape but the last dim num_samples."""
    p = _cpu(probs).numpy()
    out_shape = tuple(probs.shape[:-1]) + (num_samples,)
    engine = engines.engine(out_shape, MinstdRand0)
    k = _std.multinomial(p.reshape(-1, p.shape[-1]), num_samples, engine)
    return _out(torch.from_numpy(k.reshape(out_shape)), probs)


def std_bernoulli(x, p, stream):
    """MindSpore's CPU Bernoulli: 1 where a Philox float (23 random mantissa bits) is <= p, else 0, in x's dtype;
    `stream` a PhiloxLeftover (seed -1: a fresh non-deterministic seed and offset at each launch)."""
    n = x.numel()
    if stream.seed == -1:
        rand = _pyrandom.SystemRandom()
        draws = stream.launch(n, rand.getrandbits(64), rand.getrandbits(64))
    else:
        draws = stream.launch(n)
    u = torch.from_numpy(philox_unit_float(draws).reshape(tuple(x.shape)))
    p = _cpu(p)
    p = p.reshape(()) if p.numel() == 1 else p
    return _out((u <= p).to(x.dtype), x)


def std_choice_with_mask(x, count, engines):
    """MindSpore's CPU RandomChoiceWithMask: the flat positions of x's True elements std::shuffled with the kernel's
    minstd_rand0, the first `count` as coordinates (int32; MindSpore's kernel divides by the row length
    d1 * ... * dn at every axis but the last, which this keeps), zero-padded, and the mask of the real rows."""
    flat = np.flatnonzero(_cpu(x).reshape(-1).numpy())
    perm = _std.shuffle(len(flat), engines.engine(tuple(x.shape), MinstdRand0))
    chosen = flat[np.asarray(perm[:count], np.int64)]
    dims = tuple(x.shape)
    column = math.prod(dims) // dims[0] if dims[0] else 1
    index = np.zeros((count, len(dims)), np.int32)
    rest = chosen.copy()
    for j in range(len(dims) - 1):
        index[:len(chosen), j] = rest // column
        rest = rest % column
    index[:len(chosen), -1] = rest
    mask = np.zeros(count, np.bool_)
    mask[:len(chosen)] = True
    return _out(torch.from_numpy(index), x), _out(torch.from_numpy(mask), x)


def uniform_real(shape, dtype, gen):
    return _out(torch.rand(shape, generator=gen.raw, dtype=_TORCH_DTYPES[dtype]))


def standard_normal(shape, dtype, gen):
    return _out(torch.randn(shape, generator=gen.raw, dtype=_TORCH_DTYPES[dtype]))


def uniform_int(shape, low, high, dtype, gen):
    return _out(torch.randint(low, high, shape, generator=gen.raw, dtype=_TORCH_DTYPES[dtype]))


def standard_gamma(alpha, gen):
    return _out(torch._standard_gamma(_cpu(alpha), generator=gen.raw), alpha)


def poisson(rate, gen):
    return _out(torch.poisson(_cpu(rate), generator=gen.raw), rate)


def bernoulli(p, gen):
    return _out(torch.bernoulli(_cpu(p), generator=gen.raw), p)


def multinomial(probs, num_samples, replacement, gen):
    return _out(torch.multinomial(_cpu(probs).to(torch.float64), num_samples, replacement, generator=gen.raw),
                probs)


def categorical(logits, num_samples, engine):
    """MindSpore's CPU RandomCategorical: per row the running sum of exp(logit - max) (exp in float, the sum in the
    logits' dtype); per sample one uniform_real_distribution<double> draw of `engine` (a MinstdRand0, advanced),
    as float, shared by all rows; the index is the first whose sum reaches that fraction of the row's total."""
    x = _cpu(logits).numpy()
    dtype = x.dtype
    shifted = (x - x.max(axis=-1, keepdims=True)).astype(np.float32)
    cdf = np.cumsum(np.exp(shifted.astype(np.float64)).astype(np.float32).astype(dtype), axis=-1, dtype=dtype)
    d = engine.draws(2 * num_samples).astype(np.float64) - 1.0
    r = float(2 ** 31 - 2)
    u = np.minimum((d[0::2] + d[1::2] * r) / (r * r), np.nextafter(1.0, 0.0))
    rand = u.astype(np.float32).astype(dtype)
    to_find = cdf[:, -1:] * rand[None, :]
    out = np.stack([np.searchsorted(row, t, side="left") for row, t in zip(cdf, to_find)])
    return _out(torch.from_numpy(out.astype(np.int64).reshape(len(cdf), num_samples)), logits)


def randperm(n, dtype, gen):
    return _out(torch.randperm(n, generator=gen.raw).to(_TORCH_DTYPES[dtype]))


def exponential(shape, lambd, dtype, gen):
    return _out(torch.empty(shape, dtype=_TORCH_DTYPES[dtype]).exponential_(lambd, generator=gen.raw))


def cauchy(shape, median, sigma, dtype, gen):
    return _out(torch.empty(shape, dtype=_TORCH_DTYPES[dtype]).cauchy_(median, sigma, generator=gen.raw))


def log_normal(shape, mean, std, dtype, gen):
    return _out(torch.empty(shape, dtype=_TORCH_DTYPES[dtype]).log_normal_(mean, std, generator=gen.raw))


def std_engine(seed, gen):
    """The C++ engine of MindSpore's std-library kernels for an op seed: MindSpore's scrambled seed, or with seed 0
    (MindSpore: std::random_device) a seed drawn from `gen`."""
    if not seed:
        seed = int(torch.randint(1, 2 ** 62, (1,), generator=gen.raw)[0])
        return MinstdRand0(seed)
    return MinstdRand0(mix_seed(seed, 0))


def uniform_candidate_sampler(true_classes, num_sampled, unique, range_max, avoid, engine):
    """MindSpore's CPU UniformCandidateSampler: classes uniform in [0, range_max) from `engine` (a
    `MinstdRand0`, advanced in place); with `unique` draws repeat until num_sampled distinct classes (not among
    the true ones when `avoid`) are found. Both expected counts are the one float32 value of the draw count."""
    banned = set(_cpu(true_classes).reshape(-1).tolist()) if avoid else set()
    if num_sampled + len(banned) > range_max:
        banned = set()
    if unique:
        out, seen, tries = [], set(), 0
        while len(out) < num_sampled:
            k = engine.uniform_int(0, range_max - 1)
            tries += 1
            if k not in seen and k not in banned:
                seen.add(k)
                out.append(k)
    else:
        out, tries = [engine.uniform_int(0, range_max - 1) for _ in range(num_sampled)], num_sampled
    p = np.float32(1.0) / np.float32(range_max)
    with np.errstate(all="ignore"):
        value = p * np.float32(num_sampled) if tries == num_sampled else -np.expm1(np.float32(tries) * np.log1p(-p))
    value = float(np.float32(value))
    sampled = torch.tensor(out, dtype=true_classes.dtype)
    true_count = torch.full(tuple(true_classes.shape), value, dtype=torch.float32)
    sampled_count = torch.full((num_sampled,), value, dtype=torch.float32)
    return _out(sampled, true_classes), _out(true_count, true_classes), _out(sampled_count, true_classes)


def candidate_sampler(true_classes, num_sampled, unique, range_max, log_uniform, avoid, gen):
    """TensorFlow's uniform / log-uniform candidate samplers.

    Returns (sampled, true_expected_count, sampled_expected_count); with `unique` the expected counts
    account for the number of draws it took to find num_sampled distinct classes.
    """
    log_range = math.log(range_max + 1)

    def prob(k):
        if log_uniform:
            return (torch.log(k.double() + 2) - torch.log(k.double() + 1)) / log_range
        return torch.full(k.shape, 1.0 / range_max, dtype=torch.float64)

    def draw(n):
        u = torch.rand(n, generator=gen.raw, dtype=torch.float64)
        if log_uniform:
            return (torch.exp(u * log_range).floor().long() - 1).clamp(0, range_max - 1)
        return (u * range_max).floor().long().clamp(0, range_max - 1)

    banned = set(_cpu(true_classes).reshape(-1).tolist()) if avoid else set()
    if num_sampled + len(banned) > range_max:
        banned = set()      # too few classes left to avoid the true ones: MindSpore drops remove_accidental_hits
    if unique:
        seen, out, tries = set(), [], 0
        while len(out) < num_sampled:
            k = int(draw(1)[0])
            tries += 1
            if k not in seen and k not in banned:
                seen.add(k)
                out.append(k)
        sampled = torch.tensor(out, dtype=torch.int64)

        def expected(k):
            if tries == num_sampled:        # no draw was rejected: the with-replacement count (TensorFlow's rule)
                return num_sampled * prob(k)
            return -torch.expm1(tries * torch.log1p(-prob(k)))
    else:
        sampled = draw(num_sampled)

        def expected(k):
            return num_sampled * prob(k)
    true_cpu = _cpu(true_classes).long()
    return (_out(sampled.to(true_classes.dtype), true_classes), _out(expected(true_cpu).float(), true_classes),
            _out(expected(sampled).float(), true_classes))
