"""Class-API primitives where MindSpore 2.10's class differs from the functional op: ReduceProd/CumProd/CumSum keep
the input dtype, SquaredDifference takes a Python number, MatMul is 2-D only, L2Normalize's tuple axis error.
Expected values and messages come from MindSpore 2.10 (CPU)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

X = np.array([[1, 2, 3], [4, 5, 6]], np.int32)


@pytest.mark.parametrize("dt", [ms.int32, ms.int8, ms.int16, ms.uint8])
def test_reduce_prod_and_cumprod_classes_keep_integer_dtype(dt):
    x = ms.Tensor(X).astype(dt)
    r = ops.ReduceProd()(x, 1)
    assert r.dtype == dt and r.asnumpy().tolist() == [6, 120]
    c = ops.CumProd()(x, 1)
    assert c.dtype == dt and c.asnumpy().tolist() == [[1, 2, 6], [4, 20, 120]]
    c = ops.CumProd(True, True)(x, 1)        # exclusive, reversed
    assert c.dtype == dt and c.asnumpy().tolist() == [[6, 3, 1], [30, 6, 1]]
    s = ops.CumSum()(x, 1)
    assert s.dtype == dt and s.asnumpy().tolist() == [[1, 3, 6], [4, 9, 15]]
    # the functional forms widen to Int64
    assert ops.prod(x, 1).dtype == ms.int64 and ops.cumprod(x, 1).dtype == ms.int64


def test_reduce_prod_class_on_bool_and_scalars():
    b = ops.ReduceProd(True)(ms.Tensor(X).astype(ms.bool_), ())
    assert b.dtype == ms.bool_ and b.shape == (1, 1) and bool(b.asnumpy()[0, 0])
    assert ops.ReduceProd()(ms.Tensor(3, ms.int32)).dtype == ms.int32
    assert ops.ReduceProd()(ms.Tensor(X, ms.int64), 0).asnumpy().tolist() == [4, 10, 18]


def test_scan_classes_reject_bool():
    for prim in (ops.CumSum(), ops.CumProd()):
        with pytest.raises(TypeError, match=rf"For primitive\[{prim.name}\].*Bool"):
            prim(ms.Tensor(X).astype(ms.bool_), 1)


def test_reduce_prod_and_cumprod_class_gradients():
    x = ms.Tensor(X.astype(np.float32))
    g = ms.grad(lambda a: ops.ReduceProd()(a, 1).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [[6, 3, 2], [30, 24, 20]])
    g = ms.grad(lambda a: ops.CumProd()(a, 1).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [[9, 4, 2], [36, 28, 20]])


def test_squared_difference_with_python_numbers():
    x = ms.Tensor(X)
    r = ops.SquaredDifference()(x, 2.5)
    assert r.dtype == ms.float32
    np.testing.assert_allclose(r.asnumpy(), [[2.25, 0.25, 0.25], [2.25, 6.25, 12.25]])
    r = ops.SquaredDifference()(2, x)
    assert r.dtype == ms.int32 and r.asnumpy().tolist() == [[1, 0, 1], [4, 9, 16]]
    assert ops.SquaredDifference()(x.astype(ms.float16), 2).dtype == ms.float16
    with pytest.raises(TypeError, match="SquaredDifference"):
        ops.SquaredDifference()(2, 3)
    with pytest.raises(TypeError, match="SquaredDifference"):
        ops.SquaredDifference()(x, "a")


@pytest.mark.parametrize("shapes", [((2, 2, 3), (3, 4)), ((2, 2, 3), (2, 3, 4)), ((3,), (3, 4)), ((3,), (3,))])
def test_matmul_class_is_two_dimensional(shapes):
    a, b = (ops.ones(s, ms.float32) for s in shapes)
    with pytest.raises(ValueError, match="MatMul inputs should have the same dimension size and equal to 2."):
        ops.MatMul()(a, b)


def test_batch_matmul_class_still_takes_nd():
    a = ms.Tensor(np.arange(12, dtype=np.float32).reshape(2, 2, 3))
    b = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    np.testing.assert_allclose(ops.BatchMatMul()(a, b).asnumpy(), a.asnumpy() @ b.asnumpy())
    assert ops.MatMul(True, False)(b[:, :2], b).shape == (2, 4)


def test_l2_normalize_tuple_axis_error():
    with pytest.raises(TypeError, match="For 'L2Normalize', the length of 'axis' must be 1, but got 2"):
        ops.L2Normalize(axis=(0, 1), epsilon=0.1)(ops.ones((2, 3)))
    out = ops.L2Normalize(axis=(1,))(ms.Tensor(np.array([[3.0, 4.0]], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [[0.6, 0.8]], rtol=1e-6)


def test_topk_k_must_be_positive_in_ops_and_may_be_zero_in_mint():
    y = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for call in (lambda: ops.topk(y, 0), lambda: ops.TopK()(y, 0), lambda: y.topk(0)):
        with pytest.raises(ValueError, match=r"For primitive\[TopK\], the k must be in \(0,3\], but got 0\."):
            call()
    with pytest.raises(ValueError, match=r"the k must be in \(0,3\], but got 4\."):
        ops.TopK()(y, 4)
    values, idx = ms.mint.topk(y, 0)
    assert values.shape == (2, 0) and idx.shape == (2, 0) and idx.dtype == ms.int64
    values, idx = ops.TopK()(y, 2)
    assert values.asnumpy().tolist() == [[2.0, 1.0], [5.0, 4.0]] and idx.asnumpy().tolist() == [[2, 1], [2, 1]]


@pytest.mark.parametrize("prim", ["Argmax", "Argmin"])
def test_arg_reduce_output_type_is_int32_or_int64(prim):
    x = ms.Tensor(np.array([[1.0, 3.0, 2.0], [4.0, 0.0, 5.0]], np.float32))
    with pytest.raises(ValueError, match=f"{prim} error: dtype should be Int32 or Int64 but got Int16"):
        getattr(ops, prim)(output_type=ms.int16)(x)
    out = getattr(ops, prim)(output_type=ms.int64)(x)
    assert out.dtype == ms.int64
    assert out.asnumpy().tolist() == ([1, 2] if prim == "Argmax" else [0, 1])
