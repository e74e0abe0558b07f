"""Distributions subclassed MindSpore's way (mindspore-rl's SAC, user code): rules overridden with MindSpore's
protocol — per-call arguments as given, None for a stored parameter — and its helpers (`checktuple`,
`_check_param_type`, `_check_value`, the operator attributes), calling `super()._log_prob(value, mean=, sd=)`."""
import math

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.nn.probability import bijector as msb
from mindseed.nn.probability import distribution as msd
from mindseed.ops import composite as C


class DiagNormal(msd.Normal):
    """A diagonal multivariate normal: Normal's log-density summed over the last axis."""

    def __init__(self, loc=None, scale=None, seed=None, dtype=ms.float32, name="DiagNormal"):
        super().__init__(loc, scale, seed, dtype, name)

    def _log_prob(self, value, mean=None, sd=None):
        return super()._log_prob(value, mean=mean, sd=sd).sum(axis=-1)

    def _sample(self, shape=(), mean=None, sd=None):
        shape = self.checktuple(shape, "shape")
        mean, sd = self._check_param_type(mean, sd)
        origin = shape + self.shape(mean + sd)
        value = self.cast(C.normal(origin or (1,), mean, sd, self.seed), self.dtype)
        return self.squeeze(value) if origin == () else value

    def _kl_loss(self, dist, mean_b, sd_b, mean=None, sd=None):
        mean, sd = self._check_param_type(mean, sd)
        r = sd / sd_b
        return (0.5 * ops.square((mean - mean_b) / sd_b) + 0.5 * (ops.square(r) - 1.0) - ops.log(r)).sum(-1)


class Tanh(msb.Bijector):
    def __init__(self):
        super().__init__(is_constant_jacobian=False, is_injective=True, name="Tanh", dtype=None, param={})

    def _forward(self, x):
        return ops.tanh(x)


class TanhDiagNormal(msd.TransformedDistribution):
    def __init__(self, seed=0):
        super().__init__(distribution=DiagNormal(seed=seed), bijector=Tanh(), seed=seed, name="TanhDiagNormal")

    def _sample(self, *args, **kwargs):
        return self.bijector.forward(self.distribution.sample(*args, **kwargs))


def _normal_log_prob(x, m, s):
    return -0.5 * ((x - m) / s) ** 2 - np.log(s) - 0.5 * math.log(2 * math.pi)


M = np.array([[0.3, -0.2], [0.1, 0.0]], np.float32)
S = np.array([[0.5, 1.0], [0.2, 2.0]], np.float32)
X = np.array([[0.1, 0.4], [-0.3, 0.9]], np.float32)


def test_overridden_log_prob_resolves_the_parameters_through_super():
    d = DiagNormal()
    got = d.log_prob(ms.Tensor(X), ms.Tensor(M), ms.Tensor(S)).asnumpy()
    np.testing.assert_allclose(got, _normal_log_prob(X, M, S).sum(-1), rtol=1e-6)
    np.testing.assert_allclose(got, [-1.40473, -3.0228367], rtol=1e-5)        # MindSpore 2.10's
    stored = DiagNormal(M, S)                              # None: the parameters given at construction
    np.testing.assert_allclose(stored.log_prob(ms.Tensor(X)).asnumpy(), got, rtol=1e-6)
    assert stored.parameter_names == ["mean", "sd"]
    np.testing.assert_array_equal(stored.default_parameters[1].asnumpy(), S)
    # mindseed's own rules keep working on the subclass
    np.testing.assert_allclose(stored.mean().asnumpy(), M)
    np.testing.assert_allclose(stored.prob(ms.Tensor(X)).asnumpy(), np.exp(got), rtol=1e-5)


def test_overridden_sample_gets_the_sample_shape():
    ms.set_seed(0)
    d = DiagNormal()
    m, s = ms.Tensor(np.array([0.3], np.float32)), ms.Tensor(np.array([0.5], np.float32))
    assert d.sample((), m, s).shape == (1,)
    assert d.sample((4,), m, s).shape == (4, 1)
    draws = d.sample((4000,), ms.Tensor(M), ms.Tensor(S)).asnumpy()
    assert draws.shape == (4000, 2, 2)
    np.testing.assert_allclose(draws.mean(0), M, atol=0.1)
    np.testing.assert_allclose(draws.std(0), S, rtol=0.06)
    with pytest.raises(TypeError, match="input type must be a tuple"):
        d.sample([3], m, s)
    with pytest.raises(TypeError, match="must be a Tensor"):
        d._check_param_type(0.5, s)


def test_overridden_kl_loss_and_a_transformed_subclass():
    d = DiagNormal()
    kl = d.kl_loss("DiagNormal", ms.Tensor(M), ms.Tensor(S * 2), ms.Tensor(M * 0), ms.Tensor(S)).asnumpy()
    np.testing.assert_allclose(kl, [0.6862944, 0.66754436], rtol=1e-5)          # MindSpore 2.10's
    ms.set_seed(1)
    t = TanhDiagNormal()
    y = t.sample((3,), ms.Tensor(M), ms.Tensor(S)).asnumpy()
    assert y.shape == (3, 2, 2) and np.all(np.abs(y) < 1)
    # the log-density of the base, through the Normal's own rule, then summed by the subclass
    x = t.distribution.sample((), ms.Tensor(M), ms.Tensor(S))
    lp = t.distribution.log_prob(x, ms.Tensor(M), ms.Tensor(S)).asnumpy()
    np.testing.assert_allclose(lp, _normal_log_prob(x.asnumpy(), M, S).sum(-1), rtol=1e-5)
