"""The forms MindSpore gives gradient results in: a single Parameter's gradient alone, GradOperation without
weights, an empty grad_position; gradients through a sequence operand and to integer weights of a compiled cell;
numpy values on the left of an operator."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn
from mindseed.ops import GradOperation


class _Affine(nn.Cell):
    def __init__(self, dtype=ms.float32, compiled=False):
        super().__init__()
        self.w = Parameter(Tensor([6], dtype), name="w")
        self.b = Parameter(Tensor([2], dtype), name="b")
        if compiled:
            self.construct = ms.jit(self.construct)

    def construct(self, x):
        return self.w * x + self.b


def test_a_single_parameter_gets_its_gradient_alone():
    net, x = _Affine(), Tensor([10.0])
    assert GradOperation(get_by_list=True)(net, net.w)(x).asnumpy().tolist() == [10.0]
    ig, wg = GradOperation(get_all=True, get_by_list=True)(net, net.w)(x)
    assert ig[0].asnumpy().tolist() == [6.0] and wg.asnumpy().tolist() == [10.0]
    listed = GradOperation(get_by_list=True)(net, [net.w])(x)
    assert isinstance(listed, tuple) and listed[0].asnumpy().tolist() == [10.0]
    assert ms.grad(net, None, net.w)(x).asnumpy().tolist() == [10.0]
    (pos, gx), (name, gw) = ms.grad(net, 0, net.w, return_ids=True)(x)
    assert (pos, name) == (0, "w") and gx.asnumpy().tolist() == [6.0] and gw.asnumpy().tolist() == [10.0]
    value, gw = ms.value_and_grad(net, None, net.w)(x)
    assert value.asnumpy().tolist() == [62.0] and gw.asnumpy().tolist() == [10.0]


def test_grad_operation_without_weights_takes_the_cells_trainable_parameters():
    net, x = _Affine(), Tensor([10.0])
    gw, gb = GradOperation(get_by_list=True)(net)(x)
    assert gw.asnumpy().tolist() == [10.0] and gb.asnumpy().tolist() == [1.0]
    ig, wg = GradOperation(get_all=True, get_by_list=True)(lambda x: 3 * x, None)(x)
    assert ig[0].asnumpy().tolist() == [3.0] and wg == ()
    assert GradOperation()(lambda: net.w * 2)() == ()
    assert GradOperation(get_all=True)(lambda: net.w * 2)() == ()


def test_grad_operation_without_weights_in_pynative_takes_the_parameters_read_in_order_of_use():
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = ms.Parameter(Tensor(2.0), name="a")
            self.b = ms.Parameter(Tensor(3.0), name="b")
            self.unused = ms.Parameter(Tensor(5.0), name="unused")
            self.frozen = ms.Parameter(Tensor(4.0), name="frozen", requires_grad=False)

        def construct(self, x):
            return x * self.b * self.frozen * self.a

    net, x = Net(), Tensor(1.0)
    # d/db = x * frozen * a = 8, d/da = x * b * frozen = 12; `unused` and `frozen` are left out
    gb, ga = GradOperation(get_by_list=True)(net)(x)
    assert (gb.asnumpy().tolist(), ga.asnumpy().tolist()) == (8.0, 12.0)
    g = ms.Parameter(Tensor(7.0), name="g")
    ig, wg = GradOperation(get_all=True, get_by_list=True)(lambda x: x * g * net.a)(x)
    assert ig[0].asnumpy().tolist() == 14.0 and [w.asnumpy().tolist() for w in wg] == [2.0, 7.0]

    class Returns(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(Tensor([5.0]), name="w")
            self.v = ms.Parameter(Tensor([2.0]), name="v")

        def construct(self, x):
            return self.w, x * self.v       # w is read by no operation: returned as it is, after v

    gv, gw = GradOperation(get_by_list=True)(Returns())(Tensor([2.0]))
    assert (gv.asnumpy().tolist(), gw.asnumpy().tolist()) == ([2.0], [1.0])


def test_an_empty_grad_position_is_refused():
    net = _Affine()
    for weights in (net.w, None):
        with pytest.raises(RuntimeError, match="grad_position should not be empty"):
            ms.grad(net, grad_position=(), weights=weights)(Tensor([1.0]))


def test_gradients_reach_the_tensors_inside_a_sequence_operand():
    x, y, z = Tensor(2.0), Tensor(-3.0), Tensor(0.0)
    for f in (lambda x, y, z: x + (z, x), lambda x, y, z: (z, x) + x, lambda x, y, z: x - [y, 2 * z]):
        got = [g.asnumpy().item() for g in ms.grad(f, (0, 1, 2))(x, y, z)]
        eps, base = 1e-3, np.array([2.0, -3.0, 0.0])
        fd = []
        for i in range(3):
            hi, lo = base.copy(), base.copy()
            hi[i] += eps
            lo[i] -= eps
            fd.append((f(*map(Tensor, hi)).asnumpy().sum() - f(*map(Tensor, lo)).asnumpy().sum()) / (2 * eps))
        np.testing.assert_allclose(got, fd, atol=1e-2)
    assert (Tensor([1.0, 2.0]) + (Tensor(1), 2)).asnumpy().tolist() == [2.0, 4.0]


@pytest.mark.parametrize("compiled", [False, True])
def test_integer_weights_get_gradients(compiled):
    net = _Affine(ms.int64, compiled)
    gx, gw = ms.grad(net, 0, net.w)(Tensor([3.0]))
    assert gx.asnumpy().tolist() == [6.0]
    assert gw.dtype == ms.int64 and gw.asnumpy().tolist() == [3]


def test_numpy_values_on_the_left_compute_in_numpy_outside_graphs():
    t = Tensor(np.array([1.0, 0.0], np.float32))
    for out in (np.float32(0.5) < t, np.float64(2) * t, np.ones(2) - t, np.array([1.0, 1.0]) == t):
        assert isinstance(out, np.ndarray)
    assert (np.bool_(False) == t.all()).item() is True
    np.testing.assert_array_equal(np.float64(2) * t, [2.0, 0.0])
    assert isinstance(t * np.float32(2), Tensor)

    @ms.jit
    def scaled(x):
        return np.float32(2) * x, np.ones(2, np.float32) - x

    a, b = scaled(t)
    assert isinstance(a, Tensor) and a.asnumpy().tolist() == [2.0, 0.0]
    assert isinstance(b, Tensor) and b.asnumpy().tolist() == [0.0, 1.0]


def test_tensors_passed_by_keyword_are_differentiated_after_the_positional_ones():
    a, b = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, -1.0], np.float32))
    np.testing.assert_allclose(GradOperation()(lambda *, a, b: a * b)(a=a, b=b).asnumpy(), b.asnumpy())
    ga, gb = GradOperation(get_all=True)(lambda **kw: kw["a"] * kw["b"] + kw["c"])(a=a, b=b, c=3)
    np.testing.assert_allclose(ga.asnumpy(), b.asnumpy())
    np.testing.assert_allclose(gb.asnumpy(), a.asnumpy())
    gx, gb = ms.grad(lambda x, *, b: (x * b).sum(), (0, 1))(a, b=b)
    np.testing.assert_allclose(gx.asnumpy(), b.asnumpy())
    np.testing.assert_allclose(gb.asnumpy(), a.asnumpy())


def test_return_ids_gives_one_input_its_pair_itself():
    # MindSpore 2.10 (PyNative and graph): grad(fn, 0, return_ids=True) gives (0, dx), with weights
    # ((0, dx), (('w', dw),)), as one differentiated input gives its gradient itself without return_ids
    net, x = _Affine(), Tensor([10.0])
    res = ms.grad(net, 0, return_ids=True)(x)
    assert isinstance(res, tuple) and len(res) == 2 and res[0] == 0
    assert res[1].asnumpy().tolist() == [6.0]
    pair, weights = ms.grad(net, (0,), [net.w], return_ids=True)(x)
    assert pair[0] == 0 and pair[1].asnumpy().tolist() == [6.0]
    assert len(weights) == 1 and weights[0][0] == "w" and weights[0][1].asnumpy().tolist() == [10.0]
    value, res = ms.value_and_grad(net, 0, return_ids=True)(x)
    assert value.asnumpy().tolist() == [62.0] and res[0] == 0
    assert ms.get_grad(res, 0).asnumpy().tolist() == [6.0]


def test_get_grad_of_an_identifier_not_there_is_a_runtime_error():
    net, x = _Affine(), Tensor([10.0])
    res = ms.grad(net, 0, return_ids=True)(x)
    with pytest.raises(RuntimeError, match="can not find the gradient for position or Parameter 1"):
        ms.get_grad(res, 1)
