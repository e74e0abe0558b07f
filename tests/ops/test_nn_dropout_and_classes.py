"""nn family: dropout (statistics, mask reuse in the gradient, seeds) and the Primitive-class API."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, make_error_tests
import _nn_ref as R


# ---------------------------------------------------------------- dropout
def test_dropout_statistics_and_scaling():
    x = ops.ones((200, 100))
    out = ops.dropout(x, p=0.3).asnumpy()
    kept = out != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(out[kept], 1 / 0.7, rtol=1e-6)


def test_dropout_gradient_reuses_the_forward_mask():
    x = ms.Tensor(np.random.RandomState(0).randn(50, 20).astype(np.float32))
    saved = {}

    def f(z):
        y = ops.dropout(z, p=0.5)
        saved["y"] = y
        return (y * 3).sum()
    g = ms.grad(f)(x).asnumpy()
    mask = saved["y"].asnumpy() != 0
    np.testing.assert_allclose(g, np.where(mask, 6.0, 0.0), rtol=1e-6)
    gg = ms.grad(lambda z: (ms.grad(f)(z) * z).sum())(x)   # second order goes through DropoutGrad
    assert gg.shape == x.shape


def test_dropout_identity_when_not_training_or_p_zero():
    x = ops.ones((3, 4))
    assert ops.dropout(x, 0.9, training=False) is x
    np.testing.assert_array_equal(ops.dropout(x, 0.0).asnumpy(), x.asnumpy())


def test_dropout_reproducible_with_global_and_op_seed():
    x = ops.ones((64, 64))
    ms.set_seed(7)
    a = ops.dropout(x).asnumpy()
    ms.set_seed(7)
    b = ops.dropout(x).asnumpy()
    np.testing.assert_array_equal(a, b)
    c = ops.dropout(x).asnumpy()
    assert (a != c).any()                                       # the stream moves on
    ms.set_seed(7)
    s1 = ops.dropout(x, seed=3).asnumpy()
    ms.set_seed(7)
    s2 = ops.dropout(x, seed=3).asnumpy()
    np.testing.assert_array_equal(s1, s2)
    assert (s1 != a).any()


@pytest.mark.parametrize("fn,shape", [(ops.dropout2d, (4, 16, 3, 3)), (ops.dropout3d, (2, 16, 2, 2, 2)),
                                      (ops.dropout1d, (4, 16, 5)), (ops.dropout1d, (16, 5))])
def test_channel_dropout_zeroes_whole_channels(fn, shape):
    out = fn(ops.ones(shape), 0.5).asnumpy()
    per_channel = out.reshape(shape[:2] + (-1,) if len(shape) > 2 else (shape[0], -1))
    assert (per_channel.min(-1) == per_channel.max(-1)).all()
    assert set(np.unique(out)) <= {0.0, 2.0} and 0 < (out == 0).mean() < 1


def test_dropout_class_returns_output_and_mask():
    x = ms.Tensor(np.random.RandomState(1).randn(30, 30).astype(np.float32))
    out, mask = ops.Dropout(keep_prob=0.8)(x)
    assert mask.dtype == ms.float32 and set(np.unique(mask.asnumpy())) <= {0.0, 1.0}
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() * mask.asnumpy() / 0.8, rtol=1e-6)
    out2, mask2 = ops.Dropout2D(keep_prob=0.5)(ops.ones((2, 3, 2, 2)))
    assert mask2.dtype == ms.bool_ and mask2.shape == (2, 3, 2, 2)
    np.testing.assert_allclose(out2.asnumpy(), mask2.asnumpy() * 2.0)


def test_channel_dropout_keep_prob_zero_drops_every_channel():
    for op, shape in ((ops.Dropout2D, (2, 3, 2, 2)), (ops.Dropout3D, (2, 3, 1, 2, 2))):
        out, mask = op(keep_prob=0.0)(ops.ones(shape))
        assert not out.asnumpy().any() and mask.dtype == ms.bool_ and not mask.asnumpy().any()
    with pytest.raises(ValueError, match="Dropout2D.*keep_prob"):
        ops.Dropout2D(keep_prob=-0.1)(ops.ones((1, 1, 2, 2)))


def test_array_on_the_left_of_a_tensor_operator_gives_an_ndarray_as_numpy_computes_it():
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    d = np.array([5.0, 7.0]) - x
    assert isinstance(d, np.ndarray) and d.dtype == np.float64
    np.testing.assert_allclose(d, [4.0, 5.0])
    q = np.array([3.0, 4.0], np.float32) / x
    assert isinstance(q, np.ndarray) and q.dtype == np.float32
    np.testing.assert_allclose(q, [3.0, 2.0])
    assert np.all(np.array([1.0, 2.5]) - x < 1.0)


# ---------------------------------------------------------------- class API
def _x():
    return np.random.RandomState(0).randn(4, 3)


@pytest.mark.parametrize("prim,ref", [
    (ops.Softmax(), R.softmax), (ops.Softmax(axis=(0,)), lambda x: R.softmax(x, 0)),
    (ops.LogSoftmax(0), lambda x: R.log_softmax(x, 0)), (ops.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (ops.Elu(), R.elu), (ops.SeLU(), lambda x: R.SELU_SCALE * R.elu(x, R.SELU_ALPHA)),
    (ops.CeLU(2.0), lambda x: np.maximum(x, 0) + np.minimum(0, 2 * (np.exp(x / 2) - 1))),
    (ops.GeLU(), lambda x: R.gelu(x, 'tanh')), (ops.FastGeLU(), lambda x: x * R.sigmoid(1.702 * x)),
    (ops.HSwish(), lambda x: x * np.clip(x + 3, 0, 6) / 6), (ops.HSigmoid(), lambda x: np.clip(x + 3, 0, 6) / 6),
    (ops.HShrink(0.3), lambda x: np.where(np.abs(x) > 0.3, x, 0)),
    (ops.SoftShrink(0.3), lambda x: np.sign(x) * np.maximum(np.abs(x) - 0.3, 0)),
    (ops.Mish(), lambda x: x * np.tanh(R.softplus(x))), (ops.Softplus(), R.softplus),
    (ops.Softsign(), lambda x: x / (1 + np.abs(x))), (ops.L2Loss(), lambda x: (x * x).sum() / 2),
    (ops.Pdist(), lambda x: R.cdist(x, x)[np.triu_indices(4, 1)]),
])
def test_unary_class_ops(prim, ref):
    np.testing.assert_allclose(prim(ms.Tensor(_x())).asnumpy(), ref(_x()), rtol=1e-10, atol=1e-12)


def test_binary_class_ops():
    x = _x()
    y = np.random.RandomState(1).rand(4, 3)
    t, w = ms.Tensor(x), ms.Tensor(y)
    np.testing.assert_allclose(ops.BCEWithLogitsLoss('sum')(t, w).asnumpy(), R.bce_logits(x, y, reduction='sum'))
    np.testing.assert_allclose(ops.BinaryCrossEntropy('none')(w, w).asnumpy(), R.bce(y, y, reduction='none'))
    np.testing.assert_allclose(ops.SigmoidCrossEntropyWithLogits()(t, w).asnumpy(),
                               R.bce_logits(x, y, reduction='none'))
    np.testing.assert_allclose(ops.KLDivLoss('sum')(t, w).asnumpy(), R.kl_div(x, y, 'sum'))
    np.testing.assert_allclose(ops.SmoothL1Loss(0.5)(t, w).asnumpy(), R.smooth_l1(x, y, 0.5))
    np.testing.assert_allclose(ops.SoftMarginLoss()(t, w).asnumpy(), np.log1p(np.exp(-y * x)).mean())
    np.testing.assert_allclose(ops.Cdist()(t, w).asnumpy(), R.cdist(x, y), rtol=1e-10)
    np.testing.assert_allclose(ops.Dense()(t, w).asnumpy(), x @ y.T, rtol=1e-10)
    np.testing.assert_allclose(ops.PReLU()(t, ms.Tensor(np.array([0.1, 0.2, 0.3]))).asnumpy(),
                               np.where(x > 0, x, np.array([0.1, 0.2, 0.3]) * x))
    np.testing.assert_allclose(ops.BiasAdd()(t, ms.Tensor(np.arange(3.0))).asnumpy(), x + np.arange(3.0))
    np.testing.assert_allclose(ops.BiasAdd('NHWC')(t, ms.Tensor(np.arange(3.0))).asnumpy(), x + np.arange(3.0))
    np.testing.assert_allclose(ops.GLU(0)(t).asnumpy(), x[:2] * R.sigmoid(x[2:]))


def test_multi_margin_and_multilabel_class_ops():
    x = ms.Tensor(_x())
    loss = ops.MultiMarginLoss()(x, ms.Tensor([0, 2, 1, 0]))
    assert loss.shape == ()
    loss, is_target = ops.MultilabelMarginLoss()(x, ms.Tensor(np.array([[0, -1, 0], [2, 1, -1], [1, -1, 2],
                                                                           [-1, 0, 0]], np.int32)))
    np.testing.assert_array_equal(is_target.asnumpy(), [[1, 0, 0], [0, 1, 1], [0, 1, 0], [0, 0, 0]])
    assert is_target.dtype == ms.int32


def test_ctc_loss_v2_class():
    r = np.random.RandomState(0)
    lp = R.log_softmax(r.randn(5, 1, 3), -1)
    loss, _ = ops.CTCLossV2(blank=0, reduction='none')(ms.Tensor(lp), ms.Tensor([[1, 2]]), ms.Tensor([5]),
                                                        ms.Tensor([2]))
    np.testing.assert_allclose(loss.asnumpy(), R.ctc(lp, np.array([[1, 2]]), [5], [2]), rtol=1e-10)


def test_class_attrs_are_recorded():
    p = ops.Softmax(axis=1)
    assert p.axis == (1,) and p.attrs == {"axis": (1,)} and p.name == "Softmax"      # MindSpore keeps a tuple
    with pytest.raises(TypeError, match="unexpected argument"):
        ops.LayerNorm(begin_axis=1)


ERRORS = [
    ErrorSpec("dropout_p_range", lambda: ops.dropout(ops.ones(2), 1.0), ValueError, "For 'Dropout'"),
    ErrorSpec("dropout_int_input", lambda: ops.dropout(ms.Tensor([1, 2])), TypeError, "For 'Dropout'"),
    ErrorSpec("dropout_training_type", lambda: ops.dropout(ops.ones(2), 0.5, 1), TypeError, "'training'"),
    ErrorSpec("dropout1d_p_type", lambda: ops.dropout1d(ops.ones((2, 3)), 1), TypeError, "For dropout1d"),
    ErrorSpec("dropout1d_rank", lambda: ops.dropout1d(ops.ones((2, 3, 4, 5))), ValueError, "For dropout1d"),
    ErrorSpec("dropout2d_rank", lambda: ops.dropout2d(ops.ones((2, 3, 4))), ValueError, "For dropout2d"),
    ErrorSpec("dropout2d_p", lambda: ops.dropout2d(ops.ones((2, 3, 4, 5)), 1.5), ValueError, "For dropout2d"),
    ErrorSpec("Dropout_keep_prob", lambda: ops.Dropout(keep_prob=0.0)(ops.ones(2)), ValueError, "'keep_prob'"),
    ErrorSpec("Dropout3D_rank", lambda: ops.Dropout3D()(ops.ones((2, 3, 4, 5))), ValueError, "For 'Dropout3D'"),
    ErrorSpec("Softmax_axis", lambda: ops.Softmax(axis=(0, 1))(ops.ones((2, 2))), ValueError, "For 'Softmax'"),
    ErrorSpec("SparseSCE_shapes", lambda: ops.SparseSoftmaxCrossEntropyWithLogits()(ops.ones((2, 3)),
                                                                                    ms.Tensor([0, 1, 2])),
              ValueError, "For 'SparseSoftmaxCrossEntropyWithLogits'"),
    ErrorSpec("BiasAdd_format", lambda: ops.BiasAdd('NWC')(ops.ones((2, 3)), ops.ones(3)), ValueError,
              "For 'BiasAdd'"),
]
test_bad_input = make_error_tests(ERRORS)


def test_ctc_greedy_decoder_mindspore_example():
    inputs = ms.Tensor(np.array([[[0.6, 0.4, 0.2], [0.8, 0.6, 0.3]], [[0.0, 0.6, 0.0], [0.5, 0.4, 0.5]]], np.float32))
    idx, vals, shape, logp = ops.ctc_greedy_decoder(inputs, ms.Tensor(np.array([2, 2]), ms.int32))
    np.testing.assert_array_equal(idx.asnumpy(), [[0, 0], [0, 1], [1, 0]])
    np.testing.assert_array_equal(vals.asnumpy(), [0, 1, 0])
    np.testing.assert_array_equal(shape.asnumpy(), [2, 2])
    np.testing.assert_allclose(logp.asnumpy(), [[-1.2], [-1.3]], rtol=1e-6)
    # A B B * B * B (blank = 2) -> A B B B when merging repeats, A B B B B otherwise
    seq = [0, 1, 1, 2, 1, 2, 1]
    logits = np.eye(3, dtype=np.float32)[seq][:, None, :]
    for merge, want in ((True, [0, 1, 1, 1]), (False, [0, 1, 1, 1, 1])):
        vals = ops.CTCGreedyDecoder(merge)(ms.Tensor(logits), ms.Tensor([7], ms.int32))[1]
        np.testing.assert_array_equal(vals.asnumpy(), want)


def test_intopk():
    x = ms.Tensor(np.array([[1.0, 8.0, 5.0, 3.0], [2.0, 2.0, 1.0, 0.0]], np.float32))
    np.testing.assert_array_equal(ops.intopk(x, ms.Tensor([2, 1], ms.int32), 2).asnumpy(), [True, True])
    np.testing.assert_array_equal(ops.InTopK(1)(x, ms.Tensor([2, 2], ms.int32)).asnumpy(), [False, False])


def test_ctc_greedy_decoder_sequence_length_past_max_time_is_a_runtime_error():
    inputs = ms.Tensor(np.zeros((2, 2, 3), np.float64))
    with pytest.raises(RuntimeError, match=r"sequence_length\[1\] 4 should be less than 2"):
        ops.CTCGreedyDecoder()(inputs, ms.Tensor(np.array([1, 4], np.int32)))


def test_kl_div_loss_rounds_float16_after_each_operation():
    # MindSpore: y * (log y - x) computed in float16 step by step (numpy's float16 arithmetic gives the same bits)
    x = np.array([[0.2, 0.7, 0.1], [-0.1, 3.0, 0.9]], np.float16)
    y = np.array([[1.0, 0.0, 0.1], [0.6, -1.0, 4.0]], np.float16)
    out = ops.KLDivLoss("none")(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.where(y > 0, y * (np.log(y) - x), np.float16(0))
    assert out.dtype == np.float16 and out.tolist() == expected.tolist()
    assert out[1, 0] == np.float16(-0.2464599609375)
