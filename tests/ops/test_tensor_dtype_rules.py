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


# ---------------------------------------------------------------- 0-d tensors promote (MindSpore 2.10 CPU)
ZERO_D = [
    # (vector, 0-d operand, op, dtype MindSpore gives)
    (np.array([1, 2], np.float16), np.float32(2.5), lambda a, b: a + b, ms.float32),
    (np.array([1, 2], np.float16), np.float32(2.5), lambda a, b: b + a, ms.float32),
    (np.array([1, 2], np.float16), np.float64(2.5), lambda a, b: a - b, ms.float64),
    (np.array([1, 2], np.int32), np.int64(3), lambda a, b: a + b, ms.int64),
    (np.array([1, 2], np.uint8), np.int64(3), lambda a, b: a + b, ms.int64),
    (np.array([1, 2], np.uint8), np.int8(-3), lambda a, b: a - b, ms.int16),
    (np.array([1, 2], np.int32), np.int64(3), lambda a, b: a // b, ms.int64),
    (np.array([1, 2], np.int32), np.int64(3), lambda a, b: a ** b, ms.int64),
    (np.array([1, 2], np.int32), np.int64(3), lambda a, b: a % b, ms.int64),
    (np.array([1, 2], np.int32), np.int64(3), ops.maximum, ms.int64),
    (np.array([1, 2], np.float16), np.float32(2.5), ops.minimum, ms.float32),
    (np.array([1, 2], np.float16), np.float32(2.5), ops.add, ms.float32),
    (np.array([1, 2], np.float16), np.float32(2.5), mint.add, ms.float32),
    (np.array([1, 2], np.float16), np.float32(2.5), ops.atan2, ms.float32),
    (np.array([1, 2], np.float16), np.float32(2.5), ops.hypot, ms.float32),
    (np.array([1, 2], np.float16), np.float32(2.5), ops.xlogy, ms.float32),
    (np.array([1, 2], np.int32), np.int64(3), ops.gcd, ms.int64),
    (np.array([1, 2], np.int32), np.int64(3), lambda a, b: a & b, ms.int64),
    # Mul, Div, fmod and copysign keep the dimensioned operand's dtype
    (np.array([1, 2], np.float16), np.float32(2.5), lambda a, b: a * b, ms.float16),
    (np.array([1, 2], np.float16), np.float64(2.5), lambda a, b: a / b, ms.float16),
    (np.array([1, 2], np.int32), np.int64(3), ops.mul, ms.int32),
    (np.array([1, 2], np.float16), np.float32(2.5), ops.fmod, ms.float16),
    (np.array([1, 2], np.float16), np.float32(2.5), ops.copysign, ms.float16),
    # Python numbers stay weak
    (np.array([1, 2], np.float16), 2.5, lambda a, b: a + b, ms.float16),
    (np.array([1, 2], np.int32), 3, lambda a, b: a + b, ms.int32),
]


@pytest.mark.parametrize("vec,zero_d,fn,dtype", ZERO_D)
def test_zero_d_tensor_operand_promotes(vec, zero_d, fn, dtype):
    other = zero_d if type(zero_d) in (int, float) else ms.Tensor(zero_d)
    out = fn(ms.Tensor(vec), other)
    assert out.dtype == dtype
    # the same values as computed in int64 / float64 throughout
    wide = np.float64 if np.issubdtype(vec.dtype, np.floating) else np.int64
    want = fn(ms.Tensor(vec.astype(wide)), ms.Tensor(wide(zero_d))).asnumpy()
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), want, rtol=2e-3)


def test_zero_d_promotion_in_graph_matches_pynative():
    @ms.jit
    def f(a, b):
        return a + b, a * b

    s, p = f(ms.Tensor(np.array([1, 2], np.float16)), ms.Tensor(np.float32(2.5)))
    assert s.dtype == ms.float32 and p.dtype == ms.float16
    np.testing.assert_allclose(s.asnumpy(), [3.5, 4.5])


def test_comparison_with_out_of_range_python_int_is_exact():
    u = _t([1, 2], np.uint8)
    np.testing.assert_array_equal((u < -3).asnumpy(), [False, False])
    np.testing.assert_array_equal(u.lt(-3).asnumpy(), [False, False])
    np.testing.assert_array_equal((-3 > u).asnumpy(), [False, False])
    np.testing.assert_array_equal((_t([1, 2], np.int8) < 200).asnumpy(), [True, True])
    np.testing.assert_array_equal((u == -3).asnumpy(), [False, False])


def test_comparisons_other_than_less_wrap_an_out_of_range_python_int():
    # only MindSpore's Less compares by value; <=, >, >=, ==, != take the int in the tensor's dtype (-3 is 253)
    u = _t([1, 200, 44, 253, 0, 255], np.uint8)
    rows = {"<": u < -3, "<=": u <= -3, ">": u > 300, ">=": u >= -3, "==": u == -3, "!=": u != 300}
    want = {"<": [0, 0, 0, 0, 0, 0], "<=": [1, 1, 1, 1, 1, 0], ">": [0, 1, 0, 1, 0, 1], ">=": [0, 0, 0, 1, 0, 1],
            "==": [0, 0, 0, 1, 0, 0], "!=": [1, 1, 0, 1, 1, 1]}
    for op, out in rows.items():
        np.testing.assert_array_equal(out.asnumpy(), np.array(want[op], bool), err_msg=op)
    i = _t([3, -7, 56, -56, 127, -128], np.int8)
    np.testing.assert_array_equal((i < 200).asnumpy(), [True] * 6)
    np.testing.assert_array_equal((i <= 200).asnumpy(), [False, False, False, True, False, True])


def test_python_int_over_integer_tensor_divides_as_float():
    out = -3 / _t([1, 2], np.uint8)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), [-3.0, -1.5])
    np.testing.assert_allclose((200 / _t([1, 2], np.int8)).asnumpy(), [200.0, 100.0])
    np.testing.assert_allclose(mint.div(-3, _t([1, 2], np.uint8)).asnumpy(), [-3.0, -1.5])


# ---------------------------------------------------------------- argument forms of Tensor methods
def test_method_keyword_and_varargs_forms():
    x = _t([[1.5, -2, 3], [4, 5, -6]], np.float32)
    assert x.unsqueeze(axis=1).shape == (2, 1, 3)
    assert x.unsqueeze(1).shape == (2, 1, 3)
    v, i = x.median(dim=1)
    np.testing.assert_allclose(v.asnumpy(), [1.5, 4.0])
    np.testing.assert_array_equal(i.asnumpy(), [0, 0])
    assert x.median(dim=-1, keepdim=True)[0].shape == (2, 1)
    assert x.median(axis=1, keepdims=True)[0].shape == (2, 1)
    assert x.broadcast_to(2, 2, 3).shape == (2, 2, 3)
    assert x.broadcast_to((2, 2, 3)).shape == (2, 2, 3)
    np.testing.assert_allclose(x.true_divide(other=x).asnumpy(), np.ones((2, 3)))
    assert x.stride() == [3, 1]


def test_nested_list_index_is_a_tuple_of_indices():
    x = _t([[1.5, -2, 3], [4, 5, -6]], np.float32)
    np.testing.assert_allclose(x[[[0, 1], [1, 0]]].asnumpy(), [-2.0, 4.0])
    np.testing.assert_allclose(x[[[0, 1]]].asnumpy(), x.asnumpy())
    np.testing.assert_allclose(x[[[0], [1]]].asnumpy(), [-2.0])
    np.testing.assert_allclose(x[[0, [1, 0]]].asnumpy(), [-2.0, 1.5])
    np.testing.assert_allclose(x[[0, 1]].asnumpy(), x.asnumpy())    # a flat list stays one array index
    y = _t(np.arange(6).reshape(2, 3), np.float32)
    y[[[0, 1], [1, 0]]] = 9
    np.testing.assert_allclose(y.asnumpy(), [[0, 9, 2], [9, 4, 5]])


def test_integer_scans_and_sums_of_methods():
    x = np.array([[1, 0, 2], [3, 1, 0]])
    for dt in (np.int8, np.int16, np.uint8, np.bool_):
        out = _t(x, dt).cumsum(0 if dt != np.bool_ else 1)
        assert out.dtype == ms.int32
    np.testing.assert_array_equal(_t(x, np.uint8).cumsum(1).asnumpy(), [[1, 1, 3], [3, 4, 4]])
    np.testing.assert_array_equal(_t(x, np.bool_).cumsum(1).asnumpy(), [[1, 1, 2], [1, 2, 2]])
    assert _t(x, np.int64).cumsum(1).dtype == ms.int64
    assert _t(x, np.int8).trace().dtype == ms.int64 and _t(x, np.int8).trace().asnumpy() == 2
    assert _t(x, np.float16).trace().dtype == ms.float16
    out = _t(x, np.int8).sum_to_size(1, 3)
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), [[4, 1, 2]])
    out = _t(x, np.bool_).sum_to_size((2, 1))
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), [[2], [2]])
    assert _t(x, np.float16).sum_to_size(1, 3).dtype == ms.float16


def test_mint_softmax_dim_none_is_the_implicit_dim():
    x = _t([[1, 0, 2], [3, 1, 0]], np.float32)
    want = [[0.2447281926870346, 0.09003056585788727, 0.6652413010597229],
            [0.8437948226928711, 0.11419514566659927, 0.04201003164052963]]
    np.testing.assert_allclose(mint.softmax(x, dim=None).asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(mint.softmax(x, 1).asnumpy(), want, rtol=1e-5)


def test_reductions_with_dtype_compute_in_the_input_dtype_first():
    x = _t([0.1, 0.2, 0.3, 0.4], np.float32)
    # ops.cumsum casts first; Tensor.cumsum, nansum and nanmean compute in float32 and cast (MindSpore 2.10)
    np.testing.assert_array_equal(ops.cumsum(x, 0, dtype=ms.float64).asnumpy(),
                                  [0.10000000149011612, 0.30000000447034836, 0.6000000163912773, 1.0000000223517418])
    np.testing.assert_array_equal(x.cumsum(0, dtype=ms.float64).asnumpy(),
                                  [0.10000000149011612, 0.30000001192092896, 0.6000000238418579, 1.0])
    assert x.cumsum(0, dtype=ms.float64).dtype == ms.float64
    assert x.nansum(0, dtype=ms.float64).asnumpy() == 1.0
    assert ops.nansum(x, 0, dtype=ms.float64).asnumpy() == 1.0
    assert x.nanmean(0, dtype=ms.float64).asnumpy() == 0.25
    i = _t([100, 100, 100], np.int8)
    np.testing.assert_array_equal(i.cumsum(0, dtype=ms.int32).asnumpy(), [100, 200, 300])
    out = i.nansum(0, dtype=ms.int32)       # summed in int8 (wrapping), then cast
    assert out.dtype == ms.int32 and out.asnumpy() == 44
    assert _t([True, True]).nansum().dtype == ms.int64


def test_setitem_mask_with_a_value_of_the_tensor_shape_takes_the_value_where_the_mask_holds():
    def put(x, m, v):
        x[m] = v
        return x

    m = _t([[True, False, True], [False, True, False]])
    v = _t([[10, 20, 30], [40, 50, 60]], np.float16)
    for fn in (put, ms.jit(put)):     # MindSpore 2.10's graph result
        out = fn(_t([[1, 2, 3], [4, 5, 6]], np.int32), m, v)
        assert out.dtype == ms.int32
        np.testing.assert_array_equal(out.asnumpy(), [[10, 2, 30], [4, 50, 6]])
    out = put(_t([[1, 2, 3], [4, 5, 6]], np.int32), m, v[0])      # as many values as True elements: a fill
    np.testing.assert_array_equal(out.asnumpy(), [[10, 2, 20], [4, 30, 6]])


def test_outer_flattens_input_and_approximate_equal_method_broadcasts():
    x = _t([[1, 0, 2], [3, 1, 0]], np.float32)
    v = _t([1.0, 2.0], np.float32)
    want = np.array([1, 0, 2, 3, 1, 0], np.float32)[:, None] * np.array([1, 2], np.float32)
    np.testing.assert_allclose(x.outer(v).asnumpy(), want)
    np.testing.assert_allclose(ops.outer(x, v).asnumpy(), want)
    np.testing.assert_allclose(v.outer(x).asnumpy(), [[1, 0, 2], [6, 2, 0]])      # vec2 broadcasts
    with pytest.raises(ValueError):
        mint.outer(x, v)
    np.testing.assert_allclose(mint.outer(v, v).asnumpy(), [[1, 2], [2, 4]])
    out = x.approximate_equal(_t([1.0, 0, 2], np.float32))
    np.testing.assert_array_equal(out.asnumpy(), [[True, True, True], [False, False, False]])
    with pytest.raises(ValueError):
        x.approximate_equal(2)
    with pytest.raises(RuntimeError):
        ops.approximate_equal(x, _t([1.0, 0, 2], np.float32))


def test_sequence_operand_takes_the_tensor_dtype():
    x = _t([[1, 2, 3], [4, 5, 6]], np.int32)
    for out in (x + [1, 2, 3], [1, 2, 3] + x, x + [1.5, 2.5, 3.5]):
        assert out.dtype == ms.int32
        np.testing.assert_array_equal(out.asnumpy(), [[2, 4, 6], [5, 7, 9]])
    out = x - (1, 2, 3)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [[0, 0, 0], [3, 3, 3]])
    out = _t([1, 2, 3], np.float16) + [1.5, 2.5, 3.5]
    assert out.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy(), [2.5, 4.5, 6.5])


def test_index_lists_with_tensors_and_small_integer_index_tensors():
    x = _t([[1, 2, 3], [4, 5, 6]], np.int32)
    t0, t1 = ms.Tensor(1), ms.Tensor(np.int32(0))
    np.testing.assert_array_equal(x[[t0]].asnumpy(), [4, 5, 6])
    assert x[[t0, t1]].asnumpy() == 4
    assert x[[t0, 1]].asnumpy() == 5
    np.testing.assert_array_equal(x[[0]].asnumpy(), [[1, 2, 3]])
    np.testing.assert_array_equal(x[_t([1, 0], np.int16)].asnumpy(), [[4, 5, 6], [1, 2, 3]])
    with pytest.raises(IndexError):
        _ = x[_t([1, 0], np.uint8)]
    y = _t([[1, 2, 3], [4, 5, 6]], np.int32)
    y[_t([1, 0], np.int8)] = 9
    np.testing.assert_array_equal(y.asnumpy(), [[9, 9, 9], [9, 9, 9]])


def test_hard_activations_of_signed_integers_truncate():
    x = _t([-4, -1, 0, 1, 2, 3, 5], np.int32)
    for fn in (ops.hardswish, mint.nn.functional.hardswish, ms.nn.HSwish()):
        out = fn(x)
        assert out.dtype == ms.int32
        np.testing.assert_array_equal(out.asnumpy(), [0, 0, 0, 0, 1, 3, 5])
    for fn in (ops.hardsigmoid, mint.nn.functional.hardsigmoid, ms.nn.HSigmoid()):
        np.testing.assert_array_equal(fn(x).asnumpy(), [0, 0, 0, 0, 0, 1, 1])
    for bad in (_t([True, False]), _t([4, 1], np.uint8)):
        with pytest.raises(TypeError):
            ops.hardswish(bad)


def test_hard_activations_of_integers_are_exact_integer_arithmetic():
    # x + 3 wraps in int32/int64 (the maximum gives 0), int8 widens first; no float rounding (2 ** 53 + 3 exact)
    big = _t([2 ** 53 + 3, 2 ** 63 - 1, -2, 2, 1], np.int64)
    np.testing.assert_array_equal(ops.hardswish(big).asnumpy(), [2 ** 53 + 3, 0, 0, 1, 0])
    np.testing.assert_array_equal(ops.hardsigmoid(big).asnumpy(), [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(ops.hardswish(_t([2 ** 30 + 1, 2 ** 31 - 1, -2], np.int32)).asnumpy(),
                                  [2 ** 30 + 1, 0, 0])
    i8 = _t([127, -128, -3, 3, 2], np.int8)
    np.testing.assert_array_equal(ops.hardswish(i8).asnumpy(), [127, 0, 0, 3, 1])
    np.testing.assert_array_equal(ops.hardsigmoid(i8).asnumpy(), [1, 0, 0, 1, 0])


def test_relu_of_a_bool_tensor_is_itself():
    b = _t([True, False])

    def f(x):
        return ops.relu(ops.logical_not(x))

    for out in (ops.relu(b), mint.nn.functional.relu(b), ms.nn.ReLU()(b)):
        assert out.dtype == ms.bool_
        np.testing.assert_array_equal(out.asnumpy(), [True, False])
    np.testing.assert_array_equal(ms.jit(f)(b).asnumpy(), [False, True])
