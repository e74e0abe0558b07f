"""Graph-mode behaviours MindSpore code relies on: gradients of `mutable` containers, STRICT outputs, the class API
on Python numbers, parameter-name clashes, zip and scalar-tensor iteration in graphs."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, mutable, nn
from mindseed.ops import operations as P
from mindseed.ops.composite import GradOperation


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


X = np.array([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], np.float32)
Y = np.array([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], np.float32)


def _matmul_of(pick):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.z = Parameter(Tensor(np.array([2.0], np.float32)), name="z")

        def construct(self, t):
            x, y = pick(t)
            return P.MatMul()(x * self.z, y)
    return Net()


@pytest.mark.parametrize("make, pick, kind", [
    (lambda a, a2, b: mutable(((a, a2), b)), lambda t: (t[0][0], t[1]), tuple),
    (lambda a, a2, b: mutable([[a, a2], b]), lambda t: (t[0][0], t[1]), list),
    (lambda a, a2, b: mutable({"x": (a, a2), "y": b}), lambda t: (t["x"][0], t["y"]), dict),
])
def test_grad_of_mutable_container_keeps_its_structure(graph_mode, make, pick, kind):
    net = _matmul_of(pick)
    g = GradOperation()(net)(make(Tensor(X), Tensor(X), Tensor(Y)))
    assert type(g) is kind
    first, second = (g["x"], g["y"]) if kind is dict else (g[0], g[1])
    ones = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(first[0].asnumpy(), 2 * ones @ Y.T, rtol=1e-6)
    np.testing.assert_allclose(first[1].asnumpy(), np.zeros_like(X))        # the unused element: zeros
    np.testing.assert_allclose(second.asnumpy(), (2 * X).T @ ones, rtol=1e-6)


def test_plain_tuple_is_not_differentiated_in_pynative():
    g = ms.grad(lambda t: (t[0] * t[1]).sum())((Tensor(X), Tensor(X)))
    assert g == ()


def test_strict_syntax_returns_dict_values_as_tuple(graph_mode, monkeypatch):
    monkeypatch.setenv("MS_DEV_JIT_SYNTAX_LEVEL", "0")

    @ms.jit
    def f(x):
        return {"a": x + 1, "b": (x, x * 2)}
    out = f(Tensor([1.0]))
    assert isinstance(out, tuple) and isinstance(out[1], tuple)
    np.testing.assert_allclose(out[0].asnumpy(), [2.0])
    monkeypatch.setenv("MS_DEV_JIT_SYNTAX_LEVEL", "2")
    assert isinstance(f(Tensor([1.0])), dict)


@pytest.mark.parametrize("cls, expect", [(P.FloorDiv, 3), (P.FloorMod, 1), (P.Pow, 49), (P.Maximum, 7),
                                         (P.Minimum, 2), (P.Greater, True), (P.Add, 9)])
def test_class_api_computes_on_two_numbers(cls, expect):
    out = cls()(7, 2)
    assert isinstance(out, Tensor) and out.asnumpy() == expect


@pytest.mark.parametrize("cls", [P.Equal, P.Less, P.DivNoNan])
def test_class_api_rejects_two_numbers_without_kernel_words(cls):
    with pytest.raises(TypeError) as info:
        cls()(7, 2)
    assert "combination of arguments" not in str(info.value) and "has no attribute" not in str(info.value)


def test_parameters_of_one_name_in_one_graph_raise():
    @ms.jit
    def g(a, b):
        return a * b
    with pytest.raises(ValueError, match="its name 'q' already exists"):
        g(Parameter(Tensor(1.0), name="q"), Parameter(Tensor(2.0), name="q"))
    # unnamed Parameters share the default name and are fine
    assert float(g(Parameter(Tensor(3.0)), Parameter(Tensor(2.0)))) == 6.0


def test_zip_without_arguments_and_scalar_iteration_in_graph(graph_mode):
    class Empty(nn.Cell):
        def construct(self, x):
            for _ in zip():
                x = x + 1
            return x

    class Scalar(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(5.0), name="p")

        def construct(self, x):
            for _, _ in zip((x,), self.p):
                x = x + 1
            return x
    with pytest.raises(RuntimeError, match="The zip operator must have at least 1 argument"):
        Empty()(Tensor([1.0]))
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
        Scalar()(Tensor([1.0]))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(Tensor(1.0))


def test_celldict_key_may_not_shadow_cell_attribute():
    d = nn.CellDict({"relu": nn.ReLU()})
    with pytest.raises(KeyError):
        d["_scope"] = nn.ReLU()


def test_tensor_in_sequence_compares_whole_tensors():
    @ms.jit
    def has(x):
        y = (1, Tensor([1, 2, 3]), np.array([1, 2, 3, 4]), (1, 1))
        return x in y, x not in y
    a, b = has(Tensor([1, 2, 3]))
    assert bool(a) and not bool(b)
    a, b = has(Tensor([1, 1, 1]))
    assert not bool(a) and bool(b)


def test_python_attribute_update_in_graph_runs_every_call(graph_mode):
    class Counter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = 1
            self.t = Tensor([1, 2, 3])

        def construct(self):
            self.a = self.a + 1
            self.t += 1
            return self.a, self.t
    net = Counter()
    outs = [net() for _ in range(3)]
    assert [o[0] for o in outs] == [2, 3, 4]
    np.testing.assert_array_equal(outs[2][1].asnumpy(), [4, 5, 6])


def test_attribute_update_under_strict_syntax_and_parameter_attributes(graph_mode, monkeypatch):
    class SetData(nn.Cell):
        def __init__(self):
            super().__init__()
            self.data = 1

        def construct(self):
            self.data = 2
            return self.data

    class Rename(nn.Cell):
        def __init__(self):
            super().__init__()
            self.x = Parameter(Tensor([1.0]), name="x")

        def construct(self):
            self.x.name = "x2"
            return self.x
    with pytest.raises(ValueError, match="Do not support to set attribute for a parameter"):
        Rename()()
    monkeypatch.setenv("MS_DEV_JIT_SYNTAX_LEVEL", "0")
    with pytest.raises(TypeError, match="In JIT strict mode, if need to modify a member attribute"):
        SetData()()


def test_set_inputs_rank_is_checked_but_a_scalar_passes(graph_mode):
    class Lin(nn.Cell):
        def construct(self, a, b):
            return ms.ops.linspace(a, b, 5)

    class Twice(nn.Cell):
        def construct(self, a):
            return a * 2
    lin = Lin()
    lin.set_inputs(Tensor(shape=[None], dtype=ms.float32), Tensor(shape=[None], dtype=ms.float32))
    np.testing.assert_allclose(lin(Tensor(5.0), Tensor(25.0)).asnumpy(), np.linspace(5, 25, 5))
    np.testing.assert_allclose(lin(Tensor(15.0), Tensor(35.0)).asnumpy(), np.linspace(15, 35, 5))
    net = Twice()
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    with pytest.raises(ValueError, match="the dims of 1th input must be the same as expected, but got expected: 2"):
        net(Tensor(np.ones((2,), np.float32)))
