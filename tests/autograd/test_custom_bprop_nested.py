"""A Cell bprop whose forward returns a nested tuple: `out` and `dout` reach the bprop with that structure."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn, ops


class _Relu(nn.Cell):
    def construct(self, x, y):
        return ops.relu(x)


class _Nested(nn.Cell):
    def __init__(self):
        super().__init__()
        self.f = _Relu()

    def construct(self, x, y):
        return self.f(x, y), ops.GradOperation(get_all=True)(self.f)(x, y)

    def bprop(self, x, y, out, dout):
        assert isinstance(out[1], tuple) and isinstance(dout[1], tuple)
        return out[1][0] * 3 + dout[0], dout[1][1]


class _Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.f = _Nested()

    def construct(self, x, y):
        return self.f(x, y)


def _run():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        x = Tensor(np.array([[1.0, -2.0], [3.0, 0.5]], np.float32))
        y = Tensor(np.ones([2, 2], np.float32))
        return ops.GradOperation(get_all=True)(_Outer())(x, y)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_nested_tuple_output_bprop_in_a_graph():
    # d relu(x)/dx = [[1, 0], [1, 1]]; out[1][0] * 3 + dout[0] (ones); dout[1][1] = ones (MindSpore 2.10 CPU)
    gx, gy = _run()
    np.testing.assert_allclose(gx.asnumpy(), [[4.0, 1.0], [4.0, 4.0]])
    np.testing.assert_allclose(gy.asnumpy(), np.ones([2, 2]))


class _BpropNotTuple(nn.Cell):
    def __init__(self, as_list):
        super().__init__()
        self.as_list = as_list

    def construct(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        return [dout * 3] if self.as_list else dout * 3


@pytest.mark.parametrize("as_list", [False, True])
def test_bprop_output_must_be_a_tuple_in_a_graph_only(as_list):
    x = Tensor(np.array([1.0, -2.0], np.float32))
    # PyNative takes a lone gradient or a list
    np.testing.assert_allclose(ops.GradOperation()(_BpropNotTuple(as_list))(x).asnumpy(), [3.0, 3.0])
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(TypeError, match="For bprop function, output should be a tuple"):
            ops.GradOperation()(_BpropNotTuple(as_list))(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
