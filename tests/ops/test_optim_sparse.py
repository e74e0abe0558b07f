"""The remaining optimizer primitives (sign rules, proximal GD, Keras momentum, Adagrad-DA, AdamNoUpdateParam,
FusedWeightScaleApplyMomentum) and the row-sparse SparseApply*/FusedSparse* forms, against numpy references."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

R = np.random.RandomState(0)


def _param(a, name, dtype=np.float64):
    return ms.Parameter(ms.Tensor(np.array(a, dtype)), name=name)


def _np_adagrad(var, acc, g, lr, eps=0.0):
    acc = acc + g * g
    return var - lr * g / (np.sqrt(acc) + eps), acc


def test_add_sign_power_sign_proximal_keras_adagrad_da():
    v0, m0, g = R.randn(4), R.randn(4), R.randn(4)
    var, m = _param(v0, "v"), _param(m0, "m")
    ops.ApplyAddSign()(var, m, 0.1, 1.0, 0.5, 0.9, ms.Tensor(g))
    mn = 0.9 * m0 + 0.1 * g
    np.testing.assert_allclose(m.asnumpy(), mn)
    np.testing.assert_allclose(var.asnumpy(), v0 - 0.1 * (1.0 + 0.5 * np.sign(g) * np.sign(mn)) * g)
    var, m = _param(v0, "v"), _param(m0, "m")
    ops.ApplyPowerSign()(var, m, 0.1, np.e, 0.5, 0.9, ms.Tensor(g))
    np.testing.assert_allclose(var.asnumpy(), v0 - 0.1 * np.exp(np.e * 0.5 * np.sign(g) * np.sign(mn)) * g)
    var = _param(v0, "v")
    ops.ApplyProximalGradientDescent()(var, 0.1, 0.2, 0.3, ms.Tensor(g))
    prox = v0 - 0.1 * g
    np.testing.assert_allclose(var.asnumpy(), np.sign(prox) * np.maximum(np.abs(prox) - 0.02, 0) / 1.03)
    for nesterov in (False, True):
        var, acc = _param(v0, "v"), _param(m0, "a")
        out = ops.ApplyKerasMomentum(use_nesterov=nesterov)(var, acc, 0.1, ms.Tensor(g), 0.9)
        an = 0.9 * m0 - 0.1 * g
        np.testing.assert_allclose(acc.asnumpy(), an)
        np.testing.assert_allclose(var.asnumpy(), v0 + (0.9 * an - 0.1 * g if nesterov else an))
        np.testing.assert_array_equal(out[0].asnumpy(), var.asnumpy())
        np.testing.assert_array_equal(out[1].asnumpy(), acc.asnumpy())
        assert type(out[0]) is ms.Tensor
    var, ga, gs = _param(v0, "v"), _param(np.zeros(4), "ga"), _param(np.full(4, 0.1), "gs")
    ops.ApplyAdagradDA()(var, ga, gs, ms.Tensor(g), 0.1, 0.05, 0.2, 3)
    shrunk = np.sign(g) * np.maximum(np.abs(g) - 0.15, 0)
    np.testing.assert_allclose(var.asnumpy(), -0.1 * shrunk / (0.2 * 3 * 0.1 + np.sqrt(0.1 + g * g)))


def test_adam_no_update_param_and_weight_scaled_momentum():
    m, v, g = _param(np.zeros(3), "m"), _param(np.zeros(3), "v"), R.randn(3)
    upd = ops.AdamNoUpdateParam()(m, v, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, ms.Tensor(g))
    rate = 0.01 * np.sqrt(1 - 0.999) / (1 - 0.9)
    np.testing.assert_allclose(upd.asnumpy(), -rate * 0.1 * g / (np.sqrt(0.001 * g * g) + 1e-8))
    var, acc = _param([1.0, 2.0], "w"), _param([0.0, 0.0], "acc")
    ops.FusedWeightScaleApplyMomentum()(0.1, 2.0, var, acc, 0.5, ms.Tensor([2.0, 4.0]), 0.9)
    gs = np.array([2.0, 4.0]) / 2 + 0.1 * np.array([1.0, 2.0])
    np.testing.assert_allclose(var.asnumpy(), [1.0, 2.0] - 0.5 * gs)


@pytest.mark.parametrize("cls", ["SparseApplyAdagrad", "SparseApplyAdagradV2"])
def test_sparse_adagrad_updates_only_the_rows_and_sums_duplicates(cls):
    # MindSpore's SparseApply* kernels take float16 / float32 only
    v0, a0 = R.randn(4, 2).astype(np.float32), np.full((4, 2), 0.1, np.float32)
    var, acc = _param(v0, "v", np.float32), _param(a0, "a", np.float32)
    grad, idx = R.randn(3, 2).astype(np.float32), np.array([2, 0, 2])
    op = ops.SparseApplyAdagrad(lr=0.5) if cls == "SparseApplyAdagrad" else ops.SparseApplyAdagradV2(0.5, 1e-3)
    op(var, acc, ms.Tensor(grad), ms.Tensor(idx, ms.int32))
    g = np.zeros((4, 2))
    np.add.at(g, idx, grad)
    want_v, want_a = _np_adagrad(v0, a0, g, 0.5, 0.0 if cls == "SparseApplyAdagrad" else 1e-3)
    rows = [0, 2]
    np.testing.assert_allclose(var.asnumpy()[rows], want_v[rows], rtol=1e-5)
    np.testing.assert_allclose(acc.asnumpy()[rows], want_a[rows], rtol=1e-5)
    np.testing.assert_array_equal(var.asnumpy()[[1, 3]], v0[[1, 3]])


def test_sparse_forms_agree_with_the_dense_primitives_on_their_rows():
    idx = np.array([3, 1])
    grad = R.randn(2, 3).astype(np.float32)      # MindSpore's SparseApply* kernels take float16 / float32 only
    dense_g = np.zeros((5, 3), np.float32)
    dense_g[idx] = grad
    cases = [
        ("SparseApplyProximalAdagrad", lambda t: ops.SparseApplyProximalAdagrad()(t[0], t[1], 0.1, 0.01, 0.02,
                                                                                 ms.Tensor(grad), ms.Tensor(idx)),
         lambda t: ops.ApplyProximalAdagrad()(t[0], t[1], 0.1, 0.01, 0.02, ms.Tensor(dense_g)), 2),
        ("SparseApplyFtrl", lambda t: ops.SparseApplyFtrl(0.1, 0.01, 0.02, -0.5)(t[0], t[1], t[2], ms.Tensor(grad),
                                                                               ms.Tensor(idx)),
         lambda t: ops.ApplyFtrl()(t[0], t[1], t[2], ms.Tensor(dense_g), 0.1, 0.01, 0.02, -0.5), 3),
        ("SparseApplyRMSProp", lambda t: ops.SparseApplyRMSProp(0.9, 0.5, 1e-6)(t[0], t[1], t[2], 0.1,
                                                                              ms.Tensor(grad), ms.Tensor(idx)),
         lambda t: ops.ApplyRMSProp()(t[0], t[1], t[2], 0.1, ms.Tensor(dense_g), 0.9, 0.5, 1e-6), 3),
        ("SparseApplyAdadelta", lambda t: ops.SparseApplyAdadelta(1e-6)(t[0], t[1], t[2], 0.1, 0.9, ms.Tensor(grad),
                                                                       ms.Tensor(idx)),
         lambda t: ops.ApplyAdadelta()(t[0], t[1], t[2], 0.1, 0.9, 1e-6, ms.Tensor(dense_g)), 3),
        ("FusedSparseLazyAdam", lambda t: ops.FusedSparseLazyAdam()(t[0], t[1], t[2], 0.9, 0.999, 0.01, 0.9, 0.999,
                                                                    1e-8, ms.Tensor(grad), ms.Tensor(idx)),
         lambda t: ops.Adam()(t[0], t[1], t[2], 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, ms.Tensor(dense_g)), 3),
    ]
    for name, sparse, dense, n in cases:
        start = [(np.abs(R.randn(5, 3)) + 0.1).astype(np.float32) for _ in range(n)]
        a = [_param(s, f"a{k}", np.float32) for k, s in enumerate(start)]
        b = [_param(s, f"b{k}", np.float32) for k, s in enumerate(start)]
        sparse(a)
        dense(b)
        for x, y, s in zip(a, b, start):
            np.testing.assert_allclose(x.asnumpy()[idx], y.asnumpy()[idx], rtol=1e-6, err_msg=name)
            np.testing.assert_array_equal(x.asnumpy()[[0, 2, 4]], s[[0, 2, 4]], err_msg=name)


def test_fused_sparse_adam_is_dense_adam_on_the_scattered_gradient_and_errors():
    start = [R.randn(4, 2), np.zeros((4, 2)), np.zeros((4, 2))]
    a = [_param(s, f"a{k}") for k, s in enumerate(start)]
    b = [_param(s, f"b{k}") for k, s in enumerate(start)]
    grad, idx = R.randn(1, 2), np.array([2])
    ops.FusedSparseAdam()(*a, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, ms.Tensor(grad), ms.Tensor(idx))
    dense = np.zeros((4, 2))
    dense[2] = grad
    ops.Adam()(*b, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, ms.Tensor(dense))
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.asnumpy(), y.asnumpy())
    with pytest.raises(TypeError, match="For 'SparseApplyAdagrad', missing a required argument: 'lr'"):
        ops.SparseApplyAdagrad()
    with pytest.raises(TypeError, match="For 'SparseApplyAdagrad', 4 inputs"):
        ops.SparseApplyAdagrad(0.1)(a[0], a[1], ms.Tensor(grad))
    f32 = [_param(x.asnumpy(), f"c{k}", np.float32) for k, x in enumerate(a)]
    g32 = ms.Tensor(grad.astype(np.float32))
    with pytest.raises(ValueError, match="For 'SparseApplyAdagrad', the shape of 'accum'"):
        ops.SparseApplyAdagrad(0.1)(f32[0], _param(np.ones(3), "x", np.float32), g32, ms.Tensor(idx))
    with pytest.raises(ValueError, match="For 'SparseApplyAdagrad'.*indices must be in \\[0, 4\\)"):
        ops.SparseApplyAdagrad(0.1)(f32[0], f32[1], g32, ms.Tensor(np.array([7])))
    with pytest.raises(TypeError, match=r"For primitive\[SparseApplyAdagrad\], the input argument\[var\] must be a "
                                        r"type of \{Tensor\[Float16\], Tensor\[Float32\]\}, but got Tensor\[Float64\]"):
        ops.SparseApplyAdagrad(0.1)(a[0], a[1], ms.Tensor(grad), ms.Tensor(idx))


def test_sparse_rms_prop_rounds_mean_square_as_mindspore():
    """ms = ms * rho + (g * g) * (1 - rho) in float32, in that order: the numbers MindSpore 2.10's CPU kernel gives
    (a fused ms + (1 - rho) g^2 is one ulp off at these magnitudes)."""
    rng = np.random.RandomState(0)
    var0, ms0, mom0, g = (rng.uniform(0, 20, (2, 3, 2, 4)).astype(np.float32) for _ in range(4))
    var, mean_sq, mom = (ms.Parameter(ms.Tensor(a.copy()), name=n) for a, n in ((var0, "v"), (ms0, "ms"), (mom0, "m")))
    ops.SparseApplyRMSProp(0.2, 0.01, 1e-6, True)(var, mean_sq, mom, 0.01, ms.Tensor(g), ms.Tensor([0, 1]))
    rho = np.float32(0.2)
    want = ms0 * rho + (g * g) * (np.float32(1) - rho)
    np.testing.assert_array_equal(mean_sq.asnumpy(), want)
    assert mean_sq.asnumpy().ravel()[:2].tolist() == [np.float32(209.24535), np.float32(160.00179)]


def test_sparse_rms_prop_zero_gradient_and_float16_as_mindspore():
    """Where the gradient is 0 MindSpore leaves ms as it is (var and mom still move); float16 state is computed in
    float32 and rounded once. Numbers from MindSpore 2.10 CPU."""
    var, mean_sq, mom = (ms.Parameter(ms.Tensor(np.array(a, np.float32)), name=n) for a, n in (
        ([[0.6, 0.3], [0.1, 0.5]], "v"), ([[0.2, 0.4], [0.1, 0.3]], "ms"), ([[0.3, 0.1], [0.3, 0.6]], "m")))
    ops.SparseApplyRMSProp(0.2, 0.01, 1e-6)(var, mean_sq, mom, 0.01, ms.Tensor(np.array([[0.0, 0.7], [0.0, 0.0]],
                                                                                       np.float32)), ms.Tensor([0, 1]))
    np.testing.assert_array_equal(mean_sq.asnumpy(), np.array([[0.2, 0.472], [0.1, 0.3]], np.float32))
    np.testing.assert_array_equal(mom.asnumpy(), np.array([[0.003, 0.011188882403075695], [0.003, 0.006]], np.float32))
    np.testing.assert_array_equal(var.asnumpy(), np.array([[0.597, 0.2888111174106598], [0.097, 0.494]], np.float32))
    rng = np.random.RandomState(0)
    v0, m0, mo0, g = (rng.uniform(0, 5, (2, 2, 2)).astype(np.float16) for _ in range(4))
    var, mean_sq, mom = (ms.Parameter(ms.Tensor(a), name=n) for a, n in ((v0, "v"), (m0, "ms"), (mo0, "m")))
    ops.SparseApplyRMSProp(0.2, 0.01, 1e-6)(var, mean_sq, mom, ms.Tensor(0.01, ms.float16), ms.Tensor(g),
                                            ms.Tensor([0, 1]))
    assert mean_sq.asnumpy().ravel().tolist() == [1.2431640625, 8.5703125, 1.203125, 18.375, 6.015625, 4.3671875,
                                                  1.4716796875, 12.078125]
    assert var.asnumpy().ravel().tolist() == [2.73828125, 3.5234375, 2.96875, 2.669921875, 2.05859375, 3.177734375,
                                              2.154296875, 4.40625]


def test_sparse_apply_centered_rms_prop_updates_the_rows_given():
    from mindseed.ops.operations.nn_ops import SparseApplyCenteredRMSProp
    start = {"var": [[0.6, 0.4], [0.1, 0.5], [1.0, 1.0]], "mg": [[0.1, 0.3], [0.1, 0.5], [0.0, 0.0]],
             "ms": [[0.2, 0.1], [0.1, 0.2], [1.0, 1.0]], "mom": [[0.2, 0.1], [0.1, 0.2], [0.0, 0.0]]}
    p = {k: ms.Parameter(ms.Tensor(np.array(v, np.float32)), name=k) for k, v in start.items()}
    g = np.array([[0.3, 0.4], [0.1, 0.2]], np.float32)
    lr, rho, momentum, eps = 0.001, 0.9, 0.5, 0.01
    out = SparseApplyCenteredRMSProp()(p["var"], p["mg"], p["ms"], p["mom"], ms.Tensor(lr), ms.Tensor(rho),
                                       ms.Tensor(momentum), ms.Tensor(eps), ms.Tensor(g), ms.Tensor([1, 0], ms.int32))
    rows = [1, 0]
    a = {k: np.array(v, np.float64) for k, v in start.items()}
    new_ms = rho * a["ms"][rows] + (1 - rho) * g * g
    new_mg = rho * a["mg"][rows] + (1 - rho) * g
    new_mom = momentum * a["mom"][rows] + lr * g / np.sqrt(new_ms - new_mg ** 2 + eps)
    expected = a["var"].copy()
    expected[rows] -= new_mom
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(p["var"].asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(p["ms"].asnumpy()[rows], new_ms, rtol=1e-6)
    np.testing.assert_allclose(p["mg"].asnumpy()[rows], new_mg, rtol=1e-6)
    np.testing.assert_array_equal(p["var"].asnumpy()[2], [1.0, 1.0])      # a row not given stays


def test_sparse_apply_momentum_walks_the_indices_in_order_in_float16():
    from mindseed.ops.operations.nn_ops import SparseApplyMomentum
    var = ms.Parameter(ms.Tensor(np.array([[4.1, 7.2], [1.1, 3.0], [0.5, -0.5]], np.float16)), name="var")
    acc = ms.Parameter(ms.Tensor(np.array([[2.2, 3.0], [3.1, 0.5], [1.0, 1.0]], np.float16)), name="acc")
    grad = ms.Tensor(np.array([[0.3, 0.2], [0.4, 0.1], [0.7, -0.9]], np.float16))
    # use_nesterov does not change MindSpore 2.10's CPU kernel: plain momentum; row 0 is updated twice
    out = SparseApplyMomentum(use_nesterov=True)(var, acc, ms.Tensor(0.01, ms.float16), grad,
                                                 ms.Tensor([0, 2, 0], ms.int32), ms.Tensor(0.99, ms.float16))
    # values of MindSpore 2.10 (float16, rounded after each operation)
    assert out.asnumpy().tolist() == [[4.046875, 7.14453125], [1.099609375, 3.0], [0.486083984375, -0.5107421875]]
    assert acc.asnumpy().tolist() == [[3.15625, 2.23828125], [3.099609375, 0.5], [1.390625, 1.08984375]]


def test_sparse_apply_momentum_float64_repeated_row():
    from mindseed.ops.operations.nn_ops import SparseApplyMomentum
    var = ms.Parameter(ms.Tensor(np.array([[1.0]], np.float64)), name="var")
    acc = ms.Parameter(ms.Tensor(np.array([[2.0]], np.float64)), name="acc")
    out = SparseApplyMomentum()(var, acc, ms.Tensor(0.1, ms.float64), ms.Tensor(np.array([[0.5], [0.25]])),
                                ms.Tensor([0, 0], ms.int32), ms.Tensor(0.5, ms.float64))
    # accum: 2 * 0.5 + 0.5 = 1.5, var = 1 - 0.15; accum: 1.5 * 0.5 + 0.25 = 1, var = 0.85 - 0.1
    np.testing.assert_allclose(out.asnumpy(), [[0.75]], rtol=1e-12)
    np.testing.assert_allclose(acc.asnumpy(), [[1.0]], rtol=1e-12)


def test_sparse_apply_proximal_gradient_descent_rows():
    from mindseed.ops.operations.nn_ops import SparseApplyProximalGradientDescent
    start = np.array([[4.1, 7.2], [1.1, 3.0], [0.5, -0.5]], np.float32)
    var = ms.Parameter(ms.Tensor(start), name="var")
    grad = np.array([[1, -2], [0.5, 3], [2.5, 0.25]], np.float32)
    alpha, l1, l2 = 0.5, 0.3, 0.2
    out = SparseApplyProximalGradientDescent()(var, ms.Tensor(alpha, ms.float32), ms.Tensor(l1, ms.float32),
                                               ms.Tensor(l2, ms.float32), ms.Tensor(grad),
                                               ms.Tensor([2, 0, 2], ms.int64))
    expected = start.astype(np.float64)
    for i, row in enumerate([2, 0, 2]):
        prox = expected[row] - alpha * grad[i]
        expected[row] = np.sign(prox) * np.maximum(np.abs(prox) - alpha * l1, 0) / (1 + alpha * l2)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), expected, rtol=1e-6)
    # float64 and l1 = 0: prox / (1 + alpha l2)
    v64 = ms.Parameter(ms.Tensor(np.array([[4.1, 7.2], [1.1, 3.0]])), name="v64")
    out = SparseApplyProximalGradientDescent()(v64, ms.Tensor(1.0, ms.float64), ms.Tensor(0.0, ms.float64),
                                               ms.Tensor(1.0, ms.float64), ms.Tensor(np.ones((1, 2))),
                                               ms.Tensor([1], ms.int32))
    np.testing.assert_allclose(out.asnumpy(), [[4.1, 7.2], [0.05, 1.0]], rtol=1e-12)


def test_sparse_apply_adagrad_da_rows():
    from mindseed.ops.operations.nn_ops import SparseApplyAdagradDA
    p = {k: ms.Parameter(ms.Tensor(np.array(v, np.float32)), name=k) for k, v in (
        ("var", [[1, 2], [1, 2], [3, 4]]), ("ga", [[2, 1], [3, 1], [-1, 0.5]]), ("gs", [[4, 1], [5, 1], [1, 1]]))}
    grad = ms.Tensor(np.array([[5, 1], [6, 1], [-2, 0.1]], np.float32))
    out = SparseApplyAdagradDA()(p["var"], p["ga"], p["gs"], grad, ms.Tensor([1, 2, 1], ms.int32),
                                 ms.Tensor(2, ms.float32), ms.Tensor(0.5, ms.float32), ms.Tensor(1, ms.float32),
                                 ms.Tensor(3, ms.int64))
    # MindSpore 2.10's values: var = -sign(ga) max(|ga| / t - l1, 0) / (l2 + sqrt(gs) / (t lr)), row 1 twice
    np.testing.assert_allclose(out.asnumpy(), [[1.0, 2.0], [-0.760716438293457, -0.16177421808242798],
                                               [-0.5793376564979553, -0.0]], rtol=1e-6)
    np.testing.assert_allclose(p["ga"].asnumpy(), [[2.0, 1.0], [6.0, 2.1], [5.0, 1.5]], rtol=1e-6)
    np.testing.assert_allclose(p["gs"].asnumpy(), [[4.0, 1.0], [34.0, 2.01], [37.0, 2.0]], rtol=1e-6)
    # l1 <= 0: no shrinkage, float16 rounded after each operation
    h = {k: ms.Parameter(ms.Tensor(np.array(v, np.float16)), name=k) for k, v in (
        ("var", [[1, 2], [1, 2]]), ("ga", [[2, 1], [3, 1]]), ("gs", [[4, 1], [5, 1]]))}
    out = SparseApplyAdagradDA()(h["var"], h["ga"], h["gs"], ms.Tensor(np.array([[5, 1], [6, 1]], np.float16)),
                                 ms.Tensor([1, 1], ms.int32), ms.Tensor(2, ms.float16), ms.Tensor(-1, ms.float16),
                                 ms.Tensor(1, ms.float16), ms.Tensor(1, ms.int64))
    ga, gs = np.array([14.0, 3.0]), np.array([66.0, 3.0])
    np.testing.assert_allclose(out.asnumpy()[1], -ga / (1 + np.sqrt(gs) / 2), rtol=1e-3)
    np.testing.assert_array_equal(out.asnumpy()[0], [1, 2])


def test_sparse_apply_ftrl_passes_over_indices_outside_the_rows():
    # MindSpore 2.10 CPU (oracle): SparseApplyFtrl skips an index past the rows (logging an error) and updates the
    # others: row 1 with grad 0.7, index 3 ignored
    var = ms.Parameter(ms.Tensor(np.array([[0.2], [0.3]], np.float32)), name="v")
    accum = ms.Parameter(ms.Tensor(np.array([[0.1], [0.1]], np.float32)), name="a")
    linear = ms.Parameter(ms.Tensor(np.array([[0.6], [0.6]], np.float32)), name="l")
    out = ops.SparseApplyFtrl(0.01, 0.0, 0.0, -0.5)(var, accum, linear, ms.Tensor(np.array([[0.7], [0.5]], np.float32)),
                                                    ms.Tensor(np.array([1, 3]), ms.int32))
    np.testing.assert_allclose(out[0].asnumpy(), [[0.2], [0.159567416]], rtol=1e-6)
    np.testing.assert_allclose(out[1].asnumpy(), [[0.1], [0.589999974]], rtol=1e-6)
    np.testing.assert_allclose(out[2].asnumpy(), [[0.6], [-12.2566051]], rtol=1e-6)
