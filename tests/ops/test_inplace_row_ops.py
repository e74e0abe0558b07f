"""InplaceUpdate / InplaceAdd / InplaceSub (and ops.inplace_*, Tensor.inplace_update): MindSpore 2.10 returns a
new tensor and leaves the input unchanged, in PyNative, under jit and in graph mode."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn, ops
from mindseed.ops import operations as P

X = np.arange(8, dtype=np.float32).reshape(4, 2)
V = np.array([[10, 20], [30, 40]], np.float32)


def _expected(kind, rows):
    out = X.copy()
    for r, v in zip(rows, V):
        out[r] = v if kind == "update" else out[r] + v if kind == "add" else out[r] - v
    return out


@pytest.mark.parametrize("kind, prim", [("update", P.InplaceUpdate), ("add", P.InplaceAdd), ("sub", P.InplaceSub)])
def test_inplace_row_ops_leave_their_input(kind, prim):
    x = Tensor(X)
    out = prim((3, 0))(x, Tensor(V))
    np.testing.assert_array_equal(out.asnumpy(), _expected(kind, (3, 0)))
    np.testing.assert_array_equal(x.asnumpy(), X)
    out = getattr(ops, f"inplace_{kind}")(x, Tensor(V), (1, 2))
    np.testing.assert_array_equal(out.asnumpy(), _expected(kind, (1, 2)))
    np.testing.assert_array_equal(x.asnumpy(), X)


class _Sub(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = P.InplaceSub((0, 1))

    def construct(self, x, v):
        return self.op(x, v)


def test_inplace_sub_repeats_the_same_result_in_graph_mode():
    x, v = Tensor(X), Tensor(V)
    net = _Sub()
    first = ms.jit(net.construct)(x, v).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        second = _Sub()(x, v).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(first, _expected("sub", (0, 1)))
    np.testing.assert_array_equal(second, first)
    np.testing.assert_array_equal(x.asnumpy(), X)


def test_inplace_repeated_row_accumulates():
    out = P.InplaceAdd((1, 1))(Tensor(np.ones((3, 2), np.float32)), Tensor(V))
    np.testing.assert_array_equal(out.asnumpy(), [[1, 1], [41, 61], [1, 1]])


def test_tensor_inplace_update_returns_a_new_tensor():
    x = Tensor(X)
    out = x.inplace_update(Tensor(V[:1]), (2,))
    np.testing.assert_array_equal(out.asnumpy(), _expected("update", (2,)))
    np.testing.assert_array_equal(x.asnumpy(), X)
