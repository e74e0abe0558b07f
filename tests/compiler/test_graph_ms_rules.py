"""Graph-mode behaviours MindSpore has where Python would differ: calling the class member namespace of a jitted
method, class-API tensor primitives given only Python numbers, ordering tuples, indexing them by a tensor, unpacking
tuples by index."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, jit, nn
from mindseed.ops import operations as P
from _graph import graph_mode, no_fallback


class _Obj:
    def __init__(self):
        self.k = 3

    @jit
    def calls_self(self, *args):
        return self(*args)

    @jit
    def reads_members(self, x):
        return self.plus_one(x) * self.k

    @jit
    def calls_dunder(self, x):
        return self.__call__(x)

    def plus_one(self, x):
        return x + 1

    def __call__(self, *args):
        return args[0]


def test_jitted_method_calling_its_object_is_a_value_error():
    x = Tensor(np.array([1, 2], np.int32))
    with pytest.raises(ValueError, match="The object is not callable"):
        _Obj().calls_self(x)
    # unbound, with the object as the first argument (it has an attribute of the method's name)
    with pytest.raises(ValueError, match="The object is not callable"):
        _Obj.calls_self(_Obj(), x)
    # its attributes and methods are read; __call__ named explicitly is a method
    np.testing.assert_array_equal(_Obj().reads_members(x).asnumpy(), [6, 9])
    np.testing.assert_array_equal(_Obj().calls_dunder(x).asnumpy(), [1, 2])


def test_jitted_function_given_a_callable_object_calls_it():
    x = Tensor(np.array([1, 2], np.int32))
    f = _Obj.calls_self

    @jit
    def outer(obj, t):
        return f(obj, t)        # inside a graph the object is an ordinary callable argument
    np.testing.assert_array_equal(outer(_Obj(), x).asnumpy(), [1, 2])

    class Other:
        def __call__(self, t):
            return t * 2
    np.testing.assert_array_equal(_Obj.calls_self(Other(), x).asnumpy(), [2, 4])


class _ModNet(nn.Cell):
    def construct(self, x, y):
        return P.Mod()(x, y)


@pytest.mark.parametrize("mode, message", [(ms.GRAPH_MODE, r"For 'Mod', the element of 'x' must be one of Tensor"),
                                           (ms.PYNATIVE_MODE, r"primitive\[Mod\]'s input arguments\[x, y\] must be "
                                                              r"all tensor")])
def test_tensor_primitive_on_python_numbers_is_a_type_error(mode, message):
    ms.set_context(mode=mode)
    try:
        for a, b in ((19, 2), (19.0, 2), (True, 2)):
            with pytest.raises(TypeError, match=message):
                _ModNet()(a, b)
        out = _ModNet()(Tensor(np.array(-19, np.int32)), 2)       # one tensor operand is enough
        assert out.asnumpy() == np.fmod(-19, 2)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    # primitives MindSpore computes on numbers still do
    np.testing.assert_allclose(P.Atan2()(3.0, 2.0).asnumpy(), np.arctan2(3.0, 2.0), rtol=1e-6)
    assert P.Heaviside()(3.0, 2.0).asnumpy() == 1.0
    assert P.FloorDiv()(7, 2).asnumpy() == 3


def _ordered(m_of, n_of):
    @jit
    def f(x, y):
        m, n = m_of(x), n_of(y)
        return m < n, m >= n
    return f(Tensor(np.array([1], np.int32)), Tensor(np.array([3], np.int32)))


def test_sequence_order_in_graph_compares_scalars_up_to_the_first_difference():
    assert _ordered(lambda x: (1, (x, x + 1)), lambda y: (2, (y, y - 1))) == (True, False)
    assert _ordered(lambda x: (1, x), lambda y: (2, y)) == (True, False)
    assert _ordered(lambda x: (1.0, 2), lambda y: (1, 3)) == (True, False)
    assert _ordered(lambda x: [1, 2], lambda y: [1, 2, y]) == (True, False)      # a prefix is smaller
    with pytest.raises(TypeError, match="For primitive 'tuple_lt', the input element must be scalar"):
        _ordered(lambda x: (x + 2, (x, x + 1)), lambda y: (y + 2, (y, y - 1)))
    with pytest.raises(TypeError, match="For primitive 'list_lt', the input element must be scalar"):
        _ordered(lambda x: [1, x], lambda y: [1, y])
    with pytest.raises(TypeError, match=r"For op 'tuple_lt' input must be \[int32, int64, float32, float64, bool\]"):
        _ordered(lambda x: ((1, 2), x + 2), lambda y: ((2, 3), y + 2))


def test_sequence_order_nesting_tensors_runs_as_python():
    a, b = _ordered(lambda x: ((x, x + 1), x + 2), lambda y: ((y, y - 1), y + 2))
    assert a.asnumpy().tolist() == [True] and b.asnumpy().tolist() == [False]
    with pytest.raises(TypeError, match="not supported between instances of 'tuple' and 'int'"):
        _ordered(lambda x: ((x, 1), 2), lambda y: (1, 2))


def test_sequence_indexed_by_a_tensor_carries_no_gradient():
    @jit
    def pick(x, i):
        return (x, x + 1, x * 2)[i] * 3

    x = Tensor(np.array([1.5], np.float32))
    # a Python index: the gradient of x * 2 * 3; a tensor index is read at run time, as MindSpore's PyExecute
    np.testing.assert_allclose(ms.grad(pick)(x, 2).asnumpy(), [6.0])
    np.testing.assert_allclose(ms.grad(pick)(x, Tensor(2)).asnumpy(), [0.0])
    np.testing.assert_allclose(pick(x, Tensor(2)).asnumpy(), [9.0])


def test_jit_gradient_of_integer_tensors():
    @jit
    def f(x, y):
        return x * y + x

    x, y = Tensor(np.array(2, np.int32)), Tensor(np.array(5, np.int32))
    gx, gy = ms.grad(f, (0, 1))(x, y)
    assert gx.dtype == ms.int32 and int(gx) == 6 and int(gy) == 2      # d/dx = y + 1, d/dy = x
    _, pull = ms.vjp(f, x, y)
    gx, gy = pull(Tensor(np.array(3, np.int32)))
    assert (int(gx), int(gy)) == (18, 6)
    gx = ms.grad(f)(Tensor(np.array(2.0, np.float32)), Tensor(np.array(5.0, np.float32)))
    assert float(gx) == 6.0


class _BranchAssign(nn.Cell):
    def construct(self, x, y):
        if x > y:
            P.AssignAdd()(x, y)
        else:
            P.AssignSub()(y, x)
        return x, y


def test_in_place_write_of_an_input_happens_in_the_taken_branch_only():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _BranchAssign()
        for a, b, want in ((2, 3, (2, 1)), (5, 3, (8, 3)), (2, 3, (2, 1))):    # traced, then compiled runs
            x, y = Tensor(np.array(a, np.int32)), Tensor(np.array(b, np.int32))
            ox, oy = net(x, y)
            assert (int(ox), int(oy)) == want and (int(x), int(y)) == want
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _three(x):
    return x, x + 1, x * 2


class _Unpack(nn.Cell):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def construct(self, x):
        if self.kind == "fewer":
            a, b = _three(x)                # the extra item is dropped
            return a + b
        if self.kind == "list":
            [a, b] = [x, x - 1, x]
            return a * b
        if self.kind == "starred":
            a, *rest = _three(x)
            return a + rest[1]
        a, b, c, d = _three(x)              # one more than there is
        return a + d


def test_graph_unpacks_tuples_by_index_as_mindspore():
    """MindSpore's compiler unpacks `a, b = value` by index: a longer tuple's extra items are dropped and too few
    items is its TupleGetItem IndexError; PyNative is Python's unpacking."""
    x = np.array([1.0, 2.0], np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_array_equal(_Unpack("fewer")(Tensor(x)).asnumpy(), 2 * x + 1)
        np.testing.assert_array_equal(_Unpack("list")(Tensor(x)).asnumpy(), x * (x - 1))
        np.testing.assert_array_equal(_Unpack("starred")(Tensor(x)).asnumpy(), 3 * x)
        with pytest.raises(IndexError, match=r"index should be in range\[-3, 3\), but got 3"):
            _Unpack("more")(Tensor(x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="too many values to unpack"):
        _Unpack("fewer")(Tensor(x))


class _NoConstruct(nn.Cell):
    @jit
    def triple(self, x):
        return x * 3

    @jit
    def square(self, x):
        return x * x


class _GradOf(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = ms.ops.GradOperation()

    def construct(self, x):
        return self.grad(self.net)(x)


def test_cell_without_construct_runs_its_last_compiled_jit_method_inside_a_graph():
    x = Tensor(np.array([2.0, 5.0], np.float32))
    with graph_mode():
        net = _NoConstruct()
        with pytest.raises(AttributeError, match="the method 'construct' is not defined"):
            _GradOf(net)(x)                         # no jitted method compiled yet
        np.testing.assert_allclose(net.square(x).asnumpy(), [4.0, 25.0])
        np.testing.assert_allclose(_GradOf(net)(x).asnumpy(), [4.0, 10.0])      # d(x*x)/dx
        np.testing.assert_allclose(net.triple(x).asnumpy(), [6.0, 15.0])
        np.testing.assert_allclose(_GradOf(net)(x).asnumpy(), [3.0, 3.0])       # the one compiled last
        with pytest.raises(AttributeError, match="the method 'construct' is not defined"):
            net(x)                                  # called itself, it still has no construct
        with pytest.raises(AttributeError, match="the method 'construct' is not defined"):
            _GradOf(net)(x)                         # and compiling that call resets it, as MindSpore's does
    # in PyNative the cell itself is called: no construct
    net = _NoConstruct()
    net.triple(x)
    with pytest.raises(AttributeError, match="the method 'construct' is not defined"):
        _GradOf(net)(x)


class _DoubleParam(nn.Cell):
    def __init__(self, q):
        super().__init__()
        self.q = q

    def construct(self, x):
        self.q = self.q * 2     # x is the same Parameter as self.q
        return x


def test_parameter_argument_assigned_through_an_attribute_is_updated_at_every_call():
    q = ms.Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="q")
    net = _DoubleParam(q)
    with graph_mode():
        for want in ([2.0, 4.0], [4.0, 8.0], [8.0, 16.0]):
            out = net(q)
            np.testing.assert_allclose(out.asnumpy(), want)     # the argument read after the write
            np.testing.assert_allclose(q.asnumpy(), want)


class _EveryOther(nn.Cell):
    """Accumulates its input; every second call returns the sum and starts again (`self.count = 0`: a Python number
    given to a Parameter attribute, an Assign in graph mode; `total` is assigned in one branch only)."""

    def __init__(self):
        super().__init__()
        self.count = ms.Parameter(Tensor(0, ms.int32), name="count")
        self.acc = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="acc")

    def construct(self, x):
        self.acc = self.acc + x
        self.count += 1
        if self.count >= 2:
            total = self.acc * 1.0
            out = total.sum()
            self.count = 0
            self.acc = self.acc * 0.0
        else:
            out = x.sum() * 0.0
        return out


class _ReadsOneBranchVariable(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            t = x * 2
        else:
            x = x - 1
        return x + t


def test_number_assigned_to_a_parameter_attribute_and_one_branch_variables_in_graph_mode():
    x = np.array([1.0, 2.0], np.float32)
    with graph_mode():
        net = _EveryOther()
        outs, counts = [], []
        for i in range(4):
            outs.append(float(no_fallback(net, Tensor(x * (i + 1))).asnumpy()))
            counts.append(int(net.count.asnumpy()))
        assert counts == [1, 0, 1, 0] and net.count.dtype == ms.int32
        assert outs == [0.0, 9.0, 0.0, 21.0]
        np.testing.assert_array_equal(net.acc.asnumpy(), [0.0, 0.0])
        # a variable one branch assigns may not be read after the if (MindSpore's compile error)
        with pytest.raises(UnboundLocalError, match="The local variable 't' is not defined in false branch, but "
                                                    "defined in true branch"):
            _ReadsOneBranchVariable()(Tensor(x))
    # in PyNative the Cell refuses a number for its Parameter attribute
    net = _EveryOther()
    with pytest.raises(TypeError, match="Parameter 'count' already exists in network, can not assign this type: "
                                        "'<class 'int'>' as a parameter"):
        net(Tensor(x))
        net(Tensor(x))


class _MarksOne(nn.Cell):
    """`m = self.m; m[t] = ...` inside a tensor loop and branch: MindSpore's item assignment makes a new tensor,
    the cell's constant attribute keeps its value from call to call."""

    def __init__(self):
        super().__init__()
        self.m = Tensor(np.zeros((3, 1), np.bool_))
        self.one = Tensor([1], ms.bool_)
        self.start = Tensor(0, ms.int64)

    def construct(self, i):
        m = self.m
        t = self.start
        while t < 3:
            if t == i:
                m[t] = self.one
            t = t + 1
        return m


class _MarksOneDirect(_MarksOne):
    def construct(self, i):
        m = self.m
        m[i] = self.one
        return m


class _AddsToItem(nn.Cell):
    def __init__(self):
        super().__init__()
        self.m = Tensor(np.zeros(3, np.float32))

    def construct(self, i):
        m = self.m
        m[i] += 2.0
        counts = [1, 2]
        counts[0] += 5              # a list's item: in place, as Python
        return m * counts[0]


def test_augmented_item_assignment_to_a_constant_tensor_attribute_makes_a_new_tensor():
    with graph_mode():
        net = _AddsToItem()
        first = no_fallback(net, Tensor(0, ms.int64)).asnumpy()
        second = no_fallback(net, Tensor(1, ms.int64)).asnumpy()
    np.testing.assert_array_equal(first, [12.0, 0.0, 0.0])        # MindSpore 2.10's values
    np.testing.assert_array_equal(second, [0.0, 12.0, 0.0])
    np.testing.assert_array_equal(net.m.asnumpy(), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("cls", [_MarksOne, _MarksOneDirect])
def test_item_assignment_to_a_constant_tensor_attribute_makes_a_new_tensor(cls):
    with graph_mode():
        net = cls()
        first = no_fallback(net, Tensor(0, ms.int64)).asnumpy().ravel()
        second = no_fallback(net, Tensor(1, ms.int64)).asnumpy().ravel()
    np.testing.assert_array_equal(first, [True, False, False])
    np.testing.assert_array_equal(second, [False, True, False])       # MindSpore 2.10's values
    np.testing.assert_array_equal(net.m.asnumpy().ravel(), [False, False, False])


def _write_module(tmp_path, name, source):
    import importlib
    import sys
    (tmp_path / f"{name}.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def test_functions_of_packages_named_mindspore_something_are_graph_code(tmp_path):
    """A package built on MindSpore (mindspore_rl, mindspore_gs, ...) is user code: its functions called from a
    graph are compiled with their control flow (only `mindspore` itself, mindseed's alias, is not)."""
    mod = _write_module(tmp_path, "mindspore_userpkg_for_tests", (
        "class Actor:\n"
        "    def act(self, x, n):\n"
        "        t = x * 0\n"
        "        while t.sum() < n:\n"
        "            t = t + 1\n"
        "        return t\n"
        "    def act_else(self, x):\n"
        "        k = 0\n"
        "        while k < 2:\n"
        "            k += 1\n"
        "        else:\n"
        "            k += 10\n"
        "        return x + k\n"))
    actor = mod.Actor()
    act, act_else = actor.act, actor.act_else      # bound methods kept as values, as MSRL keeps `agent_act`

    @ms.jit
    def f(x, n):
        return act(x, n) * 2, act_else(x)

    a, b = no_fallback(f, Tensor(np.zeros(2, np.float32)), Tensor(5.0, ms.float32))
    np.testing.assert_array_equal(a.asnumpy(), [6.0, 6.0])           # 3 rounds: the sum reaches 6 > 5
    np.testing.assert_array_equal(b.asnumpy(), [12.0, 12.0])         # a method that stays Python keeps its self


def test_returning_branch_over_a_loop_updating_an_assigned_local_item():
    """A returning `if` whose body binds `m` and then assigns its items in a tensor loop (mindspore_rl's actors)."""

    class Collect(nn.Cell):
        def __init__(self):
            super().__init__()
            self.zeros = Tensor(np.zeros(4, np.float32))

        def construct(self, phase, x):
            if phase == 2:
                m = self.zeros
                t = Tensor(0, ms.int32)
                while t < 4:
                    m[t] = x * t
                    t = t + 1
                return m
            return x * self.zeros

    with graph_mode():
        net = Collect()
        out = no_fallback(net, 2, Tensor(1.5, ms.float32))
    np.testing.assert_allclose(out.asnumpy(), [0.0, 1.5, 3.0, 4.5])
    np.testing.assert_array_equal(net.zeros.asnumpy(), np.zeros(4, np.float32))


def _and(x, y):
    return x and y


def _or(x, y):
    return x or y


def _not(x):
    return not x


def test_and_or_not_on_a_tensor_follow_mindspores_condition_and_join_rules():
    f_and, f_or, f_not = jit(_and), jit(_or), jit(_not)
    one, zero = Tensor(np.ones([1], np.int32)), Tensor(np.zeros([1], np.int32))
    np.testing.assert_array_equal(no_fallback(f_and, one, zero * 5 + 7).asnumpy(), [7])
    np.testing.assert_array_equal(no_fallback(f_or, zero, one * 3).asnumpy(), [3])
    np.testing.assert_array_equal(no_fallback(f_not, zero).asnumpy(), [True])
    # the deciding tensor must have shape () or (1,)
    square = Tensor(np.ones([2, 2], np.int32))
    for fn, args in ((f_and, (square, square)), (f_or, (square, square)), (f_not, (square,))):
        with pytest.raises(ValueError, match=r"shape is \(\) or \(1,\) .* got tensor shape is \(2, 2\)"):
            fn(*args)
    with pytest.raises(ValueError, match=r"got tensor shape is \(3\)"):
        f_and(Tensor(np.ones([3], np.int32)), one)
    # the two operands are the two branches of an if: same dtype, and no tensor next to a Python number
    with pytest.raises(TypeError, match="(?s)Cannot join the return values of different branches.*dtype1 = Int32, "
                                        "dtype2 = Float64"):
        f_and(Tensor(np.ones([1], np.float64)), zero)
    with pytest.raises(TypeError, match="(?s)Cannot join the return values of different branches.*"
                                        "AbstractTensor cannot join with AbstractScalar"):
        f_or(one, 2)
    with pytest.raises(TypeError, match="Cannot join the return values of different branches"):
        f_and(Tensor(np.ones([1], np.bool_)), True)


def _chained(x):
    return 0 < x < 3


def test_chained_comparison_and_loop_flags_keep_working_on_tensors():
    f = jit(_chained)
    assert [bool(no_fallback(f, Tensor(np.float32(v))).asnumpy()) for v in (-1.0, 1.0, 4.0)] == [False, True, False]


def _numpy_carried_by_tensor_loop():
    x = np.array([1, 2, 3, 4, 5])
    y = Tensor(1)
    while sum(x) > 0 and y >= 0:
        x -= 3
    return Tensor(sum(x))


def _variable_retyped_in_tensor_loop(x, y, c):
    out = Tensor(np.zeros([1], np.float32))
    while x < c:
        y = Tensor(np.full([1], 2.5, np.float32))
        out = out + y
        x = x + 1
    return out


def test_tensor_loops_carrying_numpy_or_retyped_values_run_in_the_interpreter():
    with pytest.warns(UserWarning, match="JIT fallback"):
        assert int(jit(_numpy_carried_by_tensor_loop)().asnumpy()) == 0
    args = (Tensor(np.int32(0)), Tensor(np.int32(7)), Tensor(np.int32(3)))
    with pytest.warns(UserWarning, match="JIT fallback"):
        np.testing.assert_array_equal(jit(_variable_retyped_in_tensor_loop)(*args).asnumpy(), [7.5])


def _numpy_per_branch(x):
    if x > 0:
        m = np.array([1, 2, 3])
    else:
        m = np.array([-1, -2, -5])
    return Tensor(sum(m)) + x


def _dict_per_branch(x, key):
    if key > 0:
        y = {"abc": x, "number": [1, 2, 3]}
    else:
        y = {"abc": x * 2, "number": [3, 2, 1]}
    return y


def test_if_on_a_tensor_whose_branches_give_numpy_arrays_or_dicts():
    f = jit(_numpy_per_branch)
    with pytest.warns(UserWarning, match="JIT fallback"):
        assert int(f(Tensor(np.int64(1))).asnumpy()) == 7
    assert int(f(Tensor(np.int64(-1))).asnumpy()) == -9
    g = jit(_dict_per_branch)
    x = Tensor(np.array([1.0, 2.0], np.float32))
    for key, scale, number in ((1, 1, [1, 2, 3]), (-1, 2, [3, 2, 1])):
        out = no_fallback(g, x, Tensor(np.int32(key)))
        assert list(out) == ["abc", "number"]
        np.testing.assert_array_equal(out["abc"].asnumpy(), [1.0 * scale, 2.0 * scale])
        assert [int(v) for v in out["number"]] == number


def _loop_var_in_two_ifs(x, y):
    if x != 1:
        for _ in range(1):
            y = x * 2
    if x == 5:
        for _ in range(1):
            y = 1 - y
    return x + y


def test_a_variable_each_if_assigns_in_one_branch_only_stays_unassigned_after_both():
    f = jit(_loop_var_in_two_ifs)
    for xv, want in ((-1.0, -3.0), (5.0, -4.0), (1.0, 3.0)):
        x, y = Tensor(np.array([xv], np.float32)), Tensor(np.array([2.0], np.float32))
        np.testing.assert_array_equal(f(x, y).asnumpy(), [want])


def test_augmented_assignment_in_a_graph_keeps_the_target_dtype():
    # MindSpore 2.10 compiles `x op= y` on a tensor to its in-place update: y is cast to x's dtype first and the
    # result keeps it (PyNative gives the promoted `x op y` instead); values printed by MindSpore 2.10
    @ms.jit
    def add_float(x):
        x += 1.5
        return x

    @ms.jit
    def mul_wider(x, y):
        x *= y
        return x

    @ms.jit
    def add_to_fresh(x, y):
        a = x * 2
        a += y
        return a

    out = add_float(ms.Tensor(np.array([1, 2, -3], np.int64)))
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), [2, 3, -2])
    out = mul_wider(ms.Tensor(np.array([1, 2, -3], np.float16)), ms.Tensor(np.array([1.5, 2, 3], np.float32)))
    assert out.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy(), [1.5, 4.0, -9.0])
    out = add_to_fresh(ms.Tensor(np.array([1, 2, -3], np.int32)), ms.Tensor(np.array([1.5, 2, 3], np.float32)))
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [3, 6, -3])
    x = ms.Tensor(np.array([1, 2, -3], np.int64))
    x += 1.5            # PyNative: the promoted result
    assert x.dtype == ms.float32
    np.testing.assert_allclose(x.asnumpy(), [2.5, 3.5, -1.5])


def test_augmented_power_and_bitwise_assignment_in_a_graph_promote():
    # only +=, -=, *=, /=, //=, %= are MindSpore's in-place updates in a graph; **= and &= promote as `x op y`
    @ms.jit
    def power(x):
        x **= 2
        return x

    @ms.jit
    def bit_and(x, y):
        x &= y
        return x

    out = power(ms.Tensor(np.array([True, False])))
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), [1, 0])
    out = bit_and(ms.Tensor(np.array([3, 5], np.uint8)), ms.Tensor(np.array([1, 4], np.int8)))
    assert out.dtype == ms.int16
    np.testing.assert_array_equal(out.asnumpy(), [1, 4])
