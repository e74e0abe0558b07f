"""Dynamic-length sequences (`mutable(seq, True)`) and variable scalars in graph mode: the marks MindSpore's graph
gives them (`F.isconstant`, `F.is_sequence_value_unknown`, `F.is_sequence_shape_unknown`), the values they compute,
and MindSpore's type checks."""

import warnings

import numpy as np
import pytest

import mindseed as ms
from mindseed import mutable
from mindseed.ops import functional as F


def test_variable_scalar_arithmetic_stays_variable():
    @ms.jit
    def f():
        x, y = mutable(7), mutable(3)
        return x / y, x % y, x & y, x | y, -x, 2 ** y, F.isconstant(x + 1), F.isconstant(x // y), F.isconstant(1 + 2)

    div, mod, band, bor, neg, pw, c1, c2, c3 = f()
    assert (mod, band, bor, neg, pw) == (1, 3, 7, -7, 8) and isinstance(mod, int)
    assert abs(div - 7 / 3) < 1e-6 and isinstance(div, float)
    assert (c1, c2, c3) == (False, False, True)
    # outside a graph a mutable scalar computes plain Python numbers
    assert type(mutable(2) + 1) is int


def test_dynamic_sequence_marks_and_values():
    @ms.jit
    def f():
        a = mutable([1, 2, 3, 4], True)
        b = mutable((5, 6), False)
        s = a[1:3]
        c = a + [9]
        d = [0] + a
        return (F.is_sequence_shape_unknown(a), F.is_sequence_value_unknown(a), F.is_sequence_shape_unknown(b),
                F.is_sequence_value_unknown(b), F.is_sequence_value_unknown([1, 2]), F.is_sequence_shape_unknown(s),
                F.is_sequence_shape_unknown(c), F.is_sequence_shape_unknown(d), F.isconstant(len(a)),
                F.isconstant(len([1])), F.isconstant(a.count(2)), F.isconstant(a[0]), s, c, d, len(a), a.index(3))

    out = f()
    assert out[:12] == (True, True, False, True, False, True, True, True, False, True, False, False)
    assert list(out[12]) == [2, 3] and list(out[13]) == [1, 2, 3, 4, 9] and list(out[14]) == [0, 1, 2, 3, 4]
    assert out[15:] == (4, 2)


def test_dynamic_sequence_from_range_tuple_list_and_slice_bounds():
    @ms.jit
    def f():
        r = range(mutable(2), 6)
        t = tuple(mutable([1, 2], True))
        lst = list(mutable((3, 4), True))
        cut = (10, 20, 30)[:mutable(2)]
        return (isinstance(r, tuple), F.is_sequence_shape_unknown(r), r, isinstance(t, tuple),
                F.is_sequence_shape_unknown(t), isinstance(lst, list), F.is_sequence_shape_unknown(lst),
                F.is_sequence_shape_unknown(cut), cut, F.is_sequence_shape_unknown(tuple([1])))

    out = f()
    assert out[:2] == (True, True) and tuple(out[2]) == (2, 3, 4, 5)
    assert out[3:8] == (True, True, True, True, True) and tuple(out[8]) == (10, 20) and out[9] is False


def test_dynamic_sequence_sliced_by_constant_tensor_bounds_stays_in_the_graph():
    # tensors built inside the graph are constants: the slice compiles (no JIT fallback) and stays dynamic-length
    @ms.jit
    def f():
        a = mutable((1, 2, 3, 4, 5), True)
        s = a[ms.Tensor([1]):ms.Tensor([5]):ms.Tensor([2])]
        return F.is_sequence_shape_unknown(s), s

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        unknown, s = f()
    assert unknown is True and tuple(s) == (2, 4)


def test_count_of_graph_tensors_is_a_variable_int_of_the_graph():
    # values of MindSpore 2.10: compared when the graph runs (no JIT fallback), a bool equal to its number
    @ms.jit
    def f(target, a):
        x = [ms.Tensor([1]), ms.Tensor([2]), ms.Tensor([2])]
        y = mutable((ms.Tensor([1]), ms.Tensor([2]), ms.Tensor([3])), True)
        z = [a, a + 1, 1, True]
        n = x.count(target)
        return isinstance(n, int), F.isconstant(n), n, y.count(target), z.count(1), z.count(a)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(ms.Tensor([10]), ms.Tensor(1)) == (True, False, 0, 0, 3, 3)
        assert f(ms.Tensor([2]), ms.Tensor(0)) == (True, False, 2, 1, 3, 1)


def test_dynamic_sequence_argument():
    @ms.jit
    def f(x):
        return F.is_sequence_value_unknown(x), F.is_sequence_shape_unknown(x), x[0] + x[1]

    t = ms.Tensor(np.array([1.0, 2.0], np.float32))
    u, s, total = f(mutable((t, t * 2), True))
    assert (u, s) == (True, True)
    np.testing.assert_allclose(total.asnumpy(), [3.0, 6.0])
    u, s, _ = f(mutable((t, t), False))
    assert (u, s) == (True, False)


def test_dynamic_sequence_setitem_and_append():
    @ms.jit
    def f():
        a = mutable([1, 2, 3], True)
        a[0] = 5
        a.append(7)
        b = [1, 2]
        b[mutable(1)] = 10
        c = mutable([1, 2, 3, 4], True)
        c[0:2] = [8, 9, 10]
        e = [1, 2, 3, 4]
        e[mutable(0):2] = [6, 6]
        return (a, F.isconstant(a[0]), F.is_sequence_value_unknown(a), b, F.isconstant(b[0]), c,
                F.is_sequence_shape_unknown(c), e, F.is_sequence_shape_unknown(e))

    a, c0, vu, b, b0, c, cs, e, es = f()
    assert list(a) == [5, 2, 3, 7] and (c0, vu) == (False, True)
    assert list(b) == [1, 10] and b0 is False
    assert list(c) == [8, 9, 10, 3, 4] and cs is True
    assert list(e) == [6, 6, 3, 4] and es is True


def test_is_dynamic_sequence_element_unknown():
    @ms.jit
    def f():
        return F.is_dynamic_sequence_element_unknown(mutable([], True)), \
            F.is_dynamic_sequence_element_unknown(mutable([1], True))

    assert f() == (True, False)


def _raises(exc, match, body):
    with pytest.raises(exc, match=match):
        ms.jit(body)()


def test_dynamic_sequence_errors():
    _raises(TypeError, "when the variable_len is True, the first input should be list or tuple",
            lambda: mutable(ms.Tensor([1, 2]), True))
    _raises(ValueError, "The element type do not match", lambda: mutable((1, ms.Tensor([1]), 2.0), True))
    _raises(RuntimeError, "can not convert a dynamic length sequence to constant length",
            lambda: mutable(mutable((1, 2), True)))
    _raises(TypeError, "is not same with the element of second input",
            lambda: mutable([1, 2], True) + [ms.Tensor([1])])
    _raises(TypeError, "is not same with the element of second input",
            lambda: [(1, 2)] + mutable([(1, 2, 3)], True))
    _raises(TypeError, "mutable list existing item abstract",
            lambda: mutable([ms.Tensor([1])], True).append(3))

    def zipped():
        return zip(mutable((1, 2), True), mutable((3, 4), True))

    def mapped():
        return map(abs, mutable((1, 2), True))

    def enumerated():
        return enumerate(mutable((1, 2), True))

    _raises(RuntimeError, "For 'zip', the dynamic length input is unsupported in graph mode", zipped)
    _raises(RuntimeError, "For 'map', the dynamic length input is unsupported in graph mode", mapped)
    _raises(RuntimeError, "For 'enumerate', the dynamic length input is unsupported in graph mode", enumerated)

    def tensor_range():
        return range(ms.Tensor([3]), 10)

    _raises(TypeError, "For 'make_range', the 0th input should be a int scalar but got", tensor_range)
    _raises(TypeError, "should be variable length sequence", lambda: F.is_dynamic_sequence_element_unknown([]))


def test_setitem_errors_with_variable_index():
    def mixed():
        a = [1, 2.0]
        a[mutable(0)] = 10
        return a

    def other_type():
        a = [1, 2]
        a[mutable(0)] = 1.0
        return a

    def dyn_set():
        a = mutable([1, 2, 3, 4], True)
        a[3] = 10.0
        return a

    def slice_mix():
        a = mutable([1, 2, 3, 4], True)
        a[0:2] = [2, 3, 4.0]
        return a

    _raises(TypeError, r"sequence\[0\] item", mixed)
    _raises(TypeError, "element within constant length sequence", other_type)
    _raises(TypeError, "when the queue is dynamic length", dyn_set)
    _raises(ValueError, "The element type do not match", slice_mix)


def test_getitem_of_empty_sequence_by_variable_index():
    @ms.jit
    def f(m, i):
        return m[i]

    with pytest.raises(ValueError, match="cannot get item by index from an empty sequence"):
        f(mutable(()), mutable(1))


def test_repeated_variable_sequences_stay_variable():
    @ms.jit
    def f(n):
        dyn = mutable([1, 2, 3], True)
        fixed = mutable([1, 2])
        marks = []
        for seq in (dyn * 2, 2 * dyn, dyn * n, fixed * 2, [1, 2] * 2):
            marks.append((F.is_sequence_value_unknown(seq), F.is_sequence_shape_unknown(seq)))
        return marks, dyn * 2, fixed * 3

    marks, twice, thrice = f(2)
    assert [tuple(bool(v) for v in m) for m in marks] == [(True, True)] * 3 + [(True, False), (False, False)]
    assert list(twice) == [1, 2, 3, 1, 2, 3] and list(thrice) == [1, 2] * 3
    assert type(mutable([1]) * 2) is list        # outside a graph: Python's list


def test_mutable_refuses_other_types_with_mindspores_message():
    with pytest.raises(TypeError, match=r"For 'mutable', the 'input_data' should be one of \(bool, int, float, Tensor, "
                                        r"tuple, list, dict\) or their nested structures with no self-reference, but "
                                        r"got int64: 3\."):
        mutable(np.int64(3))
