"""Graph mode keeps Python's and MindSpore's semantics: branches that return next to branches that fall through,
the compile cache telling apart arguments that look alike, the types of values carried out of control flow."""
import numpy as np

import mindseed as ms
from _graph import no_fallback


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def _elif_fallthrough(x, n):
    if n == 0:
        return x
    elif n == 1:
        x = x * 2
    else:
        return -x
    return x + 100


def _elif_fallthrough_on_tensor(x):
    if x.sum() > 0:
        return x
    elif x.sum() > -5:
        x = x * 2
    else:
        return -x
    return x + 100


def test_returning_branches_next_to_a_branch_that_falls_through():
    x = t([1.0, 2.0])
    f = ms.jit(_elif_fallthrough)
    for n in (0, 1, 2):
        np.testing.assert_array_equal(no_fallback(f, x, n).asnumpy(), _elif_fallthrough(x, n).asnumpy())
    g = ms.jit(_elif_fallthrough_on_tensor)
    for v in (x, -x, x * -10):
        np.testing.assert_array_equal(no_fallback(g, v).asnumpy(), _elif_fallthrough_on_tensor(v).asnumpy())


def test_cache_keys_numpy_arguments_by_value_and_containers_by_type():
    x = t([1.0, 2.0, 3.0])
    f = ms.jit(lambda x, a: x + ms.Tensor(a))
    for v in ([1.0, 2.0, 3.0], [5.0, 5.0, 5.0], [7.0, 7.0, 7.0]):
        a = np.array(v, np.float32)
        np.testing.assert_array_equal(f(x, a).asnumpy(), x.asnumpy() + a)
        del a               # the next array may get the same id
    a = np.array([1.0, 1.0, 1.0], np.float32)
    f(x, a)
    a += 1                  # changed in place: a new constant
    np.testing.assert_array_equal(f(x, a).asnumpy(), x.asnumpy() + 2)

    g = ms.jit(lambda s: (s[0:2], s, type(s) == tuple, isinstance(s, list)))  # noqa: E721 (compiles `==` on types)
    out = g(ms.mutable([1, 2, 3]))
    assert out == ([1, 2], [1, 2, 3], False, True) and type(out[0]) is list
    out = g(ms.mutable((1, 2, 3)))
    assert out == ((1, 2), (1, 2, 3), True, False) and type(out[0]) is tuple


class _Opaque:
    """An unhashable argument: a constant of the graph, keyed by identity."""
    __hash__ = None

    def __init__(self, v):
        self.v = v


def test_cache_key_of_an_unhashable_object_keeps_it_alive():
    f = ms.jit(lambda x, o: x * o.v)
    x = t([1.0])
    for v in (2.0, 3.0, 4.0):
        o = _Opaque(v)
        assert f(x, o).asnumpy()[0] == v
        del o


def test_new_handles_of_graph_values_are_not_constants():
    """detach(), contiguous(), copy(), Tensor(x), Parameter.value() inside jit read the call's values (they were
    frozen at their tracing-time values), and gradients stop at detach() and Tensor(x) as in PyNative."""
    fns = [lambda x: (x * 2).detach() + x, lambda x: x.contiguous() * 3, lambda x: x.T.contiguous() * 3,
           lambda x: x.copy() * 2, lambda x: ms.Tensor(x) + 1, lambda x: ms.Tensor(x, ms.float64) * 2,
           lambda x: x * ms.Tensor(x * 2).sum()]
    x1, x2 = t([[1.0, 2.0], [3.0, 4.0]]), t([[5.0, -1.0], [0.5, 2.0]])
    for fn in fns:
        jf = ms.jit(fn)
        no_fallback(jf, x1)
        np.testing.assert_allclose(no_fallback(jf, x2).asnumpy(), fn(x2).asnumpy())
        np.testing.assert_allclose(ms.jit(ms.grad(fn))(x2).asnumpy(), ms.grad(fn)(x2).asnumpy())

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(t([0.0, 0.0]), name="p")

        def construct(self, x):
            return self.p.value() + x
    net = Net()
    jn = ms.jit(net)
    jn(t([1.0, 1.0]))
    net.p.set_data(t([10.0, 20.0]))
    np.testing.assert_array_equal(jn(t([1.0, 1.0])).asnumpy(), [11.0, 21.0])


def _two_args(a, b):
    return a + b


def test_argument_errors_name_the_users_function():
    f = ms.jit(_two_args)
    x = t([1.0])
    for call, text in ((lambda: f(x), "_two_args() missing 1 required positional argument: 'b'"),
                       (lambda: f(x, x, x), "_two_args() takes 2 positional arguments but 3 were given")):
        try:
            call()
            raise AssertionError("no error")
        except TypeError as e:
            assert str(e) == text


def _acc_continue(x):
    tot = 0
    for i in range(3):
        if i == 1:
            continue
        tot = tot + x.sum() * i
    return tot


def _acc_tensor_loop(x):
    s = 0.0
    i = 0
    while x[i % 3] < 100:
        s = s + x.sum()
        x = x * 2
        i += 1
    return s, i


def _int_from_branches(x):
    if x.sum() > 0:
        k = 1
    else:
        k = 2
    return x * k, k


def _tensor_from_branch(x):
    s = 0.0
    if x.sum() > 0:
        s = x.sum()
    else:
        s = x.max()
    return s


def test_values_out_of_control_flow_keep_the_type_the_code_gave_them():
    """A Python number a loop or branch turns into a tensor is a Tensor after it (as in PyNative), a Python
    number it keeps a number stays one (a counter, an int set in both branches)."""
    for fn, inputs in ((_acc_continue, [t([1.0, 2.0])]), (_acc_tensor_loop, [t([1.0, 2.0, 3.0])]),
                       (_int_from_branches, [t([1.0]), t([-1.0])]), (_tensor_from_branch, [t([1.0]), t([-1.0])])):
        jf = ms.jit(fn)
        for x in inputs:
            want, got = fn(x), no_fallback(jf, x)
            for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
                assert type(g) is type(w), (fn.__name__, type(g), type(w))
                np.testing.assert_allclose(np.asarray(g.asnumpy() if isinstance(g, ms.Tensor) else g),
                                           np.asarray(w.asnumpy() if isinstance(w, ms.Tensor) else w))
    value, _ = ms.jit(ms.value_and_grad(_acc_continue))(t([1.0, 2.0]))
    assert isinstance(value, ms.Tensor)


def _and_or(x, y):
    return x and y, x or y, (x and y) * 10


def test_and_or_on_tensors_give_an_operand_as_python_does():
    jf = ms.jit(_and_or)
    for a, b in ((2.0, 3.0), (0.0, 3.0), (2.0, 0.0)):
        x, y = t(a), t(b)
        for g, w in zip(no_fallback(jf, x, y), _and_or(x, y)):
            assert g.dtype == w.dtype == ms.float32
            assert g.asnumpy() == w.asnumpy()
    g = ms.jit(lambda x: (x > 0 and x < 3, x > 0 or x < -3))
    for v in (1.0, 5.0, -5.0, -1.0):
        got = g(t(v))
        assert got[0].dtype == ms.bool_
        assert bool(got[0].asnumpy()) == (0 < v < 3) and bool(got[1].asnumpy()) == (v > 0 or v < -3)


def test_jit_of_a_cell_compiles_its_whole_call():
    """ms.jit(cell) runs what calling the cell runs: to_float casts (and hooks), as GRAPH_MODE does."""
    x = t(np.random.default_rng(0).uniform(-1, 1, (4, 6)))
    ms.set_seed(0)
    net = ms.nn.Dense(6, 3)
    net.to_float(ms.float16)
    want = net(x)
    got = ms.jit(net)(x)
    assert got.dtype == want.dtype == ms.float16
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    hooked = ms.nn.Dense(6, 3)
    hooked.register_forward_hook(lambda cell, inputs, output: output * 0 + 1)
    np.testing.assert_array_equal(ms.jit(hooked)(x).asnumpy(), np.ones((4, 3), np.float32))


def _aab(a, b):
    return (a * a * b).sum()


def test_one_tensor_passed_twice_is_one_parameter_per_position_in_a_graph():
    """f(x, x): PyNative differentiates x wherever it is passed (every position gets the total gradient); a compiled
    graph has one parameter per position, so each position gets its own gradient (MindSpore 2.10, also for a grad
    taken inside the graph)."""
    x = t([1.0, 2.0, 3.0])
    g = ms.grad(_aab, grad_position=(0, 1))
    np.testing.assert_allclose(g(x, x)[0].asnumpy(), 3 * x.asnumpy() ** 2)
    jg = ms.jit(g)
    got = jg(x, x)
    np.testing.assert_allclose(got[0].asnumpy(), [2.0, 8.0, 18.0])    # d/da (a*a*b) = 2ab
    np.testing.assert_allclose(got[1].asnumpy(), [1.0, 4.0, 9.0])     # d/db = a*a

    @ms.jit
    def inner(a):
        return ms.grad(_aab, grad_position=(0, 1))(a, a)
    for a, b in zip(inner(x), got):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy())

    mha = ms.nn.MultiheadAttention(8, 2)
    q = ms.Tensor(np.random.default_rng(0).standard_normal((3, 2, 8)).astype(np.float32))
    vg = ms.value_and_grad(lambda a, b, c: mha(a, b, c)[0].sum(), grad_position=(0, 1, 2))
    want = vg(q, q.copy(), q.copy())[1]
    got = ms.jit(vg)(q, q, q)[1]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-5)


def _setitem_in_branches(a):
    y = a * 2
    if y.sum() > 0:
        y[0] = 5.0
    else:
        y[1] = 3.0
    return y


def _add_in_branch(a):
    y = a * 2
    if y.sum() > 0:
        y.add_(1.0)
    return y


def _setitem_in_loop(a):
    y = a * 1
    i = ms.Tensor(0)
    while i < 2:
        y[i] = y[i] * 2 + 1
        i = i + 1
    return y


def _setitem_in_range_loop(a, n):
    y = a * 1
    for i in range(n):
        y[i % 2] = y[i % 2] + i
    return y


def _weighted_sum(fn):
    return lambda x: (fn(x) * x).sum()


def test_in_place_updates_of_local_tensors_under_tensor_control_flow():
    """y[i] = v / y.add_(...) in a branch or loop body on a tensor condition updates y as PyNative does (the
    first call applied both branches, later calls none)."""
    a = t(np.arange(6).reshape(2, 3) - 2)
    for fn in (_setitem_in_branches, _add_in_branch, _setitem_in_loop):
        jf = ms.jit(fn)
        for x in (a, -a, a, -a):
            np.testing.assert_array_equal(no_fallback(jf, x).asnumpy(), fn(x).asnumpy())
        g = ms.jit(ms.grad(_weighted_sum(fn)))
        np.testing.assert_allclose(g(a).asnumpy(), ms.grad(_weighted_sum(fn))(a).asnumpy())
    jf = ms.jit(_setitem_in_range_loop)
    n = ms.Tensor(3)
    np.testing.assert_array_equal(no_fallback(jf, a, n).asnumpy(), _setitem_in_range_loop(a, 3).asnumpy())
    np.testing.assert_array_equal(no_fallback(jf, a, n).asnumpy(), _setitem_in_range_loop(a, 3).asnumpy())


def test_numpy_scalars_come_back_as_python_numbers():
    f = ms.jit(lambda x: (x * 2, np.float32(1.5), {"a": np.int64(3)}, [np.bool_(True)]))
    for _ in range(2):
        _, a, d, lst = f(t([1.0]))
        assert (type(a), type(d["a"]), type(lst[0])) == (float, int, bool)
        assert (a, d["a"], lst[0]) == (1.5, 3, True)


def test_mutable_bool_is_a_bool_to_user_code_and_a_graph_input():
    flag = ms.mutable(True)
    assert isinstance(flag, bool) and repr(flag) == "True" and (flag & False) is False and (flag | False) is True
    assert isinstance(ms.mutable(False), bool) and not ms.mutable(False)
    f = ms.jit(lambda x, eq: ms.ops.isclose(x, x * 1.0, 1e-5, 1e-8, eq))
    nan = t([float("nan"), 1.0])
    np.testing.assert_array_equal(no_fallback(f, nan, ms.mutable(True)).asnumpy(), [True, True])
    np.testing.assert_array_equal(no_fallback(f, nan, ms.mutable(False)).asnumpy(), [False, True])
