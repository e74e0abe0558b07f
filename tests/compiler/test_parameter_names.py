"""Parameter names a graph requires to be unique (MindSpore's rules, checked against MindSpore 2.10).

A cell's lists and tuples of Parameters hold unique names (ValueError when assigned). In a graph, a Parameter
read from outside the compiled cell's own Parameters (a global, a cell kept in a Python list, a ParameterTuple
item the cell no longer holds under that name) must not share its name with another Parameter the graph reads
(RuntimeError); the cell's own Parameters may share names.
"""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, ParameterTuple, Tensor, nn


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _p(name, v=1.0):
    return Parameter(Tensor(np.array([v], np.float32)), name=name)


def test_a_cells_tuples_and_lists_of_parameters_have_unique_names():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.tup = (_p("a"), _p("b"))
            self.lst = [_p("a"), _p("c")]

    with pytest.raises(ValueError, match="its name 'a' already exists. Please set a unique name"):
        Net()

    class Same(nn.Cell):
        def __init__(self):
            super().__init__()
            shared = _p("a")
            self.tup = (shared, _p("b"))
            self.lst = [shared, _p("c")]      # the same object twice is fine

    net = Same()
    assert [p.name for p in net.lst] == ["a", "c"]


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.param = _p("name_a")

    def construct(self, x):
        return x + self.param


def test_parameter_tuples_of_two_cells_with_the_same_names(graph_mode):
    class Out(nn.Cell):
        def __init__(self, n1, n2):
            super().__init__()
            self.p1 = ParameterTuple(n1.get_parameters())
            self.p2 = ParameterTuple(n2.get_parameters())

        def construct(self, x):
            return x + self.p1[0] + self.p2[0]

    with pytest.raises(RuntimeError, match="its name 'name_a' already exists. Please set a unique name"):
        Out(Inner(), Inner())(Tensor(np.array([1.0], np.float32)))


def test_cells_in_a_python_list_keep_their_names_and_clash(graph_mode):
    class Listed(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = [Inner(), Inner()]

        def construct(self, x):
            return self.inner[0](x) + self.inner[1](x)

    with pytest.raises(RuntimeError, match="its name 'name_a' already exists"):
        Listed()(Tensor(np.array([1.0], np.float32)))


def test_a_cells_own_parameters_and_children_may_share_names(graph_mode):
    class Own(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = _p("q", 1.0)
            self.b = _p("q", 2.0)
            self.t = ParameterTuple([_p("r", 3.0)])
            self.n1, self.n2 = Inner(), Inner()        # children: named n1.param, n2.param

        def construct(self, x):
            return x + self.a + self.b + self.t[0] + self.n1(x) + self.n2(x)

    out = Own()(Tensor(np.array([1.0], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [1 + 1 + 2 + 3 + 2 + 2])
