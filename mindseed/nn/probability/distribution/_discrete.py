"""Discrete distributions of mindspore.nn.probability.distribution, written with mindseed ops."""
import math

import numpy as np

from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor as _Tensor
from mindseed.nn.probability.distribution.distribution import Distribution, stored


def _xlogx(p):
    return ops.xlogy(p, p)


class _Discrete(Distribution):
    _continuous = False

    def _cast_sample(self, s):
        return ops.cast(s, self._dtype)


class Bernoulli(_Discrete):
    """Bernoulli(probs): 1 with probability probs. Samples are of `dtype` (int32)."""

    probs = stored("probs")

    _param_names = ("probs",)
    _ranges = {"probs": (0, 1)}

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Bernoulli"):
        super().__init__(seed, dtype, name, {"probs": probs})

    def _log_prob(self, x, p):
        # as MindSpore's: probs clamped to [eps, 1 - eps] for numerical stability (a log of 0 never appears)
        eps = float(np.finfo(mstype.dtype_to_nptype(p.dtype)).eps)
        p = ops.clip_by_value(p, eps, 1 - eps)
        return ops.log(p) * x + ops.log(1.0 - p) * (1.0 - x)

    def _cdf(self, x, p):
        c = ops.where(x < 1.0, 1.0 - p * ops.ones_like(x), ops.ones_like(x * p))
        return ops.where(x < 0.0, ops.zeros_like(c), c)

    def _mean(self, p):
        return p

    def _mode(self, p):
        return ops.cast(p > 0.5, self.param_dtype)

    def _var(self, p):
        return p * (1.0 - p)

    def _entropy(self, p):
        return -(_xlogx(p) + _xlogx(1.0 - p))

    def _kl(self, pb, pa):
        return pa * (ops.log(pa) - ops.log(pb)) + (1.0 - pa) * (ops.log1p(-pa) - ops.log1p(-pb))

    def _sample(self, shape, p):
        return self._cast_sample(self._uniform(shape) < p)


class Geometric(_Discrete):
    """Geometric(probs): the number of failures before the first success, on {0, 1, ...}."""

    probs = stored("probs")

    _param_names = ("probs",)
    _ranges = {"probs": (0, 1)}

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Geometric"):
        super().__init__(seed, dtype, name, {"probs": probs})

    def _log_prob(self, x, p):
        lp = ops.log(p) + ops.floor(x) * ops.log1p(-p)
        return ops.where(x >= 0.0, lp, ops.full_like(lp, -math.inf))

    def _cdf(self, x, p):
        c = -ops.expm1((ops.floor(x) + 1.0) * ops.log1p(-p))
        return ops.where(x >= 0.0, c, ops.zeros_like(c))

    def _mean(self, p):
        return (1.0 - p) / p

    def _mode(self, p):
        return ops.zeros_like(p)

    def _var(self, p):
        return (1.0 - p) / ops.square(p)

    def _entropy(self, p):
        return -(_xlogx(p) + _xlogx(1.0 - p)) / p

    def _kl(self, pb, pa):
        return ops.log(pa) - ops.log(pb) + (1.0 - pa) / pa * (ops.log1p(-pa) - ops.log1p(-pb))

    def _sample(self, shape, p):
        return self._cast_sample(ops.floor(ops.log(self._uniform(shape)) / ops.log1p(-p)))


class Poisson(_Discrete):
    """Poisson(rate). Samples are of `dtype` (float32)."""

    rate = stored("rate")

    _param_names = ("rate",)
    _ranges = {"rate": (0, None)}

    def __init__(self, rate=None, seed=None, dtype=mstype.float32, name="Poisson"):
        super().__init__(seed, dtype, name, {"rate": rate})

    def _log_prob(self, x, r):
        lp = ops.xlogy(x, r) - r - ops.lgamma(x + 1.0)
        ok = ops.logical_and(x >= 0.0, ops.floor(x) == x)
        return ops.where(ok, lp, ops.full_like(lp, -math.inf))

    def _cdf(self, x, r):
        k = ops.floor(x) + 1.0
        shape = ops.broadcast_to(k, ops.shape(k * r)).shape
        c = ops.igammac(ops.broadcast_to(ops.relu(k), shape), ops.broadcast_to(r, shape))
        return ops.where(x >= 0.0, c, ops.zeros_like(c))

    def _mean(self, r):
        return r

    def _mode(self, r):
        return ops.floor(r)

    def _var(self, r):
        return r

    def _sample(self, shape, r):
        return self._cast_sample(ops.random_poisson(_Tensor([], mstype.int32), r, seed=self._seed or None))




class Categorical(_Discrete):
    """Categorical(probs): probs' last axis holds the class probabilities (normalised to sum 1)."""

    probs = stored("probs")

    _param_names = ("probs",)

    def __init__(self, probs=None, seed=None, dtype=mstype.int32, name="Categorical"):
        super().__init__(seed, dtype, name, {"probs": probs})

    def _check_param(self, p, t):
        a = t.asnumpy()
        if a.ndim < 1 or a.shape[-1] < 2 or (a < 0).any() or not (abs(a.sum(-1) - 1) < 1e-5).all():
            raise ValueError(f"For '{self._name}', 'probs' must be non-negative with at least 2 classes on the last "
                             f"axis summing to 1, but got {a.tolist()}.")
        return t

    @property
    def batch_shape(self):
        p = self._values["probs"]
        return () if p is None else p.shape[:-1]

    def _logits(self, p):
        return ops.log(p)

    def _log_prob(self, x, p):
        idx = ops.cast(x, mstype.int32)
        logp = ops.broadcast_to(self._logits(p), idx.shape + p.shape[-1:]) if idx.ndim + 1 > p.ndim \
            else self._logits(p)
        idx = ops.broadcast_to(idx, logp.shape[:-1])
        return ops.squeeze(ops.gather_elements(logp, -1, ops.expand_dims(idx, -1)), -1)

    def _cdf(self, x, p):
        idx = ops.cast(ops.floor(x), mstype.int32)
        cum = ops.cumsum(p, -1)
        cum = ops.broadcast_to(cum, idx.shape + p.shape[-1:]) if idx.ndim + 1 > p.ndim else cum
        idx = ops.broadcast_to(idx, cum.shape[:-1])
        n = p.shape[-1]
        c = ops.squeeze(ops.gather_elements(cum, -1, ops.expand_dims(ops.clamp(idx, 0, n - 1), -1)), -1)
        return ops.where(idx < 0, ops.zeros_like(c), c)

    # NOTE: as MindSpore's: mean and var keep the class axis (batch + (1,)); entropy and kl squeeze every axis of
    # size 1 (a single distribution gives a scalar); mode is of the sample dtype.
    def _mean(self, p):
        k = ops.cast(ops.arange(p.shape[-1]), self.param_dtype)
        return (p * k).sum(-1, keepdims=True)

    def _mode(self, p):
        return ops.cast(ops.argmax(p, -1), self._dtype)

    def _var(self, p):
        k = ops.cast(ops.arange(p.shape[-1]), self.param_dtype)
        return (p * ops.square(k)).sum(-1, keepdims=True) - ops.square(self._mean(p))

    def _entropy(self, p):
        return ops.squeeze(-_xlogx(p).sum(-1, keepdims=True))

    def _kl(self, pb, pa):
        return ops.squeeze((ops.xlogy(pa, pa) - ops.xlogy(pa, pb)).sum(-1, keepdims=True))

    def sample(self, shape=(), probs=None):
        if isinstance(shape, int) and not isinstance(shape, bool):
            shape = (shape,)
        p = self._dist_params((probs,), {})[0]
        n = 1
        for s in shape:
            n *= s
        flat = ops.reshape(p, (-1, p.shape[-1]))
        draws = ops.multinomial(flat, max(n, 1), True, seed=self._seed or None)   # (batch, n)
        draws = ops.transpose(draws, (1, 0))[:n]
        return self._cast_sample(ops.reshape(draws, tuple(shape) + p.shape[:-1]))
