"""Sparse functions of ops (coo_*/csr_* elementwise, conversions, arithmetic, products, softmax, coalesce,
sparse_segment_mean): values vs dense numpy, gradients in the stored values vs float64 finite differences, bad input.
"""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests

# one fixed pattern: a 3 x 4 matrix with 5 stored values (rows 0, 0, 1, 2, 2; a duplicate-free CSR)
_PTR, _COL = np.array([0, 2, 3, 5]), np.array([1, 3, 0, 1, 2])
_ROWS = np.repeat(np.arange(3), np.diff(_PTR))
_SHAPE = (3, 4)


def _csr(values):
    return ms.CSRTensor(ms.Tensor(_PTR), ms.Tensor(_COL), values, _SHAPE)


def _coo(values):
    return ms.COOTensor(ms.Tensor(np.stack([_ROWS, _COL], 1)), values, _SHAPE)


def _dense(values):
    d = np.zeros(_SHAPE, values.dtype)
    d[_ROWS, _COL] = values
    return d


def _row_softmax(v):
    out = np.empty_like(v)
    for r in range(3):
        s = slice(_PTR[r], _PTR[r + 1])
        e = np.exp(v[s] - v[s].max())
        out[s] = e / e.sum()
    return out


_VALS = [(5,)]
SPECS = [
    OpSpec("csr_to_dense", lambda v: ops.csr_to_dense(_csr(v)), _dense, shapes=_VALS),
    OpSpec("coo_sin", lambda v: ops.coo_sin(_coo(v)).values, np.sin, shapes=_VALS),
    OpSpec("csr_tanh", lambda v: ops.csr_tanh(_csr(v)).values, np.tanh, shapes=_VALS),
    OpSpec("csr_mv", lambda v, x: ops.csr_mv(_csr(v), x), lambda v, x: _dense(v) @ x, shapes=[(5,), (4, 1)]),
    OpSpec("csr_mm", lambda v, x: ops.csr_mm(_csr(v), x), lambda v, x: _dense(v) @ x, shapes=[(5,), (4, 2)]),
    OpSpec("csr_mul", lambda v, y: ops.csr_mul(_csr(v), y).values, lambda v, y: v * np.broadcast_to(y, _SHAPE)[
        _ROWS, _COL], shapes=[(5,), (1, 4)]),
    OpSpec("csr_div", lambda v, y: ops.csr_div(_csr(v), y).values, lambda v, y: v / y[_ROWS, _COL],
           shapes=[(5,), _SHAPE], gen=[None, lambda r, s: r.uniform(1, 2, s)]),
    OpSpec("csr_reduce_sum1", lambda v: ops.csr_reduce_sum(_csr(v), 1), lambda v: _dense(v).sum(1, keepdims=True),
           shapes=_VALS),
    OpSpec("csr_reduce_sum0", lambda v: ops.csr_reduce_sum(_csr(v), 0), lambda v: _dense(v).sum(0, keepdims=True),
           shapes=_VALS),
    OpSpec("csr_softmax", lambda v: ops.csr_softmax(_csr(v), v.dtype).values, _row_softmax, shapes=_VALS),
    OpSpec("csr_add", lambda a, b: ops.csr_to_dense(ops.csr_add(_csr(a), _csr(b), 2.0, -0.5)),
           lambda a, b: 2 * _dense(a) - 0.5 * _dense(b), shapes=[(5,), (5,)]),
    OpSpec("coo_add", lambda a, b: ops.coo_add(_coo(a), _coo(b), 0.0).values, lambda a, b: a + b,
           shapes=[(5,), (5,)], graph=False),
    OpSpec("csr_gather", lambda d: ops.csr_gather(ms.Tensor(_PTR, ms.int32), ms.Tensor(_COL, ms.int32), d, _SHAPE),
           lambda d: d[_ROWS, _COL], shapes=[_SHAPE]),
    OpSpec("coo_concat", lambda a, b: ops.coo_concat([_coo(a), _coo(b)], 1).to_dense(),
           lambda a, b: np.concatenate([_dense(a), _dense(b)], 1), shapes=[(5,), (5,)], grad=False, graph=False),
    OpSpec("sparse_segment_mean", lambda x: ops.sparse_segment_mean(x, ms.Tensor([0, 2, 1, 3]), ms.Tensor(
        [0, 0, 1, 3])), lambda x: np.stack([x[[0, 2]].mean(0), x[1], np.zeros(2), x[3]]), shapes=[(4, 2)]),
    OpSpec("row_tensor_add", lambda v, y: ops.row_tensor_add(ms.RowTensor(ms.Tensor([2, 0]), v, (3, 2)), y),
           lambda v, y: y + np.stack([v[1], np.zeros(2), v[0]]), shapes=[(2, 2), (3, 2)]),
]
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)

test_bad_input = make_error_tests([
    ErrorSpec("coo_abs-dense", lambda: ops.coo_abs(ms.Tensor([1.0])), TypeError,
              "For 'coo_abs', the 'x' must be a COOTensor, but got Tensor"),
    ErrorSpec("csr_mv-shape", lambda: ops.csr_mv(_csr(ms.Tensor(np.ones(5))), ms.Tensor(np.ones((3, 1)))),
              ValueError, "For 'csr_mv', the sparse matrix of shape (3, 4)"),
    ErrorSpec("coo_add-shape", lambda: ops.coo_add(_coo(ms.Tensor(np.ones(5))), ms.COOTensor(
        ms.Tensor([[0, 0]]), ms.Tensor([1.0]), (2, 2)), 0.0), ValueError, "For 'coo_add', the shapes"),
    ErrorSpec("csr_reduce_sum-axis", lambda: ops.csr_reduce_sum(_csr(ms.Tensor(np.ones(5))), 2), ValueError,
              "For 'csr_reduce_sum', the 'axis' must be in [-2, 1]"),
    ErrorSpec("coo2csr-range", lambda: ops.coo2csr(ms.Tensor([0, 5], ms.int32), 3), ValueError, "For 'coo2csr'"),
    # MindSpore 2.10's CSR index primitives take int32 only
    ErrorSpec("coo2csr-int64", lambda: ops.coo2csr(ms.Tensor([0, 1]), 2), TypeError,
              "The dtype of row_indices only support Int32 for now, but got Int64."),
    ErrorSpec("csr2coo-int64", lambda: ops.csr2coo(ms.Tensor([0, 1, 3]), 3), TypeError,
              "The dtype of Indptr only support Int32 for now, but got Int64."),
    ErrorSpec("sparse_segment_mean-unsorted", lambda: ops.sparse_segment_mean(ms.Tensor(np.ones((2, 2))), ms.Tensor(
        [0, 1]), ms.Tensor([1, 0])), ValueError, "must be sorted"),
])


def test_conversions_round_trip_and_coalesce_sums_duplicates():
    d = ms.Tensor(np.array([[0, 2.0, 0], [1, 0, 3]], np.float32))
    csr = ops.dense_to_sparse_csr(d)
    np.testing.assert_array_equal(csr.indptr.asnumpy(), [0, 1, 3])
    np.testing.assert_array_equal(ops.csr_to_coo(csr).to_dense().asnumpy(), d.asnumpy())
    np.testing.assert_array_equal(ops.dense_to_sparse_coo(d).to_dense().asnumpy(), d.asnumpy())
    np.testing.assert_array_equal(ops.coo2csr(ms.Tensor([0, 1, 1], ms.int32), 3).asnumpy(), [0, 1, 3, 3])
    np.testing.assert_array_equal(ops.csr2coo(ms.Tensor([0, 1, 3, 3], ms.int32), 3).asnumpy(), [0, 1, 1])
    idx, vals, shape = ops.coalesce(ms.Tensor([[1, 0, 1], [0, 1, 0]]), ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([2, 2]))
    np.testing.assert_array_equal(idx.asnumpy(), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(vals.asnumpy(), [2.0, 4.0])
    assert ops.coo_tensor_get_dense_shape(ops.make_coo_tensor(idx.T, vals, (2, 2))) == (2, 2)
    c = ops.make_csr_tensor(ms.Tensor(_PTR), ms.Tensor(_COL), ms.Tensor(np.ones(5)), _SHAPE)
    assert ops.csr_tensor_get_indptr(c) is c.indptr and ops.csr_tensor_get_dense_shape(c) == _SHAPE


def test_coo_add_drops_small_sums_and_csr_times_csr_is_sparse():
    a = _coo(ms.Tensor(np.array([1.0, 2, 3, 4, 5])))
    b = _coo(ms.Tensor(np.array([-1.0, 0, 0, 0, 0])))
    s = ops.coo_add(a, b, 0.5)
    assert s.values.shape == (4,) and s.to_dense().asnumpy()[0, 1] == 0
    eye = ops.dense_to_sparse_csr(ms.Tensor(np.eye(4)))
    out = ops.csr_mm(_csr(ms.Tensor(np.arange(5.0))), eye)
    assert isinstance(out, ms.CSRTensor)
    np.testing.assert_array_equal(ops.csr_to_dense(out).asnumpy(), _dense(np.arange(5.0)))


@pytest.mark.parametrize("op", ["abs", "exp", "neg", "sqrt", "relu6", "isnan", "round", "softsign"])
def test_elementwise_keeps_the_pattern(op):
    v = np.array([0.5, 1.5, 2.0, 3.5, 4.0])
    for kind, make in (("coo", _coo), ("csr", _csr)):
        out = getattr(ops, f"{kind}_{op}")(make(ms.Tensor(v)))
        np.testing.assert_allclose(out.values.asnumpy(), getattr(ops, op)(ms.Tensor(v)).asnumpy())
        np.testing.assert_array_equal(out.indices.asnumpy(), make(ms.Tensor(v)).indices.asnumpy())


@pytest.mark.parametrize("indices, values, exc, text", [
    ([0, 1], [1.0, 1.0], ValueError, "'x_indices' must be a 2-D Tensor"),
    ([[0, 0], [0, 0], [0, 0]], [1.0, 1.0], ValueError, "'x_indices' shape must be"),
    ([[0, 0], [0, 0]], [1.0, 1.0, 1.0], ValueError, "'x_indices' shape must be"),
    ([[0, 5], [1, 1]], [1.0, 1.0], RuntimeError, r"\[0, 1\] = 5 is out of range"),
    ([[0, 1], [1, -1]], [1.0, 1.0], RuntimeError, r"\[1, 1\] = -1 is out of range"),
])
def test_coalesce_names_bad_indices(indices, values, exc, text):
    with pytest.raises(exc, match=text):
        ops.coalesce(ms.Tensor(indices), ms.Tensor(values), ms.Tensor([3, 3]))


def test_sparse_tensor_methods_match_dense_numpy():
    from mindseed import COOTensor, CSRTensor, Tensor
    dense = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0]], np.float32)
    csr = CSRTensor(Tensor(np.array([0, 1, 2], np.int32)), Tensor(np.array([0, 1], np.int32)),
                    Tensor(np.array([1.0, 2.0], np.float32)), (2, 4))
    vec = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)
    np.testing.assert_allclose(csr.mv(Tensor(vec)).asnumpy(), dense @ vec)
    mat = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(csr.mm(Tensor(mat)).asnumpy(), dense @ mat)
    np.testing.assert_allclose(csr.sum(1).asnumpy(), dense.sum(1, keepdims=True))
    np.testing.assert_allclose(csr.sum(0).asnumpy(), dense.sum(0, keepdims=True))
    # a one-value operand gives the scaled values as a Tensor (MindSpore 2.10's csr_mul / csr_div)
    scaled = csr * Tensor(np.array([2.0], np.float32))
    assert type(scaled) is Tensor and scaled.asnumpy().tolist() == [2.0, 4.0]
    np.testing.assert_allclose((csr / 2.0).asnumpy(), [0.5, 1.0])
    row = Tensor(np.array([[1.0, 2.0, 3.0, 4.0]], np.float32))
    np.testing.assert_allclose((csr * row).values.asnumpy(), [1.0, 4.0])
    np.testing.assert_allclose((csr / row).to_dense().asnumpy(), dense / np.where(dense != 0, row.asnumpy(), 1))
    coo = COOTensor(Tensor(np.array([[1, 2], [0, 1]], np.int64)), Tensor(np.array([5.0, 7.0], np.float32)), (3, 4))
    cd = coo.to_dense().asnumpy()
    twice = coo + coo
    assert isinstance(twice, COOTensor)
    np.testing.assert_allclose(twice.to_dense().asnumpy(), 2 * cd)
    ones = np.ones((3, 4), np.float32)
    np.testing.assert_allclose((coo + Tensor(ones)).asnumpy(), ones + cd)
    with pytest.raises(ValueError, match="same shape"):
        coo + Tensor(np.ones((2, 2), np.float32))
    c = coo.to_csr()  # row-major order
    assert c.indptr.asnumpy().tolist() == [0, 1, 2, 2] and c.indices.asnumpy().tolist() == [1, 2]
    np.testing.assert_allclose(c.to_dense().asnumpy(), cd)
