"""The IR dump is Python: every file save_graphs writes parses, an If's / While's graphs are local functions
defined before their use, and gradient graphs of compiled functions (ms.grad(ms.jit(f)), value_and_grad of a
GRAPH_MODE Cell) are dumped too."""
import ast
import os
import warnings

import numpy as np
import pytest
from test_syntax import ROWS   # the table of Python constructs compiled in graph mode

import mindseed as ms
from mindseed import nn, ops


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


@pytest.fixture
def saved(tmp_path):
    """Turn save_graphs on into tmp_path; gives a reader of the files written: {file name: text}."""
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))

    def files():
        return {n: open(os.path.join(tmp_path, n), encoding="utf-8").read() for n in sorted(os.listdir(tmp_path))}
    try:
        yield files
    finally:
        ms.set_context(save_graphs=False)


def _parse_all(files):
    assert files
    return {n: ast.parse(text, filename=n) for n, text in files.items()}


def _stage(files, stage):
    (text,) = [v for n, v in files.items() if f"_{stage}." in n]
    return text


def _defs(tree):
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]


def _calls_of(tree, prim):
    """The assignments `... = prim(...)` in the tree, with the function each is in."""
    found = []
    for fn in _defs(tree):
        for st in fn.body:
            if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call) and \
                    isinstance(st.value.func, ast.Name) and st.value.func.id == prim:
                found.append((fn, st))
    return found


def _defined_before_use(tree, prim, attrs):
    """Each `prim(..., attr=name)` node names a local function defined earlier in the same body."""
    uses = _calls_of(tree, prim)
    assert uses
    for fn, st in uses:
        kw = {k.arg: k.value for k in st.value.keywords}
        for a in attrs:
            name = kw[a].id
            before = fn.body[:fn.body.index(st)]
            assert any(isinstance(s, ast.FunctionDef) and s.name == name for s in before), (prim, name)
    return uses


def test_straight_line_dump_parses(saved):
    @ms.jit
    def f(x, w):
        return ops.relu(ops.matmul(x, w) + 1.0).sum(axis=1)
    x, w = np.ones((2, 3), np.float32), np.full((3, 4), 0.5, np.float32)
    np.testing.assert_allclose(f(t(x), t(w)).asnumpy(), np.maximum(x @ w + 1, 0).sum(1))
    files = saved()
    trees = _parse_all(files)
    traced = _stage(files, "00_traced")
    assert traced.startswith('def f(p0: "f32[2, 3]", p1: "f32[3, 4]"):')
    assert "MatMul(p0, p1" in traced and "test_dump.py:" in traced
    code = _stage(files, "99_codegen")
    assert code.startswith("def graph_fn(")
    assert any(isinstance(n, ast.Return) for n in ast.walk(trees[[n for n in files if "00_traced" in n][0]]))


def test_if_on_tensor_branch_graphs_are_local_functions_before_the_if(saved):
    @ms.jit
    def f(x):
        y = x * 2
        if y.sum() > 0:
            y = y + 1
        else:
            y = y - 1
        return y
    np.testing.assert_allclose(f(t([1.0, 2.0])).asnumpy(), [3.0, 5.0])
    np.testing.assert_allclose(f(t([-1.0, -2.0])).asnumpy(), [-3.0, -5.0])
    files = saved()
    for name, tree in _parse_all(files).items():
        if name.endswith(".ir"):
            _defined_before_use(tree, "If", ("then", "else_"))
    traced = _stage(files, "00_traced")
    # `else` is a keyword: the branch graphs get names that are identifiers, numbered per If
    assert "def then_1(then_1_p0" in traced and "def else_1(else_1_p0" in traced
    assert "then=then_1, else_=else_1" in traced
    assert traced.index("def then_1") < traced.index("If(")


def test_while_on_tensor_and_nested_if_dump(saved):
    @ms.jit
    def f(x, n):
        i = 0
        while i < n:
            if x.sum() > 4:
                x = x - 1
            else:
                x = x * 2
            i = i + 1
        return x
    np.testing.assert_allclose(f(t([1.0, 1.0]), ms.Tensor(3)).asnumpy(), [3.0, 3.0])   # x2, x2, then -1
    files = saved()
    trees = _parse_all(files)
    tree = trees[[n for n in files if "00_traced" in n][0]]
    (loop_fn, _), = _defined_before_use(tree, "While", ("cond", "body"))
    # the If of the loop body is inside the body's function, with its branches defined there
    (body,) = [d for d in loop_fn.body if isinstance(d, ast.FunctionDef) and d.name.startswith("body_")]
    ifs = _defined_before_use(body, "If", ("then", "else_"))
    assert [fn.name for fn, _ in ifs] == [body.name]
    names = {d.name for d in _defs(tree)}
    assert {"f", "cond_1", "body_1", "then_2", "else_2"} <= names
    # the generated code of the same graph parses too (it is exec'd)
    assert "while cond" in _stage(files, "99_codegen")


def test_gradient_of_jitted_function_is_dumped(saved):
    @ms.jit
    def f(x, w):
        y = x * w
        if y.sum() > 0:
            y = y * y
        return y.sum()
    x, w = np.array([1.0, 2.0], np.float32), np.array([0.5, 3.0], np.float32)
    gx, gw = ms.grad(f, grad_position=(0, 1))(t(x), t(w))
    np.testing.assert_allclose(gx.asnumpy(), 2 * x * w * w, rtol=1e-6)
    np.testing.assert_allclose(gw.asnumpy(), 2 * x * x * w, rtol=1e-6)
    files = saved()
    trees = _parse_all(files)
    grad = {n: v for n, v in files.items() if "_f_grad_" in n}
    assert any(n.endswith("_00_traced.ir") for n in grad)
    joint = _stage(grad, "00_traced")
    # the joint graph: the forward If and its gradient, an If on the same condition
    assert joint.count(" = If(") == 2
    fwd, bwd = _stage(grad, "90_forward"), _stage(grad, "92_backward_11")
    assert fwd.startswith("def f_forward(") and bwd.startswith("def f_backward(")
    assert "def then_1" in bwd and " = If(" in bwd
    assert _stage(grad, "91_forward_codegen").startswith("def forward_fn(")
    assert _stage(grad, "93_backward_11_codegen").startswith("def backward_fn(")
    tree = trees[[n for n in grad if "92_backward_11" in n][0]]
    _defined_before_use(tree, "If", ("then", "else_"))
    # another set of requested gradients is another backward graph
    (gx2,) = (ms.grad(f, grad_position=0)(t(x), t(w)),)
    np.testing.assert_allclose(gx2.asnumpy(), 2 * x * w * w, rtol=1e-6)
    assert any("92_backward_10" in n for n in saved())


def test_value_and_grad_of_graph_mode_cell_is_dumped(saved):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(t([[0.5, -1.0], [2.0, 0.25]]), name="w")

        def construct(self, x):
            return ops.matmul(x, self.w).sum()
    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        loss, (gw,) = ms.value_and_grad(net, None, net.trainable_params())(t([[1.0, 2.0]]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(loss.asnumpy(), np.array([[1.0, 2.0]]) @ net.w.asnumpy().sum(1))
    np.testing.assert_allclose(gw.asnumpy(), [[1.0, 1.0], [2.0, 2.0]])
    files = saved()
    _parse_all(files)
    grad = {n: v for n, v in files.items() if "_Net_grad_" in n}
    assert "MatMul(" in _stage(grad, "00_traced")
    bwd = [v for n, v in grad.items() if "_92_backward_" in n]
    assert bwd and all(v.startswith("def Net_backward(") for v in bwd)


def test_env_var_dump_and_awkward_names_and_constants(tmp_path, monkeypatch):
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    before = ms.get_context("save_graphs_path")
    ms.set_context(save_graphs_path=str(tmp_path))
    inf_fill = ms.Tensor(np.array([1.0, np.inf], np.float32))
    g = ms.jit(lambda x: ops.minimum(x, inf_fill) * float("inf") + x[::2].sum())
    try:
        out = g(t([1.0, -2.0]))
    finally:
        ms.set_context(save_graphs_path=before)
    np.testing.assert_allclose(out.asnumpy(), [np.inf, -np.inf])
    files = {n: open(os.path.join(tmp_path, n), encoding="utf-8").read() for n in os.listdir(tmp_path)}
    _parse_all(files)
    traced = _stage(files, "00_traced")
    # a lambda's graph is named by an identifier; tensor constants, inf and slices are expressions
    assert traced.startswith("def _lambda_(")
    assert "float('inf')" in traced and "slice(None, None, 2)" in traced
    (graph,) = g.graphs()
    ast.parse(str(graph))


def test_dynamic_shape_graph_prints_as_python():
    @ms.jit(dynamic=1)
    def f(x):
        return x.reshape(x.shape[0] * 2, -1).sum(axis=1)
    for n in (2, 3, 5):
        np.testing.assert_allclose(f(t(np.ones((n, 4)))).asnumpy(), np.full(2 * n, 2.0))
    (graph,) = f.graphs()
    text = str(graph)
    ast.parse(text)
    assert '"f32[?, 4]"' in text and "d[0]" in text


@pytest.mark.parametrize("name, fn, inputs, diff", ROWS, ids=[r[0] for r in ROWS])
def test_every_construct_of_the_syntax_table_dumps_python(name, fn, inputs, diff, saved):
    jf = ms.jit(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jf(*inputs[0])               # one signature: its graph, and its gradient's graphs
        if diff:
            ms.grad(jf, grad_position=0)(*inputs[0])
    files = saved()
    for n, tree in _parse_all(files).items():
        if n.endswith(".ir"):
            for prim, attrs in (("If", ("then", "else_")), ("While", ("cond", "body"))):
                if f" = {prim}(" in files[n]:
                    _defined_before_use(tree, prim, attrs)
    assert any("_00_traced.ir" in n for n in files)
    if diff:
        assert any("_grad_92_backward_" in n for n in files)
