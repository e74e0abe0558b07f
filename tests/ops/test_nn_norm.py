"""nn family, normalization: values vs numpy, gradients to second (and third) order, running statistics."""
import numpy as np

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests, positive
import _nn_ref as R


def _bn_train(x, w, b):
    return ops.batch_norm(x, ops.zeros(x.shape[1], x.dtype), ops.ones(x.shape[1], x.dtype), w, b, True)


def _bn_eval(x, w, b, m, v):
    return ops.batch_norm(x, m, v, w, b)


def _rms_ref(x, g, eps=1e-6):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * g


def _lrn_ref(x, r, bias, alpha, beta):
    sq = x * x
    c = x.shape[1]
    s = np.stack([sq[:, max(0, i - r):i + r + 1].sum(1) for i in range(c)], 1)
    return x / (bias + alpha * s) ** beta


SPECS = [
    OpSpec("layer_norm", lambda x, w, b: ops.layer_norm(x, (4,), w, b), lambda x, w, b: R.layer_norm(x, 1, w, b),
           shapes=[(3, 4), (4,), (4,)], grad2=True),
    OpSpec("layer_norm_2d_shape", lambda x, w, b: ops.layer_norm(x, (3, 2), w, b, 1e-3),
           lambda x, w, b: R.layer_norm(x, 2, w, b, 1e-3), shapes=[(2, 3, 2), (3, 2), (3, 2)], grad2=True),
    OpSpec("layer_norm_no_affine", lambda x: ops.layer_norm(x, 5), lambda x: R.layer_norm(x, 1),
           shapes=[(2, 5)], grad2=True),
    OpSpec("layer_norm_bias_only", lambda x, b: ops.layer_norm(x, (4,), None, b),
           lambda x, b: R.layer_norm(x, 1, None, b), shapes=[(3, 4), (4,)]),
    OpSpec("batch_norm_train", _bn_train, R.batch_norm_train, shapes=[(4, 3, 2), (3,), (3,)], grad2=True),
    OpSpec("batch_norm_train_2d", _bn_train, R.batch_norm_train, shapes=[(5, 3), (3,), (3,)], grad2=True),
    OpSpec("batch_norm_eval", _bn_eval,
           lambda x, w, b, m, v: (x - m.reshape(3, 1, 1)) / np.sqrt(v.reshape(3, 1, 1) + 1e-5) * w.reshape(3, 1, 1)
           + b.reshape(3, 1, 1), shapes=[(2, 3, 2, 2), (3,), (3,), (3,), (3,)],
           gen=[None, None, None, None, positive], grad2=True),
    OpSpec("group_norm", lambda x, w, b: ops.group_norm(x, 2, w, b), lambda x, w, b: R.group_norm(x, 2, w, b),
           shapes=[(2, 4, 3), (4,), (4,)], grad2=True),
    OpSpec("group_norm_no_affine", lambda x: ops.group_norm(x, 3), lambda x: R.group_norm(x, 3),
           shapes=[(2, 6, 2, 2)], grad2=True),
    OpSpec("rms_norm", lambda x, g: ops.rms_norm(x, g)[0], _rms_ref, shapes=[(3, 4), (4,)], grad2=True),
    OpSpec("add_rms_norm", lambda a, b, g: ops.add_rms_norm(a, b, g)[0], lambda a, b, g: _rms_ref(a + b, g),
           shapes=[(3, 4), (3, 4), (4,)]),
    OpSpec("add_layer_norm", lambda a, b, g, c: ops.add_layer_norm(a, b, g, c)[0],
           lambda a, b, g, c: R.layer_norm(a + b, 1, g, c), shapes=[(3, 4), (3, 4), (4,), (4,)]),
    OpSpec("lrn", lambda x: ops.lrn(x, 1, 1.0, 0.5, 0.75), lambda x: _lrn_ref(x, 1, 1.0, 0.5, 0.75),
           shapes=[(2, 4, 2, 3)], grad2=True),
    OpSpec("LayerNorm_class", lambda x, g, b: ops.LayerNorm(1, 1, 1e-7)(x, g, b)[0],
           lambda x, g, b: R.layer_norm(x, 2, g, b, 1e-7), shapes=[(2, 3, 4), (3, 4), (3, 4)]),
    OpSpec("LayerNorm_class_params_axis", lambda x, g, b: ops.LayerNorm(1, 2, 1e-5)(x, g, b)[0],
           lambda x, g, b: R.layer_norm(x, 2) * g + b, shapes=[(2, 3, 4), (4,), (4,)]),
    OpSpec("L2Normalize", lambda x: ops.L2Normalize(1)(x),
           lambda x: x / np.sqrt(np.maximum((x * x).sum(1, keepdims=True), 1e-4)), shapes=[(3, 4)], grad2=True),
]

test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def test_batch_norm_training_updates_running_stats_in_place():
    r = np.random.RandomState(0)
    x = r.randn(6, 3, 2).astype(np.float32)
    rm = ms.Parameter(ms.Tensor(np.full(3, 0.5, np.float32)), name="rm")
    rv = ms.Tensor(np.ones(3, np.float32))
    ops.batch_norm(ms.Tensor(x), rm, rv, ops.ones(3), ops.zeros(3), training=True, momentum=0.2)
    np.testing.assert_allclose(rm.asnumpy(), 0.8 * 0.5 + 0.2 * x.mean((0, 2)), rtol=1e-6)
    np.testing.assert_allclose(rv.asnumpy(), 0.8 + 0.2 * x.var((0, 2), ddof=1), rtol=1e-6)
    before = rm.asnumpy().copy()
    ops.batch_norm(ms.Tensor(x), rm, rv, ops.ones(3), ops.zeros(3), training=False)
    np.testing.assert_array_equal(rm.asnumpy(), before)


def test_batch_norm_class_outputs_and_update():
    r = np.random.RandomState(1)
    x = r.randn(4, 2, 3).astype(np.float32)
    mean, var = ms.Tensor(np.zeros(2, np.float32)), ms.Tensor(np.ones(2, np.float32))
    y, bm, bv, _, _ = ops.BatchNorm(is_training=True, momentum=0.1)(ms.Tensor(x), ops.ones(2), ops.zeros(2), mean,
                                                                     var)
    np.testing.assert_allclose(y.asnumpy(), R.batch_norm_train(x, np.ones(2), np.zeros(2)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bm.asnumpy(), x.mean((0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bv.asnumpy(), x.var((0, 2)), rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), 0.1 * x.mean((0, 2)), rtol=1e-5, atol=1e-7)


def test_layer_norm_class_returns_mean_and_variance():
    r = np.random.RandomState(0)
    x = r.randn(4, 3)
    y, mean, var = ops.LayerNorm(1, 1, 1e-7)(ms.Tensor(x), ops.ones(3, ms.float64), ops.zeros(3, ms.float64))
    np.testing.assert_allclose(mean.asnumpy(), x.mean(1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(var.asnumpy(), x.var(1, keepdims=True), rtol=1e-6)


def test_norm_third_order_gradient():
    """grad of grad of grad through LayerNormGrad's recomputed statistics, vs finite differences."""
    w = ms.Tensor(np.array([1.5, -0.5, 2.0]))

    def d2(x):
        inner = ms.grad(lambda z: (ops.layer_norm(z, (3,), w) ** 3).sum())
        return ms.grad(lambda z: (inner(z) ** 2).sum())(x)
    x = np.random.RandomState(4).randn(2, 3)
    got = ms.grad(lambda z: d2(z).sum())(ms.Tensor(x)).asnumpy()
    eps, want = 1e-5, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        want[i] = (d2(ms.Tensor(xp)).asnumpy().sum() - d2(ms.Tensor(xm)).asnumpy().sum()) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


ERRORS = [
    ErrorSpec("layer_norm_shape", lambda: ops.layer_norm(ops.ones((2, 3)), (4,)), ValueError, "For 'layer_norm'"),
    ErrorSpec("layer_norm_weight", lambda: ops.layer_norm(ops.ones((2, 3)), (3,), ops.ones(2)), ValueError,
              "'weight' shape must be (3,)"),
    ErrorSpec("layer_norm_int", lambda: ops.layer_norm(ms.Tensor([[1, 2]]), (2,)), TypeError, "For 'layer_norm'"),
    ErrorSpec("batch_norm_stats", lambda: ops.batch_norm(ops.ones((2, 3)), ops.zeros(2), ops.ones(3), ops.ones(3),
                                                         ops.zeros(3)), ValueError, "'running_mean' shape"),
    ErrorSpec("batch_norm_1d", lambda: ops.batch_norm(ops.ones(3), ops.zeros(3), ops.ones(3), ops.ones(3),
                                                      ops.zeros(3)), ValueError, "at least 2 dimensions"),
    ErrorSpec("group_norm_groups", lambda: ops.group_norm(ops.ones((2, 3, 2)), 2), ValueError, "For 'GroupNorm'"),
    ErrorSpec("rms_norm_gamma", lambda: ops.rms_norm(ops.ones((2, 3)), ops.ones(2)), ValueError, "For 'RmsNorm'"),
    ErrorSpec("lrn_rank", lambda: ops.lrn(ops.ones((2, 3))), ValueError, "For 'LRN'"),
    ErrorSpec("LayerNorm_gamma", lambda: ops.LayerNorm()(ops.ones((2, 3)), ops.ones(2), ops.ones(2)), ValueError,
              "For 'LayerNorm'"),
]
test_bad_input = make_error_tests(ERRORS)


def test_group_norm_float32_gradient_as_accurate_as_mindspore():
    """float32 GroupNorm backward within 3e-7 of the float64 gradient (MindSpore's CPU kernel: 9e-8; a float32
    accumulation with float32 statistics drifted to 1.2e-6)."""
    rng = np.random.RandomState(0)
    x = rng.randint(1, 10, (1, 2, 4, 4)).astype(np.float32)
    dy = rng.randint(1, 10, (1, 2, 4, 4)).astype(np.float32)
    got = ms.grad(lambda a: (ops.group_norm(a, 2) * ms.Tensor(dy)).sum())(ms.Tensor(x)).asnumpy()
    xx, gg = x.astype(np.float64).reshape(1, 2, -1), dy.astype(np.float64).reshape(1, 2, -1)
    r = 1 / np.sqrt(xx.var(-1, keepdims=True) + 1e-5)
    xh = (xx - xx.mean(-1, keepdims=True)) * r
    n = xx.shape[-1]
    want = r / n * (n * gg - gg.sum(-1, keepdims=True) - xh * (gg * xh).sum(-1, keepdims=True))
    np.testing.assert_allclose(got, want.reshape(x.shape), rtol=0, atol=3e-7)
