"""Activation cells: values vs numpy (float32/float64), gradients vs finite differences, repr, errors."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _softplus(x):
    return np.log1p(np.exp(x))


SELU_A, SELU_S = 1.6732632423543772, 1.0507009873554805


def _away(r, s):
    """Values away from the kinks at 0, +-0.5, +-1, +-3."""
    return r.uniform(0.1, 0.4, s) * r.choice([-1, 1], s) + r.choice([0.0, 0.7, -0.7, 1.6, -1.6, 3.6, -3.6], s)


def cell_spec(name, cell, ref, shape=(2, 3, 4), **kw):
    kw.setdefault("gen", _away)
    return OpSpec(name, lambda x: cell(x), ref, shapes=[shape], **kw)


SPECS = [
    cell_spec("ReLU", nn.ReLU(), lambda x: np.maximum(x, 0)),
    cell_spec("ReLU6", nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    cell_spec("LeakyReLU", nn.LeakyReLU(), lambda x: np.where(x >= 0, x, 0.2 * x)),
    cell_spec("LeakyReLU_0.1", nn.LeakyReLU(0.1), lambda x: np.where(x >= 0, x, 0.1 * x)),
    cell_spec("ELU", nn.ELU(), lambda x: np.where(x > 0, x, np.expm1(x))),
    cell_spec("ELU_0.5", nn.ELU(0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    cell_spec("SeLU", nn.SeLU(), lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x))),
    cell_spec("CELU", nn.CELU(0.5), lambda x: np.maximum(x, 0) + np.minimum(0, 0.5 * np.expm1(x / 0.5))),
    cell_spec("GELU_tanh", nn.GELU(), lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    cell_spec("GELU_erf", nn.GELU(False),
              lambda x: 0.5 * x * (1 + np.vectorize(__import__("math").erf)(x / np.sqrt(2)))),
    cell_spec("FastGelu", nn.FastGelu(),
              lambda x: x / (1 + np.exp(-1.702 * np.abs(x))) * np.exp(0.851 * (x - np.abs(x)))),
    cell_spec("SiLU", nn.SiLU(), lambda x: x * _sigmoid(x)),
    cell_spec("Sigmoid", nn.Sigmoid(), _sigmoid),
    cell_spec("Tanh", nn.Tanh(), np.tanh),
    cell_spec("Softmax", nn.Softmax(), _softmax),
    cell_spec("Softmax_axis1", nn.Softmax(1), lambda x: _softmax(x, 1)),
    cell_spec("Softmin", nn.Softmin(), lambda x: _softmax(-x)),
    cell_spec("Softmax2d", nn.Softmax2d(), lambda x: _softmax(x, -3)),
    cell_spec("LogSoftmax", nn.LogSoftmax(), lambda x: np.log(_softmax(x))),
    cell_spec("LogSoftmaxExt", nn.LogSoftmaxExt(), lambda x: np.log(_softmax(x, 0))),
    cell_spec("Softsign", nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    cell_spec("Softplus", nn.Softplus(), _softplus),
    cell_spec("HSwish", nn.HSwish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    cell_spec("HSigmoid", nn.HSigmoid(), lambda x: np.clip(x + 3, 0, 6) / 6),
    cell_spec("Mish", nn.Mish(), lambda x: x * np.tanh(_softplus(x))),
    cell_spec("Hardtanh", nn.Hardtanh(), lambda x: np.clip(x, -1, 1)),
    cell_spec("Hardtanh_range", nn.Hardtanh(-0.5, 2.0), lambda x: np.clip(x, -0.5, 2.0)),
    cell_spec("Tanhshrink", nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    cell_spec("HShrink", nn.HShrink(), lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    cell_spec("SoftShrink", nn.SoftShrink(0.3), lambda x: np.where(x > 0.3, x - 0.3, np.where(x < -0.3, x + 0.3, 0))),
    cell_spec("LogSigmoid", nn.LogSigmoid(), lambda x: np.log(_sigmoid(x))),
    cell_spec("GLU", nn.GLU(), lambda x: x[..., :2] * _sigmoid(x[..., 2:])),
    cell_spec("GLU_axis1", nn.GLU(axis=0), lambda x: x[:1] * _sigmoid(x[1:])),
    cell_spec("Threshold", nn.Threshold(0.2, -1.0), lambda x: np.where(x > 0.2, x, -1.0)),
    cell_spec("PReLU", nn.PReLU(), lambda x: np.where(x >= 0, x, 0.25 * x)),
    cell_spec("PReLU_channels", nn.PReLU(3, [0.1, 0.2, 0.3]),
              lambda x: np.where(x >= 0, x, np.array([0.1, 0.2, 0.3]).reshape(1, 3, 1) * x)),
    cell_spec("RReLU_fixed", nn.RReLU(0.2, 0.2), lambda x: np.where(x >= 0, x, 0.2 * x)),
]

test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def test_oracle_values():
    """Values printed by MindSpore 2.10 for a few activations."""
    x = ms.Tensor(np.array([[-2.5, -0.7, 0.3, 1.9]], np.float32))
    want = {
        "FastGelu": [-0.03498616814613342, -0.1631060391664505, 0.18748414516448975, 1.827964425086975],
        "GELU": [-0.015084296464920044, -0.16942985355854034, 0.18537093698978424, 1.8454512357711792],
        "SeLU": [-1.613785743713379, -0.8850530385971069, 0.3152103126049042, 1.9963319301605225],
        "HSwish": [-0.2083333283662796, -0.2683333158493042, 0.16500000655651093, 1.5516667366027832],
        "Mish": [-0.19681596755981445, -0.2678702175617218, 0.20800131559371948, 1.8367435932159424],
    }
    for name, vals in want.items():
        np.testing.assert_allclose(getattr(nn, name)()(x).asnumpy().ravel(), vals, rtol=1e-5, atol=1e-6)


def test_prelu_parameter_grad_and_name():
    cell = nn.PReLU(2, 0.1)
    assert cell.w.name == "a"
    assert [n for n, _ in cell.parameters_and_names()] == ["w"]
    x = ms.Tensor(np.array([[-1.0, 2.0], [-3.0, -4.0]], np.float32))
    g = ms.grad(lambda v: cell(v).sum(), grad_position=None, weights=cell.trainable_params())(x)
    np.testing.assert_allclose(g[0].asnumpy(), [-4.0, -4.0])
    assert nn.PReLUExt().weight.name == "weight"


def test_rrelu_samples_slopes_in_range():
    x = ms.Tensor(-np.ones((2000,), np.float32))
    y = -nn.RReLU(0.1, 0.3)(x).asnumpy()
    assert y.min() >= 0.1 - 1e-6 and y.max() <= 0.3 + 1e-6 and y.std() > 0.03


def test_lrn_matches_numpy():
    x = np.random.RandomState(0).standard_normal((1, 5, 2, 2)).astype(np.float32)
    y = nn.LRN(1, 1.0, 0.5, 0.75)(ms.Tensor(x)).asnumpy()
    sq = x ** 2
    acc = np.zeros_like(x)
    for c in range(5):
        acc[:, c] = sq[:, max(0, c - 1):c + 2].sum(1)
    np.testing.assert_allclose(y, x / (1.0 + 0.5 * acc) ** 0.75, rtol=1e-5)


def test_get_activation():
    assert repr(nn.get_activation("relu")) == "ReLU()"
    assert isinstance(nn.get_activation("gelu"), nn.GELU)
    assert nn.get_activation(None) is None
    with pytest.raises(KeyError, match="'name' must be in"):
        nn.get_activation("foo")


@pytest.mark.parametrize("cell,text", [
    (nn.ReLU(), "ReLU()"), (nn.LeakyReLU(0.1), "LeakyReLU()"), (nn.Softmax(1), "Softmax()"), (nn.PReLU(), "PReLU()"),
    (nn.GELU(), "GELU()"), (nn.Threshold(0.1, 2.0), "Threshold()"),
])
def test_repr(cell, text):
    assert repr(cell) == text


ERRORS = [
    ErrorSpec("hardtanh_range", lambda: nn.Hardtanh(1.0, 0.0), ValueError, "min_val should be less than max_val"),
    ErrorSpec("rrelu_bounds", lambda: nn.RReLU(0.5, 0.1), ValueError, "'upper' must be greater"),
    ErrorSpec("prelu_w_len", lambda: nn.PReLU(2, [0.1]), ValueError, "length of 'w'"),
    ErrorSpec("prelu_w_type", lambda: nn.PReLU(1, "x"), TypeError, "For 'PReLU'"),
    ErrorSpec("gelu_flag", lambda: nn.GELU("yes"), TypeError, "For 'GELU'"),
    ErrorSpec("softmax2d_rank", lambda: nn.Softmax2d()(ms.ops.ones((2, 3))), ValueError, "For 'Softmax2d'"),
    ErrorSpec("leaky_alpha", lambda: nn.LeakyReLU("a"), TypeError, "For 'LeakyReLU'"),
]
test_bad_input = make_error_tests(ERRORS)


def test_prelu_output_keeps_the_input_dtype():
    # MindSpore 2.10: a float32 slope on float16 data gives float16, and the slope's gradient stays float32
    x = ms.Tensor(np.array([[-1.0, 2.0], [-3.0, 1.0]], np.float16))
    cell = nn.PReLUExt()
    y = cell(x)
    assert y.dtype == ms.float16
    np.testing.assert_allclose(y.asnumpy(), [[-0.25, 2.0], [-0.75, 1.0]])
    gx, gw = ms.grad(lambda a, w: ms.ops.prelu(a, w).sum(), grad_position=(0, 1))(x, cell.weight)
    assert (gx.dtype, gw.dtype) == (ms.float16, ms.float32)
    np.testing.assert_allclose(gx.asnumpy(), [[0.25, 1.0], [0.25, 1.0]])
    np.testing.assert_allclose(gw.asnumpy(), [-4.0])
    assert ms.ops.prelu(x.astype(ms.float32), ms.Tensor([0.25], ms.float16)).dtype == ms.float32
