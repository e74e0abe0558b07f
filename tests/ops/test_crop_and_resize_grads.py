"""CropAndResizeGradImage / CropAndResizeGradBoxes (image_ops): values MindSpore 2.10 CPU printed, a numpy loop
reference of the adjoint of bilinear sampling, finite differences of ops.crop_and_resize for the boxes, and
MindSpore's errors."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops.operations.image_ops import CropAndResizeGradBoxes, CropAndResizeGradImage

T = ms.Tensor
BOX = np.array([[-0.1, 0.8, 0.9, 0.05]])
IMAGES = np.arange(40.0).reshape(1, 4, 5, 2) ** 1.5


def _np_grad_image(grads, boxes, index, shape, method):
    out = np.zeros(shape)
    _, h, w, _ = shape
    for b, (y1, x1, y2, x2) in enumerate(boxes):
        ch, cw = grads.shape[1:3]
        for i in range(ch):
            y = y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (ch - 1) if ch > 1 else 0.5 * (y1 + y2) * (h - 1)
            for j in range(cw):
                x = x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (cw - 1) if cw > 1 else 0.5 * (x1 + x2) * (w - 1)
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    continue
                g = grads[b, i, j]
                if method == "nearest":
                    out[index[b], int(np.floor(y + 0.5)), int(np.floor(x + 0.5))] += g
                    continue
                t, lft = int(np.floor(y)), int(np.floor(x))
                bt, r = int(np.ceil(y)), int(np.ceil(x))
                dy, dx = y - t, x - lft
                out[index[b], t, lft] += g * (1 - dy) * (1 - dx)
                out[index[b], t, r] += g * (1 - dy) * dx
                out[index[b], bt, lft] += g * dy * (1 - dx)
                out[index[b], bt, r] += g * dy * dx
    return out


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_grad_image_is_the_adjoint_of_the_sampling(method):
    r = np.random.RandomState(3)
    grads = r.uniform(-1, 1, (3, 4, 3, 2))
    boxes = np.array([[0.11, 0.2, 0.8, 0.7], [0.87, -0.2, 0.31, 1.1], [0.26, 0.4, 0.6, 0.9]])
    index = np.array([1, 0, 1], np.int32)
    out = CropAndResizeGradImage(ms.float64, method)(T(grads), T(boxes), T(index), T(np.array([2, 6, 5, 2], np.int32)))
    assert out.dtype == ms.float64 and out.shape == (2, 6, 5, 2)
    np.testing.assert_allclose(out.asnumpy(), _np_grad_image(grads, boxes, index, (2, 6, 5, 2), method), atol=1e-5)


def test_grad_image_values_of_mindspore():
    grads = T(np.arange(12.0).reshape(1, 3, 2, 2))
    out = CropAndResizeGradImage(ms.float16)(grads, T(BOX, ms.float32), T(np.array([0], np.int32)),
                                             T(np.array([1, 4, 5, 2], np.int32)))
    assert out.dtype == ms.float16
    # MindSpore 2.10: float32 products added in float16
    assert out.asnumpy().reshape(-1).tolist()[10:24] == [3.83984375, 4.48046875, 0.9599609375, 1.1201171875, 0.0,
                                                         0.0, 2.560546875, 3.19921875, 0.64013671875, 0.7998046875,
                                                         3.359375, 3.76171875, 0.83984375, 0.9404296875]
    near = CropAndResizeGradImage(ms.float32, "nearest")(
        T(np.array([[[[1.0], [2.0]], [[3.0], [4.0]]]])), T(np.array([[0.1, 0.2, 0.9, 0.4]])),
        T(np.array([0], np.int32)), T(np.array([1, 4, 4, 1], np.int32)))
    expected = np.zeros((1, 4, 4, 1), np.float32)
    expected[0, 0, 1, 0], expected[0, 3, 1, 0] = 3.0, 7.0
    np.testing.assert_array_equal(near.asnumpy(), expected)


def test_grad_boxes_values_of_mindspore():
    grads = np.arange(12.0).reshape(1, 3, 2, 2)
    out = CropAndResizeGradBoxes()(T(grads), T(IMAGES), T(BOX), T(np.array([0], np.int32)))
    assert out.dtype == ms.float64
    np.testing.assert_allclose(out.asnumpy(), [[2108.89404296875, 1671.1414794921875, 11229.896484375,
                                                1909.492431640625]], rtol=1e-6)
    one_row = CropAndResizeGradBoxes()(T(np.arange(6.0).reshape(1, 1, 3, 2)), T(IMAGES),
                                       T(np.array([[0.3, 0.8, 0.6, 0.05]])), T(np.array([0], np.int32)))
    np.testing.assert_allclose(one_row.asnumpy(), [[1400.130615234375, 178.19815063476562, 1400.130615234375,
                                                    536.8607177734375]], rtol=1e-6)


def test_grad_boxes_matches_finite_differences_of_crop_and_resize():
    r = np.random.RandomState(0)
    images = r.uniform(0, 5, (2, 6, 7, 2))
    boxes = np.array([[0.13, 0.21, 0.77, 0.64], [0.52, 0.93, 0.18, 0.33]])
    index = np.array([1, 0], np.int32)
    grads = r.uniform(-1, 1, (2, 4, 3, 2))

    def loss(b):
        out = ops.crop_and_resize(T(images), T(b), T(index), (4, 3))
        return float((out.asnumpy() * grads).sum())

    numeric = np.zeros_like(boxes)
    for k in np.ndindex(*boxes.shape):
        step = np.zeros_like(boxes)
        step[k] = 1e-6
        numeric[k] = (loss(boxes + step) - loss(boxes - step)) / 2e-6
    out = CropAndResizeGradBoxes()(T(grads, ms.float32), T(images, ms.float32), T(boxes, ms.float32), T(index))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), numeric, rtol=1e-4, atol=1e-4)


def test_bad_inputs_raise_mindspore_errors():
    g, b = T(np.ones((1, 2, 2, 1), np.float32)), T(np.array([[0.1, 0.2, 0.3, 0.4]], np.float32))
    idx, size = T(np.array([0], np.int32)), T(np.array([1, 4, 4, 1], np.int32))
    with pytest.raises(ValueError, match="'method' should be in expected"):
        CropAndResizeGradImage(ms.float32, "bicubic")
    with pytest.raises(ValueError, match="'T' should be in expected"):
        CropAndResizeGradImage(ms.int32)
    with pytest.raises(TypeError, match=r"input argument\[grads\] must be a type of"):
        CropAndResizeGradImage(ms.float32)(T(np.ones((1, 2, 2, 1), np.float16)), b, idx, size)
    with pytest.raises(TypeError, match=r"input argument\[box_index\]"):
        CropAndResizeGradImage(ms.float32)(g, b, T(np.array([0], np.int64)), size)
    with pytest.raises(ValueError, match="box_index"):
        CropAndResizeGradImage(ms.float32)(g, b, T(np.array([3], np.int32)), size)
    with pytest.raises(ValueError, match=r"shape\[3\]"):
        CropAndResizeGradImage(ms.float32)(g, b, idx, T(np.array([1, 4, 4, 2], np.int32)))
    with pytest.raises(ValueError, match="'method'"):
        CropAndResizeGradBoxes("nearest")
    with pytest.raises(TypeError, match=r"input argument\[images\]"):
        CropAndResizeGradBoxes()(g, T(np.ones((1, 4, 4, 1), np.bool_)), b, idx)
    # a box of another batch entry than the images have: zeros, as MindSpore's kernel skips it
    out = CropAndResizeGradBoxes()(g, T(np.arange(16.0).reshape(1, 4, 4, 1), ms.float32), b,
                                   T(np.array([5], np.int32)))
    np.testing.assert_array_equal(out.asnumpy(), np.zeros((1, 4), np.float32))
