"""Basic layers (Dense, BiDense, Flatten, dropouts, Pad, Unfold, ...), math and image cells: values vs numpy,
input and parameter gradients vs finite differences, defaults, repr and bad input."""
import math

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from _harness import ErrorSpec, make_error_tests
from _layer_checks import check_cell_grad, to64

R = np.random.RandomState(0)


def rnd(*shape):
    return R.standard_normal(shape)


# ---------------------------------------------------------------- Dense family
def test_dense_value_and_grads():
    cell = to64(nn.Dense(3, 4))
    x = rnd(2, 3)
    w, b = cell.weight.asnumpy(), cell.bias.asnumpy()
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), x @ w.T + b, rtol=1e-12)
    check_cell_grad(cell, [x])


def test_dense_nd_input_and_activation():
    cell = to64(nn.Dense(3, 2, activation="relu", has_bias=False))
    x = rnd(2, 4, 3)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), np.maximum(x @ cell.weight.asnumpy().T, 0))
    check_cell_grad(cell, [x])


def test_dense_default_init_bounds():
    ms.set_seed(3)
    cell = nn.Dense(50, 40)
    w, b = cell.weight.asnumpy(), cell.bias.asnumpy()
    # HeUniform(sqrt(5)): bound = sqrt(6 / ((1 + 5) * fan_in)) = 1/sqrt(fan_in); bias U(+-1/sqrt(fan_in))
    assert np.abs(w).max() <= 1 / math.sqrt(50) + 1e-7 and np.abs(w).max() > 0.9 / math.sqrt(50)
    assert np.abs(b).max() <= 1 / math.sqrt(50) + 1e-7
    assert cell.weight.name == "weight" and cell.bias.name == "bias" and w.dtype == np.float32


def test_dense_tensor_init_and_repr():
    cell = nn.Dense(2, 3, weight_init=ms.Tensor(np.ones((3, 2), np.float32)), bias_init="zeros")
    np.testing.assert_allclose(cell(ms.Tensor([[1.0, 2.0]])).asnumpy(), [[3.0, 3.0, 3.0]])
    assert repr(cell) == "Dense(input_channels=2, output_channels=3, has_bias=True)"
    assert repr(nn.Dense(3, 2, has_bias=False)) == "Dense(input_channels=3, output_channels=2)"
    d = nn.Dense(3, 2, activation=nn.ReLU())
    assert repr(d) == ("Dense(\n  input_channels=3, output_channels=2, has_bias=True, activation=ReLU()\n"
                       "  (activation): ReLU()\n)")


def test_linear_and_bidense():
    lin = to64(nn.Linear(3, 2))
    x = rnd(4, 3)
    np.testing.assert_allclose(lin(ms.Tensor(x)).asnumpy(), x @ lin.weight.asnumpy().T + lin.bias.asnumpy())
    assert repr(lin) == "Linear(input_features=3, output_features=2, has_bias=True)"
    check_cell_grad(lin, [x])
    bi = to64(nn.BiDense(3, 2, 4))
    x1, x2 = rnd(5, 3), rnd(5, 2)
    w, b = bi.weight.asnumpy(), bi.bias.asnumpy()
    np.testing.assert_allclose(bi(ms.Tensor(x1), ms.Tensor(x2)).asnumpy(),
                               np.einsum("ni,oij,nj->no", x1, w, x2) + b, rtol=1e-10)
    assert repr(bi) == "BiDense(in1_channels=3, in2_channels=2, output_channels=4, has_bias=True)"
    check_cell_grad(bi, [x1, x2])
    x1, x2 = rnd(2, 3, 3), rnd(2, 3, 2)
    assert bi(ms.Tensor(x1), ms.Tensor(x2)).shape == (2, 3, 4)


# ---------------------------------------------------------------- shape cells
def test_flatten_unflatten_identity():
    x = rnd(2, 3, 4, 5)
    assert nn.Flatten()(ms.Tensor(x)).shape == (2, 60)
    assert nn.Flatten(0, 1)(ms.Tensor(x)).shape == (6, 4, 5)
    assert nn.Flatten(1, 2)(ms.Tensor(x)).shape == (2, 12, 5)
    np.testing.assert_array_equal(nn.Flatten()(ms.Tensor(x)).asnumpy(), x.reshape(2, -1))
    assert nn.Unflatten(1, (2, 2))(ms.Tensor(rnd(3, 4))).shape == (3, 2, 2)
    assert nn.Unflatten(-1, (2, 2))(ms.Tensor(rnd(3, 4))).shape == (3, 2, 2)
    t = ms.Tensor(x)
    assert nn.Identity(1, a=2)(t) is t
    check_cell_grad(nn.Flatten(), [rnd(2, 2, 2)])


# ---------------------------------------------------------------- dropout
def test_dropout_train_eval():
    x = ms.ops.ones((200, 50))
    d = nn.Dropout(p=0.3)
    assert d(x) is x  # not training
    d.set_train()
    y = d(x).asnumpy()
    kept = y != 0
    assert abs(kept.mean() - 0.7) < 0.03
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    d2 = nn.Dropout(keep_prob=0.8).set_train()
    assert abs((d2(x).asnumpy() != 0).mean() - 0.8) < 0.03
    assert repr(nn.Dropout(p=0.2)) == "Dropout(p=0.2)" and repr(nn.Dropout(0.8)) == "Dropout(keep_prob=0.8)"
    assert nn.Dropout(p=0.0).set_train()(x) is x


def test_channel_dropouts():
    x = ms.ops.ones((4, 300, 2, 2))
    y = nn.Dropout2d(0.5).set_train()(x).asnumpy()
    per_channel = y.reshape(4, 300, 4)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))
    assert abs((per_channel[..., 0] == 0).mean() - 0.5) < 0.06
    y1 = nn.Dropout1d(0.5).set_train()(ms.ops.ones((4, 300, 3))).asnumpy()
    assert np.all((y1 == 0).all(-1) | (y1 == 2.0).all(-1))
    y3 = nn.Dropout3d(0.5).set_train()(ms.ops.ones((2, 300, 2, 2, 2))).asnumpy().reshape(2, 300, 8)
    assert np.all((y3 == 0).all(-1) | (y3 == 2.0).all(-1))
    assert repr(nn.Dropout2d(0.3)) == "Dropout2d(p=0.7)"  # MindSpore prints the keep probability
    assert nn.Dropout2d().set_train(False)(x) is x


def test_dropout_grad_matches_mask():
    # a layer draws its seeds when made (MindSpore's): after set_seed, a new layer repeats the first one's masks
    x = ms.Tensor(np.ones((100,)))
    ms.set_seed(5)
    y = nn.Dropout(p=0.5).set_train()(x)
    ms.set_seed(5)
    d = nn.Dropout(p=0.5).set_train()
    g = ms.grad(lambda v: d(v).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), y.asnumpy())
    assert 30 < int((y.asnumpy() != 0).sum()) < 70


# ---------------------------------------------------------------- utilities
def test_clip_by_norm_and_norm():
    x = np.array([[3.0, 4.0], [0.3, 0.4]], np.float32)
    np.testing.assert_allclose(nn.ClipByNorm()(ms.Tensor(x), ms.Tensor(1.0)).asnumpy(),
                               x / np.linalg.norm(x), rtol=1e-6)
    np.testing.assert_allclose(nn.ClipByNorm(axis=1)(ms.Tensor(x), ms.Tensor(1.0)).asnumpy(),
                               [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)
    np.testing.assert_allclose(nn.Norm(axis=1)(ms.Tensor(x)).asnumpy(), [5.0, 0.5], rtol=1e-6)
    np.testing.assert_allclose(nn.Norm()(ms.Tensor(x)).asnumpy(), 5.0249376, rtol=1e-6)
    assert nn.Norm(axis=1, keep_dims=True)(ms.Tensor(x)).shape == (2, 1)
    assert repr(nn.Norm()) == "Norm(axis=(), keep_dims=False)"
    check_cell_grad(nn.Norm(axis=1), [rnd(2, 3)])
    check_cell_grad(nn.ClipByNorm(axis=1), [np.array([[3.0, 4.0], [0.3, 0.4]])], extra=(1.0,))


def test_onehot_range_tril_triu_roll():
    np.testing.assert_array_equal(nn.OneHot(depth=3)(ms.Tensor(np.array([0, 2], np.int32))).asnumpy(),
                                  [[1, 0, 0], [0, 0, 1]])
    oh = nn.OneHot(axis=0, depth=3, on_value=5.0, off_value=-1.0)(ms.Tensor(np.array([1, 0], np.int32)))
    np.testing.assert_array_equal(oh.asnumpy(), [[-1, 5], [5, -1], [-1, -1]])
    r = nn.Range(1, 7, 2)()
    assert r.dtype == ms.int32 and r.asnumpy().tolist() == [1, 3, 5]
    assert nn.Range(1.0, 3)().dtype == ms.float32
    x = rnd(3, 4)
    np.testing.assert_array_equal(nn.Tril()(ms.Tensor(x), 1).asnumpy(), np.tril(x, 1))
    np.testing.assert_array_equal(nn.Triu()(ms.Tensor(x)).asnumpy(), np.triu(x))
    t = nn.Tril()(ms.Tensor(np.ones((3, 3), np.int32)), 1)
    assert t.dtype == ms.int32 and t.asnumpy().tolist() == [[1, 1, 0], [1, 1, 1], [1, 1, 1]]
    np.testing.assert_array_equal(nn.Roll(1, 0)(ms.Tensor(x)).asnumpy(), np.roll(x, 1, 0))
    np.testing.assert_array_equal(nn.Roll([1, -1], [0, 1])(ms.Tensor(x)).asnumpy(), np.roll(x, (1, -1), (0, 1)))
    check_cell_grad(nn.Tril(), [rnd(3, 3)])


def test_matrix_diag_family():
    v = rnd(2, 3)
    np.testing.assert_array_equal(nn.MatrixDiag()(ms.Tensor(v)).asnumpy(), np.stack([np.diag(r) for r in v]))
    m = rnd(2, 3, 4)
    np.testing.assert_array_equal(nn.MatrixDiagPart()(ms.Tensor(m)).asnumpy(),
                                  np.stack([np.diag(r) for r in m]))
    d = rnd(2, 3)
    want = m.copy()
    for i in range(2):
        np.fill_diagonal(want[i], d[i])
    np.testing.assert_allclose(nn.MatrixSetDiag()(ms.Tensor(m), ms.Tensor(d)).asnumpy(), want)
    check_cell_grad(nn.MatrixSetDiag(), [m, d])


def test_l1_regularizer():
    out = nn.L1Regularizer(0.5)(ms.Tensor(np.array([[3.0, -4.0]], np.float32)))
    assert out.dtype == ms.float32 and float(out) == 3.5


def test_pad_modes():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    pads = ((1, 1), (2, 0))
    np.testing.assert_array_equal(nn.Pad(pads)(ms.Tensor(x)).asnumpy(), np.pad(x, pads))
    np.testing.assert_array_equal(nn.Pad(pads, "REFLECT")(ms.Tensor(x)).asnumpy(), np.pad(x, pads, "reflect"))
    np.testing.assert_array_equal(nn.Pad(pads, "SYMMETRIC")(ms.Tensor(x)).asnumpy(), np.pad(x, pads, "symmetric"))
    # the values MindSpore prints
    np.testing.assert_array_equal(nn.Pad(pads, "SYMMETRIC")(ms.Tensor(x)).asnumpy()[0], [1, 0, 0, 1, 2])
    for mode in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        check_cell_grad(nn.Pad(pads, mode), [rnd(2, 3)])


def test_unfold_extract_patches():
    x = np.arange(2 * 3 * 4 * 4, dtype=np.float64).reshape(2, 3, 4, 4)
    cell = nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1])
    out = cell(ms.Tensor(x)).asnumpy()
    assert out.shape == (2, 12, 3, 3)
    # depth ordered (row, col, channel) as TF's ExtractImagePatches
    want = np.stack([x[:, c, i:i + 3, j:j + 3] for i in range(2) for j in range(2) for c in range(3)], 1)
    np.testing.assert_array_equal(out, want)
    same = nn.Unfold([1, 3, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "same")(ms.Tensor(x))
    assert same.shape == (2, 27, 2, 2)
    check_cell_grad(nn.Unfold([1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "same"), [rnd(1, 2, 3, 3)])


def test_fold_inverts_unfold_sum():
    x = rnd(1, 2, 4, 4)
    cols = ms.ops.unfold(ms.Tensor(x), 2, stride=2)
    np.testing.assert_allclose(nn.Fold((4, 4), 2, stride=2)(cols).asnumpy(), x)


def test_upsample():
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    out = nn.Upsample(size=(3, 3), mode="bilinear", align_corners=True)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(out[0, 0], [[0, 0.5, 1], [1, 1.5, 2], [2, 2.5, 3]])
    assert nn.Upsample(size=(4, 4))(ms.Tensor(x)).shape == (1, 1, 4, 4)


# ---------------------------------------------------------------- math cells
def test_math_cells():
    x = rnd(2, 3)
    np.testing.assert_allclose(nn.ReduceLogSumExp(1)(ms.Tensor(x)).asnumpy(), np.log(np.exp(x).sum(1)))
    assert nn.ReduceLogSumExp((0, 1), True)(ms.Tensor(x)).shape == (1, 1)
    mean, var = nn.Moments(axis=1)(ms.Tensor(x))
    np.testing.assert_allclose(mean.asnumpy(), x.mean(1))
    np.testing.assert_allclose(var.asnumpy(), x.var(1))
    m2, v2 = nn.Moments(keep_dims=True)(ms.Tensor(x))
    assert m2.shape == (1, 1) and v2.shape == (1, 1)
    a, b = rnd(2, 3), rnd(4, 3)
    np.testing.assert_allclose(nn.MatMul(transpose_x2=True)(ms.Tensor(a), ms.Tensor(b)).asnumpy(), a @ b.T)
    np.testing.assert_allclose(nn.MatMul()(ms.Tensor(rnd(3)), ms.Tensor(rnd(2, 3, 4))).shape, (2, 4))
    c1, c2 = rnd(2, 3), rnd(2, 3)
    cos = (c1 * c2).sum(1) / np.sqrt((c1 ** 2).sum(1) * (c2 ** 2).sum(1))
    np.testing.assert_allclose(nn.layer.CosineSimilarity()(ms.Tensor(c1), ms.Tensor(c2)).asnumpy(), cos)
    check_cell_grad(nn.ReduceLogSumExp(1), [x])
    check_cell_grad(nn.layer.CosineSimilarity(), [c1, c2])


def test_special_function_cells_match_mindspore():
    x = ms.Tensor(np.array([0.5, 1.5, 3.0, -0.5, -2.3], np.float32))
    np.testing.assert_allclose(nn.LGamma()(x).asnumpy(),
                               [0.57236373, -0.12078345, 0.69314706, 1.2655133, 0.36956632], atol=1e-5)
    np.testing.assert_allclose(nn.DiGamma()(x).asnumpy(),
                               [-1.96351, 0.03649032, 0.92278475, 0.03649018, 3.317324], rtol=1e-4)
    a = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_allclose(nn.IGamma()(a, ms.Tensor(np.array([0.5, 2.5, 1.0], np.float32))).asnumpy(),
                               [0.39346904, 0.7127025, 0.08030115], rtol=1e-5)
    x1 = ms.Tensor(np.array([1.0, 2.0, 9.0, 10.0], np.float32))
    y1 = ms.Tensor(np.array([0.5, 10.5, 1.0, 12.0], np.float32))
    np.testing.assert_allclose(nn.LBeta()(x1, y1).asnumpy(), [0.69314754, -4.7937226, -2.1972246, -15.076002],
                               rtol=1e-5)


def test_mat_inverse_and_det():
    m = np.array([[4.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(nn.MatInverse()(ms.Tensor(m)).asnumpy(), np.linalg.inv(m))
    np.testing.assert_allclose(nn.MatDet()(ms.Tensor(m)).asnumpy(), 11.0)


# ---------------------------------------------------------------- image cells
def test_pixel_and_channel_shuffle():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2)
    y = nn.PixelShuffle(2)(ms.Tensor(x)).asnumpy()
    want = x.reshape(1, 1, 2, 2, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(ms.Tensor(y)).asnumpy(), x)
    cs = nn.ChannelShuffle(2)(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(cs, x.reshape(1, 2, 2, 2, 2).transpose(0, 2, 1, 3, 4).reshape(1, 4, 2, 2))


def test_central_crop_and_image_gradients():
    x = rnd(1, 3, 4, 4)
    np.testing.assert_array_equal(nn.CentralCrop(0.5)(ms.Tensor(x)).asnumpy(), x[:, :, 1:3, 1:3])
    assert nn.CentralCrop(0.5)(ms.Tensor(rnd(3, 8, 8))).shape == (3, 4, 4)
    dy, dx = nn.ImageGradients()(ms.Tensor(x))
    want_dy = np.concatenate([x[:, :, 1:] - x[:, :, :-1], np.zeros((1, 3, 1, 4))], 2)
    want_dx = np.concatenate([x[..., 1:] - x[..., :-1], np.zeros((1, 3, 4, 1))], 3)
    np.testing.assert_allclose(dy.asnumpy(), want_dy)
    np.testing.assert_allclose(dx.asnumpy(), want_dx)


def _np_ssim(a, b, size=3, sigma=1.5, c1=1e-4, c2=9e-4):
    xg, yg = np.mgrid[-size // 2 + 1:size // 2 + 1, -size // 2 + 1:size // 2 + 1]
    g = np.exp(-(xg ** 2 + yg ** 2) / (2 * sigma ** 2))
    g /= g.sum()

    def conv(img):
        h, w = img.shape[-2:]
        out = np.zeros(img.shape[:-2] + (h - size + 1, w - size + 1))
        for i in range(size):
            for j in range(size):
                out += g[i, j] * img[..., i:i + h - size + 1, j:j + w - size + 1]
        return out
    mu1, mu2 = conv(a), conv(b)
    s1, s2, s12 = conv(a * a) - mu1 ** 2, conv(b * b) - mu2 ** 2, conv(a * b) - mu1 * mu2
    ssim = (2 * mu1 * mu2 + c1) * (2 * s12 + c2) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s1 + s2 + c2))
    return ssim.mean((2, 3)).mean(-1)


def test_psnr_ssim():
    a = R.rand(2, 2, 8, 8).astype(np.float32)
    b = np.clip(a + 0.1 * R.standard_normal(a.shape), 0, 1).astype(np.float32)
    mse = ((a - b) ** 2).mean((1, 2, 3))
    np.testing.assert_allclose(nn.PSNR()(ms.Tensor(a), ms.Tensor(b)).asnumpy(), 10 * np.log10(1 / mse), rtol=1e-5)
    np.testing.assert_allclose(nn.SSIM(filter_size=3)(ms.Tensor(a), ms.Tensor(b)).asnumpy(),
                               _np_ssim(a.astype(np.float64), b.astype(np.float64)), rtol=1e-4)
    ua, ub = (a * 255).astype(np.uint8), (b * 255).astype(np.uint8)
    mse8 = ((ua.astype(np.float64) - ub) ** 2).mean((1, 2, 3))
    np.testing.assert_allclose(nn.PSNR(255)(ms.Tensor(ua), ms.Tensor(ub)).asnumpy(),
                               10 * np.log10(255 ** 2 / mse8), rtol=1e-4)
    ms_ssim = nn.MSSSIM(filter_size=3, power_factors=(0.5, 0.5))(ms.Tensor(a), ms.Tensor(b))
    assert ms_ssim.shape == (2,) and np.all(ms_ssim.asnumpy() > 0)
    one = nn.MSSSIM(filter_size=3, power_factors=(0.5, 0.5))(ms.Tensor(a), ms.Tensor(a)).asnumpy()
    np.testing.assert_allclose(one, 1.0, rtol=1e-5)


# ---------------------------------------------------------------- combined
def test_combined_and_time_distributed():
    cba = to64(nn.Conv2dBnAct(2, 3, 3, has_bn=True, activation="relu"))
    x = rnd(2, 2, 4, 4)
    conv = cba.conv(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(cba(ms.Tensor(x)).asnumpy(), np.maximum(conv / np.sqrt(1 + 1e-5), 0), rtol=1e-6)
    assert [n for n, _ in cba.parameters_and_names()][:2] == ["conv.weight", "batchnorm.moving_mean"]
    dba = nn.DenseBnAct(3, 4, activation="leakyrelu", alpha=0.1)
    assert isinstance(dba.activation, nn.LeakyReLU) and dba.activation.alpha == 0.1
    dense = to64(nn.Dense(3, 4))
    td = nn.TimeDistributed(dense, time_axis=1)
    x = rnd(2, 5, 3)
    want = x @ dense.weight.asnumpy().T + dense.bias.asnumpy()
    np.testing.assert_allclose(td(ms.Tensor(x)).asnumpy(), want)
    np.testing.assert_allclose(nn.TimeDistributed(dense, 1, 0)(ms.Tensor(x)).asnumpy(), want)
    check_cell_grad(td, [rnd(2, 3, 3)])


ERRORS = [
    ErrorSpec("dense_channels", lambda: nn.Dense(3, 4)(ms.ops.ones((2, 5))), ValueError,
              "For 'MatMul' the input dimensions must be equal, but got 'x1_col': 5 and 'x2_row': 3."),
    ErrorSpec("dense_in_channels", lambda: nn.Dense(0, 4), ValueError, "For 'Dense'"),
    ErrorSpec("dense_has_bias", lambda: nn.Dense(2, 4, has_bias=1), TypeError, "For 'Dense'"),
    ErrorSpec("dense_weight_shape", lambda: nn.Dense(2, 4, weight_init=ms.ops.ones((2, 4))), ValueError,
              "For 'Dense'"),
    ErrorSpec("dense_activation", lambda: nn.Dense(2, 4, activation=3), TypeError, "For 'Dense'"),
    ErrorSpec("flatten_range", lambda: nn.Flatten(5)(ms.ops.ones((2, 3))), ValueError, "out of range"),
    ErrorSpec("flatten_order", lambda: nn.Flatten(1, 0)(ms.ops.ones((2, 3))), ValueError, "cannot come after"),
    ErrorSpec("dropout_keep", lambda: nn.Dropout(keep_prob=0.0), ValueError, "(0, 1]"),
    ErrorSpec("dropout_p", lambda: nn.Dropout(p=1.0), ValueError, "[0, 1)"),
    ErrorSpec("dropout2d_p", lambda: nn.Dropout2d(2.0), ValueError, "For 'Dropout2d'"),
    ErrorSpec("pad_mode", lambda: nn.Pad(((1, 1),), "WRAP"), ValueError, "For 'Pad'"),
    ErrorSpec("pad_type", lambda: nn.Pad([[1, 1]]), TypeError, "For 'Pad'"),
    ErrorSpec("unfold_ksizes", lambda: nn.Unfold([2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1]), ValueError,
              "For 'Unfold'"),
    ErrorSpec("l1reg_scale", lambda: nn.L1Regularizer(-1.0), ValueError, "For 'L1Regularizer'"),
    ErrorSpec("l1reg_weights", lambda: nn.L1Regularizer(0.5)((1, 2)), TypeError, "'weights' must be a Tensor"),
    ErrorSpec("roll_len", lambda: nn.Roll([1, 2], [0]), ValueError, "For 'Roll'"),
    ErrorSpec("bidense_shape", lambda: nn.BiDense(2, 3, 4)(ms.ops.ones((2, 2)), ms.ops.ones((3, 3))), ValueError,
              "For 'BiDense'"),
    ErrorSpec("channel_shuffle_groups", lambda: nn.ChannelShuffle(0), ValueError, "ChannelShuffle"),
    ErrorSpec("central_crop", lambda: nn.CentralCrop(1.5), ValueError, "For 'CentralCrop'"),
    ErrorSpec("psnr_shape", lambda: nn.PSNR()(ms.ops.ones((1, 1, 2, 2)), ms.ops.ones((1, 1, 2, 3))), ValueError,
              "For 'PSNR'"),
    ErrorSpec("lgamma_dtype", lambda: nn.LGamma()(ms.Tensor([1, 2])), TypeError, "For 'LGamma'"),
    ErrorSpec("range_delta", lambda: nn.Range(0, 3, 0), ValueError, "For 'Range'"),
    ErrorSpec("matmul_shapes", lambda: nn.MatMul()(ms.ops.ones((2, 3)), ms.ops.ones((2, 3))), ValueError,
              "For 'MatMul'"),
    ErrorSpec("time_distributed_rank", lambda: nn.TimeDistributed(nn.ReLU(), 1)(ms.ops.ones((2, 3))), ValueError,
              "For 'TimeDistributed'"),
]
test_bad_input = make_error_tests(ERRORS)


@pytest.mark.parametrize("cell,text", [
    (nn.Flatten(), "Flatten()"), (nn.Unflatten(1, (2, 2)), "Unflatten()"), (nn.Identity(), "Identity()"),
    (nn.Dropout1d(), "Dropout1d()"), (nn.Dropout3d(0.3), "Dropout3d(p=0.7)"), (nn.Upsample(scale_factor=2.0),
                                                                             "Upsample()"),
    (nn.OneHot(depth=3), "OneHot()"), (nn.Pad(((1, 1),)), "Pad()"), (nn.Tril(), "Tril()"),
    (nn.L1Regularizer(0.5), "L1Regularizer()"), (nn.PixelShuffle(2), "PixelShuffle()"),
])
def test_repr(cell, text):
    assert repr(cell) == text


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
def test_pad_mirrors_every_dimension_of_a_4d_input(mode):
    x = np.arange(2 * 3 * 3 * 5).reshape(2, 3, 3, 5).astype(np.float32)
    pads = ((1, 0), (2, 0), (1, 2), (3, 4)) if mode == "REFLECT" else ((1, 1), (0, 2), (1, 2), (2, 0))
    out = nn.Pad(pads, mode)(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out, np.pad(x, pads, mode.lower()))
    # padding only the last dims through ops.pad still accepts leading zero pairs
    flat = (3, 4, 1, 2, 0, 0, 0, 0)
    np.testing.assert_array_equal(ms.ops.pad(ms.Tensor(x), flat, mode="reflect").asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 2), (3, 4)), "reflect"))


def test_mindspore_argument_checks_and_attributes():
    """max_val's type (TypeError) and value (ValueError) for PSNR/SSIM/MSSSIM, Softmax's primitive with its axis as
    a tuple, a Cell whose __init__ skipped super().__init__(), CheckpointConfig's int arguments."""
    import pytest  # noqa: PLC0415
    from mindseed.train import CheckpointConfig  # noqa: PLC0415
    for cls in (nn.PSNR, nn.SSIM, nn.MSSSIM):
        with pytest.raises(TypeError, match="'max_val' must be int or float"):
            cls(max_val=True)
        with pytest.raises(ValueError, match="'max_val' must be a number greater than 0"):
            cls(max_val=-1.0)
    assert nn.Softmax(1).softmax.axis == (1,) and ms.ops.Softmax(axis=-1).axis == (-1,)

    class NoSuper(nn.Cell):
        def __init__(self):
            self.a = 1

        def construct(self):
            return self.a
    with pytest.raises(AttributeError, match=r"call super\(\).__init__\(\)"):
        NoSuper()()
    for name in ("save_checkpoint_steps", "keep_checkpoint_max"):
        with pytest.raises(TypeError):
            CheckpointConfig(**{name: "abc"})
        with pytest.raises(ValueError):
            CheckpointConfig(**{name: -1})


def test_ssim_argument_types_and_jvp_vector_structure():
    """SSIM's filter_size / filter_sigma: TypeError for the type, ValueError for the value (MindSpore's split); a
    network of one input (output) takes v as a Tensor in Jvp (Vjp), not a tuple."""
    import pytest  # noqa: PLC0415
    for kwargs, err in (({"filter_size": 1.1}, TypeError), ({"filter_size": 0}, ValueError),
                        ({"filter_sigma": 1}, TypeError), ({"filter_sigma": -1.0}, ValueError)):
        with pytest.raises(err, match="For 'SSIM'"):
            nn.SSIM(**kwargs)
    x = ms.Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="'v' must be a Tensor for a network of one input"):
        nn.Jvp(lambda a: a * 2)(x, (x,))
    with pytest.raises(TypeError, match="'v' must be a Tensor for a network of one output"):
        nn.Vjp(lambda a: a * 2)(x, (x,))


def test_pad_constant_rejects_negative_paddings_and_scatter_nd_a_scalar_index():
    with pytest.raises(ValueError, match="all elements of 'paddings' must be >= 0"):
        nn.Pad(paddings=((0, 0), (-1, -1)))(ms.Tensor(np.ones((3, 3), np.float32)))
    with pytest.raises(ValueError, match="all elements of 'paddings' must be >= 0"):
        ms.ops.Pad(((0, -1),))(ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(RuntimeError, match="must not be a scalar"):
        ms.ops.scatter_nd(ms.Tensor(np.array(3, np.int64)), ms.Tensor(np.ones(2, np.float32)), (4, 2))
