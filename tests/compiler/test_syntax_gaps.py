"""Graph-mode gaps closed: return inside loops, calls inside lambdas, index tensors computed in the graph,
print under differentiation, the user's line in error messages, verified dynamic-shape formulas."""

import numpy as np
import pytest

import mindseed as ms
from _graph import no_fallback
from mindseed import nn, ops


def t(a, dtype=np.float64):
    return ms.Tensor(np.asarray(a, dtype=dtype))




def _same(a, b, tol=1e-12):
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, tol)
        return
    if isinstance(a, ms.Tensor):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy() if isinstance(b, ms.Tensor) else b, rtol=tol, atol=tol)
        return
    assert a == (b.asnumpy() if isinstance(b, ms.Tensor) else b)


def _matches_pynative(fn, inputs, grad=True):
    """jit(fn) on each input set: no fallback, PyNative's values, and PyNative's gradient (w.r.t. input 0)."""
    jf = ms.jit(fn)
    for args in inputs:
        _same(no_fallback(jf, *args), fn(*args))
    if grad:
        g = ms.grad(jf)
        for args in inputs:
            _same(no_fallback(g, *args), ms.grad(fn)(*args))
    assert len(jf.cache) == 1        # every later call ran the compiled graph with new data
    return jf


# ---------------------------------------------------------------- 1. return inside loops
def _while_return_tensor_cond(x):
    while x.sum() < 100:
        x = x * 2
        if x.max() > 20:
            return x - 1
    return x + 1


def _while_return_python_cond(x):
    k = 0
    while k < 4:
        x = x * 1.5
        if x.sum() > 5:
            return x * k
        k += 1
    return -x


def _for_range_return(x):
    for i in range(5):
        x = x * 2
        if i == 2:
            return x, i
    return x, -1


def _for_return_tensor_cond(x):
    acc = x
    for i in range(6):
        acc = acc + x * x
        if acc.sum() > 10:
            return acc * i
    return acc


def _for_list_return(x, ws):
    for w in ws:
        x = x * w
        if x.sum() > 5:
            return x
    return -x


def _nested_loop_return(x):
    for i in range(3):
        j = 0
        while j < 3:
            x = x + 1
            if x.sum() > 6:
                return x * (i + 1)
            j += 1
    return x


def _tuple_return_in_tensor_loop(x):
    y = x * 0
    while x.sum() < 50:
        x = x * 3
        y = y + x
        if y.sum() > 30:
            return x, y
    return y, x


def _nested_if_return(x):
    if x.sum() > 0:
        if x.max() > 3:
            return x * 10
        x = x * x
    return x * 2


@pytest.mark.parametrize("fn, inputs", [
    (_while_return_tensor_cond, [(t([1.0, 2.0]),), (t([0.1, 0.1]),), (t([-1.0, 0.5]),), (t([200.0, 1.0]),)]),
    (_while_return_python_cond, [(t([1.0]),), (t([0.1]),), (t([4.0]),)]),
    (_for_range_return, [(t([1.0]),), (t([3.0]),)]),
    (_for_return_tensor_cond, [(t([1.0]),), (t([3.0]),), (t([0.1]),)]),
    (_nested_loop_return, [(t([1.0]),), (t([-9.0]),), (t([3.5]),)]),
    (_tuple_return_in_tensor_loop, [(t([1.0]),), (t([0.5]),), (t([60.0]),)]),
    (_nested_if_return, [(t([1.0]),), (t([5.0]),), (t([-1.0]),)]),
])
def test_return_inside_loops_and_nested_branches_compiles(fn, inputs):
    _matches_pynative(fn, inputs)


def test_return_inside_a_loop_over_a_list_compiles():
    ws = [t([2.0]), t([3.0]), t([4.0])]
    jf = ms.jit(_for_list_return)
    for v in ([1.0], [0.1], [3.0]):
        _same(no_fallback(jf, t(v), ws), _for_list_return(t(v), ws))
        _same(no_fallback(ms.grad(jf), t(v), ws), ms.grad(_for_list_return)(t(v), ws))


def test_return_inside_a_loop_in_a_cell_in_graph_mode():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(t([1.5, 0.5]), name="w")

        def construct(self, x):
            for _ in range(4):
                x = x * self.w
                if x.sum() > 3:
                    return x
            return x - 1
    net = Net()
    want = [net(t(v)) for v in ([1.0, 1.0], [0.1, 0.1])]
    want_g = [ms.grad(net, grad_position=None, weights=net.trainable_params())(t(v)) for v in ([1.0, 1.0], [0.1, 0.1])]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = [no_fallback(net, t(v)) for v in ([1.0, 1.0], [0.1, 0.1])]
        got_g = [no_fallback(ms.grad(net, grad_position=None, weights=net.trainable_params()), t(v))
                 for v in ([1.0, 1.0], [0.1, 0.1])]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _same(got, want)
    _same(got_g, want_g)


# ---------------------------------------------------------------- 2. calls inside lambdas
def _sign_step(x):
    if x.sum() > 0:
        return x * 2
    return x - 1


def _lambda_calls_user_function(x):
    g = lambda v: _sign_step(v) + 1    # noqa: E731 -- the construct under test
    return g(x) * g(x * -1)


_outer_lambda = lambda v: _sign_step(v) * v   # noqa: E731 -- defined outside the compiled function


def _calls_outer_lambda(x):
    return _outer_lambda(x) + 1


def _lambda_in_map(x):
    return sum(map(lambda v: _sign_step(v * x), (1.0, -1.0)))


@pytest.mark.parametrize("fn", [_lambda_calls_user_function, _calls_outer_lambda, _lambda_in_map])
def test_calls_inside_lambdas_are_converted(fn):
    _matches_pynative(fn, [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)])


def test_jitted_lambdas_and_lambdas_stored_on_a_cell_are_converted():
    f = ms.jit(lambda x: _sign_step(x) + 1)
    g = ms.jit(lambda x: (lambda y: _sign_step(y))(x) + (lambda y: _sign_step(-y))(x))
    for v in ([1.0], [-2.0]):
        _same(no_fallback(f, t(v)), _sign_step(t(v)) + 1)
        _same(no_fallback(g, t(v)), _sign_step(t(v)) + _sign_step(-t(v)))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.act = lambda v: _sign_step(v) * 3

        def construct(self, x):
            return self.act(x)
    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = [no_fallback(net, t(v)) for v in ([1.0], [-1.0])]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    _same(got, [t([6.0]), t([-6.0])])


# ---------------------------------------------------------------- 3. index tensors computed in the graph
def test_index_from_argmax_is_read_at_run_time():
    def f(x, y):
        i = ops.argmax(y)
        return x[i] * 2 + x[i, None].sum()
    x = t([1.0, 2.0, 3.0])
    jf = _matches_pynative(f, [(x, t([0.0, 5.0, 1.0])), (x, t([9.0, 5.0, 1.0])), (x, t([0.0, 1.0, 7.0]))])
    assert "GetitemDyn" in str(jf.graphs()[0])


def test_loop_carried_index_and_setitem_at_a_computed_index():
    def gather_loop(x):
        i = ms.Tensor(0, ms.int64)
        s = x[0] * 0
        while i < 3:
            s = s + x[i] * x[i]
            i = i + 1
        return s

    def set_at_max(x, y):
        i = ops.argmax(y)
        z = x * 1
        z[i] = y[i] * x[0]
        return z
    _matches_pynative(gather_loop, [(t([1.0, 2.0, 3.0, 4.0]),), (t([2.0, -2.0, 3.0, 4.0]),)])
    _matches_pynative(set_at_max, [(t([1.0, 2.0, 3.0]), t([0.0, 5.0, 1.0])), (t([1.0, 2.0, 3.0]), t([9.0, 5.0, 1.0]))])


def test_boolean_mask_setitem_compiles_and_getitem_falls_back_with_a_warning():
    def set_mask(x, y):
        z = x * 1
        z[z < y] = 0
        return z * x
    _matches_pynative(set_mask, [(t([1.0, 2.0, 3.0]), t(2.5)), (t([1.0, 2.0, 3.0]), t(1.5))])

    @ms.jit
    def get_mask(x):
        return x[x > 1].sum()
    with pytest.warns(UserWarning, match=r"JIT fallback.*boolean mask.*test_syntax_gaps.py:\d+"):
        assert get_mask(t([1.0, 2.0, 3.0])).asnumpy() == 5.0
    assert get_mask(t([3.0, 2.0, 3.0])).asnumpy() == 8.0       # never a stale mask


# ---------------------------------------------------------------- 4. print once per forward
def _printing(x):
    if x.sum() > 0:
        print("pos", x.sum())
        y = x * x
    else:
        y = x
    k = 0
    while y.sum() < 30:
        print("step")
        y = y * 2
        k += 1
    return y


def test_print_in_differentiated_branches_prints_once_per_forward(capfd):
    jf = ms.jit(_printing)
    g = ms.grad(jf)
    for v, steps in (([1.0, 2.0], 3), ([3.0, 2.0], 2)):
        capfd.readouterr()
        gv = g(t(v))
        out = capfd.readouterr().out
        assert out.count("pos") == 1 and out.count("step") == steps, out
        _same(gv, ms.grad(_printing)(t(v)))

    @ms.jit
    def inner(x):
        return ms.grad(_printing)(x)
    for v in ([1.0, 2.0], [3.0, 2.0]):
        capfd.readouterr()
        inner(t(v))
        out = capfd.readouterr().out
        assert out.count("pos") == 1, out


def test_print_in_a_graph_loop_prints_the_same_on_the_first_and_later_calls(capfd):
    @ms.jit
    def f(x):
        while x.sum() < 10:
            x = x * 2
            print("x is", x)
        return x
    capfd.readouterr()
    f(t([1.0, 2.0]))
    first = capfd.readouterr().out
    f(t([1.0, 2.0]))
    assert capfd.readouterr().out == first and first.count("x is") == 2 and "Tensor(shape=[2]" in first


# ---------------------------------------------------------------- 5. the user's line in the message
def _check_n(x, n):
    if n > 2:
        raise ValueError(f"n must be <= 2, got {n}")
    return x * n


def test_error_message_names_the_user_file_and_line():
    @ms.jit
    def f(x, n):
        y = x * 2
        return _check_n(y, n)
    with pytest.raises(ValueError) as info:
        f(t([1.0]), 3)
    msg = str(info.value)
    line = _check_n.__code__.co_firstlineno + 2
    assert msg.startswith("n must be <= 2, got 3")
    assert "The Traceback of Net Construct Code" in msg
    assert f"test_syntax_gaps.py:{line}" in msg and 'raise ValueError(f"n must be <= 2' in msg
    assert f"test_syntax_gaps.py:{f.__wrapped__.__code__.co_firstlineno + 3}" in msg   # the call site too

    @ms.jit
    def g(x):
        return ops.matmul(x, x)
    with pytest.raises(RuntimeError) as info:
        g(t(np.ones((2, 3))))
    assert f"test_syntax_gaps.py:{g.__wrapped__.__code__.co_firstlineno + 2}" in str(info.value)


def test_raise_in_a_branch_taken_at_run_time_names_the_line():
    @ms.jit
    def f(x):
        if x.sum() > 0:
            raise ValueError("x must be non-positive")
        return x
    _same(f(t([-1.0])), t([-1.0]))
    with pytest.raises(ValueError, match="x must be non-positive") as info:
        f(t([1.0]))
    assert f"test_syntax_gaps.py:{f.__wrapped__.__code__.co_firstlineno + 3}" in str(info.value)


# ---------------------------------------------------------------- 6. dynamic shapes: formulas verified
def test_non_linear_shape_arithmetic_never_gives_wrong_numbers():
    @ms.jit(dynamic=1)
    def f(x):
        n = x.shape[0]
        return x[:n // 2].sum() + n * n * 1.0
    for n in (2, 3, 4, 5, 6, 7, 9, 8, 11):
        x = np.arange(n, dtype=np.float64)
        np.testing.assert_allclose(f(t(x)).asnumpy(), x[:n // 2].sum() + n * n)


def test_linear_shape_arithmetic_is_verified_then_reused():
    @ms.jit(dynamic=1)
    def f(x):
        n = x.shape[0]
        return x.reshape(1, n).sum(axis=0) * (n + 1) + n * 0.5
    for n in (2, 4, 7, 10, 3, 2):
        x = np.arange(n, dtype=np.float64)
        np.testing.assert_allclose(f(t(x)).asnumpy(), x * (n + 1) + n * 0.5)
    assert f.traces == 3       # 2 and 4 fit the formulas, 7 verifies them, 10 and 3 reuse the graph


def test_a_second_dynamic_dim_that_did_not_vary_is_not_baked_in():
    @ms.jit(input_signature=(ms.Tensor(shape=[None, None], dtype=ms.float64),))
    def f(x):
        return x.reshape(-1).sum() * x.shape[1]
    for shape in ((2, 3), (4, 3), (5, 3), (5, 2), (3, 4)):
        x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
        np.testing.assert_allclose(f(t(x)).asnumpy(), x.sum() * shape[1])


def test_python_containers_changed_under_tensor_conditions_fall_back_with_the_right_values():
    # a list appended to (or a dict item set) in a branch or loop body on a tensor condition: the graph cannot
    # carry the change, so the function runs in the interpreter (warning naming the container), never applying
    # both branches' changes
    import warnings as _w
    x = ms.Tensor(np.array([[1., 2.], [3., -4.], [5., 6.]], np.float32))

    def appends(x):
        lst = []
        for i in range(3):
            if x[i, 0] > 2:
                lst.append(x[i] * 2)
            else:
                lst.append(x[i])
        return ops.stack(lst)

    def sets_item(x):
        d = {"a": x[0]}
        if x[1, 1] < 0:
            d["a"] = d["a"] * 3
        else:
            d["a"] = d["a"] - 1
        return d["a"]

    def loop_appends(x):
        lst = [x[0]]
        i = ms.Tensor(0, ms.int32)
        while i < 2:
            lst.append(x[i])
            i += 1
        return len(lst)

    for fn, name in ((appends, "lst"), (sets_item, "d"), (loop_appends, "lst")):
        with pytest.warns(UserWarning, match=f"JIT fallback.*Python (list|dict) '{name}' is changed under a "
                                             f"condition on a tensor"):
            got = ms.jit(fn)(x)
        want = fn(x)
        if isinstance(want, int):
            assert got == want == 3
        else:
            np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    with _w.catch_warnings():
        _w.simplefilter("ignore")
        g = ms.jit(ms.grad(lambda x: appends(x).sum()))(x)
    np.testing.assert_array_equal(g.asnumpy(), [[1, 1], [2, 2], [2, 2]])


def test_raise_under_a_tensor_condition_inside_loops():
    # a branch that only raises, in a while/for body: an ordinary branch (raising at run time when taken)
    def f_while(x, lim):
        i = ms.Tensor(0)
        while i < 3:
            if x.sum() > lim:
                raise ValueError("too big")
            x = x * 10
            i += 1
        return x.sum()

    def f_for(x, lim):
        for _ in range(3):
            if x.sum() > lim:
                raise ValueError("too big")
            x = x * 10
        return x.sum()

    x = ms.Tensor(np.ones((3, 4), np.float32))
    for fn in (f_while, f_for):
        jitted = ms.jit(fn)
        for lim in (1e9, 100.0, 1e9):
            lim_t = ms.Tensor(lim, ms.float32)
            if lim < 1e3:
                for run in (fn, jitted):
                    with pytest.raises(ValueError, match="too big"):
                        run(x, lim_t)
            else:
                assert float(jitted(x, lim_t)) == float(fn(x, lim_t)) == 12000.0


def test_break_under_a_tensor_condition_in_a_loop_over_cells():
    # for over a CellList (or a tuple of functions) with a break on a tensor: the loop unrolls (static length),
    # iterations after the break are skipped by a guard; values and gradients equal PyNative
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList([nn.Dense(3, 3, weight_init="ones", bias_init="zeros") for _ in range(3)])

        def construct(self, x, limit):
            for b in self.blocks:
                x = b(x)
                if x.sum() > limit:
                    break
            return x.sum()

    x = ms.Tensor(np.array([[1., 2., 3.]], np.float32))
    for limit, want in ((50.0, 54.0), (10.0, 18.0), (1e9, 162.0)):
        lim = ms.Tensor(limit, ms.float32)
        net = Net()
        ref = float(net(x, lim))
        ref_grads = ms.grad(net, None, net.trainable_params())(x, lim)
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            got = float(net(x, lim))
            grads = ms.grad(net, None, net.trainable_params())(x, lim)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        assert got == ref == want
        for g, r in zip(grads, ref_grads):
            np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=1e-6)
