"""The exception type and message a user sees for common mistakes, as MindSpore 2.10 (CPU) raises them."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from _harness import ErrorSpec, make_error_tests

_X23, _X45 = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((4, 5), np.float32))

ERRORS = [
    # the Primitive class checks shapes in its inference: a ValueError; ops.matmul's kernel: a RuntimeError
    ErrorSpec("MatMul_class", lambda: ops.MatMul()(_X23, _X45), ValueError,
              "For 'MatMul' the input dimensions must be equal, but got 'x1_col': 3 and 'x2_row': 4."),
    ErrorSpec("BatchMatMul_class", lambda: ops.BatchMatMul()(ops.ones((2, 2, 3)), ops.ones((2, 4, 3))), ValueError,
              "For 'BatchMatMul' the input dimensions must be equal, but got 'x1_col': 3 and 'x2_row': 4."),
    ErrorSpec("matmul_function", lambda: ops.matmul(_X23, _X45), RuntimeError,
              "For 'MatMulExt' op, shape1[-1] must be equal to shape2[-2], but got 3 and 4."),
    ErrorSpec("Dense_in_channels", lambda: nn.Dense(4, 2)(_X23), ValueError, "'x1_col': 3 and 'x2_row': 4"),
    ErrorSpec("softmax_axis", lambda: ops.softmax(_X23, axis=4), ValueError, "the 'axis' must be in range [-2, 2)"),
    ErrorSpec("Softmax_cell_axis", lambda: nn.Softmax(axis=3)(_X23), ValueError, "but got 3."),
]
test_bad_input = make_error_tests(ERRORS)


def test_matmul_class_computes_when_shapes_agree():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(ops.MatMul()(ms.Tensor(x), ms.Tensor(y)).asnumpy(), x @ y)
    np.testing.assert_allclose(ops.MatMul(transpose_b=True)(ms.Tensor(x), ms.Tensor(y.T)).asnumpy(), x @ y)


@pytest.mark.parametrize("axis", [-2, -1, 0, 1])
def test_softmax_axis_in_range_still_computes(axis):
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], np.float32)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    np.testing.assert_allclose(ops.softmax(ms.Tensor(x), axis).asnumpy(), e / e.sum(axis=axis, keepdims=True),
                               rtol=1e-6)
