"""write_in_place: ReluGrad and the backward pass's Add written over a fresh input buffer nothing else reads."""
import numpy as np

import mindseed as ms
from mindseed import ops


def _prims(fn):
    (graph,) = fn.graphs()
    return [n.prim.name for n in graph.nodes]


def _residual(x, w1, w2):
    h = ops.relu(ops.matmul(x, w1))
    return ops.relu(ops.matmul(h, w2) + h)     # backward: ReluGrad of a MatMul's result, Add joining two paths


def _residual_np(x, w1, w2):
    h = np.maximum(x @ w1, 0)
    return np.maximum(h @ w2 + h, 0)


def _data(seed, dtype):
    rng = np.random.default_rng(seed)
    x, w1, w2 = (rng.standard_normal(s).astype(dtype) for s in ((4, 6), (6, 6), (6, 6)))
    x[np.abs(x) < 0.05] = 0.3      # keep finite differences away from the kinks
    return x, w1, w2


def test_gradients_are_pynative_bit_for_bit_and_match_finite_differences():
    x, w1, w2 = _data(1, np.float64)
    c = np.random.default_rng(2).standard_normal((4, 6))

    def loss(x, w1, w2):
        return (_residual(x, w1, w2) * ms.Tensor(c)).sum()
    args = [ms.Tensor(a) for a in (x, w1, w2)]
    g = ms.jit(ms.grad(loss, grad_position=(0, 1, 2)))
    got = [t.asnumpy() for t in g(*args)]
    want = [t.asnumpy() for t in ms.grad(loss, grad_position=(0, 1, 2))(*args)]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    eps = 1e-6
    for k, base in enumerate((x, w1, w2)):
        fd = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            hi, lo = [a.copy() for a in (x, w1, w2)], [a.copy() for a in (x, w1, w2)]
            hi[k][i] += eps
            lo[k][i] -= eps
            fd[i] = ((_residual_np(*hi) * c).sum() - (_residual_np(*lo) * c).sum()) / (2 * eps)
        np.testing.assert_allclose(got[k], fd, rtol=1e-5, atol=1e-6)
    names = _prims(g)
    assert "ReluGradInplace" in names and "AddInplace" in names


def test_values_read_elsewhere_are_not_overwritten():
    """A gradient another node still reads stays intact: here dout of each ReluGrad is also returned."""
    x, w, _ = _data(3, np.float32)

    def f(x, w):
        d = ops.matmul(x, w)                     # fresh, but read twice
        y = ops.relu(ops.matmul(x, w.T))
        s = d + y                                # d is read again below
        return s, d * 2, y

    fj = ms.jit(f)
    got = [t.asnumpy() for t in fj(ms.Tensor(x), ms.Tensor(w))]
    d, y = x @ w, np.maximum(x @ w.T, 0)
    for a, b in zip(got, (d + y, d * 2, y)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert "AddInplace" not in _prims(fj)


def test_graph_inputs_and_broadcast_adds_are_never_written():
    a = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    b = ms.Tensor(np.array([10.0, 20.0], np.float32))
    f = ms.jit(lambda a, b: (ops.matmul(a, a) + a, ops.matmul(a, a.T) + b))
    s, t = (v.asnumpy() for v in f(a, b))
    an = a.asnumpy()
    np.testing.assert_array_equal(an, [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(s, an @ an + an)
    np.testing.assert_allclose(t, an @ an.T + [10.0, 20.0])
    names = _prims(f)
    assert names.count("AddInplace") == 1       # matmul + a: the fresh product is written; + b broadcasts: not

