"""MindSpore 2.10 behaviours of operators and Tensor methods found missing by running MindSpore code."""
import contextlib

import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, ops
from mindseed.ops import operations as P
from _graph import graph_mode


def t(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype=dtype))


# ---------------------------------------------------------------- & | ^ with a Python int on the left
def test_bitwise_operators_with_python_int_on_either_side():
    y = t([1, 2, -4], np.int64)
    np.testing.assert_array_equal((1 & y).asnumpy(), [1, 0, 0])
    np.testing.assert_array_equal((1 | y).asnumpy(), [1, 3, -3])
    np.testing.assert_array_equal((1 ^ y).asnumpy(), [0, 3, -3])
    np.testing.assert_array_equal((y & 1).asnumpy(), [1, 0, 0])
    # bool tensors stay logical
    np.testing.assert_array_equal((True & t([True, False], np.bool_)).asnumpy(), [True, False])
    with graph_mode():
        f = ms.jit(lambda a: 6 & a)
        np.testing.assert_array_equal(f(y).asnumpy(), np.array([1, 2, -4]) & 6)


# ---------------------------------------------------------------- TopK(sorted=False)
def test_topk_unsorted_keeps_input_order():
    x = np.array([[0.3, 0.9, 0.1, 0.5], [0.8, 0.2, 0.7, 0.4]], np.float32)
    v, i = P.TopK(sorted=False)(Tensor(x), 4)
    np.testing.assert_array_equal(v.asnumpy(), x)
    np.testing.assert_array_equal(i.asnumpy(), [[0, 1, 2, 3]] * 2)
    v, i = ops.topk(Tensor(x), 2, sorted=False)
    np.testing.assert_array_equal(i.asnumpy(), [[1, 3], [0, 2]])
    np.testing.assert_array_equal(v.asnumpy(), np.float32([[0.9, 0.5], [0.8, 0.7]]))
    v, _ = P.TopK(sorted=True)(Tensor(x), 2)
    np.testing.assert_array_equal(v.asnumpy(), np.float32([[0.9, 0.5], [0.8, 0.7]]))


# ---------------------------------------------------------------- PReLU of a scalar
def test_prelu_of_a_scalar_keeps_its_shape():
    x, w = t(-0.8), t([0.6])
    out = ops.PReLU()(x, w)
    assert out.shape == ()
    np.testing.assert_allclose(out.asnumpy(), -0.48, rtol=1e-6)
    dx, dw = ops.GradOperation(get_all=True)(ops.PReLU())(x, w)
    assert dx.shape == () and dw.shape == (1,)
    np.testing.assert_allclose(dx.asnumpy(), 0.6, rtol=1e-6)
    np.testing.assert_allclose(dw.asnumpy(), [-0.8], rtol=1e-6)


# ---------------------------------------------------------------- Tensor method signatures
def test_add_sub_with_alpha_and_list_operands():
    x, y = t([4.0, 5.0, 6.0]), t([1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.add(y, alpha=2).asnumpy(), [6.0, 9.0, 12.0])
    np.testing.assert_allclose(x.add([1.0, 2.0, 3.0]).asnumpy(), [5.0, 7.0, 9.0])
    np.testing.assert_allclose(x.add((1.0, 2.0, 3.0)).asnumpy(), [5.0, 7.0, 9.0])
    np.testing.assert_allclose(x.sub(y, alpha=2).asnumpy(), [2.0, 1.0, 0.0])
    np.testing.assert_allclose(x.subtract(y, alpha=2).asnumpy(), [2.0, 1.0, 0.0])
    np.testing.assert_allclose(ops.subtract(x, y, alpha=2).asnumpy(), [2.0, 1.0, 0.0])
    np.testing.assert_allclose(ops.subtract(x, y).asnumpy(), [3.0, 3.0, 3.0])
    np.testing.assert_allclose(x.true_divide(y).asnumpy(), [4.0, 2.5, 2.0])


def test_remainder_count_nonzero_type_byte():
    x = t([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    want = np.remainder(np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]), -1.5)
    np.testing.assert_allclose(x.remainder(-1.5).asnumpy(), want)
    np.testing.assert_allclose(x.remainder(other=-1.5).asnumpy(), want)
    np.testing.assert_allclose(x.remainder(divisor=-1.5).asnumpy(), want)
    with pytest.raises(TypeError, match="Tensor.remainder"):
        x.remainder()
    m = t([[0, 1, 0], [1, 1, 0]])
    c = m.count_nonzero(axis=[0, 1], keep_dims=True, dtype=ms.int32)
    assert c.shape == (1, 1) and c.dtype == ms.int32 and int(c.asnumpy()[0, 0]) == 3
    np.testing.assert_array_equal(m.count_nonzero(axis=0).asnumpy(), [1, 2, 0])
    assert int(m.count_nonzero()) == 3
    np.testing.assert_array_equal(m.count_nonzero(1).asnumpy(), [1, 2])
    f = t([[-1.1, 0.3, 3.6]])
    assert f.type() == "Float32"
    np.testing.assert_array_equal(f.type(ms.int32).asnumpy(), [[-1, 0, 3]])
    b = t([1.0, 2.0]).byte()
    assert b.dtype == ms.uint8
    np.testing.assert_array_equal(b.asnumpy(), [1, 2])


def test_H_and_mH_conjugate_complex_tensors():
    z = np.array([[-1.5 + 7.8j, 3 + 5.75j]], np.complex64)
    np.testing.assert_allclose(Tensor(z).H.asnumpy(), z.conj().T)
    r = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    np.testing.assert_allclose(Tensor(r).mH.asnumpy(), np.swapaxes(r, -1, -2))
    zz = (r + 1j * r).astype(np.complex64)
    np.testing.assert_allclose(Tensor(zz).mH.asnumpy(), np.swapaxes(zz, -1, -2).conj())
    np.testing.assert_allclose(Tensor(r[0]).H.asnumpy(), r[0].T)


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_contiguous_passes_the_gradient(mode):
    rng = np.random.RandomState(0)
    x, w = rng.randn(4, 3, 5).astype(np.float32), rng.randn(5, 2).astype(np.float32)

    def f(a, b):
        o = ops.transpose(ops.matmul(a, b), (2, 1, 0))[..., 1].contiguous()
        return (o * o).sum()

    def ref(a, b):
        o = np.transpose(a @ b, (2, 1, 0))[..., 1]
        return (o * o).sum()

    g = ops.grad(f, (0, 1))
    with graph_mode() if mode == "graph" else contextlib.nullcontext():
        gx, gw = ms.jit(g)(t(x), t(w)) if mode == "graph" else g(t(x), t(w))
    # d/dx of sum(o^2) with o = (x @ w)[1, :, :] transposed: 2 * o @ w.T on row 1 of x
    o = (x @ w)[1]                          # (3, 2)
    want_x = np.zeros_like(x)
    want_x[1] = 2 * o @ w.T
    want_w = 2 * x[1].T @ o
    np.testing.assert_allclose(gx.asnumpy(), want_x, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), want_w, rtol=1e-4, atol=1e-5)
    assert np.isclose(ref(x, w), float(f(t(x), t(w)).asnumpy()), rtol=1e-5)
    y = ops.transpose(t(x), (2, 1, 0))
    assert not y.is_contiguous() and y.contiguous().is_contiguous()




# ---------------------------------------------------------------- reductions with the axes as a Tensor
def test_reduce_sum_axis_given_as_a_tensor():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_allclose(P.ReduceSum()(Tensor(x), t([0, 2], np.int64)).asnumpy(), x.sum(axis=(0, 2)))
    np.testing.assert_allclose(P.ReduceSum(keep_dims=True)(Tensor(x), t(1, np.int64)).asnumpy(),
                               x.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(P.ReduceSum()(Tensor(x), t([], np.int64)).asnumpy(), x.sum())
    np.testing.assert_allclose(P.ReduceSum()(Tensor(x), []).asnumpy(), x.sum())
    np.testing.assert_allclose(P.ReduceSum(skip_mode=True)(Tensor(x), ()).asnumpy(), x)


# ---------------------------------------------------------------- unsigned 16/32/64-bit tensors
@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64])
def test_unsigned_arithmetic_and_running_extremes(dtype):
    a, b = np.array([3, 1, 5, 2], dtype), np.array([1, 1, 7, 1], dtype)
    x, y = Tensor(a), Tensor(b)
    for got, want in [(x + y, a + b), (x - y, a - b), (x * y, a * b), (P.Add()(x, y), a + b), (x + 1, a + 1)]:
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got.asnumpy(), want)
    v, i = ops.cummax(x, 0)
    np.testing.assert_array_equal(v.asnumpy(), np.maximum.accumulate(a))
    np.testing.assert_array_equal(i.asnumpy(), [0, 0, 2, 2])
    v, i = ops.cummin(x, 0)
    np.testing.assert_array_equal(v.asnumpy(), np.minimum.accumulate(a))
    np.testing.assert_array_equal(i.asnumpy(), [0, 1, 1, 1])


def test_uint64_running_extremes_above_2_63():
    a = np.array([5, 2**64 - 1, 2**63 + 1, 7], np.uint64)
    v, i = ops.cummax(Tensor(a), 0)
    np.testing.assert_array_equal(v.asnumpy(), np.maximum.accumulate(a))
    np.testing.assert_array_equal(i.asnumpy(), [0, 1, 1, 1])
    v, _ = ops.cummin(Tensor(a[::-1].copy()), 0)
    np.testing.assert_array_equal(v.asnumpy(), np.minimum.accumulate(a[::-1]))


# ---------------------------------------------------------------- arithmetic primitives on two Python numbers
def test_arithmetic_primitives_on_two_numbers():
    r = P.Sub()(10.11, 902)
    assert r.dtype == ms.float32 and r == -891.89
    np.testing.assert_allclose(P.Div()(4, -1).asnumpy(), -4.0)
    np.testing.assert_allclose(P.Add()(0.1, -3.2).asnumpy(), -3.1, rtol=1e-6)
    assert P.Add()(1, 2).dtype == ms.int64 and int(P.Add()(1, 2)) == 3
    assert int(P.Sub()(1, 2)) == -1 and int(P.Mul()(3, 4)) == 12
    with graph_mode():
        class Net(ms.nn.Cell):
            def construct(self, a, b):
                return P.Sub()(a, b)
        np.testing.assert_allclose(Net()(10.5, 2).asnumpy(), 8.5)


def test_assign_add_of_a_one_item_vector_to_a_scalar_parameter():
    p = ms.Parameter(Tensor(1.0, ms.float32), name="p")
    P.AssignAdd()(p, Tensor([4], ms.int32))
    assert p.shape == () and p.asnumpy() == 5.0
    ops.assign_sub(p, Tensor([2.0], ms.float32))
    assert p.shape == () and p.asnumpy() == 3.0
    q = ms.Parameter(Tensor([1.0, 2.0], ms.float32), name="q")
    with pytest.raises(ValueError, match="For 'AssignAdd','value' must have the same rank as 'variable'"):
        P.AssignAdd()(q, Tensor([[4.0, 5.0]], ms.float32))


def test_manually_defined_shape_and_scalar_primitives():
    from mindseed.ops.operations import manually_defined as M
    assert M.shape_(t(np.ones((3, 2, 1)))) == (3, 2, 1) and M.Shape()(t([[1, 2]])) == (1, 2)
    assert (M.scalar_add(7, 2), M.scalar_sub(7, 2.0), M.scalar_mul(-7, 2)) == (9, 5.0, -14)
    assert (M.scalar_div(7, 2), M.scalar_floordiv(-7, 2), M.scalar_mod(-7, 2), M.scalar_pow(7, 2)) == (3.5, -4, 1, 49)
    assert (M.ScalarMax()(7, 2.0), M.scalar_min(7, 2), M.scalar_lt(-7, 2), M.scalar_eq(2, 2.0)) == (7, 2, True, True)
    assert (M.scalar_bool(0), M.scalar_usub(3), M.scalar_uadd(2.5)) == (False, -3, 2.5)
    assert abs(M.scalar_log(3) - 1.0986122886681098) < 1e-15
    with pytest.raises(ValueError, match="The divisor could not be zero"):
        M.scalar_div(1, 0)
    with pytest.raises(ValueError, match="Cannot perform modulo operation on zero"):
        M.ScalarMod()(1, 0)


def test_getitem_refuses_indices_that_select_nothing_or_overflow():
    x = t(np.arange(24).reshape(4, 3, 2))
    assert x[True].shape == (1, 4, 3, 2) and x[[True, False, True, False]].shape == (2, 3, 2)
    with pytest.raises(IndexError, match="indexed by a bool object, the value only support 'True'"):
        x[False]
    with pytest.raises(IndexError, match="Bool element of tuple index must be 'True'"):
        x[0, False]
    for index in ([], [False, False]):
        with pytest.raises(IndexError, match="the list can't be empty"):
            x[index]
    with pytest.raises(IndexError, match="index 4 out of bounds for dimension with size 4"):
        x[[4, 2]]
    np.testing.assert_array_equal(x[[-1, 2]].asnumpy(), np.arange(24).reshape(4, 3, 2)[[-1, 2]])
    for index in ((1, []), (0, ()), ([], 1)):
        with pytest.raises(IndexError, match=r"The sequence element\(tuple/list\) in tuple index can't be empty"):
            x[index]


def test_setitem_with_an_empty_list_writes_nothing():
    """`scores[i, banned] = -inf` with no banned token (mindnlp's n-gram logits processor): as in MindSpore, an
    empty list index, or one among a tuple's items, selects nothing to write."""
    ref = np.arange(12, dtype=np.float32).reshape(3, 4)
    for index in ([], (1, []), (1, ()), ([], slice(None))):
        x = t(ref)
        x[index] = -float("inf")
        np.testing.assert_array_equal(x.asnumpy(), ref)
    x = t(ref)
    x[1, [2]] = -1.0
    assert x.asnumpy()[1, 2] == -1.0 and x.asnumpy().sum() == ref.sum() - 7.0


def test_eye_of_unsigned_dtypes():
    for dtype in (ms.uint16, ms.uint32, ms.uint64):
        out = ops.eye(2, 3, dtype)
        assert out.dtype == dtype
        np.testing.assert_array_equal(out.asnumpy(), np.eye(2, 3))


def test_bias_add_operand_dtypes_and_reverse_v2_axis_checks():
    x = t(np.ones((2, 3, 4)))
    with pytest.raises(TypeError, match=r"For primitive\[BiasAdd\], the input type must be same"):
        P.BiasAdd()(x, Tensor(np.ones(3, np.float16)))
    np.testing.assert_array_equal(P.BiasAdd()(x, t([1, 2, 3])).asnumpy()[0, :, 0], [2, 3, 4])
    np.testing.assert_array_equal(P.ReverseV2(axis=[0])(t([1, 2, 3])).asnumpy(), [3, 2, 1])
    for axis in (0.1, 1, [0.5]):
        with pytest.raises(TypeError, match="the type of 'axis' should be one of"):
            P.ReverseV2(axis)


def test_array_func_holds_the_arg_extreme_with_value_instances():
    from mindseed.ops.function import array_func
    x = t([0.0, 0.4, 0.6, 0.7, 0.1])
    index, value = array_func.arg_max_with_value_(x)
    assert int(index) == 3 and abs(float(value) - 0.7) < 1e-6
    index, value = array_func.arg_min_with_value_(x)
    assert int(index) == 0 and float(value) == 0.0
    assert isinstance(array_func.arg_max_with_value_, P.ArgMaxWithValue)
