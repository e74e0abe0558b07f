"""Dynamic shapes: one compiled graph reused for every size of the dynamic dims (no compile per size)."""
import numpy as np
import pytest

import mindseed as ms
from _graph import graph_mode
from mindseed import nn, ops


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def _rows(n, m=3, seed=0):
    return np.random.RandomState(seed + n).standard_normal((n, m)).astype(np.float32)


def test_jit_dynamic_compiles_once_for_all_batch_sizes():
    @ms.jit(dynamic=1)
    def f(x, w):
        n = x.shape[0]
        y = ops.matmul(x, w).reshape(n * 2, -1)           # a Python-level shape in an attribute
        return y.sum(axis=1) / n, ops.zeros((n, 1)) + 1   # and in a division / a created tensor
    w = t(np.arange(12).reshape(3, 4) * 0.1)
    for n in (2, 3, 5, 8, 4, 5):
        x = _rows(n)
        a, b = f(t(x), w)
        np.testing.assert_allclose(a.asnumpy(), (x @ w.asnumpy()).reshape(n * 2, -1).sum(1) / n, rtol=1e-5)
        np.testing.assert_allclose(b.asnumpy(), np.ones((n, 1)))
    assert len(f.cache) == 1
    assert f.traces == 3          # two samples, a third verifying the fit, then one graph for every size
    (g,) = f.graphs()
    assert g.params[0].shape == (None, 3)
    assert "d[0]" in str(g)


def test_input_signature_marks_dynamic_dims():
    @ms.jit(input_signature=(ms.Tensor(shape=[None, 3], dtype=ms.float32),))
    def f(x):
        if x.sum() > 0:
            x = x * 2
        return ops.softmax(x, axis=-1), x.shape[0] * 1.0 + x.mean()
    for n in (1, 4, 6, 9):
        x = _rows(n, seed=3)
        a, b = f(t(x))
        xx = x * 2 if x.sum() > 0 else x
        e = np.exp(xx - xx.max(-1, keepdims=True))
        np.testing.assert_allclose(a.asnumpy(), e / e.sum(-1, keepdims=True), rtol=1e-5)
        np.testing.assert_allclose(b.asnumpy(), n + xx.mean(), rtol=1e-5)
    assert len(f.cache) == 1 and f.traces == 3
    with pytest.raises(ValueError, match="shape of 1th input must be the same as expected"):
        f(t(np.ones((2, 4))))


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)
        self.dense.weight.set_data(t(np.arange(6).reshape(2, 3) * 0.1))
        self.dense.bias.set_data(t([0.5, -0.5]))

    def construct(self, x):
        h = self.dense(x)
        return ops.relu(h).reshape(-1, 2).mean(axis=0) * x.shape[0]


def test_cell_set_inputs_in_graph_mode_reuses_one_graph():
    net = _Net()
    net.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float32))
    w, b = net.dense.weight.asnumpy(), net.dense.bias.asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for n in (2, 5, 3, 7):
            x = _rows(n, seed=5)
            out = net(t(x))
            np.testing.assert_allclose(out.asnumpy(), np.maximum(x @ w.T + b, 0).mean(0) * n, rtol=1e-5)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    compiled = net.__dict__["_ms_compiled"]
    assert len(compiled.cache) == 1 and compiled.traces == 3


def test_size_dependent_structure_compiles_per_size():
    @ms.jit(dynamic=1)
    def f(x):
        acc = x[0]
        for i in range(1, x.shape[0]):      # unrolled: the graph's structure depends on the size
            acc = acc + x[i] * i
        return acc
    for n in (2, 3, 4, 3):
        x = _rows(n)
        np.testing.assert_allclose(f(t(x)).asnumpy(), (x * np.arange(n)[:, None]).sum(0) + x[0] * (n > 0) * 1
                                   - x[0] * 0, rtol=1e-5)
    assert len(f.cache) == 1 and f.traces == 3   # sizes 2, 3, 4 traced; 3 again reuses its graph


def test_static_jit_still_keys_by_shape():
    @ms.jit
    def f(x):
        return x * x.shape[0]
    for n in (2, 3):
        np.testing.assert_allclose(f(t(np.ones((n, 2)))).asnumpy(), np.full((n, 2), n))
    assert len(f.cache) == 2


def test_python_float_shape_arithmetic_follows_the_dynamic_dim():
    @ms.jit(dynamic=1)
    def f(x):
        n = x.shape[0]
        return x.sum(axis=0) * (1.0 / n), x[:n // n] * (n * 0.5)
    for n in (2, 4, 5, 10):
        x = _rows(n, seed=7)
        a, b = f(t(x))
        np.testing.assert_allclose(a.asnumpy(), x.sum(0) / n, rtol=1e-5)
        np.testing.assert_allclose(b.asnumpy(), x[:1] * n * 0.5, rtol=1e-5)
    assert len(f.cache) == 1 and f.traces == 3


def test_gradient_of_a_mean_follows_the_size_in_a_dynamic_graph():
    # the gradient's seed (ones_like(loss)) and the mean's 1/n are not frozen at a traced size
    g = ms.jit(ms.grad(lambda a: (a * a).mean(), 0), dynamic=1)
    for n in (3, 4, 6, 9, 5):
        x = np.arange(1, n + 1, dtype=np.float32)
        np.testing.assert_allclose(g(ms.Tensor(x)).asnumpy(), 2 * x / n, rtol=1e-6)


class _SizeBranch(nn.Cell):
    def construct(self, x):
        k = 2.0 if x.shape[0] < 5 else 3.0
        return x.sum() * k + x[min(x.shape[0] - 1, 3)].sum()


class _SecondBatch(nn.Cell):
    def construct(self, x, y):
        return x.sum() + y.shape[0] * 1.0


def test_python_decisions_on_a_dynamic_dim_compile_per_size():
    """A Python value chosen by comparing a dynamic dim holds only for the sizes it was traced at: such a
    function compiles per size instead of generalizing from samples (batch 6 got the k of batches 2-4)."""
    net = _SizeBranch()
    net.set_inputs(ms.Tensor(shape=[None, 4], dtype=ms.float32))
    with graph_mode():
        for b in (2, 3, 4, 6, 8, 5):
            x = np.arange(b * 4, dtype=np.float32).reshape(b, 4)
            got = float(net(ms.Tensor(x)).asnumpy())
            want = x.sum() * (2.0 if b < 5 else 3.0) + x[min(b - 1, 3)].sum()
            assert got == want, (b, got, want)


def test_a_number_from_one_of_two_dynamic_dims_that_moved_alike():
    net = _SecondBatch()
    net.set_inputs(ms.Tensor(shape=[None, 4], dtype=ms.float32), ms.Tensor(shape=[None, 4], dtype=ms.float32))
    with graph_mode():
        for bx, by in ((2, 2), (3, 3), (4, 4), (2, 7), (5, 1), (6, 9)):
            x, y = np.ones((bx, 4), np.float32), np.ones((by, 4), np.float32)
            assert float(net(ms.Tensor(x), ms.Tensor(y)).asnumpy()) == 4.0 * bx + by


class _RankFree(nn.Cell):
    def construct(self, x):
        return x.sum() + x.ndim + x.shape[-1]


@pytest.mark.parametrize("spec", [[-2], None])
def test_dynamic_rank_placeholders(spec):
    """Tensor(shape=[-2] or None, dtype=...) declares an input of any rank (MindSpore's dynamic rank)."""
    net = _RankFree()
    net.set_inputs(ms.Tensor(shape=spec, dtype=ms.float32))
    with graph_mode():
        for s in ((2, 4), (2, 3, 4), (5,), (3, 4), (2, 3, 5)):
            got = float(net(ms.Tensor(np.ones(s, np.float32))).asnumpy())
            assert got == np.prod(s) + len(s) + s[-1]
    f = ms.jit(lambda x: x * 2, input_signature=(ms.Tensor(shape=spec, dtype=ms.float32),))
    np.testing.assert_array_equal(f(ms.Tensor(np.ones((2, 3), np.float32))).asnumpy(), np.full((2, 3), 2.0))
    with pytest.raises(TypeError, match="the type of 'input_data' should be one of"):
        ms.Tensor(shape=None)
    with pytest.raises(ValueError, match="If setting dynamic shape, dtype must not be None"):
        ms.Tensor(shape=[None, 3])


def test_placeholder_shape_reads_minus_one_and_mismatch_names_the_input():
    # MindSpore 2.10: Tensor(shape=[None, 3]).shape == (-1, 3); a declared dim that differs is a ValueError naming
    # the input (1-based) and both sizes
    assert ms.Tensor(shape=[None, 3], dtype=ms.float32).shape == (-1, 3)
    assert ms.Tensor(shape=[2, ms.Symbol(max=8)], dtype=ms.float32).shape == (2, -1)
    assert ms.Tensor(shape=[0, 3], dtype=ms.float32).shape == (0, 3)

    class Net(nn.Cell):
        def construct(self, a, b):
            return a.sum() + b.sum()

    net = Net()
    net.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float32), ms.Tensor(shape=[2, None], dtype=ms.float32))
    with graph_mode():
        ones = lambda *s: ms.Tensor(np.ones(s, np.float32))  # noqa: E731
        assert float(net(ones(1, 3), ones(2, 4))) == 11.0
        with pytest.raises(ValueError, match="shape of 2th input must be the same as expected, but got expected: "
                                             "2, and input: 5!"):
            net(ones(1, 3), ones(5, 4))
        with pytest.raises(ValueError, match="shape of 1th input .* expected: 3, and input: 4!"):
            net(ones(1, 4), ones(2, 4))


def test_jitted_construct_follows_set_inputs_of_its_cell():
    # @jit on construct in PyNative mode: the cell's set_inputs (Symbols included) key and check its calls, and a
    # later set_inputs replaces the earlier one
    class Net(nn.Cell):
        @ms.jit
        def construct(self, x, y):
            return x + y

    ones = lambda *s: ms.Tensor(np.ones(s, np.float32))  # noqa: E731
    net = Net()
    s1, s2 = ms.Symbol(max=16, divisor=8), ms.Symbol(min=4, unique=True)
    net.set_inputs(ms.Tensor(shape=[s1, s2], dtype=ms.float32), ms.Tensor(shape=[s1, s2], dtype=ms.float32))
    with pytest.raises(ValueError, match="'min' value '4' of `Symbol`, but got '1'"):
        net(ones(8, 1), ones(8, 1))
    with pytest.raises(ValueError, match="unique symbol"):
        net(ones(8, 4), ones(8, 5))
    np.testing.assert_allclose(net(ones(16, 8), ones(16, 8)).asnumpy(), np.full((16, 8), 2.0))
    net.set_inputs(ms.Tensor(shape=[2, None], dtype=ms.float32), ms.Tensor(shape=[2, None], dtype=ms.float32))
    with pytest.raises(ValueError, match="shape of 1th input must be the same as expected, but got expected: 2"):
        net(ones(16, 8), ones(16, 8))
    assert net(ones(2, 1), ones(2, 1)).shape == (2, 1)
