"""A CellList or tuple of cells indexed by a tensor computed in the graph (a loop counter, an argmax): MindSpore's
Switch over the cells. The picked cell runs at run time; values and gradients are checked against PyNative and
float64 finite differences."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops
from mindseed.compiler.ir import IF


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Scale(nn.Cell):
    def __init__(self, w, name="w"):
        super().__init__()
        self.w = Parameter(Tensor(np.asarray(w, np.float64)), name=name)

    def construct(self, x):
        return ops.tanh(x * self.w)


class LoopOverList(nn.Cell):
    """for the cells in turn, picked by a loop counter that is a tensor: x = cells[i](x)."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([Scale([0.5, 1.0]), Scale([2.0, -1.0]), Scale([1.5, 0.3])])

    def construct(self, x, n):
        i = ops.zeros((), ms.int32)
        while i < n:
            x = self.layers[i](x)
            i += 1
        return x


def _loop_numpy(x, n, ws):
    for k in range(n):
        x = np.tanh(x * ws[k])
    return x


WS = [np.array([0.5, 1.0]), np.array([2.0, -1.0]), np.array([1.5, 0.3])]


@pytest.mark.parametrize("n", [3, 2, 0])
def test_a_cell_list_indexed_by_a_loop_counter(graph_mode, n):
    net = LoopOverList()
    x = np.array([0.3, -0.7])
    out = net(Tensor(x), Tensor(n, ms.int32))
    np.testing.assert_allclose(out.asnumpy(), _loop_numpy(x, n, WS), rtol=1e-12)
    # the same compiled graph serves the other trip counts
    out = net(Tensor(x), Tensor(1, ms.int32))
    np.testing.assert_allclose(out.asnumpy(), _loop_numpy(x, 1, WS), rtol=1e-12)


def test_the_gradient_flows_through_the_cell_the_index_picks(graph_mode):
    net = LoopOverList()
    x = np.array([0.3, -0.7])
    g = ms.grad(net)(Tensor(x), Tensor(3, ms.int32))
    eps = 1e-6
    want = np.array([(_loop_numpy(x + eps * e, 3, WS) - _loop_numpy(x - eps * e, 3, WS)).sum() / (2 * eps)
                     for e in np.eye(2)])
    np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-6)


class PickByArgmax(nn.Cell):
    def __init__(self):
        super().__init__()
        # a tuple does not make its cells children (their Parameters keep their names): named apart
        self.branches = (Scale([1.0, 2.0], "w1"), Scale([-1.0, 0.5], "w2"))

    def construct(self, x, y):
        return self.branches[ops.argmax(y).astype(ms.int32)](x)


def test_a_tuple_of_cells_indexed_by_an_argmax_is_one_graph(graph_mode):
    net = PickByArgmax()
    x = np.array([0.2, 0.4])
    for y, k in (([1.0, 3.0], 1), ([5.0, 3.0], 0)):
        out = net(Tensor(x), Tensor(np.array(y)))
        np.testing.assert_allclose(out.asnumpy(), np.tanh(x * WS_PICK[k]), rtol=1e-12)
    graph = net.__dict__["_ms_compiled"].graphs()
    assert len(graph) == 1
    assert any(node.prim is IF for node in graph[0].nodes)


WS_PICK = [np.array([1.0, 2.0]), np.array([-1.0, 0.5])]


def test_a_negative_index_counts_from_the_end(graph_mode):
    net = PickByArgmax()

    class Neg(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = net

        def construct(self, x, y):
            return self.inner.branches[ops.argmax(y).astype(ms.int32) - 2](x)

    x = np.array([0.2, 0.4])
    out = Neg()(Tensor(x), Tensor(np.array([0.0, 1.0])))       # argmax 1 - 2 = -1: the last cell
    np.testing.assert_allclose(out.asnumpy(), np.tanh(x * WS_PICK[1]), rtol=1e-12)


def test_the_index_must_be_int32(graph_mode):
    class Int64Index(nn.Cell):
        def __init__(self):
            super().__init__()
            self.branches = (Scale([1.0, 2.0], "w1"), Scale([-1.0, 0.5], "w2"))

        def construct(self, x, y):
            return self.branches[ops.argmax(y)](x)

    with pytest.raises(ValueError, match="switch_layer index must be an int32, but got Int64"):
        Int64Index()(Tensor(np.array([0.2, 0.4])), Tensor(np.array([0.0, 1.0])))
