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
