"""A tuple of cells indexed by a tensor inside a graph (MindSpore's switch_layer): the index is checked against the
tuple's length with MindSpore's IndexError."""
import warnings

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


class _PickArg(nn.Cell):
    """The index is an input: one compiled graph serves every index, and checks each at run time."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.ReLU(), nn.Sigmoid(), nn.Tanh()])

    def construct(self, i, x):
        return self.layers[i](x) * 2


def test_switch_layer_index_checked_at_every_run_of_one_graph():
    x = np.array([-1.0, 0.5, 2.0], np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _PickArg()
        np.testing.assert_allclose(net(Tensor(0, ms.int32), Tensor(x)).asnumpy(), 2 * np.maximum(x, 0))
        np.testing.assert_allclose(net(Tensor(-1, ms.int32), Tensor(x)).asnumpy(), 2 * np.tanh(x), rtol=1e-6)
        np.testing.assert_allclose(net(Tensor(1, ms.int32), Tensor(x)).asnumpy(), 2 / (1 + np.exp(-x)), rtol=1e-6)
        for bad in (3, -4):
            with pytest.raises(IndexError, match=f"^Given index {bad} out of range. Please make sure the value of "
                                                 f"index in \\[-3, 3\\)"):
                net(Tensor(bad, ms.int32), Tensor(x))
        # an out-of-range index on the call that compiles the graph: the same error
        with pytest.raises(IndexError, match="^Given index 7 out of range"):
            _PickArg()(Tensor(7, ms.int32), Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_sequential_cell_index_must_be_int():
    seq = nn.SequentialCell([nn.ReLU(), nn.Tanh()])
    x = Tensor(np.array([-1.0, 2.0], np.float32))
    np.testing.assert_allclose(seq[-1](x).asnumpy(), np.tanh([-1.0, 2.0]), rtol=1e-6)
    for bad, name in ((1.0, "float"), ("0", "str"), (Tensor(0, ms.int32), "Tensor")):
        with pytest.raises(TypeError, match=f"For 'SequentialCell', the type of 'index' must be int, but got {name}"):
            seq[bad]
    with pytest.raises(IndexError, match=r"must be a number in range \[-2, 2\), but got 2"):
        seq[2]


class _Raises(nn.Cell):
    def construct(self, x):
        raise ValueError("picked the raising cell", x.shape)


class _PickOrRaise(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.ReLU(), _Raises()])

    def construct(self, i, x):
        return self.layers[i](x)


def test_switch_layer_with_a_cell_that_raises_compiles_the_raise():
    x = np.array([-1.0, 0.5, 2.0], np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _PickOrRaise()
        with warnings.catch_warnings():
            warnings.simplefilter("error")      # one graph, no JIT fallback
            np.testing.assert_allclose(net(Tensor(0, ms.int32), Tensor(x)).asnumpy(), np.maximum(x, 0))
        with pytest.raises(ValueError, match="picked the raising cell"):
            net(Tensor(1, ms.int32), Tensor(x))
        np.testing.assert_allclose(net(Tensor(-2, ms.int32), Tensor(x)).asnumpy(), np.maximum(x, 0))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_raise_in_a_branch_not_taken_raises_when_a_later_call_takes_it():
    @ms.jit
    def f(x, y):
        out = x * 2
        if y > x:
            out = x + y
        elif x == y:
            raise ValueError("equal inputs", 7)
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(f(Tensor([1.0]), Tensor([2.0])).asnumpy(), [3.0])
        np.testing.assert_allclose(f(Tensor([3.0]), Tensor([2.0])).asnumpy(), [6.0])
        with pytest.raises(ValueError, match="equal inputs"):
            f(Tensor([2.0]), Tensor([2.0]))
        # the gradient runs through the same If: d(x + y)/dx = 1, d(2x)/dx = 2
        g = ms.grad(f)
        np.testing.assert_allclose(g(Tensor([1.0]), Tensor([2.0])).asnumpy(), [1.0])
        np.testing.assert_allclose(g(Tensor([3.0]), Tensor([2.0])).asnumpy(), [2.0])
        with pytest.raises(ValueError, match="equal inputs"):
            g(Tensor([2.0]), Tensor([2.0]))


def test_raise_node_shape_rule_and_kernel():
    from mindseed.ops._prims.core import raise_p
    from mindseed.ops._prims.index_dyn import switch_index_p

    got = raise_p.abstract_eval(error=ValueError("no"), shape=(2, 3), dtype="Float32")
    assert (tuple(got.shape), got.dtype) == ((2, 3), "Float32")
    with pytest.raises(KeyError, match="the key"):      # the kernel a compiled graph calls raises the error itself
        raise_p.kernel(error=KeyError("the key"), shape=(), dtype="Int32")
    assert int(switch_index_p(Tensor(np.array(-1, np.int32)), n=3).asnumpy()) == 2
    with pytest.raises(IndexError, match=r"Given index 3 out of range"):
        switch_index_p.kernel(Tensor(np.array(3, np.int32))._data, n=3)
