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


class _Sharded(nn.Cell):
    def __init__(self, strategy):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.ones((16, 8), np.float32)), name="w")
        self.mm = ops.MatMul().shard(strategy)
        self.sort = ops.Sort(axis=0)

    def construct(self, x):
        y = self.mm(x, self.w)
        return self.sort(y)[0]


class _GradAll(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = ops.GradOperation(get_all=True)

    def construct(self, x):
        return self.grad(self.net)(x)


@pytest.mark.parametrize("strategy, match", [
    (((2, 4), (2, 1)), "the dims that MatMul matches must be cut into the same number of pieces, but got 4 and 2"),
    (((2, 4),), "must have one tuple per input tensor"),
    (((16, 1), (1, 1)), "uses 16 devices, which does not divide the device number 8"),
])
def test_compile_in_semi_auto_parallel_refuses_a_strategy_that_cannot_run(strategy, match):
    """MindSpore's compile plans a (semi-)auto-parallel network and raises RuntimeError for such a strategy; mindseed
    plans it on shapes only: the parameters are untouched."""
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=8, global_rank=0)
    try:
        net = _Sharded(strategy)
        x = ms.Tensor(np.ones((4, 16), np.float32))
        with pytest.raises(RuntimeError, match=match):
            _cell_graph_executor.compile(net, x)
        good = _Sharded(((2, 4), (4, 1)))
        step = nn.TrainOneStepCell(good, nn.Momentum(good.trainable_params(), 0.1, 0.9))
        assert _cell_graph_executor.compile(step, x)[1]
        np.testing.assert_array_equal(good.w.asnumpy(), np.ones((16, 8), np.float32))
        # a network computing gradients: its strategies hold
        assert _cell_graph_executor.compile(_GradAll(good), x)[1]
        sort_cut = _Sharded(((2, 4), (4, 1)))
        sort_cut.sort.shard(((2, 1),))
        with pytest.raises(RuntimeError, match="cuts dim 0 of input 0 .* which the operator needs whole"):
            _cell_graph_executor.compile(sort_cut, x)
    finally:
        ms.reset_auto_parallel_context()
    assert _cell_graph_executor.compile(_Sharded(((2, 4), (2, 1))), x)[1]     # stand-alone: strategies unused
