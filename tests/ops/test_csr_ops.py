"""mindspore.ops.operations._csr_ops: the CSR primitive classes over the CSRTensor functions (values by hand)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.ops.operations import _csr_ops as c

PTR, IDX = ms.Tensor([0, 1, 3], ms.int32), ms.Tensor([0, 1, 3], ms.int32)
VALS, SHAPE = ms.Tensor([2.0, 3.0, 4.0], ms.float32), (2, 4)
DENSE = np.arange(8, dtype=np.float32).reshape(2, 4) + 1      # [[1, 2, 3, 4], [5, 6, 7, 8]]


def test_csr_classes_compute_over_the_parts():
    np.testing.assert_array_equal(c.CSRGather()(PTR, IDX, ms.Tensor(DENSE), SHAPE).asnumpy(), [1.0, 6.0, 8.0])
    np.testing.assert_array_equal(c.CSR2COO()(PTR, 3).asnumpy(), [0, 1, 1])
    np.testing.assert_array_equal(c.COO2CSR()(ms.Tensor([0, 1, 1], ms.int32), 2).asnumpy(), [0, 1, 3])
    np.testing.assert_array_equal(c.CSRMul()(PTR, IDX, VALS, SHAPE, ms.Tensor(DENSE)).asnumpy(), [2.0, 18.0, 32.0])
    np.testing.assert_allclose(c.CSRDiv()(PTR, IDX, VALS, SHAPE, ms.Tensor(DENSE)).asnumpy(), [2.0, 0.5, 0.5])
    np.testing.assert_array_equal(c.CSRMV()(PTR, IDX, VALS, SHAPE, ms.Tensor(np.ones((4, 1), np.float32)))
                                  .asnumpy(), [[2.0], [7.0]])
    np.testing.assert_array_equal(c.CSRReduceSum()(PTR, IDX, VALS, SHAPE, 0).asnumpy(), [[2.0, 3.0, 0.0, 4.0]])
    np.testing.assert_array_equal(c.CSRMM()(PTR, IDX, VALS, SHAPE, ms.Tensor(DENSE.T.copy())).asnumpy(),
                                  [[2.0, 10.0], [22.0, 50.0]])


def test_csr_classes_take_int32_indices():
    # MindSpore 2.10's message
    with pytest.raises(TypeError, match="The dtype of row_indices only support Int32 for now, but got Int64."):
        c.COO2CSR()(ms.Tensor([0, 1]), 2)
    with pytest.raises(TypeError, match="The dtype of Indptr only support Int32 for now, but got Int64."):
        c.CSRMV()(ms.Tensor([0, 1, 3]), IDX, VALS, SHAPE, ms.Tensor(np.ones((4, 1), np.float32)))
