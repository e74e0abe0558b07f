"""nn.SparseToDense / nn.SparseTensorDenseMatmul cells, and MindSpore's metric module paths."""
import numpy as np

import mindseed as ms


def test_sparse_cells_match_dense_numpy_and_train_through_values():
    idx = ms.Tensor(np.array([[0, 1], [2, 0]]))
    vals = ms.Tensor(np.array([2.0, -1.0]))
    dense = np.zeros((3, 2))
    dense[[0, 2], [1, 0]] = [2.0, -1.0]
    np.testing.assert_array_equal(ms.nn.SparseToDense()(ms.COOTensor(idx, vals, (3, 2))).asnumpy(), dense)
    b = np.arange(8.0).reshape(2, 4)
    np.testing.assert_allclose(ms.nn.SparseTensorDenseMatmul()(idx, vals, (3, 2), ms.Tensor(b)).asnumpy(), dense @ b)
    np.testing.assert_allclose(ms.nn.SparseTensorDenseMatmul(adjoint_st=True)(idx, vals, (3, 2), ms.Tensor(
        np.ones((3, 1)))).asnumpy(), dense.T @ np.ones((3, 1)))
    g = ms.grad(lambda v: ms.nn.SparseTensorDenseMatmul()(idx, v, (3, 2), ms.Tensor(b)).sum())(vals)
    np.testing.assert_allclose(g.asnumpy(), [b[1].sum(), b[0].sum()])


def test_metric_modules_hold_the_same_classes():
    from mindseed.train.metrics.accuracy import Accuracy
    from mindseed.train.metrics.topk import Top5CategoricalAccuracy
    assert Accuracy is ms.train.Accuracy and Top5CategoricalAccuracy is ms.train.Top5CategoricalAccuracy
    assert ms.train.metrics.error.MAE is ms.train.MAE and ms.nn.metrics.Accuracy is ms.train.metrics.Accuracy
