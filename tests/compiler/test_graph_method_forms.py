"""Tensor methods whose argument forms MindSpore's graph resolves differently from PyNative: `x.argmax()` without an
axis reduces the last axis in a graph (its older form) and all elements in PyNative; `amax`/`amin` take the graph
form's `keep_dims`. Expected values are MindSpore 2.10's (CPU)."""
import numpy as np

import mindseed as ms
from mindseed import Tensor

_X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)[:, ::-1].copy()


def test_argmax_without_axis_reduces_the_last_axis_in_a_graph():
    @ms.jit
    def f(x):
        return x.argmax(), x.argmax(keepdims=True), x.argmax(None), x.argmax(axis=1), x.argmin()

    a, keep, flat, ax1, amin = f(Tensor(_X))
    np.testing.assert_array_equal(a.asnumpy(), np.argmax(_X, -1))
    np.testing.assert_array_equal(keep.asnumpy(), np.argmax(_X, -1)[..., None])
    assert flat.shape == () and int(flat.asnumpy()) == int(np.argmax(_X))
    np.testing.assert_array_equal(ax1.asnumpy(), np.argmax(_X, 1))
    assert amin.shape == () and int(amin.asnumpy()) == int(np.argmin(_X))
    # PyNative: over all elements
    eager = Tensor(_X).argmax()
    assert eager.shape == () and int(eager.asnumpy()) == int(np.argmax(_X))


def test_amax_amin_take_keep_dims_in_a_graph_and_pynative():
    @ms.jit
    def f(x):
        return x.amax(1, keep_dims=True), x.amin(axis=2, keep_dims=True), x.amax(), x.amin(0, True)

    mx, mn, whole, mn0 = f(Tensor(_X))
    np.testing.assert_array_equal(mx.asnumpy(), _X.max(1, keepdims=True))
    np.testing.assert_array_equal(mn.asnumpy(), _X.min(2, keepdims=True))
    assert float(whole.asnumpy()) == 23.0
    np.testing.assert_array_equal(mn0.asnumpy(), _X.min(0, keepdims=True))
    np.testing.assert_array_equal(Tensor(_X).amax(2, keepdims=True).asnumpy(), _X.max(2, keepdims=True))


def test_jit_of_a_callable_object_compiles_its_call():
    import functools

    from mindseed import ops

    x = Tensor(np.array([1.0, 2.0], np.float32))
    for mode in ("ast", "bytecode"):
        np.testing.assert_array_equal(ms.jit(ops.Equal(), capture_mode=mode)(x, 1.0).asnumpy(), [True, False])
        np.testing.assert_allclose(ms.jit(ops.Add(), capture_mode=mode)(x, x).asnumpy(), [2.0, 4.0])
    scaled = ms.jit(functools.partial(ops.mul, other=3.0))
    np.testing.assert_allclose(scaled(x).asnumpy(), [3.0, 6.0])
