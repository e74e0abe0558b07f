"""mint.nn layers and mint.nn.functional: values vs numpy, parameters and their initialisation, training state,
in-place forms, gradients, and a network of mint.nn layers trained with mint.optim."""
import math

import numpy as np
import pytest
from _harness import OpSpec, make_tests

import mindseed as ms
from mindseed import mint
from mindseed.mint import nn
from mindseed.mint.nn import functional as F

R = np.random.RandomState(0)
A = R.standard_normal((2, 3, 5, 5)).astype(np.float32)
M = R.standard_normal((4, 6)).astype(np.float32)


def _t(a):
    return ms.Tensor(a)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _avg_pool2d(x, k):
    n, c, h, w = x.shape
    return x[:, :, :h // k * k, :w // k * k].reshape(n, c, h // k, k, w // k, k).mean((3, 5))


def _max_pool2d(x, k):
    n, c, h, w = x.shape
    return x[:, :, :h // k * k, :w // k * k].reshape(n, c, h // k, k, w // k, k).max((3, 5))


def _bn(x, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    return (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)


def _ln(x, eps=1e-5):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)


P = np.abs(M) / (np.abs(M).sum(1, keepdims=True))      # probabilities
T = (R.uniform(size=M.shape) > 0.5).astype(np.float32)  # binary targets
LBL = np.array([1, 0, 5, 3], np.int64)

# (id, call, numpy result)
FUNCTIONAL = [
    ("relu", lambda: F.relu(_t(M)), np.maximum(M, 0)),
    ("relu6", lambda: F.relu6(_t(M * 5)), np.clip(M * 5, 0, 6)),
    ("elu", lambda: F.elu(_t(M), 0.5), np.where(M > 0, M, 0.5 * (np.exp(M) - 1))),
    ("gelu", lambda: F.gelu(_t(M), approximate="tanh"),
     0.5 * M * (1 + np.tanh(np.sqrt(2 / np.pi) * (M + 0.044715 * M ** 3)))),
    ("silu", lambda: F.silu(_t(M)), M * _sigmoid(M)),
    ("leaky_relu-default", lambda: F.leaky_relu(_t(M)), np.where(M > 0, M, 0.01 * M)),
    ("hardtanh", lambda: F.hardtanh(_t(M), -0.5, 0.5), np.clip(M, -0.5, 0.5)),
    ("threshold", lambda: F.threshold(_t(M), 0.1, 20.0), np.where(M > 0.1, M, 20.0)),
    ("logsigmoid", lambda: F.logsigmoid(_t(M)), np.log(_sigmoid(M))),
    ("glu", lambda: F.glu(_t(M)), M[:, :3] * _sigmoid(M[:, 3:])),
    ("softmax-implicit-dim", lambda: F.softmax(_t(M)), _softmax(M, 1)),
    ("softmax-1d", lambda: F.softmax(_t(M[0])), _softmax(M[0], 0)),
    ("log_softmax-dim0", lambda: F.log_softmax(_t(M), 0), np.log(_softmax(M, 0))),
    ("log_softmax-dtype", lambda: F.log_softmax(_t(M), dim=1, dtype=ms.float64), np.log(_softmax(M, 1))),
    ("linear", lambda: F.linear(_t(M), _t(M[:3]), _t(M[0, :3])), M @ M[:3].T + M[0, :3]),
    ("linear-nobias", lambda: F.linear(_t(M), _t(M[:3])), M @ M[:3].T),
    ("normalize", lambda: F.normalize(_t(M)), M / np.linalg.norm(M, axis=1, keepdims=True)),
    ("normalize-p1-dim0", lambda: F.normalize(_t(M), 1.0, 0), M / np.abs(M).sum(0, keepdims=True)),
    ("one_hot", lambda: F.one_hot(_t(LBL)), np.eye(6, dtype=np.int64)[LBL]),
    ("one_hot-classes", lambda: F.one_hot(_t(LBL), 8), np.eye(8, dtype=np.int64)[LBL]),
    ("flatten", lambda: F.flatten(_t(A)), A.reshape(-1)),
    ("avg_pool2d-stride-default", lambda: F.avg_pool2d(_t(A), 2), _avg_pool2d(A, 2)),
    ("max_pool2d-stride-default", lambda: F.max_pool2d(_t(A), 2), _max_pool2d(A, 2)),
    ("avg_pool1d", lambda: F.avg_pool1d(_t(M[None]), 2), M[None].reshape(1, 4, 3, 2).mean(-1)),
    ("adaptive_max_pool1d", lambda: F.adaptive_max_pool1d(_t(M[None]), 3, True),
     [M[None].reshape(1, 4, 3, 2).max(-1), np.arange(0, 6, 2)[None, None] + M[None].reshape(1, 4, 3, 2).argmax(-1)]),
    ("batch_norm-train", lambda: F.batch_norm(_t(A), _t(np.zeros(3, np.float32)), _t(np.ones(3, np.float32)),
                                              training=True), _bn(A)),
    ("batch_norm-eval", lambda: F.batch_norm(_t(A), _t(np.ones(3, np.float32)), _t(np.full(3, 4.0, np.float32))),
     (A - 1) / np.sqrt(4 + 1e-5)),
    ("binary_cross_entropy", lambda: F.binary_cross_entropy(_t(P), _t(T)),
     -(T * np.log(P) + (1 - T) * np.log(1 - P)).mean()),
    ("bce_with_logits-pos_weight", lambda: F.binary_cross_entropy_with_logits(_t(M), _t(T), None, "sum",
                                                                               _t(np.full(6, 2.0, np.float32))),
     -(2 * T * np.log(_sigmoid(M)) + (1 - T) * np.log(1 - _sigmoid(M))).sum()),
    ("kl_div-mean", lambda: F.kl_div(_t(np.log(P)), _t(P[::-1].copy())),
     (P[::-1] * (np.log(P[::-1]) - np.log(P))).mean()),
    ("kl_div-batchmean-log_target", lambda: F.kl_div(_t(np.log(P)), _t(np.log(P[::-1])), "batchmean", True),
     (P[::-1] * (np.log(P[::-1]) - np.log(P))).sum() / 4),
    ("mse_loss", lambda: F.mse_loss(_t(M), _t(T)), ((M - T) ** 2).mean()),
    ("l1_loss-sum", lambda: F.l1_loss(_t(M), _t(T), reduction="sum"), np.abs(M - T).sum()),
    ("smooth_l1_loss-default-mean", lambda: F.smooth_l1_loss(_t(M), _t(T)),
     np.where(np.abs(M - T) < 1, 0.5 * (M - T) ** 2, np.abs(M - T) - 0.5).mean()),
    ("nll_loss", lambda: F.nll_loss(_t(np.log(P)), _t(LBL)), -np.log(P[np.arange(4), LBL]).mean()),
    ("cross_entropy", lambda: F.cross_entropy(_t(M), _t(LBL)), -np.log(_softmax(M, 1)[np.arange(4), LBL]).mean()),
    ("conv2d", lambda: F.conv2d(_t(np.ones((1, 1, 3, 3), np.float32)), _t(np.ones((2, 1, 2, 2), np.float32)),
                                padding=(1, 0)), np.array([[[[2, 2], [4, 4], [4, 4], [2, 2]]] * 2], np.float32)),
    ("conv1d", lambda: F.conv1d(_t(np.ones((1, 1, 4), np.float32)), _t(np.ones((1, 1, 3), np.float32)),
                                padding=1), np.array([[[2, 3, 3, 2]]], np.float32)),
    ("pad-reflect", lambda: F.pad(_t(M[None]), (1, 1), mode="reflect"), np.pad(M[None], ((0, 0), (0, 0), (1, 1)),
                                                                                  mode="reflect")),
    ("dropout-eval", lambda: F.dropout(_t(M), 0.9, training=False), M),
    ("dropout2d-eval", lambda: F.dropout2d(_t(A), 0.9, training=False), A),
    ("avg_pool3d", lambda: F.avg_pool3d(_t(A[:, :, None].repeat(2, 2)), 2), _avg_pool2d(A, 2)[:, :, None]),
    ("conv3d", lambda: F.conv3d(_t(np.ones((1, 1, 2, 3, 3), np.float32)), _t(np.ones((1, 1, 2, 3, 3), np.float32)),
                                padding=(0, 1, 1)), np.array([[[[[8, 12, 8], [12, 18, 12], [8, 12, 8]]]]], np.float32)),
    ("upsample", lambda: F.upsample(_t(A), size=(10, 10)), A.repeat(2, 2).repeat(2, 3)),
]


def _np(v):
    return [_np(x) for x in v] if isinstance(v, tuple) else v.asnumpy()


@pytest.mark.parametrize("call,want", [pytest.param(c, w, id=i) for i, c, w in FUNCTIONAL])
def test_functional_value(call, want):
    got = _np(call())
    if isinstance(got, list):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_inplace_forms_update_their_input():
    for fn, ref in ((F.relu_, lambda x: np.maximum(x, 0)), (F.sigmoid_, _sigmoid),
                    (lambda x: F.elu_(x, 2.0), lambda x: np.where(x > 0, x, 2.0 * (np.exp(x) - 1))),
                    (lambda x: F.hardtanh_(x), lambda x: np.clip(x, -1, 1)),
                    (lambda x: F.threshold_(x, 0.0, -3.0), lambda x: np.where(x > 0, x, -3.0)),
                    (lambda x: F.relu(x, inplace=True), lambda x: np.maximum(x, 0))):
        x = _t(M.copy())
        out = fn(x)
        assert out is x
        np.testing.assert_allclose(x.asnumpy(), ref(M), rtol=1e-6, atol=1e-6)


def test_dropout_training_zeroes_and_rescales():
    ms.set_seed(1)
    y = F.dropout(_t(np.ones((200, 50), np.float32)), 0.4).asnumpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.6, rtol=1e-6)
    assert abs(kept.mean() - 0.6) < 0.02


# ---------------------------------------------------------------- layers
LAYERS = [
    ("ReLU", lambda: nn.ReLU()(_t(M)), np.maximum(M, 0)),
    ("GELU", lambda: nn.GELU()(_t(M)), None),
    ("Sigmoid", lambda: nn.Sigmoid()(_t(M)), _sigmoid(M)),
    ("Tanh", lambda: nn.Tanh()(_t(M)), np.tanh(M)),
    ("Softmax", lambda: nn.Softmax(dim=0)(_t(M)), _softmax(M, 0)),
    ("LogSoftmax", lambda: nn.LogSoftmax(1)(_t(M)), np.log(_softmax(M, 1))),
    ("ELU", lambda: nn.ELU(2.0)(_t(M)), np.where(M > 0, M, 2 * (np.exp(M) - 1))),
    ("SiLU", lambda: nn.SiLU()(_t(M)), M * _sigmoid(M)),
    ("Hardshrink", lambda: nn.Hardshrink(0.3)(_t(M)), np.where(np.abs(M) > 0.3, M, 0)),
    ("Softshrink", lambda: nn.Softshrink()(_t(M)), np.sign(M) * np.maximum(np.abs(M) - 0.5, 0)),
    ("Threshold", lambda: nn.Threshold(0.2, -1.0)(_t(M)), np.where(M > 0.2, M, -1.0)),
    ("GLU", lambda: nn.GLU(0)(_t(M)), M[:2] * _sigmoid(M[2:])),
    ("Mish", lambda: nn.Mish()(_t(M)), M * np.tanh(np.log1p(np.exp(M)))),
    ("AvgPool2d", lambda: nn.AvgPool2d(2)(_t(A)), _avg_pool2d(A, 2)),
    ("MaxPool2d", lambda: nn.MaxPool2d(2)(_t(A)), _max_pool2d(A, 2)),
    ("AvgPool1d", lambda: nn.AvgPool1d(3)(_t(M[None])), M[None].reshape(1, 4, 2, 3).mean(-1)),
    ("AdaptiveMaxPool1d", lambda: nn.AdaptiveMaxPool1d(2)(_t(M[None])), M[None].reshape(1, 4, 2, 3).max(-1)),
    ("ZeroPad1d", lambda: nn.ZeroPad1d((1, 2))(_t(M[None])), np.pad(M[None], ((0, 0), (0, 0), (1, 2)))),
    ("ZeroPad3d", lambda: nn.ZeroPad3d(1)(_t(A)), np.pad(A, ((0, 0), (1, 1), (1, 1), (1, 1)))),
    ("Flatten", lambda: nn.Flatten()(_t(A)), A.reshape(2, -1)),
    ("UpsamplingNearest2d", lambda: nn.UpsamplingNearest2d(scale_factor=2.0)(_t(A)),
     A.repeat(2, 2).repeat(2, 3)),
    ("KLDivLoss", lambda: nn.KLDivLoss("sum")(_t(np.log(P)), _t(P)), 0.0),
    ("SmoothL1Loss", lambda: nn.SmoothL1Loss(beta=0.5)(_t(M), _t(T)),
     np.where(np.abs(M - T) < 0.5, (M - T) ** 2, np.abs(M - T) - 0.25).mean()),
    ("BCEWithLogitsLoss", lambda: nn.BCEWithLogitsLoss()(_t(M), _t(T)),
     -(T * np.log(_sigmoid(M)) + (1 - T) * np.log(1 - _sigmoid(M))).mean()),
    ("CrossEntropyLoss", lambda: nn.CrossEntropyLoss()(_t(M), _t(LBL)),
     -np.log(_softmax(M, 1)[np.arange(4), LBL]).mean()),
    ("LayerNorm", lambda: nn.LayerNorm(6)(_t(M)), _ln(M)),
    ("BatchNorm2d-train", lambda: nn.BatchNorm2d(3).set_train()(_t(A)), _bn(A)),
    ("BatchNorm1d-train", lambda: nn.BatchNorm1d(6).set_train()(_t(M)), _bn(M)),
    ("BatchNorm2d-eval", lambda: nn.BatchNorm2d(3)(_t(A)), A / np.sqrt(1 + 1e-5)),
    ("GroupNorm", lambda: nn.GroupNorm(3, 3)(_t(A)), _bn(A.transpose(1, 0, 2, 3)).transpose(1, 0, 2, 3) * 0 +
     (A - A.mean((2, 3), keepdims=True)) / np.sqrt(A.var((2, 3), keepdims=True) + 1e-5)),
    ("PReLU", lambda: nn.PReLU()(_t(M)), np.where(M > 0, M, 0.25 * M)),
    ("Hardtanh", lambda: nn.Hardtanh(-0.3, 0.4)(_t(M)), np.clip(M, -0.3, 0.4)),
    ("ReLU6", lambda: nn.ReLU6()(_t(M * 8)), np.clip(M * 8, 0, 6)),
    ("LogSigmoid", lambda: nn.LogSigmoid()(_t(M)), np.log(_sigmoid(M))),
    ("SELU", lambda: nn.SELU()(_t(M)), 1.0507009873554805 * np.where(M > 0, M, 1.6732632423543772 * (np.exp(M) - 1))),
    ("Hardsigmoid", lambda: nn.Hardsigmoid()(_t(M * 4)), np.clip(M * 4 / 6 + 0.5, 0, 1)),
    ("Hardswish", lambda: nn.Hardswish()(_t(M * 4)), M * 4 * np.clip(M * 4 / 6 + 0.5, 0, 1)),
    ("AvgPool3d", lambda: nn.AvgPool3d(2)(_t(A[:, :, None].repeat(2, 2))), _avg_pool2d(A, 2)[:, :, None]),
    ("BatchNorm3d-train", lambda: nn.BatchNorm3d(3).set_train()(_t(A[:, :, None])), _bn(A[:, :, None])),
    ("Unfold", lambda: nn.Unfold(5)(_t(A)), A.reshape(2, 75, 1)),
    ("UpsamplingBilinear2d", lambda: nn.UpsamplingBilinear2d((3, 3))(_t(np.array([[[[0.0, 2.0], [4.0, 6.0]]]],
                                                                                         np.float32))),
     np.array([[[[0, 1, 2], [2, 3, 4], [4, 5, 6]]]], np.float32)),
    ("SyncBatchNorm-one-process", lambda: nn.SyncBatchNorm(3).set_train()(_t(A)), _bn(A)),
]


@pytest.mark.parametrize("call,want", [pytest.param(c, w, id=i) for i, c, w in LAYERS])
def test_layer_value(call, want):
    got = call().asnumpy()
    if want is None:
        assert got.shape == M.shape and np.isfinite(got).all()
        return
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _conv2d_ref(x, w, b, pad):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    out = np.zeros((n, o, h - kh + 1, wd - kw + 1))
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            out[:, :, i, j] = np.tensordot(x[:, :, i:i + kh, j:j + kw], w, ((1, 2, 3), (1, 2, 3)))
    return out + b[None, :, None, None]


def test_conv2d_layer_matches_numpy_and_has_torch_initialisation():
    conv = nn.Conv2d(3, 4, 3, padding=1)
    assert conv.weight.shape == (4, 3, 3, 3) and conv.bias.shape == (4,)
    bound = 1 / math.sqrt(3 * 9)
    assert np.abs(conv.weight.asnumpy()).max() <= bound + 1e-7 and np.abs(conv.bias.asnumpy()).max() <= bound
    want = _conv2d_ref(A, conv.weight.asnumpy(), conv.bias.asnumpy(), 1)
    np.testing.assert_allclose(conv(_t(A)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    assert nn.Conv2d(3, 4, 3, bias=False).bias is None
    assert [n for n, _ in conv.parameters_and_names()] == ["weight", "bias"]


def test_conv_padding_modes_and_other_ranks():
    x = _t(A)
    reflect = nn.Conv2d(3, 2, 3, padding=1, padding_mode="reflect", bias=False)
    want = _conv2d_ref(np.pad(A, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect"), reflect.weight.asnumpy(),
                       np.zeros(2), 0)
    np.testing.assert_allclose(reflect(x).asnumpy(), want, rtol=1e-4, atol=1e-5)
    assert nn.Conv2d(3, 2, 3, padding="same")(x).shape == (2, 2, 5, 5)
    assert nn.Conv1d(4, 2, 3, stride=2)(_t(M[None])).shape == (1, 2, 2)
    assert nn.Conv3d(3, 2, (1, 3, 3), padding=(0, 1, 1))(_t(A[:, :, None])).shape == (2, 2, 1, 5, 5)
    assert nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1)(x).shape == (2, 2, 10, 10)


def test_conv_transpose2d_output_size_picks_the_output_padding():
    x = _t(A)                               # (2, 3, 5, 5)
    up = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    padded = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=(1, 0))
    padded.weight.set_data(up.weight.data)
    padded.bias.set_data(up.bias.data)
    assert up(x).shape == (2, 2, 9, 9)
    got = up(x, output_size=(10, 9))
    assert got.shape == (2, 2, 10, 9)
    np.testing.assert_allclose(got.asnumpy(), padded(x).asnumpy(), rtol=1e-6)
    assert up(x, output_size=(2, 2, 10, 10)).shape == (2, 2, 10, 10)    # the whole shape, as mint's example
    with pytest.raises(ValueError, match=r"valid sizes range from \[9, 9\] to \[10, 10\]"):
        up(x, output_size=(11, 9))
    with pytest.raises(ValueError, match="'output_size' must have 2 or 4 elements, but got 3"):
        up(x, output_size=(2, 10, 10))


def test_batchnorm_running_statistics_use_torch_momentum():
    bn = nn.BatchNorm2d(3, momentum=0.2).set_train()
    bn(_t(A))
    axes = (0, 2, 3)
    np.testing.assert_allclose(bn.running_mean.asnumpy(), 0.2 * A.mean(axes), rtol=1e-5, atol=1e-6)
    n = A.size / 3
    np.testing.assert_allclose(bn.running_var.asnumpy(), 0.8 + 0.2 * A.var(axes) * n / (n - 1), rtol=1e-5)
    assert not bn.running_mean.requires_grad and bn.weight.requires_grad
    no_track = nn.BatchNorm2d(3, track_running_stats=False)
    np.testing.assert_allclose(no_track(_t(A)).asnumpy(), _bn(A), rtol=1e-4, atol=1e-5)


def test_embedding_padding_row_and_lookup():
    emb = nn.Embedding(5, 3, padding_idx=1)
    table = emb.weight.asnumpy()
    np.testing.assert_array_equal(table[1], 0)
    idx = np.array([[0, 1], [4, 4]])
    np.testing.assert_allclose(emb(_t(idx)).asnumpy(), table[idx])
    frozen = nn.Embedding(2, 2, _weight=_t(np.eye(2, dtype=np.float32)), _freeze=True)
    assert not frozen.weight.requires_grad
    np.testing.assert_array_equal(frozen(_t(np.array([1]))).asnumpy(), [[0, 1]])


def test_linear_layernorm_parameters_and_signature_defaults():
    lin = nn.Linear(6, 2)
    np.testing.assert_allclose(lin(_t(M)).asnumpy(), M @ lin.weight.asnumpy().T + lin.bias.asnumpy(), rtol=1e-5)
    ln = nn.LayerNorm((6,), elementwise_affine=True, bias=False)
    assert ln.bias is None and ln.weight.shape == (6,)
    assert nn.LayerNorm(6, elementwise_affine=False).weight is None


# ---------------------------------------------------------------- gradients of layers' functions
SPECS = [
    OpSpec("F.linear", lambda x, w, b: F.linear(x, w, b), lambda x, w, b: x @ w.T + b, shapes=[(4, 3), (2, 3), (2,)]),
    OpSpec("F.normalize", lambda x: F.normalize(x), lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)),
    OpSpec("F.kl_div", lambda x, t: F.kl_div(x, t, "batchmean", True),
           lambda x, t: (np.exp(t) * (t - x)).sum() / x.shape[0], shapes=[(3, 4), (3, 4)]),
    OpSpec("F.log_softmax", lambda x: F.log_softmax(x), lambda x: x - np.log(np.exp(x).sum(1, keepdims=True)),
           grad2=True),
    OpSpec("F.batch_norm", lambda x, w, b: F.batch_norm(x, ms.Tensor(np.zeros(3)), ms.Tensor(np.ones(3)), w, b,
                                                        True), None, shapes=[(4, 3), (3,), (3,)], graph=False),
    OpSpec("F.conv1d", lambda x, w: F.conv1d(x, w, padding=1), None, shapes=[(1, 2, 5), (3, 2, 3)]),
    OpSpec("F.adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 2), None, shapes=[(1, 2, 6)]),
]
test_spec_value, test_spec_grad, test_spec_grad2, test_spec_graph = make_tests(SPECS)


# ---------------------------------------------------------------- a network of mint.nn layers, trained with mint.optim
class _Net(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.act = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.flat = nn.Flatten()
        self.fc = nn.Linear(16, 2)

    def construct(self, x):
        return self.fc(self.flat(self.pool(self.act(self.bn(self.conv(x))))))


def _data():
    r = np.random.RandomState(7)
    x = r.standard_normal((64, 1, 6, 6)).astype(np.float32)
    y = (x[:, 0, :3].mean((1, 2)) > x[:, 0, 3:].mean((1, 2))).astype(np.int64)   # top half brighter than bottom
    x[y == 1, 0, :3] += 0.5
    return _t(x), _t(y)


@pytest.mark.parametrize("optimizer", ["AdamW", "Adam", "SGD"])
def test_network_of_mint_layers_trains_with_mint_optim(optimizer):
    ms.set_seed(0)
    net = _Net()
    net.set_train()
    loss_fn = nn.CrossEntropyLoss()
    kwargs = {"lr": 0.05, "momentum": 0.9} if optimizer == "SGD" else {"lr": 0.02}
    opt = getattr(mint.optim, optimizer)(net.trainable_params(), **kwargs)
    x, y = _data()
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
    first = None
    for _ in range(60):
        loss, grads = grad_fn(x, y)
        opt(grads)
        first = float(loss.asnumpy()) if first is None else first
    final = float(loss.asnumpy())
    # from 0.68 (about ln 2) at the start to under 0.05 in 60 steps (measured: AdamW 0.0034, Adam 0.0032,
    # SGD 0.013): the layers, their gradients and the optimizer all work
    assert first > 0.5 and final < 0.05, (first, final)


def test_network_of_mint_layers_in_graph_mode_gives_pynative_values():
    net = _Net()
    x, _ = _data()
    want = net(x).asnumpy()
    got = ms.jit(lambda a: net(a))(x).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_dropout_layers_follow_the_training_flag():
    x = _t(np.ones((10, 20, 2, 2), np.float32))
    for layer in (nn.Dropout(0.5), nn.Dropout2d(0.5)):
        np.testing.assert_array_equal(layer(x).asnumpy(), 1.0)      # a new Cell is in eval mode
        layer.set_train()
        assert (layer(x).asnumpy() == 0).mean() > 0.2


def test_adaptive_avg_pool1d_takes_unbatched_input_and_any_output_size():
    # mint's (not ops'): (C, L) input, windows [floor(i L / n), ceil((i + 1) L / n)) when n does not divide L
    x = ms.Tensor([[2.0, 3.0], [3.0, 4.0]], ms.float16)
    for fn in (F.adaptive_avg_pool1d, ms.ops.auto_generate.adaptive_avg_pool1d, nn.AdaptiveAvgPool1d(3)):
        out = fn(x, 3) if not isinstance(fn, nn.AdaptiveAvgPool1d) else fn(x)
        assert out.dtype == ms.float16
        np.testing.assert_array_equal(out.asnumpy(), [[2.0, 2.5, 3.0], [3.0, 3.5, 4.0]])
    a = np.arange(14.0, dtype=np.float32).reshape(1, 2, 7)
    np.testing.assert_allclose(F.adaptive_avg_pool1d(ms.tensor(a), 3).asnumpy(), [[[1, 3, 5], [8, 10, 12]]])
    g = ms.grad(lambda t: F.adaptive_avg_pool1d(t, 3).sum())(ms.tensor(a))
    np.testing.assert_allclose(g.asnumpy()[0, 0], np.array([1, 1, 2, 1, 2, 1, 1]) / 3, rtol=1e-6)
    with pytest.raises(ValueError, match="'input' must be 2-D or 3-D"):
        F.adaptive_avg_pool1d(ms.tensor(a[0, 0]), 3)
