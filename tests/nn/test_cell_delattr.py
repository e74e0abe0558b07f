import numpy as np
import pytest

import mindseed as ms
from mindseed import nn


class _Leaf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="weight")

    def construct(self, x):
        return x * self.weight


class _Tree(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = _Leaf()
        self.b = _Leaf()

    def construct(self, x):
        return self.b(self.a(x))


def test_del_removes_cells_and_parameters_and_missing_names_raise():
    net = _Tree()
    assert len(net.parameters_dict()) == 2
    del net.a
    assert list(net.parameters_dict()) == ["b.weight"]
    with pytest.raises(AttributeError):
        del net.a
    with pytest.raises(AttributeError):
        del net.nothing
    del net.b.weight
    assert len(net.parameters_dict()) == 0
    net.c = None
    del net.c
    np.testing.assert_array_equal(_Tree()(ms.Tensor(np.array([2.0, 3.0], np.float32))).asnumpy(), [2.0, 3.0])


class _SameNames(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w2 = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="weight")
        self.w1 = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="weight")

    def construct(self, x):
        return x + self.w1 + self.w2


def test_check_names_rejects_duplicate_parameter_names_at_compile():
    from mindseed.common.api import _cell_graph_executor
    net = _SameNames()
    with pytest.raises(ValueError, match="its name 'weight' already exists"):
        net.check_names()
    with pytest.raises(ValueError, match="Please set a unique name for the parameter"):
        _cell_graph_executor.compile(net, ms.Tensor(np.zeros(2, np.float32)))
    _Tree().check_names()
