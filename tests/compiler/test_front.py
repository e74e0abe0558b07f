"""Front end: Python builtins, print, assert and raise on graph tensors compile (no interpreter fallback)."""

import numpy as np
import pytest

import mindseed as ms
from _graph import no_fallback
from mindseed import ops


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))




def test_scalar_builtins_on_graph_tensors_compile_and_return_python_scalars():
    @ms.jit
    def f(v):
        return bool(v[0]), int(v[2]), float(v[1]), int(v[2]) + 1, any(v > 3), all(v > -3), min(v), max(v)
    for vals in ([0.5, -2.5, 3.7], [0.0, 4.25, -1.2]):
        got = no_fallback(f, t(vals))
        a = np.asarray(vals, np.float32)
        want = (bool(a[0]), int(a[2]), float(a[1]), int(a[2]) + 1, bool((a > 3).any()), bool((a > -3).all()))
        assert got[:6] == want
        assert [type(x) for x in got[:6]] == [bool, int, float, int, bool, bool]
        np.testing.assert_allclose(got[6].asnumpy(), a.min())
        np.testing.assert_allclose(got[7].asnumpy(), a.max())
    assert len(f.cache) == 1   # the second call ran the compiled graph with new values


def test_max_of_two_multi_element_tensors_raises():
    @ms.jit
    def f(a, b):
        return max(a, b)
    with pytest.raises(ValueError, match="ambiguous"):
        f(t([1.0, 2.0]), t([3.0, 0.0]))
    np.testing.assert_allclose(f(t([1.0]), t([3.0])).asnumpy(), [3.0])


def test_loop_counter_carried_by_a_tensor_loop_is_a_python_int():
    @ms.jit
    def doubling(x):
        steps = 0
        while x.sum() < 50:
            x = x * 2
            steps += 1
        return x, steps
    for start, n in (([1.0, 2.0], 5), ([10.0, 20.0], 1)):
        x, steps = no_fallback(doubling, t(start))
        assert steps == n and type(steps) is int
        np.testing.assert_allclose(x.asnumpy(), np.asarray(start) * 2 ** n)
    assert len(doubling.cache) == 1


def test_for_over_tensor_rows_with_break_compiles():
    @ms.jit
    def acc_rows(x):
        acc = ops.zeros_like(x[0])
        for row in x:
            if row.sum() > 5:
                break
            acc = acc + row
        return acc
    a = np.array([[1.0, 0.5], [2.0, 1.0], [4.0, 3.0], [0.1, 0.1]], np.float32)
    np.testing.assert_allclose(no_fallback(acc_rows, t(a)).asnumpy(), [3.0, 1.5])
    b = np.array([[1.0, 0.5], [2.0, 1.0], [1.0, 0.0], [0.1, 0.1]], np.float32)
    np.testing.assert_allclose(no_fallback(acc_rows, t(b)).asnumpy(), b.sum(0), rtol=1e-6)
    assert len(acc_rows.cache) == 1


def test_print_is_a_graph_node_printed_at_every_call(capsys):
    @ms.jit
    def chatty(v, n):
        print("n =", n, v.sum(), True, 2.5)
        print(v)
        return v * n
    chatty(t([1.0, 2.0]), 3)
    chatty(t([1.0, 3.0]), 3)
    out = capsys.readouterr().out.splitlines()
    assert out == ["n =", "3", "3", "1", "2.5",
                   "Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00])",
                   "n =", "3", "4", "1", "2.5",
                   "Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  3.00000000e+00])"]
    assert len(chatty.cache) == 1


def test_print_in_untaken_branch_prints_only_when_taken(capsys):
    @ms.jit
    def f(x):
        if x.sum() > 0:
            print("positive")
            x = x * 2
        return x
    f(t([-1.0]))
    assert capsys.readouterr().out == ""
    np.testing.assert_allclose(f(t([2.0])).asnumpy(), [4.0])
    assert capsys.readouterr().out == "positive\n"
    assert len(f.cache) == 1


def test_assert_on_graph_tensor_checks_at_run_time():
    @ms.jit
    def positive_log(x):
        assert x.min() > 0, "x must be positive"
        return ops.log(x)
    np.testing.assert_allclose(no_fallback(positive_log, t([1.0, np.e])).asnumpy(), [0.0, 1.0], atol=1e-6)
    with pytest.raises(AssertionError, match="x must be positive"):
        positive_log(t([1.0, -2.0]))      # the compiled graph raises
    assert len(positive_log.cache) == 1


def test_raise_in_untaken_branch_raises_when_taken_at_run_time():
    @ms.jit
    def clipped(x):
        if x.sum() > 10:
            raise ValueError("the sum of x exceeds 10")
        return x * 2
    np.testing.assert_allclose(no_fallback(clipped, t([1.0, 2.5])).asnumpy(), [2.0, 5.0])
    with pytest.raises(ValueError, match="exceeds 10"):
        clipped(t([9.0, 4.0]))
    np.testing.assert_allclose(clipped(t([3.0, 3.0])).asnumpy(), [6.0, 6.0])
    assert len(clipped.cache) == 1


def test_shadowed_builtin_names_are_left_alone():
    def max(*a):  # noqa: A001 -- the point of the test
        return "mine"

    @ms.jit
    def f(x):
        return x + len(max(x))
    np.testing.assert_allclose(f(t([1.0])).asnumpy(), [5.0])


def test_print_of_a_numpy_value_inside_a_graph_shows_numpy_text(capsys):
    @ms.jit
    def show():
        arr = np.array([[1, 2], [3, 4]])
        print(arr[:, None])
        print(arr[0, 1])
        return 0

    assert show() == 0
    out = capsys.readouterr().out
    assert str(np.array([[1, 2], [3, 4]])[:, None]) in out and "\n2\n" in "\n" + out


def test_print_with_a_numpy_value_is_pythons_print(capsys):
    @ms.jit
    def show(x):
        y = x * 2
        print("doubled:", y, np.array([1, 2]))
        print("graph:", y)
        return y

    np.testing.assert_array_equal(show(ms.Tensor(np.array([1, 2, 3]))).asnumpy(), [2, 4, 6])
    out = capsys.readouterr().out
    # the one with a numpy value on a line, values as str() shows them; the other in the graph's Print format
    assert "doubled: [2 4 6] [1 2]\n" in out
    assert "graph:\nTensor(shape=[3], dtype=Int64, value=[2 4 6])\n" in out
