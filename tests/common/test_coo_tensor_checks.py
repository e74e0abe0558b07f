"""COOTensor's checks of its indices, values and dense shape, in PyNative and inside a graph."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import COOTensor, Tensor, nn


def _coo(indices, shape, values=(100.0, 200.0)):
    return COOTensor(Tensor(np.array(indices, np.int32)), Tensor(np.array(values, np.float32)), shape)


def test_coo_tensor_shape_checks():
    c = _coo([[0, 1], [1, 0]], (2, 2))
    np.testing.assert_array_equal(c.to_dense().asnumpy(), [[0, 100], [200, 0]])
    with pytest.raises(ValueError, match="'indices.shape\\[1\\]' must be 2, but got 3"):
        _coo([[0, 0, 0], [0, 0, 1]], (2, 2))
    with pytest.raises(ValueError, match="the length of 'shape' must be 2, but got \\(2, 2, 2\\)"):
        _coo([[0, 0], [0, 1]], (2, 2, 2))
    with pytest.raises(ValueError, match="element of 'shape' must be positive"):
        _coo([[0, 0], [0, 1]], (2, 0))
    with pytest.raises(ValueError, match="shape is too small"):
        _coo([[0, 0], [0, 1], [1, 1]], (1, 2), values=(1.0, 2.0, 3.0))
    with pytest.raises(TypeError, match="type of 'indices' must be one of"):
        COOTensor(Tensor(np.array([[0, 1]], np.float32)), Tensor(np.array([1.0], np.float32)), (2, 2))


class _Make(nn.Cell):
    def __init__(self, shape):
        super().__init__()
        self.shape = shape

    def construct(self, indices, values):
        return COOTensor(indices, values, self.shape)


def test_coo_tensor_checks_in_a_graph():
    values = Tensor(np.array([100.0, 200.0], np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ValueError, match="must be 2"):
            _Make((2, 2))(Tensor(np.array([[0, 0, 0], [0, 0, 1]], np.int32)), values)
        # a dense shape whose length is not the indices' width: MindSpore's MakeCOOTensor raises TypeError
        with pytest.raises(TypeError, match="must be equal to the second dimension of `indices`"):
            _Make((2, 2, 2))(Tensor(np.array([[0, 0], [0, 1]], np.int32)), values)
        out = _Make((2, 2))(Tensor(np.array([[0, 1], [1, 0]], np.int32)), values)
        np.testing.assert_array_equal(out.to_dense().asnumpy(), [[0, 100], [200, 0]])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
