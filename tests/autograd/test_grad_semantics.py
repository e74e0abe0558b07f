"""Gradient semantics checked against MindSpore 2.10 PyNative: ties, aliasing, in-place updates, assign."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def _np(x):
    return x.asnumpy()


# ---------------------------------------------------------------- maximum / minimum on ties
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_maximum_minimum_split_gradient_on_ties(dtype):
    x, y = t([1.0, 2.0, 3.0], dtype), t([1.0, 5.0, 0.0], dtype)
    gx, gy = ms.grad(ops.maximum, (0, 1))(x, y)
    np.testing.assert_allclose(_np(gx), [0.5, 0.0, 1.0])
    np.testing.assert_allclose(_np(gy), [0.5, 1.0, 0.0])
    gx, gy = ms.grad(ops.minimum, (0, 1))(x, y)
    np.testing.assert_allclose(_np(gx), [0.5, 1.0, 0.0])
    np.testing.assert_allclose(_np(gy), [0.5, 0.0, 1.0])
    # broadcast: the scalar collects both halves
    gx, gy = ms.grad(ops.maximum, (0, 1))(t([2.0, 2.0], dtype), t(2.0, dtype))
    np.testing.assert_allclose(_np(gx), [0.5, 0.5])
    np.testing.assert_allclose(_np(gy), 1.0)


def test_maximum_grad_of_grad_away_from_ties():
    x = t([1.0, 4.0], np.float64)
    g2 = ms.grad(ms.grad(lambda a: (ops.maximum(a * a, 3.0)).sum()))(x)
    np.testing.assert_allclose(_np(g2), [0.0, 2.0])


def test_fmax_and_reductions_keep_their_tie_rules():
    np.testing.assert_allclose([_np(g) for g in ms.grad(ops.fmax, (0, 1))(t([2.0, 2.0]), t([2.0, 1.0]))],
                               [[1.0, 1.0], [0.0, 0.0]])
    np.testing.assert_allclose(_np(ms.grad(lambda a: a.max())(t([2.0, 2.0, 1.0]))), [0.5, 0.5, 0.0])


# ---------------------------------------------------------------- the same tensor at several positions
def test_same_tensor_twice_is_one_variable():
    x = t([1.0, 2.0])

    def f(a, b):
        return (a * b * b).sum()
    gx, gy = ms.grad(f, grad_position=(0, 1))(x, x)
    np.testing.assert_allclose(_np(gx), [3.0, 12.0])  # d/dx x^3, at both positions (as MindSpore)
    np.testing.assert_allclose(_np(gy), [3.0, 12.0])
    v, (gx, _) = ms.value_and_grad(f, grad_position=(0, 1))(x, x)
    assert v.item() == 9.0
    np.testing.assert_allclose(_np(ms.grad(f, grad_position=0)(x, x)), [3.0, 12.0])
    g0, g2 = ms.grad(lambda a, b, c: (a * b + c).sum(), grad_position=(0, 2))(x, x, x)
    np.testing.assert_allclose(_np(g0), [3.0, 5.0])
    np.testing.assert_allclose(_np(g2), [3.0, 5.0])
    # distinct tensors with equal values stay distinct
    gx, gy = ms.grad(f, grad_position=(0, 1))(x, t([1.0, 2.0]))
    np.testing.assert_allclose(_np(gx), [1.0, 4.0])
    np.testing.assert_allclose(_np(gy), [2.0, 8.0])


# ---------------------------------------------------------------- in-place updates
def test_augmented_assignment_on_input_and_intermediate():
    x = t([1.0, 2.0, 3.0])

    def f(a):
        a += 1
        return (a * a).sum()
    np.testing.assert_allclose(_np(ms.grad(f)(x)), [4.0, 6.0, 8.0])
    np.testing.assert_allclose(_np(x), [1.0, 2.0, 3.0])

    def g(a):
        y = a * 2
        y += a
        return (y * y).sum()
    np.testing.assert_allclose(_np(ms.grad(g)(x)), [18.0, 36.0, 54.0])

    def h(a):
        a *= 2
        return (a * a).sum()
    np.testing.assert_allclose(_np(ms.grad(h)(x)), [8.0, 16.0, 24.0])

    def k(a):
        z = a * 2
        w = z * 3
        z += 1
        return (w + z * z).sum()
    np.testing.assert_allclose(_np(ms.grad(k)(x)), [18.0, 26.0, 34.0])


def test_setitem_on_intermediate_and_copy():
    x = t([1.0, 2.0, 3.0])

    def f(a):
        y = a * 1
        y[0] = 5.0
        return (y * a).sum()
    np.testing.assert_allclose(_np(ms.grad(f)(x)), [5.0, 4.0, 6.0])

    def g(a):
        y = a.copy()
        y[0] = 2.0
        return (y * a).sum()
    np.testing.assert_allclose(_np(ms.grad(g)(x)), [2.0, 4.0, 6.0])

    def h(a):
        a = a + 0
        a[1:] = a[:2] * 2
        return (a * a).sum()
    np.testing.assert_allclose(_np(ms.grad(h)(x)), [10.0, 16.0, 0.0])

    def m(a):
        y = a * 1
        y[0] = 5.0
        y += 1
        return (y * a).sum()
    v, g_m = ms.value_and_grad(m)(x)
    assert v.item() == 24.0
    np.testing.assert_allclose(_np(g_m), [6.0, 5.0, 7.0])

    def after_rebind(a):
        a += 1
        a[0] = 2.0
        return (a * a).sum()
    np.testing.assert_allclose(_np(ms.grad(after_rebind)(t([1.0, 2.0]))), [0.0, 6.0])


def test_setitem_on_function_input_is_refused_as_mindspore():
    def f(a, b):
        b[0] = 2.0
        return (a * b).sum()
    with pytest.raises(RuntimeError, match="Can not modify tensor id of input tensor from network"):
        ms.grad(f)(t([1.0, 2.0]), t([3.0, 4.0]))
    with pytest.raises(RuntimeError, match="Can not modify tensor id"):
        ms.grad(lambda a: a.__setitem__(slice(0, 1), 2.0) or a.sum())(t([1.0, 2.0]))
    y = t([3.0, 4.0])
    y[0] = 1.0  # outside a transform nothing is refused
    assert y.asnumpy().tolist() == [1.0, 4.0]


def test_setitem_on_cell_input_in_graph_mode_is_a_functional_update():
    class Net(ms.nn.Cell):
        def construct(self, a, b):
            a[1] = 7.0
            b[0:2] = 3.0
            return a * 2, b * b

    x0 = np.arange(6, dtype=np.float32).reshape(3, 2)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Net()(t(x0), t(x0))
        np.testing.assert_allclose(out[0].asnumpy(), [[0, 2], [14, 14], [8, 10]])
        np.testing.assert_allclose(out[1].asnumpy(), [[9, 9], [9, 9], [16, 25]])
        class GradNet(ms.nn.Cell):
            def __init__(self):
                super().__init__()
                self.net = Net()

            def construct(self, a, b):
                return ops.GradOperation(get_all=True)(self.net)(a, b)

        ga, gb = GradNet()(t(x0), t(x0))
        np.testing.assert_allclose(ga.asnumpy(), [[2, 2], [0, 0], [2, 2]])
        np.testing.assert_allclose(gb.asnumpy(), [[0, 0], [0, 0], [8, 10]])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_inplace_method_on_input_differentiates_the_original_value():
    x = t([1.0, 2.0, 3.0])

    def f(a):
        a.add_(1)
        return (a * a).sum()
    v, g = ms.value_and_grad(f)(x)
    assert v.item() == 29.0
    np.testing.assert_allclose(_np(g), [4.0, 6.0, 8.0])
    np.testing.assert_allclose(_np(x), [1.0, 2.0, 3.0])


def test_parameter_updated_in_place_is_differentiated_at_its_new_value():
    p = ms.Parameter(t([1.0, 2.0]), name="p")

    def f(x):
        p[0] = 5.0
        return (x * p).sum()
    gx, (gp,) = ms.grad(f, 0, weights=[p])(t([1.0, 2.0]))
    np.testing.assert_allclose(_np(gx), [5.0, 2.0])
    np.testing.assert_allclose(_np(gp), [1.0, 2.0])


def test_assign_under_grad():
    p = ms.Parameter(t([1.0, 2.0]), name="p")

    def f(x):
        ops.assign(p, x * 2)
        return (p * x).sum()
    v, (gx, (gp,)) = ms.value_and_grad(f, 0, weights=[p])(t([3.0, 4.0]))
    assert v.item() == 50.0
    np.testing.assert_allclose(_np(gx), [6.0, 8.0])  # nothing flows back through the assignment
    np.testing.assert_allclose(_np(gp), [3.0, 4.0])

    def g(x):
        y = x * 2
        ops.assign(y, x * 5)  # a Tensor is written in place; its recorded history stays
        return (y * y).sum()
    v, gx = ms.value_and_grad(g)(t([1.0, 2.0, 3.0]))
    assert v.item() == 350.0
    np.testing.assert_allclose(_np(gx), [20.0, 40.0, 60.0])


def test_assign_checks():
    y = t([1.0, 2.0])
    assert ops.assign(y, t([3.0, 4.0])) is y and y.asnumpy().tolist() == [3.0, 4.0]
    ops.assign(y, t([1, 2], np.int32))
    assert y.dtype == ms.float32 and y.asnumpy().tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="'variable' must be a Parameter or Tensor"):
        ops.assign([1.0], t([1.0]))
    with pytest.raises(ValueError, match="must have the same shape"):
        ops.assign(y, t([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="must have the same rank"):
        ops.assign(y, 3.0)


def test_residual_outputs_reach_the_bprop_as_none():
    # a multi-output primitive's residual output (kept only for its bprop) gets no zeros cotangent; an ordinary
    # output nobody differentiated still gets zeros
    from mindseed._backend.kernels import core as KC
    from mindseed.ops._prims import core as P
    from mindseed.ops._registry import Prim, registry
    seen = {}

    def kernel(x):
        return KC.mul(x, 2.0), KC.mul(x, 3.0)

    def make(name, residual):
        prim = Prim(name, kernel, multi_output=True, residual_outputs=residual)

        @prim.def_bprop
        def _bprop(x, out, dout):
            seen[name] = dout[1]
            return (P.mul_p(dout[0], 2.0),)
        return prim
    with_res, without = make("TestResidualTwoOut", (1,)), make("TestPlainTwoOut", ())
    x = ms.Tensor(np.array([1.0, -2.0], np.float32))
    try:
        for prim in (with_res, without):
            g = ms.grad(lambda a, p=prim: p(a)[0].sum())(x)
            np.testing.assert_array_equal(g.asnumpy(), [2.0, 2.0])
    finally:  # the registry is the framework's: the primitive coverage check (tests/ops/test_rows.py) reads it
        del registry["TestResidualTwoOut"], registry["TestPlainTwoOut"]
    assert seen["TestResidualTwoOut"] is None
    np.testing.assert_array_equal(seen["TestPlainTwoOut"].asnumpy(), [0.0, 0.0])


def test_minimum_and_maximum_give_both_inputs_the_gradient_where_one_is_nan():
    x = ms.Tensor(np.array([1.7, 9.6, 5.8, np.nan, 2.0], np.float32))
    y = ms.Tensor(np.array([np.nan, 9.6, 1.0, 3.0, 2.0], np.float32))
    d = ms.Tensor(np.array([1.43, -1.09, 0.034, 2.0, 5.0], np.float32))
    gx, gy = ms.ops.GradOperation(get_all=True, sens_param=True)(ms.ops.minimum)(x, y, d)
    np.testing.assert_allclose(gx.asnumpy(), [1.43, -0.545, 0.0, 2.0, 2.5], rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), [1.43, -0.545, 0.034, 2.0, 2.5], rtol=1e-6)
    gx, gy = ms.ops.GradOperation(get_all=True, sens_param=True)(ms.ops.maximum)(x, y, d)
    np.testing.assert_allclose(gx.asnumpy(), [1.43, -0.545, 0.034, 2.0, 2.5], rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), [1.43, -0.545, 0.0, 2.0, 2.5], rtol=1e-6)


def test_no_grad_context_and_decorator():
    w = ms.Parameter(ms.Tensor(3.0), name="w")

    def f(x):
        with ms._no_grad():
            c = x * w            # a constant for the gradient
        return c * x

    assert ms.grad(f)(ms.Tensor(2.0)).asnumpy() == 6.0

    @ms._no_grad()
    def g(x):
        return x * x

    assert ms.grad(lambda x: g(x) + x)(ms.Tensor(2.0)).asnumpy() == 1.0
    assert ms.common.api._pynative_executor.enable_grad()     # restored on exit

    @ms.jit
    def inner(a, b):
        return a * b

    def under_no_grad(a, b):
        with ms._no_grad():
            c = inner(a, b)
        return c + a

    a, b = ms.Tensor(np.array([1.0, 2.0], np.float32)), ms.Tensor(np.array([5.0, 7.0], np.float32))
    np.testing.assert_array_equal(ms.grad(under_no_grad)(a, b).asnumpy(), [1.0, 1.0])
    # the compiled function called without _no_grad afterwards is differentiated again
    np.testing.assert_array_equal(ms.grad(inner)(a, b).asnumpy(), [5.0, 7.0])
