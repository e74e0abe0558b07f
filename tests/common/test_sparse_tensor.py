"""COOTensor / CSRTensor / RowTensor as MindSpore 2.10 has them: repr (the parts printed by the C++ printer without
commas, `[...]` from 30 elements), arithmetic operators, SparseAdd's merge order and threshold, and the
constructor checks. Expected values are what MindSpore 2.10 (CPU) printed."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import COOTensor, CSRTensor, RowTensor, Tensor


def _coo(idx, vals, dtype=ms.int32, shape=(3, 4)):
    return COOTensor(Tensor(np.array(idx), dtype), Tensor(np.array(vals, np.float32)), shape)


def test_coo_repr_prints_parts_without_commas():
    x = _coo([[0, 1], [1, 2]], [1, 2])
    assert repr(x) == ("COOTensor(shape=[3, 4], dtype=Float32, indices=Tensor(shape=[2, 2], dtype=Int32, value=\n"
                       "[[0 1]\n [1 2]]), values=Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  "
                       "2.00000000e+00]))")
    assert str(x) == repr(x)
    ints = COOTensor(Tensor([[0, 0], [0, 1], [0, 2]], ms.int32), Tensor([10, -200, 3], ms.int32), (1, 3))
    assert repr(ints).endswith("values=Tensor(shape=[3], dtype=Int32, value=[  10 -200    3]))")
    flag = COOTensor(Tensor([[0, 1]], ms.int64), Tensor([True]), (2, 2))
    assert repr(flag).endswith("values=Tensor(shape=[1], dtype=Bool, value=[ True]))")


def test_sparse_repr_summarises_rows_and_hides_30_elements_or_more():
    n = 7
    idx = np.stack([np.zeros(n), np.arange(n)], 1).astype(np.int32)
    x = COOTensor(Tensor(idx), Tensor(np.arange(n).astype(np.int32)), (1, n))
    assert repr(x) == ("COOTensor(shape=[1, 7], dtype=Int32, indices=Tensor(shape=[7, 2], dtype=Int32, value=\n"
                       "[[0 0]\n [0 1]\n [0 2]\n ...\n [0 4]\n [0 5]\n [0 6]]), values=Tensor(shape=[7], "
                       "dtype=Int32, value=[0 1 2 3 4 5 6]))")
    n = 15          # indices: 30 elements -> [...]; values: 15 shown
    idx = np.stack([np.zeros(n), np.arange(n)], 1).astype(np.int32)
    x = COOTensor(Tensor(idx), Tensor(np.arange(n).astype(np.int32)), (1, n))
    assert "indices=Tensor(shape=[15, 2], dtype=Int32, value=[...])" in repr(x)
    assert "value=[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14]))" in repr(x)


def test_csr_and_row_tensor_repr():
    c = CSRTensor(Tensor([0, 2, 3], ms.int32), Tensor([0, 3, 1], ms.int32), Tensor([1., -2., 3.]), (2, 4))
    assert repr(c) == ("CSRTensor(shape=[2, 4], dtype=Float32, indptr=Tensor(shape=[3], dtype=Int32, value=[0 2 3]), "
                       "indices=Tensor(shape=[3], dtype=Int32, value=[0 3 1]), values=Tensor(shape=[3], "
                       "dtype=Float32, value=[ 1.00000000e+00 -2.00000000e+00  3.00000000e+00]))")
    r = RowTensor(Tensor([0]), Tensor([[1., 2.]]), (2, 2))
    assert repr(r) == ("RowTensor(shape=[2, 2], dtype=Float32, indices=Tensor(shape=[1], dtype=Int64, value=[0]), "
                       "values=Tensor(shape=[1, 2], dtype=Float32, value=\n[[ 1.00000000e+00  2.00000000e+00]]))")


def test_coo_operators_with_dense_and_negation():
    x = _coo([[0, 1], [1, 2]], [1, 2])
    dense = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    neg = -x
    assert isinstance(neg, COOTensor) and neg.values.tolist() == [-1.0, -2.0]
    assert (x * dense).values.tolist() == [1.0, 12.0]
    np.testing.assert_allclose((x / (dense + 1)).values.asnumpy(), [0.5, 0.2857143], rtol=1e-6)
    expect = np.arange(12, dtype=np.float32).reshape(3, 4)
    expect[0, 1] += 1
    expect[1, 2] += 2
    np.testing.assert_array_equal((x + dense).asnumpy(), expect)
    sub = np.arange(12, dtype=np.float32).reshape(3, 4)
    sub[0, 1] -= 1
    sub[1, 2] -= 2
    np.testing.assert_array_equal((dense - x).asnumpy(), sub)
    np.testing.assert_array_equal((x - dense).asnumpy(), -sub)
    with pytest.raises(ValueError, match="Input tensors should have the same shape."):
        _ = x * Tensor(np.ones((2, 2), np.float32))


def test_coo_add_follows_sparse_add_merge_and_threshold():
    a = _coo([[0, 1], [1, 2], [2, 2]], [1., 2., 0.3], ms.int64)
    b = _coo([[0, 1], [2, 3], [1, 0]], [-0.5, -1., 0.2], ms.int64)
    # MindSpore 2.10: the two lists walked in order (b's unsorted tail kept as is); only a sum meets thresh
    s = a.add(b, Tensor(0.0))
    assert s.indices.asnumpy().tolist() == [[0, 1], [1, 2], [2, 2], [2, 3], [1, 0]]
    np.testing.assert_allclose(s.values.asnumpy(), [0.5, 2., 0.3, -1., 0.2], rtol=1e-6)
    s = a.add(b, Tensor(1.0))
    assert s.indices.asnumpy().tolist() == [[1, 2], [2, 2], [2, 3], [1, 0]]
    np.testing.assert_allclose(s.values.asnumpy(), [2., 0.3, -1., 0.2], rtol=1e-6)
    mixed = _coo([[0, 1], [1, 2]], [1., 2.], ms.int32) + _coo([[0, 1], [2, 3]], [5., -1.], ms.int64)
    assert mixed.indices.dtype == ms.int64 and mixed.values.tolist() == [6.0, 2.0, -1.0]
    diff = _coo([[0, 1], [1, 2]], [1., 2.], ms.int64) - _coo([[0, 1], [2, 3]], [5., -1.], ms.int64)
    assert diff.to_dense().asnumpy()[[0, 1, 2], [1, 2, 3]].tolist() == [-4.0, 2.0, 1.0]
    with pytest.raises(TypeError, match=r"argument\[x1_indices\] must be a type of \{Tensor\[Int64\]\}, but got "
                                        r"Tensor\[Int32\]"):
        _ = _coo([[0, 1]], [1.]) + _coo([[0, 2]], [1.])


def test_csr_operators():
    a = CSRTensor(Tensor([0, 2, 3], ms.int32), Tensor([0, 3, 1], ms.int32), Tensor([1., 2., 3.]), (2, 4))
    b = CSRTensor(Tensor([0, 1, 2], ms.int32), Tensor([3, 0], ms.int32), Tensor([10., 20.]), (2, 4))
    assert (-a).values.tolist() == [-1.0, -2.0, -3.0]
    s = a + b
    assert s.indptr.tolist() == [0, 2, 4] and s.indices.tolist() == [0, 3, 0, 1]
    assert s.values.tolist() == [1.0, 12.0, 20.0, 3.0]
    assert (a - b).to_dense().tolist() == [[1.0, 0.0, 0.0, -8.0], [-20.0, 3.0, 0.0, 0.0]]
    assert a.add(b, Tensor(2.0), Tensor(0.5)).values.tolist() == [2.0, 9.0, 10.0, 6.0]
    with pytest.raises(TypeError, match="CSRTensor add with"):
        _ = a + Tensor(np.ones((2, 4), np.float32))


def test_constructor_checks_as_mindspore():
    with pytest.raises(ValueError, match=r"For CSRTensor, indices and values must equal in their shape, but got "
                                         r"indices shape: 2, values shape: 3\."):
        CSRTensor(Tensor([0, 1, 2]), Tensor([0, 1]), Tensor([1., 2., 3.]), (2, 4))
    with pytest.raises(ValueError, match=r"indptr must have length \(1 \+ shape\[0\]\), but got: 3"):
        CSRTensor(Tensor([0, 1, 2]), Tensor([0, 1]), Tensor([1., 2.]), (3, 4))
    with pytest.raises(TypeError, match="For CSRTensor, indptr must have int16 or int32 or int64 data type"):
        CSRTensor(Tensor([0., 1., 2.]), Tensor([0, 1]), Tensor([1., 2.]), (2, 4))
    with pytest.raises(TypeError, match="For SparseTensors, 'shape' must be tuple"):
        COOTensor(Tensor([[0, 1]]), Tensor([1.]), [2, 2])
    with pytest.raises(TypeError, match=r"the type of 'indices' must be one of \[int16, int32, int64\]"):
        COOTensor(Tensor([[0., 1.]]), Tensor([1.]), (2, 2))
    copy = COOTensor(coo_tensor=_coo([[0, 1]], [4.]))
    assert copy.to_dense().asnumpy()[0, 1] == 4.0
    with pytest.raises(TypeError, match="should all be `None`"):
        COOTensor(Tensor([[0, 1]]), coo_tensor=copy)
