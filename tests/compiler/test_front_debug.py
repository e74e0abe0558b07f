"""save_graphs writes the IR before and after every pass; errors in user code name the user's file and line."""
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.compiler import passes


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def test_save_graphs_writes_numbered_files_per_graph_and_pass(tmp_path):
    @ms.jit
    def f(x):
        y = x * 1 + ops.ones((2,)) * 3     # simplify and fold change the graph
        if y.sum() > 0:
            y = y * 2
        return y
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        f(t([1.0, 2.0]))
        f(t([1.0, 2.0, 3.0]).reshape(3)[:2])   # same signature: no new files
        f(t([[1.0, 2.0]]))                      # a second graph
    finally:
        ms.set_context(save_graphs=False)
    files = sorted(os.listdir(tmp_path))
    stages = ["00_traced"] + [f"{i:02d}_{p.__name__}" for i, p in enumerate(passes.PIPELINE, 1)]
    per_graph = {}
    for name in files:
        per_graph.setdefault(name.split("_")[0], []).append(name)
    assert len(per_graph) == 2
    for names in per_graph.values():
        assert [n.split("_", 2)[2].rsplit(".", 1)[0] for n in names] == stages + ["99_codegen"]
    first = per_graph[min(per_graph)]
    traced = open(os.path.join(tmp_path, first[0])).read()
    simplified = open(os.path.join(tmp_path, first[1])).read()
    folded = open(os.path.join(tmp_path, first[2])).read()
    assert "If(" in traced and "test_front_debug.py:" in traced and "f32[2]" in traced
    assert "Mul(p0, 1)" in traced and "Mul(p0, 1)" not in simplified
    assert "Fill(" in simplified and "Fill(" not in folded
    code = open(os.path.join(tmp_path, first[-1])).read()
    assert code.startswith("def graph_fn(")


def _notes(exc):
    return " ".join(getattr(exc, "__notes__", []))


def test_shape_error_in_jitted_function_names_user_line():
    @ms.jit
    def f(x):
        y = x * 2
        return ops.matmul(y, x)        # the bad line
    line = f.__wrapped__.__code__.co_firstlineno + 3
    with pytest.raises(RuntimeError, match="MatMul") as info:
        f(t(np.ones((2, 3))))
    assert f"test_front_debug.py:{line}" in _notes(info.value)


class _Bad(nn.Cell):
    def construct(self, x):
        z = x + 1
        return z.reshape(4, 4)         # the bad line


def test_shape_error_in_cell_construct_in_graph_mode_names_user_line():
    line = _Bad.construct.__code__.co_firstlineno + 2
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(ValueError, match="Reshape") as info:
            _Bad()(t(np.ones((2, 3))))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert f"test_front_debug.py:{line}" in _notes(info.value)
    assert len(_notes(info.value).split("In file")) == 2     # named once
