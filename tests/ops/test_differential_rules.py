"""Dtype, shape and argument rules of mindspore.ops functions found by differential fuzzing against real
MindSpore 2.10 (CPU). Expected values are the oracle's, hard-coded."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def _t(values, dtype):
    return ms.Tensor(np.array(values, dtype))


@pytest.mark.parametrize("div", [ops.tensor_div, lambda x, y: ops.RealDiv()(x, y)])
def test_tensor_div_of_integers_truncates_in_their_dtype(div):
    out = div(_t([-3, 3, -1, 7], np.int32), _t([2, 2, 2, -2], np.int32))
    assert out.dtype == ms.int32
    assert out.asnumpy().tolist() == [-1, 1, 0, -3]
    out = div(_t([-5, 5], np.int8), 2)
    assert out.dtype == ms.int8 and out.asnumpy().tolist() == [-2, 2]
    out = div(_t([True, False], np.bool_), 2)
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == [0, 0]
    out = div(_t([-7, 9], np.int8), _t([2, 2], np.int16))
    assert out.dtype == ms.int16 and out.asnumpy().tolist() == [-3, 4]


def test_tensor_div_with_a_float_operand_is_true_division():
    out = ops.tensor_div(_t([-3, 3], np.int32), 2.5)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), [-1.2, 1.2], rtol=1e-6)
    out = ops.tensor_div(3, 2)
    assert out.dtype == ms.int64 and int(out.asnumpy()) == 1


@pytest.mark.parametrize("np_dtype, ms_dtype, expected", [
    (np.int32, ms.int32, 6), (np.int8, ms.int8, 6), (np.uint8, ms.uint8, 6), (np.float16, ms.float16, 6.0),
])
def test_reduce_sum_keeps_the_input_dtype(np_dtype, ms_dtype, expected):
    out = ops.reduce_sum(_t([[1, 2], [3, 0]], np_dtype))
    assert out.dtype == ms_dtype and out.asnumpy().tolist() == expected
    out = ops.reduce_sum(_t([[1, 2], [3, 0]], np_dtype), 1)
    assert out.dtype == ms_dtype and out.asnumpy().tolist() == [3, 3]
    out = ops.reduce_sum(_t([True, False, True], np.bool_))
    assert out.dtype == ms.bool_ and bool(out.asnumpy()) is True


def test_argmax_argmin_ignore_keepdims_without_an_axis():
    x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    out = ops.argmax(x, None, True)
    assert out.shape == () and out.dtype == ms.int64 and int(out.asnumpy()) == 23
    out = ops.argmin(x, None, True)
    assert out.shape == () and out.dtype == ms.int32 and int(out.asnumpy()) == 0
    assert ops.argmax(x, 1, True).shape == (2, 1, 4)


def test_sub_takes_a_python_bool_beside_a_non_bool_tensor():
    i = _t([-1, 4], np.int32)
    out = ops.sub(i, True)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [-2, 3]
    out = ops.sub(True, i)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [2, -3]
    out = ops.sub(_t([1.5], np.float16), True)
    assert out.dtype == ms.float16 and out.asnumpy().tolist() == [0.5]
    with pytest.raises(TypeError):
        ops.sub(_t([True], np.bool_), True)


def test_subtract_scales_a_bool_other_as_int64():
    b = _t([True, False], np.bool_)
    out = ops.subtract(b, b)
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == [0, 0]
    out = ops.subtract(b, True)
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == [0, -1]
    out = ops.subtract(_t([1, 2], np.uint8), True)
    assert out.dtype == ms.uint8 and out.asnumpy().tolist() == [0, 1]
    out = ops.subtract(_t([1, 2], np.int8), _t([1, 1], np.int8), alpha=2)
    assert out.dtype == ms.int8 and out.asnumpy().tolist() == [-1, 0]


@pytest.mark.parametrize("value, expected", [(3, [3, 3]), (2.5, [2, 2]), (True, [1, 1])])
def test_ops_full_defaults_to_int64_whatever_the_value(value, expected):
    out = ops.full((2,), value)
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == expected
    out = ops.full([2], value, dtype=ms.float16)
    assert out.dtype == ms.float16 and out.asnumpy().tolist() == [float(v) if value is not True else 1.0
                                                                  for v in ([value] * 2)]
    with pytest.raises(TypeError, match="'size' must be a tuple or list"):
        ops.full(2, value)


def test_mint_full_infers_the_dtype_from_the_value():
    assert ms.mint.full((2,), 2.5).dtype == ms.float32
    assert ms.mint.full((2,), True).dtype == ms.bool_
    assert ms.mint.full((2,), 3).dtype == ms.int64


def test_arange_to_bool_is_the_numbers_nonzero():
    assert ops.arange(5, dtype=ms.bool_).asnumpy().tolist() == [False, True, True, True, True]
    assert ops.arange(0, 1, 0.25, dtype=ms.bool_).asnumpy().tolist() == [False, True, True, True]
    assert ops.arange(3, 0, -1, dtype=ms.bool_).asnumpy().tolist() == [True, True, True]


@pytest.mark.parametrize("fn", [ops.tril_indices, ops.triu_indices])
def test_tril_triu_indices_take_only_integer_dtypes(fn):
    assert fn(3, 3, dtype=ms.int32).dtype == ms.int32
    with pytest.raises(TypeError, match=r"should be one of \[mindspore.int32, mindspore.int64\], but got "
                                        r"'mindspore.float16'"):
        fn(3, 3, dtype=ms.float16)


_X16 = np.ones((2, 3), np.float16)
_S32 = np.array(2, np.float32)


@pytest.mark.parametrize("fn, promoted", [
    (ops.add, True), (ops.sub, True), (ops.maximum, True), (ops.minimum, True), (ops.pow, True),
    (ops.floor_div, True), (ops.remainder, True), (ops.atan2, True), (ops.xlogy, True), (ops.hypot, True),
    (ops.fmax, True), (ops.tensor_div, True), (lambda x, y: x + y, True), (lambda x, y: x - y, True),
    (ops.mul, False), (ops.div, False), (lambda x, y: x * y, False), (lambda x, y: x / y, False),
])
def test_a_zero_dim_tensor_promotes_like_any_tensor(fn, promoted):
    # MindSpore 2.10: float16 (2, 3) + float32 () is Float32 (aten keeps Float16); Mul and Div keep aten's rule
    want = ms.float32 if promoted else ms.float16
    assert fn(ms.Tensor(_X16), ms.Tensor(_S32)).dtype == want
    assert fn(ms.Tensor(_S32), ms.Tensor(_X16)).dtype == want


def test_zero_dim_promotion_of_integers_and_bounds():
    x8, s64 = ms.Tensor(np.array([1, -2], np.int8)), ms.Tensor(np.array(3, np.int64))
    out = ops.add(x8, s64)
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == [4, 1]
    assert ops.maximum(ms.Tensor(np.array([1, 2], np.uint8)), ms.Tensor(np.array(1, np.int8))).dtype == ms.int16
    assert ops.bitwise_and(x8, s64).dtype == ms.int64
    out = ops.clamp(ms.Tensor(np.array([1.0, 5.0], np.float16)), ms.Tensor(_S32), 3)
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [2.0, 3.0]
    assert ops.clamp(x8, s64).dtype == ms.int64
    # Python numbers stay weak, two dimensioned tensors promote as before
    assert ops.add(ms.Tensor(_X16), 2.5).dtype == ms.float16
    assert ops.add(ms.Tensor(_X16), ms.Tensor(np.ones(3, np.float32))).dtype == ms.float32
    assert ops.fmod(ms.Tensor(_X16), ms.Tensor(_S32)).dtype == ms.float16


def test_zero_dim_promotion_in_graph_mode_and_gradients():
    x, s = ms.Tensor(_X16), ms.Tensor(_S32)
    assert ms.jit(lambda a, b: a + b)(x, s).dtype == ms.float32
    dx, ds = ms.grad(lambda a, b: ops.add(a, b).sum(), grad_position=(0, 1))(x, s)
    assert dx.dtype == ms.float16 and ds.dtype == ms.float32 and float(ds.asnumpy()) == 6.0


def test_bincount_of_a_float_or_bool_input_counts_elements_equal_to_each_bin():
    out = ops.bincount(ms.Tensor(np.array([0, 1.5, 3, 3, -1], np.float32)), minlength=2)
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [1.0, 0.0, 0.0, 2.0]
    assert ops.bincount(ms.Tensor(np.array([True, False, True]))).asnumpy().tolist() == [1.0, 2.0]
    out = ops.bincount(ms.Tensor(np.array([1, 1, 3], np.uint8)), ms.Tensor(np.array([0.5, 0.25, 1], np.float32)))
    assert out.asnumpy().tolist() == [0.0, 0.75, 0.0, 1.0]
    with pytest.raises(TypeError):
        ops.bincount(ms.Tensor(np.array([1j], np.complex64)))


def test_bincount_ignores_negative_integers():
    out = ops.bincount(ms.Tensor(np.array([-1, 2], np.int64)))
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [0.0, 0.0, 1.0]
    assert ops.bincount(ms.Tensor(np.array([-1, -2], np.int32))).shape == (0,)


def test_comparisons_promote_a_zero_dim_tensor_like_any_tensor():
    x, s = ms.Tensor(np.array([0.1, 0.2], np.float16)), ms.Tensor(np.float32(0.1))
    assert ops.eq(x, s).asnumpy().tolist() == [False, False]
    assert (x >= s).asnumpy().tolist() == [False, True]
    xi, si = ms.Tensor(np.array([1, 2], np.int8)), ms.Tensor(np.int64(257))
    assert (xi == si).asnumpy().tolist() == [False, False]
    assert ops.lt(xi, si).asnumpy().tolist() == [True, True]
    assert ops.gt(si, xi).asnumpy().tolist() == [True, True]


def test_clamping_activations_take_bool_and_uint8():
    b = ms.Tensor(np.array([True, False]))
    u = ms.Tensor(np.array([6, 9, 0, 200], np.uint8))
    assert ops.relu(b).dtype == ms.bool_ and ops.relu(b).asnumpy().tolist() == [True, False]
    assert ops.hardtanh(b).asnumpy().tolist() == [True, False]
    out = ops.hardtanh(u)
    assert out.dtype == ms.uint8 and out.asnumpy().tolist() == [1, 1, 0, 1]
    assert ops.hardtanh(u, -0.5, 7).asnumpy().tolist() == [6, 7, 0, 7]
    assert ops.threshold(b, 0.5, 9).asnumpy().tolist() == [True, True]
    assert ops.threshold(u, 7, 1).asnumpy().tolist() == [1, 9, 1, 200]


@pytest.mark.parametrize("fn, dtype, value", [
    (ops.floor_div, ms.int64, 1), (ops.floor_divide, ms.int64, 1), (ops.floor_mod, ms.int64, 1),
    (ops.remainder, ms.int64, 1), (ops.tensor_mod, ms.int64, 1), (ops.heaviside, ms.int64, 1),
    (ops.pow, ms.int64, 9), (ops.tensor_pow, ms.int64, 9), (ops.xlogy, ms.float32, 2.0794415416798357),
])
def test_binary_ops_that_take_two_python_numbers(fn, dtype, value):
    out = fn(3, 2)
    assert isinstance(out, ms.Tensor) and out.shape == () and out.dtype == dtype
    assert abs(float(out.asnumpy()) - value) < 1e-6


@pytest.mark.parametrize("fn", [ops.atan2, ops.fmod, ops.hypot])
def test_binary_ops_that_refuse_two_python_numbers(fn):
    with pytest.raises(TypeError):
        fn(3, 2)


@pytest.mark.parametrize("fn, expected", [(ops.floor_div, [True, False, True]), (ops.floor_divide, [True, False, True]),
                                          (ops.remainder, [False, False, False]), (ops.fmod, [False, False, False])])
def test_floor_division_and_remainders_of_bools_are_bool(fn, expected):
    b = ms.Tensor(np.array([True, False, True]))
    for y in (ms.Tensor(np.array([True, True, True])), True):
        out = fn(b, y)
        assert out.dtype == ms.bool_ and out.asnumpy().tolist() == expected


def test_outer_flattens_its_input_to_a_column():
    out = ops.outer(ms.Tensor(np.float32(2)), ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)))
    assert out.shape == (1, 3) and out.asnumpy().tolist() == [[2.0, 4.0, 6.0]]
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    out = ops.outer(x, ms.Tensor(np.array([1.0, -1.0], np.float32)))
    assert out.shape == (6, 2) and out.asnumpy()[:, 1].tolist() == [0.0, -1.0, -2.0, -3.0, -4.0, -5.0]
    with pytest.raises(TypeError):
        ops.outer(x, 2)
    with pytest.raises(ValueError, match="For 'ger'"):
        ops.ger(x, ms.Tensor(np.array([1.0, -1.0], np.float32)))


def test_mint_outer_keeps_the_1d_check():
    assert ms.mint.outer(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 2.0, 3.0])).shape == (2, 3)
    with pytest.raises(ValueError, match="1-D"):
        ms.mint.outer(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor([1.0, 2.0]))


def test_bad_inputs_of_sequence_mask_unbind_and_diff_raise_mindspores_errors():
    for dtype in (np.float32, np.int8, np.uint8):
        with pytest.raises(TypeError, match="'lengths' doesn't support"):
            ops.sequence_mask(ms.Tensor(np.array([1, 3], dtype)), 4)
    assert ops.sequence_mask(ms.Tensor(np.array([1, 3], np.int32))).asnumpy().tolist() == [
        [True, False, False], [True, True, True]]
    with pytest.raises(ValueError, match="rank should be greater equal to 1"):
        ops.unbind(ms.Tensor(np.float32(2)))
    with pytest.raises(TypeError, match="must be at least 1"):
        ops.diff(ms.Tensor(np.float32(2)))


def test_hardswish_hardsigmoid_of_signed_integers_truncate():
    x = ms.Tensor(np.arange(-5, 8, dtype=np.int32))
    out = ops.hardswish(x)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [0, 0, 0, 0, 0, 0, 0, 1, 3, 4, 5, 6, 7]
    assert ops.hardsigmoid(x).asnumpy().tolist() == [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    assert ops.HSwish()(ms.Tensor(np.array([2, -1], np.int8))).asnumpy().tolist() == [1, 0]
    with pytest.raises(TypeError, match="HSwish"):
        ops.hardswish(ms.Tensor(np.arange(3, dtype=np.uint8)))


def test_integer_tensor_to_a_negative_int_power():
    x = ms.Tensor(np.array([0, 1, -1, 2, -2, 3], np.int32))
    out = ops.pow(x, -3)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [-2147483648, 1, -1, 0, 0, 0]
    assert (x ** -2).asnumpy().tolist() == [-2147483648, 1, 1, 0, 0, 0]
    assert ops.pow(ms.Tensor(np.array([0, 1, -1, 2], np.int8)), -1).asnumpy().tolist() == [0, 1, -1, 0]
    out = ops.pow(ms.Tensor(np.array([True, False])), -3)
    assert out.dtype == ms.int64 and out.asnumpy().tolist() == [1, -9223372036854775808]


def test_tensor_minus_a_python_bool():
    t = ms.Tensor(np.array([1, 2], np.int32))
    assert (t - True).dtype == ms.int32 and (t - True).asnumpy().tolist() == [0, 1]
    assert (True - t).asnumpy().tolist() == [0, -1]
    assert (ms.Tensor(np.array([1.5, 2.0], np.float32)) - True).asnumpy().tolist() == [0.5, 1.0]


def test_xlogy_takes_a_python_number_as_a_float32_tensor():
    x16 = ms.Tensor(np.array([1.0, 2.0], np.float16))
    out = ops.xlogy(x16, 2)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), [0.6931472, 1.3862944], rtol=1e-6)
    assert ops.xlogy(ms.Tensor(np.array([1.0], np.float64)), 2.5).dtype == ms.float64
    assert ops.xlogy(2, ms.Tensor(np.array([1, 2], np.int32))).dtype == ms.float32


def test_l1_loss_of_integers_is_an_integer_loss():
    x, y = ms.Tensor(np.array([1, 2, 1], np.int32)), ms.Tensor(np.array([3, 2, 2], np.int32))
    out = ops.l1_loss(x, y)
    assert out.dtype == ms.int32 and int(out.asnumpy()) == 1      # mean 1.0 of [2, 0, 1]
    assert ops.l1_loss(x, y, "none").asnumpy().tolist() == [2, 0, 1]
    assert ops.l1_loss(x, y, "sum").asnumpy().tolist() == 3
    out = ops.l1_loss(ms.Tensor(np.array([True, False])), ms.Tensor(np.array([True, True])))
    assert out.dtype == ms.bool_ and bool(out.asnumpy()) is True
    assert ops.l1_loss(ms.Tensor(np.array([1.0], np.float16)), ms.Tensor(np.array([3.0], np.float32))).dtype == \
        ms.float32
