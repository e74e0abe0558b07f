"""Convolution, padding, im2col, layout and resampling ops: values vs numpy, gradients vs finite differences."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops.functional import _conv as FC
from _conv_ref import (affine_grid, conv, conv_transpose, fold, grid_sample_bilinear, resize_linear, resize_nearest,
                       same_pads, unfold)
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests


def _np_pad(x, padding, mode="constant", value=0.0):
    """ops.pad's padding (last dim first) with numpy; negative constant pads crop."""
    width = [(0, 0)] * x.ndim
    for i in range(len(padding) // 2):
        width[x.ndim - 1 - i] = (padding[2 * i], padding[2 * i + 1])
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap", "symmetric": "symmetric"}
    if mode != "constant":
        return np.pad(x, width, mode=np_mode[mode])
    y = np.pad(x, [(max(a, 0), max(b, 0)) for a, b in width], constant_values=value)
    return y[tuple(slice(-a if a < 0 else 0, y.shape[i] + b if b < 0 else None) for i, (a, b) in enumerate(width))]


def _pixel_shuffle(x, r):
    n, c, h, w = x.shape
    return x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // (r * r), h * r, w * r)


X4 = (2, 2, 5, 5)
SPECS = [
    # ---- convolution: pad modes, stride, dilation, groups, bias
    OpSpec("conv2d_valid", lambda x, w: ops.conv2d(x, w), lambda x, w: conv(x, w), shapes=[X4, (3, 2, 3, 3)],
           grad2=True),
    OpSpec("conv2d_pad_stride_bias", lambda x, w, b: ops.conv2d(x, w, b, stride=2, pad_mode="pad", padding=1),
           lambda x, w, b: conv(x, w, b, (2, 2), (1, 1, 1, 1)), shapes=[X4, (3, 2, 3, 3), (3,)], grad2=True),
    OpSpec("conv2d_same_stride2", lambda x, w: ops.conv2d(x, w, stride=2, pad_mode="same"),
           lambda x, w: conv(x, w, None, (2, 2), same_pads((5, 6), (2, 3), (2, 2), (1, 1))),
           shapes=[(2, 2, 5, 6), (3, 2, 2, 3)], grad2=True),
    OpSpec("conv2d_same_dilated", lambda x, w: ops.conv2d(x, w, pad_mode="same", dilation=2),
           lambda x, w: conv(x, w, None, (1, 1), same_pads((5, 5), (2, 2), (1, 1), (2, 2)), (2, 2)),
           shapes=[X4, (2, 2, 2, 2)]),
    OpSpec("conv2d_groups_pad_tuple", lambda x, w: ops.conv2d(x, w, pad_mode="pad", padding=(1, 0), groups=2),
           lambda x, w: conv(x, w, None, (1, 1), (1, 1, 0, 0), (1, 1), 2), shapes=[(2, 4, 4, 4), (6, 2, 3, 2)]),
    OpSpec("conv2d_asym_pads_private", lambda x, w: FC._conv_nd(x, w, None, (2, 1), (0, 1, 2, 1), (1, 1), 1),
           lambda x, w: conv(x, w, None, (2, 1), (0, 1, 2, 1)), shapes=[X4, (2, 2, 2, 3)], grad2=True),
    OpSpec("conv1d_same", lambda x, w: ops.conv1d(x, w, stride=2, pad_mode="same"),
           lambda x, w: conv(x, w, None, (2,), same_pads((7,), (4,), (2,), (1,)), (1,)),
           shapes=[(2, 2, 7), (3, 2, 4)]),
    OpSpec("conv3d_pad", lambda x, w, b: ops.conv3d(x, w, b, pad_mode="pad", padding=(1, 0, 1)),
           lambda x, w, b: conv(x, w, b, (1, 1, 1), (1, 1, 0, 0, 1, 1)),
           shapes=[(1, 2, 3, 4, 3), (2, 2, 2, 2, 2), (2,)]),
    OpSpec("conv_transpose2d", lambda x, w: ops.conv_transpose2d(x, w, None, 2, 1, 1, 1, 1),
           lambda x, w: conv_transpose(x, w, (2, 2), (1, 1), (1, 1), (1, 1)), shapes=[(2, 3, 3, 3), (3, 2, 3, 3)],
           grad2=True),
    OpSpec("conv_transpose2d_groups_dilation", lambda x, w, b: ops.conv_transpose2d(x, w, b, 1, 0, 0, 2, 2),
           lambda x, w, b: conv_transpose(x, w, (1, 1), (0, 0), (0, 0), (2, 2), 2) + b.reshape(1, -1, 1, 1),
           shapes=[(2, 4, 3, 3), (4, 1, 2, 2), (2,)]),
    OpSpec("conv3d_transpose_pad", lambda x, w: ops.conv3d_transpose(x, w, "pad", 1, 2, 1, 1, (1, 0, 1)),
           lambda x, w: conv_transpose(x, w, (2, 2, 2), (1, 1, 1), (1, 0, 1), (1, 1, 1)),
           shapes=[(1, 2, 2, 3, 2), (2, 2, 2, 2, 3)]),
    # ---- padding
    OpSpec("pad_constant_crop", lambda x: ops.pad(x, (1, -1, 2, 0), value=0.5),
           lambda x: _np_pad(x, (1, -1, 2, 0), value=0.5), shapes=[(2, 3, 4)], grad2=True),
    OpSpec("pad_reflect", lambda x: ops.pad(x, (1, 2, 2, 1), mode="reflect"),
           lambda x: _np_pad(x, (1, 2, 2, 1), "reflect"), shapes=[(2, 3, 4)], grad2=True),
    OpSpec("pad_replicate", lambda x: ops.pad(x, (1, 2, 0, 1, 1, 0), mode="replicate"),
           lambda x: _np_pad(x, (1, 2, 0, 1, 1, 0), "replicate"), shapes=[(2, 2, 3, 3)]),
    OpSpec("pad_circular", lambda x: ops.pad(x, (2, 1), mode="circular"),
           lambda x: _np_pad(x, (2, 1), "circular"), shapes=[(2, 3, 4)]),
    OpSpec("mirror_pad_symmetric", lambda x: ops.mirror_pad(x, ms.Tensor([[0, 0], [1, 2], [2, 1]]), "SYMMETRIC"),
           lambda x: np.pad(x, [(0, 0), (1, 2), (2, 1)], mode="symmetric"), shapes=[(2, 3, 4)]),
    OpSpec("Pad_class", lambda x: ops.Pad(((0, 0), (1, 2), (2, 1)))(x),
           lambda x: np.pad(x, [(0, 0), (1, 2), (2, 1)]), shapes=[(2, 3, 4)]),
    # ---- im2col / col2im
    OpSpec("unfold", lambda x: ops.unfold(x, (2, 3), 1, 1, (2, 1)),
           lambda x: unfold(x, (2, 3), (1, 1), (1, 1), (2, 1)), shapes=[(2, 2, 4, 5)], grad2=True),
    OpSpec("unfold_method_dilated", lambda x: x.unfold(2, 2),
           lambda x: unfold(x, (2, 2), (2, 2), (0, 0), (1, 1)), shapes=[(1, 2, 5, 5)]),
    OpSpec("fold", lambda x: ops.fold(x, (4, 5), 2, 1, 1, 2),
           lambda x: fold(x, (4, 5), (2, 2), (1, 1), (1, 1), (2, 2)), shapes=[(2, 8, 9)], grad2=True),
    OpSpec("col2im", lambda x: ops.col2im(x, ms.Tensor([4, 5], ms.int32), 2, 1, 0, 1),
           lambda x: fold(x.reshape(2, 8, 12), (4, 5), (2, 2), (1, 1), (0, 0), (1, 1)), shapes=[(2, 2, 4, 12)]),
    # ---- layout
    OpSpec("pixel_shuffle", lambda x: ops.pixel_shuffle(x, 2), lambda x: _pixel_shuffle(x, 2), shapes=[(2, 8, 2, 3)]),
    OpSpec("pixel_unshuffle", lambda x: ops.pixel_unshuffle(x, 2),
           lambda x: x.reshape(2, 2, 2, 2, 3, 2).transpose(0, 1, 3, 5, 2, 4).reshape(2, 8, 2, 3),
           shapes=[(2, 2, 4, 6)]),
    OpSpec("channel_shuffle", lambda x: ops.channel_shuffle(x, 3),
           lambda x: x.reshape(2, 3, 2, 2, 2).transpose(0, 2, 1, 3, 4).reshape(2, 6, 2, 2), shapes=[(2, 6, 2, 2)]),
    OpSpec("depth_to_space", lambda x: ops.DepthToSpace(2)(x),
           lambda x: x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6),
           shapes=[(1, 8, 2, 3)]),
    OpSpec("space_to_depth", lambda x: ops.SpaceToDepth(2)(x),
           lambda x: x.reshape(1, 2, 2, 2, 3, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 3),
           shapes=[(1, 2, 4, 6)]),
    # ---- resampling
    OpSpec("interpolate_nearest", lambda x: ops.interpolate(x, (5, 7)), lambda x: resize_nearest(x, (5, 7)),
           shapes=[(2, 2, 3, 4)], grad2=True),
    OpSpec("interpolate_nearest_exact_1d", lambda x: ops.interpolate(x, 7, mode="nearest-exact"),
           lambda x: resize_nearest(x, (7,), exact=True), shapes=[(2, 2, 4)]),
    OpSpec("interpolate_bilinear", lambda x: ops.interpolate(x, (4, 7), mode="bilinear"),
           lambda x: resize_linear(x, (4, 7), False), shapes=[(2, 2, 3, 4)], grad2=True),
    OpSpec("interpolate_bilinear_corners", lambda x: ops.interpolate(x, (2, 7), mode="bilinear", align_corners=True),
           lambda x: resize_linear(x, (2, 7), True), shapes=[(1, 2, 3, 4)]),
    OpSpec("interpolate_linear", lambda x: ops.interpolate(x, 6, mode="linear"),
           lambda x: resize_linear(x, (6,), False), shapes=[(2, 2, 4)]),
    OpSpec("interpolate_trilinear", lambda x: ops.interpolate(x, (3, 2, 5), mode="trilinear", align_corners=True),
           lambda x: resize_linear(x, (3, 2, 5), True), shapes=[(1, 2, 2, 3, 3)]),
    OpSpec("interpolate_area", lambda x: ops.interpolate(x, (2, 3), mode="area"),
           lambda x: _area(x, (2, 3)), shapes=[(2, 2, 4, 6)]),
    OpSpec("interpolate_bicubic", lambda x: ops.interpolate(x, (2, 5), mode="bicubic"), None, shapes=[(1, 2, 3, 4)],
           grad2=True),
    OpSpec("grid_sample_bilinear", lambda x, g: ops.grid_sample(x, g),
           lambda x, g: grid_sample_bilinear(x, g), shapes=[(2, 2, 3, 4), (2, 3, 2, 2)],
           gen=[None, lambda r, s: r.uniform(-1.05, 1.05, s)], grad_atol=1e-4),
    OpSpec("affine_grid", lambda t: ops.affine_grid(t, (2, 3, 4, 5), True),
           lambda t: affine_grid(t, (2, 3, 4, 5), True), shapes=[(2, 2, 3)], grad2=True),
]


def _area(x, size):
    n, c, h, w = x.shape
    return x.reshape(n, c, size[0], h // size[0], size[1], w // size[1]).mean((3, 5))


test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)

_X = ms.Tensor(np.ones((1, 3, 5, 5), np.float32))
_W = ms.Tensor(np.ones((2, 3, 3, 3), np.float32))
ERRORS = [
    ErrorSpec("fold_negative_output_size", lambda: ops.fold(ops.ones((1, 4, 4)), ms.Tensor([6, -1], ms.int32), 2),
              ValueError, "For 'Col2Im', the value of 'output_size' must not be negative, but got [6, -1]"),
    ErrorSpec("conv2d_channels", lambda: ops.conv2d(_X, ops.ones((2, 2, 3, 3))), RuntimeError, "For 'conv2d'"),
    ErrorSpec("conv2d_kernel_too_big", lambda: ops.conv2d(_X, ops.ones((2, 3, 7, 7))), ValueError,
              "dilated kernel size"),
    ErrorSpec("conv2d_bad_pad_mode", lambda: ops.conv2d(_X, _W, pad_mode="full"), ValueError, "'pad_mode'"),
    ErrorSpec("conv2d_padding_without_pad_mode", lambda: ops.conv2d(_X, _W, padding=1), ValueError,
              "must be zero when 'pad_mode' is not 'pad'"),
    ErrorSpec("conv2d_rank", lambda: ops.conv2d(ops.ones((3, 5, 5)), _W), ValueError, "must be a 4D Tensor"),
    ErrorSpec("conv2d_stride", lambda: ops.conv2d(_X, _W, stride=0), ValueError, "'stride'"),
    ErrorSpec("conv2d_groups", lambda: ops.conv2d(_X, _W, groups=2), ValueError, "'groups'"),
    ErrorSpec("conv2d_dtype", lambda: ops.conv2d(_X, ops.ones((2, 3, 3, 3), ms.float64)), TypeError, "dtype"),
    ErrorSpec("conv2d_bias_shape", lambda: ops.conv2d(_X, _W, ops.ones((3,))), ValueError, "bias"),
    ErrorSpec("conv2d_not_tensor", lambda: ops.conv2d(np.ones((1, 3, 5, 5)), _W), TypeError, "must be a Tensor"),
    # MindSpore: Conv2D's CPU kernel (1-D and 2-D) raises a RuntimeError, Conv3D's shape inference a ValueError
    ErrorSpec("conv1d_channels", lambda: ops.conv1d(ops.ones((1, 2, 5)), ops.ones((4, 3, 3))), RuntimeError,
              "'C_in' of input 'x' shape: 2"),
    ErrorSpec("conv2d_channels_groups", lambda: ops.conv2d(ops.ones((1, 4, 5, 5)), ops.ones((2, 3, 3, 3)), groups=2),
              RuntimeError, "'C_in' of input 'weight' shape: 3"),
    ErrorSpec("conv3d_channels", lambda: ops.conv3d(ops.ones((1, 2, 5, 5, 5)), ops.ones((4, 3, 3, 3, 3))), ValueError,
              "'C_in'"),
    ErrorSpec("conv_nd_private_channels", lambda: FC._conv_nd(_X, ops.ones((2, 2, 3, 3)), None, (1, 1), (0,) * 4,
                                                              (1, 1), 1), RuntimeError,
              "'C_in' of input 'x' shape divide by parameter 'group' must be equal to 'C_in' of input 'weight'"),
    ErrorSpec("conv_transpose2d_output_padding", lambda: ops.conv_transpose2d(_X, ops.ones((3, 2, 3, 3)),
                                                                              output_padding=1), ValueError,
              "output_padding"),
    ErrorSpec("pad_odd", lambda: ops.pad(_X, (1, 2, 3)), ValueError, "even"),
    ErrorSpec("pad_reflect_too_wide", lambda: ops.pad(_X, (5, 0), mode="reflect"), ValueError, "reflect"),
    ErrorSpec("pad_mode", lambda: ops.pad(_X, (1, 1), mode="wrap"), ValueError, "'mode'"),
    ErrorSpec("pad_value_non_constant", lambda: ops.pad(_X, (1, 1), mode="reflect", value=1.0), ValueError, "value"),
    ErrorSpec("unfold_rank", lambda: ops.unfold(ops.ones((3, 5, 5)), 2), ValueError, "4D"),
    ErrorSpec("fold_blocks", lambda: ops.fold(ops.ones((1, 12, 5)), (4, 5), 2), ValueError, "sliding blocks"),
    ErrorSpec("pixel_shuffle_divisible", lambda: ops.pixel_shuffle(ops.ones((1, 6, 2, 2)), 2), ValueError,
              "divisible"),
    ErrorSpec("interpolate_both", lambda: ops.interpolate(_X, (2, 2), 2.0), ValueError, "simultaneously"),
    ErrorSpec("interpolate_mode_rank", lambda: ops.interpolate(_X, (2, 2), mode="linear"), ValueError, "linear"),
    ErrorSpec("interpolate_scale_unsupported", lambda: ops.interpolate(_X, scale_factor=2.0, mode="bilinear"),
              ValueError, "scale_factor"),
    ErrorSpec("interpolate_size_rank", lambda: ops.interpolate(_X, (2, 2, 2)), ValueError, "spatial dimensions"),
    ErrorSpec("grid_sample_grid_shape", lambda: ops.grid_sample(_X, ops.ones((1, 2, 2, 3))), ValueError, "'grid'"),
    ErrorSpec("affine_grid_shape", lambda: ops.affine_grid(ops.ones((2, 2, 3)), (1, 3, 4, 4)), ValueError, "theta"),
]
test_bad_input = make_error_tests(ERRORS)


# ---- results recorded from MindSpore 2.10 (CPU): TF-style bicubic and legacy bilinear resizes
_RAMP = (np.arange(12).reshape(1, 1, 3, 4) ** 1.5 / 3).astype(np.float32)
_MS_BICUBIC_HALF_PIXEL = [[0.37937, 0.6817, 1.19027, 1.86555, 2.4815], [6.61524, 7.57583, 8.80475, 10.10139, 11.18938]]
_MS_BICUBIC_CORNERS = [[0., 0.13805, 0.45376, 0.76763, 1.31518, 1.73205], [1.28635, 1.66487, 2.29147, 2.77476, 3.55191,
                       4.1115], [4.49622, 5.12454, 6.08707, 6.76716, 7.81675, 8.54976],
                       [7.54247, 8.26748, 9.37254, 10.14887, 11.33657, 12.16096]]
_MS_BICUBIC_LEGACY = [[0., 0.16079, 0.51824, 0.94281, 1.51767, 1.81974], [1.54825, 2.02163, 2.75034, 3.40761, 4.23674,
                      4.66102], [5.35457, 6.10766, 7.18934, 8.09084, 9.19234, 9.74943],
                      [8.05672, 8.90911, 10.12766, 11.13597, 12.35919, 12.97651]]
_MS_BILINEAR_LEGACY = [[0., 0.22222, 0.53649, 0.94281, 1.46897, 1.73205], [2., 2.58561, 3.22226, 3.90994, 4.6787,
                       5.06308], [5.10457, 5.94378, 6.81558, 7.71995, 8.68478, 9.16719],
                       [7.54247, 8.51416, 9.51364, 10.54093, 11.62095, 12.16096]]


@pytest.mark.parametrize("fn,want", [
    (lambda x: ops.interpolate(x, (2, 5), mode="bicubic"), _MS_BICUBIC_HALF_PIXEL),
    (lambda x: ops.interpolate(x, (4, 6), mode="bicubic", align_corners=True), _MS_BICUBIC_CORNERS),
    (lambda x: ops.ResizeBicubic()(x, ms.Tensor([4, 6], ms.int32)), _MS_BICUBIC_LEGACY),
    (lambda x: ops.ResizeBilinearV2()(x, (4, 6)), _MS_BILINEAR_LEGACY),
], ids=["bicubic_half_pixel", "bicubic_corners", "bicubic_legacy", "bilinear_legacy"])
def test_tf_style_resize_matches_mindspore(fn, want):
    np.testing.assert_allclose(fn(ms.Tensor(_RAMP)).asnumpy()[0, 0], want, atol=2e-5)


def test_conv2d_same_output_shapes_follow_ceil_division():
    for size, stride in [(7, 2), (8, 2), (224, 2), (9, 3)]:
        x = ops.ones((1, 1, size, size))
        out = ops.conv2d(x, ops.ones((1, 1, 3, 3)), stride=stride, pad_mode="same")
        assert out.shape[2:] == (-(-size // stride),) * 2


def test_conv_class_api_matches_functional():
    rng = np.random.RandomState(0)
    x = ms.Tensor(rng.standard_normal((2, 3, 6, 6)).astype(np.float32))
    w = ms.Tensor(rng.standard_normal((4, 3, 3, 3)).astype(np.float32))
    want = ops.conv2d(x, w, stride=2, pad_mode="pad", padding=1).asnumpy()
    got = ops.Conv2D(4, 3, pad_mode="pad", pad=1, stride=2)(x, w).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # the transposed convolution is the input gradient of the forward one
    dy = ms.Tensor(rng.standard_normal(want.shape).astype(np.float32))
    dx = ms.grad(lambda t: (ops.conv2d(t, w, stride=2, pad_mode="pad", padding=1) * dy).sum())(x)
    back = ops.Conv2DBackpropInput(3, 3, pad_mode="pad", pad=1, stride=2)(dy, w, (2, 3, 6, 6))
    np.testing.assert_allclose(back.asnumpy(), dx.asnumpy(), rtol=1e-5, atol=1e-5)


def test_conv2d_nhwc_class():
    rng = np.random.RandomState(1)
    x = rng.standard_normal((1, 5, 5, 2)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 2)).astype(np.float32)  # (out, kh, kw, in)
    got = ops.Conv2D(3, 3, data_format="NHWC")(ms.Tensor(x), ms.Tensor(w)).asnumpy()
    want = conv(x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2)).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_resize_nearest_neighbor_align_corners_rounds():
    x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 1, 1, 4))
    out = ops.ResizeNearestNeighbor((1, 7), align_corners=True)(x).asnumpy().ravel()
    np.testing.assert_array_equal(out, [0, 1, 1, 2, 2, 3, 3])  # round(o * 3 / 6), halves away from zero


def test_crop_and_resize_full_box_and_extrapolation():
    img = np.random.RandomState(3).standard_normal((2, 4, 5, 3)).astype(np.float32)
    boxes = ms.Tensor(np.array([[0, 0, 1, 1], [-1, 0, 0, 1]], np.float32))
    out = ops.crop_and_resize(ms.Tensor(img), boxes, ms.Tensor(np.array([1, 0], np.int32)), (4, 5),
                              extrapolation_value=-7.0).asnumpy()
    np.testing.assert_allclose(out[0], img[1], rtol=1e-6)
    np.testing.assert_allclose(out[1, :3], -7.0)  # rows above the image
    np.testing.assert_allclose(out[1, 3], img[0, 0], rtol=1e-6)
    near = ops.crop_and_resize(ms.Tensor(img), boxes, ms.Tensor(np.array([1, 0], np.int32)), (4, 5), "nearest")
    np.testing.assert_allclose(near.asnumpy()[0], img[1])
    g = ms.grad(lambda t: ops.crop_and_resize(t, boxes, ms.Tensor(np.array([1, 1], np.int32)), (4, 5)).sum())(
        ms.Tensor(img))
    np.testing.assert_allclose(g.asnumpy()[1, 0], 2.0 * np.ones((5, 3)), rtol=1e-6)  # both boxes sample row 0
    np.testing.assert_allclose(g.asnumpy()[0], 0.0)


def test_crop_and_resize_samples_integer_images_into_float32():
    image = np.arange(2 * 6 * 5 * 2).reshape(2, 6, 5, 2)
    boxes = ms.Tensor(np.array([[0, 0.5, 0.5, 0.0], [0, 0, 0.75, 1.75]], np.float32))
    index = ms.Tensor(np.array([1, 0], np.int32))
    want = ops.crop_and_resize(ms.Tensor(image.astype(np.float32)), boxes, index, (3, 2), extrapolation_value=0.5)
    for dtype in (np.int8, np.int32, np.uint16):
        got = ops.crop_and_resize(ms.Tensor(image.astype(dtype)), boxes, index, (3, 2), extrapolation_value=0.5)
        assert got.dtype == ms.float32
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)


def test_interpolate_ext_takes_a_scale_factor_in_every_mode():
    # mint's interpolate (ops.function.nn_func.interpolate_ext): nearest 1D by a float factor, sized floor(in * f)
    from mindseed.ops.function.nn_func import interpolate_ext
    x = ms.Tensor(np.array([[[0.1, 0.3, 0.5, 0.7]]], np.float32))
    out = interpolate_ext(x, None, (2.0,), "nearest")
    np.testing.assert_allclose(out.asnumpy(), np.repeat(x.asnumpy(), 2, axis=-1))
    y = ms.Tensor(np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2))
    assert interpolate_ext(y, None, [1.5, 2.0, 2.5], "nearest").shape == (1, 1, 3, 4, 5)
    with pytest.raises(TypeError, match="'scale_factor' must be a float"):
        interpolate_ext(y, None, [1, 2, 3], "nearest")
