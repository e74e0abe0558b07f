"""A tuple of cells indexed by a tensor inside a graph (MindSpore's switch_layer): the index is checked against the
tuple's length with MindSpore's IndexError."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn


class _Pick(nn.Cell):
    def __init__(self, i):
        super().__init__()
        self.layers = (nn.ReLU(), nn.Sigmoid())
        self.i = Tensor(i, ms.int32)

    def construct(self, x):
        return self.layers[self.i](x)


def test_switch_layer_index_in_and_out_of_range():
    x = np.array([-1.0, 0.5, 2.0], np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_allclose(_Pick(0)(Tensor(x)).asnumpy(), np.maximum(x, 0))
        np.testing.assert_allclose(_Pick(-1)(Tensor(x)).asnumpy(), 1 / (1 + np.exp(-x)), rtol=1e-6)
        with pytest.raises(IndexError, match="Given index -3 out of range. Please make sure the value of index in "
                                             "\\[-2, 2\\), and the type is int32"):
            _Pick(-3)(Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
