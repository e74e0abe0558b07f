"""vmap of a CellList (MindSpore's model ensembling): cell i runs on slice i of the mapped inputs, against numpy."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.ops import functional as F


class Scale(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.full((3,), k, np.float32)), name="w")

    def construct(self, x, y):
        return x * self.w + y


class Remember(nn.Cell):
    def __init__(self):
        super().__init__()
        self.seen = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="seen")

    def construct(self, x):
        x = x * 2
        ops.assign(self.seen, x)
        return self.seen + x


X = np.arange(9, dtype=np.float32).reshape(3, 3)
Y = np.ones(3, np.float32)
K = np.array([1.0, 2.0, 3.0], np.float32)


def _cells():
    return nn.CellList([Scale(k) for k in K])


def test_cell_i_takes_slice_i():
    x, y = ms.Tensor(X), ms.Tensor(Y)
    got = F.vmap(_cells(), (0, None))(x, y)
    np.testing.assert_allclose(got.asnumpy(), X * K[:, None] + Y)
    got = F.vmap(_cells(), (1, None), 1)(x, y)
    np.testing.assert_allclose(got.asnumpy(), (X.T * K[:, None] + Y).T)
    # nothing mapped: every cell sees the whole input, results stacked per cell
    got = F.vmap(_cells(), (None, None))(x, y)
    np.testing.assert_allclose(got.asnumpy(), X[None] * K[:, None, None] + Y)


def test_each_cell_updates_its_own_parameters_and_grad_flows():
    cells = nn.CellList([Remember() for _ in range(3)])
    x = ms.Tensor(X)
    np.testing.assert_allclose(F.vmap(cells)(x).asnumpy(), 4 * X)
    for i, cell in enumerate(cells):
        np.testing.assert_allclose(cell.seen.asnumpy(), 2 * X[i])
    # the assigned Parameter carries no gradient back to x: only the direct `+ x` term counts
    np.testing.assert_allclose(F.grad(F.vmap(cells))(x).asnumpy(), np.full((3, 3), 2.0))


def test_sizes_must_agree():
    x, y = ms.Tensor(X[:2]), ms.Tensor(Y)
    with pytest.raises(ValueError, match="axis_size: 2 and the cell size: 3"):
        F.vmap(_cells(), (0, None))(x, y)
    with pytest.raises(RuntimeError, match="must be greater than 1, but got 0"):
        F.vmap(nn.CellList([]))(x, y)


class _OneInput(nn.Cell):
    def construct(self, x):
        return x * 2


def test_cells_must_take_the_same_inputs():
    x = ms.Tensor(X[:2])
    with pytest.raises(RuntimeError, match="arg0 is a CellList, whose elements's inputs should be consistent."):
        F.vmap(nn.CellList([_OneInput(), Scale(1.0)]))(x)
    got = F.vmap(nn.CellList([_OneInput(), _OneInput()]))(x)
    np.testing.assert_allclose(got.asnumpy(), X[:2] * 2, rtol=1e-6)


def test_vmap_of_a_seeded_random_primitive_draws_as_the_batched_op():
    # MindSpore runs the random op once on the whole batch: each row gets its own draw of the op's stream, the same
    # rows the batched call gives (not one draw repeated per slice)
    from mindseed.ops import operations as P
    prob = ms.Tensor(np.array([[0.5, 0.5]] * 6 + [[0.2, 0.8]], np.float32))
    batched = P.Multinomial(seed=5, seed2=6)(prob, 4).asnumpy()
    mapped = ms.vmap(lambda p, n: P.Multinomial(seed=5, seed2=6)(p, n), in_axes=(0, None))(prob, 4).asnumpy()
    np.testing.assert_array_equal(mapped, batched)
    assert len({tuple(r) for r in mapped}) > 1
    # two seeded primitives in the function: each keeps its own stream across the slices
    pair = ms.vmap(lambda p: (P.Multinomial(seed=5, seed2=6)(p, 4), P.Multinomial(seed=7, seed2=1)(p, 4)))(prob)
    np.testing.assert_array_equal(pair[0].asnumpy(), batched)
    np.testing.assert_array_equal(pair[1].asnumpy(), P.Multinomial(seed=7, seed2=1)(prob, 4).asnumpy())
