"""Graph mode: compiled results equal PyNative; control flow stays control flow; gradients through it."""
import os
import warnings

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.compiler.ir import IF, WHILE


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def _nodes(graph, kind):
    n = 0
    for node in graph.nodes:
        n += node.prim is kind
        for g in node.subgraphs():
            n += _nodes(g, kind)
    return n


def _only_graph(fn):
    graphs = fn.graphs()
    assert len(graphs) == 1
    return graphs[0]


# ---------------------------------------------------------------- straight line and caching
def test_straight_line_matches_eager_and_caches_by_shape():
    def f(x, y):
        z = ops.matmul(x, y) + 1.0
        return z.sum(), z * 2
    jf = ms.jit(f)
    a, b = np.random.RandomState(0).standard_normal((2, 3, 4)).astype(np.float32)[0], np.ones((4, 2), np.float32)
    for _ in range(2):
        got = jf(t(a), t(b))
        want = f(t(a), t(b))
        np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(got[1].asnumpy(), want[1].asnumpy(), rtol=1e-6)
    assert len(jf.cache) == 1
    jf(t(np.ones((5, 4))), t(b))
    assert len(jf.cache) == 2


def test_python_values_key_the_cache_and_fold_away():
    @ms.jit
    def f(x, scale):
        k = scale * 2 + len(x.shape)   # Python arithmetic on constants: done at trace time
        return x * k
    np.testing.assert_allclose(f(t([1.0, 2.0]), 3).asnumpy(), [7.0, 14.0])
    np.testing.assert_allclose(f(t([1.0, 2.0]), 4).asnumpy(), [9.0, 18.0])
    assert len(f.cache) == 2
    g = f.graphs()[0]
    assert [n.prim.name for n in g.nodes] == ["Mul"]


def test_generated_code_is_flat_kernel_calls():
    @ms.jit
    def f(x):
        return ops.exp(x) * 2 - 1
    f(t([0.0]))
    src = list(f.cache.values())[0].source
    assert "k_Exp" in src and "k_Mul" in src and "Tensor" not in src and "del " in src


def test_cse_and_dce():
    @ms.jit
    def f(x):
        a = ops.exp(x)
        b = ops.exp(x)      # same as a
        unused = x * 100    # dead  # noqa: F841 (the test is that it is removed)
        return a + b
    np.testing.assert_allclose(f(t([0.0])).asnumpy(), [2.0])
    names = [n.prim.name for n in _only_graph(f).nodes]
    assert names.count("Exp") == 1 and "Mul" not in names


# ---------------------------------------------------------------- control flow
def if_fn(x):
    if x.sum() > 0:
        y = x * 2
    elif x.sum() > -5:
        y = x - 1
    else:
        y = -x
    return y


def early_return(x):
    if x.max() > 10:
        return x / 10
    x = x * 3
    return x + 1


def while_fn(x):
    while x.sum() < 100:
        x = x * 2 + 1
    return x


def break_fn(x):
    n = 0
    while n < 10:
        n = n + 1
        if x.sum() > 50:
            break
        x = x * 2
    return x, n


def continue_fn(x):
    total = x * 0
    for i in range(6):
        if i % 2 == 0:
            continue
        total = total + x * i
    return total


def nested_loops(x, n):
    i = 0
    while i < n:
        j = 0
        while j < n:
            x = x + 1
            j = j + 1
        i = i + 1
    return x


def for_tensor_bound(x, n):
    for i in range(n):
        x = x * 2 + i
    return x


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(t([0.5, 2.0]), name="w")

    def construct(self, x):
        if (x * self.w).sum() > 1:
            return x * self.w
        return x + self.w


class LoopCaller(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def construct(self, x):
        while x.sum() < 20:
            x = self.block(x) + 1
        return x


@pytest.mark.parametrize("fn,args", [
    (if_fn, [[1.0, 2.0]]), (if_fn, [[-1.0, -2.0]]), (if_fn, [[-10.0, -2.0]]),
    (early_return, [[1.0, 20.0]]), (early_return, [[1.0, 2.0]]),
    (while_fn, [[1.0, 2.0]]), (while_fn, [[300.0, 2.0]]),
    (break_fn, [[1.0]]), (break_fn, [[100.0]]),
    (continue_fn, [[1.0, 2.0]]),
    (nested_loops, [[1.0], ms.Tensor(3)]),
    (for_tensor_bound, [[1.0], ms.Tensor(4)]),
])
def test_control_flow_matches_eager(fn, args):
    targs = [a if isinstance(a, ms.Tensor) else t(a) for a in args]
    want = fn(*targs) if fn not in (nested_loops, for_tensor_bound) else None
    got = ms.jit(fn)(*targs)
    if want is None:
        want = fn(*[a if isinstance(a, ms.Tensor) else t(a) for a in args])
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_allclose(np.asarray(g.asnumpy() if isinstance(g, ms.Tensor) else g),
                                   np.asarray(w.asnumpy() if isinstance(w, ms.Tensor) else w), rtol=1e-6)


def test_tensor_conditions_stay_control_flow_in_the_graph():
    jf = ms.jit(if_fn)
    jf(t([1.0, 2.0]))
    g = _only_graph(jf)
    assert _nodes(g, IF) == 2
    # the same compiled graph takes the other branches at run time
    np.testing.assert_allclose(jf(t([-10.0, -2.0])).asnumpy(), [10.0, 2.0])
    jw = ms.jit(while_fn)
    jw(t([1.0, 2.0]))
    assert _nodes(_only_graph(jw), WHILE) == 1
    np.testing.assert_allclose(jw(t([0.0, 0.0])).asnumpy(), while_fn(t([0.0, 0.0])).asnumpy())


def test_loops_calling_cells_in_graph_mode():
    net = LoopCaller()
    want = net(t([1.0, 1.0]))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = net(t([1.0, 1.0]))
        got2 = net(t([3.0, 0.5]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy())
    np.testing.assert_allclose(got2.asnumpy(), net(t([3.0, 0.5])).asnumpy())


# ---------------------------------------------------------------- gradients
def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp.flat[i] += eps
        xm.flat[i] -= eps
        g.flat[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def branchy_loss(x, w):
    if (x * w).sum() > 0:
        y = ops.exp(x * w) * w
    else:
        y = x * w * w
    return y.sum()


def loopy_loss(x, w):
    while x.sum() < 30:
        x = x * w + ops.sin(x)
    return (x * x).sum()


@pytest.mark.parametrize("fn,x,w", [
    (branchy_loss, [0.3, 0.2], [1.5, -0.5]), (branchy_loss, [-0.3, -0.2], [1.5, 0.5]),
    (loopy_loss, [1.0, 2.0], [1.5, 2.0]), (loopy_loss, [2.0, 0.5], [1.3, 1.6]),
])
def test_gradients_through_control_flow_match_finite_differences(fn, x, w):
    x, w = np.array(x), np.array(w)
    gfn = ms.jit(lambda a, b: ms.grad(fn, (0, 1))(a, b))
    gx, gw = gfn(t(x, np.float64), t(w, np.float64))
    fx = _fd(lambda v: float(fn(t(v, np.float64), t(w, np.float64)).asnumpy()), x)
    fw = _fd(lambda v: float(fn(t(x, np.float64), t(v, np.float64)).asnumpy()), w)
    np.testing.assert_allclose(gx.asnumpy(), fx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw.asnumpy(), fw, rtol=1e-5, atol=1e-6)


def test_loop_gradient_graph_size_does_not_grow_with_iterations():
    sizes = []
    for x0 in ([1.0, 2.0], [1e-3, 1e-3]):   # ~3 and ~12 iterations
        g = ms.jit(lambda a, b: ms.grad(loopy_loss, (0, 1))(a, b))
        g(t(x0, np.float64), t([1.5, 2.0], np.float64))
        sizes.append(_only_graph(g).size())
    assert sizes[0] == sizes[1]


def test_grad_of_grad_compiled():
    def f(x):
        return (ops.sin(x) * x).sum()
    d2 = ms.jit(lambda x: ms.grad(ms.grad(f))(x))
    x = np.array([0.3, 1.1])
    got = d2(t(x, np.float64)).asnumpy()
    np.testing.assert_allclose(got, 2 * np.cos(x) - x * np.sin(x), rtol=1e-10)


def test_grad_of_a_jitted_function_from_outside():
    jf = ms.jit(branchy_loss)
    x, w = t([0.3, 0.2], np.float64), t([1.5, -0.5], np.float64)
    got = ms.grad(jf, (0, 1))(x, w)
    want = ms.grad(branchy_loss, (0, 1))(x, w)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy())


def test_train_step_with_weights_compiled_matches_pynative():
    def make():
        ms.set_seed(1)
        net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 1)) if hasattr(nn, "Dense") else None
        return net
    net_a, net_b = make(), make()
    if net_a is None:
        pytest.skip("nn.Dense not available")
    x = t(np.random.RandomState(0).standard_normal((6, 4)))
    y = t(np.random.RandomState(1).standard_normal((6, 1)))

    def make_step(net):
        params = net.trainable_params()     # outside the graph: MindSpore's graph refuses trainable_params

        def loss_fn(x, y):
            return ((net(x) - y) ** 2).mean()

        def step(x, y):
            loss, grads = ms.value_and_grad(loss_fn, None, params)(x, y)
            for p, g in zip(params, grads):
                ops.assign(p, p - 0.1 * g)      # set_data is refused in a graph too
            return loss
        return step
    step, jstep = make_step(net_a), ms.jit(make_step(net_b))
    for _ in range(4):
        la = step(x, y)
        lb = jstep(x, y)
        np.testing.assert_allclose(la.asnumpy(), lb.asnumpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="the method or function 'mindspore.nn.cell.Cell.trainable_params' is not "
                                           "supported"):
        ms.jit(lambda v: [p * v for p in net_a.trainable_params()])(x)
    with pytest.raises(RuntimeError, match="the 'Parameter' object's method 'set_data' is not supported"):
        ms.jit(lambda v: net_a[0].weight.set_data(v))(net_a[0].weight.value())
    with pytest.raises(RuntimeError, match="the 'Tensor' object's method 'assign_value' is not supported"):
        ms.jit(lambda a, b: a.assign_value(b))(x, x + 1)


# ---------------------------------------------------------------- fallback, dumps, errors
def test_fallback_warns_with_file_and_line():
    @ms.jit
    def f(x):
        v = x.sum().item()      # a value known only at run time
        return x * v
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = f(t([1.0, 2.0]))
    np.testing.assert_allclose(out.asnumpy(), [3.0, 6.0])
    assert any("test_jit.py:" in str(x.message) and "fallback" in str(x.message) for x in w)
    assert all(x.filename == __file__ for x in w if "fallback" in str(x.message))   # filed at the calling line
    np.testing.assert_allclose(f(t([2.0, 2.0])).asnumpy(), [8.0, 8.0])

    class Net(nn.Cell):
        def construct(self, x):
            return x * x.sum().item()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            Net()(t([1.0, 2.0]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert [x.filename for x in w if "fallback" in str(x.message)] == [__file__]


def _needs_fallback(x):
    v = float(x.sum().asnumpy())      # numpy reads of a graph value: only the interpreter has them
    return x * v


def test_fullgraph_raises_instead_of_falling_back():
    f = ms.jit(_needs_fallback, fullgraph=True)
    with pytest.raises(RuntimeError, match=r"'_needs_fallback' must compile as one graph .*test_jit.py:"):
        f(t([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="the gradient of '_needs_fallback' must compile as one graph"):
        ms.grad(f)(t([1.0, 2.0]))
    # whole graphs still compile, and the same function without fullgraph falls back
    np.testing.assert_allclose(ms.jit(lambda x: x * 2, fullgraph=True)(t([1.0])).asnumpy(), [2.0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        np.testing.assert_allclose(ms.jit(_needs_fallback)(t([1.0, 2.0])).asnumpy(), [3.0, 6.0])
    assert any("fallback" in str(x.message) for x in w)
    with pytest.raises(TypeError, match="'fullgraph' must be bool"):
        ms.jit(_needs_fallback, fullgraph=1)
    with pytest.raises(ValueError, match="'capture_mode' must be one of"):
        ms.jit(_needs_fallback, capture_mode="graph")
    with pytest.raises(ValueError, match="'dynamic' must be 0 or 1"):
        ms.jit(_needs_fallback, dynamic=2)


def test_strict_syntax_level_from_context_and_jit_config():
    ms.set_context(jit_syntax_level=ms.STRICT)
    try:
        with pytest.raises(RuntimeError, match="must compile as one graph"):
            ms.jit(_needs_fallback)(t([1.0]))

        class Net(nn.Cell):
            def construct(self, x):
                return _needs_fallback(x)
        ms.set_context(mode=ms.GRAPH_MODE)
        with pytest.raises(RuntimeError, match="'Net' must compile as one graph"):
            Net()(t([1.0]))
    finally:
        ms.set_context(jit_syntax_level=ms.LAX, mode=ms.PYNATIVE_MODE)
    f = ms.jit(_needs_fallback, jit_config=ms.JitConfig(jit_syntax_level="STRICT"))
    with pytest.raises(RuntimeError, match="must compile as one graph"):
        f(t([1.0]))


def test_save_graphs_writes_ir_before_and_after_each_pass(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        ms.jit(if_fn)(t([1.0]))
    finally:
        ms.set_context(save_graphs=False)
    files = sorted(os.listdir(tmp_path))
    assert any("0_traced" in f for f in files) and any("eliminate_dead_code" in f for f in files)
    assert any("codegen" in f for f in files)
    text = open(os.path.join(tmp_path, [f for f in files if "0_traced" in f][0])).read()
    assert "If(" in text and "test_jit.py:" in text


def test_error_in_user_code_names_user_line():
    @ms.jit
    def f(x):
        return ops.matmul(x, x)
    with pytest.raises(RuntimeError) as info:
        f(t(np.ones((2, 3))))
    assert "MatMul" in str(info.value)
    tb = info.tb
    files = []
    while tb is not None:
        files.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert any(f.endswith("test_jit.py") for f in files)


def test_mutable_arguments_do_not_key_cache():
    @ms.jit
    def f(xs):
        return xs[0] + xs[1]
    f(ms.mutable((t([1.0]), t([2.0]))))
    f(ms.mutable((t([3.0]), t([4.0]))))
    assert len(f.cache) == 1


def test_mutable_scalars_are_graph_inputs():
    # ms.mutable(int/float): one compiled graph for every value; numbers computed from it come back as Python
    # numbers; a loop bound from it stays a loop of the graph
    x = t([1.0, 2.0, 3.0])

    @ms.jit
    def f(x, n, s):
        return x * n + s, n + 1

    for n, s in ((2, 0.5), (3, 1.5), (-4, 2.0)):
        y, m = f(x, ms.mutable(n), ms.mutable(s))
        np.testing.assert_allclose(y.asnumpy(), np.array([1.0, 2.0, 3.0]) * n + s, rtol=1e-6)
        assert m == n + 1 and isinstance(m, int)
    assert f.traces == 1

    @ms.jit
    def g(x, steps):
        for i in range(steps):
            x = x + i
        return x

    for steps in (3, 5):
        np.testing.assert_array_equal(g(x, ms.mutable(steps)).asnumpy(), x.asnumpy() + sum(range(steps)))
    assert g.traces == 1
    assert ms.mutable(3) == 3 and ms.mutable(2.5) * 2 == 5.0
    with pytest.raises(TypeError, match="For 'mutable'.*should be one of .bool, int, float.*got str"):
        ms.mutable("a")


def test_no_recursive_marks_functions_methods_and_cell_classes():
    from mindseed.common.api import _no_recursive  # noqa: PLC0415

    def double(x):
        return x * 2

    @_no_recursive
    class Net(nn.Cell):
        def construct(self, x):
            return double(x) + 1

    @ms.jit
    @_no_recursive
    def f(x):
        return double(x) - 1

    assert Net._func_graph_flags == {"no_recursive": True}
    np.testing.assert_allclose(Net()(ms.Tensor([2.0])).asnumpy(), [5.0])
    np.testing.assert_allclose(f(ms.Tensor([2.0])).asnumpy(), [3.0])
    assert double is _no_recursive(double) and double._func_graph_flags["no_recursive"]
    with pytest.raises(TypeError, match="Decorator no_recursive is used for callable object, but got 3"):
        _no_recursive(3)
