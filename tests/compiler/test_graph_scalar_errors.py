"""Errors of Python scalar work in a graph, with MindSpore's types and messages: a scalar divided by zero, range(...)'s
arguments, a primitive given too few or too many inputs, a slice bound that is not an int."""
import sys

import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, jit, nn
from mindseed.ops import operations as P
from _graph import graph_mode


def _twice(x):
    return x * 2


def test_scalar_division_by_zero_is_a_value_error():
    @jit
    def div(x):
        return x + 5 / 0

    @jit
    def floordiv(x):
        return x + 5 // 0

    @jit
    def mod(x):
        return x + 5.0 % 0.0

    x = Tensor(2, ms.int32)
    for fn in (div, floordiv):
        with pytest.raises(ValueError, match="The divisor could not be zero. But the divisor is zero now."):
            fn(x)
    with pytest.raises(ValueError, match="Cannot perform modulo operation on zero."):
        mod(x)

    @jit
    def fine(x):
        return x + 7 // 2 + 7 % 4

    assert fine(x).asnumpy() == 2 + 3 + 3


def _loop(*bounds):
    @jit
    def f(x):
        for _ in range(*bounds):
            x = x + 1
        return x
    return f


def test_range_arguments_are_checked_as_mindspore():
    x = Tensor(0, ms.int32)
    assert _loop(1, 7, 2)(x).asnumpy() == 3 and _loop(1, -1, 3)(x).asnumpy() == 0
    with pytest.raises(RuntimeError, match=r"For 'make_range', the input size should within \[1, 3\] but got4"):
        _loop(1, 2, 3, 4)(x)
    with pytest.raises(TypeError, match=r"the 2th input should be a int scalar but got AbstractScalar\(Type: "
                                        r"Float32, Value: 3\)"):
        _loop(0, 1, 3.0)(x)
    with pytest.raises(RuntimeError, match="For 'range', the argument 'step' could not be 0."):
        _loop(1, 2, 0)(x)
    with pytest.raises(ValueError, match="Integer overflow error occurred when traversing the range"):
        _loop(sys.maxsize - 1, sys.maxsize, 3)(x)
    with pytest.raises(ValueError, match="Integer overflow error occurred when traversing the range"):
        _loop(-sys.maxsize, -sys.maxsize - 1, -3)(x)


def test_primitive_input_count():
    class Abs2(nn.Cell):
        def construct(self, x, y):
            return P.Abs()(x, y)

    class Mod1(nn.Cell):
        def construct(self, x):
            return x + P.Mod()(x)

    x = Tensor([1.0, -2.0])
    with graph_mode():
        with pytest.raises(TypeError, match=r"For Operator\[Abs\], the number of inputs should be less than or "
                                            r"equal to 1, but got 2"):
            Abs2()(x, x)
        with pytest.raises(RuntimeError, match="For 'S_Prim_Mod', the size of input should be 2, but got 1"):
            Mod1()(x)
    with pytest.raises(ValueError, match="Mod inputs number 1 does not match the requires signature size 2"):
        P.Mod()(x)
    np.testing.assert_allclose(P.Abs()(x).asnumpy(), [1.0, 2.0])


def test_slice_bounds_must_be_ints():
    x = Tensor(np.array([8, 10, 12], np.int32))

    @jit
    def f(t):
        return t[1.5:]

    with pytest.raises(TypeError, match="Slice indices must be integers or bool. But got a Float32 number."):
        f(x)
    with pytest.raises(RuntimeError, match="Slice index type must be int, tensor or none."):
        x[:2.5]   # noqa: B018
    assert x[True:].asnumpy().tolist() == [10, 12] and _twice(x[np.int64(1):]).asnumpy().tolist() == [20, 24]


class _Holder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.x = 123


def test_str_format_in_graph():
    @jit
    def constant_kwargs(x):
        return "v={a} {0}".format(2, a=1), x + 1

    @jit
    def cell_argument(x):
        return "value is {0.x}".format(_Holder()), x

    @jit
    def graph_value_kwargs(x):
        return "hello {name}".format(name=x)

    x = Tensor([1.0])
    text, y = constant_kwargs(x)
    assert text == "v=1 2" and y.asnumpy().tolist() == [2.0]
    with pytest.raises(TypeError, match="Unsupported parameter type for python primitive, the parameter value is "
                                        "DeadNode"):
        cell_argument(x)
    with pytest.raises(KeyError, match="name"):
        graph_value_kwargs(x)


def test_comprehensions_of_one_generator():
    @jit
    def one(x):
        return x + sum([i * i for i in range(1, 4) if i != 2]), {k: v * 2 for k, v in (("a", 1),)}

    @jit
    def nested_list(x):
        return x + sum([y for t in ((1, 2), (3, 4)) for y in t])

    @jit
    def nested_dict(x):
        return x, {k: v for d in ({"a": 1}, {"b": 2}) for k, v in d.items()}

    @jit
    def set_comp(x):
        return x + len({i for i in range(3)})

    x = Tensor([1.0])
    y, d = one(x)
    assert y.asnumpy().tolist() == [11.0] and d == {"a": 2}
    with pytest.raises(TypeError, match=r"supports 1 'comprehension' in ListComp/GeneratorExp, but got 2"):
        nested_list(x)
    with pytest.raises(TypeError, match=r"supports 1 'comprehension' in DictComp/GeneratorExp, but got 2"):
        nested_dict(x)
    with pytest.raises(RuntimeError, match="Unsupported expression 'SetComp'."):
        set_comp(x)


def test_strict_syntax_refuses_updating_an_item_of_a_member_list():
    class Net(nn.Cell):
        def __init__(self, z):
            super().__init__()
            self.z = z

        def construct(self, x):
            self.z[0].append(5)
            return x * len(self.z[0])

    x = Tensor([1.0, 2.0])
    with graph_mode():
        ms.set_context(jit_syntax_level=ms.STRICT)
        try:
            with pytest.raises(TypeError, match=r"When JIT_SYNTAX_LEVEL is not set to LAXself.z should be "
                                                r"initialized as a 'Parameter'"):
                Net([[1, 2], 3])(x)
        finally:
            ms.set_context(jit_syntax_level=ms.LAX)
        np.testing.assert_allclose(Net([[1, 2], 3])(x).asnumpy(), [3.0, 6.0])


def test_parameter_hook_inside_a_graph_is_refused():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")

        def construct(self, x):
            self.w.register_hook(lambda g: g * 2)
            return x * self.w

    net = Net()
    with graph_mode():
        with pytest.raises(ValueError, match="Register hook for Parameter inside graph is not supported."):
            net(Tensor([3.0, 4.0]))
    w = ms.Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w2")
    handle = w.register_hook(lambda g: g * 2)
    g = ms.grad(lambda x: (x * w).sum(), weights=[w], grad_position=None)(Tensor([3.0, 4.0]))
    assert g[0].asnumpy().tolist() == [6.0, 8.0]
    handle.remove()


def test_missing_attribute_names_the_graph_type():
    from collections import namedtuple  # noqa: PLC0415

    class Shape(nn.Cell):
        def construct(self, x):
            return x.shape

    class Label(nn.Cell):
        def construct(self, data):
            return data.label3

    Data = namedtuple("Data", ["label1", "label2"])
    with graph_mode():
        for value, kind in ((1, "Int"), (1.5, "Float"), ("s", "String")):
            with pytest.raises(AttributeError, match=f"'{kind}' object has no attribute 'shape'"):
                Shape()(value)
        with pytest.raises(AttributeError, match="'NamedTuple' object has no attribute 'label3'"):
            Label()(Data(1, 2))
        assert Shape()(Tensor(np.zeros((2, 3), np.float32))) == (2, 3)


def test_graph_slices_with_float_bounds_raise_mindspores_errors():
    class Inline(ms.nn.Cell):
        def construct(self, x):
            return "ABCDEFGHIJKL"[1:4.5]

    class Made(ms.nn.Cell):
        def construct(self, x):
            sl = slice(x, 4.5)
            return (1, 2, 3, 4, 5, 6)[sl]

    class Ok(ms.nn.Cell):
        def construct(self, x):
            return "ABCDEFGHIJKL"[slice(x, 4)], (1, 2, 3, 4, 5)[1:x]

    with pytest.raises(TypeError, match="Slice indices must be integers or bool"):
        ms.jit(Inline())(1)
    with pytest.raises(RuntimeError, match=r"Attribute 'stop' of slice\(1, 4.5, None\) should be int or Tensor "
                                           r"with Int type but got 4.5"):
        ms.jit(Made())(1)
    assert ms.jit(Ok())(3) == ("D", (2, 3))
