"""Normalization layers: values vs numpy, MindSpore's momentum convention, train/eval statistics, gradients
vs finite differences, parameter names and repr."""
import re

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from _harness import ErrorSpec, make_error_tests
from _layer_checks import check_cell_grad, set_params, to64

R = np.random.RandomState(0)


def rnd(*shape):
    return R.standard_normal(shape)


def np_bn(x, mean, var, gamma, beta, eps=1e-5):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * gamma.reshape(shape) + beta.reshape(shape)


def _with_affine(cell, c):
    set_params(cell, {"gamma": R.uniform(0.5, 1.5, c), "beta": rnd(c)})
    return cell


def test_batchnorm2d_matches_mindspore_statistics():
    np.random.seed(0)
    x = np.random.randn(4, 3, 2, 2).astype(np.float32)
    bn = nn.BatchNorm2d(3).set_train()
    y = bn(ms.Tensor(x)).asnumpy()
    # what MindSpore 2.10 prints for this input
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [0.05913185, 0.02342554, -0.02721613], rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), [1.000428, 1.0473367, 1.012371], rtol=1e-5)
    m, v = x.mean((0, 2, 3)), x.var((0, 2, 3))
    np.testing.assert_allclose(y, np_bn(x, m, v, np.ones(3), np.zeros(3)), atol=1e-5)
    bn.set_train(False)
    np.testing.assert_allclose(bn(ms.Tensor(x)).asnumpy().ravel()[:4], [1.7045473, 0.3409507, 0.9194048, 2.1812837],
                               rtol=1e-5)


@pytest.mark.parametrize("cls,shape", [(nn.BatchNorm2d, (4, 3, 2, 2)), (nn.BatchNorm1d, (5, 3)),
                                       (nn.BatchNorm1d, (4, 3, 2)), (nn.SyncBatchNorm, (4, 3, 2, 2))])
def test_batchnorm_train_eval_and_momentum(cls, shape):
    bn = _with_affine(to64(cls(3, momentum=0.8)), 3)
    g, b = bn.gamma.asnumpy(), bn.beta.asnumpy()
    x = rnd(*shape)
    axes = (0,) + tuple(range(2, len(shape)))
    m, vb, vu = x.mean(axes), x.var(axes), x.var(axes, ddof=1)
    bn.set_train()
    np.testing.assert_allclose(bn(ms.Tensor(x)).asnumpy(), np_bn(x, m, vb, g, b), rtol=1e-10, atol=1e-12)
    mm, mv = 0.2 * m, 0.8 + 0.2 * vu  # moving = momentum * moving + (1 - momentum) * batch
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), mm, rtol=1e-10)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), mv, rtol=1e-10)
    bn.set_train(False)
    x2 = rnd(*shape)
    np.testing.assert_allclose(bn(ms.Tensor(x2)).asnumpy(), np_bn(x2, mm, mv, g, b), rtol=1e-10)
    # use_batch_statistics overrides the training flag
    forced = _with_affine(to64(cls(3, use_batch_statistics=True)), 3)
    np.testing.assert_allclose(forced(ms.Tensor(x)).asnumpy(),
                               np_bn(x, m, vb, forced.gamma.asnumpy(), forced.beta.asnumpy()), rtol=1e-10)
    frozen = to64(cls(3, use_batch_statistics=False)).set_train()
    np.testing.assert_allclose(frozen(ms.Tensor(x)).asnumpy(), x / np.sqrt(1 + 1e-5), rtol=1e-10)


@pytest.mark.parametrize("train", [True, False])
def test_batchnorm_grads(train):
    bn = _with_affine(to64(nn.BatchNorm2d(2)), 2).set_train(train)
    set_params(bn, {"moving_mean": rnd(2), "moving_variance": R.uniform(0.5, 2, 2)})
    check_cell_grad(bn, [rnd(3, 2, 2, 2)])


def test_batchnorm3d_and_names():
    bn = to64(nn.BatchNorm3d(2)).set_train()
    x = rnd(2, 2, 2, 3, 2)
    m, v = x.mean((0, 2, 3, 4)), x.var((0, 2, 3, 4))
    np.testing.assert_allclose(bn(ms.Tensor(x)).asnumpy(), np_bn(x, m, v, np.ones(2), np.zeros(2)), rtol=1e-10)
    assert [n for n, _ in bn.parameters_and_names()] == ["bn2d.moving_mean", "bn2d.moving_variance", "bn2d.gamma",
                                                         "bn2d.beta"]
    b2 = nn.BatchNorm2d(3)
    assert [(n, p.name, p.requires_grad) for n, p in b2.parameters_and_names()] == [
        ("moving_mean", "mean", False), ("moving_variance", "variance", False), ("gamma", "gamma", True),
        ("beta", "beta", True)]
    assert not nn.BatchNorm2d(3, affine=False).gamma.requires_grad


def test_batchnorm_repr():
    assert repr(nn.BatchNorm2d(3)) == (
        "BatchNorm2d(num_features=3, eps=1e-05, momentum=0.9, gamma=Parameter (name=gamma, shape=(3,), "
        "dtype=Float32, requires_grad=True), beta=Parameter (name=beta, shape=(3,), dtype=Float32, "
        "requires_grad=True), moving_mean=Parameter (name=mean, shape=(3,), dtype=Float32, requires_grad=False), "
        "moving_variance=Parameter (name=variance, shape=(3,), dtype=Float32, requires_grad=False))")


def np_ln(x, axis, eps):
    axes = tuple(range(axis, x.ndim))
    return (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)


def test_layernorm():
    ln = to64(nn.LayerNorm((4,)))
    set_params(ln, {"gamma": rnd(4), "beta": rnd(4)})
    x = rnd(2, 3, 4)
    want = np_ln(x, 2, 1e-7) * ln.gamma.asnumpy() + ln.beta.asnumpy()
    np.testing.assert_allclose(ln(ms.Tensor(x)).asnumpy(), want, rtol=1e-9, atol=1e-12)
    check_cell_grad(ln, [x])
    ln2 = to64(nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1))
    set_params(ln2, {"gamma": rnd(3, 4)})
    np.testing.assert_allclose(ln2(ms.Tensor(x)).asnumpy(), np_ln(x, 1, 1e-7) * ln2.gamma.asnumpy(), rtol=1e-9)
    # normalize over axes 1.. but scale only the last axis (MindSpore's begin_params_axis)
    ln3 = to64(nn.LayerNorm((4,), begin_norm_axis=1, begin_params_axis=-1))
    set_params(ln3, {"gamma": np.array([1.0, 2.0, 3.0, 4.0])})
    np.testing.assert_allclose(ln3(ms.Tensor(x)).asnumpy(), np_ln(x, 1, 1e-7) * [1, 2, 3, 4], rtol=1e-9)
    check_cell_grad(ln3, [x])
    assert repr(nn.LayerNorm((3,))) == (
        "LayerNorm(normalized_shape=(3,), begin_norm_axis=-1, begin_params_axis=-1, gammaParameter (name=gamma, "
        "shape=(3,), dtype=Float32, requires_grad=True), beta=Parameter (name=beta, shape=(3,), dtype=Float32, "
        "requires_grad=True))")


def test_layernorm_ext():
    ln = to64(nn.LayerNormExt(4))
    x = rnd(3, 4)
    np.testing.assert_allclose(ln(ms.Tensor(x)).asnumpy(), np_ln(x, 1, 1e-5), rtol=1e-9)
    assert [n for n, _ in ln.parameters_and_names()] == ["weight", "bias"]
    assert nn.LayerNormExt((4,), elementwise_affine=False).weight is None
    assert repr(nn.LayerNormExt(3)) == "LayerNormExt(normalized_shape=(3,), eps=1e-05, elementwise_affine=True)"
    check_cell_grad(ln, [x])


def test_groupnorm():
    gn = to64(nn.GroupNorm(2, 4))
    set_params(gn, {"gamma": rnd(4), "beta": rnd(4)})
    x = rnd(2, 4, 3)
    xg = x.reshape(2, 2, -1)
    norm = ((xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    want = norm * gn.gamma.asnumpy().reshape(1, 4, 1) + gn.beta.asnumpy().reshape(1, 4, 1)
    np.testing.assert_allclose(gn(ms.Tensor(x)).asnumpy(), want, rtol=1e-9, atol=1e-12)
    check_cell_grad(gn, [x])
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(num_groups=2, num_channels=4)"


@pytest.mark.parametrize("cls,shape", [(nn.InstanceNorm1d, (2, 3, 5)), (nn.InstanceNorm2d, (2, 3, 2, 3)),
                                       (nn.InstanceNorm3d, (2, 3, 2, 2, 2))])
def test_instancenorm(cls, shape):
    inn = _with_affine(to64(cls(3)), 3)
    x = rnd(*shape)
    axes = tuple(range(2, len(shape)))
    norm = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    bshape = (1, 3) + (1,) * len(axes)
    want = norm * inn.gamma.asnumpy().reshape(bshape) + inn.beta.asnumpy().reshape(bshape)
    np.testing.assert_allclose(inn(ms.Tensor(x)).asnumpy(), want, rtol=1e-9, atol=1e-12)
    inn.set_train()
    np.testing.assert_allclose(inn(ms.Tensor(x)).asnumpy(), want, rtol=1e-9, atol=1e-12)  # same in training
    n = int(np.prod(shape[2:]))
    np.testing.assert_allclose(inn.moving_mean.asnumpy(), 0.1 * x.mean(axes).mean(0), rtol=1e-9)
    np.testing.assert_allclose(inn.moving_variance.asnumpy(), 0.9 + 0.1 * (x.var(axes) * n / (n - 1)).mean(0),
                               rtol=1e-9)
    check_cell_grad(inn, [x])


ERRORS = [
    ErrorSpec("bn_num_features", lambda: nn.BatchNorm2d(0), ValueError, "num_features"),
    ErrorSpec("bn_momentum", lambda: nn.BatchNorm2d(2, momentum=1.5), ValueError, "momentum"),
    ErrorSpec("bn_stats_flag", lambda: nn.BatchNorm2d(2, use_batch_statistics=1), ValueError,
              "use_batch_statistics"),
    ErrorSpec("bn2d_rank", lambda: nn.BatchNorm2d(2)(ms.ops.ones((2, 2))), ValueError,
              "For 'BatchNorm2d', the in_shape must have 4 dims, but got 2."),
    ErrorSpec("bn1d_rank", lambda: nn.BatchNorm1d(2)(ms.ops.ones((2, 2, 2, 2))), ValueError, "BatchNorm1d"),
    ErrorSpec("bn_channels", lambda: nn.BatchNorm2d(3)(ms.ops.ones((2, 2, 2, 2))), ValueError, "BatchNorm"),
    ErrorSpec("ln_type", lambda: nn.LayerNorm(4), TypeError, "normalized_shape"),
    ErrorSpec("ln_shape", lambda: nn.LayerNorm((5,))(ms.ops.ones((2, 4))), ValueError, "For 'LayerNorm'"),
    ErrorSpec("gn_divisible", lambda: nn.GroupNorm(3, 4), ValueError, "num_groups"),
    ErrorSpec("gn_eps", lambda: nn.GroupNorm(2, 4, eps=1), TypeError, "eps"),
    ErrorSpec("gn_channels", lambda: nn.GroupNorm(2, 4)(ms.ops.ones((2, 6, 3))), ValueError, "num_channels"),
    # MindSpore 2.10's words and type for the rank
    ErrorSpec("gn_rank", lambda: nn.GroupNorm(2, 4)(ms.ops.ones((4,))), RuntimeError,
              "For 'GroupNorm', The dim of input must be between 2 and 8. But got: 1."),
    ErrorSpec("in_rank", lambda: nn.InstanceNorm2d(2)(ms.ops.ones((2, 2, 3))), ValueError, "InstanceNorm2d"),
    ErrorSpec("in_momentum_type", lambda: nn.InstanceNorm2d(2, momentum=1), TypeError, "momentum"),
]
test_bad_input = make_error_tests(ERRORS)


@pytest.mark.parametrize("bna,bpa,bad", [(-2, -2, "begin_norm_axis"), (3, -1, "begin_norm_axis"),
                                         (1, -2, "begin_params_axis")])
def test_layer_norm_begin_axes_must_be_in_minus_one_to_rank(bna, bpa, bad):
    # MindSpore 2.10 takes begin axes in [-1, rank) only (a RuntimeError from its shape inference)
    x = ms.ops.ones((2, 3, 4))
    msg = f"For primitive[LayerNorm], input_x's rank is 3, while the '{bad}' value should be in the range [-1, 3)"
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        nn.LayerNorm((3, 4), begin_norm_axis=bna, begin_params_axis=bpa)(x)
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        ms.ops.LayerNorm(bna, bpa)(x, ms.ops.ones((3, 4)), ms.ops.zeros((3, 4)))
    y = nn.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1)(x)
    np.testing.assert_allclose(y.asnumpy(), np.zeros((2, 3, 4)), atol=1e-6)
