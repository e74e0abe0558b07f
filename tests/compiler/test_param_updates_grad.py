"""Gradients of graphs that update Parameters: every value is its own (MindSpore's graph semantics).

`y = x * p` then `p -= 1` differentiates y at the old p; a loop updating p inside an `if` is differentiated at
the values p had in each iteration; a branch re-run for its gradient reads the Parameters as they were when it
ran. Expected numbers are the products of the Parameter values the forward run used (checked against
MindSpore 2.10's GRAPH_MODE) and float64 finite differences of the same computation in numpy.
"""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _p(value, name):
    return Parameter(Tensor(np.full((1,), value, np.float32)), name=name)


X = np.array([[1, -1, 2], [-2, 3, -3]], np.float32)


class ReadThenUpdate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = _p(5, "a")

    def construct(self, x):
        y = x * self.a
        self.a -= 1
        return y


def test_a_product_read_before_the_update_is_differentiated_at_the_old_value(graph_mode):
    net = ReadThenUpdate()
    for start in (5.0, 9.0):       # the compiling call, then the compiled code
        net.a.set_data(Tensor(np.full((1,), start, np.float32)))
        g = ms.grad(net)(Tensor(X))
        np.testing.assert_allclose(g.asnumpy(), np.full(X.shape, start))
        np.testing.assert_allclose(net.a.asnumpy(), [start - 1])      # one update per call


class LoopUpdatingInIf(nn.Cell):
    """while c < 10: (if a > 3: x = relu(x) * a; a -= 1); c += 1."""

    def __init__(self):
        super().__init__()
        self.a = _p(5, "a")
        self.b = _p(4, "b")
        self.c = _p(7, "c")

    def loop(self, x):
        while self.c < 10:
            if self.a > 3:
                x = ops.relu(x) * self.a
                self.a -= 1
            self.c += 1
        return x

    def construct(self, x):
        if self.a > self.b:
            if self.a < self.c:
                out = x * 2
            else:
                out = self.loop(x)
        else:
            out = x + 2
        return out


def _loop_numpy(x, a, c):
    """The same computation in numpy (float64): the forward value and the final Parameters."""
    while c < 10:
        if a > 3:
            x = np.maximum(x, 0) * a
            a -= 1
        c += 1
    return x, a, c


def _fd_sum(f, x, w, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp.flat[i] += eps
        xm.flat[i] -= eps
        g.flat[i] = ((f(xp) * w).sum() - (f(xm) * w).sum()) / (2 * eps)
    return g


@pytest.mark.parametrize("a0", [8.0, 9.0, 5.0])
def test_a_loop_updating_parameters_in_an_if_differentiates_each_iteration_at_its_values(graph_mode, a0):
    net = LoopUpdatingInIf()
    sens = np.array([[0.5, 1, 2], [1, -1, 3]], np.float32)
    grad = ms.grad(net)
    for _ in range(2):     # the compiling call, then the compiled code
        net.a.set_data(Tensor(np.full((1,), a0, np.float32)))
        net.c.set_data(Tensor(np.full((1,), 7, np.float32)))
        g = ms.grad(lambda x: net(x) * Tensor(sens))(Tensor(X)) if a0 == 5.0 else grad(Tensor(X))
        w = sens if a0 == 5.0 else np.ones_like(X)
        if a0 > 7:      # a > b and a >= c: the loop runs
            _, a_end, c_end = _loop_numpy(X.astype(np.float64), a0, 7.0)
            want = _fd_sum(lambda v: _loop_numpy(v, a0, 7.0)[0], X.astype(np.float64), w)
        else:           # a > b and a < c: x * 2, no update
            a_end, c_end = a0, 7.0
            want = 2 * w
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-5)
        np.testing.assert_allclose(net.a.asnumpy(), [a_end])
        np.testing.assert_allclose(net.c.asnumpy(), [c_end])
    if a0 == 8.0:
        # 8 * 7 * 6 where x > 0: each iteration's product is differentiated at that iteration's a
        np.testing.assert_allclose(g.asnumpy(), np.where(X > 0, 336.0, 0.0))


class BranchReadUpdatedAfter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = _p(3, "w")

    def construct(self, x):
        y = x * 2
        if x.sum() > 0:
            y = x * self.w
        ops.assign(self.w, self.w * 2)
        return y * self.w


def test_a_branch_re_run_for_its_gradient_reads_the_parameter_as_it_was(graph_mode):
    net = BranchReadUpdatedAfter()
    x = np.array([1.0, 2.0], np.float32)
    for _ in range(2):
        net.w.set_data(Tensor(np.full((1,), 3, np.float32)))
        g = ms.grad(net)(Tensor(x))
        np.testing.assert_allclose(g.asnumpy(), [18.0, 18.0])      # d(x * 3 * 6)/dx
        np.testing.assert_allclose(net.w.asnumpy(), [6.0])
    net.w.set_data(Tensor(np.full((1,), 3, np.float32)))
    g = ms.grad(net)(Tensor(-x))                                    # the other branch: x * 2 * 6
    np.testing.assert_allclose(g.asnumpy(), [12.0, 12.0])


def test_pynative_keeps_reading_the_live_parameter():
    # PyNative differentiates with the Parameter's current value, as MindSpore's PyNative does
    net = ReadThenUpdate()
    g = ms.grad(net)(Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), np.full(X.shape, 4.0))
