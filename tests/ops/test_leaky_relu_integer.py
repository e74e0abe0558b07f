import numpy as np

import mindseed as ms
from mindseed import nn, ops


def test_leaky_relu_integer_input_casts_alpha_to_its_dtype():
    x = np.array([[1, -2, 3], [-7, 0, 5]], np.int32)
    # alpha 0.1 truncates to 0: max(0 * x, x); alpha 2.7 truncates to 2: min(2 * x, x) (values from MindSpore 2.10)
    out = ops.leaky_relu(ms.Tensor(x), 0.1)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [[1, 0, 3], [0, 0, 5]])
    np.testing.assert_array_equal(ops.leaky_relu(ms.Tensor(x), 2.7).asnumpy(), [[1, -4, 3], [-14, 0, 5]])
    u = nn.LeakyReLU(0.1)(ms.Tensor(np.array([[1, 2, 3]], np.uint32)))
    assert u.dtype == ms.uint32 and u.asnumpy().tolist() == [[1, 2, 3]]


def test_leaky_relu_float_input_unchanged():
    x = np.array([1.5, -2.0, 0.0], np.float32)
    np.testing.assert_allclose(ops.leaky_relu(ms.Tensor(x), 0.2).asnumpy(), np.where(x > 0, x, 0.2 * x))
