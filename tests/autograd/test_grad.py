"""Functional autodiff API: grad / value_and_grad / GradOperation / vjp / jvp / jac* / vmap / hooks."""
import contextlib

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed._utils import _state
from _graph import graph_mode


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def cubic(x, y):
    return x ** 3 - 2 * x * y + y ** 2


PX, PY = [1.0, -2.0, 0.5], [3.0, 1.0, -1.0]


def test_grad_positions_and_tuple():
    x, y = t(PX), t(PY)
    np.testing.assert_allclose(ms.grad(cubic, 0)(x, y).asnumpy(), [-3.0, 10.0, 2.75])
    np.testing.assert_allclose(ms.grad(cubic, 1)(x, y).asnumpy(), [4.0, 6.0, -3.0])
    both = ms.grad(cubic, (0, 1))(x, y)
    assert isinstance(both, tuple) and len(both) == 2
    np.testing.assert_allclose(both[1].asnumpy(), [4.0, 6.0, -3.0])


def test_grad_multi_output_sums_and_has_aux_returns_rest():
    x, y = t(PX), t(PY)

    def f(x, y):
        return cubic(x, y).sum(), x * y, y - x
    g, (prod, diff) = ms.grad(f, 0, has_aux=True)(x, y)
    np.testing.assert_allclose(g.asnumpy(), [-3.0, 10.0, 2.75])
    np.testing.assert_allclose(prod.asnumpy(), np.multiply(PX, PY))
    # without has_aux every output contributes: d/dx (sum cubic + x*y + y - x) = cubic' + y - 1
    g_all = ms.grad(f, 0)(x, y)
    np.testing.assert_allclose(g_all.asnumpy(), np.array([-3.0, 10.0, 2.75]) + np.array(PY) - 1)
    v, gy = ms.value_and_grad(f, 1, has_aux=True)(x, y)
    assert isinstance(v, tuple) and len(v) == 3
    np.testing.assert_allclose(gy.asnumpy(), [4.0, 6.0, -3.0])


def test_grad_weights_and_inputs_with_ids():
    w = ms.Parameter(t([[0.5, -1.0], [2.0, 0.25]]), name="w")
    b = ms.Parameter(t([0.1, -0.2]), name="b")
    x = t([[1.0, 2.0]])

    def f(x):
        return (ops.matmul(x, w) + b).sum()
    gx, (gw, gb) = ms.grad(f, 0, weights=[w, b])(x)
    np.testing.assert_allclose(gx.asnumpy(), [[-0.5, 2.25]])
    np.testing.assert_allclose(gw.asnumpy(), [[1.0, 1.0], [2.0, 2.0]])
    np.testing.assert_allclose(gb.asnumpy(), [1.0, 1.0])
    ids = ms.grad(f, (0,), weights=[w, b], return_ids=True)(x)
    np.testing.assert_allclose(ms.get_grad(ids, 0).asnumpy(), gx.asnumpy())
    np.testing.assert_allclose(ms.get_grad(ids, b).asnumpy(), gb.asnumpy())
    only_w = ms.grad(f, None, weights=w)(x)
    np.testing.assert_allclose(only_w.asnumpy(), gw.asnumpy())


def test_grad_errors():
    with pytest.raises(ValueError, match="can not be None at the same time"):
        ms.grad(cubic, grad_position=None, weights=None)
    with pytest.raises(ValueError, match="requires more than one outputs"):
        ms.grad(lambda x: (x * x).sum(), has_aux=True)(t(PX))
    # MindSpore: RuntimeError in PyNative mode, IndexError in graph mode (the error is both); a negative: ValueError
    with pytest.raises(RuntimeError, match="position index 5 is exceed input size"):
        ms.grad(cubic, 5)(t(PX), t(PY))
    with pytest.raises(IndexError, match="position index 2 is exceed input size"):
        ms.grad(cubic, (0, 2))(t(PX), t(PY))
    with pytest.raises(ValueError, match="grad_position must be >= 0"):
        ms.grad(cubic, -1)(t(PX), t(PY))


def test_unused_input_gets_zeros_and_stop_gradient_blocks():
    x, y = t(PX), t(PY)
    np.testing.assert_allclose(ms.grad(lambda x, y: (x * 2).sum(), 1)(x, y).asnumpy(), [0, 0, 0])
    g = ms.grad(lambda x: (x * x).sum() + ops.stop_gradient(x * 10).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * np.array(PX))


def test_third_derivative_of_sin():
    x = t([0.3, 1.2, -2.0], np.float64)
    d3 = ms.grad(ms.grad(ms.grad(lambda x: ops.sin(x).sum())))
    np.testing.assert_allclose(d3(x).asnumpy(), -np.cos([0.3, 1.2, -2.0]), rtol=1e-12)


def test_nested_grad_does_not_confuse_perturbations():
    # d/dx [ x * d/dy (x*y) |y=x ] = d/dx x^2 = 2x ; confusing the two would give 4x or similar
    def outer(x):
        inner = ms.grad(lambda y: (x * y).sum())(x)
        return (x * inner).sum()
    x = t([1.5, -2.0], np.float64)
    np.testing.assert_allclose(ms.grad(outer)(x).asnumpy(), 2 * np.array([1.5, -2.0]))


def test_grad_operation():
    x, y = t(PX), t(PY)
    f = lambda x, y: cubic(x, y).sum()  # noqa: E731
    np.testing.assert_allclose(ops.GradOperation()(f)(x, y).asnumpy(), [-3.0, 10.0, 2.75])
    gx, gy = ops.GradOperation(get_all=True)(f)(x, y)
    np.testing.assert_allclose(gy.asnumpy(), [4.0, 6.0, -3.0])
    sens = t([1.0, 2.0, 3.0])
    g = ops.GradOperation(sens_param=True)(lambda x: x * x)(x, sens)
    np.testing.assert_allclose(g.asnumpy(), 2 * np.array(PX) * [1, 2, 3])
    w = ms.Parameter(t([2.0]), name="w")
    gw = ops.GradOperation(get_by_list=True)(lambda x: (x * w).sum(), [w])(x)
    np.testing.assert_allclose(gw[0].asnumpy(), [sum(PX)])


def test_vjp_jvp_and_jacobians():
    x = t([1.0, 2.0, 3.0], np.float64)
    out, pull = ms.vjp(lambda x: x * x * x, x)
    (g,) = pull(t([1.0, 1.0, 1.0], np.float64))
    np.testing.assert_allclose(g.asnumpy(), 3 * x.asnumpy() ** 2)
    out, tangent = ms.jvp(lambda x: ops.exp(x) * x, x, t([1.0, 0.0, 2.0], np.float64))
    xv = x.asnumpy()
    np.testing.assert_allclose(tangent.asnumpy(), (np.exp(xv) * (1 + xv)) * [1, 0, 2])
    A = np.array([[1.0, 2.0, 0.0], [0.5, -1.0, 3.0]])
    f = lambda x: ops.matmul(ms.Tensor(A), x * x)  # noqa: E731
    want = A * (2 * xv)[None, :]
    np.testing.assert_allclose(ms.jacrev(f)(x).asnumpy(), want)
    np.testing.assert_allclose(ms.jacfwd(f)(x).asnumpy(), want)


def test_vmap_axes_nesting_and_grad():
    x = np.arange(12.0).reshape(3, 4)
    y = np.arange(4.0)
    f = ms.vmap(lambda a, b: (a * b).sum(), in_axes=(0, None))
    np.testing.assert_allclose(f(t(x), t(y)).asnumpy(), x @ y)
    g = ms.vmap(lambda a: a * 2, in_axes=1, out_axes=1)(t(x))
    np.testing.assert_allclose(g.asnumpy(), x * 2)
    nested = ms.vmap(ms.vmap(lambda a: a + 1))(t(x))
    np.testing.assert_allclose(nested.asnumpy(), x + 1)
    gr = ms.grad(lambda a: ms.vmap(lambda r: (r * r).sum())(a).sum())(t(x))
    np.testing.assert_allclose(gr.asnumpy(), 2 * x)
    with pytest.raises(RuntimeError, match="should be equal, but got 3 and 2"):
        ms.vmap(lambda a, b: a + b)(t(x), t(np.ones((2, 4))))


def test_vmap_out_axes_tuple_of_one_for_a_single_result():
    x = np.arange(24.0).reshape(2, 3, 4)
    for out_axes in ((0,), [1], (2,)):    # np.triu works on the last two axes of each batch element
        got = ms.vmap(lambda a, k: ops.triu(a, k), in_axes=(0, None), out_axes=out_axes)(t(x), 1)
        np.testing.assert_array_equal(got.asnumpy(), np.moveaxis(np.triu(x, 1), 0, out_axes[0]))
    with pytest.raises(RuntimeError, match="'out_axes' should be equal to the result size: 1, but got size: 2"):
        ms.vmap(lambda a: a * 2, out_axes=(0, 0))(t(x))
    with pytest.raises(RuntimeError, match="'out_axes' should be equal to the number of results of 'fn': 2, but"):
        ms.vmap(lambda a: (a, a * 2), out_axes=(0,))(t(x))
    with pytest.raises(RuntimeError, match="axis in vmap's 'out_axes' should be a None or a scalar"):
        ms.vmap(lambda a: a * 2, out_axes=((0,),))(t(x))


def test_cell_custom_bprop_replaces_gradient():
    class Scale(nn.Cell):
        def construct(self, x):
            return x * 3

        def bprop(self, x, out, dout):
            return (dout * 100,)
    g = ms.grad(lambda x: Scale()(x).sum())(t(PX))
    np.testing.assert_allclose(g.asnumpy(), [100.0] * 3)


def test_cell_backward_hook_sees_and_replaces_gradients():
    seen = {}

    class Sq(nn.Cell):
        def construct(self, x):
            return x * x
    cell = Sq()

    def hook(c, grad_input, grad_output):
        seen["in"] = grad_input[0].asnumpy()
        seen["out"] = grad_output[0].asnumpy()
        return (grad_input[0] * 0 + 7,)
    handle = cell.register_backward_hook(hook)
    g = ms.grad(lambda x: (cell(x) * 2).sum())(t(PX))
    np.testing.assert_allclose(seen["out"], [2.0, 2.0, 2.0])
    np.testing.assert_allclose(seen["in"], 4 * np.array(PX))
    np.testing.assert_allclose(g.asnumpy(), [7.0] * 3)
    handle.remove()
    g = ms.grad(lambda x: (cell(x) * 2).sum())(t(PX))
    np.testing.assert_allclose(g.asnumpy(), 4 * np.array(PX))


def test_forward_hooks_with_handles():
    class Id(nn.Cell):
        def construct(self, x):
            return x
    cell = Id()
    h1 = cell.register_forward_pre_hook(lambda c, args: (args[0] + 1,))
    h2 = cell.register_forward_hook(lambda c, args, out: out * 10)
    np.testing.assert_allclose(cell(t([1.0])).asnumpy(), [20.0])
    h1.remove()
    np.testing.assert_allclose(cell(t([1.0])).asnumpy(), [10.0])
    h2.remove()
    np.testing.assert_allclose(cell(t([1.0])).asnumpy(), [1.0])


def test_no_tape_left_behind_and_no_recording_outside_transforms():
    x = t(PX)
    ms.grad(lambda x: (x * x).sum())(x)
    assert _state.tapes == []
    with pytest.raises(ZeroDivisionError):
        ms.grad(lambda x: 1 / 0)(x)
    assert _state.tapes == []


def test_integer_input_is_differentiated_in_its_dtype():
    # as MindSpore: an integer Tensor is differentiated like any other, its gradient cast to its dtype
    g = ms.grad(lambda x, n: (x * n).sum(), 1)(t(PX), ms.Tensor([1, 2, 3]))
    assert g.dtype == ms.int64
    np.testing.assert_array_equal(g.asnumpy(), [1, -2, 0])
    x = ms.Tensor(np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.int8))
    g = ms.grad(lambda a: ops.cumsum(a, 1))(x)
    assert g.dtype == ms.int8
    np.testing.assert_array_equal(g.asnumpy(), [[4, 3, 2, 1], [4, 3, 2, 1]])
    g = ms.grad(lambda a, b: ops.floor_mod(a, b))(ms.Tensor([2, 4, -1], ms.int32), ms.Tensor([3, 3, 3], ms.int32))
    np.testing.assert_array_equal(g.asnumpy(), [1, 1, 1])
    # comparisons pass no gradient
    g = ms.grad(lambda a, b: ops.greater(a, b))(ms.Tensor([2, 4], ms.int32), ms.Tensor([3, 3], ms.int32))
    np.testing.assert_array_equal(g.asnumpy(), [0, 0])


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_gradient_flows_through_casts_to_integers_and_back(mode):
    # float -> uint8 -> gradient ones back at the float input; int32 -> float64 -> ones in int32
    byte = lambda a: a.byte()  # noqa: E731
    double = lambda a: a.double()  # noqa: E731
    run = (lambda f, *a: ms.jit(f)(*a)) if mode == "graph" else (lambda f, *a: f(*a))
    ctx = graph_mode() if mode == "graph" else contextlib.nullcontext()
    with ctx:
        g = run(lambda a: ms.grad(byte)(a), ms.Tensor(np.full((2, 2), 1.7, np.float32)))
        assert g.dtype == ms.float32
        np.testing.assert_array_equal(g.asnumpy(), np.ones((2, 2)))
        g = run(lambda a: ms.grad(double)(a), ms.Tensor(np.ones((2, 2)), ms.int32))
        assert g.dtype == ms.int32
        np.testing.assert_array_equal(g.asnumpy(), np.ones((2, 2)))


def test_a_frozen_weight_asked_for_gets_zeros_eager_and_compiled():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")
            self.v = ms.Parameter(ms.Tensor(np.array([2.0, 2.0, 2.0], np.float32)), name="v", requires_grad=False)

        def construct(self, x):
            return (x * self.w * self.v).sum()
    net = Net()
    x = ms.Tensor(np.array([0.5, -1.0, 2.0], np.float32))
    for fn in (net, ms.jit(net.construct)):
        gw, gv = ms.grad(fn, None, [net.w, net.v])(x)
        np.testing.assert_array_equal(gw.asnumpy(), [1.0, -2.0, 4.0])
        np.testing.assert_array_equal(gv.asnumpy(), [0.0, 0.0, 0.0])
        gw, gv = ops.GradOperation(get_by_list=True)(fn, ms.ParameterTuple([net.w, net.v]))(x)
        np.testing.assert_array_equal(gv.asnumpy(), [0.0, 0.0, 0.0])
    gw, gv = ms.jit(ms.grad(net, None, [net.w, net.v]))(x)
    np.testing.assert_array_equal(gv.asnumpy(), [0.0, 0.0, 0.0])


def test_vjp_of_a_function_updating_its_input_in_place():
    def f(x):
        x.mul_(2.0)
        return x * x
    x = ms.Tensor(np.array([1.0, -3.0], np.float32))
    out, pull = ms.vjp(f, x)
    np.testing.assert_allclose(out.asnumpy(), [4.0, 36.0])
    np.testing.assert_allclose(pull(ms.Tensor(np.ones(2, np.float32)))[0].asnumpy(), [8.0, -24.0])


def test_vmap_batch_size_and_all_none_errors_are_mindspores():
    x = np.ones((3, 2))
    with pytest.raises(RuntimeError, match="should be equal, but got 2 and 3"):
        ms.vmap(lambda a, b: a + b)(t(np.ones((2, 2))), t(x))
    with pytest.raises(RuntimeError, match="cannot be a single None"):
        ms.vmap(lambda a, b: a + b, in_axes=None)(t(x), t(x))
    with pytest.raises(RuntimeError, match=r"cannot be all None .* but got \(None, None\)"):
        ms.vmap(lambda a, b: a + b, in_axes=(None, None))(t(x), t(x))


def test_vmap_in_axes_type_and_bounds_errors_are_mindspores():
    x = t(np.arange(6.0).reshape(2, 3))
    with pytest.raises(RuntimeError, match=r"'in_axes' should be a None or a scalar of type Int64Imm, but got a 1\."):
        ms.vmap(lambda a, b: a + b, in_axes=(1., None))(x, 1)
    with pytest.raises(RuntimeError, match=r"The axis: -3 in 'in_axes' is out of bounds for array of dimension "
                                           r"\[-2,2\)\."):
        ms.vmap(lambda a, b: a + b, in_axes=(-3, None))(x, 1)
    # the last axis in range maps as numpy's would
    np.testing.assert_allclose(ms.vmap(lambda a: a * 2, in_axes=-1)(x).asnumpy(), np.arange(6.0).reshape(2, 3).T * 2)


def test_vmap_out_axes_all_none_and_argument_count_errors_are_mindspores():
    x = t(np.ones((2, 3)))

    def f(a, b, c):
        return a + b, c

    with pytest.raises(RuntimeError, match=r"'out_axes' of 'vmap' cannot be a single None"):
        ms.vmap(lambda a: a * 2, 0, None)(x)
    with pytest.raises(RuntimeError, match=r"cannot be all None while 'fn' is not a 'CellList', but got "
                                           r"\(None, \(None, None\)\)\."):
        ms.vmap(f, in_axes=(1, 1, None), out_axes=(None, (None, None)))(x, x, 1)
    with pytest.raises(TypeError, match="The parameters number of the function is 3, but the number of provided "
                                        "arguments is 2."):
        ms.vmap(f, in_axes=(1, 1, None))(x, x)
    # a parameter with a default may be left out
    np.testing.assert_allclose(ms.vmap(lambda a, b=3: a * b)(x).asnumpy(), np.full((2, 3), 3.0))


def test_vmap_no_arguments_and_out_axes_bounds_errors_are_mindspores():
    x = t(np.arange(6.0).reshape(2, 3))
    with pytest.raises(RuntimeError, match="Failed to get 'axis_size' within the scope of vmap."):
        ms.vmap(lambda: 1)()
    with pytest.raises(RuntimeError, match=r"The axis: 1 in 'out_axes' is out of bounds for array of dimension "
                                           r"\[-1,1\)\."):
        ms.vmap(lambda a, c: (a * 2, c), in_axes=(1, None), out_axes=(0, 1))(x, 1)
    with pytest.raises(RuntimeError, match=r"The axis: -3 in 'out_axes' is out of bounds .* \[-2,2\)\."):
        ms.vmap(lambda a: a * 2, in_axes=1, out_axes=-3)(x)
    # in bounds: the batch axis goes where out_axes says
    got = ms.vmap(lambda a, c: (a * 2, c), in_axes=(1, None), out_axes=(-1, 0))(x, 1)
    np.testing.assert_allclose(got[0].asnumpy(), np.arange(6.0).reshape(2, 3) * 2)
    assert got[1].asnumpy().tolist() == [1, 1, 1]
