"""Graph-mode rules learnt from MindSpore's graph-syntax tests: how Python values join across loops, and which
constructs raise which error."""

import re

import numpy as np
import pytest

import mindseed as ms
from _graph import no_fallback


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def test_while_number_then_float_tensor_joins_as_float_tensor():
    # `y = 1` before the loop, a float32 tensor in it: y is carried as a float32 tensor (x + 1 when the loop
    # does not run, x + 2.5 when it does)
    @ms.jit
    def f(x, a, b):
        y = 1
        while a < b:
            y = ms.Tensor(2.5, ms.float32)
            a += 1
        return x + y

    x = t([0.0, 1.0, 2.0])
    np.testing.assert_allclose(no_fallback(f, x, t(2.0), t(4.0)).asnumpy(), [2.5, 3.5, 4.5])
    np.testing.assert_allclose(no_fallback(f, x, t(5.0), t(4.0)).asnumpy(), [1.0, 2.0, 3.0])


def test_nested_while_scalar_carried_then_float_tensor():
    # the inner loop sees y as the outer loop's carried Python scalar (int) and sets it to a float32 tensor
    def inner(x, a, b):
        y = 1
        while a < b:
            while a < b - 1:
                y = ms.Tensor(2, ms.float32)
                a += 1
            a += 1
        return x + y

    @ms.jit
    def f(x, a, b):
        out = x
        while a < b:
            while a < b - 1:
                out = inner(out, a, b)
                a += 1
            a += 1
        return out

    x = t([0.0, 1.0, 2.0])
    # three calls of inner (a = 2, 3, 4), each adding 2, as Python runs it
    np.testing.assert_allclose(no_fallback(f, x, t(2.0), t(6.0)).asnumpy(), [6.0, 7.0, 8.0])


def test_dict_has_key_in_graph():
    @ms.jit
    def f(x):
        d = {"a": x, "b": 2}
        return d.has_key("a"), d.has_key("c"), x * 2

    a, c, y = f(t([1.0, 2.0]))
    assert a is True and c is False
    np.testing.assert_allclose(y.asnumpy(), [2.0, 4.0])


def test_has_key_of_a_user_class_is_its_own_method():
    class Table:
        def has_key(self, k):
            return k == "z"

    @ms.jit
    def f(x):
        return Table().has_key("z"), x + 1

    assert f(t([1.0]))[0] is True


def test_dict_display_keys_checked_as_mindspore():
    @ms.jit
    def list_key(x):
        k = [1, 2]
        return {k: x}["a"]

    @ms.jit
    def tensor_key(x):
        return len({x: 10})

    @ms.jit
    def class_key(x):
        return len({int: x})

    for fn, got in ((list_key, "[1, 2]"), (tensor_key, "ValueAny"), (class_key, "class 'int'")):
        with pytest.raises(RuntimeError, match=r"key only supports string, number, type, none, constant tensor and "
                                               r"tuple, but got " + re.escape(got)):
            fn(t([1.0]))


def test_dict_display_constant_keys_and_spread():
    @ms.jit
    def f(x):
        base = {"b": x * 3}
        d = {"a": x, 1: 2.5, None: 4, (1, "s"): x + 1, ms.float32: 7, ms.Tensor([1]).shape: 0, **base}
        return d["a"] + d["b"] + d[(1, "s")], d[1], d[None], d[ms.float32], len(d)

    s, f1, n, m, size = f(t([1.0, 2.0]))
    np.testing.assert_allclose(s.asnumpy(), [6.0, 11.0])
    assert (f1, n, m, size) == (2.5, 4, 7, 7)


def test_jit_forbidden_apis_raise_runtime_error():
    from mindseed import context, log, nn
    from mindseed.common.initializer import One, initializer

    class Net(nn.Cell):
        def construct(self, x):
            return self.untrainable_params()

    class Buffered(nn.Dense):
        def construct(self, x):
            return self.buffers()

    def one(x):
        return One()

    def init(x):
        return initializer("ones", [1, 2], ms.float32)

    def mode(x):
        return context.get_context("mode")

    def warn(x):
        log.warning("graph")
        return x

    def const_arg(x):
        x.set_const_arg(False)
        return x

    cases = ((ms.jit(Net()), "the method or function 'mindspore.nn.cell.Cell.untrainable_params'"),
             (ms.jit(Buffered(1, 1)), "the method or function 'mindspore.nn.cell.Cell.buffers'"),
             (ms.jit(one), "the class 'mindspore.common.initializer.One'"),
             (ms.jit(init), "the method or function 'mindspore.common.initializer.initializer'"),
             (ms.jit(mode), "the method or function 'mindspore.context.get_context'"),
             (ms.jit(warn), "the method or function 'mindspore.log.warning'"),
             (ms.jit(const_arg), "the 'Tensor' object's method 'set_const_arg'"))
    for fn, what in cases:
        with pytest.raises(RuntimeError, match="Failed to compile in GRAPH_MODE because " + re.escape(what)):
            fn(t([1.0]))
    # outside a graph they run
    assert len(Net().untrainable_params()) == 0 and One() is not None


def test_forbidden_method_called_by_library_code_in_graph_is_fine():
    # an optimizer's own code reads its parameters while traced: only the user's calls are checked
    from mindseed import nn

    net = nn.Dense(2, 1)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    loss_fn = nn.MSELoss()
    weights = net.trainable_params()
    step = ms.jit(lambda x, y: opt(ms.grad(lambda a, b: loss_fn(net(a), b), None, weights)(x, y)))
    w0 = net.weight.asnumpy().copy()
    step(t([[1.0, 2.0]]), t([[0.0]]))
    assert not np.allclose(net.weight.asnumpy(), w0)


def test_list_and_tuple_methods_in_graph():
    @ms.jit
    def f(x):
        a = [1, 2.0, True, 1]
        b = [ms.Tensor([1, 2]), 3, ms.Tensor([1, 2])]
        c = [1, 2, 3, 4]
        popped = c.pop(-4), c.pop()
        c.insert(10, 9)
        c.insert(-10, 0)
        return a.count(1), a.count(True), a.index(True), b.count(ms.Tensor([1, 2])), (5, 6, 7).index(7, 1), popped, \
            c, x + 1

    ones, trues, at, tensors, seven, popped, c, _ = f(t([1.0]))
    assert (ones, trues, at, tensors, seven, popped, c) == (2, 1, 2, 2, 2, (1, 4), [0, 2, 3, 9])


def test_list_and_tuple_method_errors_in_graph():
    def missing():
        return (1, 2, 3, 4).index(5)

    def tensor_among_ints():
        return [1, 2, 3, 4].index(ms.Tensor(1))

    def pop_float():
        return [1, 2, 3].pop(1.0)

    def pop_bool():
        return [1, 2, 3].pop(True)

    def pop_out():
        return [1, 2, 3].pop(-4)

    def pop_empty():
        return [].pop()

    def insert_float():
        x = [1, 2]
        x.insert(1.0, 9)
        return x

    for fn, exc, msg in ((missing, ValueError, "5 is not in"), (tensor_among_ints, ValueError, "is not in"),
                         (pop_float, TypeError, "Integer argument expected, but got FP32Imm type value: 1"),
                         (pop_bool, TypeError, "Integer argument expected, but got BoolImm type value: true"),
                         (pop_out, IndexError, "The pop index out of range."),
                         (pop_empty, IndexError, "The pop index out of range."),
                         (insert_float, TypeError, "Integer argument expected, but got FP32Imm type value: 1")):
        with pytest.raises(exc, match=re.escape(msg)):
            ms.jit(fn)()


def test_shift_operators_on_python_scalars():
    @ms.jit
    def f(x, a, b):
        return a << b, a >> 1, x

    assert f(t([1.0]), 3, 2)[:2] == (12, 1)
    with pytest.raises(ValueError, match="shift count must be a non-negative integer"):
        ms.jit(lambda a, b: a >> b)(16, -2)
    with pytest.raises(TypeError, match="For BitRightShift, only integer types are supported, but got type of "
                                        "x:FP32Imm, value of x:10, type of y:FP32Imm, value of y:1"):
        ms.jit(lambda: 10.0 >> 1.0)()
    with pytest.raises(TypeError, match="For BitLeftShift, only integer types are supported, but got type of "
                                        "x:BoolImm, value of x:true"):
        ms.jit(lambda a: a << 1)(True)
    with pytest.raises(RuntimeError, match="out of the int64 range"):
        ms.jit(lambda a, b: a << b)(2 ** 63, 2)


def test_isinstance_of_mutable_scalar_argument_and_bad_classinfo():
    @ms.jit
    def f(x, n):
        return isinstance(n, (int, tuple)), isinstance(n, ms.Tensor), isinstance(x, ms.Tensor), x * 2

    a, b, c, y = f(t([1.0]), ms.mutable(2))
    assert (a, b, c) == (True, False, True)
    np.testing.assert_allclose(y.asnumpy(), [2.0])

    def bad_list(x):
        return isinstance(x, [list, tuple])

    def bad_none(x):
        return isinstance(x, None)

    for fn in (bad_list, bad_none):
        with pytest.raises(TypeError, match="isinstance\\(\\) arg 2 must be a type or tuple of types"):
            ms.jit(fn)(t([1.0]))


def test_enumerate_min_max_len_checks_in_graph():
    def float_start(x):
        return enumerate((x, x), start=1.2)

    def of_int(x):
        return [i for i, _ in enumerate(2023)]

    def empty_max(x):
        return max(())

    def nested_tensors(x):
        return min([[x, x * 2]])

    def len_0d(x):
        return len(x)

    cases = ((float_start, TypeError, "For 'enumerate', the 'start' should be a const int number, but got 1.2."),
             (of_int, TypeError, "For 'enumerate', the 'first input' should be tuple or list or tensor, but got "
                                 "<class 'int'>"),
             (empty_max, ValueError, "max() arg is an empty sequence."),
             (nested_tensors, TypeError, "cannot support tensor in list or tuple nested now."),
             (len_0d, TypeError, "Not support len of a 0-D tensor."))
    for fn, exc, msg in cases:
        with pytest.raises(exc, match=re.escape(msg)):
            ms.jit(fn)(t(1.0))

    def two_lists(x):
        return max([x, x + 1], [x * 2, x])

    # two sequences are compared item by item: tensors of several elements have no truth value
    with pytest.raises(ValueError, match="The truth value of an array with more than one element is ambiguous"):
        ms.jit(two_lists)(t([1.0, 2.0]))

    @ms.jit
    def ok(x):
        return [i for i, _ in enumerate((x, x), 3)], max((3, 1, 2)), len(x), x + 1

    got = ok(t([1.0, 2.0]))
    assert (got[0], got[1], got[2]) == ([3, 4], 3, 2)


def _min_of(x):
    return min(x)


def _max_of(x):
    return max(x)


@pytest.mark.parametrize("of_one, kind", [(_min_of, min), (_max_of, max)])
def test_min_max_of_one_scalar_in_graph(of_one, kind):
    with pytest.raises(TypeError, match="The object is not iterable."):
        ms.jit(of_one)(ms.mutable(2))
    with pytest.raises(TypeError, match="The object is not iterable."):
        ms.jit(of_one)(ms.mutable(2.5))
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor."):
        ms.jit(of_one)(t(3.0))
    assert float(ms.jit(of_one)(t([3.0, 1.0, 2.0]))) == kind(3.0, 1.0, 2.0)


def test_creating_parameter_or_multitype_funcgraph_in_graph_is_value_error():
    def param(x):
        return ms.Parameter(x, name="weight")

    def multitype(x):
        add = ms.ops.MultitypeFuncGraph("add")
        return add(x, 1)

    for fn, name in ((param, "Parameter"), (multitype, "MultitypeFuncGraph")):
        with pytest.raises(ValueError, match=f"creating {name} instances is not supported in 'construct'"):
            ms.jit(fn)(t([1.0]))


def test_cyclic_argument_and_deep_result_are_runtime_errors():
    cyclic = [1, 2]
    cyclic.append(cyclic)
    looped = {"1": 1}
    looped["2"] = looped
    for arg in (cyclic, looped):
        with pytest.raises(RuntimeError, match="Detect recursion when converting python object."):
            ms.jit(lambda x: x)(arg)

    @ms.jit
    def deep():
        return [1, [2, [3, [4, [5, [6, [7]]]]]]]

    @ms.jit
    def six():
        return (1, (2, (3, (4, (5, (6,))))))

    @ms.jit
    def dicts():
        return {"a": {"a": {"a": {"a": {"a": {"a": {"a": 1}}}}}}}

    with pytest.raises(RuntimeError, match="nesting is not allowed more than 6 levels"):
        deep()
    assert six() == (1, (2, (3, (4, (5, (6,)))))) and dicts()["a"]["a"]["a"]["a"]["a"]["a"]["a"] == 1


def test_jit_class_refuses_a_cell():
    from mindseed import nn

    with pytest.raises(TypeError, match="Decorator jit_class is used for user-defined classes and cannot be used for "
                                        "nn.Cell"):
        @ms.jit_class
        class Net(nn.Cell):
            def construct(self, x):
                return x

    @ms.jit_class
    class Scale:
        def __init__(self):
            self.k = 3.0

    s = Scale()
    np.testing.assert_allclose(ms.jit(lambda x: x * s.k)(t([1.0, 2.0])).asnumpy(), [3.0, 6.0])


def test_sequence_index_out_of_range_in_graph():
    def tuple_item(x):
        return (x, x)[2]

    def list_item(x):
        return [x, x][-3]

    for fn, msg in ((tuple_item, "TupleGetItem evaluator index should be in range[-2, 2), but got 2."),
                    (list_item, "list_getitem evaluator index should be in range[-2, 2), but got -3.")):
        with pytest.raises(IndexError, match=re.escape(msg)):
            ms.jit(fn)(t([1.0]))
    np.testing.assert_allclose(ms.jit(lambda x: (x, x * 2)[-1])(t([1.0])).asnumpy(), [2.0])


def test_item_assignment_of_a_cell_attribute():
    from mindseed import nn

    class Undefined(nn.Cell):
        def construct(self, x):
            self.missing[0] = 9
            return x

    class Items(nn.Cell):
        def __init__(self):
            super().__init__()
            self.z = [1, 2]
            self.w = ms.Parameter(t([1.0, 2.0]), name="w")

        def construct(self, x):
            self.w[0] = 5.0
            return x + self.w

    with pytest.raises(TypeError, match="'self.missing' should be initialized in the '__init__' function before "
                                        "subscript."):
        ms.jit(Undefined())(t([1.0]))
    np.testing.assert_allclose(ms.jit(Items())(t([1.0, 1.0])).asnumpy(), [6.0, 3.0])

    class ListItem(nn.Cell):
        def __init__(self):
            super().__init__()
            self.z = [[1, 2], 3]

        def construct(self, x):
            self.z[0] = x
            return self.z[0]

    ms.set_context(jit_syntax_level=ms.STRICT)
    try:
        with pytest.raises(TypeError, match="should be initialized as a 'Parameter' in the '__init__' function to "
                                            "perform assign subscript"):
            ms.jit(ListItem())(t([1.0]))
    finally:
        ms.set_context(jit_syntax_level=ms.LAX)
    np.testing.assert_allclose(ms.jit(ListItem())(t([2.0])).asnumpy(), [2.0])


def test_dict_fromkeys_in_graph():
    @ms.jit
    def f(x):
        d = {"a": 1}
        return d.fromkeys("ab", 1), d.fromkeys([1, 2]), x + 1

    a, b, _ = f(t([1.0]))
    assert a == {"a": 1, "b": 1} and b == {1: None, 2: None}

    def not_iterable(x):
        return {"a": 1}.fromkeys(123, 111)

    with pytest.raises(RuntimeError, match="Int64 object is not iterable"):
        ms.jit(not_iterable)(t([1.0]))


def test_augmented_assignment_of_a_numpy_array_is_not_in_place():
    @ms.jit
    def f():
        y = np.array(0)
        for i in np.array([1.1, 2.2]):
            y += i
        acc = [1]
        acc += [2]
        return ms.Tensor(y), acc

    y, acc = f()
    np.testing.assert_allclose(y.asnumpy(), 3.3)
    assert acc == [1, 2]

    @ms.jit
    def g(x):
        x += 1
        x *= 2
        return x

    np.testing.assert_allclose(g(t([1.0, 2.0])).asnumpy(), [4.0, 6.0])
