"""Python objects inside graphs as MindSpore 2.10's static graph gives them: dict views, a missing key,
the classes of `mutable` values (the values here were printed by MindSpore 2.10 CPU)."""
import warnings

import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, jit, mutable, ops


def test_dict_keys_values_items_in_a_graph_are_sequences():
    @jit
    def views(a):
        d = {"a": 1, "b": a}
        d["c"] = 3
        d.update({"a": 10})
        items = d.items()
        return d.keys(), d.values(), items, items[0], d.get("z", 99)

    keys, values, items, first, missing = views(Tensor(np.array([1.0, 2.0], np.float32)))
    assert keys == ("a", "b", "c")                      # MindSpore: tuple ('a', 'b', 'c')
    assert isinstance(values, tuple) and values[0] == 10 and values[2] == 3
    np.testing.assert_allclose(values[1].asnumpy(), [1.0, 2.0])
    assert isinstance(items, list) and [k for k, _ in items] == ["a", "b", "c"]
    assert first == ("a", 10) and missing == 99


def test_a_key_missing_from_a_dict_in_a_graph_is_a_value_error():
    @jit
    def constant_dict(a):
        d = {"a": 1, "b": 2}
        return a + d["c"]

    @jit
    def tensor_dict(a):
        d = {"a": 1, "b": a}
        return d["c"]

    x = Tensor(np.array([1.0], np.float32))
    with pytest.raises(ValueError, match=r"The key c does not exist in the dict:\{'a': 1, 'b': 2\}"):
        constant_dict(x)
    with pytest.raises(ValueError, match="The key c does not exist in the dict:ValueAny"):
        tensor_dict(x)


class _Output(dict):
    """A model output in the style of mindnlp's and transformers' ModelOutput: keys, and positions."""

    def __getitem__(self, k):
        return list(self.values())[k] if isinstance(k, int) else super().__getitem__(k)


def test_a_dict_subclass_with_its_own_getitem_keeps_it_in_a_graph():
    @jit
    def first_and_named(a):
        out = _Output(logits=a * 2, hidden=a + 1)
        return out[0] + out["hidden"] + out[1]

    got = first_and_named(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(got.asnumpy(), [6.0, 10.0])


def test_mutable_classes_carry_mindspores_names():
    names = [type(mutable(v)).__name__ for v in (2, 2.5, True, [Tensor([1.0])], (Tensor([1.0]),),
                                                 {"a": Tensor([1.0])})]
    assert names == ["_Int", "_Float", "_Bool", "_List", "_Tuple", "_Dict"]
    assert isinstance(mutable(2), int) and mutable(2) + 1 == 3
    assert ms.mutable is mutable


def test_print_in_a_graph_writes_mindspores_graph_format(capsys):
    # the lines MindSpore 2.10 printed for the same call (graph printer: numpy layout without commas)
    p = ops.Print()

    @jit
    def f(a, b, c, d, e):
        p("vals", a, b, c, d, e, (1, 2), True, [a, 3])
        return a

    f(Tensor([1.0, 2.5, -3.0]), Tensor(3, ms.int32), Tensor(True), Tensor(np.arange(8).reshape(2, 2, 2), ms.int64),
      Tensor(np.arange(6).reshape(2, 3).astype(np.float16)))
    assert capsys.readouterr().out.splitlines() == [
        "vals", "Tensor(shape=[3], dtype=Float32, value=[ 1.00000000e+00  2.50000000e+00 -3.00000000e+00])",
        "3", "1", "Tensor(shape=[2, 2, 2], dtype=Int64, value=", "[[[0 1]", "  [2 3]]", " [[4 5]", "  [6 7]]])",
        "Tensor(shape=[2, 3], dtype=Float16, value=", "[[ 0.0000e+00  1.0000e+00  2.0000e+00]",
        " [ 3.0000e+00  4.0000e+00  5.0000e+00]])", "(1, 2)", "1",
        "Tensor(shape=[3], dtype=Float32, value=[ 1.00000000e+00  2.50000000e+00 -3.00000000e+00])", "3"]


def test_print_in_pynative_takes_any_python_value(capsys):
    ops.Print()("list", [Tensor(1), 2], 1.5, None)
    assert capsys.readouterr().out.splitlines() == [
        "list", "[Tensor(shape=[], dtype=Int64, value= 1), 2]", "1.5", "None"]


class _Counter:
    """A plain Python class (not a Cell) keeping a batch count and BatchNorm running statistics in Tensors."""

    def __init__(self):
        self.count = Tensor(0, ms.int64)
        self.mean, self.var = ops.zeros(3), ops.ones(3)
        self.gamma, self.beta = ms.Parameter(ops.ones(3), name="gamma"), ms.Parameter(ops.zeros(3), name="beta")

    def __call__(self, x):
        self.count = self.count + 1
        return ops.batch_norm(x, self.mean, self.var, self.gamma, self.beta, True, 0.1, 1e-5)


def test_calling_an_object_in_a_graph_runs_its_call_each_time():
    """`obj(x)` of a plain object in a jitted function runs obj.__call__ as the graph's code: the attribute it sets
    and the running statistics batch_norm updates change at every call (MindSpore 2.10: count 1, 2, 3 and these
    running means), not only while the graph is first traced."""
    obj = _Counter()

    @jit
    def step(x):
        return obj(x)

    x = Tensor(np.arange(48, dtype=np.float32).reshape(4, 3, 2, 2))
    means = []
    with pytest.warns(UserWarning, match="'_Counter.count' is assigned a new Tensor"):
        for _ in range(3):
            y = step(x)
            means.append(obj.mean.asnumpy().copy())
    assert int(obj.count) == 3
    np.testing.assert_allclose(means, [[1.95, 2.35, 2.75], [3.705, 4.465, 5.225], [5.2845, 6.3685, 7.4525]],
                               rtol=1e-6)
    np.testing.assert_allclose(y.asnumpy().mean((0, 2, 3)), 0, atol=1e-6)


class _Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k + 1


def test_an_objects_call_without_python_state_compiles():
    scale = _Scale(3.0)

    @jit
    def f(x):
        return scale(x) * 2

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = f(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [8.0, 14.0])
