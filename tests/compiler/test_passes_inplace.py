"""write_in_place: ReluGrad and the backward pass's Add written over a fresh input buffer nothing else reads.

The gradients of a residual block computed this way (bit for bit PyNative's, and finite differences) are checked in
test_passes_relu.py, with the ResNet block trained in graph mode."""
import numpy as np

import mindseed as ms
from mindseed import ops


def _prims(fn):
    (graph,) = fn.graphs()
    return [n.prim.name for n in graph.nodes]


def _data(seed, dtype):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in ((4, 6), (6, 6), (6, 6))]


def test_values_read_elsewhere_are_not_overwritten():
    """An operand another node still reads is not written: d is added and also doubled, y is returned."""
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




def test_pre_norm_residual_gradient_joins_in_place_bit_for_bit():
    """x + LayerNorm(x) @ w (a pre-LN transformer's residual): x's gradient joins LayerNormGrad's fresh result with
    the incoming gradient, in place."""
    rng = np.random.default_rng(5)
    x, w, c = (ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in ((3, 4, 8), (8, 8), (3, 4, 8)))
    ln = ms.nn.LayerNorm((8,))

    def loss(x, w, c):
        return ((x + ops.matmul(ln(x), w)) * c).sum()
    g = ms.jit(ms.grad(loss, grad_position=(0, 1)))
    got = [t.asnumpy() for t in g(x, w, c)]
    want = [t.asnumpy() for t in ms.grad(loss, grad_position=(0, 1))(x, w, c)]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    names = _prims(g)
    assert "LayerNormGrad" in names and names.count("AddInplace") == 1 and "Add" not in names
