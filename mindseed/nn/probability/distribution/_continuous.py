"""Continuous distributions of mindspore.nn.probability.distribution, written with mindseed ops."""
import math

import numpy as np

from mindseed import ops
from mindseed.common import dtype as mstype
from mindseed.nn.probability.distribution.distribution import Distribution, stored

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_EULER = 0.5772156649015329


class _LocScale(Distribution):
    """A distribution with a location and a positive scale parameter."""

    def __init__(self, loc, scale, seed, dtype, name, names=("loc", "scale")):
        self._param_names = names
        self._ranges = {names[1]: (0, None)}
        super().__init__(seed, dtype, name, {names[0]: loc, names[1]: scale})

    def _z(self, x, loc, scale):
        return (x - loc) / scale


class Normal(_LocScale):
    """Normal(mean, sd)."""

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="Normal"):
        super().__init__(mean, sd, seed, dtype, name, ("mean", "sd"))

    def _log_prob(self, x, m, s):
        return -0.5 * ops.square(self._z(x, m, s)) - ops.log(s) - _LOG_SQRT_2PI

    def _cdf(self, x, m, s):
        return 0.5 * ops.erfc(-self._z(x, m, s) / math.sqrt(2))

    def _survival(self, x, m, s):
        return 0.5 * ops.erfc(self._z(x, m, s) / math.sqrt(2))

    def _mean(self, m, s):
        return m * ops.ones_like(s)

    _mode = _mean

    def _sd(self, m, s):
        return s * ops.ones_like(m)

    def _var(self, m, s):
        return ops.square(self._sd(m, s))

    def _entropy(self, m, s):
        return ops.log(s * ops.ones_like(m)) + 0.5 + _LOG_SQRT_2PI

    def _kl(self, mb, sb, ma, sa):
        r = sa / sb
        return 0.5 * ops.square((ma - mb) / sb) + 0.5 * (ops.square(r) - 1.0) - ops.log(r)

    def _sample(self, shape, m, s):
        return m + s * self._normal(shape)


class LogNormal(_LocScale):
    """LogNormal(loc, scale): exp of Normal(loc, scale)."""

    loc = stored("loc")
    scale = stored("scale")

    def __init__(self, loc=None, scale=None, seed=0, dtype=mstype.float32, name="LogNormal"):
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, x, m, s):
        lx = ops.log(x)
        return -0.5 * ops.square((lx - m) / s) - ops.log(s) - _LOG_SQRT_2PI - lx

    def _cdf(self, x, m, s):
        return 0.5 * ops.erfc(-(ops.log(x) - m) / (s * math.sqrt(2)))

    def _mean(self, m, s):
        return ops.exp(m + 0.5 * ops.square(s))

    def _mode(self, m, s):
        return ops.exp(m - ops.square(s))

    def _var(self, m, s):
        s2 = ops.square(s)
        return ops.expm1(s2) * ops.exp(2.0 * m + s2)

    def _entropy(self, m, s):
        return m + ops.log(s) + 0.5 + _LOG_SQRT_2PI

    def _kl(self, mb, sb, ma, sa):
        r = sa / sb
        return 0.5 * ops.square((ma - mb) / sb) + 0.5 * (ops.square(r) - 1.0) - ops.log(r)

    def _sample(self, shape, m, s):
        return ops.exp(m + s * self._normal(shape))


class Logistic(_LocScale):
    """Logistic(loc, scale)."""

    loc = stored("loc")
    scale = stored("scale")

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Logistic"):
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, x, m, s):
        z = self._z(x, m, s)
        return -z - 2.0 * ops.softplus(-z) - ops.log(s)

    def _cdf(self, x, m, s):
        return ops.sigmoid(self._z(x, m, s))

    def _log_cdf(self, x, m, s):
        return -ops.softplus(-self._z(x, m, s))

    def _log_survival(self, x, m, s):
        return -ops.softplus(self._z(x, m, s))

    def _mean(self, m, s):
        return m * ops.ones_like(s)

    _mode = _mean

    def _var(self, m, s):
        return ops.square(s * ops.ones_like(m)) * (math.pi ** 2 / 3)

    def _entropy(self, m, s):
        return ops.log(s * ops.ones_like(m)) + 2.0

    def _sample(self, shape, m, s):
        u = self._uniform(shape)
        return m + s * (ops.log(u) - ops.log1p(-u))


class Gumbel(_LocScale):
    """Gumbel(loc, scale) (maximum)."""

    loc = stored("loc")
    scale = stored("scale")

    def __init__(self, loc, scale, seed=0, dtype=mstype.float32, name="Gumbel"):
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, x, m, s):
        z = self._z(x, m, s)
        return -(z + ops.exp(-z)) - ops.log(s)

    def _cdf(self, x, m, s):
        return ops.exp(-ops.exp(-self._z(x, m, s)))

    def _log_cdf(self, x, m, s):
        return -ops.exp(-self._z(x, m, s))

    def _mean(self, m, s):
        return m + s * _EULER

    def _mode(self, m, s):
        return m * ops.ones_like(s)

    def _var(self, m, s):
        return ops.square(s * ops.ones_like(m)) * (math.pi ** 2 / 6)

    def _entropy(self, m, s):
        return ops.log(s * ops.ones_like(m)) + _EULER + 1.0

    def _kl(self, mb, sb, ma, sa):
        return (ops.log(sb) - ops.log(sa) + _EULER * (sa / sb - 1.0)
                + ops.expm1((mb - ma) / sb + ops.lgamma(sa / sb + 1.0)) + (ma - mb) / sb)

    def _sample(self, shape, m, s):
        return m - s * ops.log(-ops.log(self._uniform(shape)))


class Cauchy(_LocScale):
    """Cauchy(loc, scale): mean, variance and mode-free moments are undefined (mean/var raise)."""

    loc = stored("loc")
    scale = stored("scale")

    def __init__(self, loc=None, scale=None, seed=None, dtype=mstype.float32, name="Cauchy"):
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, x, m, s):
        return -math.log(math.pi) - ops.log(s) - ops.log1p(ops.square(self._z(x, m, s)))

    def _cdf(self, x, m, s):
        return ops.atan(self._z(x, m, s)) / math.pi + 0.5

    def _mode(self, m, s):
        return m * ops.ones_like(s)

    def _entropy(self, m, s):
        return ops.log(4 * math.pi * s * ops.ones_like(m))

    def _kl(self, mb, sb, ma, sa):
        return ops.log(ops.square(sa + sb) + ops.square(ma - mb)) - ops.log(4.0 * sa * sb)

    def _sample(self, shape, m, s):
        return m + s * ops.tan(math.pi * (self._uniform(shape) - 0.5))


class Laplace(_LocScale):
    """Laplace(mean, sd) where sd is the diversity b."""

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="Laplace"):
        super().__init__(mean, sd, seed, dtype, name, ("mean", "sd"))

    def _log_prob(self, x, m, s):
        return -ops.abs(self._z(x, m, s)) - ops.log(2.0 * s)

    def _cdf(self, x, m, s):
        z = self._z(x, m, s)
        return 0.5 - 0.5 * ops.sign(z) * ops.expm1(-ops.abs(z))

    def _mean(self, m, s):
        return m * ops.ones_like(s)

    _mode = _mean

    def _var(self, m, s):
        return 2.0 * ops.square(s * ops.ones_like(m))

    def _entropy(self, m, s):
        return ops.log(2.0 * s * ops.ones_like(m)) + 1.0

    def _kl(self, mb, sb, ma, sa):
        d = ops.abs(ma - mb)
        return ops.log(sb / sa) + d / sb + sa / sb * ops.exp(-d / sa) - 1.0

    def _sample(self, shape, m, s):
        u = self._uniform(shape) - 0.5
        return m - s * ops.sign(u) * ops.log1p(-2.0 * ops.abs(u))


class HalfNormal(_LocScale):
    """HalfNormal(mean, sd): |Normal(0, sd)| shifted by mean, supported on [mean, inf)."""

    def __init__(self, mean=None, sd=None, seed=None, dtype=mstype.float32, name="HalfNormal"):
        super().__init__(mean, sd, seed, dtype, name, ("mean", "sd"))

    def _log_prob(self, x, m, s):
        z = self._z(x, m, s)
        lp = -0.5 * ops.square(z) - ops.log(s) + 0.5 * math.log(2 / math.pi)
        return ops.where(z >= 0, lp, ops.full_like(lp, -math.inf))

    def _cdf(self, x, m, s):
        return ops.erf(ops.relu(self._z(x, m, s)) / math.sqrt(2))

    def _mean(self, m, s):
        return m + s * math.sqrt(2 / math.pi)

    def _mode(self, m, s):
        return m * ops.ones_like(s)

    def _var(self, m, s):
        return ops.square(s * ops.ones_like(m)) * (1 - 2 / math.pi)

    def _entropy(self, m, s):
        return ops.log(s * ops.ones_like(m)) + 0.5 * math.log(math.pi / 2) + 0.5

    def _sample(self, shape, m, s):
        return m + s * ops.abs(self._normal(shape))


class Uniform(Distribution):
    """Uniform(low, high)."""

    low = stored("low")
    high = stored("high")

    _param_names = ("low", "high")

    def __init__(self, low=None, high=None, seed=None, dtype=mstype.float32, name="Uniform"):
        super().__init__(seed, dtype, name, {"low": low, "high": high})
        lo, hi = self._values["low"], self._values["high"]
        if lo is not None and hi is not None:
            self._check_order(lo, hi)

    def _check_order(self, lo, hi):
        if not bool((lo < hi).all()):
            raise ValueError(f"For '{self._name}', 'low' must be less than 'high', but got low "
                             f"{lo.asnumpy().tolist()} and high {hi.asnumpy().tolist()}.")

    def _prob(self, x, lo, hi):
        inside = ops.logical_and(x >= lo, x <= hi)
        p = 1.0 / (hi - lo) * ops.ones_like(x)
        return ops.where(inside, p, ops.zeros_like(p))

    def _cdf(self, x, lo, hi):
        return ops.clamp((x - lo) / (hi - lo), 0.0, 1.0)

    def _mean(self, lo, hi):
        return 0.5 * (lo + hi)

    def _var(self, lo, hi):
        return ops.square(hi - lo) / 12.0

    def _entropy(self, lo, hi):
        return ops.log(hi - lo)

    def _kl(self, lob, hib, loa, hia):
        inside = ops.logical_and(lob <= loa, hia <= hib)
        kl = ops.log((hib - lob) / (hia - loa))
        return ops.where(inside, kl, ops.full_like(kl, math.inf))

    def _sample(self, shape, lo, hi):
        return lo + (hi - lo) * self._uniform(shape)


class Exponential(Distribution):
    """Exponential(rate)."""

    rate = stored("rate")

    _param_names = ("rate",)
    _ranges = {"rate": (0, None)}

    def __init__(self, rate=None, seed=None, dtype=mstype.float32, name="Exponential"):
        super().__init__(seed, dtype, name, {"rate": rate})

    def _log_prob(self, x, r):
        lp = ops.log(r) - r * x
        return ops.where(x >= 0, lp, ops.full_like(lp, -math.inf))

    def _cdf(self, x, r):
        return -ops.expm1(-r * ops.relu(x))

    def _log_survival(self, x, r):
        return -r * ops.relu(x)

    def _survival(self, x, r):
        return ops.exp(self._log_survival(x, r))

    def _mean(self, r):
        return 1.0 / r

    def _mode(self, r):
        return ops.zeros_like(r)

    def _var(self, r):
        return 1.0 / ops.square(r)

    def _entropy(self, r):
        return 1.0 - ops.log(r)

    def _kl(self, rb, ra):
        return ops.log(ra) - ops.log(rb) + rb / ra - 1.0

    def _sample(self, shape, r):
        return -ops.log(self._uniform(shape)) / r


class Gamma(Distribution):
    """Gamma(concentration, rate)."""

    concentration = stored("concentration")
    rate = stored("rate")

    _param_names = ("concentration", "rate")
    _ranges = {"concentration": (0, None), "rate": (0, None)}

    def __init__(self, concentration=None, rate=None, seed=None, dtype=mstype.float32, name="Gamma"):
        # MindSpore's Gamma takes its parameters as lists, arrays or Tensors, not Python numbers
        for arg, v in (("concentration", concentration), ("rate", rate)):
            if isinstance(v, (int, float)):
                raise TypeError(f"For 'Gamma', input {arg} can't be scalar, but got {v!r}.")
        super().__init__(seed, dtype, name, {"concentration": concentration, "rate": rate})

    def _log_prob(self, x, a, b):
        return a * ops.log(b) + (a - 1.0) * ops.log(x) - b * x - ops.lgamma(a)

    def _cdf(self, x, a, b):
        x = b * x
        shape = tuple(np.broadcast_shapes(x.shape, a.shape))
        return ops.igamma(ops.broadcast_to(a, shape), ops.broadcast_to(x, shape))

    def _mean(self, a, b):
        return a / b

    def _mode(self, a, b):
        m = (a - 1.0) / b
        return ops.where(a >= 1.0, m, ops.full_like(m, math.nan))

    def _var(self, a, b):
        return a / ops.square(b)

    def _entropy(self, a, b):
        return a - ops.log(b) + ops.lgamma(a) + (1.0 - a) * ops.digamma(a)

    def _kl(self, ab, bb, aa, ba):
        return ((aa - ab) * ops.digamma(aa) - ops.lgamma(aa) + ops.lgamma(ab)
                + ab * (ops.log(ba) - ops.log(bb)) + aa * (bb - ba) / ba)

    def _sample(self, shape, a, b):
        return ops.random_gamma((), a, seed=self._seed or None) / b


class Beta(Distribution):
    """Beta(concentration1, concentration0)."""

    concentration0 = stored("concentration0")
    concentration1 = stored("concentration1")

    _param_names = ("concentration1", "concentration0")
    _ranges = {"concentration1": (0, None), "concentration0": (0, None)}

    def __init__(self, concentration1=None, concentration0=None, seed=None, dtype=mstype.float32, name="Beta"):
        # MindSpore's Beta takes its parameters as lists, arrays, Tensors or ints, not Python floats
        for arg, v in (("concentration1", concentration1), ("concentration0", concentration0)):
            if isinstance(v, float):
                raise TypeError(f"For 'Beta', input {arg} can't be scalar, but got {v!r}.")
        super().__init__(seed, dtype, name, {"concentration1": concentration1, "concentration0": concentration0})

    @staticmethod
    def _lbeta(a, b):
        return ops.lgamma(a) + ops.lgamma(b) - ops.lgamma(a + b)

    def _log_prob(self, x, a, b):
        return (a - 1.0) * ops.log(x) + (b - 1.0) * ops.log1p(-x) - self._lbeta(a, b)

    def _mean(self, a, b):
        return a / (a + b)

    def _mode(self, a, b):
        m = (a - 1.0) / (a + b - 2.0)
        return ops.where(ops.logical_and(a > 1.0, b > 1.0), m, ops.full_like(m, math.nan))

    def _var(self, a, b):
        t = a + b
        return a * b / (ops.square(t) * (t + 1.0))

    def _entropy(self, a, b):
        t = a + b
        return (self._lbeta(a, b) - (a - 1.0) * ops.digamma(a) - (b - 1.0) * ops.digamma(b)
                + (t - 2.0) * ops.digamma(t))

    def _kl(self, a1b, a0b, a1a, a0a):
        ta = a1a + a0a
        return (self._lbeta(a1b, a0b) - self._lbeta(a1a, a0a) + (a1a - a1b) * ops.digamma(a1a)
                + (a0a - a0b) * ops.digamma(a0a) + (a1b - a1a + a0b - a0a) * ops.digamma(ta))

    def _sample(self, shape, a, b):
        ga = ops.random_gamma((), a, seed=self._seed or None)
        gb = ops.random_gamma((), b, seed=self._seed or None)
        return ga / (ga + gb)


class StudentT(Distribution):
    """StudentT(df, mean, sd)."""

    _param_names = ("df", "mean", "sd")
    _ranges = {"df": (0, None), "sd": (0, None)}

    def __init__(self, df=None, mean=None, sd=None, seed=None, dtype=mstype.float32, name="StudentT"):
        super().__init__(seed, dtype, name, {"df": df, "mean": mean, "sd": sd})

    def _log_prob(self, x, df, m, s):
        z = (x - m) / s
        return (ops.lgamma(0.5 * (df + 1.0)) - ops.lgamma(0.5 * df) - 0.5 * ops.log(df * math.pi) - ops.log(s)
                - 0.5 * (df + 1.0) * ops.log1p(ops.square(z) / df))

    def _mean(self, df, m, s):
        mm = m * ops.ones_like(df) * ops.ones_like(s)
        return ops.where(df > 1.0, mm, ops.full_like(mm, math.nan))

    def _mode(self, df, m, s):
        return m * ops.ones_like(df) * ops.ones_like(s)

    def _var(self, df, m, s):
        v = ops.square(s) * df / (df - 2.0) * ops.ones_like(m)
        return ops.where(df > 2.0, v, ops.where(df > 1.0, ops.full_like(v, math.inf), ops.full_like(v, math.nan)))

    def _entropy(self, df, m, s):
        h = 0.5 * (df + 1.0)
        return (h * (ops.digamma(h) - ops.digamma(0.5 * df)) + 0.5 * ops.log(df) + ops.lgamma(0.5 * df)
                + 0.5 * math.log(math.pi) - ops.lgamma(h) + ops.log(s) + ops.zeros_like(m))

    def _sample(self, shape, df, m, s):
        chi2 = 2.0 * ops.random_gamma((), 0.5 * df, seed=self._seed or None)
        return m + s * self._normal(shape) * ops.rsqrt(chi2 / df)
