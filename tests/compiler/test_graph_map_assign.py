"""map() in a graph (MindSpore's Map: lists or tuples of one length, mapped into a list or tuple, with its
argument errors) and the dtype rule of a value written into a Parameter (checked against MindSpore 2.10)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def mul(x=2, y=4):
    return x * y


def test_map_over_lists_and_tuples_gives_a_list_and_a_tuple():
    @ms.jit
    def f(x):
        a = map(mul, (1, 2), (3, 4))
        b = map(mul, [x, x], [2.0, 3.0])
        return a, b, type(a) is tuple, type(b) is list

    a, b, is_tuple, is_list = f(Tensor(np.array([1.0, 2.0], np.float32)))
    assert a == (3, 8) and is_tuple and is_list
    np.testing.assert_allclose(b[1].asnumpy(), [3.0, 6.0])


@pytest.mark.parametrize("args, err, msg", [
    ((), TypeError, "The Map operator must have at least two arguments. But the size of arguments is 1."),
    ((3, 4), RuntimeError, "Map can only be applied to list, tuple, but got Int64."),
    (([1], (1,)), RuntimeError, "The types of arguments in Map must be consistent, but the types of arguments are "
                                "inconsistent."),
    (([1], [1, 2]), RuntimeError, "For 'Map', the length of lists must be the same."),
    (((1, 2), (1, 2, 3)), RuntimeError, "For 'Map', the length of tuples must be the same."),
    (({"a": 1},), RuntimeError, r"Map can only be applied to list, tuple, but got Dictionary\[\[a,\],\[Int64\]\]."),
    (([1], Tensor([1])), RuntimeError, "The types of arguments in Map must be consistent"),
    ((1.5, 2), RuntimeError, "Map can only be applied to list, tuple, but got Int64."),
])
def test_map_argument_errors(args, err, msg):
    @ms.jit
    def f(x):
        return map(mul, *args)

    with pytest.raises(err, match=msg):
        f(Tensor(1.0))


class AssignNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.ones(3, np.float32)), name="p")

    def construct(self, x):
        ops.assign(self.p, x)
        return self.p


class SetAttrNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.ones(3, np.float32)), name="p")

    def construct(self, x):
        self.p = x
        return self.p


_WIDER = "so data type Float32, which cannot be converted to data type Float64 automatically"


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_a_parameter_takes_only_values_its_dtype_holds(mode):
    ms.set_context(mode=mode)
    try:
        for dt in (np.float16, np.int32):
            out = AssignNet()(Tensor(np.full(3, 2, dt)))
            assert out.dtype == ms.float32
            np.testing.assert_allclose(out.asnumpy(), [2.0, 2.0, 2.0])
        with pytest.raises(TypeError, match=_WIDER):
            AssignNet()(Tensor(np.ones(3, np.float64)))
        # `self.p = x` is an Assign in a graph; in PyNative the Parameter's set_data, which casts
        if mode == ms.GRAPH_MODE:
            with pytest.raises(TypeError, match=_WIDER):
                SetAttrNet()(Tensor(np.ones(3, np.float64)))
        else:
            assert SetAttrNet()(Tensor(np.ones(3, np.float64))).dtype == ms.float32
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_map_over_numpy_arrays_runs_as_python_map():
    # a numpy array is an interpreter object in MindSpore's graph (JIT fallback): Python's map, element by element
    @ms.jit
    def f():
        x = np.array([1, 2, 3, 4])
        y = Tensor([1, 1, 1, 1])
        return tuple(map(lambda a, b: a + b, x, y))

    assert tuple(int(v) for v in f()) == (2, 3, 4, 5)


def test_a_dict_key_may_be_a_tuple_holding_a_list():
    # MindSpore's graph dicts take such keys (compared by value) and give them back as they were
    @ms.jit
    def f():
        x = [1, 2]
        dic = {((3, x), 3): 4, (5,): 6}
        return dic[((3, [1, 2]), 3)], dic[(5,)], tuple(dic.keys())

    a, b, keys = f()
    assert (a, b) == (4, 6)
    assert keys == (((3, [1, 2]), 3), (5,))
