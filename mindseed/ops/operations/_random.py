"""Class API of the random ops (`ops.UniformReal(seed=1)((2, 3))`, `ops.StandardNormal()(shape)`).

An instance created with a non-zero seed owns its stream: calling it again continues the stream, and two
instances with the same seeds give the same numbers (as MindSpore's stateful random primitives do). The
primitives of MindSpore's seeded CPU kernels (`_KernelPrimitive`) keep, as MindSpore does, one engine per output
shape seeded by GetSeed(seed, seed2) alone, so they give MindSpore's numbers.
"""
from mindseed import _backend as B
from mindseed.common import dtype as mstype
from mindseed.common import seed as _seed
from mindseed.ops._prims import core as P
from mindseed.ops._prims import random as R
from mindseed.ops.functional import _random as F
from mindseed.ops.functional._core import cast
from mindseed.ops.operations._base import Primitive

__all__ = [
    "UniformReal", "UniformInt", "StandardNormal", "StandardLaplace", "Gamma", "Poisson", "RandomGamma",
    "RandomPoisson", "Multinomial", "MultinomialWithReplacement", "RandomCategorical", "RandomShuffle", "Randperm",
    "RandpermV2", "RandomChoiceWithMask", "UniformCandidateSampler", "LogUniformCandidateSampler", "Bernoulli",
    "Cauchy", "LogNormalReverse", "NonDeterministicInts",
]


# While vmap runs a function once per slice (`autograd.vmap`), the k-th seeded random primitive the function makes
# in each slice draws from one stream: as MindSpore traces the function once and runs each random op once on the
# whole batch, the slices get successive draws of that op's generator, not the same draw each.
_slice_streams = []     # one scope per active vmap call: {"gens": [generator of the k-th seeded primitive], "k": ...}


class shared_streams:
    """Context of one vmap call; `next_slice()` starts each slice."""

    def __enter__(self):
        _slice_streams.append({"gens": [], "k": 0})
        return self

    def __exit__(self, *exc):
        _slice_streams.pop()

    @staticmethod
    def next_slice():
        _slice_streams[-1]["k"] = 0


def _slice_shared(make):
    """make(), or inside a vmap slice the object the k-th seeded primitive of the first slice made."""
    if not _slice_streams:
        return make()
    scope = _slice_streams[-1]
    k = scope["k"]
    scope["k"] = k + 1
    if k == len(scope["gens"]):
        scope["gens"].append(make())
    return scope["gens"][k]


def _seeded_generator(seed_value):
    return _slice_shared(lambda: B.Generator(seed_value))


class _RandomPrimitive(Primitive):
    """A random primitive with (seed, seed2) attributes and its own generator when either is non-zero."""

    _params = (("seed", 0), ("seed2", 0))

    def __init__(self, *args, **kwargs):
        super().__init__(type(self).__name__)
        values = dict(self._params)
        values.update(zip([p for p, _ in self._params], args))
        values.update(kwargs)
        for k, v in values.items():
            setattr(self, k, v)
            self.attrs[k] = v
        seed, seed2 = max(int(values.get("seed", 0) or 0), 0), int(values.get("seed2", 0) or 0)
        if seed or seed2:
            self._gen = _seeded_generator(seed * 1000003 + seed2 + (_seed.get_seed() or 0))
        else:
            self._gen = None

    @property
    def gen(self):
        return self._gen if self._gen is not None else _seed.op_generator(0, 0)


class _KernelPrimitive(_RandomPrimitive):
    """A primitive of MindSpore's seeded CPU kernels: its engines, one per output shape, are seeded with
    GetSeed(seed, seed2) alone (both 0: a non-deterministic seed; the global seed plays no part), so calling it
    again with a shape continues that shape's stream."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("seed", "seed2"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"For '{self.name}', the '{name}' must be a non-negative int, but got {value!r}.")
        self._engines = _slice_shared(lambda: B.KernelEngines(self.seed, self.seed2))


class UniformReal(_KernelPrimitive):
    """Samples uniform in [0, 1) of `shape` (Float32), MindSpore's numbers for the same seeds."""

    def __call__(self, shape):
        return R.std_uniform_real_p(shape=F._shape("UniformReal", shape), engines=self._engines)


class UniformInt(_KernelPrimitive):
    """Integers uniform in [minval, maxval) of `shape` (Int32), MindSpore's numbers for the same seeds."""

    def __call__(self, shape, minval, maxval):
        low, high = F._bounds("UniformInt", int(minval.item()), int(maxval.item()))
        return F._uniform_int("UniformInt", F._shape("UniformInt", shape), low, high, mstype.int32, None,
                              engines=self._engines)


class StandardNormal(_KernelPrimitive):
    """Samples of N(0, 1) of `shape` (Float32), MindSpore's numbers for the same seeds."""

    def __call__(self, shape):
        return R.std_standard_normal_p(shape=F._shape("StandardNormal", shape), engines=self._engines)


class StandardLaplace(_KernelPrimitive):
    """Samples of the standard Laplace distribution of `shape` (Float32), MindSpore's for the same seeds."""

    def __call__(self, shape):
        return R.std_standard_laplace_p(shape=F._shape("StandardLaplace", shape), engines=self._engines)


def _gamma_sample(gen, shape, alpha):
    a = P.broadcast_to_p(alpha, shape=shape) if alpha.shape != shape else alpha
    return R.standard_gamma_p(P.stop_gradient_p(cast(a, mstype.float32)), gen=gen)


class Gamma(_RandomPrimitive):
    """Samples of Gamma(alpha, rate beta), shape broadcast with the parameters'."""

    def __call__(self, shape, alpha, beta):
        out = F._broadcast_shape("Gamma", F._shape("Gamma", shape), alpha.shape, beta.shape)
        return P.div_p(_gamma_sample(self.gen, out, alpha), beta)


class RandomGamma(_RandomPrimitive):
    """Samples of Gamma(alpha, 1) of shape `shape + alpha.shape`."""

    def __call__(self, shape, alpha):
        return cast(_gamma_sample(self.gen, F._shape("RandomGamma", shape) + alpha.shape, alpha), alpha.dtype)


class Poisson(_RandomPrimitive):
    """Samples of Poisson(mean), shape broadcast with mean's."""

    def __call__(self, shape, mean):
        out = F._broadcast_shape("Poisson", F._shape("Poisson", shape), mean.shape)
        rate = cast(P.broadcast_to_p(mean, shape=out) if mean.shape != out else mean, mstype.float32)
        return R.poisson_p(rate, gen=self.gen)


class RandomPoisson(_RandomPrimitive):
    """Samples of Poisson(rate) of shape `shape + rate.shape`."""

    _params = (("seed", 0), ("seed2", 0), ("dtype", mstype.int64))

    def __call__(self, shape, rate):
        shape = F._shape("RandomPoisson", shape) + rate.shape
        r = cast(P.broadcast_to_p(rate, shape=shape) if rate.shape != shape else rate, mstype.float32)
        return cast(R.poisson_p(r, gen=self.gen), self.dtype)


class Multinomial(_KernelPrimitive):
    """num_samples category indices per row of probabilities x (with replacement), MindSpore's draws for the same
    seeds."""

    _params = (("seed", 0), ("seed2", 0), ("dtype", mstype.int32))

    def __call__(self, x, num_samples):
        p = F._probs("Multinomial", x)
        out = R.std_multinomial_p(P.stop_gradient_p(p), num_samples=int(num_samples), engines=self._engines)
        return cast(out, self.dtype)


class MultinomialWithReplacement(_RandomPrimitive):
    """multinomial_with_replacement with the seed and offset given at call time."""

    _params = (("numsamples", 1), ("replacement", False))

    def __call__(self, x, seed, offset):
        return F.multinomial_with_replacement(x, seed, offset, self.numsamples, self.replacement)


class RandomCategorical(_RandomPrimitive):
    """num_sample class indices per row of logits."""

    _params = (("dtype", mstype.int64),)

    def __call__(self, logits, num_sample, seed=0):
        return F.random_categorical(logits, num_sample, seed, self.dtype)


class RandomShuffle(_KernelPrimitive):
    """x with its first dimension randomly permuted, MindSpore's permutation for the same seeds."""

    def __call__(self, x):
        return R.std_random_shuffle_p(x, engines=self._engines)


class Randperm(_RandomPrimitive):
    """A random permutation of 0..n-1 padded with `pad` to max_length."""

    _params = (("max_length", 1), ("pad", -1), ("dtype", mstype.int32))

    def __call__(self, n):
        k = int(n.asnumpy().reshape(-1)[0]) if hasattr(n, "asnumpy") else int(n)
        if not 0 <= k <= self.max_length:
            raise ValueError(f"For 'Randperm', 'n' must be in [0, max_length={self.max_length}], but got {k}.")
        perm = R.randperm_p(n=k, dtype=self.dtype.name, gen=self.gen)
        if k == self.max_length:
            return perm
        pad = P.fill_p(shape=(self.max_length - k,), value=self.pad, dtype=self.dtype.name)
        return P.concat_p(perm, pad, axis=0)


class RandpermV2(_RandomPrimitive):
    """A random permutation of 0..n-1."""

    _params = (("seed", 0), ("offset", 0), ("dtype", mstype.int64))

    def __call__(self, n):
        return F.randperm(n, self.seed, self.offset, self.dtype)


class RandomChoiceWithMask(_KernelPrimitive):
    """`count` random positions of the True elements of x and a validity mask, MindSpore's for the same seeds."""

    _params = (("count", 256), ("seed", 0), ("seed2", 0))

    def __call__(self, x):
        F._check_choice(x, self.count)
        return F._choice_with_mask(x, self.count, self._engines)


class UniformCandidateSampler(_RandomPrimitive):
    """TensorFlow's uniform candidate sampler."""

    _params = (("num_true", 1), ("num_sampled", 1), ("unique", True), ("range_max", 1), ("seed", 0),
               ("remove_accidental_hits", False))

    def __call__(self, true_classes):
        if getattr(self, "_engine", None) is None:     # MindSpore's kernel seeds its engine once, at its first run
            self._engine = R.std_engine(max(int(self.seed or 0), 0), self.gen)
        return F._uniform_sampler(true_classes, self.num_true, self.num_sampled, self.unique, self.range_max,
                                  bool(self.remove_accidental_hits) and bool(self.unique), self._engine)


class LogUniformCandidateSampler(_RandomPrimitive):
    """TensorFlow's log-uniform candidate sampler."""

    _params = (("num_true", 1), ("num_sampled", 5), ("unique", True), ("range_max", 5), ("seed", 0))

    def __call__(self, true_classes):
        return F._sampler("LogUniformCandidateSampler", true_classes, self.num_true, self.num_sampled, self.unique,
                          self.range_max, 0, True, False, gen=self.gen)


class Bernoulli(_RandomPrimitive):
    """0/1 samples of x's shape and dtype, 1 with probability p."""

    _params = (("seed", -1), ("offset", 0))

    def __call__(self, x, p):
        # MindSpore's kernel reads the seed only (its offset stays 0), one stream per input shapes
        streams = self.__dict__.setdefault("_streams", {})
        return F._bernoulli(x, p, lambda key: streams.setdefault(key, B.PhiloxLeftover(int(self.seed))))


class Cauchy(_RandomPrimitive):
    """Samples of the Cauchy distribution of shape `size`."""

    _params = (("size", ()), ("median", 0.0), ("sigma", 1.0))

    def __call__(self):
        return R.cauchy_p(shape=tuple(self.size), median=float(self.median), sigma=float(self.sigma),
                          dtype="Float32", gen=self.gen)


class LogNormalReverse(_RandomPrimitive):
    """Samples of the log-normal distribution of input's shape and dtype."""

    _params = (("mean", 1.0), ("std", 2.0))

    def __call__(self, input):
        return R.log_normal_p(shape=input.shape, mean=float(self.mean), std=float(self.std),
                              dtype=input.dtype.name, gen=self.gen)


class NonDeterministicInts(_RandomPrimitive):
    """Random integers over the whole range of `dtype` of `shape`."""

    _params = (("dtype", mstype.int64),)

    def __call__(self, shape):
        info = {mstype.int32: 2 ** 31, mstype.int64: 2 ** 62}.get(self.dtype, 2 ** 31)
        return R.uniform_int_p(shape=F._shape("NonDeterministicInts", shape), low=-info, high=info,
                               dtype=self.dtype.name, gen=B.Generator())
