"""Cell buffers (`_Buffer` attributes, register_buffer, named_buffers, get_buffer) and get_sub_cell."""
import copy

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed.common.parameter import _Buffer
from _graph import graph_mode


def _t(*v):
    return ms.Tensor(np.array(v, np.float32))


class _Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = _Buffer(_t(1, 2, 3))
        self.register_buffer("shift", _t(3, 4, 5))
        self.w = ms.Parameter(_t(10, 20, 30))

    def construct(self, x):
        return (x + self.scale) * self.shift + self.w


class _Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = _Inner()
        self.offset = _Buffer(_t(6, 6, 6))
        self.register_buffer("count", _t(0), persistent=False)

    def construct(self, x):
        return self.inner(x) - self.offset


@pytest.mark.parametrize("graph", [False, True])
def test_buffers_are_state_not_parameters_and_read_in_construct(graph):
    net = _Outer()
    assert [n for n, _ in net.named_buffers()] == ["offset", "count", "inner.scale", "inner.shift"]
    assert [n for n, _ in net.parameters_and_names()] == ["inner.w"]
    np.testing.assert_array_equal(net.get_buffer("inner.shift").asnumpy(), [3, 4, 5])
    assert [n for n, _ in net.named_buffers(prefix="net", recurse=False)] == ["net.offset", "net.count"]
    x = _t(2, 2, 2)
    if graph:
        with graph_mode():
            out = net(x)
    else:
        out = net(x)
    np.testing.assert_allclose(out.asnumpy(), (2 + np.array([1, 2, 3])) * np.array([3, 4, 5]) + [10, 20, 30] - 6)
    assert net._non_persistent_buffers_set == {"count"}


def test_a_buffer_is_a_tensor_and_copies_deeply():
    b = _Buffer(_t(1, 2))
    assert isinstance(b, ms.Tensor) and isinstance(b, _Buffer) and b.asnumpy().tolist() == [1.0, 2.0]
    net = copy.deepcopy(_Outer())
    assert [n for n, _ in net.named_buffers()] == ["offset", "count", "inner.scale", "inner.shift"]
    assert isinstance(net.offset, _Buffer) and net._non_persistent_buffers_set == {"count"}


def test_buffer_errors_as_mindspore():
    net = _Inner()
    with pytest.raises(TypeError, match="buffer name should be a string"):
        net.register_buffer(2, _t(1))
    with pytest.raises(KeyError, match='contain "."'):
        net.register_buffer("a.b", _t(1))
    with pytest.raises(KeyError, match="attribute 'w' already exists"):
        net.register_buffer("w", _t(1))
    with pytest.raises(TypeError, match="cannot assign"):
        net.register_buffer("c", [1.0])
    with pytest.raises(AttributeError, match="has no attribute `nothing`"):
        net.get_buffer("nothing")
    with pytest.raises(AttributeError, match="`w` is not a buffer"):
        net.get_buffer("w")
    with pytest.raises(TypeError, match="Buffer 'shift' already exists"):
        net.shift = 3
    with pytest.raises(ValueError, match="should not be None"):
        _Buffer(None)
    with pytest.raises(TypeError, match="should be Tensor"):
        _Buffer([1.0])
    net.shift = None
    assert [n for n, _ in net.named_buffers()] == ["scale"]


def test_get_sub_cell_follows_the_dotted_path():
    net = _Outer()
    assert net.get_sub_cell("") is net and net.get_sub_cell("inner") is net.inner
    with pytest.raises(AttributeError, match="_Outer has no attribute `other`"):
        net.get_sub_cell("other")
    with pytest.raises(AttributeError, match="`offset` is not an nn.Cell"):
        net.get_sub_cell("offset")
