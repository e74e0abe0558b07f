"""mint functions: values vs numpy (torch-style arguments), gradients vs float64 finite differences, graph mode."""
import numpy as np
import pytest
from _harness import OpSpec, ints, make_tests, positive

import mindseed as ms
from mindseed import mint

A = np.array([[1.0, 5.0, 3.0, -2.0], [4.0, 2.0, 6.0, 0.5], [-1.0, 7.0, 0.0, 2.5]], np.float32)
B = np.array([[0.5, -1.0, 2.0, 1.0], [3.0, 1.0, -2.0, 0.25], [1.5, 0.5, 1.0, -3.0]], np.float32)
V = np.array([1.0, -2.0, 3.0], np.float32)
IDX = np.array([[0, 3], [2, 1], [1, 1]], np.int64)


def _t(a):
    return ms.Tensor(a)


def _np(v):
    if isinstance(v, (tuple, list)):
        return [_np(t) for t in v]
    return v.asnumpy() if isinstance(v, ms.Tensor) else np.asarray(v)


def _gather(a, dim, idx):
    return np.take_along_axis(a, idx, dim)


def _scatter(a, idx, src):
    out = a.copy()
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[i, idx[i, j]] = src[i, j]
    return out


def _scatter_add(a, idx, src):
    out = a.copy()
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[i, idx[i, j]] += src[i, j]
    return out


def _index_add(a, idx, src, alpha):
    out = a.copy()
    for k, i in enumerate(idx):
        out[i] += alpha * src[k]
    return out


def _median_lower(a, axis=None):
    if axis is None:
        return np.sort(a.reshape(-1))[(a.size - 1) // 2]
    return np.take(np.sort(a, axis), (a.shape[axis] - 1) // 2, axis)


X, Y = _t(A), _t(B)

# (id, call of mint, numpy result)
VALUES = [
    ("add-alpha", lambda: mint.add(X, Y, alpha=2), A + 2 * B),
    ("add-number", lambda: mint.add(X, 1.5), A + 1.5),
    ("sub-alpha", lambda: mint.sub(X, Y, alpha=0.5), A - 0.5 * B),
    ("mul", lambda: mint.mul(X, Y), A * B),
    ("div-floor", lambda: mint.div(X, Y, rounding_mode="floor"), np.floor(A / B)),
    ("all-dim", lambda: mint.all(X > 0, dim=1), (A > 0).all(1)),
    ("all", lambda: mint.all(X > -5), np.array(True)),
    ("any-keepdim", lambda: mint.any(X > 6, 0, True), (A > 6).any(0, keepdims=True)),
    ("amax-default", lambda: mint.amax(X), A.max()),
    ("amax-dims", lambda: mint.amax(X, (0, 1)), A.max()),
    ("amin-dim-keepdim", lambda: mint.amin(X, 1, True), A.min(1, keepdims=True)),
    ("argmin", lambda: mint.argmin(X, dim=1), A.argmin(1)),
    ("argmin-flat", lambda: mint.argmin(X), A.argmin()),
    ("argsort-desc", lambda: mint.argsort(X, dim=1, descending=True), np.argsort(-A, 1, kind="stable")),
    ("max", lambda: mint.max(X), A.max()),
    ("max-dim", lambda: mint.max(X, 1), [A.max(1), A.argmax(1)]),
    ("max-dim-keepdim", lambda: mint.max(X, dim=0, keepdim=True), [A.max(0, keepdims=True),
                                                                   A.argmax(0)[None]]),
    ("max-other", lambda: mint.max(X, Y), np.maximum(A, B)),
    ("min-dim", lambda: mint.min(X, 0), [A.min(0), A.argmin(0)]),
    ("min-other", lambda: mint.min(X, other=Y), np.minimum(A, B)),
    ("mean-dim-keepdim", lambda: mint.mean(X, 1, True), A.mean(1, keepdims=True)),
    ("mean-dtype", lambda: mint.mean(X, dtype=ms.float64), A.astype(np.float64).mean()),
    ("sum-dim", lambda: mint.sum(X, dim=0, keepdim=True), A.sum(0, keepdims=True)),
    ("prod-dim", lambda: mint.prod(X, 1), A.prod(1)),
    ("nansum", lambda: mint.nansum(_t(np.where(A > 5, np.nan, A)), 1), np.nansum(np.where(A > 5, np.nan, A), 1)),
    ("std", lambda: mint.std(X, 1), A.std(1, ddof=1)),
    ("std-correction0", lambda: mint.std(X, dim=0, correction=0, keepdim=True), A.std(0, ddof=0, keepdims=True)),
    ("var", lambda: mint.var(X), A.var(ddof=1)),
    ("var_mean", lambda: mint.var_mean(X, 1), [A.var(1, ddof=1), A.mean(1)]),
    ("std_mean", lambda: mint.std_mean(X, 0, correction=0), [A.std(0), A.mean(0)]),
    ("median", lambda: mint.median(X), _median_lower(A)),
    ("median-dim", lambda: mint.median(X, 1)[0], _median_lower(A, 1)),
    ("kthvalue", lambda: mint.kthvalue(X, 2, 1), [np.sort(A, 1)[:, 1], np.argsort(A, 1)[:, 1]]),
    ("topk", lambda: mint.topk(X, 2)[0], -np.sort(-A, 1)[:, :2]),
    ("sort-dim0", lambda: mint.sort(X, dim=0)[0], np.sort(A, 0)),
    ("cumsum", lambda: mint.cumsum(X, 1), np.cumsum(A, 1)),
    ("cumsum-dtype", lambda: mint.cumsum(X, 0, dtype=ms.float64), np.cumsum(A.astype(np.float64), 0)),
    ("cummax", lambda: mint.cummax(X, 1)[0], np.maximum.accumulate(A, 1)),
    ("cummin", lambda: mint.cummin(X, 0)[0], np.minimum.accumulate(A, 0)),
    ("count_nonzero", lambda: mint.count_nonzero(_t(np.array([[0, 1], [2, 0]])), 0), np.array([1, 1])),
    ("diff", lambda: mint.diff(X, dim=0), np.diff(A, axis=0)),
    ("cat", lambda: mint.cat([X, Y], 1), np.concatenate([A, B], 1)),
    ("concat", lambda: mint.concat((X, Y)), np.concatenate([A, B], 0)),
    ("stack", lambda: mint.stack([X, Y], dim=2), np.stack([A, B], 2)),
    ("chunk", lambda: mint.chunk(X, 2, dim=1), np.split(A, 2, 1)),
    ("split", lambda: mint.split(X, [1, 2], dim=0), np.split(A, [1], 0)),
    ("flatten", lambda: mint.flatten(_t(np.ones((2, 3, 4)))), np.ones(24)),
    ("flatten-start", lambda: mint.flatten(_t(np.ones((2, 3, 4))), 1), np.ones((2, 12))),
    ("reshape", lambda: mint.reshape(X, (4, 3)), A.reshape(4, 3)),
    ("squeeze", lambda: mint.squeeze(_t(np.ones((1, 3, 1))), 0), np.ones((3, 1))),
    ("squeeze-all", lambda: mint.squeeze(_t(np.ones((1, 3, 1)))), np.ones(3)),
    ("transpose", lambda: mint.transpose(X, 0, 1), A.T),
    ("t", lambda: mint.t(X), A.T),
    ("narrow", lambda: mint.narrow(X, 1, 1, 2), A[:, 1:3]),
    ("select", lambda: mint.select(X, 1, -1), A[:, -1]),
    ("index_select", lambda: mint.index_select(X, 1, _t(np.array([3, 0]))), A[:, [3, 0]]),
    ("gather", lambda: mint.gather(X, 1, _t(IDX)), _gather(A, 1, IDX)),
    ("scatter", lambda: mint.scatter(X, 1, _t(IDX), Y[:, :2]), _scatter(A, IDX, B[:, :2])),
    ("scatter_add", lambda: mint.scatter_add(X, 1, _t(IDX), Y[:, :2]), _scatter_add(A, IDX, B[:, :2])),
    ("index_add", lambda: mint.index_add(X, 0, _t(np.array([2, 0])), Y[:2], alpha=3),
     _index_add(A, [2, 0], B[:2], 3)),
    ("repeat_interleave", lambda: mint.repeat_interleave(_t(V), 2), np.repeat(V, 2)),
    ("unique", lambda: mint.unique(_t(np.array([3, 1, 3, 2])), return_counts=True), [[1, 2, 3], [1, 1, 2]]),
    ("where", lambda: mint.where(X > 2, X, Y), np.where(A > 2, A, B)),
    ("where-1", lambda: mint.where(_t(np.array([[True, False], [False, True]]))), [[0, 1], [0, 1]]),
    ("clamp", lambda: mint.clamp(X, min=0.0, max=3.0), np.clip(A, 0, 3)),
    ("clip", lambda: mint.clip(X, -1.0), np.clip(A, -1, None)),
    ("eq", lambda: mint.eq(X, 2.0), A == 2.0),
    ("ge", lambda: mint.ge(X, Y), A >= B),
    ("lt", lambda: mint.lt(X, Y), A < B),
    ("equal-true", lambda: mint.equal(X, _t(A.copy())) is True, True),
    ("equal-shape", lambda: mint.equal(X, X[:2]) is False, True),
    ("equal-value", lambda: mint.equal(X, _t(B)) is False, True),
    ("fix", lambda: mint.fix(_t(np.array([-1.5, 2.7]))), np.array([-1.0, 2.0])),
    ("frac", lambda: mint.frac(_t(np.array([-1.5, 2.75]))), np.array([-0.5, 0.75])),
    ("remainder", lambda: mint.remainder(X, 2.0), np.mod(A, 2.0)),
    ("fmod", lambda: mint.fmod(X, 2.0), np.fmod(A, 2.0)),
    ("floor_divide", lambda: mint.floor_divide(X, 2.0), np.floor_divide(A, 2.0)),
    ("sqrt", lambda: mint.sqrt(_t(np.abs(A))), np.sqrt(np.abs(A))),
    ("lerp", lambda: mint.lerp(X, Y, 0.25), A + 0.25 * (B - A)),
    ("addcmul", lambda: mint.addcmul(X, X, Y, value=2), A + 2 * A * B),
    ("addcdiv", lambda: mint.addcdiv(X, X, Y, value=0.5), A + 0.5 * A / B),
    ("xlogy", lambda: mint.xlogy(_t(np.abs(A)), _t(np.abs(B))), np.abs(A) * np.log(np.abs(B))),
    ("bmm", lambda: mint.bmm(_t(A[None]), _t(B.T[None])), (A @ B.T)[None]),
    ("baddbmm", lambda: mint.baddbmm(_t(np.ones((1, 3, 3), np.float32)), _t(A[None]), _t(B.T[None]), beta=2,
                                     alpha=0.5), 2 + 0.5 * (A @ B.T)[None]),
    ("mv", lambda: mint.mv(_t(A.T), _t(V)), A.T @ V),
    ("vdot", lambda: mint.vdot(_t(V), _t(V * 2)), np.vdot(V, V * 2)),
    ("dot-1d", lambda: mint.dot(ms.tensor([2.0, 3.0]), ms.tensor([2.0, 1.0])), np.float32(7.0)),
    ("diag-vector", lambda: mint.diag(_t(V), 1), np.diag(V, 1)),
    ("diag-matrix", lambda: mint.diag(X, -1), np.diag(A, -1)),
    ("norm-fro", lambda: mint.norm(X), np.linalg.norm(A)),
    ("norm-p1-dim", lambda: mint.norm(X, 1, dim=1, keepdim=True), np.abs(A).sum(1, keepdims=True)),
    ("norm-inf", lambda: mint.norm(X, float("inf")), np.abs(A).max()),
    ("norm-nuc", lambda: mint.norm(_t(A[:, :3]), "nuc"), np.linalg.norm(A[:, :3], "nuc")),
    ("cdist", lambda: mint.cdist(X, Y), np.sqrt(((A[:, None] - B[None]) ** 2).sum(-1))),
    ("meshgrid-ij", lambda: mint.meshgrid(_t(V), _t(V[:2])), np.meshgrid(V, V[:2], indexing="ij")),
    ("histc", lambda: mint.histc(X, bins=4, min=-2, max=6), np.histogram(A, 4, (-2, 6))[0]),
    ("conv2d-padding", lambda: mint.conv2d(_t(np.ones((1, 1, 3, 3), np.float32)), _t(np.ones((1, 1, 3, 3),
                                           np.float32)), padding=1),
     np.array([[[[4, 6, 4], [6, 9, 6], [4, 6, 4]]]], np.float32)),
    ("conv2d-same", lambda: mint.conv2d(_t(np.ones((1, 1, 3, 3), np.float32)), _t(np.ones((1, 1, 3, 3),
                                        np.float32)), padding="same"),
     np.array([[[[4, 6, 4], [6, 9, 6], [4, 6, 4]]]], np.float32)),
    ("conv_tbc", lambda: mint.conv_tbc(_t(np.ones((5, 2, 3), np.float32)), _t(np.ones((3, 3, 4), np.float32)),
                                       _t(np.zeros(4, np.float32)), 1),
     np.broadcast_to(np.array([6, 9, 9, 9, 6], np.float32)[:, None, None], (5, 2, 4))),
    ("zeros", lambda: mint.zeros((2, 3)), np.zeros((2, 3))),
    ("ones-int", lambda: mint.ones(3, dtype=ms.int32), np.ones(3, np.int32)),
    ("linspace", lambda: mint.linspace(0, 1, 5, dtype=ms.float64), np.linspace(0, 1, 5)),
    ("item", lambda: mint.item(_t(np.array([2.5]))), 2.5),
    ("npu_gelu", lambda: mint.npu_gelu(_t(np.array([0.0, 1.0])), approximate="tanh"),
     np.array([0.0, 0.5 * (1 + np.tanh(np.sqrt(2 / np.pi) * (1 + 0.044715)))])),
    ("triangular_solve", lambda: mint.triangular_solve(_t(V[:, None]), _t(np.triu(A[:, :3]) + 3 * np.eye(3)))[0],
     np.linalg.solve(np.triu(A[:, :3]) + 3 * np.eye(3), V[:, None])),
    ("clone", lambda: mint.clone(X), A),
    ("bitwise_not", lambda: mint.bitwise_not(_t(np.array([0, 5], np.int32))), np.array([-1, -6])),
    ("greater_equal", lambda: mint.greater_equal(X, 2.0), A >= 2.0),
    ("less", lambda: mint.less(X, Y), A < B),
    ("isnan", lambda: mint.isnan(_t(np.array([1.0, np.nan]))), np.array([False, True])),
    ("real-imag", lambda: (mint.real(_t(np.array([1 + 2j]))), mint.imag(_t(np.array([1 + 2j])))), [[1.0], [2.0]]),
    ("empty", lambda: mint.empty(2, 3, dtype=ms.float64).shape, (2, 3)),
    ("empty_like", lambda: mint.empty_like(X).shape, A.shape),
    ("special.round", lambda: mint.special.round(_t(np.array([0.5, 1.5, -2.7]))), np.array([0.0, 2.0, -3.0])),
    ("special.log_softmax", lambda: mint.special.log_softmax(_t(V), 0), V - np.log(np.exp(V).sum())),
    ("linalg.qr", lambda: (lambda q, r: mint.matmul(q, r))(*mint.linalg.qr(_t(A[:, :3]))), A[:, :3]),
    ("linalg.norm", lambda: mint.linalg.norm(X), np.linalg.norm(A)),
    ("batch_norm_stats", lambda: mint.batch_norm_stats(_t(A), 1e-5),
     [A.mean(0), 1 / np.sqrt(A.var(0) + 1e-5)]),
    ("batch_norm_elemt", lambda: mint.batch_norm_elemt(_t(A), _t(np.full(4, 2, np.float32)), None,
                                                       _t(A.mean(0)), _t(1 / A.std(0)), 1e-5),
     2 * (A - A.mean(0)) / A.std(0)),
]


@pytest.mark.parametrize("call,want", [pytest.param(c, w, id=i) for i, c, w in VALUES])
def test_value(call, want):
    got = _np(call())
    if isinstance(got, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, np.asarray(w), rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-5)


def test_gather_stats_with_counts_match_the_statistics_of_the_whole_batch():
    parts = [A[:1], A[1:]]
    means = np.stack([p.mean(0) for p in parts])
    invstd = np.stack([1 / np.sqrt(p.var(0) + 1e-5) for p in parts])
    rm, rv = ms.Parameter(ms.Tensor(np.zeros(4, np.float32)), "rm"), ms.Parameter(ms.Tensor(np.ones(4, np.float32)),
                                                                                    "rv")
    mean, inv = mint.batch_norm_gather_stats_with_counts(X, _t(means), _t(invstd), rm, rv, 0.1, 1e-5,
                                                          _t(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(mean.asnumpy(), A.mean(0), rtol=1e-5)
    np.testing.assert_allclose(inv.asnumpy(), 1 / np.sqrt(A.var(0) + 1e-5), rtol=1e-4)
    np.testing.assert_allclose(rm.asnumpy(), 0.1 * A.mean(0), rtol=1e-5)
    np.testing.assert_allclose(rv.asnumpy(), 0.9 + 0.1 * A.var(0, ddof=1), rtol=1e-4)


def test_addr_inplace_updates_its_input():
    x = _t(A[:, :3].copy())
    out = mint.addr_(x, _t(V), _t(V), beta=2, alpha=0.5)
    assert out is x
    np.testing.assert_allclose(x.asnumpy(), 2 * A[:, :3] + 0.5 * np.outer(V, V), rtol=1e-6)


# ---------------------------------------------------------------- random functions: shapes, dtypes, streams
def test_random_shapes_dtypes_and_generator_streams():
    assert mint.rand(2, 3).shape == (2, 3) and mint.rand((4,), dtype=ms.float64).dtype == ms.float64
    assert mint.randn([2, 2]).shape == (2, 2)
    # a shape tuple first: what follows is ignored, as MindSpore's (its examples pass the dtype so: float32 stays)
    for fn in (mint.rand, mint.randn):
        x = fn((1, 2, 4), ms.float16)
        assert x.shape == (1, 2, 4) and x.dtype == ms.float32
    r = mint.randint(3, 7, (1000,)).asnumpy()
    assert r.min() >= 3 and r.max() <= 6 and r.dtype == np.int64
    assert mint.randint(5, (3,)).asnumpy().max() < 5
    assert mint.randint_like(X, 2).dtype == X.dtype and mint.randint_like(X, 2).asnumpy().max() <= 1
    assert sorted(mint.randperm(6).asnumpy().tolist()) == list(range(6))
    assert mint.rand_like(X).shape == X.shape and mint.randn_like(X, dtype=ms.float64).dtype == ms.float64
    ms.set_seed(3)
    a = mint.randn(5).asnumpy()
    ms.set_seed(3)
    np.testing.assert_array_equal(a, mint.randn(5).asnumpy())
    draws = mint.multinomial(_t(np.array([0.0, 1.0, 0.0], np.float32)), 4, True).asnumpy()
    assert (draws == 1).all()
    assert sorted(mint.multinomial(_t(np.ones(4, np.float32)), 4).asnumpy().tolist()) == [0, 1, 2, 3]


def test_normal_statistics_and_reparameterised_gradient():
    ms.set_seed(0)
    z = mint.normal(2.0, 0.5, (20000,)).asnumpy()
    assert abs(z.mean() - 2.0) < 0.02 and abs(z.std() - 0.5) < 0.02
    mean = _t(np.zeros(3, np.float32))
    std = _t(np.ones(3, np.float32))
    g = ms.grad(lambda m, s: mint.normal(m, s).sum(), grad_position=(0, 1))(mean, std)
    np.testing.assert_allclose(g[0].asnumpy(), np.ones(3))
    b = mint.bernoulli(_t(np.array([0.0, 1.0], np.float32))).asnumpy()
    np.testing.assert_array_equal(b, [0.0, 1.0])


# ---------------------------------------------------------------- gradients and graph mode of a representative set
def _ref_max_dim(x):
    return x.max(1)


SPECS = [
    OpSpec("mint.add-alpha", lambda x, y: mint.add(x, y, alpha=2.5), lambda x, y: x + 2.5 * y, shapes=[(3, 4), (4,)]),
    OpSpec("mint.sum-dim", lambda x: mint.sum(x, dim=1, keepdim=True), lambda x: x.sum(1, keepdims=True)),
    OpSpec("mint.mean-dims", lambda x: mint.mean(x, (0, 1)), lambda x: x.mean()),
    OpSpec("mint.max-dim", lambda x: mint.max(x, 1)[0], _ref_max_dim),
    OpSpec("mint.amax", lambda x: mint.amax(x, 0), lambda x: x.max(0)),
    OpSpec("mint.std", lambda x: mint.std(x, 1), lambda x: x.std(1, ddof=1), grad2=True),
    OpSpec("mint.var-keepdim", lambda x: mint.var(x, 0, correction=0, keepdim=True),
           lambda x: x.var(0, keepdims=True)),
    OpSpec("mint.prod", lambda x: mint.prod(x, 1), lambda x: x.prod(1), gen=positive),
    OpSpec("mint.cumsum", lambda x: mint.cumsum(x, 0), lambda x: np.cumsum(x, 0)),
    OpSpec("mint.gather", lambda x, i: mint.gather(x, 1, i), lambda x, i: np.take_along_axis(x, i, 1),
           shapes=[(3, 4), (3, 2)], gen=[None, ints(0, 4)]),
    OpSpec("mint.transpose", lambda x: mint.transpose(x, 0, 1), lambda x: x.T),
    OpSpec("mint.cat", lambda x, y: mint.cat([x, y], dim=1), lambda x, y: np.concatenate([x, y], 1),
           shapes=[(3, 4), (3, 2)]),
    OpSpec("mint.norm", lambda x: mint.norm(x, 3, dim=1), lambda x: (np.abs(x) ** 3).sum(1) ** (1 / 3)),
    OpSpec("mint.clamp", lambda x: mint.clamp(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    OpSpec("mint.where", lambda c, x, y: mint.where(c, x, y), np.where, shapes=[(3, 4)] * 3,
           gen=[lambda r, s: r.uniform(size=s) > 0.5, None, None]),
    OpSpec("mint.baddbmm", lambda i, a, b: mint.baddbmm(i, a, b, beta=0.5, alpha=2.0),
           lambda i, a, b: 0.5 * i + 2.0 * a @ b, shapes=[(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    OpSpec("mint.vdot", lambda a, b: mint.vdot(a, b), np.vdot, shapes=[(5,), (5,)]),
    OpSpec("mint.dot", lambda a, b: mint.dot(a, b), np.dot, shapes=[(5,), (5,)]),
    OpSpec("mint.conv2d", lambda x, w: mint.conv2d(x, w, padding=(1, 0), stride=2), None,
           shapes=[(1, 2, 5, 5), (3, 2, 3, 3)]),
    OpSpec("mint.diag", lambda x: mint.diag(x, 1), lambda x: np.diag(x, 1), shapes=[(4,)]),
    OpSpec("mint.normalize-softmax", lambda x: mint.softmax(x, 1), None),
    OpSpec("mint.special.log_softmax", lambda x: mint.special.log_softmax(x, 1),
           lambda x: x - np.log(np.exp(x).sum(1, keepdims=True))),
    OpSpec("mint.linalg.vector_norm", lambda x: mint.linalg.vector_norm(x, 2, dim=0, keepdim=True),
           lambda x: np.sqrt((x * x).sum(0, keepdims=True))),
    OpSpec("mint.linalg.matrix_norm", lambda x: mint.linalg.matrix_norm(x), lambda x: np.sqrt((x * x).sum())),
    OpSpec("mint.linalg.inv", lambda x: mint.linalg.inv(x), np.linalg.inv, shapes=[(3, 3)],
           gen=lambda r, s: r.standard_normal(s) + 3 * np.eye(3)),
]
test_spec_value, test_spec_grad, test_spec_grad2, test_spec_graph = make_tests(SPECS)


def test_graph_mode_max_overloads_and_keepdim():
    @ms.jit
    def f(x, y):
        values, indices = mint.max(x, 1, keepdim=True)
        return values, indices, mint.max(x, y), mint.sum(x, dim=0)

    out = f(X, Y)
    np.testing.assert_allclose(out[0].asnumpy(), A.max(1, keepdims=True))
    np.testing.assert_array_equal(out[1].asnumpy(), A.argmax(1)[:, None])
    np.testing.assert_allclose(out[2].asnumpy(), np.maximum(A, B))
    np.testing.assert_allclose(out[3].asnumpy(), A.sum(0))


def test_indices_and_counts_are_int64():
    x = X
    for out in (mint.argmin(x), mint.argmax(x, 1), mint.argsort(x), mint.sort(x)[1], mint.topk(x, 2)[1],
                mint.cummin(x, 1)[1], mint.cummax(x, 1)[1], mint.max(x, 1)[1], mint.min(x, 0)[1],
                mint.kthvalue(x, 1, 0)[1], mint.median(x, 1)[1], mint.count_nonzero(x), mint.nonzero(x)):
        assert out.dtype == ms.int64
