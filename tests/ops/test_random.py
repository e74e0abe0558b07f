"""Random ops: seeded reproducibility, distribution sanity on a few thousand samples, dtypes/shapes, bad input."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, make_error_tests

N = 4000
T = ms.Tensor

# name -> a no-argument sampler
SAMPLERS = {
    "uniform": lambda: ops.uniform((3, 4), T(-1.0), T(2.0)),
    "uniform_int": lambda: ops.uniform((3, 4), T(0, ms.int32), T(9, ms.int32), dtype=ms.int32),
    "normal": lambda: ops.normal((3, 4), T(1.0), T(2.0)),
    "laplace": lambda: ops.laplace((3, 4), T(0.0), T(1.0)),
    "gamma": lambda: ops.gamma((3, 4), T(2.0), T(1.0)),
    "poisson": lambda: ops.poisson((3, 4), T(3.0)),
    "random_gamma": lambda: ops.random_gamma((3,), T([1.0, 2.0])),
    "random_poisson": lambda: ops.random_poisson(ms.Tensor([3], ms.int32), T([1.0, 5.0])),
    "standard_normal": lambda: ops.standard_normal((3, 4)),
    "standard_laplace": lambda: ops.standard_laplace((3, 4)),
    "rand": lambda: ops.rand(3, 4),
    "rand_like": lambda: ops.rand_like(ops.ones((3, 4), ms.float64)),
    "randn": lambda: ops.randn((3, 4)),
    "randn_like": lambda: ops.randn_like(ops.ones((3, 4))),
    "randint": lambda: ops.randint(0, 10, (3, 4)),
    "randint_like": lambda: ops.randint_like(ops.ones((3, 4), ms.int32), 0, 10),
    "randperm": lambda: ops.randperm(10),
    "multinomial": lambda: ops.multinomial(T([[0.1, 0.5, 0.4], [0.3, 0.3, 0.4]]), 5),
    "multinomial_no_replacement": lambda: ops.multinomial(T([0.1, 0.5, 0.2, 0.2]), 3, False),
    "random_categorical": lambda: ops.random_categorical(T([[0.0, 1.0, 2.0]]), 6, 3),   # seed 0: MindSpore's is random
    "bernoulli": lambda: ops.bernoulli(ops.zeros((3, 4)), 0.3, seed=5),     # no seed: MindSpore's is random
    "shuffle": lambda: ops.shuffle(ops.arange(10)),
    "choice_with_mask": lambda: ops.choice_with_mask(T([[True, False, True], [True, True, False]]), 3),
    "uniform_candidate_sampler": lambda: ops.uniform_candidate_sampler(T([[1], [3]]), 1, 3, True, 5),
    "log_uniform_candidate_sampler": lambda: ops.log_uniform_candidate_sampler(T([[1], [3]]), 1, 3, True, 5),
}


def _np(out):
    return [o.asnumpy() for o in out] if isinstance(out, tuple) else [out.asnumpy()]


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_set_seed_makes_sampler_reproducible(name):
    f = SAMPLERS[name]
    ms.set_seed(123)
    a = _np(f())
    b = _np(f())
    ms.set_seed(123)
    a2 = _np(f())
    b2 = _np(f())
    for x, y in zip(a + b, a2 + b2):
        np.testing.assert_array_equal(x, y)


# randperm (seed 0 by default), bernoulli and random_categorical (their own seeds) do not follow the global seed, as
# in MindSpore
@pytest.mark.parametrize("name", sorted(set(SAMPLERS) - {"choice_with_mask", "uniform_candidate_sampler",
                                                         "log_uniform_candidate_sampler", "random_poisson",
                                                         "multinomial_no_replacement", "randperm", "bernoulli",
                                                         "random_categorical"}))
def test_different_seeds_give_different_numbers(name):
    f = SAMPLERS[name]
    ms.set_seed(1)
    a = _np(f())
    ms.set_seed(2)
    b = _np(f())
    assert any(not np.array_equal(x, y) for x, y in zip(a, b))


def test_op_seed_streams():
    ms.set_seed(5)
    a, b = ops.rand(4, seed=3), ops.rand(4, seed=3)
    assert not np.array_equal(a.asnumpy(), b.asnumpy())  # the op's stream moves on
    ms.set_seed(5)
    np.testing.assert_array_equal(ops.rand(4, seed=3).asnumpy(), a.asnumpy())


def test_class_instances_own_their_stream():
    ms.set_seed(0)
    x1 = ops.StandardNormal(seed=2)((3,)).asnumpy()
    x2 = ops.StandardNormal(seed=2)((3,)).asnumpy()
    np.testing.assert_array_equal(x1, x2)
    op = ops.UniformReal(seed=4, seed2=1)
    assert not np.array_equal(op((3,)).asnumpy(), op((3,)).asnumpy())
    v = ops.UniformInt(seed=1)((1000,), T(2, ms.int32), T(5, ms.int32)).asnumpy()
    assert v.dtype == np.int32 and v.min() == 2 and v.max() == 4
    classes = T(np.array([[1], [3]], np.int32))
    for cls in (ops.UniformCandidateSampler, ops.LogUniformCandidateSampler):
        first = cls(1, 40, False, 50, seed=3)(classes)[0].asnumpy()
        np.testing.assert_array_equal(first, cls(1, 40, False, 50, seed=3)(classes)[0].asnumpy())
        op = cls(1, 40, False, 50, seed=3)
        assert not np.array_equal(op(classes)[0].asnumpy(), op(classes)[0].asnumpy())


# ---------------------------------------------------------------- distribution sanity
@pytest.mark.parametrize("name,sample,mean,std", [
    ("uniform", lambda: ops.uniform((N,), T(-1.0), T(3.0)), 1.0, 4 / np.sqrt(12)),
    ("normal", lambda: ops.normal((N,), T(2.0), T(0.5)), 2.0, 0.5),
    ("normal_broadcast", lambda: ops.normal((N, 2), T([0.0, 10.0]), 1.0)[:, 1], 10.0, 1.0),
    ("laplace", lambda: ops.laplace((N,), T(1.0), T(2.0)), 1.0, 2.0 * np.sqrt(2)),
    ("standard_laplace", lambda: ops.standard_laplace((N,)), 0.0, np.sqrt(2)),
    ("gamma", lambda: ops.gamma((N,), T(3.0), T(2.0)), 1.5, np.sqrt(3) / 2),
    ("random_gamma", lambda: ops.random_gamma((N,), T([4.0]))[:, 0], 4.0, 2.0),
    ("poisson", lambda: ops.poisson((N,), T(4.0)), 4.0, 2.0),
    ("random_poisson", lambda: ops.random_poisson(ms.Tensor([N], ms.int64), T([9.0]))[:, 0], 9.0, 3.0),
    ("rand", lambda: ops.rand(N), 0.5, np.sqrt(1 / 12)),
    ("randn", lambda: ops.randn(N, dtype=ms.float64), 0.0, 1.0),
    ("standard_normal", lambda: ops.standard_normal((N,)), 0.0, 1.0),
    ("randint", lambda: ops.randint(0, 10, (N,)), 4.5, np.sqrt(99 / 12)),
    ("bernoulli", lambda: ops.bernoulli(ops.zeros((N,)), 0.3), 0.3, np.sqrt(0.21)),
    ("bernoulli_tensor_p", lambda: ops.bernoulli(ops.zeros((N, 2)), T(np.tile([0.1, 0.9], (N, 1))))[:, 1], 0.9,
     0.3),
    ("exponential_", lambda: ops.exponential_(ops.zeros((N,)), 2.0), 0.5, 0.5),
    ("uniform_", lambda: ops.uniform_(ops.zeros((N,)), 2.0, 4.0), 3.0, 2 / np.sqrt(12)),
    ("normal_", lambda: ops.normal_(ops.zeros((N,)), -1.0, 3.0), -1.0, 3.0),
    ("log_normal", lambda: ops.log(ops.zeros((N,)).log_normal(0.5, 0.25)), 0.5, 0.25),
])
def test_distribution_moments(name, sample, mean, std):
    ms.set_seed(7)
    x = sample().asnumpy().astype(np.float64)
    tol = 5 * std / np.sqrt(x.size)
    assert abs(x.mean() - mean) < tol + 1e-9, f"{name}: mean {x.mean()} vs {mean}"
    assert abs(x.std() - std) < 0.1 * std, f"{name}: std {x.std()} vs {std}"


def test_multinomial_and_categorical_frequencies():
    ms.set_seed(3)
    p = np.array([0.1, 0.6, 0.3])
    counts = np.bincount(ops.multinomial(T(p), N).asnumpy(), minlength=3) / N
    np.testing.assert_allclose(counts, p, atol=0.03)
    logits = np.log([0.2, 0.5, 0.3])
    counts = np.bincount(ops.random_categorical(T([logits], ms.float32), N).asnumpy()[0], minlength=3) / N
    np.testing.assert_allclose(counts, [0.2, 0.5, 0.3], atol=0.03)


def test_permutations_are_permutations():
    ms.set_seed(4)
    assert sorted(ops.randperm(20).asnumpy().tolist()) == list(range(20))
    x = ops.arange(12).reshape(6, 2)
    y = ops.shuffle(x).asnumpy()
    assert sorted(map(tuple, y)) == sorted(map(tuple, x.asnumpy()))
    z = ops.multinomial(T([1.0, 1.0, 1.0, 1.0]), 4, False).asnumpy()
    assert sorted(z.tolist()) == [0, 1, 2, 3]
    assert ops.Randperm(max_length=5, pad=-1)(T([3])).asnumpy().tolist()[3:] == [-1, -1]


def test_choice_with_mask_picks_true_positions():
    ms.set_seed(0)
    x = np.array([[True, False, True], [False, True, False]])
    idx, mask = ops.choice_with_mask(T(x), 5)
    assert idx.dtype == ms.int32 and idx.shape == (5, 2) and mask.asnumpy().tolist() == [True] * 3 + [False] * 2
    picked = {tuple(r) for r in idx.asnumpy()[:3]}
    assert picked == {(0, 0), (0, 2), (1, 1)}


def test_candidate_samplers():
    ms.set_seed(0)
    s, te, se = ops.uniform_candidate_sampler(T([[1], [3]]), 1, 3, True, 5)
    v = s.asnumpy()
    assert len(set(v.tolist())) == 3 and v.min() >= 0 and v.max() < 5
    assert te.shape == (2, 1) and se.shape == (3,) and np.all(te.asnumpy() >= 1 - 0.8 ** 3 - 1e-6)
    s, te, se = ops.uniform_candidate_sampler(T([[1], [3]]), 1, 3, False, 5)
    np.testing.assert_allclose(se.asnumpy(), 0.6, rtol=1e-6)
    s, te, se = ops.uniform_candidate_sampler(T([[1], [3]]), 1, 3, True, 5, remove_accidental_hits=True)
    assert not ({1, 3} & set(s.asnumpy().tolist()))
    s, te, se = ops.log_uniform_candidate_sampler(T([[0]]), 1, 50, False, 100)
    p0 = np.log(2) / np.log(101)
    np.testing.assert_allclose(te.asnumpy(), [[50 * p0]], rtol=1e-5)


def test_uniform_candidate_sampler_mindspore_stream():
    """A non-zero seed gives MindSpore's CPU draws (Philox-scrambled seed -> minstd_rand0 -> libstdc++'s
    uniform_int_distribution); a Primitive continues its stream, the functional form restarts it; the expected
    counts are float32 arithmetic (values from MindSpore 2.10)."""
    op = ops.UniformCandidateSampler(1, 5, False, 100, seed=7)
    x = T(np.array([[1], [2]], np.int32))
    s, te, se = op(x)
    assert s.dtype == ms.int32 and s.asnumpy().tolist() == [72, 14, 10, 6, 94]
    assert te.shape == (2, 1) and te.asnumpy()[0, 0] == np.float32(0.04999999701976776)
    np.testing.assert_array_equal(se.asnumpy(), np.full(5, 0.04999999701976776, np.float32))
    assert op(x)[0].asnumpy().tolist() == [11, 56, 48, 69, 56]
    op = ops.UniformCandidateSampler(2, 6, True, 10, seed=3, remove_accidental_hits=True)
    s, te, se = op(T(np.array([[1, 2], [3, 4]], np.int64)))
    assert s.dtype == ms.int64 and s.asnumpy().tolist() == [6, 8, 7, 9, 0, 5]
    np.testing.assert_array_equal(te.asnumpy(), np.full((2, 2), 0.8905810117721558, np.float32))
    hit = ops.UniformCandidateSampler(1, 3, True, 4, seed=1)(T(np.array([[1]], np.int32)))[0]
    assert hit.asnumpy().tolist() == [0, 2, 3]
    for _ in range(2):
        s = ops.uniform_candidate_sampler(T(np.array([[1], [2]], np.int32)), 1, 4, True, 8, seed=11)[0]
        assert s.asnumpy().tolist() == [5, 7, 3, 0]


def test_dtypes_and_shapes():
    assert ops.rand(2, 3).dtype == ms.float32 and ops.rand((2, 3), dtype=ms.float64).dtype == ms.float64
    assert ops.randn([4]).shape == (4,)
    assert ops.randint(0, 3, (2,)).dtype == ms.int64 and ops.randint(0, 3, (2,), dtype=ms.int32).dtype == ms.int32
    assert ops.randint_like(ops.ones((2,), ms.int32), 0, 3).dtype == ms.int32
    assert ops.multinomial(T([0.5, 0.5]), 2).dtype == ms.int32
    assert ops.random_categorical(T([[0.0, 0.0]]), 2).dtype == ms.int64
    assert ops.bernoulli(T([1, 2, 3]), 0.5).dtype == ms.int64
    assert ops.random_poisson(T([2, 3]), T([1.0, 2.0]), dtype=ms.int32).shape == (2, 3, 2)
    assert ops.gamma((3, 1), T([1.0, 2.0]), T(1.0)).shape == (3, 2)
    assert ops.normal((2, 3), T([[1.0], [2.0]]), 2.0).shape == (2, 3)
    assert ops.randperm(ms.Tensor([5])).shape == (5,)
    assert ops.standard_normal(T([2, 2])).shape == (2, 2)


def test_in_place_fills_and_tensor_methods():
    ms.set_seed(0)
    x = ops.zeros((50,))
    assert x.uniform_(1.0, 2.0) is x and 1.0 <= x.asnumpy().min() and x.asnumpy().max() < 2.0
    x.normal_()
    assert abs(float(x.asnumpy().mean())) < 1.0
    x.bernoulli_(1.0)
    np.testing.assert_array_equal(x.asnumpy(), 1.0)
    x.random_(3, 6)
    assert set(x.asnumpy().tolist()) <= {3.0, 4.0, 5.0}
    x.exponential_()
    assert x.asnumpy().min() > 0
    p = T([0.0, 1.0])
    np.testing.assert_array_equal(p.bernoulli().asnumpy(), [0.0, 1.0])
    y = ops.zeros((3,)).uniform(5.0, 6.0)
    assert 5.0 <= y.asnumpy().min() and y.shape == (3,)
    assert ops.zeros((3,)).cauchy().shape == (3,)
    from mindseed import _backend
    a = ops.zeros((4,)).uniform_(generator=_backend.Generator(11))
    b = ops.zeros((4,)).uniform_(generator=_backend.Generator(11))
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_gradients_reach_distribution_parameters():
    # a sample is mean + stddev * z: d/dmean = 1 and d/dstddev = z, as MindSpore's composite normal gives
    def f(mean, std):
        ms.set_seed(9)
        return ops.normal((5,), mean, std).sum()
    gm, gs = ms.grad(f, grad_position=(0, 1))(T(1.0), T(2.0))
    ms.set_seed(9)
    z = ops.standard_normal((5,)).asnumpy()
    np.testing.assert_allclose(gm.asnumpy(), 5.0)
    np.testing.assert_allclose(gs.asnumpy(), z.sum(), rtol=1e-6)

    def u(lo, hi):
        ms.set_seed(9)
        return ops.uniform((5,), lo, hi).sum()
    gl, gh = ms.grad(u, grad_position=(0, 1))(T(0.0), T(1.0))
    np.testing.assert_allclose(gl.asnumpy() + gh.asnumpy(), 5.0, rtol=1e-6)


ERRORS = [
    ErrorSpec("uniform_python_bounds", lambda: ops.uniform((2,), 0.0, 1.0), TypeError, "For 'uniform'"),
    ErrorSpec("uniform_dtype_mismatch", lambda: ops.uniform((2,), T(0), T(5), dtype=ms.int32), TypeError,
              "For 'uniform'"),
    ErrorSpec("normal_param_type", lambda: ops.normal((2,), "a", 1.0), TypeError, "For 'normal'"),
    ErrorSpec("shape_negative", lambda: ops.standard_normal((2, -1)), ValueError, "For 'StandardNormal'"),
    ErrorSpec("shape_type", lambda: ops.standard_normal((2.0,)), TypeError, "For 'StandardNormal'"),
    ErrorSpec("rand_int_dtype", lambda: ops.rand(2, dtype=ms.int32), ValueError, "For 'rand', the 'dtype'"),
    ErrorSpec("randint_size_list", lambda: ops.randint(0, 5, [2]), ValueError, "For 'randint'"),
    ErrorSpec("randint_low_high", lambda: ops.randint(5, 5, (2,)), ValueError, "For 'randint'"),
    ErrorSpec("randint_like_float", lambda: ops.randint_like(ops.ones((2,)), 0, 4), ValueError,
              "For 'randint_like', the 'dtype' must be an int type"),
    ErrorSpec("multinomial_3d", lambda: ops.multinomial(ops.ones((2, 2, 2)), 1), ValueError, "For 'multinomial'"),
    ErrorSpec("multinomial_too_many", lambda: ops.multinomial(T([0.5, 0.5]), 3, False), ValueError,
              "For 'multinomial'"),
    ErrorSpec("bernoulli_p", lambda: ops.bernoulli(ops.ones((2,)), 1.5), ValueError, "For bernoulli, p should be"),
    ErrorSpec("categorical_1d", lambda: ops.random_categorical(T([0.0, 1.0]), 2), ValueError,
              "For 'RandomCategorical'"),
    ErrorSpec("choice_with_mask_dtype", lambda: ops.choice_with_mask(ops.ones((2,)), 1), TypeError,
              "For 'RandomChoiceWithMask'"),
    ErrorSpec("randperm_negative", lambda: ops.randperm(-1), ValueError, "For 'randperm'"),
    ErrorSpec("seed_negative", lambda: ops.rand(2, seed=-3), ValueError, "seed"),
    ErrorSpec("seed_float", lambda: ops.shuffle(ops.ones((3, 2)), seed=1.6), TypeError, "'seed' must be int"),
    ErrorSpec("seed_bool", lambda: ops.rand(2, seed=True), TypeError, "'seed' must be int"),
    ErrorSpec("uniform__int_tensor", lambda: ops.uniform_(ops.ones((2,), ms.int32)), TypeError, "For 'uniform_'"),
    ErrorSpec("sampler_shape", lambda: ops.uniform_candidate_sampler(T([1, 3]), 1, 3, True, 5), ValueError,
              "For 'UniformCandidateSampler'"),
]
test_bad_input = make_error_tests(ERRORS)


def test_candidate_sampler_counts_dtype_and_crowded_true_classes():
    # no rejected draw: the expected count is num_sampled * p; after rejections 1 - (1 - p) ** tries
    for seed in range(1, 30):
        s, te, se = ops.uniform_candidate_sampler(ms.Tensor(np.array([[1]], np.int32)), 1, 3, True, 8, seed=seed)
        assert s.dtype == ms.int32 and te.dtype == ms.float32
        value = float(te.asnumpy()[0, 0])
        tries = {t: 1 - (1 - 1 / 8) ** t for t in range(4, 40)}
        assert value == pytest.approx(3 / 8) or any(value == pytest.approx(v) for v in tries.values())
        np.testing.assert_allclose(se.asnumpy(), value)
    # 3 samples + 2 true classes > range 4: the true classes cannot all be avoided, so none are (no endless loop)
    s, _, _ = ops.UniformCandidateSampler(2, 3, True, 4, seed=1, remove_accidental_hits=True)(
        ms.Tensor(np.array([[1, 2]], np.int64)))
    assert s.dtype == ms.int64 and len(set(s.asnumpy().tolist())) == 3


def test_uniform_primitive_samples_the_shape_and_dtype_of_its_input():
    from mindseed.ops.operations.random_ops import Uniform
    for dt in (ms.float32, ms.float64):
        y = Uniform(minval=1.0, maxval=3.0, seed=5)(ms.Tensor(np.zeros((4000,)), dt))
        a = y.asnumpy()
        assert y.dtype == dt and y.shape == (4000,) and 1.0 <= a.min() and a.max() < 3.0
        assert abs(a.mean() - 2.0) < 0.05 and abs(a.var() - 4.0 / 12) < 0.03     # U(1, 3): mean 2, var 1/3
    with pytest.raises(TypeError, match="'x' must be a Tensor of float16, float32 or float64"):
        Uniform()(ms.Tensor(np.zeros(3), ms.int32))
    with pytest.raises(ValueError, match="'minval' must be less than or equal to 'maxval'"):
        Uniform(2.0, 1.0)
    with pytest.raises(TypeError, match="minval"):
        Uniform(1, 2.0)


def test_randn_like_is_float32_by_default_whatever_the_input_dtype():
    # MindSpore's randn_like: Float32 unless dtype is given (rand_like follows the input's dtype)
    x16 = ops.ones((2, 3), ms.float16)
    assert ops.randn_like(x16).dtype == ms.float32 and ops.randn_like(x16).shape == (2, 3)
    assert ops.randn_like(ops.ones((2,), ms.int32)).dtype == ms.float32
    assert ops.randn_like(x16, dtype=ms.float64).dtype == ms.float64
    assert ops.rand_like(x16).dtype == ms.float16


def test_random_poisson_takes_its_shape_as_an_int_tensor():
    rate = ms.Tensor([0.5], ms.float32)
    assert ops.random_poisson(ms.Tensor([3, 5], ms.int32), rate, seed=1).shape == (3, 5, 1)
    for bad in ((3, 5), ms.Tensor([3.0, 5.0], ms.float32)):
        with pytest.raises(TypeError, match=r"argument\[shape\] must be a type of"):
            ops.random_poisson(bad, rate, seed=1)
    with pytest.raises(TypeError, match=r"argument\[rate\] must be a type of"):
        ops.random_poisson(ms.Tensor([3], ms.int32), ms.Tensor([True]), seed=1)
    with pytest.raises(TypeError, match="'dtype' should be one of"):
        ops.random_poisson(ms.Tensor([3], ms.int32), rate, seed=1, dtype=ms.bool_)


def test_choice_with_mask_too_large_for_memory_is_a_runtime_error():
    # MindSpore's failed allocation, before any buffer is made (not the process killed for memory)
    x = ms.Tensor(np.ones((4, 4), np.bool_))
    with pytest.raises(RuntimeError, match="For 'RandomChoiceWithMask', Allocate workspace memory failed, alloc size"):
        ms.ops.RandomChoiceWithMask(count=2 ** 50, seed=0)(x)
    idx, mask = ms.ops.RandomChoiceWithMask(count=20, seed=1)(x)
    assert idx.shape == (20, 2) and mask.asnumpy().sum() == 16
    assert sorted(map(tuple, idx.asnumpy()[mask.asnumpy()])) == [(i, j) for i in range(4) for j in range(4)]
