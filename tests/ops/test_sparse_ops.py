"""MindSpore's sparse primitives (ops/operations/_sparse_coo.py, _sparse_csr.py): values vs numpy references and
vs numbers MindSpore 2.10 CPU gave, gradients of the values vs float64 finite differences, graph mode, bad input."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor
from mindseed.ops.operations import _grad_ops
from mindseed.ops.operations import sparse_ops as S

from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests

I64 = ms.int64
_IA = np.array([[0, 1], [1, 2], [2, 0]])          # three entries of a 3x4 matrix
_IB = np.array([[0, 1], [1, 3], [2, 0], [2, 2]])
_SH = Tensor([3, 4], I64)


def _dense(idx, v, shape=(3, 4)):
    d = np.zeros(shape, v.dtype)
    np.add.at(d, tuple(idx.T), v)
    return d


def _at(d, idx):
    return d[tuple(idx.T)]


def _union():
    keys = sorted({tuple(r) for r in np.concatenate([_IA, _IB]).tolist()})
    return np.array(keys)


def _np_segments(x, idx, seg, n, scale):
    out = np.zeros((n,) + x.shape[1:], x.dtype)
    np.add.at(out, seg, x[idx])
    counts = np.maximum(np.bincount(seg, minlength=n), 1)
    return out * scale(counts).reshape(-1, *([1] * (x.ndim - 1)))


def _np_row_softmax(v, groups):
    out = np.empty_like(v)
    for g in np.unique(groups):
        e = np.exp(v[groups == g] - v[groups == g].max())
        out[groups == g] = e / e.sum()
    return out


_SEG_IDX, _SEG_IDS = np.array([0, 2, 1, 3]), np.array([0, 0, 2, 3])
_CSR = (Tensor([3, 4], I64), Tensor([0, 3], I64), Tensor([0, 1, 2, 3], I64), Tensor([1, 2, 0], I64))


def _csr(values):
    return (*_CSR, values)


SPECS = [
    OpSpec("SparseAdd", lambda a, b: S.SparseAdd()(Tensor(_IA), a, _SH, Tensor(_IB), b, _SH, Tensor(0.0, a.dtype))[1],
           lambda a, b: _at(_dense(_IA, a) + _dense(_IB, b), _union()), shapes=[(3,), (4,)]),
    OpSpec("SparseSparseMinimum", lambda a, b: S.SparseSparseMinimum()(Tensor(_IA), a, _SH, Tensor(_IB), b, _SH)[1],
           lambda a, b: _at(np.minimum(_dense(_IA, a), _dense(_IB, b)), _union()), shapes=[(3,), (4,)]),
    OpSpec("SparseSparseMaximum", lambda a, b: S.SparseSparseMaximum()(Tensor(_IA), a, _SH, Tensor(_IB), b, _SH)[1],
           lambda a, b: _at(np.maximum(_dense(_IA, a), _dense(_IB, b)), _union()), shapes=[(3,), (4,)]),
    OpSpec("SparseReorder", lambda v: S.SparseReorder()(Tensor(_IA[::-1].copy()), v, _SH)[1],
           lambda v: v[np.argsort(np.ravel_multi_index(tuple(_IA[::-1].T), (3, 4)))], shapes=[(3,)]),
    OpSpec("SparseSoftmax", lambda v: S.SparseSoftmax()(Tensor(_IB), v, _SH),
           lambda v: _np_row_softmax(v, _IB[:, 0]), shapes=[(4,)]),
    OpSpec("SparseDenseCwiseMul", lambda v, d: S.SparseDenseCwiseMul()(Tensor(_IA), v, _SH, d),
           lambda v, d: v * _at(np.broadcast_to(d, (3, 4)), _IA), shapes=[(3,), (4,)]),
    OpSpec("SparseDenseCwiseDiv", lambda v, d: S.SparseDenseCwiseDiv()(Tensor(_IA), v, _SH, d),
           lambda v, d: v / _at(d, _IA), shapes=[(3,), (3, 4)], gen=[None, lambda r, s: r.uniform(1, 2, s)]),
    OpSpec("SparseToDenseV2", lambda v, dv: S.SparseToDenseV2()(Tensor(_IA), _SH, v, dv),
           lambda v, dv: np.where(_dense(_IA, np.ones(3)) > 0, _dense(_IA, v), dv), shapes=[(3,), ()]),
    OpSpec("SparseSegmentSqrtNWithNumSegments", lambda x: S.SparseSegmentSqrtNWithNumSegments()(
        x, Tensor(_SEG_IDX), Tensor(_SEG_IDS), Tensor(5)),
        lambda x: _np_segments(x, _SEG_IDX, _SEG_IDS, 5, lambda c: 1 / np.sqrt(c)), shapes=[(4, 3)]),
    OpSpec("SparseSegmentMeanWithNumSegments", lambda x: S.SparseSegmentMeanWithNumSegments()(
        x, Tensor(_SEG_IDX), Tensor(_SEG_IDS), Tensor(5)),
        lambda x: _np_segments(x, _SEG_IDX, _SEG_IDS, 5, lambda c: 1 / c), shapes=[(4, 3)]),
    OpSpec("SparseAddmm", lambda v, x2, x3: S.SparseAddmm()(Tensor(_IA), v, _SH, x2, x3, Tensor([2.0], v.dtype),
                                                          Tensor([0.5], v.dtype)),
           lambda v, x2, x3: 2 * _dense(_IA, v) @ x2 + 0.5 * x3, shapes=[(3,), (4, 2), (3, 2)]),
    OpSpec("CSRSparseMatrixToDense", lambda v: S.CSRSparseMatrixToDense()(*_csr(v)),
           lambda v: _dense(np.array([[0, 1], [1, 2], [2, 0]]), v), shapes=[(3,)]),
    OpSpec("SparseMatrixMatMul", lambda v, d: S.SparseMatrixMatMul(transpose_output=True)(*_csr(v), d),
           lambda v, d: (_dense(_IA, v) @ d).T, shapes=[(3,), (4, 2)]),
    OpSpec("SparseMatrixSoftmax", lambda v: S.SparseMatrixSoftmax(v.dtype)(*_csr(v))[4],
           lambda v: np.ones_like(v), shapes=[(3,)], grad=False),
]
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def _np(*ts):
    return [t.asnumpy().tolist() for t in ts]


def test_coo_results_match_mindspore():
    """Numbers MindSpore 2.10 CPU gave for these inputs."""
    ai, bi = Tensor([[0, 1], [1, 2]], I64), Tensor([[0, 1], [1, 3]], I64)
    out = S.SparseAdd()(ai, Tensor([1.0, -2.0]), _SH, bi, Tensor([-0.5, 0.3]), _SH, Tensor(0.6))
    assert _np(*out) == [[[1, 2], [1, 3]], [-2.0, pytest.approx(0.3)], [3, 4]]
    out = S.SparseAdd()(ai, Tensor([1, -2]), _SH, bi, Tensor([-1, 3]), _SH, Tensor(0))
    assert _np(*out) == [[[0, 1], [1, 2], [1, 3]], [0, -2, 3], [3, 4]]
    idx, v = S.SparseSparseMinimum()(ai, Tensor([1.0, -2.0]), _SH, bi, Tensor([-0.5, 0.3]), _SH)
    assert _np(idx, v) == [[[0, 1], [1, 2], [1, 3]], [-0.5, -2.0, 0.0]]
    out = S.SparseFillEmptyRows()(Tensor([[2, 1], [0, 3]], I64), Tensor([1.0, 2.0]), Tensor([4, 4], I64),
                                  Tensor(9.0))
    assert _np(*out) == [[[0, 3], [1, 0], [2, 1], [3, 0]], [2.0, 9.0, 1.0, 9.0], [False, True, False, True], [2, 0]]
    out = S.SparseCountSparseOutput(minlength=7)(Tensor([[0, 0], [0, 1], [1, 0]], I64), Tensor([2, 2, 5], I64),
                                                 Tensor([2, 3], I64), Tensor([0.5, 1.0, 2.0]))
    assert _np(*out) == [[[0, 2], [1, 5]], [1.5, 2.0], [2, 7]]
    out = S.Sspaddmm()(Tensor([[0, 1], [1, 0]], I64), Tensor([1.0, 2]), Tensor([2, 2], I64),
                       Tensor([[0, 1], [1, 0]], I64), Tensor([3.0, 4]), Tensor([2, 2], I64),
                       Tensor([[1.0, 2], [3, 4]]), Tensor(1.0), Tensor(2.0))
    assert _np(*out) == [[[0, 1, 0, 0, 1, 1], [1, 0, 0, 1, 0, 1]], [2.0, 4.0, 9.0, 12.0, 4.0, 8.0], [2, 2]]
    out = S.SparseSegmentSqrtN()(Tensor([[1.0, 2], [3, 4], [5, 6]]), Tensor([0, 1, 2]), Tensor([0, 0, 1]))
    np.testing.assert_allclose(out.asnumpy(), [[2.8284271, 4.2426407], [5.0, 6.0]], rtol=1e-6)
    out = S.SparseConcat(1)((Tensor([[0, 1]], I64), Tensor([[1, 1]], I64)), (Tensor([1.0]), Tensor([2.0])),
                            (Tensor([2, 2], I64), Tensor([2, 3], I64)))
    assert _np(*out) == [[[0, 1], [1, 3]], [1.0, 2.0], [2, 5]]


def test_csr_results_match_mindspore():
    dense = Tensor([[[1.0, 0], [0, 2]], [[0, 3], [0, 0]]])
    out = S.DenseToCSRSparseMatrix()(dense, Tensor([[0, 0, 0], [0, 1, 1], [1, 0, 1]], I64))
    assert _np(*out) == [[2, 2, 2], [0, 2, 3], [0, 1, 2, 0, 1, 1], [0, 1, 1], [1.0, 2.0, 3.0]]
    assert S.SparseMatrixNNZ()(*out).asnumpy().tolist() == [2, 1]
    np.testing.assert_array_equal(S.CSRSparseMatrixToDense()(*out).asnumpy(), dense.asnumpy())
    out = S.SparseTensorToCSRSparseMatrix()(Tensor([[0, 0], [0, 2], [2, 1]], I64), Tensor([1.0, 2, 3]),
                                            Tensor([3, 3], I64))
    assert _np(*out) == [[3, 3], [0, 3], [0, 2, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0]]
    idx, v, shape = S.CSRSparseMatrixToSparseTensor()(*out)
    assert _np(idx, v, shape) == [[[0, 0], [0, 2], [2, 1]], [1.0, 2.0, 3.0], [3, 3]]
    t = S.SparseMatrixTranspose()(*out)
    np.testing.assert_array_equal(S.CSRSparseMatrixToDense()(*t).asnumpy(),
                                  S.CSRSparseMatrixToDense()(*out).asnumpy().T)
    soft = S.SparseMatrixSoftmax(ms.float32)(*_csr(Tensor([1.0, 2.0, 3.0])))[4]
    np.testing.assert_allclose(soft.asnumpy(), [1.0, 1.0, 1.0])
    two_per_row = (Tensor([2, 3], I64), Tensor([0, 3], I64), Tensor([0, 2, 3], I64), Tensor([0, 2, 1], I64),
                   Tensor([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(S.SparseMatrixSoftmax(ms.float32)(*two_per_row)[4].asnumpy(),
                               [0.26894143, 0.7310586, 1.0], rtol=1e-6)


def test_csr_add_and_sparse_matmul():
    a, b = _csr(Tensor([1.0, 2.0, 3.0])), (Tensor([3, 4], I64), Tensor([0, 2], I64), Tensor([0, 1, 1, 2], I64),
                                           Tensor([1, 3], I64), Tensor([10.0, 20.0]))
    dense = S.CSRSparseMatrixToDense()
    out = S.SparseMatrixAdd()(*a, *b, Tensor([2.0]), Tensor([-1.0]))
    np.testing.assert_allclose(dense(*out).asnumpy(), 2 * dense(*a).asnumpy() - dense(*b).asnumpy())
    assert out[4].shape == (4,)
    prod = S.SparseMatrixSparseMatMul(transpose_b=True)(*a, *b)
    np.testing.assert_allclose(dense(*prod).asnumpy(), dense(*a).asnumpy() @ dense(*b).asnumpy().T)


def test_reshape_split_and_ragged():
    idx, shape = S.SparseReshape()(Tensor([[2, 1], [0, 3], [0, 1]], I64), _SH, Tensor([2, -1], I64))
    assert _np(idx, shape) == [[[1, 3], [0, 3], [0, 1]], [2, 6]]
    ids, vals, shapes = S.SparseSplit(num_split=2)(Tensor(1, I64), Tensor([[0, 1], [0, 3], [2, 4]], I64),
                                                    Tensor([1.0, 2.0, 3.0]), Tensor([3, 5], I64))
    assert _np(*ids) == [[[0, 1]], [[0, 0], [2, 1]]] and _np(*vals) == [[1.0], [2.0, 3.0]]
    assert _np(*shapes) == [[3, 3], [3, 2]]
    out = S.RaggedTensorToSparse()((Tensor([0, 2, 3], I64), Tensor([0, 1, 3, 4], I64)), Tensor([1.0, 2, 3, 4]))
    assert _np(*out) == [[[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0]], [1.0, 2.0, 3.0, 4.0], [2, 2, 2]]
    dense = S.RaggedTensorToTensor(["FIRST_DIM_SIZE", "VALUE_ROWIDS"])(
        Tensor([4, 4], I64), Tensor([1.0, 2, 3, 4, 5]), Tensor(0.0), (Tensor(3, I64), Tensor([0, 0, 2, 2, 2], I64)))
    assert dense.asnumpy().tolist() == [[1, 2, 0, 0], [0, 0, 0, 0], [3, 4, 5, 0], [0, 0, 0, 0]]


def test_segment_grads_are_the_vjp():
    x = Tensor(np.random.RandomState(0).randn(4, 3))
    idx, seg = Tensor(_SEG_IDX), Tensor(_SEG_IDS)
    dout = Tensor(np.random.RandomState(1).randn(4, 3))
    for kind in ("Sum", "Mean", "SqrtN"):
        fwd = getattr(S, f"SparseSegment{kind}WithNumSegments")()
        want = ms.grad(lambda t, f=fwd: (f(t, idx, seg, Tensor(4)) * dout).sum())(x)
        got = getattr(_grad_ops, f"SparseSegment{kind}Grad")()(dout, idx, seg, Tensor(4))
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-12)


def test_fill_empty_rows_grad():
    _, _, _, rev = S.SparseFillEmptyRows()(Tensor([[2, 1], [0, 3]], I64), Tensor([1.0, 2.0]), Tensor([4, 4], I64),
                                           Tensor(9.0))
    dv, dd = _grad_ops.SparseFillEmptyRowsGrad()(rev, Tensor([10.0, 20.0, 30.0, 40.0]))
    assert dv.asnumpy().tolist() == [30.0, 10.0] and float(dd.asnumpy()) == 60.0


def test_coo_concat_as_mindspore():
    a = ms.COOTensor(Tensor([[0, 1], [2, 2]], I64), Tensor([1.0, 2.0]), (3, 4))
    b = ms.COOTensor(Tensor([[1, 1], [0, 2]], I64), Tensor([3.0, 4.0]), (3, 5))
    out = ms.ops.coo_concat((a, b), 1)
    assert _np(out.indices, out.values) == [[[0, 1], [0, 6], [1, 5], [2, 2]], [1.0, 4.0, 3.0, 2.0]]
    assert out.shape == (3, 9) and out.indices.dtype == I64
    c = ms.COOTensor(Tensor([[3, 0]], I64), Tensor([5.0]), (4, 4))
    out = ms.ops.coo_concat([a, c])
    assert out.shape == (7, 4) and out.indices.asnumpy().tolist() == [[0, 1], [2, 2], [6, 0]]


def test_module_paths():
    from mindseed.common.sparse_tensor import COOTensor, CSRTensor, RowTensor, RowTensorInner, SparseTensor
    from mindseed.ops.function import csr_softmax, sparse_func, sparse_unary_func
    assert COOTensor is ms.COOTensor and CSRTensor is ms.CSRTensor and SparseTensor is ms.SparseTensor
    row = RowTensorInner(Tensor([0, 1]), Tensor([[1.0, 2.0], [3.0, 4.0]]), (3, 2))
    assert isinstance(row, RowTensor) and RowTensorInner(row_tensor=row).dense_shape == (3, 2)
    assert csr_softmax is ms.ops.csr_softmax is sparse_func.csr_softmax
    assert sparse_unary_func.csr_exp is ms.ops.csr_exp


def test_graph_mode_sparse_add_sees_new_indices():
    net = ms.jit(lambda i, v: S.SparseAdd()(i, v, _SH, Tensor([[0, 0]], I64), Tensor([1.0]), _SH, Tensor(0.0)))
    first = net(Tensor([[0, 1]], I64), Tensor([2.0]))
    second = net(Tensor([[2, 3]], I64), Tensor([5.0]))
    assert _np(*first[:2]) == [[[0, 0], [0, 1]], [1.0, 2.0]]
    assert _np(*second[:2]) == [[[0, 0], [2, 3]], [1.0, 5.0]]


_A = ms.COOTensor(Tensor([[0, 1]], I64), Tensor([1.0]), (3, 4))
test_bad_input = make_error_tests([
    # checks MindSpore's SparseCountSparseOutput kernel makes while it runs: RuntimeError
    ErrorSpec("count_sparse_output-weights", lambda: S.SparseCountSparseOutput()(
        Tensor([[1, 2], [3, 1]], I64), Tensor([0, 2], I64), Tensor([4, 4], I64), Tensor([1, 2, 1], I64)),
        RuntimeError, "weights and values must have the same shape"),
    ErrorSpec("count_sparse_output-index", lambda: S.SparseCountSparseOutput()(
        Tensor([[1, 2], [8, 1]], I64), Tensor([0, 2], I64), Tensor([4, 3], I64), Tensor([1, 2], I64)),
        RuntimeError, "every row of 'indices' must lie inside 'shape' [4, 3]"),
    ErrorSpec("coo_concat-one", lambda: ms.ops.coo_concat([_A]), ValueError, "For 'coo_concat', at least 2"),
    ErrorSpec("coo_concat-dim", lambda: ms.ops.coo_concat([_A, _A], 2), IndexError,
              "For 'coo_concat', the 'concat_dim' must be in [-2, 2), but got 2"),
    ErrorSpec("coo_concat-float-dim", lambda: ms.ops.coo_concat([_A, _A], -1.0), TypeError,
              "For 'coo_concat', the type of 'concat_dim' should be 'int'"),
    ErrorSpec("coo_concat-shape", lambda: ms.ops.coo_concat(
        [_A, ms.COOTensor(Tensor([[0, 1]], I64), Tensor([1.0]), (4, 5))], 1), RuntimeError,
        "For 'coo_concat', input 1 has shape [4, 5]"),
    ErrorSpec("coo_concat-dtype", lambda: ms.ops.coo_concat(
        [_A, ms.COOTensor(Tensor([[0, 1]], I64), Tensor([1]), (3, 4))], 1), TypeError,
        "For 'coo_concat', every input's values must have the dtype Float32"),
    ErrorSpec("SparseAdd-shape", lambda: S.SparseAdd()(Tensor(_IA), Tensor([1.0, 2, 3]), _SH, Tensor(_IA),
                                                       Tensor([1.0, 2, 3]), Tensor([3, 5], I64), Tensor(0.0)),
              ValueError, "For 'SparseAdd', the two sparse shapes must be equal"),
    ErrorSpec("SparseAdd-float-indices", lambda: S.SparseAdd()(Tensor(_IA * 1.0), Tensor([1.0, 2, 3]), _SH,
                                                               Tensor(_IA), Tensor([1.0, 2, 3]), _SH, Tensor(0.0)),
              TypeError, "For 'SparseAdd', the 'x1_indices' must be a Tensor of int64"),
    ErrorSpec("SparseAdd-out-of-shape", lambda: S.SparseAdd()(Tensor([[5, 0]], I64), Tensor([1.0]), _SH,
                                                              Tensor(_IA), Tensor([1.0, 2, 3]), _SH, Tensor(0.0)),
              ValueError, "For 'SparseAdd', every row of 'x1_indices' must lie inside 'x1_shape'"),
    ErrorSpec("SparseSegmentSum-gap", lambda: S.SparseSegmentSum()(Tensor([[1.0], [2.0]]), Tensor([0, 1]),
                                                                   Tensor([0, 2])),
              ValueError, "For 'SparseSegmentSum', the 'segment_ids' must be contiguous"),
    ErrorSpec("SparseReshape-bad", lambda: S.SparseReshape()(Tensor(_IA), _SH, Tensor([5, -1], I64)), ValueError,
              "For 'SparseReshape', 'new_shape' [5, -1] cannot hold the 12 elements"),
    ErrorSpec("SparseMatrixMatMul-shape", lambda: S.SparseMatrixMatMul()(*_csr(Tensor([1.0, 2, 3])),
                                                                         Tensor(np.ones((3, 2)))),
              ValueError, "For 'SparseMatrixMatMul', x1's col and x2's row must be the same"),
    ErrorSpec("SparseMatrixSoftmax-dtype", lambda: S.SparseMatrixSoftmax(ms.int32)(*_csr(Tensor([1.0, 2, 3]))),
              TypeError, "For 'SparseMatrixSoftmax', the 'dtype' must be float32 or float64"),
    ErrorSpec("CSRSparseMatrixToDense-pointers", lambda: S.CSRSparseMatrixToDense()(
        Tensor([2, 3], I64), Tensor([0, 2], I64), Tensor([0, 2, 2, 3], I64), Tensor([0, 2], I64), Tensor([1.0, 2])),
        ValueError, "For 'CSRSparseMatrixToDense', with batch 1 and 2 rows"),
])


def test_matrix_softmax_does_not_read_batch_pointers():
    """MindSpore's SparseMatrixSoftmax accepts any batch_pointers (e.g. the scalar nnz) and counts by row pointers."""
    out = S.SparseMatrixSoftmax(ms.float32)(Tensor([2, 3], I64), Tensor(3, I64), Tensor([0, 2, 3], I64),
                                            Tensor([0, 2, 1], I64), Tensor([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(out[4].asnumpy(), [0.26894143, 0.7310586, 1.0], rtol=1e-6)
    assert out[1].asnumpy().tolist() == [0, 3]


@pytest.mark.parametrize("bptr", [[0, -1], [0, 5], [0, 100]])
def test_csr_2d_conversions_do_not_read_batch_pointers(bptr):
    """MindSpore's CSRSparseMatrixToDense/ToSparseTensor read an unbatched matrix by its row pointers only."""
    csr = (Tensor([3, 4], I64), Tensor(bptr, I64), Tensor([0, 2, 2, 3], I64), Tensor([1, 3, 0], I64),
           Tensor([1.0, 2.0, 3.0]))
    assert _np(*S.CSRSparseMatrixToSparseTensor()(*csr)) == [[[0, 1], [0, 3], [2, 0]], [1.0, 2.0, 3.0], [3, 4]]
    np.testing.assert_array_equal(S.CSRSparseMatrixToDense()(*csr).asnumpy(),
                                  [[0, 1, 0, 2], [0, 0, 0, 0], [3, 0, 0, 0]])
    with pytest.raises(ValueError, match="For 'SparseMatrixNNZ', 'x_col_indices' and 'x_values' must both hold"):
        S.SparseMatrixNNZ()(*csr)


def test_set_operations_match_mindspore():
    x1, x2 = Tensor([[1, 2, 3], [4, 5, 5]], I64), Tensor([[2, 7, 0], [5, 6, 6]], I64)
    want = {"a-b": [[[0, 0], [0, 1], [1, 0]], [1, 3, 4], [2, 2]], "b-a": [[[0, 0], [0, 1], [1, 0]], [0, 7, 6], [2, 2]],
            "intersection": [[[0, 0], [1, 0]], [2, 5], [2, 1]],
            "union": [[[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [1, 0], [1, 1], [1, 2]], [0, 1, 2, 3, 7, 4, 5, 6],
                      [2, 5]]}
    for op, expect in want.items():
        assert _np(*S.DenseToDenseSetOperation(set_operation=op)(x1, x2)) == expect
    out = S.DenseToSparseSetOperation(set_operation="union")(x1, Tensor([[0, 0], [1, 0], [1, 1]], I64),
                                                             Tensor([2, 5, 9], I64), Tensor([2, 3], I64))
    assert _np(*out) == [[[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]], [1, 2, 3, 4, 5, 9], [2, 3]]
    size = S.SetSize()(Tensor([[0, 0, 0], [0, 0, 1], [1, 1, 0]], I64), Tensor([2, 3, 5], I64), Tensor([2, 2, 3], I64))
    assert size.asnumpy().tolist() == [[2, 0], [0, 1]] and size.dtype == ms.int32
    with pytest.raises(ValueError, match="For 'DenseToDenseSetOperation', the 'set_operation' must be one of"):
        S.DenseToDenseSetOperation(set_operation="xor")(x1, x2)


def test_sparse_slice_grad():
    g = _grad_ops.SparseSliceGrad()(Tensor([1.0, 2.0]), Tensor([[0, 0], [1, 2], [2, 3]], I64), Tensor([1, 0], I64),
                                    Tensor([[0, 2], [1, 3]], I64))
    assert g.asnumpy().tolist() == [0.0, 1.0, 2.0]
    assert not hasattr(ms.ops.operations, "SparseSliceGrad") and not hasattr(S, "SparseSegmentSumGrad")
    # as in MindSpore: the new classes only in sparse_ops (SparseSegmentMean in math_ops), not in ops.operations
    from mindseed.ops.operations import math_ops
    assert not hasattr(ms.ops.operations, "SparseAdd") and not hasattr(ms.ops, "SparseAdd")
    assert math_ops.SparseSegmentMean.__module__.endswith("math_ops") and not hasattr(S, "SparseSegmentMean")


def test_sparse_sparse_extremes_walk_the_index_lists_in_order():
    # MindSpore walks the two lists as sorted: equal rows pair up, the smaller goes out alone against 0; unsorted
    # rows and repeats pass through in their order (its own test's numbers)
    i1, v1 = Tensor([[0, 1], [0, 1], [2, 2], [0, 2]]), Tensor([4, 2, -3, 4], ms.float32)
    i2, v2, shape = Tensor([[0, 1], [2, 3]]), Tensor([2, -3], ms.float32), Tensor([3, 4])
    rows = [[0, 1], [0, 1], [2, 2], [0, 2], [2, 3]]
    for op, a, b, values in ((S.SparseSparseMaximum, (i1, v1), (i2, v2), [4, 2, 0, 4, 0]),
                             (S.SparseSparseMinimum, (i1, v1), (i2, v2), [2, 0, -3, 0, -3]),
                             (S.SparseSparseMaximum, (i2, v2), (i1, v1), [4, 2, 0, 4, 0])):
        m, n = op()(a[0], a[1], shape, b[0], b[1], shape)
        assert m.asnumpy().tolist() == rows and n.asnumpy().tolist() == values


def test_sparse_softmax_groups_by_leading_indices_whatever_the_shape():
    # MindSpore's kernel never compares the indices with `shape`: a (0, 0, 0) shape still groups rows by (i, j)
    indices = Tensor(np.array([[0, 0, 0], [1, 1, 1], [0, 1, 1], [0, 0, 1]], np.int64))
    values = np.array([1.0, 2.0, 3.0, 2.0])
    out = S.SparseSoftmax()(indices, Tensor(values), Tensor(np.array([0, 0, 0], np.int64)))
    e = np.exp(values[[0, 3]] - values[[0, 3]].max())
    # the values come back in the row-major order of the indices: (0,0,0), (0,0,1), (0,1,1), (1,1,1)
    np.testing.assert_allclose(out.asnumpy(), [e[0] / e.sum(), e[1] / e.sum(), 1.0, 1.0], rtol=1e-12)
    # MindSpore 2.10: rows (0,0), (0,1), (1,0), (0,2) come back as (0,0), (0,1), (0,2), (1,0)
    out = S.SparseSoftmax()(Tensor(np.array([[0, 0], [0, 1], [1, 0], [0, 2]], np.int64)),
                            Tensor(np.array([1.0, 2.0, 3.0, 2.0])), Tensor(np.array([3, 3], np.int64)))
    np.testing.assert_allclose(out.asnumpy(), [0.1553624, 0.4223188, 0.4223188, 1.0], rtol=1e-6)
