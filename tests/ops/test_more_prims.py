"""Primitive classes made from table rows (ops/operations/_more.py): values vs numpy, gradients of the composites
vs float64 finite differences, the loop and hook classes, bad input."""
import colorsys

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests


def _unit(r, s):
    return r.uniform(0.05, 0.95, s)


def _np_rgb_to_hsv(x):
    return np.apply_along_axis(lambda p: colorsys.rgb_to_hsv(*p), -1, x)


def _np_tridiagonal(up, mid, low, rhs):
    m = rhs.shape[-2]
    a = np.diag(mid[0]) + np.diag(up[0, :-1], 1) + np.diag(low[0, 1:], -1)
    return a @ rhs if m else rhs


def _np_depthwise(x, w):
    k, c, kh, kw = w.shape
    n, _, h, wd = x.shape
    out = np.zeros((n, c * k, h - kh + 1, wd - kw + 1))
    for ci in range(c):
        for ki in range(k):
            for i in range(h - kh + 1):
                for j in range(wd - kw + 1):
                    out[:, ci * k + ki, i, j] = (x[:, ci, i:i + kh, j:j + kw] * w[ki, ci]).sum((1, 2))
    return out


_SP_IDX = np.array([[0, 1], [2, 0], [1, 1]])

SPECS = [
    OpSpec("RGBToHSV", ops.RGBToHSV(), _np_rgb_to_hsv, shapes=[(4, 3)], gen=_unit),
    OpSpec("HSVToRGB", ops.HSVToRGB(), lambda x: np.apply_along_axis(lambda p: colorsys.hsv_to_rgb(*p), -1, x),
           shapes=[(4, 3)], gen=_unit),
    OpSpec("AdjustSaturation", lambda x: ops.AdjustSaturation()(x, 0.5), lambda x: np.apply_along_axis(
        lambda p: colorsys.hsv_to_rgb(*(lambda h, s, v: (h, s * 0.5, v))(*colorsys.rgb_to_hsv(*p))), -1, x),
        shapes=[(4, 3)], gen=_unit),
    OpSpec("TridiagonalMatMul", ops.TridiagonalMatMul(), _np_tridiagonal, shapes=[(1, 4), (1, 4), (1, 4), (4, 2)]),
    OpSpec("SparseTensorDenseMatmul", lambda v, d: ops.SparseTensorDenseMatmul()(ms.Tensor(_SP_IDX), v, (3, 2), d),
           lambda v, d: _np_scatter(v) @ d, shapes=[(3,), (2, 4)]),
    OpSpec("SparseToDense", lambda v: ops.SparseToDense()(ms.Tensor(_SP_IDX), v, (3, 2)), lambda v: _np_scatter(v),
           shapes=[(3,)]),
    OpSpec("DepthwiseConv2dNative", lambda x, w: ops.DepthwiseConv2dNative(2, 3)(x, w), _np_depthwise,
           shapes=[(1, 2, 5, 4), (2, 2, 3, 3)], atol=1e-4),
    OpSpec("NthElement", lambda x: ops.NthElement()(x, 1), lambda x: np.sort(x, -1)[..., 1], shapes=[(3, 4)]),
    OpSpec("Renorm", ops.Renorm(2, 0, 1.0), lambda x: x * np.minimum(1.0, 1.0 / np.linalg.norm(
        x.reshape(x.shape[0], -1), axis=1))[:, None], shapes=[(3, 4)]),
    OpSpec("InsertGradientOf", lambda x: ops.InsertGradientOf(lambda d: d * 1.0)(x) * 2, lambda x: x * 2),
]
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def _np_scatter(v):
    d = np.zeros((3, 2), v.dtype)
    d[_SP_IDX[:, 0], _SP_IDX[:, 1]] = v
    return d


test_bad_input = make_error_tests([
    ErrorSpec("BatchToSpaceND-attr", lambda: ops.BatchToSpaceND(), TypeError,
              "For 'BatchToSpaceND', missing a required argument: 'block_shape'"),
    ErrorSpec("IOU-inputs", lambda: ops.IOU()(ms.Tensor(np.ones((1, 4)))), TypeError,
              "For 'IOU', 2 inputs (anchor_boxes, gt_boxes) are required, but got 1"),
    ErrorSpec("InvertPermutation-not", lambda: ops.InvertPermutation()(ms.Tensor([0, 0, 1])), ValueError,
              "For 'InvertPermutation'"),
    ErrorSpec("NthElement-n", lambda: ops.NthElement()(ms.Tensor([[1.0, 2.0]]), 2), ValueError,
              "For 'NthElement', the 'n' must be in [0, 2)"),
    ErrorSpec("DataFormat-bad", lambda: ops.DataFormatDimMap("NHWC", "NCH")(ms.Tensor([0])), ValueError,
              "For 'DataFormatDimMap'"),
    ErrorSpec("Assert-false", lambda: ops.Assert()(ms.Tensor([True, False]), [ms.Tensor([1, 2, 3, 4])]),
              RuntimeError, "For 'Assert', assert failed"),
    ErrorSpec("Bitpack-width", lambda: ops.CompareAndBitpack()(ms.Tensor(np.ones(5)), ms.Tensor(0.0)), ValueError,
              "For 'CompareAndBitpack'"),
])


def test_concat_offset_v1():
    from mindseed.ops.operations.array_ops import ConcatOffsetV1
    shapes = [ms.Tensor(np.array(v, np.int32)) for v in ([1, 2, 3], [1, 5, 3], [1, 4, 3])]
    for axis in (1, -2):
        out = ConcatOffsetV1()(ms.Tensor(axis, ms.int32), tuple(shapes))
        assert [o.asnumpy().tolist() for o in out] == [[0, 0, 0], [0, 2, 0], [0, 7, 0]]
        assert out[0].dtype == ms.int32
    with pytest.raises(RuntimeError, match="'axis' must be fall in range"):
        ConcatOffsetV1()(ms.Tensor(3, ms.int32), tuple(shapes))
    with pytest.raises(RuntimeError, match="for the 0th axis, element in input x1 is 2"):
        ConcatOffsetV1()(ms.Tensor(1, ms.int32), (shapes[0], ms.Tensor(np.array([2, 5, 3], np.int32))))
    with pytest.raises(ValueError, match="tensor1 element num in input x should be 3"):
        ConcatOffsetV1()(ms.Tensor(1, ms.int32), (shapes[0], ms.Tensor(np.array([2, 5], np.int32))))


def test_index_and_format_rows():
    # MindSpore 2.10: a tuple (or list) of ints in, a tuple out; a Tensor is refused
    assert ops.InvertPermutation()((3, 4, 0, 2, 1)) == (2, 4, 3, 0, 1)
    assert ops.InvertPermutation()([2, 0, 1]) == (1, 2, 0)
    with pytest.raises(ValueError, match="must be non-Tensor"):
        ops.InvertPermutation()(ms.Tensor([2, 0, 1]))
    with pytest.raises(TypeError, match=r"'input\[0\]' should be 'int'"):
        ops.InvertPermutation()((0.5, 1))
    with pytest.raises(ValueError, match="permutation"):
        ops.InvertPermutation()((1, 2))
    assert ops.UnravelIndex()(ms.Tensor([5, 7]), ms.Tensor([3, 3])).asnumpy().tolist() == [[1, 2], [2, 1]]
    out, idx = ops.ListDiff()(ms.Tensor([1, 2, 3, 4]), ms.Tensor([2, 4]))
    assert out.asnumpy().tolist() == [1, 3] and idx.asnumpy().tolist() == [0, 2] and idx.dtype == ms.int32
    assert ops.DataFormatDimMap()(ms.Tensor([0, 1, 2, 3, -1])).asnumpy().tolist() == [0, 3, 1, 2, 2]
    assert ops.DataFormatVecPermute()(ms.Tensor([1, 2, 3, 4])).asnumpy().tolist() == [1, 4, 2, 3]
    packed = ops.CompareAndBitpack()(ms.Tensor(np.arange(16.0).reshape(2, 8)), ms.Tensor(3.5))
    assert packed.asnumpy().tolist() == [[0b00001111], [0b11111111]]
    hist = ops.HistogramFixedWidth(5)(ms.Tensor([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]), ms.Tensor([0.0, 5.0]))
    assert hist.asnumpy().tolist() == [2, 1, 1, 0, 2]
    cm = ops.ConfusionMatrix(3)(ms.Tensor([0, 1, 2, 1]), ms.Tensor([0, 2, 2, 1]))
    assert cm.asnumpy().tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    x = ms.Tensor(np.arange(12.0).reshape(1, 4, 3))
    np.testing.assert_array_equal(ops.MatrixDiagPartV3()(x, ms.Tensor(0), ms.Tensor(0.0)).asnumpy(), [[0.0, 4, 8]])
    assert ops.Expand()(ms.Tensor([1, 2]), (2, 2)).shape == (2, 2)
    assert ops.FillV2()(ms.Tensor([2, 1]), ms.Tensor(7)).asnumpy().tolist() == [[7], [7]]
    a, b = ops.IdentityN()([ms.Tensor([1]), ms.Tensor([2])])
    assert a.tolist() == [1] and b.tolist() == [2]
    st = ops.SpaceToBatchND([2, 2], [[0, 0], [0, 0]])(ms.Tensor(np.arange(16.0).reshape(1, 1, 4, 4)))
    back = ops.BatchToSpaceND([2, 2], [[0, 0], [0, 0]])(st)
    np.testing.assert_array_equal(back.asnumpy(), np.arange(16.0).reshape(1, 1, 4, 4))
    np.testing.assert_allclose(ops.LogSoftmaxExt()(ms.Tensor([[0.0, 0.0]]), 1).asnumpy(), [[-np.log(2)] * 2], rtol=1e-6)


def test_truncated_normals_stay_in_range_with_the_right_spread():
    ms.set_seed(1)
    x = ops.TruncatedNormal()(ms.Tensor([20000])).asnumpy()
    assert x.dtype == np.float32 and np.abs(x).max() <= 2.0 and abs(x.std() - 0.8796) < 0.02
    y = ops.ParameterizedTruncatedNormal()(ms.Tensor([2, 5000]), ms.Tensor([0.0, 10.0]), ms.Tensor([1.0, 2.0]),
                                           ms.Tensor([-1.0, 9.0]), ms.Tensor([1.0, 14.0])).asnumpy()
    assert y[0].min() >= -1 and y[0].max() <= 1 and y[1].min() >= 9 and y[1].max() <= 14
    assert abs(y[0].mean()) < 0.05


def test_loops_partial_hooks_and_dump(tmp_path):
    assert ops.ForiLoop()(0, 4, lambda i, v: v + i, 0) == 6
    assert ops.ForiLoop()(1, 4, lambda i, v: v * i, 1, False) == 6
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(ms.jit(lambda t: ops.ForiLoop()(0, 3, lambda i, v: v * 2 + i, t, False))(x).asnumpy(),
                               [12.0, 20.0])
    assert ops.WhileLoop()(lambda v: v < 10, lambda v: v * 2, 1) == 16
    carry, ys = ops.Scan()(lambda c, x: (c + x, c * 10), 0, [1, 2, 3])
    assert carry == 6 and ys == [0, 10, 30]
    assert ops.Partial()(lambda a, b: a - b, 5)(2) == 3
    seen = []
    g = ms.grad(lambda x: ops.HookBackward(lambda d: seen.append(d[0].asnumpy()))(x * 3).sum())(ms.Tensor([1.0]))
    assert g.asnumpy().tolist() == [3.0] and seen[0].tolist() == [1.0]
    g = ms.grad(lambda x: ops.InsertGradientOf(lambda d: d * 5)(x * 2).sum())(ms.Tensor([1.0]))
    assert g.asnumpy().tolist() == [10.0]
    ops.TensorDump()(str(tmp_path / "t"), ms.Tensor([1.0, 2.0]))
    assert np.load(tmp_path / "t.npy").tolist() == [1.0, 2.0]


def test_insert_gradient_of_python_scalars_pass_through():
    def zero(d):
        return d * 0

    stop = ops.InsertGradientOf(zero)
    assert stop(1) == 1 and type(stop(1)) is int and stop(2.5) == 2.5
    grad_all = ops.GradOperation(get_all=True)

    def f(x, y):
        return stop(x) * y

    # a scalar input has no gradient (none is returned for it); a tensor's gradient is the hooked one
    assert grad_all(ms.jit(f))(1, 2) == ()
    gx, gy = grad_all(f)(ms.Tensor(2.0), ms.Tensor(3.0))
    assert float(gx) == 0.0 and float(gy) == 2.0
    (gy,) = ms.jit(lambda x, y: grad_all(f)(x, y))(2.0, ms.Tensor(3.0))
    assert float(gy) == 2.0


@pytest.mark.parametrize("delta", [0.25, -0.1])
def test_adjust_hue_rotates_hue(delta):
    x = np.random.RandomState(3).uniform(0.1, 0.9, (5, 3))
    got = ops.AdjustHue()(ms.Tensor(x), delta).asnumpy()
    want = np.apply_along_axis(lambda p: colorsys.hsv_to_rgb(*(lambda h, s, v: ((h + delta) % 1.0, s, v))(
        *colorsys.rgb_to_hsv(*p))), -1, x)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_summary_ops_feed_the_summary_record_cache():
    from mindseed.train.summary import summary_record as sr
    sr._summary_cache.clear()
    ops.ScalarSummary()("loss", ms.Tensor(1.5))
    ops.ImageSummary()("img", ms.Tensor(np.zeros((1, 3, 2, 2), np.float32)))
    assert set(sr._summary_cache) == {"loss[:Scalar]", "img[:Image]"}
    sr._summary_cache.clear()
    with pytest.raises(ValueError, match="For 'ScalarSummary', the 'value' of shape \\(2,\\) is not a scalar"):
        ops.ScalarSummary()("loss", ms.Tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="For 'TensorSummary', the 'name' must be a non-empty str"):
        ops.TensorSummary()(3, ms.Tensor([1.0]))


def test_dropout_masks_nms_sparse_slice_float_status_pyfunc():
    mask = ops.DropoutGenMask()(ms.Tensor([4, 50]), ms.Tensor(0.3))
    assert mask.shape == (32,) and mask.dtype == ms.uint8
    bits = np.unpackbits(mask.asnumpy(), bitorder="little")
    assert bits[200:].sum() == 0 and 20 < bits[:200].sum() < 100
    out = ops.DropoutDoMask()(ms.Tensor(np.ones((4, 50), np.float32)), mask, 0.3).asnumpy()
    np.testing.assert_allclose(out.ravel(), bits[:200] / 0.3, rtol=1e-6)
    boxes = ms.Tensor(np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3], [0, 0, 1, 1]], np.float32))
    keep = ops.NonMaxSuppressionV3()(boxes, ms.Tensor([0.9, 0.8, 0.7, 0.1]), ms.Tensor(3), ms.Tensor(0.5),
                                     ms.Tensor(0.2))
    assert keep.asnumpy().tolist() == [0, 2]
    overlaps = ms.Tensor(np.array([[1, 0.9, 0], [0.9, 1, 0], [0, 0, 1]], np.float32))
    keep = ops.NonMaxSuppressionWithOverlaps()(overlaps, ms.Tensor([0.5, 0.9, 0.1]), ms.Tensor(2), ms.Tensor(0.5),
                                               ms.Tensor(0.0))
    assert keep.asnumpy().tolist() == [1, 2]
    idx, vals, shape = ops.SparseSlice()(ms.Tensor([[0, 0], [1, 2], [2, 3]]), ms.Tensor([1.0, 2, 3]),
                                         ms.Tensor([3, 4]), ms.Tensor([1, 1]), ms.Tensor([5, 2]))
    assert idx.asnumpy().tolist() == [[0, 1]] and vals.asnumpy().tolist() == [2.0] and shape.tolist() == [2, 2]
    assert ops.FloatStatus()(ms.Tensor([1.0, np.inf])).tolist() == [1.0]
    assert ops.FloatStatus()(ms.Tensor([1.0, 2.0])).tolist() == [0.0]
    (y,) = ops.PyFunc(lambda a: a * 2, [ms.float32], [(2,)], [ms.float32], [(2,)])(ms.Tensor([1.0, 2.0]))
    assert y.tolist() == [2.0, 4.0]
    assert ops.ParallelConcat()([ms.Tensor([[1]]), ms.Tensor([[2]])]).tolist() == [[1], [2]]
    assert ops.TransposeExtView()(ms.Tensor(np.zeros((2, 3))), 0, 1).shape == (3, 2)
    i, v, _ = ops.Coalesce()(ms.Tensor([[0, 0]]), ms.Tensor([1.0, 2.0]), ms.Tensor([2]))
    assert i.asnumpy().tolist() == [[0]] and v.tolist() == [3.0]


def test_custom_pyfunc_with_no_outputs_runs_for_its_side_effect():
    seen = []

    def record(a, b):
        seen.append(a + b)

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.func = ms.ops.Custom(record, (), (), "pyfunc")

        def construct(self, x, y):
            return self.func(x, y)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            assert Net()(ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])) == ()
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_array_equal(seen[-1], [4.0, 6.0])
    assert len(seen) == 2


@pytest.mark.parametrize("dtype, fill", [(np.float32, np.nan), (np.int16, 0)])
def test_median_of_empty_input_is_nan_or_zero(dtype, fill):
    x = ms.Tensor(np.array([], dtype).reshape((2, 3, 0, 4)))
    for ignore_nan in (True, False):
        value, index = ops.Median(True, 0, False, ignore_nan)(x)
        assert value.shape == () and np.array_equal(value.asnumpy(), fill, equal_nan=True) and int(index) == 0
    value, _ = ops.Median(False, 2, True)(x)
    assert value.shape == (2, 3, 1, 4)


def test_squared_difference_rejects_bool_and_numbers_and_sub_of_bools_names_no_torch_advice():
    from mindseed.ops import operations as P
    np.testing.assert_array_equal(P.SquaredDifference()(ms.Tensor([1, 2]), ms.Tensor([3, 5])).asnumpy(), [4, 9])
    for x, y in ((ms.Tensor([True]), ms.Tensor([False])), (7, 2)):
        with pytest.raises(TypeError, match="SquaredDifference"):
            P.SquaredDifference()(x, y)
    # a bool input with a float partner promotes (MindSpore's numbers)
    b, f = ms.Tensor(np.array([[True, False]])), ms.Tensor(np.array([[1.5, 2.0]], np.float32))
    for out in (P.SquaredDifference()(b, f), P.SquaredDifference()(f, b)):
        assert out.dtype == ms.float32
        np.testing.assert_allclose(out.asnumpy(), [[0.25, 4.0]])
    with pytest.raises(TypeError) as info:
        ops.sub(ms.Tensor([True]), ms.Tensor([False]))
    assert "logical_xor" not in str(info.value)
    # one bool operand promotes to the other's type, as in MindSpore (torch's `-` refuses any bool tensor)
    i = ms.Tensor(np.array([[1, 2]], np.int32))
    assert (b - f).dtype == ms.float32 and (b - i).dtype == ms.int32
    np.testing.assert_allclose((b - f).asnumpy(), [[-0.5, -2.0]])
    np.testing.assert_array_equal(ops.sub(i, b).asnumpy(), [[0, 2]])
    np.testing.assert_allclose((b - 1.5).asnumpy(), [[-0.5, -1.5]])


def test_adjust_contrast_v2_moves_each_channel_away_from_its_mean():
    from mindseed.ops.operations.image_ops import AdjustContrastv2
    images = np.arange(1.0, 13.0).reshape(2, 2, 3)
    net = ms.jit(lambda x, f: AdjustContrastv2()(x, f))
    out = net(ms.Tensor(images, ms.float32), ms.Tensor(2.0, ms.float32))
    mean = images.mean(axis=(0, 1), keepdims=True)
    np.testing.assert_allclose(out.asnumpy(), (images - mean) * 2 + mean, rtol=1e-6)
    half = AdjustContrastv2()(ms.Tensor(images, ms.float16), ms.Tensor(0.5, ms.float32))
    assert half.dtype == ms.float16
    op = AdjustContrastv2()
    with pytest.raises(ValueError, match="input images must be greater than or equal to 3, but got 2"):
        op(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(2.0))
    with pytest.raises(TypeError, match=r"argument\[images\] must be a type of"):
        op(ms.Tensor(np.ones((2, 2, 3), np.int32)), ms.Tensor(2.0))
    with pytest.raises(TypeError, match=r"argument\[contrast_factor\] must be a type of \{Tensor\[Float32\]\}"):
        op(ms.Tensor(np.ones((2, 2, 3), np.float32)), ms.Tensor(2.0, ms.float16))
