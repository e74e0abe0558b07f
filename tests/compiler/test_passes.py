"""Graph passes: algebraic simplification, constant folding of Python-level shape work, dead outputs,
unused parameters; each checked on the optimized IR and on the numbers."""
import numpy as np

import mindseed as ms
from mindseed import nn, ops
from mindseed.compiler import passes
from mindseed.compiler.ir import IF, WHILE, Const


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def _graph(fn):
    (g,) = fn.graphs()
    return g


def _names(g):
    return [n.prim.name for n in g.nodes]


def test_pipeline_is_a_list_of_named_passes():
    names = [p.__name__ for p in passes.PIPELINE]
    assert names == ["simplify_algebra", "fold_constants", "eliminate_common_subexpressions", "fuse_attention",
                     "merge_index_grads", "prune_dead_outputs", "eliminate_dead_code", "update_stats_in_place",
                     "pool_before_relu", "fuse_relu", "write_in_place", "schedule_locality", "prune_unused_parameters"]


def test_algebraic_identities_disappear():
    @ms.jit
    def f(x):
        y = ops.Identity()(x * 1 + 0)
        return (y - 0) / 1
    np.testing.assert_allclose(f(t([1.5, -2.0])).asnumpy(), [1.5, -2.0])
    assert _names(_graph(f)) == []
    np.testing.assert_allclose(f(t([3.0, 4.0])).asnumpy(), [3.0, 4.0])


class _OldValue(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = ms.Parameter(t([0.0, 0.0]), name="total")

    def construct(self, x):
        before = self.total * 1           # a value, not the parameter: it must not see the update below
        ops.assign_add(self.total, x)
        return before.sum()


def test_identity_of_a_value_updated_later_is_kept():
    eager, graph = _OldValue(), _OldValue()
    f = ms.jit(graph.construct)
    x = t([0.5, 0.5])
    for _ in range(3):
        assert float(f(x).asnumpy()) == float(eager(x).asnumpy())
    assert "Mul" in _names(_graph(f))


def test_python_shape_arithmetic_and_constant_tensors_fold():
    @ms.jit
    def f(x):
        n, m = x.shape
        scale = ops.ones((n, m)) * (n * m)          # constant: folded at compile time
        w = ops.arange(m).astype(ms.float32) + 1.0   # constant chain
        return x.reshape(n * m // 2, 2) * 2, x * scale + w
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a, b = f(t(x))
    np.testing.assert_allclose(a.asnumpy(), x.reshape(3, 2) * 2)
    np.testing.assert_allclose(b.asnumpy(), x * 6 + np.arange(1, 4))
    g = _graph(f)
    assert sorted(_names(g)) == ["Add", "Mul", "Mul", "Reshape"]
    # the folded constants are operands, computed once
    consts = [x for n in g.nodes for x in n.inputs if isinstance(x, Const) and hasattr(x.value, "shape")]
    assert consts
    np.testing.assert_allclose(f(t(x + 1))[1].asnumpy(), (x + 1) * 6 + np.arange(1, 4))


def test_common_subexpressions_are_computed_once():
    @ms.jit
    def f(x):
        return ops.exp(x) + ops.exp(x)
    np.testing.assert_allclose(f(t([0.0, 1.0])).asnumpy(), 2 * np.exp([0.0, 1.0]), rtol=1e-6)
    assert _names(_graph(f)).count("Exp") == 1


def test_unused_if_output_is_pruned_from_both_branches():
    @ms.jit
    def f(x):
        if x.sum() > 0:
            a, b = x * 2, ops.exp(x)
        else:
            a, b = x - 1, ops.sin(x)    # noqa: F841 (b is never read: the test is that it is pruned)
        return a
    np.testing.assert_allclose(f(t([1.0, 2.0])).asnumpy(), [2.0, 4.0])
    np.testing.assert_allclose(f(t([-1.0, -2.0])).asnumpy(), [-2.0, -3.0])
    g = _graph(f)
    (node,) = [n for n in g.nodes if n.prim is IF]
    assert len(node.outputs) == 1
    inner = [n.prim.name for sub in node.subgraphs() for n in sub.nodes]
    assert "Exp" not in inner and "Sin" not in inner


def test_dead_loop_counter_is_pruned_from_while():
    @ms.jit
    def f(x):
        k = ops.zeros((), ms.float32)
        while x.sum() < 20:
            x = x * 2
            k = k + 1        # carried but never read after the loop
        return x
    np.testing.assert_allclose(f(t([1.0, 2.0])).asnumpy(), [8.0, 16.0])
    g = _graph(f)
    (node,) = [n for n in g.nodes if n.prim is WHILE]
    assert len(node.inputs) == 1 and len(node.outputs) == 1
    np.testing.assert_allclose(f(t([3.0, 3.0])).asnumpy(), [12.0, 12.0])


def test_loop_value_read_by_condition_is_kept():
    @ms.jit
    def f(x, n):
        i = ops.zeros((), ms.int64)
        while i < n:
            x = x + 1
            i = i + 1
        return x
    np.testing.assert_allclose(f(t([0.0]), ms.Tensor(3)).asnumpy(), [3.0])
    np.testing.assert_allclose(f(t([0.0]), ms.Tensor(5)).asnumpy(), [5.0])
    (node,) = [n for n in _graph(f).nodes if n.prim is WHILE]
    assert len(node.inputs) == 2


def test_unused_inputs_and_parameters_are_not_passed():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(t([2.0, 3.0]), name="w")
            self.unused = ms.Parameter(t([5.0]), name="unused")

        def construct(self, x, y):
            _ = self.unused * 3     # dead
            return x * self.w
    net = Net()
    f = ms.jit(net)
    np.testing.assert_allclose(f(t([1.0, 1.0]), t([7.0])).asnumpy(), [2.0, 3.0])
    g = _graph(f)
    assert len(g.params) == 2                      # x and w: y and `unused` are pruned
    entry = next(iter(f.cache.values()))
    assert entry.in_keep == [0] and [p.name for p, _ in entry.captured] == ["w"]
    net.w.set_data(t([4.0, 5.0]))
    np.testing.assert_allclose(f(t([1.0, 2.0]), t([0.0])).asnumpy(), [4.0, 10.0])


def test_loop_value_read_only_by_a_printing_branch_is_kept(capsys):
    # a carried value whose only reader is an If without outputs (its branch prints it) must stay in the loop
    @ms.jit
    def f(x, n):
        i = ms.Tensor(0)
        t = ms.Tensor(0.0)
        while i < n:
            t = t + 1.0
            if x.sum() > 0:
                print("t is", t)
            i = i + 1
        return i

    assert int(f(ms.Tensor(np.ones(3, np.float32)), ms.Tensor(3)).asnumpy()) == 3
    assert capsys.readouterr().out.split() == ["t", "is", "1", "t", "is", "2", "t", "is", "3"]
