"""Kernels of the random family. Each takes the op's `Generator` (mindseed._backend.Generator) as the
attribute `gen`; numbers are drawn on the CPU generator and moved to the current device, so a seed gives
the same numbers on every device."""
import math

import numpy as np
import torch

from mindseed._backend._core import _TORCH_DTYPES
from mindseed._backend.kernels.std_engine import MinstdRand0, Mt19937, minstd_normal, mix_seed


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


def uniform_real(shape, dtype, gen):
    return _out(torch.rand(shape, generator=gen.raw, dtype=_TORCH_DTYPES[dtype]))


def standard_normal(shape, dtype, gen):
    return _out(torch.randn(shape, generator=gen.raw, dtype=_TORCH_DTYPES[dtype]))


def uniform_int(shape, low, high, dtype, gen):
    return _out(torch.randint(low, high, shape, generator=gen.raw, dtype=_TORCH_DTYPES[dtype]))


def standard_laplace(shape, dtype, gen):
    u = torch.rand(shape, generator=gen.raw, dtype=_TORCH_DTYPES[dtype]) - 0.5
    # inverse CDF; clamp keeps log1p finite when u hits -0.5 exactly
    return _out(-torch.sign(u) * torch.log1p(-2 * u.abs()).clamp_min(torch.finfo(u.dtype).min))


def standard_gamma(alpha, gen):
    return _out(torch._standard_gamma(_cpu(alpha), generator=gen.raw), alpha)


def poisson(rate, gen):
    return _out(torch.poisson(_cpu(rate), generator=gen.raw), rate)


def bernoulli(p, gen):
    return _out(torch.bernoulli(_cpu(p), generator=gen.raw), p)


def multinomial(probs, num_samples, replacement, gen):
    return _out(torch.multinomial(_cpu(probs).to(torch.float64), num_samples, replacement, generator=gen.raw),
                probs)


def categorical(logits, num_samples, gen):
    probs = torch.softmax(_cpu(logits).to(torch.float64), -1)
    return _out(torch.multinomial(probs, num_samples, True, generator=gen.raw), logits)


def randperm(n, dtype, gen):
    return _out(torch.randperm(n, generator=gen.raw).to(_TORCH_DTYPES[dtype]))


def exponential(shape, lambd, dtype, gen):
    return _out(torch.empty(shape, dtype=_TORCH_DTYPES[dtype]).exponential_(lambd, generator=gen.raw))


def cauchy(shape, median, sigma, dtype, gen):
    return _out(torch.empty(shape, dtype=_TORCH_DTYPES[dtype]).cauchy_(median, sigma, generator=gen.raw))


def log_normal(shape, mean, std, dtype, gen):
    return _out(torch.empty(shape, dtype=_TORCH_DTYPES[dtype]).log_normal_(mean, std, generator=gen.raw))


def choice_with_mask(x, count, gen):
    """Up to `count` random positions of the True elements of x (int32, zero-padded) and a validity mask."""
    pos = torch.nonzero(_cpu(x))
    pos = pos[torch.randperm(pos.shape[0], generator=gen.raw)][:count]
    k = pos.shape[0]
    index = torch.zeros((count, x.dim()), dtype=torch.int32)
    index[:k] = pos.to(torch.int32)
    mask = torch.zeros(count, dtype=torch.bool)
    mask[:k] = True
    return _out(index, x), _out(mask, x)


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
