"""Dtypes torch has no CPU kernel for (uint16/32/64 comparisons, argmax, matmul, minimum; float16 special
functions and distances) are computed in a wider dtype with MindSpore's output dtypes, in PyNative and in
compiled graphs."""
import numpy as np
import pytest
from scipy import special

import mindseed as ms
from mindseed import ops
from _graph import no_fallback

_UNSIGNED = [np.uint16, np.uint32, np.uint64]


def _pair(dtype):
    a = np.array([[3, 7, 1], [0, 65000, 9]], dtype)
    b = np.array([[3, 2, 8], [5, 65001, 9]], dtype)
    return a, b


@pytest.mark.parametrize("dtype", _UNSIGNED)
@pytest.mark.parametrize("jit", [False, True])
def test_unsigned_comparisons_extremes_and_argmax(dtype, jit):
    a, b = _pair(dtype)

    def f(x, y):
        return (ops.greater(x, y), ops.greater_equal(x, y), ops.less(x, y), ops.minimum(x, y), ops.maximum(x, y),
                ops.argmax(x, 1), ops.argmin(y, 0))

    fn = ms.jit(f) if jit else f
    gt, ge, lt, mn, mx, am, an = no_fallback(fn, ms.Tensor(a), ms.Tensor(b))
    np.testing.assert_array_equal(gt.asnumpy(), a > b)
    np.testing.assert_array_equal(ge.asnumpy(), a >= b)
    np.testing.assert_array_equal(lt.asnumpy(), a < b)
    assert mn.asnumpy().dtype == dtype and mx.asnumpy().dtype == dtype
    np.testing.assert_array_equal(mn.asnumpy(), np.minimum(a, b))
    np.testing.assert_array_equal(mx.asnumpy(), np.maximum(a, b))
    np.testing.assert_array_equal(am.asnumpy(), a.argmax(1))
    np.testing.assert_array_equal(an.asnumpy(), b.argmin(0))


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32])
def test_unsigned_matmul_keeps_its_dtype(dtype):
    a = np.arange(6, dtype=dtype).reshape(2, 3)
    b = np.arange(12, dtype=dtype).reshape(3, 4)
    out = ops.matmul(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.astype(np.int64))
    batched = ms.jit(lambda x, y: ops.BatchMatMul()(x, y))
    out = no_fallback(batched, ms.Tensor(np.stack([a, a])), ms.Tensor(np.stack([b, b]))).asnumpy()
    np.testing.assert_array_equal(out, np.stack([a.astype(np.int64) @ b.astype(np.int64)] * 2))


def test_half_special_functions_and_distances():
    x = np.array([0.5, 1.0, 2.5], np.float16)
    out = ops.bessel_j0(ms.Tensor(x)).asnumpy()
    assert out.dtype == np.float16
    np.testing.assert_allclose(out, special.j0(x.astype(np.float64)), rtol=2e-3)
    p = np.array([[[0.0, 0.0], [3.0, 4.0]]], np.float16)
    d = ops.cdist(ms.Tensor(p), ms.Tensor(p)).asnumpy()
    assert d.dtype == np.float16
    np.testing.assert_allclose(d, [[[0.0, 5.0], [5.0, 0.0]]], atol=1e-3)


def test_a_dtype_no_kernel_takes_still_names_the_op():
    with pytest.raises((TypeError, ValueError), match="MatMul"):
        ops.matmul(ms.Tensor(np.ones((2, 2), np.bool_)), ms.Tensor(np.ones((2, 2), np.bool_)))


def test_matmul_of_two_dtypes_is_mindspores_type_error_before_any_shape_check():
    # MindSpore 2.10 (PyNative and graph): the dtype check of MatMulExt comes first, a TypeError
    a = ms.Tensor(np.ones((2, 3), np.float32))
    for other, name in ((np.ones((3, 2), np.int32), "Int32"), (np.ones((2, 2), np.int32), "Int32"),
                        (np.ones((3, 2), np.float16), "Float16")):
        with pytest.raises(TypeError, match=r"For 'MatMulExt', the type of 'x2' should be same as 'x1', but got 'x1' "
                                            rf"with type Tensor\[Float32\] and 'x2' with type Tensor\[{name}\]"):
            ops.matmul(a, ms.Tensor(other))
    np.testing.assert_allclose(ops.matmul(a, ms.Tensor(np.ones((3, 2), np.float32))).asnumpy(), np.full((2, 2), 3.0))
