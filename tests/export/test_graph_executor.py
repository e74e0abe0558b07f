"""mindspore.common.api._cell_graph_executor: compile(net, *inputs) as MindSpore's tests and tools call it, and
the serialized graph of what was compiled."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.common.api import _cell_graph_executor
from mindseed.export import _schema


class _Dense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc(x)


def test_compile_checks_any_network_and_keeps_its_graph():
    # a network whose output is no Tensor, or which leaves an input unread, compiles (MindSpore's compile check)
    class IsFloat(nn.Cell):
        def construct(self, x, unused):
            return ops.is_floating_point(x)
    key, ok = _cell_graph_executor.compile(IsFloat(), ms.Tensor([1.0]), ms.Tensor([2]))
    assert ok and key.startswith("predict.")
    net = _Dense()
    key, _ = _cell_graph_executor.compile(net, ms.Tensor(np.ones((4, 3), np.float32)), phase="export")
    assert _cell_graph_executor.has_compiled("export")
    proto = _cell_graph_executor._get_func_graph_proto(net, key, "mind_ir")
    model = _schema.ModelProto()
    model.ParseFromString(proto)
    assert any(p.name.endswith("fc.weight") for p in model.graph.parameter)


def test_compile_raises_for_a_network_that_cannot_run():
    with pytest.raises(ValueError, match="For 'MatMul'"):
        _cell_graph_executor.compile(_Dense(), ms.Tensor(np.ones((4, 5), np.float32)))
