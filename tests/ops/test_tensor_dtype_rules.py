"""Tensor operators and methods on bool / small-integer operands: dtype and values as MindSpore 2.10 CPU gives them
(values below were printed by MindSpore 2.10)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import mint, ops

B = np.array([True, True, False, False])
C = np.array([True, False, True, False])


def _t(a, dt=None):
    return ms.Tensor(np.array(a, dt) if dt else np.array(a))


CASES = [
    # two bools: `-`, sub, subtract and mint.sub give whether they differ
    ("b - c", lambda b, c: b - c, ms.bool_, [False, True, True, False]),
    ("b - True", lambda b, c: b - True, ms.bool_, [False, False, True, True]),
    ("b.sub(c)", lambda b, c: b.sub(c), ms.bool_, [False, True, True, False]),
    ("b.subtract(c)", lambda b, c: b.subtract(c), ms.bool_, [False, True, True, False]),
    ("b.sub(c, alpha=2)", lambda b, c: b.sub(c, alpha=2), ms.bool_, [False, True, True, False]),
    ("mint.sub(b, c)", lambda b, c: mint.sub(b, c), ms.bool_, [False, True, True, False]),
    ("b - 1", lambda b, c: b - 1, ms.int64, [0, 0, -1, -1]),
    # floor division and remainders of two bools stay Bool
    ("b.fmod(c)", lambda b, c: b.fmod(c), ms.bool_, [False, True, False, False]),
    ("b.remainder(c)", lambda b, c: b.remainder(c), ms.bool_, [False, True, False, False]),
    ("ops.remainder(b, c)", lambda b, c: ops.remainder(b, c), ms.bool_, [False, True, False, False]),
    ("b.floor_divide(c)", lambda b, c: b.floor_divide(c), ms.bool_, [True, True, False, False]),
    ("b // c", lambda b, c: b // c, ms.bool_, [True, True, False, False]),
    ("b.div(c, floor)", lambda b, c: b.div(c, rounding_mode="floor"), ms.bool_, [True, True, False, False]),
    ("b.div(c, trunc)", lambda b, c: b.div(c, rounding_mode="trunc"), ms.bool_, [True, True, False, True]),
    ("b.div(2, trunc)", lambda b, c: b.div(2, rounding_mode="trunc"), ms.int64, [0, 0, 0, 0]),
    # `&`, `|`, `^` are bitwise: a bool tensor with an int promotes to Int64
    ("b & 2", lambda b, c: b & 2, ms.int64, [0, 0, 0, 0]),
    ("b | 2", lambda b, c: b | 2, ms.int64, [3, 3, 2, 2]),
    ("b ^ 2", lambda b, c: b ^ 2, ms.int64, [3, 3, 2, 2]),
    ("b | 0", lambda b, c: b | 0, ms.int64, [1, 1, 0, 0]),
    ("b & True", lambda b, c: b & True, ms.bool_, [True, True, False, False]),
    ("b ^ c", lambda b, c: b ^ c, ms.bool_, [False, True, True, False]),
]


@pytest.mark.parametrize("name,fn,dtype,values", CASES, ids=[c[0] for c in CASES])
def test_bool_operand_rules(name, fn, dtype, values):
    out = fn(_t(B), _t(C))
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.asnumpy(), np.array(values))


def test_int_tensor_minus_python_bool():
    out = _t([1, 2], np.int8) - True
    assert out.dtype == ms.int8
    np.testing.assert_array_equal(out.asnumpy(), [0, 1])
    out = _t([1, 2], np.int8).sub(True)
    np.testing.assert_array_equal(out.asnumpy(), [0, 1])
    x = _t([5, 6], np.int32)
    x -= True
    assert x.dtype == ms.int32
    np.testing.assert_array_equal(x.asnumpy(), [4, 5])


def test_trunc_division_of_integers_is_integral():
    i = _t([5, -7, 3], np.int32)
    j = _t([2, 2, -2], np.int32)
    out = i.div(j, rounding_mode="trunc")
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [2, -3, -1])
    out = ops.div(i, 2, rounding_mode="trunc")
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [2, -3, 1])
    out = _t([1, 2], np.int8).div(2, rounding_mode="trunc")
    assert out.dtype == ms.int8
    np.testing.assert_array_equal(out.asnumpy(), [0, 1])
    out = ops.div(i, 2.5, rounding_mode="trunc")      # a float operand: a float quotient
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), [2.0, -2.0, 1.0])


def test_bitwise_operators_refuse_floats():
    with pytest.raises(TypeError):
        _ = _t([1.0, 2.0], np.float32) & 1
    with pytest.raises(TypeError):
        _ = _t(B) & 1.5


def test_argmax_over_all_elements_ignores_keepdim():
    x = _t([[1, 3, 5], [-2, 0, 7]], np.int32)
    for out in (x.argmax(dim=None, keepdim=True), x.argmax(None, True), ops.argmax(x, None, True),
                x.argmin(axis=None, keepdims=True)):
        assert out.shape == ()
    assert x.argmax(None, True).asnumpy() == 5
    assert x.argmin(None, True).asnumpy() == 3
    assert x.argmax(1, True).shape == (2, 1)


def test_var_std_of_unsigned_integers_do_not_wrap():
    u = _t([[1, 3, 5], [2, 0, 7]], np.uint8)
    np.testing.assert_allclose(u.var().asnumpy(), 5.666666507720947, rtol=1e-6)
    np.testing.assert_allclose(_t([[0, 3, 0], [0, 0, 0]], np.uint8).var(0).asnumpy(), [0.0, 2.5, 0.0])
    np.testing.assert_allclose(_t([[0, 3, 0], [0, 0, 0]], np.uint8).std().asnumpy(), 1.2247449159622192, rtol=1e-6)
    assert u.var().dtype == ms.float32
