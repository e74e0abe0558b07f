"""Gradients of graph control flow: While differentiated by a saved-values backward While, If by an If.

Every gradient is compared with float64 central finite differences of the PyNative function.
"""
import time

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.compiler.ir import IF, WHILE


def t(a, dtype=np.float64):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def _count(graph, name):
    n = 0
    for node in graph.nodes:
        n += node.prim.name == name
        for g in node.subgraphs():
            n += _count(g, name)
    return n


def _whiles(graph, depth=0):
    """(depth, While node) for every While, depth = number of enclosing While bodies."""
    found = []
    for node in graph.nodes:
        if node.prim is WHILE:
            found.append((depth, node))
        for g in node.subgraphs():
            found += _whiles(g, depth + (node.prim is WHILE))
    return found


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp.flat[i] += eps
        xm.flat[i] -= eps
        g.flat[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def _check_grads(fn, arrays, extra=(), rtol=1e-5, atol=1e-6):
    """Compiled ms.grad of fn w.r.t. every array argument vs finite differences; returns the jitted grad fn."""
    positions = tuple(range(len(arrays)))
    gfn = ms.jit(lambda *a: ms.grad(fn, positions)(*a))
    got = gfn(*[t(a) for a in arrays], *extra)
    assert len(gfn.graphs()) == 1, "compiled, not run in the interpreter"
    got = got if isinstance(got, tuple) else (got,)
    for k, a in enumerate(arrays):
        def f_k(v, _k=k):
            args = [t(b) for b in arrays]
            args[_k] = t(v)
            return float(fn(*args, *extra).asnumpy())
        np.testing.assert_allclose(got[k].asnumpy(), _fd(f_k, np.asarray(a, np.float64)), rtol=rtol, atol=atol)
    return gfn


# ---------------------------------------------------------------- programs
def counted(x, w, n):
    i = 0
    while i < n:
        x = ops.sin(x * w) + x
        i = i + 1
    return (x * x).sum()


def until(x, w):
    while x.sum() < 30:
        x = x * w + ops.sin(x)
    return (x * x).sum()


def nested(x, w, n):
    i = 0
    while i < n:
        j = 0
        while j < i + 1:
            x = x * w + ops.cos(x) * 0.1
            j = j + 1
        i = i + 1
    return (x * x).sum()


def with_break(x, w):
    i = 0
    while i < 10:
        x = ops.sin(x) * w + x
        if x.sum() > 3:
            break
        i = i + 1
    return (x * x).sum()


def with_continue(x, w, n):
    i = 0
    while i < n:
        i = i + 1
        if (x * w).sum() > 2.0:
            x = x * 0.5
            continue
        x = x * w + 0.1
    return (x * x).sum()


def if_inside_while(x, w):
    k = 0
    while k < 6:
        if (x * w).sum() > 1:
            x = x * w - ops.exp(x) * 0.05
        else:
            x = x + w * w
        k = k + 1
    return (x * x * x).sum()


def early_return(x, w, n):
    i = 0
    while i < n:
        x = x * w + 0.1
        i = i + 1
    if x.sum() > 2:
        return x.sum() * 2
    x = ops.exp(x) * w
    return (x * x).sum()


def for_tensor_range(x, w, n):
    for _ in range(n):
        x = ops.tanh(x * w) + x * 0.5
    return (x * x).sum()


@pytest.mark.parametrize("fn,arrays,extra", [
    (counted, ([0.3, 0.2], [0.5, -0.4]), (ms.Tensor(7),)),
    (until, ([1.0, 2.0], [1.5, 2.0]), ()),
    (until, ([2.0, 0.5], [1.3, 1.6]), ()),
    (nested, ([0.3, -0.2], [0.9, 1.1]), (ms.Tensor(3),)),
    (with_break, ([0.3, 0.2], [1.2, 1.4]), ()),      # breaks early
    (with_break, ([0.01, 0.02], [0.1, 0.1]), ()),     # runs all 10 iterations
    (with_continue, ([0.3, 0.4], [1.6, 1.9]), (ms.Tensor(6),)),
    (if_inside_while, ([0.3, 0.4], [1.2, 0.9]), ()),
    (if_inside_while, ([-0.3, 0.1], [0.2, 0.3]), ()),
    (early_return, ([0.5, 0.6], [1.7, 1.9]), (ms.Tensor(3),)),   # returns early
    (early_return, ([0.1, 0.2], [0.9, 0.8]), (ms.Tensor(4),)),   # runs to the end
    (for_tensor_range, ([0.3, -0.6], [1.3, 0.7]), (ms.Tensor(5),)),
])
def test_loop_gradients_match_finite_differences(fn, arrays, extra):
    _check_grads(fn, arrays, extra)


def test_loop_gradient_ir_size_does_not_depend_on_iterations():
    sizes, texts = [], []
    for n in (5, 50):
        g = ms.jit(lambda a, b, k: ms.grad(counted, (0, 1))(a, b, k))
        g(t([0.3, 0.2]), t([0.5, -0.4]), ms.Tensor(n))
        (graph,) = g.graphs()
        sizes.append(graph.size())
        texts.append(str(graph))
    assert sizes[0] == sizes[1]
    assert len(texts[0].splitlines()) == len(texts[1].splitlines())


def test_backward_loop_reads_saved_values_instead_of_recomputing():
    g = ms.jit(lambda a, b, k: ms.grad(counted, (0, 1))(a, b, k))
    g(t([0.3, 0.2]), t([0.5, -0.4]), ms.Tensor(5))
    (graph,) = g.graphs()
    loops = _whiles(graph)
    # the forward loop and the backward loop, side by side; no loop nested in the backward body
    assert [d for d, _ in loops] == [0, 0]
    assert _count(graph, "StackPush") == 1 and _count(graph, "StackGet") == 1
    assert "Stack[]" in str(graph)


def test_backward_time_is_linear_in_the_trip_count():
    x, w = t([0.3, 0.2]), t([0.5, -0.4])
    g = ms.jit(lambda a, b, k: ms.grad(counted, (0, 1))(a, b, k))
    g(x, w, ms.Tensor(10))                          # compile
    start = time.perf_counter()
    got = g(x, w, ms.Tensor(400))
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0                            # quadratic recompute would run 80k body iterations
    want = ms.grad(counted, (0, 1))(x, w, 400)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-9, atol=1e-12)


def test_the_same_compiled_gradient_serves_other_trip_counts():
    g = ms.jit(lambda a, b: ms.grad(until, (0, 1))(a, b))
    for x0 in ([1.0, 2.0], [0.01, 0.02], [40.0, 1.0]):     # ~3 iterations, ~12 iterations, none
        got = g(t(x0), t([1.5, 2.0]))
        want = ms.grad(until, (0, 1))(t(x0), t([1.5, 2.0]))
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-10)
    assert len(g.graphs()) == 1


# ---------------------------------------------------------------- loops calling Cells, weights
class Step(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(t([[0.6, -0.2], [0.3, 0.8]]), name="w")
        self.b = ms.Parameter(t([0.1, -0.1]), name="b")

    def construct(self, x):
        return ops.tanh(ops.matmul(x, self.w) + self.b)


class Recurrent(nn.Cell):
    def __init__(self):
        super().__init__()
        self.step = Step()

    def construct(self, x, n):
        h = x
        i = 0
        while i < n:
            h = self.step(h) + x * 0.5
            i = i + 1
        return (h * h).sum()


def test_loop_calling_a_cell_weight_gradients_match_finite_differences():
    net = Recurrent()
    params = net.trainable_params()
    x, n = t([[0.4, -0.7]]), ms.Tensor(4)

    def step(xx, nn_):
        return ms.value_and_grad(net, 0, params)(xx, nn_)
    jstep = ms.jit(step)
    loss, (gx, (gw, gb)) = jstep(x, n)
    np.testing.assert_allclose(loss.asnumpy(), net(x, n).asnumpy(), rtol=1e-12)
    for p, g in zip(params, (gw, gb)):
        base = p.asnumpy().copy()

        def f(v, _p=p):
            _p.set_data(t(v))
            return float(net(x, n).asnumpy())
        fd = _fd(f, base)
        p.set_data(t(base))
        np.testing.assert_allclose(g.asnumpy(), fd, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gx.asnumpy(), _fd(lambda v: float(net(t(v), n).asnumpy()), x.asnumpy()),
                               rtol=1e-5, atol=1e-7)
    # in GRAPH_MODE the whole value_and_grad of the cell compiles to the same numbers
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        class TrainStep(nn.Cell):
            def __init__(self, net):
                super().__init__()
                self.net = net
                self.params = net.trainable_params()

            def construct(self, xx, nn_):
                return ms.value_and_grad(self.net, None, self.params)(xx, nn_)
        loss2, (gw2, gb2) = TrainStep(net)(x, n)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(loss2.asnumpy(), loss.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(gw2.asnumpy(), gw.asnumpy(), rtol=1e-12)
    np.testing.assert_allclose(gb2.asnumpy(), gb.asnumpy(), rtol=1e-12)


# ---------------------------------------------------------------- higher order
def loop_then_if(x, n):
    i = 0
    while i < n:
        x = ops.sin(x) * 1.3 + x * 0.2
        i = i + 1
    if x.sum() > 0:
        y = x * x * x
    else:
        y = ops.exp(x)
    return y.sum()


@pytest.mark.parametrize("x0", [[0.4, 0.7], [-0.5, -0.9]])
def test_grad_of_grad_through_while_and_if_compiled(x0):
    n = ms.Tensor(3)

    def first(x, k):
        return ms.grad(loop_then_if)(x, k).sum()
    d2 = ms.jit(lambda x, k: ms.grad(first)(x, k))
    got = d2(t(x0), n).asnumpy()
    fd = _fd(lambda v: float(first(t(v), n).asnumpy()), np.asarray(x0, np.float64))
    np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got, ms.grad(first)(t(x0), n).asnumpy(), rtol=1e-10)
    (graph,) = d2.graphs()
    assert _count(graph, "If") >= 2 and _count(graph, "While") >= 2


def test_grad_of_grad_through_a_tensor_condition_loop():
    def first(x, w):
        return ms.grad(until, 0)(x, w).sum()
    d2 = ms.jit(lambda x, w: ms.grad(first, (0, 1))(x, w))
    x, w = np.array([1.0, 2.0]), np.array([1.5, 2.0])
    gx, gw = d2(t(x), t(w))
    np.testing.assert_allclose(gx.asnumpy(), _fd(lambda v: float(first(t(v), t(w)).asnumpy()), x), rtol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), _fd(lambda v: float(first(t(x), t(v)).asnumpy()), w), rtol=1e-5)


def test_if_gradient_is_an_if_in_the_graph():
    def f(x, w):
        if (x * w).sum() > 0:
            y = ops.exp(x * w) * w
        else:
            y = x * w * w
        return y.sum()
    g = _check_grads(f, ([0.3, 0.2], [1.5, -0.5]))
    (graph,) = g.graphs()
    # the backward If re-runs the branch it differentiates; the forward If, whose value the gradient does not
    # return, is dead code and goes
    assert _count(graph, "If") == 1
    # the compiled graph takes the other branch (forward and backward) at run time
    x, w = t([-0.3, -0.2]), t([1.5, 0.5])
    for a, b in zip(g(x, w), ms.grad(f, (0, 1))(x, w)):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-12)


def test_loop_with_integer_state_only_has_no_gradient_machinery():
    def f(x, n):
        i = 0
        while i < n:
            i = i + 1
        return x * i
    g = ms.jit(lambda x, n: ms.grad(f)(x, n))
    np.testing.assert_allclose(g(t([1.0, 2.0]), ms.Tensor(3)).asnumpy(), [3.0, 3.0])
    (graph,) = g.graphs()
    assert _count(graph, "StackNew") == 0 and _count(graph, "While") == 1
    assert _count(graph, "If") == 0 and IF.name == "If"


@pytest.mark.parametrize("dtype", [ms.int32, ms.float32])
def test_integer_inputs_read_by_a_loop_from_a_constant_start_get_gradients(dtype):
    # `out` starts as a constant nobody differentiates; the body adds x * y to it: MindSpore gives integer inputs
    # their gradients (n * y, n * x) through the loop, as it does floats
    zero = ms.Tensor(0, dtype)

    def f(x, y):
        i = ms.Tensor(0, ms.int32)
        out = zero
        while i < 4:
            out = x * y + out
            i = i + 1
        return out

    gx, gy = ms.jit(ms.ops.GradOperation(get_all=True)(f))(ms.Tensor(2, dtype), ms.Tensor(3, dtype))
    assert (float(gx), float(gy)) == (12.0, 8.0) and gx.dtype == dtype


def test_a_value_returned_from_inside_a_loop_carries_an_integer_gradient():
    # the returned value starts as a zero nobody differentiates and takes x's value in the loop: MindSpore gives
    # integer inputs integer gradients through it (d(x + 1)/dx = 1), as it does for floats
    @ms.jit
    def f(x):
        while x < 5:
            x += 1
            if x > 2:
                return x * 3
        return x

    assert int(ms.ops.GradOperation()(f)(ms.Tensor(1))) == 3
    assert float(ms.ops.GradOperation()(f)(ms.Tensor(1.0))) == 3.0
    assert int(ms.ops.GradOperation()(f)(ms.Tensor(7))) == 1


def test_an_integer_accumulator_of_free_integer_inputs_carries_their_gradients():
    # `out` starts as an integer constant nobody differentiates and the loop adds x * y to it: the gradients of
    # the integer inputs x and y, read only through the closure, are y and x times the trip count
    @ms.jit
    def f(x, y):
        i = ms.Tensor(0, ms.int32)
        out = ms.Tensor(0, ms.int32)
        while i < 10:
            out = x * y + out
            i = i + 1
        return out

    grads = ms.ops.GradOperation(get_all=True)(f)(ms.Tensor(1, ms.int32), ms.Tensor(3, ms.int32))
    assert [g.dtype for g in grads] == [ms.int32, ms.int32]
    assert [int(g) for g in grads] == [30, 10]


def test_a_float_input_read_only_by_the_loop_condition_gets_a_zero_gradient():
    @ms.jit
    def f(x, n):
        i = ms.Tensor(0, ms.int32)
        while i < n:
            i = i + 1
        return x * 2.0

    gx, gn = ms.ops.GradOperation(get_all=True)(f)(ms.Tensor(1.5), ms.Tensor(3.0))
    assert float(gx) == 2.0 and float(gn) == 0.0
