"""The Primitive-class API of the convolution family (ops.Conv3D, ops.MaxPool3D, ops.ResizeBilinearV2, ...)."""
import numpy as np

import mindseed as ms
from mindseed import ops
from _conv_ref import (adaptive, affine_grid, conv, conv_transpose, fold, grid_sample_bilinear, pool, resize_linear,
                       resize_nearest, roi_align, same_pads, unfold)
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests


def _tf_nearest_half_pixel(x, size):
    out = x
    for i, s in enumerate(size):
        axis = x.ndim - len(size) + i
        n = out.shape[axis]
        out = np.take(out, [min(int(np.floor((o + 0.5) * n / s)), n - 1) for o in range(s)], axis=axis)
    return out


_ROIS = np.array([[0, 1.2, 0.5, 4.7, 3.9], [1, -0.5, 2.0, 6.5, 5.8], [1, 2.0, 2.0, 2.5, 2.2]])

SPECS = [
    OpSpec("Conv3D_pad", lambda x, w: ops.Conv3D(2, 2, pad_mode="pad", pad=(0, 1, 1, 0, 1, 1))(x, w),
           lambda x, w: conv(x, w, None, (1, 1, 1), (0, 1, 1, 0, 1, 1)), shapes=[(1, 2, 2, 3, 3), (2, 2, 2, 2, 2)]),
    OpSpec("Conv2D_same_stride", lambda x, w: ops.Conv2D(3, 3, pad_mode="same", stride=2)(x, w),
           lambda x, w: conv(x, w, None, (2, 2), same_pads((6, 5), (3, 3), (2, 2), (1, 1))),
           shapes=[(2, 2, 6, 5), (3, 2, 3, 3)]),
    OpSpec("Conv2DTranspose_pad", lambda x, w: ops.Conv2DTranspose(2, 3, pad_mode="pad", pad=1, stride=2)(
        x, w, (2, 2, 5, 5)), lambda x, w: conv_transpose(x, w, (2, 2), (1, 1), (0, 0), (1, 1)),
        shapes=[(2, 3, 3, 3), (3, 2, 3, 3)], grad2=True),
    OpSpec("MaxPool3D_pad_ceil", lambda x: ops.MaxPool3D(2, 2, "pad", 1, True)(x),
           lambda x: pool(x, (2, 2, 2), (2, 2, 2), (1,) * 6, ceil_mode=True)[0], shapes=[(1, 2, 3, 4, 4)]),
    OpSpec("MaxPoolWithArgmaxV2", lambda x: ops.MaxPoolWithArgmaxV2(3, 2, 1)(x),
           lambda x: pool(x, (3, 3), (2, 2), (1,) * 4), shapes=[(2, 2, 5, 5)]),
    OpSpec("MaxPool3DWithArgmax", lambda x: ops.MaxPool3DWithArgmax(2, 1, 0)(x),
           lambda x: pool(x, (2, 2, 2), (1, 1, 1), (0,) * 6), shapes=[(1, 2, 2, 3, 3)]),
    OpSpec("AvgPool3D_pad_exclude", lambda x: ops.AvgPool3D(2, 2, "pad", (1, 0, 0, 1, 1, 0), False, False)(x),
           lambda x: pool(x, (2, 2, 2), (2, 2, 2), (1, 0, 0, 1, 1, 0), kind="avg", count_include_pad=False),
           shapes=[(1, 2, 3, 3, 4)]),
    OpSpec("AdaptiveMaxPool2D", lambda x: ops.AdaptiveMaxPool2D((2, 3))(x), lambda x: adaptive(x, (2, 3), "max"),
           shapes=[(2, 2, 5, 5)]),
    OpSpec("AdaptiveAvgPool3D", lambda x: ops.AdaptiveAvgPool3D((1, None, 2))(x), lambda x: adaptive(x, (1, 3, 2)),
           shapes=[(1, 2, 2, 3, 5)], grad2=True),
    OpSpec("UpsampleNearest3D", lambda x: ops.UpsampleNearest3D()(x, (3, 2, 5)),
           lambda x: resize_nearest(x, (3, 2, 5)), shapes=[(1, 2, 2, 3, 3)]),
    OpSpec("UpsampleTrilinear3D", lambda x: ops.UpsampleTrilinear3D()(x, (3, 2, 5)),
           lambda x: resize_linear(x, (3, 2, 5), False), shapes=[(1, 2, 2, 3, 3)], grad2=True),
    OpSpec("ResizeBilinearV2_half_pixel", lambda x: ops.ResizeBilinearV2(False, True)(x, (5, 3)),
           lambda x: resize_linear(x, (5, 3), False), shapes=[(1, 2, 3, 4)]),
    OpSpec("ResizeNearestNeighborV2_half_pixel",
           lambda x: ops.ResizeNearestNeighborV2(False, True)(x, ms.Tensor([5, 7], ms.int32)),
           lambda x: _tf_nearest_half_pixel(x, (5, 7)), shapes=[(1, 2, 3, 4)], grad2=True),
    OpSpec("ResizeLinear1D", lambda x: ops.ResizeLinear1D("half_pixel")(x, ms.Tensor([7], ms.int64)),
           lambda x: resize_linear(x, (7,), False), shapes=[(2, 2, 4)]),
    OpSpec("Im2Col", lambda x: ops.Im2Col(2, 1, 1, 1)(x),
           lambda x: unfold(x, (2, 2), (1, 1), (1, 1), (1, 1)).reshape(1, 2, 4, -1), shapes=[(1, 2, 3, 3)]),
    OpSpec("Col2Im", lambda x: ops.Col2Im(2)(x, ms.Tensor([3, 4], ms.int32)),
           lambda x: fold(x.reshape(1, 8, 6), (3, 4), (2, 2), (1, 1), (0, 0), (1, 1)), shapes=[(1, 2, 4, 6)]),
    OpSpec("MirrorPad_reflect", lambda x: ops.MirrorPad()(x, ((0, 0), (1, 1), (2, 2))),
           lambda x: np.pad(x, [(0, 0), (1, 1), (2, 2)], mode="reflect"), shapes=[(2, 3, 4)]),
    OpSpec("PadV3_edge", lambda x: ops.PadV3("edge")(x, (1, 2, 0, 1)),
           lambda x: np.pad(x, [(0, 0), (0, 1), (1, 2)], mode="edge"), shapes=[(2, 3, 4)]),
    OpSpec("GridSampler2D", lambda x, g: ops.GridSampler2D(align_corners=True)(x, g),
           lambda x, g: grid_sample_bilinear(x, g, True), shapes=[(1, 2, 3, 4), (1, 2, 3, 2)],
           gen=[None, lambda r, s: r.uniform(-0.95, 0.95, s)]),
    OpSpec("AffineGrid", lambda t: ops.AffineGrid()(t, (1, 2, 3, 4)), lambda t: affine_grid(t, (1, 2, 3, 4)),
           shapes=[(1, 2, 3)]),
    OpSpec("ROIAlign_end_mode_1", lambda x, r: ops.ROIAlign(2, 3, 0.5, 2, 1)(x, r),
           lambda x, r: roi_align(x, r, 2, 3, 0.5, 2, 1), shapes=[(2, 2, 6, 7), (3, 5)],
           gen=[None, lambda rng, s: _ROIS], grad_inputs=(0,)),
    OpSpec("ROIAlign_end_mode_0", lambda x, r: ops.ROIAlign(2, 2, 0.5, 1, 0)(x, r),
           lambda x, r: roi_align(x, r, 2, 2, 0.5, 1, 0), shapes=[(2, 2, 6, 7), (3, 5)],
           gen=[None, lambda rng, s: _ROIS], grad_inputs=(0,)),
    OpSpec("ChannelShuffle", lambda x: ops.ChannelShuffle(2)(x),
           lambda x: x.reshape(1, 2, 2, 3).transpose(0, 2, 1, 3).reshape(1, 4, 3), shapes=[(1, 4, 3)]),
]

test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def test_max_unpool2d_class_and_fractional_fixed_ksize():
    rng = np.random.RandomState(0)
    x = ms.Tensor(rng.standard_normal((1, 2, 4, 4)).astype(np.float32))
    y, idx = ops.MaxPoolWithArgmaxV2(2, 2)(x)
    up = ops.MaxUnpool2D(2, 2)(y, idx).asnumpy()
    np.testing.assert_allclose(up.reshape(1, 2, -1).max(-1), x.asnumpy().reshape(1, 2, -1).max(-1))
    assert (up != 0).sum() == 8
    samples = ms.Tensor(rng.uniform(0, 1, (1, 2, 2)).astype(np.float32))
    out, arg = ops.FractionalMaxPoolWithFixedKsize(2, (3, 3))(x, samples)
    np.testing.assert_allclose(out.asnumpy().reshape(1, 2, -1),
                               np.take_along_axis(x.asnumpy().reshape(1, 2, -1), arg.asnumpy().reshape(1, 2, -1), 2))


ERRORS = [
    ErrorSpec("Conv2D_pad_mode", lambda: ops.Conv2D(2, 3, pad_mode="full"), ValueError, "'pad_mode'"),
    ErrorSpec("Conv2D_pad_without_mode", lambda: ops.Conv2D(2, 3, pad=1), ValueError, "'pad'"),
    ErrorSpec("Conv2D_rank", lambda: ops.Conv2D(2, 3)(ops.ones((3, 5, 5)), ops.ones((2, 3, 3, 3))), ValueError,
              "For 'Conv2D'"),
    ErrorSpec("Conv2D_channels", lambda: ops.Conv2D(2, 3)(ops.ones((1, 3, 5, 5)), ops.ones((2, 2, 3, 3))),
              RuntimeError, "For 'Conv2D', 'C_in' of input 'x' shape divide by parameter 'group'"),
    ErrorSpec("MaxPool_format", lambda: ops.MaxPool(2, 2, data_format="NCDHW"), ValueError, "data_format"),
    ErrorSpec("ResizeBilinearV2_flags", lambda: ops.ResizeBilinearV2(True, True), ValueError, "half_pixel_centers"),
    ErrorSpec("ResizeLinear1D_mode", lambda: ops.ResizeLinear1D("asymmetric"), ValueError,
              "coordinate_transformation_mode"),
    ErrorSpec("UpsampleNearest3D_args", lambda: ops.UpsampleNearest3D()(ops.ones((1, 1, 2, 2, 2))), ValueError,
              "exactly one"),
    ErrorSpec("DepthToSpace_channels", lambda: ops.DepthToSpace(2)(ops.ones((1, 3, 2, 2))), ValueError, "divisible"),
    ErrorSpec("MaxPool3D_ceil_valid", lambda: ops.MaxPool3D(2, 1, "VALID", ceil_mode=False), ValueError,
              "When the 'pad_mode' is 'same' or 'valid', the 'ceil_mode' only supports 'None'."),
    ErrorSpec("Conv3DTranspose_depth_dilation", lambda: ops.Conv3DTranspose(2, 2, 3, dilation=(2, 1, 1)), ValueError,
              "For 'Conv3DTranspose', the depth of parameter 'dilation' must be 1, but got 2."),
    ErrorSpec("Conv3DTranspose_bias", lambda: ops.Conv3DTranspose(2, 2, 2)(ops.ones((1, 2, 2, 2, 2)),
                                                                          ops.ones((2, 2, 2, 2, 2)), ops.ones((2,))),
              ValueError, "bias"),
]
test_bad_input = make_error_tests(ERRORS)


def test_fractional_max_pool_with_fixed_ksize_pools_integers_exactly():
    x = np.array([3, 9, 7, 0, 3, 5, 5, 3, 1, 8, 9, 4, 9, 8, 3, 4, 9, 9, 6, 9, 9, 1, 0, 1, 9]).reshape(1, 1, 5, 5)
    samples = ms.Tensor(np.array([[[0.8, 0.8]]], np.float32))
    op = ops.FractionalMaxPoolWithFixedKsize(2, (2, 2))
    out, arg = op(ms.Tensor(x, ms.int32), samples)
    ref, ref_arg = op(ms.Tensor(x.astype(np.float32)), samples)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), ref.asnumpy().astype(np.int32))
    np.testing.assert_array_equal(arg.asnumpy(), ref_arg.asnumpy())
