"""Which inputs `grad` differentiates and the shape of what it returns, as MindSpore 2.10 does.

One differentiated input gives its gradient itself (`grad_position=0` and `(0,)` alike), several a tuple,
none an empty tuple. Arguments that are not Tensors (numbers, constant tuples) are skipped; in a graph a
tuple holding Tensors is differentiated too (its gradient is a tuple).
"""
import contextlib

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _graph import graph_mode


def t(a):
    return ms.Tensor(np.asarray(a, dtype=np.float32))


def _mode(mode):
    return graph_mode() if mode == "graph" else contextlib.nullcontext()


def _run(mode, fn, *args):
    return ms.jit(fn)(*args) if mode == "graph" else fn(*args)


def cube_scaled(x, k, n):
    return x * x * x * k + n


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_one_position_gives_the_gradient_itself(mode):
    x = t([1.0, 2.0])
    with _mode(mode):
        for pos in (0, (0,)):
            g = _run(mode, lambda a, pos=pos: ms.grad(cube_scaled, pos)(a, 2, 3), x)
            assert isinstance(g, ms.Tensor)
            np.testing.assert_allclose(g.asnumpy(), [6.0, 24.0])


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_non_tensor_positions_are_skipped(mode):
    x = t([1.0, 2.0])
    with _mode(mode):
        # 2 and 3 are numbers: only x is differentiated, and a single gradient comes back
        g = _run(mode, lambda a: ms.grad(cube_scaled, (0, 1, 2))(a, 2, 3), x)
        assert isinstance(g, ms.Tensor)
        np.testing.assert_allclose(g.asnumpy(), [6.0, 24.0])
        # nothing differentiable asked for: an empty tuple
        assert _run(mode, lambda a: ms.grad(cube_scaled, (1, 2))(a, 2, 3), x) == ()


def test_constant_tuple_argument_is_skipped_in_graph_and_pynative():
    def resize(x, size):
        return ops.ResizeNearestNeighbor(size, True)(x)

    x = t([[[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]]])
    want = [[[[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]]]]
    np.testing.assert_allclose(ms.grad(resize, (0, 1))(x, (2, 2)).asnumpy(), want)
    with graph_mode():
        g = ms.jit(lambda a: ms.grad(resize, (0, 1))(a, (2, 2)))(x)
        np.testing.assert_allclose(g.asnumpy(), want)


def test_tuple_of_tensors_is_differentiated_in_graph_only():
    def f(x, pair):
        return x * pair[0] + pair[1] * pair[1]

    x, a, b = t([1.0, 2.0]), t([3.0, 4.0]), t([5.0, 6.0])
    with graph_mode():
        gx, (ga, gb) = ms.jit(lambda x, a, b: ms.grad(f, (0, 1))(x, (a, b)))(x, a, b)
    np.testing.assert_allclose(gx.asnumpy(), [3.0, 4.0])
    np.testing.assert_allclose(ga.asnumpy(), [1.0, 2.0])
    np.testing.assert_allclose(gb.asnumpy(), [10.0, 12.0])
    # PyNative skips the tuple: x alone
    g = ms.grad(f, (0, 1))(x, (a, b))
    np.testing.assert_allclose(g.asnumpy(), [3.0, 4.0])


def test_tuple_the_graph_was_called_with_is_skipped_unless_mutable():
    # MindSpore keeps a (not mutable) tuple/list/dict argument of the compiled function fixed: grad skips it,
    # while a tuple built in the graph, or passed as `mutable`, is differentiated
    def f(x, pair, y):
        return x * pair[0] * pair[1] + y

    outer = ms.jit(lambda x, pair, y: ops.GradOperation(get_all=True)(f)(x, pair, y))
    x, a, b, y = t([2.0, 3.0]), t([3.0, 1.0]), t([4.0, 5.0]), t([5.0, 7.0])
    gx, gy = outer(x, (a, b), y)
    np.testing.assert_allclose(gx.asnumpy(), [12.0, 5.0])
    np.testing.assert_allclose(gy.asnumpy(), [1.0, 1.0])
    gx, (ga, gb), gy = outer(x, ms.mutable((a, b)), y)
    np.testing.assert_allclose(ga.asnumpy(), [8.0, 15.0])
    np.testing.assert_allclose(gb.asnumpy(), [6.0, 3.0])
    # nested containers of a Cell's arguments (graph mode) are fixed too
    class Net(ms.nn.Cell):
        def construct(self, x, nested, d):
            return ops.GradOperation(get_all=True)(lambda u, v, w: u * v[1][0] + w["k"])(x, nested, d)

    with graph_mode():
        got = Net()(x, [a, (b,)], {"k": y})
    assert len(got) == 1
    np.testing.assert_allclose(got[0].asnumpy(), [4.0, 5.0])


def test_one_position_with_weights_and_return_ids():
    w = ms.Parameter(t([2.0, 3.0]), name="w")

    def f(x):
        return (x * w).sum()

    x = t([1.0, 5.0])
    gx, gw = ms.grad(f, (0,), weights=[w])(x)
    np.testing.assert_allclose(gx.asnumpy(), [2.0, 3.0])
    np.testing.assert_allclose(gw[0].asnumpy(), [1.0, 5.0])
    pos, g = ms.grad(f, (0,), return_ids=True)(x)     # MindSpore: (0, grad) for one input
    assert pos == 0
    np.testing.assert_allclose(g.asnumpy(), [2.0, 3.0])
    v, g = ms.value_and_grad(f, (0,))(x)
    np.testing.assert_allclose(v.asnumpy(), 17.0)
    np.testing.assert_allclose(g.asnumpy(), [2.0, 3.0])


def _numeric_jac(f, x, eps=1e-6):
    x = np.asarray(x, np.float64)
    out = np.asarray(f(x))
    jac = np.zeros(out.shape + x.shape)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        jac[(Ellipsis,) + idx] = (np.asarray(f(x + d)) - np.asarray(f(x - d))) / (2 * eps)
    return jac


@pytest.mark.parametrize("mode", ["graph", "pynative"])
@pytest.mark.parametrize("jac", [ops.jacrev, ops.jacfwd])
def test_jacobian_of_several_outputs_is_per_output_then_per_input(jac, mode):
    def f(x, y, z):
        return x * x + y * y + z * z, x * y * z

    xs = [np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[-2.0, 3.0], [-1.0, 2.0]]),
          np.array([[0.0, 3.0], [5.0, -1.0]])]
    np_f = [lambda x, y, z: x * x + y * y + z * z, lambda x, y, z: x * y * z]
    with _mode(mode):
        got = _run(mode, lambda *a: jac(f, grad_position=(1, 2))(*a), *[t(x) for x in xs])
        assert isinstance(got, tuple) and len(got) == 2
        for j in range(2):
            assert isinstance(got[j], tuple) and len(got[j]) == 2
            for k, p in enumerate((1, 2)):
                def one(v, j=j, p=p):
                    a = list(xs)
                    a[p] = v
                    return np_f[j](*a)
                np.testing.assert_allclose(got[j][k].asnumpy(), _numeric_jac(one, xs[p]), atol=1e-4)
        # an int grad_position: per output, the Jacobian itself
        single = _run(mode, lambda *a: jac(f)(*a), *[t(x) for x in xs])
        assert isinstance(single, tuple) and len(single) == 2 and isinstance(single[1], ms.Tensor)
        np.testing.assert_allclose(single[1].asnumpy(),
                                   _numeric_jac(lambda v: np_f[1](v, xs[1], xs[2]), xs[0]), atol=1e-4)


@pytest.mark.parametrize("jit", [False, True])
def test_duplicate_positions_and_has_aux_errors(jit):
    x = t(np.ones((2, 3)))

    def run(fn):
        return (ms.jit(fn) if jit else fn)(x)

    # MindSpore 2.10: ValueError for duplicates in both modes; has_aux without a tuple is ValueError in PyNative and
    # RuntimeError from the graph compiler
    with pytest.raises(ValueError, match="There are duplicate positions in `grad_position`"):
        run(lambda a: ms.grad(lambda u, v: (u * v).sum(), (1, 1))(a, a))
    with pytest.raises(RuntimeError if jit else ValueError, match="When has_aux is True, origin fn requires more "):
        run(lambda a: ms.grad(lambda u: (u * u).sum(), 0, has_aux=True)(a))


def _fxy(a, b):
    return (a * b * b).sum()


@pytest.mark.parametrize("kwargs, msg", [
    ({"grad_position": [0, 1]}, "For 'F.grad', the 'grad_position' must be int or tuple."),
    ({"grad_position": 0.5}, "For 'F.grad', the 'grad_position' must be int or tuple."),
    ({"grad_position": "0"}, "For 'F.grad', the 'grad_position' must be int or tuple."),
    ({"grad_position": (0, 1.0)}, "For 'F.grad', the element in 'grad_position' must be int."),
    ({"weights": 3}, "The weights you provided is expected to be a tensor, or a list or tuple. but got 3"),
    ({"has_aux": 1}, "For '_Grad', the 'has_aux' should be bool, but got int"),
    ({"return_ids": 1}, "For '_Grad', the 'return_ids' should be bool, but got int"),
])
@pytest.mark.parametrize("api", [ms.grad, ms.value_and_grad])
def test_argument_types(api, kwargs, msg):
    x = t([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match=msg.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        api(_fxy, **kwargs)(x, x)


def test_bool_position_and_tensor_weight():
    # MindSpore 2.10: True is position 1; a Tensor that is not a Parameter, passed as the weights, gets zeros
    # and is returned itself (not in a tuple)
    x, y = t([1.0, 2.0, 3.0]), t([0.5, -1.0, 2.0])
    np.testing.assert_allclose(ms.grad(_fxy, True)(x, y).asnumpy(), [1.0, -4.0, 12.0])
    gx, gw = ms.grad(_fxy, 0, y)(x, y)
    np.testing.assert_allclose(gx.asnumpy(), [0.25, 1.0, 4.0])
    np.testing.assert_array_equal(gw.asnumpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(ms.grad(_fxy, None, y)(x, y).asnumpy(), [0.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="For 'F.grad', the 'grad_position' must be int or tuple."):
        ms.jacrev(_fxy, [0])(x, y)


def test_a_tensor_carrying_param_info_is_a_weight():
    # MindSpore 2.10: a Tensor subclass that sets `param_info` (mindnlp's Parameter) is differentiated as a weight;
    # with param_info.requires_grad False, or without param_info, it gets zeros
    from mindseed._c_expression import ParamInfo  # noqa: PLC0415

    class OwnParameter(ms.Tensor):
        def __init__(self, data, requires_grad=True):
            super().__init__(data)
            self.param_info = ParamInfo()
            self.param_info.name = "w"
            self.param_info.requires_grad = requires_grad

    x = ms.Tensor(np.arange(3, dtype=np.float32))
    w, frozen = OwnParameter(np.ones(3, np.float32)), OwnParameter(np.ones(3, np.float32), requires_grad=False)
    plain = ms.Tensor(np.ones(3, np.float32))
    f = lambda x: (x * w * frozen * plain).sum()  # noqa: E731
    (gw, gf, gp) = ms.grad(f, None, [w, frozen, plain])(x)
    np.testing.assert_array_equal(gw.asnumpy(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(gf.asnumpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(gp.asnumpy(), [0.0, 0.0, 0.0])
