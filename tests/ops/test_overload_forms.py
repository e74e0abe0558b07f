"""Argument forms MindSpore's own code uses that mindseed must read as MindSpore 2.10 does: Tensor method overloads
(sum, max in a graph, `__sub__(alpha=)`), equality with non-tensors, comparisons of two numbers, bool `lambd`,
lists of numpy arrays and `mutable` of a mutable sequence. Numbers checked against numpy."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

X = np.array([[[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]]], np.float32)


def test_sum_two_forms():
    x = ms.Tensor(X)
    # (dim, keepdim, *, dtype): a bool second argument or `dim`/`keepdim` keywords
    np.testing.assert_allclose(x.sum(2, True, dtype=None).asnumpy(), X.sum(2, keepdims=True))
    np.testing.assert_allclose(x.sum(dim=1, keepdim=False).asnumpy(), X.sum(1))
    out = x.sum(2, dtype=ms.float64)
    assert out.dtype == ms.float64
    # (axis, dtype, keepdims, initial): initial joins the sum before the cast
    out = x.sum(dtype=ms.bool_, initial=12)
    assert out.dtype == ms.bool_ and bool(out.asnumpy())
    assert float(x.sum(dtype=ms.bool_, initial=-15).asnumpy()) == 0
    np.testing.assert_allclose(x.sum(axis=(0, 1), keepdims=True, initial=1).asnumpy(),
                               X.sum((0, 1), keepdims=True) + 1)


def test_dunder_add_sub_take_alpha():
    x, y = ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([4.0, 5.0, 6.0])
    np.testing.assert_allclose(x.__sub__(y, alpha=2).asnumpy(), [-7.0, -8.0, -9.0])
    np.testing.assert_allclose(x.__add__(y, alpha=0.5).asnumpy(), [3.0, 4.5, 6.0])
    np.testing.assert_allclose(ms.Tensor(x).__isub__([1, 1, 1], alpha=3).asnumpy(), [-2.0, -1.0, 0.0])
    np.testing.assert_allclose(x.__iadd__(2, alpha=2).asnumpy(), [5.0, 6.0, 7.0])


def test_max_positional_in_graph_is_numpy_form():
    x = ms.Tensor(np.arange(4, dtype=np.float32).reshape(2, 2))
    values, index = x.max(0, False)          # PyNative: (values, indices)
    np.testing.assert_allclose(values.asnumpy(), [2.0, 3.0])
    np.testing.assert_array_equal(index.asnumpy(), [1, 1])

    @ms.jit
    def positional(t):
        return t.max(0, False), t.min(1, True)

    @ms.jit
    def keyword(t):
        return t.max(dim=0)

    vmax, vmin = positional(x)               # a graph reads (axis, keepdims): the values only
    np.testing.assert_allclose(vmax.asnumpy(), [2.0, 3.0])
    np.testing.assert_allclose(vmin.asnumpy(), [[0.0], [2.0]])
    values, index = keyword(x)
    np.testing.assert_array_equal(index.asnumpy(), [1, 1])


def test_equality_with_non_tensors_is_not_elementwise():
    x = ms.Tensor([1, 2])
    for other in ([1, 2], (1, 2), np.array([1, 2]), "1", None, [1, 2, 3]):
        assert (x == other) is False
        assert (x != other) is True
    np.testing.assert_array_equal((x == 2).asnumpy(), [False, True])
    np.testing.assert_array_equal((x != ms.Tensor([1, 3])).asnumpy(), [False, True])
    t = ms.Tensor([3])
    assert ("1", [1, 2], t, t + 1, t).count(t) == 2


def test_comparisons_of_two_numbers():
    for fn, ref in ((ops.less_equal, np.less_equal), (ops.greater_equal, np.greater_equal),
                    (ops.greater, np.greater), (ops.not_equal, np.not_equal)):
        for a, b in ((5, 6), (5.5, 2), (True, 2), (3, 3)):
            out = fn(a, b)
            assert out.dtype == ms.bool_ and out.shape == ()
            assert bool(out.asnumpy()) == bool(ref(a, b))
    out = ops.maximum(2, 7)
    assert out.dtype == ms.int64 and int(out.asnumpy()) == 7
    assert float(ops.minimum(2.5, 7).asnumpy()) == 2.5
    with pytest.raises(TypeError, match="Less"):
        ops.less(5, 6)


def test_shrink_lambd_bool_and_negative():
    v = np.array([-1.5, -0.7, 0.3, 1.0, 2.0], np.float32)
    x = ms.Tensor(v)
    np.testing.assert_allclose(ops.hardshrink(x, True).asnumpy(), np.where(np.abs(v) > 1, v, 0))
    np.testing.assert_allclose(ops.hardshrink(x, False).asnumpy(), v)
    np.testing.assert_allclose(ops.hardshrink(x, -1).asnumpy(), v)
    np.testing.assert_allclose(ops.HShrink(True)(x).asnumpy(), np.where(np.abs(v) > 1, v, 0))
    np.testing.assert_allclose(ops.softshrink(x, True).asnumpy(), np.sign(v) * np.maximum(np.abs(v) - 1, 0))
    with pytest.raises(RuntimeError, match="SoftShrink"):
        ops.softshrink(x, -1)
    with pytest.raises(TypeError, match="HShrink.*lambd"):
        ops.hardshrink(x, "a")


def test_tensor_from_a_list_of_numpy_arrays():
    a, b = np.random.randn(3, 4).astype(np.float32), np.random.randn(3, 4).astype(np.float32)
    t = ms.Tensor((a, b))
    assert t.dtype == ms.float32 and t.shape == (2, 3, 4)
    np.testing.assert_array_equal(t.asnumpy(), np.stack([a, b]))
    assert ms.Tensor([np.ones(2), np.ones(2)]).dtype == ms.float32             # float64 -> Float32
    assert ms.Tensor([np.ones(2, np.int32), [1, 2]]).dtype == ms.int64         # int32 -> Int64
    assert ms.Tensor([np.ones(2, np.float16)]).dtype == ms.float16
    assert ms.Tensor([np.ones(2, np.int8)]).dtype == ms.int8
    np.testing.assert_array_equal(ms.Tensor([np.array([True]), np.array([False])]).asnumpy(), [[True], [False]])
    with pytest.raises(TypeError, match="Tensor"):
        ms.Tensor([np.ones(2), np.ones(3)])


def test_mutable_of_a_mutable_sequence():
    once = ms.mutable((0, -1))
    twice = ms.mutable(once, True)
    assert tuple(twice) == (0, -1) and isinstance(twice, tuple)
    assert list(ms.mutable(ms.mutable([1, 2]))) == [1, 2]
    assert dict(ms.mutable(ms.mutable({"a": ms.Tensor(1)}))).keys() == {"a"}


def test_circular_pad_crops_negative_sides_first():
    v = np.arange(9, dtype=np.float64).reshape(1, 1, 3, 3)
    x = ms.Tensor(v)
    cropped = v[..., :, :2]                                  # right side -1 first, then wrap what is left
    ref = np.pad(cropped, ((0, 0), (0, 0), (1, 2), (1, 0)), mode="wrap")
    np.testing.assert_array_equal(ops.pad(x, (1, -1, 1, 2), mode="circular").asnumpy(), ref)
    np.testing.assert_array_equal(ops.pad(x, (-1, 2), mode="circular").asnumpy(),
                                  np.pad(v[..., 1:], ((0, 0),) * 3 + ((0, 2),), mode="wrap"))
    with pytest.raises(ValueError, match="circular"):
        ops.pad(x, (2, -2), mode="circular")


def test_transpose_two_ints_swap_else_permute():
    x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    # MindSpore 2.10: two ints are transpose(dim0, dim1); more, or one tuple, are a permutation
    assert x.transpose(0, 2).shape == (4, 3, 2)
    assert x.transpose(-1, 0).shape == (4, 3, 2)
    assert x.transpose(dim0=0, dim1=2).shape == (4, 3, 2)
    assert x.transpose(1, 0).shape == (3, 2, 4)
    np.testing.assert_array_equal(x.transpose(2, 0, 1).asnumpy(), x.asnumpy().transpose(2, 0, 1))
    assert x.transpose((2, 0, 1)).shape == (4, 2, 3)
    y = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert y.transpose(0, 1).shape == (3, 2) and y.transpose((0, 1)).shape == (2, 3)
    assert y.transpose().shape == (3, 2)


def test_std_var_new_and_old_forms():
    x = ms.Tensor(np.array([[1, 2, 3], [-1, 1, 4]], np.float32))
    # oracle (MindSpore 2.10 CPU) values: std's (dim, *, correction=0, keepdim) form divides by N by default
    np.testing.assert_allclose(x.std(dim=1, correction=1).asnumpy(), [1.0, 2.5166113], rtol=1e-6)
    np.testing.assert_allclose(x.std(dim=1).asnumpy(), [0.8164966, 2.0548046], rtol=1e-6)
    np.testing.assert_allclose(x.std(correction=1).asnumpy(), 1.7511901, rtol=1e-6)
    np.testing.assert_allclose(x.std(dim=1, correction=2).asnumpy(), [1.4142135, 3.559026], rtol=1e-6)
    np.testing.assert_allclose(x.std(1, keepdim=True).asnumpy(), [[0.8164966], [2.0548046]], rtol=1e-6)
    np.testing.assert_allclose(x.std(1, 1).asnumpy(), [1.0, 2.5166113], rtol=1e-6)
    np.testing.assert_allclose(x.var(1).asnumpy(), [0.6666667, 4.222222], rtol=1e-6)
    # var's (dim, *, correction=1, keepdim) form: Bessel's correction by default
    np.testing.assert_allclose(x.var(dim=1).asnumpy(), [1.0, 6.333333], rtol=1e-6)
    np.testing.assert_allclose(x.var(dim=1, correction=0, keepdim=True).asnumpy(), [[0.6666667], [4.222222]],
                               rtol=1e-6)


def test_tensor_to_device_and_dtype_forms():
    x = ms.Tensor([1, 2, 3, 4])
    # MindSpore 2.10: to(dtype, non_blocking, copy) and to(device, dtype, non_blocking, copy)
    assert x.to(ms.float32).dtype == ms.float32 and x.to(ms.float32).asnumpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    assert x.to("CPU").dtype == ms.int64 and x.to("cpu").device == "CPU"
    assert x.to("CPU", ms.float32).dtype == ms.float32
    assert x.to(device="CPU", dtype=ms.float16).dtype == ms.float16
    assert x.to(dtype=ms.float16, non_blocking=True).dtype == ms.float16
    assert x.to(ms.int64, copy=True) is not x
    assert x.to(ms.Tensor([1.0])).dtype == ms.float32
    with pytest.raises(ValueError, match="'device'"):
        x.to("foo")
    with pytest.raises(RuntimeError, match="'Ascend'"):      # a device this machine does not have
        x.to(device="Ascend", non_blocking=True)
    with pytest.raises(TypeError, match="'dtype'"):
        x.to(1)


def test_tensor_var_and_std_of_integers_use_the_truncated_integer_mean():
    # MindSpore's Tensor.var/std of an integer tensor: deviations from Tensor.mean (truncated toward zero), in float32
    # (ops.var refuses integers); values printed by MindSpore 2.10
    x = ms.Tensor(np.array([[1, 2, 4], [3, 7, 8]], np.int32))
    assert x.var().dtype == ms.float32 and x.var().asnumpy().item() == 6.5        # exact variance: 6.4722
    np.testing.assert_allclose(x.var(axis=1).asnumpy(), [1.6666666, 4.6666665], rtol=1e-7)
    np.testing.assert_allclose(x.var(axis=0, ddof=1).asnumpy(), [2.0, 13.0, 8.0])
    assert x.var(keepdims=True).shape == (1, 1)
    np.testing.assert_allclose(x.std(axis=0, ddof=1).asnumpy(), [1.4142135, 3.6055512, 2.828427], rtol=1e-7)
    np.testing.assert_allclose(ms.Tensor(np.array([-1, -2, -4], np.int32)).var().asnumpy(), 1.6666666, rtol=1e-7)
    with pytest.raises(TypeError, match="For 'var', the 'input' must be a Tensor of float type"):
        ms.ops.var(x)
