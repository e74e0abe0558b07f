"""nn family, activations / softmax / dense / distances: values vs numpy, gradients to second order, bad input."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from _harness import ErrorSpec, OpSpec, ints, make_error_tests, make_tests
import _nn_ref as R


def _spread(r, s):
    """Values away from the kinks at 0, +-0.5, +-1, +-3 and 6 (finite differences must not straddle them)."""
    v = r.uniform(-7.5, 7.5, s)
    kinks = np.array([0.0, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 6.0, 0.2, 2.0])
    near = np.abs(v[..., None] - kinks).min(-1) < 0.05
    return np.where(near, v + 0.11, v)


def _relu6(x):
    return np.clip(x, 0, 6)


ACTIVATIONS = [
    OpSpec("relu6", ops.relu6, _relu6, gen=_spread, grad2=True),
    OpSpec("leaky_relu", lambda x: ops.leaky_relu(x, 0.3), lambda x: np.where(x > 0, x, 0.3 * x), gen=_spread,
           grad2=True),
    OpSpec("leaky_relu_big_alpha", lambda x: ops.leaky_relu(x, 1.5), lambda x: np.where(x > 0, x, 1.5 * x),
           gen=_spread),
    OpSpec("hardtanh", lambda x: ops.hardtanh(x, -1.0, 2.0), lambda x: np.clip(x, -1, 2), gen=_spread, grad2=True),
    OpSpec("hardshrink", lambda x: ops.hardshrink(x, 0.5), lambda x: np.where(np.abs(x) > 0.5, x, 0), gen=_spread,
           grad2=True),
    OpSpec("softshrink", lambda x: ops.softshrink(x, 1.0),
           lambda x: np.where(x > 1, x - 1, np.where(x < -1, x + 1, 0)), gen=_spread, grad2=True),
    OpSpec("threshold", lambda x: ops.threshold(x, 0.2, 20.0), lambda x: np.where(x > 0.2, x, 20.0), gen=_spread,
           grad2=True),
    OpSpec("hardsigmoid", ops.hardsigmoid, lambda x: _relu6(x + 3) / 6, gen=_spread, grad2=True),
    OpSpec("hardswish", ops.hardswish, lambda x: x * _relu6(x + 3) / 6, gen=_spread, grad2=True),
    OpSpec("elu", ops.elu, R.elu, grad2=True),
    OpSpec("elu_alpha", lambda x: ops.elu(x, 0.5), lambda x: R.elu(x, 0.5), grad2=True),
    OpSpec("selu", ops.selu, lambda x: R.SELU_SCALE * R.elu(x, R.SELU_ALPHA), grad2=True),
    OpSpec("celu", lambda x: ops.celu(x, 2.0), lambda x: np.maximum(x, 0) + np.minimum(0, 2 * (np.exp(x / 2) - 1)),
           grad2=True),
    OpSpec("gelu", ops.gelu, R.gelu, grad2=True),
    OpSpec("gelu_tanh", lambda x: ops.gelu(x, 'tanh'), lambda x: R.gelu(x, 'tanh'), grad2=True),
    OpSpec("fast_gelu", ops.fast_gelu, lambda x: x * R.sigmoid(1.702 * x), grad2=True),
    OpSpec("silu", ops.silu, lambda x: x * R.sigmoid(x), grad2=True),
    OpSpec("mish", ops.mish, lambda x: x * np.tanh(R.softplus(x)), grad2=True),
    OpSpec("softplus", ops.softplus, R.softplus, grad2=True),
    OpSpec("softplus_beta_threshold", lambda x: ops.softplus(x, 2, 3), lambda x: R.softplus(x, 2, 3),
           gen=lambda r, s: r.uniform(-2, 2.5, s) * 1.3, grad2=True),
    OpSpec("softsign", ops.softsign, lambda x: x / (1 + np.abs(x)), gen=_spread, grad2=True),
    OpSpec("tanhshrink", ops.tanhshrink, lambda x: x - np.tanh(x), grad2=True),
    OpSpec("logsigmoid", ops.logsigmoid, lambda x: -R.softplus(-x), grad2=True),
    OpSpec("logsigmoid_large", ops.logsigmoid, lambda x: -R.softplus(-x), gen=lambda r, s: r.uniform(-40, 40, s),
           grad=False),
    OpSpec("glu", ops.glu, lambda x: x[:, :2] * R.sigmoid(x[:, 2:]), shapes=[(3, 4)], grad2=True),
    OpSpec("glu_axis0", lambda x: ops.glu(x, 0), lambda x: x[:2] * R.sigmoid(x[2:]), shapes=[(4, 3)], grad2=True),
    OpSpec("swiglu", ops.swiglu, lambda x: x[:, :2] * R.sigmoid(x[:, :2]) * x[:, 2:], shapes=[(3, 4)], grad2=True),
    OpSpec("prelu", ops.prelu, lambda x, w: np.where(x > 0, x, w.reshape(3, 1) * x), shapes=[(2, 3, 4), (3,)],
           gen=[_spread, None], grad2=True),
    OpSpec("prelu_shared", ops.prelu, lambda x, w: np.where(x > 0, x, w * x), shapes=[(4, 3), (1,)],
           gen=[_spread, None]),
]

SOFTMAX = [
    OpSpec("softmax", ops.softmax, R.softmax, grad2=True),
    OpSpec("softmax_axis0", lambda x: ops.softmax(x, 0), lambda x: R.softmax(x, 0), shapes=[(3, 4, 2)], grad2=True),
    OpSpec("softmax_dtype", lambda x: ops.softmax(x, dtype=ms.float64), R.softmax, dtypes=("float32",)),
    OpSpec("log_softmax", ops.log_softmax, R.log_softmax, grad2=True),
    OpSpec("log_softmax_axis1", lambda x: ops.log_softmax(x, 1), lambda x: R.log_softmax(x, 1), shapes=[(2, 3, 4)],
           grad2=True),
    OpSpec("log_softmax_large", ops.log_softmax, R.log_softmax, gen=lambda r, s: r.uniform(-300, 300, s),
           grad=False),
    OpSpec("softmin", ops.softmin, lambda x: R.softmax(-x), grad2=True),
    OpSpec("softmax_method", lambda x: x.softmax(0), lambda x: R.softmax(x, 0)),
    OpSpec("hardshrink_method", lambda x: x.hardshrink(1.0), lambda x: np.where(np.abs(x) > 1, x, 0), gen=_spread),
    OpSpec("soft_shrink_method", lambda x: x.soft_shrink(), lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.5, 0),
           gen=_spread),
]


def _emb(idx, w):
    return w[idx]


_EMB_IDX = np.array([[0, 2, 2], [4, 0, 2]])


def _np_scatter_rows(w, idx, c):
    out = np.zeros_like(w)
    np.add.at(out, idx, c)
    return out


def _embedding_renormed(i, w, max_norm, norm_type=2.0):
    out = ops.embedding(i, w, max_norm=max_norm, norm_type=norm_type)
    return out, w


def _np_embedding_renormed(i, w, max_norm, norm_type=2.0):
    w = w.copy()
    for k in np.unique(i):
        norm = np.sum(np.abs(w[k]) ** norm_type) ** (1 / norm_type)
        if norm > max_norm:
            w[k] *= max_norm / (norm + 1e-7)
    return [w[i], w]


def _dropout_vjp_minus_mask(x, c):
    out, vjp = ms.vjp(lambda y: ops.dropout(y, 0.4), x)
    return vjp(c)[0] - out * c / x


MISC = [
    OpSpec("bias_add", ops.bias_add, lambda x, b: x + b.reshape(3, 1, 1), shapes=[(2, 3, 2, 2), (3,)], grad2=True),
    OpSpec("bias_add_2d", ops.bias_add, lambda x, b: x + b, shapes=[(4, 3), (3,)]),
    OpSpec("dense", ops.dense, lambda x, w, b: x @ w.T + b, shapes=[(2, 4, 3), (5, 3), (5,)], grad2=True),
    OpSpec("dense_vec_weight", ops.dense, lambda x, w: x @ w, shapes=[(4, 3), (3,)], grad2=True),
    OpSpec("dense_vec_input", ops.dense, lambda x, w: w @ x, shapes=[(3,), (5, 3)], grad2=True),
    OpSpec("bidense", ops.bidense, lambda a, b, w, c: np.einsum("ni,oij,nj->no", a, w, b) + c,
           shapes=[(4, 3), (4, 2), (5, 3, 2), (5,)], grad2=True),
    OpSpec("cosine_similarity", ops.cosine_similarity,
           lambda a, b: (a * b).sum(1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-8),
           shapes=[(4, 3), (4, 3)], grad2=True),
    OpSpec("cdist", ops.cdist, R.cdist, shapes=[(4, 3), (5, 3)], grad2=True),
    OpSpec("cdist_batched", ops.cdist, R.cdist, shapes=[(2, 4, 3), (2, 5, 3)]),
    OpSpec("cdist_p1", lambda a, b: ops.cdist(a, b, 1.0), lambda a, b: R.cdist(a, b, 1.0), shapes=[(4, 3), (5, 3)]),
    OpSpec("cdist_p3", lambda a, b: ops.cdist(a, b, 3.0), lambda a, b: R.cdist(a, b, 3.0), shapes=[(4, 3), (5, 3)],
           grad2=True),
    OpSpec("cdist_pinf", lambda a, b: ops.cdist(a, b, float("inf")), lambda a, b: R.cdist(a, b, np.inf),
           shapes=[(4, 3), (5, 3)]),
    OpSpec("pdist", ops.pdist, lambda x: R.cdist(x, x)[np.triu_indices(5, 1)], shapes=[(5, 3)], grad2=True),
    OpSpec("embedding", ops.embedding, _emb, shapes=[(2, 3), (6, 4)], gen=[ints(0, 6), None], grad2=True),
    # the padding row gets no gradient by design: see test_embedding_grad_padding_and_frequency_scaling
    OpSpec("embedding_padding", lambda i, w: ops.embedding(i, w, padding_idx=2), _emb, shapes=[(3, 4), (5, 2)],
           gen=[ints(0, 5), None], grad=False),
    # the gradient of embedding w.r.t. the table as a row of its own (its gradient w.r.t. c gathers c back)
    OpSpec("embedding_table_grad", lambda w, c: ms.grad(lambda v: (ops.embedding(ms.Tensor(_EMB_IDX), v) * c).sum())(w),
           lambda w, c: _np_scatter_rows(w, _EMB_IDX, c), shapes=[(5, 3), (2, 3, 3)], grad2=True),
    # max_norm renormalizes the rows looked up, in place (on a copy here), outside the gradient as in MindSpore:
    # finite differences would see the renormalization, so only the value and the updated table are checked
    OpSpec("embedding_max_norm", lambda i, w: _embedding_renormed(i, w.copy(), 1.2),
           lambda i, w: _np_embedding_renormed(i, w, 1.2), shapes=[(2, 3), (6, 4)], gen=[ints(0, 4), None],
           grad=False),
    OpSpec("embedding_max_norm_p1", lambda i, w: _embedding_renormed(i, w.copy(), 2.0, 1.0),
           lambda i, w: _np_embedding_renormed(i, w, 2.0, 1.0), shapes=[(5,), (4, 3)], gen=[ints(0, 3), None],
           grad=False),
    # hard Gumbel-softmax: one-hot of the argmax of logits + Gumbel noise; logits 50 apart make the argmax that of the
    # logits whatever the noise (random, redrawn by every call: no finite differences)
    OpSpec("gumbel_softmax_hard", lambda x: ops.gumbel_softmax(x, 1.0, True), lambda x: np.eye(4)[x.argmax(1)],
           shapes=[(3, 4)], gen=lambda r, s: 50.0 * np.stack([r.permutation(s[1]) for _ in range(s[0])]),
           grad=False),
    # dropout's gradient applies the forward's mask and scale: vjp(c) = c * out / x (random mask: no finite
    # differences, the row's value is that identity)
    OpSpec("dropout_vjp_uses_forward_mask", _dropout_vjp_minus_mask, lambda x, c: np.zeros_like(x),
           shapes=[(4, 5), (4, 5)], grad=False),
]

test_value, test_grad, test_grad2, test_graph = make_tests(ACTIVATIONS + SOFTMAX + MISC)


# ---------------------------------------------------------------- behaviour beyond values
def test_embedding_grad_padding_and_frequency_scaling():
    idx = ms.Tensor(np.array([[0, 2, 2], [1, 2, 0]], np.int32))
    w = ms.Tensor(np.ones((4, 2)))
    g = ms.grad(lambda w: ops.embedding(idx, w, padding_idx=1).sum())(w).asnumpy()
    np.testing.assert_allclose(g[:, 0], [2, 0, 3, 0])
    g = ms.grad(lambda w: ops.embedding(idx, w, scale_grad_by_freq=True).sum())(w).asnumpy()
    np.testing.assert_allclose(g[:, 0], [1, 1, 1, 0])


def test_embedding_max_norm_renormalizes_weight_in_place():
    w = ms.Parameter(ms.Tensor(np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], np.float32)), name="w")
    out = ops.embedding(ms.Tensor(np.array([0, 1], np.int32)), w, max_norm=1.0)
    np.testing.assert_allclose(np.linalg.norm(out.asnumpy(), axis=1), [1.0, 0.5], rtol=1e-5)
    np.testing.assert_allclose(w.asnumpy()[2], [6.0, 8.0])     # rows not looked up are left alone
    np.testing.assert_allclose(np.linalg.norm(w.asnumpy()[0]), 1.0, rtol=1e-5)


def test_rrelu_slopes_within_bounds():
    x = ms.Tensor(np.linspace(-5, 5, 201).astype(np.float32))
    y = ops.rrelu(x, 0.1, 0.3).asnumpy()
    xn = x.asnumpy()
    np.testing.assert_array_equal(y[xn >= 0], xn[xn >= 0])
    slopes = y[xn < 0] / xn[xn < 0]
    assert slopes.min() >= 0.1 - 1e-6 and slopes.max() <= 0.3 + 1e-6 and slopes.std() > 0.01
    g = ms.grad(lambda x: ops.rrelu(x).sum())(ms.Tensor([-1.0, 2.0])).asnumpy()
    assert 1 / 8 <= g[0] <= 1 / 3 and g[1] == 1.0


def test_gumbel_softmax_soft_and_hard():
    ms.set_seed(3)
    logits = ms.Tensor(np.log(np.array([[0.1, 0.6, 0.3]] * 2000, np.float32)))
    y = ops.gumbel_softmax(logits, 0.5).asnumpy()
    np.testing.assert_allclose(y.sum(-1), 1, rtol=1e-5)
    hard = ops.gumbel_softmax(logits, 1.0, hard=True).asnumpy()
    assert set(np.unique(hard)) <= {0.0, 1.0} and (hard.sum(-1) == 1).all()
    np.testing.assert_allclose(hard.mean(0), [0.1, 0.6, 0.3], atol=0.04)   # Gumbel-max samples the categorical
    v = ms.Tensor(np.random.RandomState(0).randn(2000, 3).astype(np.float32))
    g = ms.grad(lambda z: (ops.gumbel_softmax(z, 1.0, hard=True) * v).sum())(logits)
    assert np.abs(g.asnumpy()).sum() > 0                                 # straight-through gradient


def test_activation_grad_of_grad_of_grad_silu():
    """Third derivative of silu through SiLUGrad's composed second derivative, vs finite differences."""
    def d2(x):
        return ms.grad(ms.grad(lambda z: ops.silu(z).sum()))(x)
    x = np.array([-1.3, 0.4, 2.0])
    got = ms.grad(lambda z: d2(z).sum())(ms.Tensor(x)).asnumpy()
    eps = 1e-4
    fd = (d2(ms.Tensor(x + eps)).asnumpy() - d2(ms.Tensor(x - eps)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(got, fd, rtol=1e-4, atol=1e-6)


def test_int_input_tanhshrink_promotes_to_float32():
    out = ops.tanhshrink(ms.Tensor([1, -2], ms.int32))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), np.array([1, -2]) - np.tanh([1, -2]), rtol=1e-6)


@pytest.mark.parametrize("fn", [ops.relu6, ops.gelu, ops.silu, ops.softmax, ops.mish])
def test_activation_keeps_float16(fn):
    assert fn(ms.Tensor(np.array([0.5, -1.0], np.float16))).dtype == ms.float16


ERRORS = [
    ErrorSpec("relu6_int", lambda: ops.relu6(ms.Tensor([1, 2])), TypeError, "For 'ReLU6'"),
    ErrorSpec("relu6_not_tensor", lambda: ops.relu6([1.0]), TypeError, "For 'ReLU6'"),
    ErrorSpec("gelu_approximate", lambda: ops.gelu(ops.ones(2), 'fast'), ValueError, "either 'none' or 'tanh'"),
    ErrorSpec("gelu_int", lambda: ops.gelu(ms.Tensor([1])), TypeError, "For gelu"),
    ErrorSpec("softmax_axis_tuple", lambda: ops.softmax(ops.ones((2, 2)), (0,)), TypeError, "'axis' must be 'int'"),
    ErrorSpec("softmax_axis_range", lambda: ops.softmax(ops.ones((2, 2)), 2), ValueError,
              "For 'Softmax', the inputs ((2, 2) Float32) with attributes {'axis': 2} are invalid: the 'axis' must be "
              "in range [-2, 2), but got 2."),
    ErrorSpec("log_softmax_axis_range", lambda: ops.log_softmax(ops.ones((2, 3)), -4), ValueError,
              "the 'axis' must be in range [-2, 2), but got -4."),
    ErrorSpec("softmax_int", lambda: ops.softmax(ms.Tensor([1, 2])), TypeError, "For 'Softmax'"),
    ErrorSpec("log_softmax_axis_type", lambda: ops.log_softmax(ops.ones(2), 0.5), TypeError, "For 'LogSoftmax'"),
    ErrorSpec("glu_odd", lambda: ops.glu(ops.ones((2, 3))), ValueError, "For 'GLU'"),
    ErrorSpec("softplus_beta0", lambda: ops.softplus(ops.ones(2), 0), ValueError, "'beta' cannot be 0"),
    ErrorSpec("celu_alpha0", lambda: ops.celu(ops.ones(2), 0.0), ValueError, "For 'CeLU'"),
    ErrorSpec("softshrink_lambd", lambda: ops.softshrink(ops.ones(2), -1.0), RuntimeError, "For 'SoftShrink'"),
    ErrorSpec("hardtanh_bounds", lambda: ops.hardtanh(ops.ones(2), 2.0, 1.0), ValueError, "For 'hardtanh'"),
    ErrorSpec("prelu_weight", lambda: ops.prelu(ops.ones((2, 3)), ops.ones(2)), ValueError, "For 'PReLU'"),
    ErrorSpec("rrelu_bounds", lambda: ops.rrelu(ops.ones(2), 0.5, 0.1), ValueError, "For 'rrelu'"),
    ErrorSpec("dense_shapes", lambda: ops.dense(ops.ones((2, 3)), ops.ones((4, 5))), ValueError, "For 'Dense'"),
    ErrorSpec("bias_add_shape", lambda: ops.bias_add(ops.ones((2, 3)), ops.ones(2)), ValueError, "For 'BiasAdd'"),
    ErrorSpec("cdist_shapes", lambda: ops.cdist(ops.ones((2, 3)), ops.ones((2, 4))), ValueError, "For 'Cdist'"),
    ErrorSpec("cdist_p", lambda: ops.cdist(ops.ones((2, 3)), ops.ones((2, 3)), -1.0), ValueError, "For 'Cdist'"),
    ErrorSpec("embedding_float_index", lambda: ops.embedding(ops.ones(2), ops.ones((3, 2))), TypeError,
              "For 'embedding'"),
    ErrorSpec("embedding_index_range", lambda: ops.embedding(ms.Tensor([5]), ops.ones((3, 2))), RuntimeError,
              "For 'Embedding'"),
    ErrorSpec("gumbel_tau", lambda: ops.gumbel_softmax(ops.ones((2, 2)), -1.0), ValueError, "For 'gumbel_softmax'"),
]
test_bad_input = make_error_tests(ERRORS)


def test_selu_of_integers_keeps_the_dtype_as_mindspore_cpu():
    for dtype, ms_dtype in ((np.int8, ms.int8), (np.int32, ms.int32)):
        out = ops.SeLU()(ms.Tensor(np.array([-100, -3, -1, 0, 2, 5, 100], dtype)))
        assert out.dtype == ms_dtype
        np.testing.assert_array_equal(out.asnumpy(), [-1, 0, 0, 0, 2, 5, 100])


def test_mish_float16_rounds_as_mindspore():
    """Half inputs: float32 x * tanh(log(exp(x) + 1)) rounded once; values printed by MindSpore 2.10's CPU kernel."""
    x = np.array([0.744140625, -10.9609375, -12.796875, -14.6015625, -16.828125, 2.0], np.float16)
    want = np.array([0.6044921875, -0.00019073486328125, -3.510713577270508e-05, -6.973743438720703e-06, -0.0,
                     1.9443359375], np.float16)
    got = ops.mish(ms.Tensor(x)).asnumpy()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, want)


def _half_steps_sigmoid(x):
    """numpy: 1 / (1 + exp(-x)) with every operation's result rounded to float16."""
    e = np.exp(-x.astype(np.float32)).astype(np.float16)
    return (1 / (e.astype(np.float32) + 1).astype(np.float16).astype(np.float32)).astype(np.float16)


def test_sigmoid_and_silu_of_float16_round_each_step_as_mindspore_cpu():
    """MindSpore's CPU Sigmoid of float16 rounds exp(-x), 1 + exp(-x) and the reciprocal to float16 one after the
    other, and its SiLU is x times that sigmoid, rounded once: these values (printed by MindSpore 2.10) each differ
    from the float32 formula rounded once. A float16 Llama's feed-forward block (SiLU gate) then gives MindSpore's
    outputs to the bit."""
    x = np.array([-0.8037109375, -1.0556640625, -3.48828125, -1.3828125, -0.6865234375, -0.1944580078125,
                  -1.888671875, 1.97265625], np.float16)
    sig = [0.30908203125, 0.25830078125, 0.0296630859375, 0.20068359375, 0.3349609375, 0.451416015625,
           0.1314697265625, 0.87841796875]
    silu = [-0.2484130859375, -0.272705078125, -0.10345458984375, -0.277587890625, -0.22998046875,
            -0.0877685546875, -0.248291015625, 1.732421875]
    for got in (ops.sigmoid(ms.Tensor(x)), ops.Sigmoid()(ms.Tensor(x)), nn.Sigmoid()(ms.Tensor(x))):
        assert got.dtype == ms.float16
        np.testing.assert_array_equal(got.asnumpy(), np.array(sig, np.float16))
    for got in (ops.silu(ms.Tensor(x)), nn.SiLU()(ms.Tensor(x))):
        assert got.dtype == ms.float16
        np.testing.assert_array_equal(got.asnumpy(), np.array(silu, np.float16))
    many = np.random.default_rng(0).normal(0, 3, 5000).astype(np.float16)
    steps = _half_steps_sigmoid(many)
    np.testing.assert_array_equal(ops.sigmoid(ms.Tensor(many)).asnumpy(), steps)
    np.testing.assert_array_equal(ops.silu(ms.Tensor(many)).asnumpy(),
                                  (many.astype(np.float32) * steps.astype(np.float32)).astype(np.float16))
    # float32 keeps the formula rounded once
    x32 = x.astype(np.float32)
    np.testing.assert_allclose(ops.sigmoid(ms.Tensor(x32)).asnumpy(), 1 / (1 + np.exp(-x32)), rtol=1e-6)


def test_rsqrt_and_softsign_of_float16_round_as_mindspore_cpu():
    """Rsqrt of float16 rounds the square root to float16 before the reciprocal; Softsign computes in float32 and
    rounds once (values printed by MindSpore 2.10's CPU kernels; torch's rounding differs on each of these)."""
    x = np.array([1.07421875, 1.47265625, 0.0162811279296875, 0.42724609375, 4.234375, 1.29296875], np.float16)
    got = ops.rsqrt(ms.Tensor(x))
    assert got.dtype == ms.float16
    np.testing.assert_array_equal(got.asnumpy(), np.array(
        [0.96533203125, 0.82373046875, 7.83984375, 1.529296875, 0.48583984375, 0.8798828125], np.float16))
    x = np.array([0.66064453125, 0.58837890625, -0.325927734375, -0.96435546875, 0.0794677734375, -1.5634765625],
                 np.float16)
    got = ops.softsign(ms.Tensor(x))
    assert got.dtype == ms.float16
    np.testing.assert_array_equal(got.asnumpy(), np.array(
        [0.397705078125, 0.370361328125, -0.245849609375, -0.490966796875, 0.0736083984375, -0.60986328125],
        np.float16))
