"""Autodiff around and inside compiled functions: ms.grad of a jitted function differentiates its graph.

Differentiating a compiled function from PyNative traces one joint graph (forward + backward from the
bprop registry), splits it into a forward graph (outputs + residuals) and a backward graph, both generated
code and cached; the numbers equal PyNative's.
"""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.compiler.ir import WHILE


def t(a, dtype=np.float64):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def _close(got, want, rtol=1e-10, atol=1e-12):
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        if isinstance(a, (tuple, list)):
            _close(a, b, rtol, atol)
        else:
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=rtol, atol=atol)


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp.flat[i] += eps
        xm.flat[i] -= eps
        g.flat[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def _count(graph, name):
    n = 0
    for node in graph.nodes:
        n += node.prim.name == name
        for g in node.subgraphs():
            n += _count(g, name)
    return n


def _entry(jf):
    (entry,) = jf._grad_cache.values()
    assert entry is not None, "the gradient fell back to the interpreter"
    return entry


_runs = [0]


def loopy(x, w, n):
    _runs[0] += 1          # Python side effect: counts how often the Python function itself runs
    i = 0
    while i < n:
        x = ops.sin(x * w) + x
        i = i + 1
    if x.sum() > 0:
        y = x * w
    else:
        y = x * x
    return (y * y).sum()


# ---------------------------------------------------------------- grad of a jitted function
def test_grad_of_jitted_function_runs_compiled_graphs_and_matches_pynative():
    jf = ms.jit(loopy)
    x, w = t([0.3, 0.2]), t([0.5, -0.4])
    runs = []
    for n in (3, 7, 0):
        before = _runs[0]
        got = ms.grad(jf, (0, 1))(x, w, ms.Tensor(n))
        runs.append(_runs[0] - before)
        want = ms.grad(loopy, (0, 1))(x, w, ms.Tensor(n))
        _close(got, want)
    assert runs == [1, 0, 0]                 # traced once; later calls run the generated code
    # the other branch of the If, same compiled graphs
    _close(ms.grad(jf, (0, 1))(-x, w, ms.Tensor(2)), ms.grad(loopy, (0, 1))(-x, w, ms.Tensor(2)))
    entry = _entry(jf)
    # the forward graph keeps the loop (and pushes its saved values); the backward loop reads them
    assert _count(entry.joint, "While") == 2 and _count(entry.joint, "StackGet") == 1
    assert any(v.dtype == "Stack" for v in entry.residuals)
    assert len(jf._grad_cache) == 1


def test_backward_graph_size_does_not_depend_on_iterations_from_outside():
    sizes = []
    for n in (5, 50):
        jf = ms.jit(loopy)
        g = ms.grad(jf, (0, 1))(t([0.3, 0.2]), t([0.5, -0.4]), ms.Tensor(n))
        _close(g, ms.grad(loopy, (0, 1))(t([0.3, 0.2]), t([0.5, -0.4]), ms.Tensor(n)))
        sizes.append(_entry(jf).joint.size())
    assert sizes[0] == sizes[1]


def test_value_and_grad_and_gradient_selection_of_jitted_function():
    jf = ms.jit(loopy)
    x, w, n = t([0.3, 0.2]), t([0.5, -0.4]), ms.Tensor(4)
    _close(ms.value_and_grad(jf, 1)(x, w, n), ms.value_and_grad(loopy, 1)(x, w, n))
    _close(ms.grad(jf, 0)(x, w, n), ms.grad(loopy, 0)(x, w, n))
    # one backward variant per set of requested gradients, dead code removed
    assert set(_entry(jf).variants) == {(False, True), (True, False)}


def test_grad_of_grad_of_jitted_function_from_outside():
    jf = ms.jit(loopy)
    x, w, n = t([0.3, 0.2]), t([0.5, -0.4]), ms.Tensor(3)
    got = ms.grad(ms.grad(jf, 0), 1)(x, w, n)
    want = ms.grad(ms.grad(loopy, 0), 1)(x, w, n)
    _close(got, want)
    fd = _fd(lambda v: float(ms.grad(loopy, 0)(x, t(v), n).asnumpy().sum()), w.asnumpy())
    np.testing.assert_allclose(got.asnumpy(), fd, rtol=1e-5, atol=1e-7)


def test_vjp_jvp_and_grad_operation_around_a_jitted_function():
    def f(x):
        k = 0
        while k < 3:
            x = ops.tanh(x) * 1.5 + 0.1
            k = k + 1
        return x * x
    jf = ms.jit(f)
    x, v = t([0.2, -0.7]), t([1.0, 0.5])
    out, pull = ms.vjp(jf, x)
    out_e, pull_e = ms.vjp(f, x)
    _close(out, out_e)
    _close(pull(v), pull_e(v))
    _close(ms.jvp(jf, x, v), ms.jvp(f, x, v))
    _close(ops.GradOperation(sens_param=True)(jf)(x, v), ops.GradOperation(sens_param=True)(f)(x, v))


# ---------------------------------------------------------------- cells: weights, custom bprop, stop_gradient
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(t([[0.6, -0.2], [0.3, 0.8]]), name="w")
        self.b = ms.Parameter(t([0.1, -0.1]), name="b")

    def construct(self, x):
        h = x
        k = x.sum() * 0     # a tensor counter: the loop stays a While in the graph
        while k < 4:
            h = ops.tanh(ops.matmul(h, self.w) + self.b) + h
            k = k + 1
        return (h * h).mean()


def test_graph_mode_cell_weight_gradients_match_pynative_over_training_steps():
    net_a, net_b = Net(), Net()
    x = t([[0.4, 0.7]])

    def step(net):
        params = net.trainable_params()
        loss, grads = ms.value_and_grad(net, None, params)(x)
        for p, g in zip(params, grads):
            p.set_data(p - 0.1 * g)
        return loss, grads
    for _ in range(3):
        want = step(net_a)
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            got = step(net_b)       # net_b(x) compiles; the tape differentiates its graph
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        _close(got, want)
    entry = _entry(net_b._ms_compiled)
    assert len(entry.external) == 2       # the Parameters are differentiated as captured graph inputs


class Triple(nn.Cell):
    """Forward x * x, with a user bprop that pretends the derivative is 3 (not 2x)."""

    def construct(self, x):
        return x * x

    def bprop(self, x, out, dout):
        return (dout * 3,)


class UsesBprop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Triple()

    def construct(self, x):
        y = self.inner(x) + ops.stop_gradient(x * x) * 10
        return (y * 2).sum()


def test_custom_cell_bprop_and_stop_gradient_in_compiled_code():
    net = UsesBprop()
    x = t([0.5, -1.5])
    want = np.full(2, 6.0)        # d/dx of 2 * sum(inner(x)) with the user's bprop; stop_gradient adds 0
    _close(ms.grad(net)(x), t(want))                                   # PyNative
    _close(ms.jit(lambda v: ms.grad(net)(v))(x), t(want))              # grad inside a compiled function
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        _close(ms.grad(net)(x), t(want))                               # grad of the compiled Cell from outside
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    jf = ms.jit(net.construct)
    _close(ms.grad(jf)(x), t(want))
    _entry(jf)


def test_closure_over_a_tracked_tensor_gets_its_gradient():
    def outer(x):
        y = x * 3

        @ms.jit
        def inner(z):
            return (z * y).sum()       # y: an outer tensor the caller's tape tracks
        return inner(x * x)
    x = t([0.5, 2.0])
    _close(ms.grad(outer)(x), t(6 * x.asnumpy() ** 2 + 3 * x.asnumpy() ** 2))


def test_integer_outputs_and_non_differentiable_inputs():
    @ms.jit
    def f(x, k):
        return (x * k).sum(), k + 1
    x, k = t([1.0, 2.0]), ms.Tensor(3)
    _close(ms.grad(f, 0)(x, k), t([3.0, 3.0]))
    (s, k1), g = ms.value_and_grad(f, 0, has_aux=True)(x, k)
    assert int(k1.asnumpy()) == 4 and float(s.asnumpy()) == 9.0


@pytest.mark.parametrize("x0", [[0.3, 0.4], [-2.0, 0.1]])
def test_grad_from_outside_matches_finite_differences(x0):
    jf = ms.jit(loopy)
    w, n = t([1.3, 0.6]), ms.Tensor(4)
    g = ms.grad(jf)(t(x0), w, n).asnumpy()
    fd = _fd(lambda v: float(loopy(t(v), w, n).asnumpy()), np.asarray(x0))
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)
    assert WHILE.name == "While"


# ---------------------------------------------------------------- the other transforms inside compiled code
def test_grad_operation_vjp_and_jvp_inside_compiled_code_through_a_loop():
    def f(x, n):
        i = 0
        while i < n:
            x = ops.sin(x) * 1.2 + x * 0.3
            i = i + 1
        return x * x

    def transforms(x, v, n):
        def fx(a):
            return f(a, n)
        g = ops.GradOperation(sens_param=True)(f)(x, n, v)
        _, pull = ms.vjp(fx, x)
        _, tangent = ms.jvp(fx, x, v)
        return g, pull(v)[0], tangent
    x, v, n = t([0.3, -0.8]), t([1.0, 0.5]), ms.Tensor(4)
    jt = ms.jit(transforms)
    got = jt(x, v, n)
    _close(got, transforms(x, v, n))
    (graph,) = jt.graphs()
    assert _count(graph, "While") >= 3
    # jvp is the transpose of the vjp: both directions agree with finite differences along v
    fd = (f(x + 1e-6 * v, n) - f(x - 1e-6 * v, n)).asnumpy() / 2e-6
    np.testing.assert_allclose(got[2].asnumpy(), fd, rtol=1e-5)


class Gated(nn.Cell):
    """Weights read only inside an If branch and a loop body (sub-graphs)."""

    def __init__(self):
        super().__init__()
        self.a = ms.Parameter(t([0.7, -0.3]), name="a")
        self.c = ms.Parameter(t([1.1, 0.4]), name="c")

    def construct(self, x):
        if x.sum() > 0:
            y = x * self.a
        else:
            y = x - 1
        k = x.sum() * 0
        while k < 2:
            y = ops.sin(y * self.c)
            k = k + 1
        return (y * y).sum()


@pytest.mark.parametrize("x0", [[0.5, 0.2], [-0.5, -0.2]])
def test_weights_read_only_inside_control_flow_get_gradients_from_outside(x0):
    net = Gated()
    x = t(x0)
    want = ms.value_and_grad(net, None, net.trainable_params())(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = ms.value_and_grad(net, None, net.trainable_params())(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _close(got, want)
    assert len(_entry(net._ms_compiled).external) == 2


class WarmUpLoss(nn.Cell):
    """mindspore-rl CQL's actor loss pattern: a Parameter counter decides an `if` on a tensor whose branch assigns a
    name of its own (`m`, read nowhere after the if) besides the loss, and the counter is then incremented."""

    def __init__(self):
        super().__init__()
        self.a = ms.Parameter(t([[0.3, -0.2], [0.5, 0.1]]), name="a")
        self.b = ms.Parameter(t([[-0.4, 0.6], [0.2, 0.7]]), name="b")
        self.step = ms.Parameter(t(0.0), name="step", requires_grad=False)

    def construct(self, x):
        loss = ops.matmul(x, self.a).sum()
        if self.step < 2:
            m = ops.tanh(ops.matmul(x, self.b))
            loss = (m * m).sum() + loss * 0.5
        self.step += 1
        return loss


def test_weight_gradients_through_an_if_whose_branch_assigns_a_name_of_its_own():
    x = t([[0.4, 0.7], [-0.3, 0.2]])
    net_a, net_b = WarmUpLoss(), WarmUpLoss()

    def step(net):
        return ms.value_and_grad(net, None, net.trainable_params())(x)
    for _ in range(3):          # the branch is taken twice, then not
        want = step(net_a)
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            got = step(net_b)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        _close(got, want)
    assert float(net_b.step.asnumpy()) == 3.0
    # the last step does not take the branch: d/da[i, j] of sum(x @ a) is the sum of x's column i
    np.testing.assert_allclose(got[1][0].asnumpy(), np.broadcast_to(x.asnumpy().sum(0)[:, None], (2, 2)), rtol=1e-12)
