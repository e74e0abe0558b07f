"""The backward primitives of pooling, convolution, resize, batch norm, ReLU, flatten and concat that code calls
directly (`ops.operations._grad_ops`, `ops.auto_generate`), against real MindSpore 2.10's outputs on the same inputs."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops import auto_generate as AG
from mindseed.ops.operations import _grad_ops as G

# MindSpore 2.10's outputs (rounded to 5 decimals) for the inputs below
EXPECTED = {
    'maxpoolgrad': ((1, 2, 5, 5), [
        2.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 8.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 8.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0
    ]),
    'avgpoolgrad': ((1, 2, 5, 5), [
        0.25, 0.25, 0.25, 0.25, 0.0, 0.25, 0.25, 0.25, 0.25, 0.0, 0.25, 0.25, 0.25, 0.25, 0.0, 0.25, 0.25, 0.25,
        0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.25, 0.25, 0.25, 0.0, 0.25, 0.25, 0.25, 0.25, 0.0, 0.25,
        0.25, 0.25, 0.25, 0.0, 0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    ]),
    'mpgwa': ((1, 2, 5, 5), [
        1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    ]),
    'resizegrad': ((1, 2, 5, 5), [
        -1.23279, 0.12628, 0.25257, -0.25895, -0.12947, -0.8053, 0.0509, 0.10181, -0.03768, -0.01884, -0.39858,
        -0.23113, -0.46225, -0.3698, -0.1849, -0.92099, -0.75813, -1.51626, 0.19937, 0.09968, -1.13689, -0.2932,
        -0.5864, 0.66236, 0.33118, 0.24394, 0.31458, 0.62916, -0.98908, -0.49454, -0.04338, -0.22239, -0.44479,
        -0.39327, -0.19663, -1.46624, 0.28374, 0.56748, 0.4627, 0.23135, -0.97804, 0.44241, 0.88482, 0.82179,
        0.41089, 1.72804, -0.16866, -0.33733, 0.40706, 0.20353
    ]),
    'resizegrad_ac': ((1, 2, 5, 5), [
        -1.28901, 0.0, 0.37751, 0.0, -0.36803, -0.74274, 0.0, 0.18286, 0.0, -0.13733, -0.61162, 0.0, -1.14706,
        0.0, -0.51185, -0.80995, 0.0, -2.23765, 0.0, 0.42681, -1.04123, 0.0, -0.49145, 0.0, 0.88335, 0.2631,
        0.0, 0.91113, 0.0, -1.52509, -0.11767, 0.0, -0.66424, 0.0, -0.54309, -1.87018, 0.0, 1.29306, 0.0,
        1.11635, -0.23831, 0.0, 0.87222, 0.0, 0.55009, 1.44738, 0.0, -0.46315, 0.0, 0.86553
    ]),
    'convfilter': ((3, 2, 3, 3), [
        2.19219, 3.0428, 4.66453, 2.40318, 1.96281, -0.1629, 3.17318, 1.73497, 2.85419, 0.98173, -2.99653,
        0.13982, -1.56116, 1.50351, -2.32989, -1.23544, 0.8694, -3.2816, 4.9341, -0.41996, -2.22633, 4.62601,
        -2.51322, -0.61587, 5.73824, -5.015, 1.73957, 6.67004, 1.13124, -5.02633, -4.31245, 0.42045, 5.60955,
        -2.36288, -5.9765, 0.58302, 0.94972, 2.81096, 3.29246, -0.37937, 6.03686, 0.28005, -0.9853, 6.49008,
        2.31581, -2.33549, -1.2923, -0.65695, 0.50945, 3.44197, -3.22683, -2.3636, 0.7327, -1.17993
    ]),
    'bn_infer[0]': ((1, 2, 5, 5), [
        -0.37266, 0.45602, -0.53722, -0.18844, -0.02786, 0.69947, -0.30404, -0.33739, -0.04019, -0.27086,
        0.45995, -0.44088, -0.46845, -0.17874, -0.20332, 0.78773, 0.3876, 0.03574, -0.50028, 0.34471, -0.40833,
        -0.63065, 0.48501, 0.12939, 0.37594, 0.7619, 2.0482, -1.55624, -2.4723, 1.62931, -1.9205, -1.64833,
        -1.08892, 0.04178, -0.8462, -3.28674, -1.53853, -5.31491, 1.49458, -3.82962, -2.63996, 0.1247, -1.76788,
        3.68848, -3.0905, 0.63837, -0.0939, -2.79226, 1.25086, -0.41007
    ]),
    'bn_infer[1]': ((2,), [-2.56343, -2.24484]),
    'bn_infer[2]': ((2,), [-1.83166, -9.46214]),
    'bn_train[0]': ((1, 2, 5, 5), [
        -0.36438, 0.6119, -0.61569, -0.10494, 0.07832, 0.84559, -0.32167, -0.42384, -0.04449, -0.30895, 0.60295,
        -0.46771, -0.54036, -0.20788, -0.22152, 1.02876, 0.58465, 0.04623, -0.60507, 0.40259, -0.64437, -0.7518,
        0.67389, 0.13573, 0.61205, 1.24219, 2.6043, -0.56482, -1.07999, 2.47266, -0.82544, -0.55259, -0.27316,
        0.53075, 0.02576, -2.01204, -0.3182, -3.60323, 2.05273, -2.55845, -1.64675, 0.69426, -0.99649, 4.33997,
        -1.95021, 1.30067, 0.53165, -1.48116, 1.64092, 0.42667
    ]),
    'bn_train[1]': ((2,), [-2.53821, -1.89165]),
    'bn_train[2]': ((2,), [-1.83166, -9.46214]),
    'relugrad': ((4,), [0.0, 2.0, 0.0, 4.0]),
    'concatoffset': ((3, 2), [0.0, 0.0, 0.0, 3.0, 0.0, 7.0]),
}


def _check(name, value):
    shape, flat = EXPECTED[name]
    assert tuple(value.shape) == shape
    np.testing.assert_allclose(value.asnumpy().ravel(), flat, atol=2e-5)


@pytest.fixture(scope="module")
def data():
    """x, the resize gradient, the convolution's output gradient and the batch norm's, drawn as MindSpore's run drew
    them."""
    rng = np.random.RandomState(0)
    x = ms.Tensor(rng.randn(1, 2, 5, 5).astype(np.float32))
    g = ms.Tensor(rng.randn(1, 2, 7, 3).astype(np.float32))
    dout = ms.Tensor(rng.randn(1, 3, 3, 3).astype(np.float32))
    rng.randn(1, 3, 3, 3)
    d = ms.Tensor(rng.randn(1, 2, 5, 5).astype(np.float32))
    return x, g, dout, d


def test_pool_resize_and_conv_filter_gradients(data):
    x, g, dout, _ = data
    y = ops.MaxPool(3, 2, "same")(x)
    _check("maxpoolgrad", G.MaxPoolGrad(3, 2, "SAME")(x, y, ops.ones_like(y) * 2))
    y = ops.AvgPool(2, 2, "valid")(x)
    _check("avgpoolgrad", AG.AvgPoolGrad(2, 2, "VALID")(x, y, ops.ones_like(y)))
    y, argmax = ops.MaxPoolWithArgmax(2, 2)(x)
    _check("mpgwa", G.MaxPoolGradWithArgmax(2, 2)(x, ops.ones_like(y), argmax))
    _check("resizegrad", AG.ResizeBilinearGrad(False, False)(g, x))
    _check("resizegrad_ac", AG.ResizeBilinearGrad(True, False)(g, x))
    _check("convfilter", G.Conv2DBackpropFilter(3, 3)(dout, x, (3, 2, 3, 3)))


def test_conv_filter_gradient_with_padding_and_stride_is_the_weight_derivative():
    """d(sum(conv(x, w) * dout)) / dw, against float64 central differences."""
    rng = np.random.RandomState(3)
    x = ms.Tensor(rng.randn(1, 2, 5, 5))
    w = rng.randn(3, 2, 3, 3)
    dout = rng.randn(1, 3, 3, 3)
    conv = ops.Conv2D(3, 3, pad_mode="pad", pad=1, stride=2)
    got = G.Conv2DBackpropFilter(3, 3, pad_mode="pad", pad=1, stride=2)(ms.Tensor(dout), x, (3, 2, 3, 3)).asnumpy()

    def f(v):
        return float((conv(x, ms.Tensor(v)).asnumpy() * dout).sum())
    want = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = 1e-6
        want[i] = (f(w + e) - f(w - e)) / 2e-6
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_batch_norm_grad_in_training_and_inference(data):
    x, _, _, d = data
    scale = ms.Tensor(np.array([0.5, 2.0], np.float32))
    mean = ms.Tensor(np.array([0.1, -0.2], np.float32))
    var = ms.Tensor(np.array([1.5, 0.7], np.float32))
    for i, v in enumerate(AG.BatchNormGrad(False, 1e-5)(d, x, scale, mean, var, var)):
        _check(f"bn_infer[{i}]", v)
    batch_mean, batch_var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    dx, dscale, dbias = AG.BatchNormGrad(True, 1e-5)(d, x, scale, batch_mean, batch_var, var)
    # the gradient of BatchNorm's training output at the batch's statistics
    bn = ops.BatchNorm(is_training=True, epsilon=1e-5)
    _, pullback = ms.vjp(lambda v, s, b: bn(v, s, b, mean, var)[0], x, scale, ms.Tensor(np.zeros(2, np.float32)))
    want = pullback(d)
    for got, w in zip((dx, dscale, dbias), want):
        np.testing.assert_allclose(got.asnumpy(), w.asnumpy(), atol=1e-4)


def test_relu_flatten_and_concat_offset():
    _check("relugrad", AG.ReluGrad()(ms.Tensor([1., 2., 3., 4.]), ms.Tensor([0., 1., -1., 2.])))
    offsets = G.ConcatOffset(3, 1)((ms.Tensor(np.zeros((2, 3))), ms.Tensor(np.zeros((2, 4))),
                                    ms.Tensor(np.zeros((2, 1)))))
    assert offsets.dtype == ms.int64
    _check("concatoffset", offsets)
    assert G.FlattenGrad()(ms.Tensor(np.arange(6.0).reshape(2, 3)), (2, 3, 1)).shape == (2, 3, 1)
    with pytest.raises(ValueError, match="For 'ReluGrad', 'y_backprop' and 'x' must have the same shape"):
        AG.ReluGrad()(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0]))
    with pytest.raises(ValueError, match="For 'ConcatOffset', 'axis' must be in"):
        G.ConcatOffset(2, 3)((ms.Tensor(np.zeros((2, 3))), ms.Tensor(np.zeros((2, 3)))))


def test_max_pool_grad_grad_picks_grad_at_each_window_maximum():
    from mindseed.ops.operations import _grad_ops as G
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    x[0, 0, 0, 0] = 20.0                    # the first window's maximum moves to its corner
    grad = np.random.RandomState(0).randn(1, 1, 4, 4).astype(np.float32)
    out = G.MaxPoolGradGrad(kernel_size=2, strides=2, pad_mode="VALID")(ms.Tensor(x), None, ms.Tensor(grad))
    want = np.array([[[[grad[0, 0, 0, 0], grad[0, 0, 1, 3]], [grad[0, 0, 3, 1], grad[0, 0, 3, 3]]]]])
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    x3 = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2)
    g3 = np.random.RandomState(1).randn(1, 1, 2, 2, 2).astype(np.float32)
    out3 = G.MaxPool3DGradGrad(kernel_size=2, strides=2, pad_mode="VALID")(ms.Tensor(x3), None, ms.Tensor(g3))
    np.testing.assert_allclose(out3.asnumpy().reshape(-1), [g3.reshape(-1)[-1]], rtol=1e-6)


def test_max_pool_grad_grad_with_argmax_gathers_per_sample_flat_indices():
    from mindseed.ops.operations import _grad_ops as G
    grad = np.arange(2 * 2 * 2 * 2, dtype=np.float32).reshape(2, 2, 2, 2) / 10
    argmax = np.array([[[[3]], [[5]]], [[[0]], [[7]]]], np.int32)     # into each sample's (C, H, W) = 8 values
    out = G.MaxPoolGradGradWithArgmax(kernel_size=2, strides=2)(ms.Tensor(np.zeros_like(grad)), ms.Tensor(grad),
                                                                ms.Tensor(argmax))
    flat = grad.reshape(2, -1)
    np.testing.assert_allclose(out.asnumpy().reshape(2, -1), [flat[0, [3, 5]], flat[1, [0, 7]]], rtol=1e-6)


def test_max_pool_grad_with_argmax_v2_adds_grad_at_plane_indices():
    from mindseed.ops.operations import _grad_ops as G
    grad = np.array([[[[1.0, 2.0]], [[3.0, 4.0]]]], np.float32)          # (1, 2, 1, 2)
    argmax = np.array([[[[1, 1]], [[0, 3]]]], np.int64)                  # per (H, W) plane of 2 x 2
    out = G.MaxPoolGradWithArgmaxV2(kernel_size=2)(ms.Tensor(np.zeros((1, 2, 2, 2), np.float32)), ms.Tensor(grad),
                                                    ms.Tensor(argmax))
    np.testing.assert_array_equal(out.asnumpy(), [[[[0, 3], [0, 0]], [[3, 0], [0, 4]]]])
