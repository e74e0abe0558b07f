"""Argument names MindSpore 2.10 gives these functions and methods (callers pass them by keyword)."""
import numpy as np

import mindseed as ms
from mindseed import ops

X = ms.Tensor(np.array([[1.0, -2.0], [3.0, 4.0]], np.float32))


def test_functional_keywords():
    assert ops.transpose(X, dims=(1, 0)).asnumpy().tolist() == [[1.0, 3.0], [-2.0, 4.0]]
    assert ops.permute(X, axis=(1, 0)).asnumpy().tolist() == [[1.0, 3.0], [-2.0, 4.0]]
    assert ops.row_stack(tensors=[X, X]).shape == (4, 2)
    assert ops.true_divide(dividend=X, divisor=X).asnumpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert ops.tensor_div(x=X, y=X * 2).asnumpy().tolist() == [[0.5, 0.5], [0.5, 0.5]]


def test_relu_inplace_writes_the_input():
    y = X.copy()
    out = ops.relu(y, inplace=True)
    assert y.asnumpy().tolist() == [[1.0, 0.0], [3.0, 4.0]] and out.asnumpy().tolist() == y.asnumpy().tolist()
    assert X.asnumpy().tolist() == [[1.0, -2.0], [3.0, 4.0]]


def test_tensor_method_keywords():
    assert X.multiply(value=X).asnumpy().tolist() == [[1.0, 4.0], [9.0, 16.0]]
    assert X.float_power(other=2).asnumpy().tolist() == [[1.0, 4.0], [9.0, 16.0]]
    assert X.approximate_equal(other=X + 1e-6).asnumpy().all()


def test_inner_helpers_take_mindspores_keywords():
    assert ops.mixed_precision_cast(dst_dtype=ms.float16, x=(X, 3))[0].dtype == ms.float16
    assert ops.constexpr(name="three")(lambda: 3)() == 3
