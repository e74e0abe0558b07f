"""Core primitives: values vs numpy, gradients vs finite differences, bad input."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, OpSpec, away_from_zero, make_error_tests, make_tests, positive

SPECS = [
    OpSpec("add", ops.add, np.add, shapes=[(3, 4), (4,)], grad2=True),
    OpSpec("add_bcast_both", ops.add, np.add, shapes=[(3, 1), (1, 4)]),
    OpSpec("sub", ops.sub, np.subtract, shapes=[(2, 3), (2, 3)], grad2=True),
    OpSpec("mul", ops.mul, np.multiply, shapes=[(2, 3), (3,)], grad2=True),
    OpSpec("div", ops.div, np.divide, shapes=[(2, 3), (2, 3)], gen=[None, away_from_zero], grad2=True),
    OpSpec("neg", ops.neg, np.negative),
    OpSpec("matmul", ops.matmul, np.matmul, shapes=[(3, 4), (4, 2)], grad2=True),
    OpSpec("matmul_batch_bcast", ops.matmul, np.matmul, shapes=[(2, 3, 4), (4, 5)]),
    OpSpec("matmul_vec_mat", ops.matmul, np.matmul, shapes=[(4,), (4, 2)]),
    OpSpec("matmul_mat_vec", ops.matmul, np.matmul, shapes=[(3, 4), (4,)]),
    OpSpec("matmul_vec_vec", ops.matmul, np.matmul, shapes=[(4,), (4,)]),
    OpSpec("pow", ops.pow, np.power, shapes=[(2, 3), (2, 3)], gen=[positive, None], grad2=True),
    OpSpec("pow_scalar", lambda x: ops.pow(x, 3), lambda x: x ** 3, grad2=True),
    OpSpec("exp", ops.exp, np.exp, grad2=True),
    OpSpec("log", ops.log, np.log, gen=positive, grad2=True),
    OpSpec("maximum", ops.maximum, np.maximum, shapes=[(3, 4), (3, 4)]),
    OpSpec("minimum", ops.minimum, np.minimum, shapes=[(3, 4), (4,)]),
    OpSpec("relu", ops.relu, lambda x: np.maximum(x, 0), grad2=True),
    OpSpec("sum_all", ops.sum, np.sum, grad2=True),
    OpSpec("sum_axis", lambda x: ops.sum(x, 1), lambda x: x.sum(1), shapes=[(2, 3, 4)]),
    OpSpec("sum_axes_keep", lambda x: ops.sum(x, (0, 2), keepdim=True), lambda x: x.sum((0, 2), keepdims=True),
           shapes=[(2, 3, 4)]),
    OpSpec("reshape", lambda x: ops.reshape(x, (4, -1)), lambda x: x.reshape(4, -1), shapes=[(2, 3, 4)]),
    OpSpec("transpose", lambda x: ops.transpose(x, (2, 0, 1)), lambda x: x.transpose(2, 0, 1), shapes=[(2, 3, 4)]),
    OpSpec("broadcast_to", lambda x: ops.broadcast_to(x, (2, 3, 4)), lambda x: np.broadcast_to(x, (2, 3, 4)),
           shapes=[(3, 1)]),
    OpSpec("cast64", lambda x: ops.cast(x, ms.float64) * 2, lambda x: x.astype(np.float64) * 2, dtypes=("float32",),
           grad=False),
    OpSpec("concat", lambda a, b: ops.concat((a, b), 1), lambda a, b: np.concatenate([a, b], 1),
           shapes=[(2, 3), (2, 2)], grad2=True),
    OpSpec("stack", lambda a, b: ops.stack([a, b], -1), lambda a, b: np.stack([a, b], -1), shapes=[(2, 3), (2, 3)]),
    OpSpec("where", lambda a, b: ops.where(a > 0, a, b), lambda a, b: np.where(a > 0, a, b), shapes=[(3, 4), (4,)]),
    OpSpec("getitem_basic", lambda x: x[1:, ::2], lambda x: x[1:, ::2], shapes=[(3, 4)]),
    OpSpec("getitem_int_list_repeat", lambda x: x[[0, 2, 0]], lambda x: x[[0, 2, 0]], shapes=[(3, 4)]),
    OpSpec("getitem_mixed", lambda x: x[None, 1, ..., ms.Tensor([3, 1])], lambda x: x[None, 1, ..., [3, 1]],
           shapes=[(2, 3, 4)]),
    OpSpec("getitem_mask", lambda x: x[x > 0], lambda x: x[x > 0], shapes=[(3, 4)]),
    OpSpec("getitem_reverse", lambda x: x[::-1], lambda x: x[::-1], shapes=[(5,)]),
    OpSpec("getitem_negative_steps", lambda x: x[None, 2:0:-1, ..., ::-2], lambda x: x[None, 2:0:-1, ..., ::-2],
           shapes=[(3, 2, 5)]),
    OpSpec("getitem_negative_step_and_index", lambda x: x[-1:-4:-2, ms.Tensor([3, 0, 3])],
           lambda x: x[-1:-4:-2, [3, 0, 3]], shapes=[(4, 4)]),
    OpSpec("getitem_negative_step_after_mask", lambda x: x[ms.Tensor([[True, False], [True, True]]), ::-1],
           lambda x: x[np.array([[True, False], [True, True]]), ::-1], shapes=[(2, 2, 3)]),
]

test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)

ERRORS = [
    ErrorSpec("matmul_shapes", lambda: ops.matmul(ops.ones((2, 3)), ops.ones((4, 5))), RuntimeError,
              "For 'MatMulExt' op, shape1[-1] must be equal to shape2[-2], but got 3 and 4."),
    ErrorSpec("matmul_vector", lambda: ops.matmul(ops.ones((2, 2)), ops.ones((3,))), ValueError,
              "For 'MatMul' the input dimensions must be equal, but got 'x1_col': 2 and 'x2_row': 3."),
    ErrorSpec("matmul_type", lambda: ops.matmul([1, 2], ops.ones((2,))), TypeError, "For 'MatMul'"),
    ErrorSpec("reshape_size", lambda: ops.reshape(ops.ones((2, 3)), (4, 2)), ValueError, "For 'Reshape'"),
    ErrorSpec("transpose_perm", lambda: ops.transpose(ops.ones((2, 3)), (0, 0)), ValueError, "For 'Transpose'"),
    ErrorSpec("sum_axis", lambda: ops.sum(ops.ones((2, 3)), 2), ValueError, "For 'sum'"),
    ErrorSpec("sum_keepdim_int", lambda: ops.sum(ops.ones((2, 3)), 1, keepdim=12), TypeError,
              "For 'sum', the 'keepdim' must be bool"),
    ErrorSpec("concat_shapes", lambda: ops.concat((ops.ones((2, 3)), ops.ones((3, 2)))), ValueError, "For 'Concat'"),
    ErrorSpec("add_bcast", lambda: ops.ones((2, 3)) + ops.ones((4,)), ValueError, "For 'Add'"),
    ErrorSpec("add_type", lambda: ops.add("a", ops.ones((2,))), TypeError, "For 'Add'"),
    ErrorSpec("index_oob", lambda: ops.ones((2, 3))[5], IndexError, "out of bounds"),
    ErrorSpec("index_mask_length", lambda: ops.ones((2, 3))[ms.Tensor([True, False, True])], ValueError,
              "The shape of the mask [3]"),
]
test_bad_input = make_error_tests(ERRORS)


@pytest.mark.parametrize("index", [np.s_[::-1], np.s_[3:0:-2], np.s_[:, ::-2], np.s_[-1::-3, 1:], np.s_[..., 0:3:-1]])
def test_setitem_negative_steps_eager_and_compiled(index):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    v = np.float32(-1.0) * np.ones_like(x[index])
    want = x.copy()
    want[index] = v

    def f(a, b):
        a[index] = b
        return a * 1.0
    for fn in (f, ms.jit(f)):
        np.testing.assert_array_equal(fn(ms.Tensor(x), ms.Tensor(v)).asnumpy(), want)
    np.testing.assert_array_equal(ms.jit(lambda a: a[index])(ms.Tensor(x)).asnumpy(), x[index])
    # gradient of a negative-step read, compiled
    w = np.arange(x[index].size, dtype=np.float32).reshape(x[index].shape)
    g = ms.jit(ms.grad(lambda a: (a[index] * ms.Tensor(w)).sum()))(ms.Tensor(x))
    want_g = np.zeros_like(x)
    want_g[index] = w
    np.testing.assert_array_equal(g.asnumpy(), want_g)


def test_setitem_grad_routes_around_overwritten_slot():
    def f(w):
        y = w * 2
        y[0] = w[1] * 10
        return y.sum()
    g = ms.grad(f)(ms.Tensor([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(g.asnumpy(), [0.0, 12.0, 2.0])


@pytest.mark.parametrize("a,b,want", [
    (ms.int32, ms.uint8, ms.int32), (ms.int8, ms.uint8, ms.int16), (ms.float16, ms.bfloat16, ms.float32),
    (ms.float16, ms.int64, ms.float16), (ms.bool_, ms.bool_, ms.bool_), (ms.float32, ms.complex64, ms.complex64),
    (ms.int32, ms.float64, ms.float64),
])
def test_promotion_tensor_tensor(a, b, want):
    assert ms.dtype.promote_types(a, b) == want
    x = ms.Tensor([1], a) + ms.Tensor([1], b)
    assert x.dtype == want


@pytest.mark.parametrize("dtype,scalar,want", [
    (ms.int32, 1.5, ms.float32), (ms.float16, 2.5, ms.float16), (ms.int8, 3, ms.int8), (ms.bool_, 1, ms.int64),
    (ms.bool_, 1.0, ms.float32),
])
def test_promotion_tensor_scalar(dtype, scalar, want):
    assert (ms.Tensor([1], dtype) + scalar).dtype == want


def test_int_true_division_is_float32():
    out = ms.Tensor([7, -5], ms.int32) / ms.Tensor([2, 3], ms.int32)
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), [3.5, -5 / 3], rtol=1e-6)


def test_clip_by_global_norm_and_norm():
    a, b = ms.Tensor([3.0]), ms.Tensor([4.0])
    ca, cb = ops.clip_by_global_norm((a, b), 1.0)
    np.testing.assert_allclose([ca.item(), cb.item()], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(ops.clip_by_norm(ms.Tensor([3.0, 4.0]), 2.5).asnumpy(), [1.5, 2.0], rtol=1e-6)
    ca, cb = ops.clip_by_global_norm((a, b), 10.0)
    assert ca.item() == 3.0
    p = ms.Parameter(ms.Tensor([1.0]), name="p")
    out = ops.assign(p, ms.Tensor([5.0]))
    assert type(out) is ms.Tensor and out.item() == 5.0 and p.item() == 5.0   # MindSpore returns a Tensor
    assert ops.depend(a, b) is a


def test_assign_converts_the_value_to_the_variables_dtype():
    p = ms.Parameter(ms.Tensor(np.zeros((2, 2), np.float32)), name="p")
    value = np.array([[1, -2], [3, 4]], np.int32)
    out = ops.Assign()(p, ms.Tensor(value))
    assert out.dtype == ms.float32 and p.dtype == ms.float32
    np.testing.assert_array_equal(p.asnumpy(), value.astype(np.float32))
    q = ms.Parameter(ms.Tensor(np.zeros(2, np.int32)), name="q")
    ms.jit(lambda v: ops.assign(q, v))(ms.Tensor(np.array([True, False])))
    assert q.dtype == ms.int32
    np.testing.assert_array_equal(q.asnumpy(), [1, 0])
    # a value the variable's dtype does not hold (float into int32, float32 into float16): MindSpore's TypeError
    for var, value in ((q, np.array([1.7, -2.2], np.float32)), (ms.Parameter(ms.Tensor(np.zeros(2, np.float16)),
                                                                               name="h"), np.ones(2, np.float32))):
        with pytest.raises(TypeError, match="Data type conversion is not supported for a 'Parameter'"):
            ms.jit(lambda v, var=var: ops.assign(var, v))(ms.Tensor(value))


def test_list_index_with_a_tensor_or_slice_indexes_like_a_tuple():
    x0 = np.arange(6, dtype=np.float32).reshape(2, 3)
    mask = ms.Tensor(np.array([True, False]))
    np.testing.assert_array_equal(ms.Tensor(x0)[[mask, 0]].asnumpy(), x0[np.array([True, False]), 0])
    np.testing.assert_array_equal(ms.Tensor(x0)[[slice(None), 1]].asnumpy(), x0[:, 1])
    np.testing.assert_array_equal(ms.Tensor(x0)[[1, 0]].asnumpy(), x0[[1, 0]])  # numbers only: one array index
    y = ms.Tensor(x0)
    y[[mask, 0]] = -1
    want = x0.copy()
    want[0, 0] = -1
    np.testing.assert_array_equal(y.asnumpy(), want)
