"""nn.probability: distributions and bijectors against closed forms and scipy.stats."""
import math
import subprocess
import sys

import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor
import mindseed.nn.probability.bijector as msb
import mindseed.nn.probability.distribution as msd

st = pytest.importorskip("scipy.stats")
X = np.array([0.3, 0.9, 1.7, 2.5], np.float32)

# (distribution, construction args, scipy frozen distribution, points, has cdf)
CONT = [
    (msd.Normal, (0.5, 2.0), st.norm(0.5, 2.0), X - 1, True),
    (msd.Normal, ([0.0, 1.0, -1.0, 2.0], [1.0, 0.5, 3.0, 1.5]),
     st.norm([0.0, 1.0, -1.0, 2.0], [1.0, 0.5, 3.0, 1.5]), X, True),
    (msd.LogNormal, (0.2, 0.7), st.lognorm(0.7, scale=math.exp(0.2)), X, True),
    (msd.Logistic, (1.0, 0.5), st.logistic(1.0, 0.5), X, True),
    (msd.Gumbel, (1.0, 2.0), st.gumbel_r(1.0, 2.0), X, True),
    (msd.Laplace, (1.0, 0.7), st.laplace(1.0, 0.7), X, True),
    (msd.HalfNormal, (0.1, 1.3), st.halfnorm(0.1, 1.3), X, True),
    (msd.Uniform, (0.0, 3.0), st.uniform(0.0, 3.0), X, True),
    (msd.Exponential, (1.5,), st.expon(scale=1 / 1.5), X, True),
    (msd.Exponential, ([0.5, 2.0, 1.0, 3.0],), st.expon(scale=1 / np.array([0.5, 2.0, 1.0, 3.0])), X, True),
    (msd.Gamma, (np.array(2.5), np.array(1.5)), st.gamma(2.5, scale=1 / 1.5), X, True),
    (msd.Beta, (np.array(2.0), np.array(3.0)), st.beta(2.0, 3.0), X / 3, False),
    (msd.StudentT, (5.0, 0.5, 1.5), st.t(5.0, 0.5, 1.5), X, False),
]


@pytest.mark.parametrize("D,args,ref,x,has_cdf", CONT, ids=lambda v: getattr(v, "__name__", None))
def test_continuous_against_scipy(D, args, ref, x, has_cdf):
    d = D(*args)
    np.testing.assert_allclose(d.log_prob(Tensor(x)).asnumpy(), ref.logpdf(x), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(d.prob(Tensor(x)).asnumpy(), ref.pdf(x), rtol=1e-4, atol=1e-6)
    if has_cdf:
        np.testing.assert_allclose(d.cdf(Tensor(x)).asnumpy(), ref.cdf(x), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(d.survival_function(Tensor(x)).asnumpy(), ref.sf(x), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.broadcast_to(d.mean().asnumpy(), np.shape(ref.mean())), ref.mean(), rtol=1e-4)
    np.testing.assert_allclose(np.broadcast_to(d.var().asnumpy(), np.shape(ref.var())), ref.var(), rtol=1e-4)
    np.testing.assert_allclose(np.broadcast_to(d.sd().asnumpy(), np.shape(ref.std())), ref.std(), rtol=1e-4)
    np.testing.assert_allclose(np.broadcast_to(d.entropy().asnumpy(), np.shape(ref.entropy())), ref.entropy(),
                               rtol=1e-4, atol=1e-5)


def test_cauchy_against_scipy():
    d, ref = msd.Cauchy(0.5, 2.0), st.cauchy(0.5, 2.0)
    np.testing.assert_allclose(d.log_prob(Tensor(X)).asnumpy(), ref.logpdf(X), rtol=1e-5)
    np.testing.assert_allclose(d.cdf(Tensor(X)).asnumpy(), ref.cdf(X), rtol=1e-5)
    np.testing.assert_allclose(d.entropy().asnumpy(), ref.entropy(), rtol=1e-5)
    with pytest.raises(NotImplementedError, match="mean"):
        d.mean()


DISC = [
    (msd.Bernoulli, (0.3,), st.bernoulli(0.3), np.array([0, 1, 1, 0], np.float32)),
    (msd.Geometric, (0.3,), st.geom(0.3, loc=-1), np.array([0, 1, 3, 6], np.float32)),
    (msd.Poisson, (2.5,), st.poisson(2.5), np.array([0, 1, 3, 6], np.float32)),
    (msd.Categorical, ([0.2, 0.5, 0.3],), st.rv_discrete(values=([0, 1, 2], [0.2, 0.5, 0.3])),
     np.array([0, 1, 2, 1], np.float32)),
]


@pytest.mark.parametrize("D,args,ref,k", DISC, ids=lambda v: getattr(v, "__name__", None))
def test_discrete_against_scipy(D, args, ref, k):
    d = D(*args)
    np.testing.assert_allclose(d.log_prob(Tensor(k)).asnumpy(), ref.logpmf(k), rtol=1e-5)
    np.testing.assert_allclose(d.cdf(Tensor(k)).asnumpy(), ref.cdf(k), rtol=1e-5)
    np.testing.assert_allclose(d.mean().asnumpy(), ref.mean(), rtol=1e-5)
    np.testing.assert_allclose(d.var().asnumpy(), ref.var(), rtol=1e-5)
    if D is not msd.Poisson:
        np.testing.assert_allclose(d.entropy().asnumpy(), ref.entropy(), rtol=1e-5)


def test_params_per_call_override_construction():
    d = msd.Normal()
    with pytest.raises(ValueError, match="'mean'.*neither"):
        d.log_prob(0.0)
    np.testing.assert_allclose(d.log_prob(Tensor(X), Tensor(1.0), Tensor(2.0)).asnumpy(),
                               st.norm(1, 2).logpdf(X), rtol=1e-5)
    d2 = msd.Normal(0.0, 1.0)
    np.testing.assert_allclose(d2.cdf(Tensor(X), sd=Tensor(3.0)).asnumpy(), st.norm(0, 3).cdf(X), rtol=1e-5)
    np.testing.assert_allclose(d2("mean", Tensor(4.0)).asnumpy(), 4.0)


def _kl_mc(ref_a, ref_b, n=400000):
    x = ref_a.rvs(n, random_state=0)
    return float(np.mean(ref_a.logpdf(x) - ref_b.logpdf(x)))


KL = [
    (msd.Normal, (0.3, 1.2), (1.0, 2.0), lambda a, b: math.log(b[1] / a[1]) + (a[1] ** 2 + (a[0] - b[0]) ** 2)
     / (2 * b[1] ** 2) - 0.5),
    (msd.Exponential, (1.5,), (0.5,), lambda a, b: math.log(a[0] / b[0]) + b[0] / a[0] - 1),
    (msd.Bernoulli, (0.3,), (0.6,), lambda a, b: 0.3 * math.log(0.3 / 0.6) + 0.7 * math.log(0.7 / 0.4)),
    (msd.Uniform, (0.5, 1.0), (0.0, 2.0), lambda a, b: math.log(2.0 / 0.5)),
    (msd.Geometric, (0.3,), (0.6,), lambda a, b: sum(0.3 * 0.7 ** k * math.log(0.3 * 0.7 ** k / (0.6 * 0.4 ** k))
                                                     for k in range(400))),
    (msd.Categorical, ([0.2, 0.8],), ([0.5, 0.5],), lambda a, b: 0.2 * math.log(0.4) + 0.8 * math.log(1.6)),
]
KL_MC = [
    (msd.Gamma, (np.array(2.0), np.array(1.5)), (np.array(3.0), np.array(0.5)), st.gamma(2.0, scale=1 / 1.5),
     st.gamma(3.0, scale=2.0)),
    (msd.Beta, (np.array(2.0), np.array(3.0)), (1.5, 1.5), st.beta(2, 3), st.beta(1.5, 1.5)),
    (msd.Gumbel, (0.0, 1.0), (0.5, 2.0), st.gumbel_r(0, 1), st.gumbel_r(0.5, 2)),
    (msd.Laplace, (0.0, 1.0), (0.5, 2.0), st.laplace(0, 1), st.laplace(0.5, 2)),
    (msd.Cauchy, (0.0, 1.0), (0.5, 2.0), st.cauchy(0, 1), st.cauchy(0.5, 2)),
    (msd.LogNormal, (0.0, 1.0), (0.5, 2.0), st.lognorm(1.0), st.lognorm(2.0, scale=math.exp(0.5))),
]


@pytest.mark.parametrize("D,a,b,closed", KL, ids=lambda v: getattr(v, "__name__", None))
def test_kl_closed_forms_and_cross_entropy(D, a, b, closed):
    d = D(*a)
    kl = float(d.kl_loss(D.__name__, *b).asnumpy())
    assert kl == pytest.approx(closed(a, b), rel=1e-4)
    ce = float(d.cross_entropy(D.__name__, *b).asnumpy())
    assert ce == pytest.approx(float(d.entropy().asnumpy()) + kl, rel=1e-5)


@pytest.mark.parametrize("D,a,b,ra,rb", KL_MC, ids=lambda v: getattr(v, "__name__", None))
def test_kl_against_monte_carlo(D, a, b, ra, rb):
    kl = float(D(*a).kl_loss(D.__name__, *b).asnumpy())
    assert kl == pytest.approx(_kl_mc(ra, rb), rel=0.03, abs=3e-3)


SAMPLE = [(msd.Normal, (1.0, 2.0)), (msd.Uniform, (-1.0, 3.0)), (msd.Exponential, (2.0,)),
          (msd.Gamma, (np.array(2.0), np.array(3.0))), (msd.Beta, (np.array(2.0), np.array(5.0))),
          (msd.Logistic, (1.0, 0.5)), (msd.Gumbel, (1.0, 2.0)),
          (msd.Laplace, (1.0, 0.5)), (msd.LogNormal, (0.0, 0.5)), (msd.HalfNormal, (0.0, 1.0)),
          (msd.Bernoulli, (0.3,)), (msd.Geometric, (0.4,)), (msd.Poisson, (3.0,)),
          (msd.Categorical, ([0.2, 0.3, 0.5],)),
          (msd.StudentT, (6.0, 1.0, 1.0))]


@pytest.mark.parametrize("D,a", SAMPLE, ids=lambda v: getattr(v, "__name__", None))
def test_sample_moments(D, a):
    ms.set_seed(7)
    d = D(*a)
    s = d.sample((40000,)).asnumpy().astype(np.float64)
    assert s.shape == (40000,)
    m, v = d.mean().asnumpy().item(), d.var().asnumpy().item()   # Categorical keeps a class axis of 1
    assert abs(s.mean() - m) < 5 * math.sqrt(v / s.size)
    assert s.var() == pytest.approx(v, rel=0.08)


def test_sample_shape_broadcasts_parameters():
    d = msd.Normal(Tensor(np.zeros((2, 3), np.float32)), 1.0)
    assert d.sample((4,)).shape == (4, 2, 3)
    assert d.sample().shape == (2, 3)
    assert msd.Categorical([[0.5, 0.5], [0.1, 0.9]]).sample((5,)).shape == (5, 2)


def test_gradient_through_reparameterised_sample_matches_finite_differences():
    def loss(mu, sd):
        ms.set_seed(3)
        z = msd.Normal().sample((64,), mu, sd)
        return (z * z * z).mean() + msd.Normal().log_prob(z, mu, sd).mean()

    mu, sd = Tensor(np.float32(0.4)), Tensor(np.float32(1.3))
    g_mu, g_sd = ms.grad(loss, grad_position=(0, 1))(mu, sd)
    h = 1e-2
    fd_mu = (float(loss(Tensor(np.float32(0.4 + h)), sd).asnumpy()) -
             float(loss(Tensor(np.float32(0.4 - h)), sd).asnumpy())) / (2 * h)
    fd_sd = (float(loss(mu, Tensor(np.float32(1.3 + h))).asnumpy()) -
             float(loss(mu, Tensor(np.float32(1.3 - h))).asnumpy())) / (2 * h)
    assert float(g_mu.asnumpy()) == pytest.approx(fd_mu, rel=2e-2, abs=1e-3)
    assert float(g_sd.asnumpy()) == pytest.approx(fd_sd, rel=2e-2, abs=1e-3)
    assert abs(float(g_mu.asnumpy())) > 0.1


def test_gradient_of_kl_wrt_parameters():
    f = lambda m: msd.Normal(0.0, 1.0).kl_loss("Normal", Tensor(np.float32(0.0)), Tensor(np.float32(2.0)), m)  # noqa
    g = ms.grad(f)(Tensor(np.float32(0.8)))
    assert float(g.asnumpy()) == pytest.approx(0.8 / 4, rel=1e-5)


@pytest.mark.parametrize("make,match", [
    (lambda: msd.Normal(0.0, -1.0), "'sd' must be in"),
    (lambda: msd.Bernoulli(1.5), "'probs' must be in"),
    (lambda: msd.Uniform(2.0, 1.0), "'low' must be less than 'high'"),
    (lambda: msd.Categorical([0.3, 0.3]), "summing to 1"),
    (lambda: msd.Gamma([-1.0], [1.0]), "'concentration' must be in"),
    (lambda: msd.Normal(0.0, 1.0).kl_loss("Gamma", 1.0, 1.0), "support only dist 'Normal'"),
    (lambda: msd.Normal(0.0, 1.0, dtype=ms.int32), None),
    (lambda: msd.Normal("a", 1.0), None),
    (lambda: msb.ScalarAffine(0.0), "'scale' must be non-zero"),
    (lambda: msb.Softplus(-1.0), "'sharpness' must be in"),
])
def test_bad_parameters_raise(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_parameters_given_per_call_are_not_range_checked():
    """MindSpore checks the parameters given at construction only: the ones of a call (often computed inside a
    graph) are used as they are (MindSpore 2.10's values), so a graph's sampling reads no value back."""
    assert np.isnan(msd.Normal(0.0, 1.0).log_prob(Tensor(0.0), None, Tensor(-2.0)).asnumpy())
    draws = msd.Categorical(dtype=ms.int32).sample((2,), Tensor(np.array([0.3, 0.3], np.float32)))
    assert draws.shape == (2,) and set(draws.asnumpy().tolist()) <= {0, 1}
    np.testing.assert_allclose(msd.Uniform(0.0, 1.0).prob(Tensor(0.5), Tensor(2.0), Tensor(1.0)).asnumpy(), 0.0)


BIJ = [
    (msb.Exp(), np.exp, lambda x: x),
    (msb.PowerTransform(0.5), lambda x: (1 + 0.5 * x) ** 2, lambda x: np.log(1 + 0.5 * x)),
    (msb.ScalarAffine(2.0, 1.0), lambda x: 2 * x + 1, lambda x: np.full_like(x, math.log(2))),
    (msb.Softplus(2.0), lambda x: np.log1p(np.exp(2 * x)) / 2, lambda x: -np.log1p(np.exp(-2 * x))),
    (msb.GumbelCDF(1.0, 2.0), lambda x: np.exp(-np.exp(-(x - 1) / 2)),
     lambda x: -(x - 1) / 2 - np.exp(-(x - 1) / 2) - math.log(2)),
]


@pytest.mark.parametrize("b,fwd,fldj", BIJ, ids=lambda v: getattr(v, "name", None))
def test_bijectors(b, fwd, fldj):
    x = X.astype(np.float32)
    y = b.forward(Tensor(x)).asnumpy()
    np.testing.assert_allclose(y, fwd(x.astype(np.float64)), rtol=1e-5)
    np.testing.assert_allclose(b.inverse(Tensor(y)).asnumpy(), x, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b.forward_log_jacobian(Tensor(x)).asnumpy(), fldj(x.astype(np.float64)), rtol=1e-4,
                               atol=1e-6)
    np.testing.assert_allclose(b.inverse_log_jacobian(Tensor(y)).asnumpy(), -fldj(x.astype(np.float64)),
                               rtol=1e-3, atol=1e-5)
    inv = msb.Invert(b)
    np.testing.assert_allclose(inv.forward(Tensor(y)).asnumpy(), x, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(inv.inverse_log_jacobian(Tensor(x)).asnumpy(), fldj(x.astype(np.float64)),
                               rtol=1e-4, atol=1e-6)


def test_transformed_distribution_is_lognormal_and_affine_normal():
    t = msd.TransformedDistribution(msb.Exp(), msd.Normal(0.2, 0.7))
    ref = st.lognorm(0.7, scale=math.exp(0.2))
    np.testing.assert_allclose(t.log_prob(Tensor(X)).asnumpy(), ref.logpdf(X), rtol=1e-5)
    np.testing.assert_allclose(t.cdf(Tensor(X)).asnumpy(), ref.cdf(X), rtol=1e-5)
    ms.set_seed(1)
    assert (t.sample((100,)).asnumpy() > 0).all()
    a = msd.TransformedDistribution(msb.ScalarAffine(2.0, 1.0), msd.Normal(0.0, 1.0))
    np.testing.assert_allclose(a.log_prob(Tensor(X)).asnumpy(), st.norm(1, 2).logpdf(X), rtol=1e-5)
    assert float(a.mean().asnumpy()) == pytest.approx(1.0)


def test_mindspore_import_paths_under_compat():
    code = ("import mindseed.compat as c; c.install(); "
            "from mindspore.nn.probability.distribution import Normal; import mindspore.nn.probability.bijector as b; "
            "import mindspore.nn as nn; print(type(Normal(0., 1.)).__module__, b.Exp().name, "
            "nn.probability.distribution.Gamma.__name__)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["mindseed.nn.probability.distribution._continuous", "Exp", "Gamma"]


def test_construction_parameters_are_readable_properties():
    # MindSpore exposes what a distribution was built with (a float32 Tensor, or None when not given)
    b = msd.Bernoulli([0.2, 0.4], dtype=ms.int32)
    assert isinstance(b.probs, Tensor) and b.probs.dtype == ms.float32
    np.testing.assert_allclose(b.probs.asnumpy(), [0.2, 0.4], rtol=1e-6)
    assert msd.Bernoulli().probs is None
    np.testing.assert_allclose(msd.Geometric(0.5).probs.asnumpy(), 0.5)
    np.testing.assert_allclose(msd.Categorical([0.3, 0.7]).probs.asnumpy(), [0.3, 0.7], rtol=1e-6)
    np.testing.assert_allclose(msd.Exponential(2.0).rate.asnumpy(), 2.0)
    np.testing.assert_allclose(msd.Poisson(Tensor([1.5])).rate.asnumpy(), [1.5])
    u = msd.Uniform(1.0, 3.0)
    np.testing.assert_allclose((u.low.asnumpy(), u.high.asnumpy()), (1.0, 3.0))
    g = msd.Gamma(Tensor([2.0]), Tensor([3.0]))
    np.testing.assert_allclose((g.concentration.asnumpy(), g.rate.asnumpy()), ([2.0], [3.0]))
    beta = msd.Beta(Tensor([2.0]), Tensor([5.0]))
    np.testing.assert_allclose((beta.concentration1.asnumpy(), beta.concentration0.asnumpy()), ([2.0], [5.0]))
    for D in (msd.Cauchy, msd.Logistic, msd.Gumbel, msd.LogNormal):
        d = D(0.5, 2.0)
        np.testing.assert_allclose((d.loc.asnumpy(), d.scale.asnumpy()), (0.5, 2.0))
    with pytest.raises(AttributeError):
        b.probs = Tensor(0.1)


def test_probs_read_inside_a_graph_matches_pynative():
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.b = msd.Bernoulli(0.3, dtype=ms.int32)

        def construct(self, p):
            return self.b.cross_entropy("Bernoulli", p), self.b.probs

    p = Tensor(0.9, ms.float32)
    eager = Net()(p)
    graph = ms.jit(Net().construct)(p)
    want = -(0.3 * math.log(0.9) + 0.7 * math.log(0.1))
    for ce, probs in (eager, graph):
        np.testing.assert_allclose(ce.asnumpy(), want, rtol=1e-5)
        np.testing.assert_allclose(probs.asnumpy(), 0.3, rtol=1e-6)


def test_construction_checks_as_mindspore():
    """name must be str, a discrete distribution's dtype an int/uint/float type, parameter shapes must broadcast,
    Gamma and Beta refuse Python scalars; bijectors take float Tensors only and answer in the input's dtype."""
    import mindseed.nn.probability.bijector as msb  # noqa: PLC0415
    import mindseed.nn.probability.distribution as msd  # noqa: PLC0415
    for make in (lambda: msd.Bernoulli([0.1], dtype=ms.bool_), lambda: msd.Categorical([0.5, 0.5], dtype=ms.bool_),
                 lambda: msd.Exponential([0.1], name=1.0), lambda: msb.Exp(name=0.1), lambda: msd.Gamma(3.0, [4.0]),
                 lambda: msd.Beta([3.0], 4.0), lambda: msb.Exp().forward(1.0),
                 lambda: msb.Exp().forward(ms.Tensor([1], ms.int32)),
                 lambda: msb.Exp(dtype=ms.float32).forward(ms.Tensor([1.0], ms.float16))):
        with pytest.raises(TypeError):
            make()
    with pytest.raises(ValueError, match="cannot be broadcast together"):
        msd.Normal([[2.0], [1.0]], [[2.0], [3.0], [4.0]], dtype=ms.float32)
    out = msb.ScalarAffine(2.0, 1.0).forward(ms.Tensor([1.0], ms.float16))
    assert out.dtype == ms.float16 and out.asnumpy().tolist() == [3.0]
    assert msb.Exp().dtype is None and msd.Geometric([0.5], dtype=ms.int32).dtype == ms.int32


def test_user_bijector_with_add_parameter():
    """A bijector written MindSpore's way: _add_parameter, _check_value_dtype, cast_param_by_value."""
    import mindseed.nn.probability.bijector as msb  # noqa: PLC0415

    class Affine(msb.Bijector):
        def __init__(self, a, b):
            param = dict(locals())
            param["param_dict"] = {"a": a, "b": b}
            super().__init__(name="Affine", dtype=None, param=param)
            self._a = self._add_parameter(a, "a")
            self._b = self._add_parameter(b, "b")

        def _forward(self, value):
            value = self._check_value_dtype(value)
            return value * self.cast_param_by_value(value, self._a) + self.cast_param_by_value(value, self._b)

    net = Affine(2.0, 1.0)
    assert net.parameter_names == ["a", "b"]
    out = net.forward(ms.Tensor([1.0, 2.0], ms.float16))
    assert out.dtype == ms.float16 and out.asnumpy().tolist() == [3.0, 5.0]
    with pytest.raises(TypeError):
        Affine(2.0, 1)          # the parameters' dtypes differ
    with pytest.raises(TypeError):
        net.forward(ms.Tensor([1], ms.int32))


def test_categorical_statistic_shapes_and_mode_dtype_as_mindspore():
    # the oracle: mean/var keep the class axis, entropy/kl squeeze axes of size 1, mode is of the sample dtype
    ca = msd.Categorical(probs=[0.2, 0.8], dtype=ms.int32)
    pa, pb = Tensor([0.5, 0.5], ms.float32), Tensor([0.35, 0.65], ms.float32)
    assert ca.mean().shape == (1,) and ca.var().shape == (1,) and ca.sd().shape == (1,)
    np.testing.assert_allclose(ca.mean().asnumpy(), [0.8], rtol=1e-6)
    np.testing.assert_allclose(ca.var(pb).asnumpy(), [0.22750002], rtol=1e-6)
    np.testing.assert_allclose(ca.sd(pb).asnumpy(), [0.47696963], rtol=1e-6)
    assert ca.entropy().shape == () and ca.kl_loss("Categorical", pb).shape == ()
    np.testing.assert_allclose(ca.entropy().asnumpy(), 0.5004024, rtol=1e-6)
    np.testing.assert_allclose(ca.kl_loss("Categorical", pb).asnumpy(), 0.0541883, rtol=1e-5)
    np.testing.assert_allclose(ca.cross_entropy("Categorical", pb, pa).asnumpy(), 0.74030167, rtol=1e-5)
    mode = ca.mode()
    assert mode.dtype == ms.int32 and mode.shape == () and int(mode.asnumpy()) == 1
    batch = Tensor([[0.2, 0.8], [0.5, 0.5]], ms.float32)
    ca2 = msd.Categorical(dtype=ms.int32)
    np.testing.assert_allclose(ca2.mean(batch).asnumpy(), [[0.8], [0.5]], rtol=1e-6)
    np.testing.assert_allclose(ca2.var(batch).asnumpy(), [[0.15999997], [0.25]], rtol=1e-6)
    np.testing.assert_allclose(ca2.entropy(batch).asnumpy(), [0.5004024, 0.6931472], rtol=1e-6)
    np.testing.assert_array_equal(ca2.mode(batch).asnumpy(), [1, 0])


def test_scalar_affine_log_jacobian_has_the_scales_shape():
    b = msb.ScalarAffine(-2.0, 2.0)
    v = Tensor([1.0, 2.0, 3.0], ms.float32)
    assert b.forward(v).shape == (3,)
    fldj, ildj = b.forward_log_jacobian(v), b.inverse_log_jacobian(v)
    assert fldj.shape == () and ildj.shape == ()
    np.testing.assert_allclose(fldj.asnumpy(), 0.6931472, rtol=1e-6)
    np.testing.assert_allclose(ildj.asnumpy(), -0.6931472, rtol=1e-6)
