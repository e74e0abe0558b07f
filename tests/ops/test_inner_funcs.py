"""The compiler's inner functions of ops (tuple/list/dict items, augassign, environments, broadcast reduction axes,
typeof, registration decorators): each is the Python operation it names."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def test_sequence_and_dict_items():
    assert ops.tuple_getitem((1, 2, 3), 1) == 2 and ops.list_getitem([1, 2], -1) == 2
    assert ops.dict_getitem({"a": 1}, "a") == 1 and ops.tuple_len((1, 2)) == 2 and ops.list_len([]) == 0
    assert ops.tuple_setitem((1, 2), 0, 9) == (9, 2) and ops.list_setitem([1, 2], 1, 0) == [1, 0]
    assert ops.dict_setitem({"a": 1}, "b", 2) == {"a": 1, "b": 2}
    assert ops.make_tuple(1, 2) == (1, 2) and ops.make_list(1) == [1] and ops.make_dict(("k",), (3,)) == {"k": 3}
    assert ops.make_range(1, 7, 2) == (1, 3, 5) and ops.make_range(3) == (0, 1, 2)
    assert ops.make_slice(1, None, 2) == slice(1, None, 2)
    x = ms.Tensor(np.arange(24.0).reshape(2, 3, 4))
    np.testing.assert_allclose(ops.ReduceMean()(x, ops.make_range(0, 2)).asnumpy(),
                               np.arange(24.0).reshape(6, 4).mean(0))
    assert ops.SliceGetItem(slice(1, 5, 2), "stop") == 5 and ops.tail((1, 2, 3)) == (2, 3)
    assert ops.tuple_reversed((1, 2)) == (2, 1) and ops.zip_operation((1, 2), (3, 4)) == ((1, 3), (2, 4))
    assert ops.tuple_div((6, 8), (3, 2)) == (2, 4) and ops.shape_mul((2, 3, 4)) == 24 and ops.shape_mul(()) == 1
    assert ops.in_dict("a", {"a": 1}) and ops.not_in_dict("b", {"a": 1})
    with pytest.raises(RuntimeError, match="should be divisible, .* the dividend is 5, the divisor is 2"):
        ops.tuple_div((5,), (2,))
    with pytest.raises(RuntimeError, match="the size of divisor tuple is 1, the size of dividend tuple is 2"):
        ops.tuple_div((4, 2), (2,))
    with pytest.raises(RuntimeError, match="should be an int64 number, but got a Float32 number 2"):
        ops.tuple_div((4, 2), (2, 2.0))
    with pytest.raises(RuntimeError, match="The divisor value should not be 0!"):
        ops.tuple_div((4, 2), (2, 0))
    with pytest.raises(RuntimeError, match="Typeof operator must requires 1 argument, .* arguments is 2"):
        ops.typeof(1, 2)


def test_logic_strings_augassign_and_types():
    assert ops.bool_and(True, False) is False and ops.bool_or(False, True) and ops.bool_not(False)
    assert ops.bool_eq(True, True) and ops.string_concat("a", "b") == "ab" and ops.string_eq("x", "x")
    x = ops.augassign_add(ms.Tensor([1.0]), 2)
    assert x.tolist() == [3.0] and ops.augassign_floordiv(7, 2) == 3 and ops.augassign_mod(7, 4) == 3
    t = ms.Tensor([1.0])
    assert ops.is_(t, t) and ops.is_not(t, ms.Tensor([1.0]))
    assert ops.typeof(t) == ms.TensorType(ms.float32) and ops.typeof(3) == ms.int64
    assert ops.hastype(t, ms.tensor_type) and ops.isconstant(3) and not ops.isconstant(t)
    assert ops.switch(False, "a", "b") == "b" and ops.array_to_scalar(ms.Tensor([2.5])) == 2.5


def test_environments_gradient_args_and_casts():
    env = ops.environ_set(ops.environ_create(), "w", ms.Tensor([1.0]))
    both = ops.environ_add(env, ops.environ_set({}, "w", ms.Tensor([2.0])))
    assert ops.environ_get(both, "w", None).tolist() == [3.0] and ops.env_get(env, "x", 0) == 0
    assert ops.hyper_add((1, [2, 3]), (10, [20, 30])) == (11, [22, 33])
    assert ops.broadcast_gradient_args((2, 1, 3), (4, 1)) == ((1,), (0, 2))
    assert ops.reduced_shape((2, 3, 4), 1) == (2, 1, 4) and ops.reduced_shape((2, 3), ()) == (1, 1)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        ops.broadcast_gradient_args((2,), (3,))
    out = ops.mixed_precision_cast(ms.float16, (ms.Tensor([1.0]), [ms.Tensor([1])], {"k": ms.Tensor([2.0])}))
    assert out[0].dtype == ms.float16 and out[1][0].dtype == ms.int64 and out[2]["k"].dtype == ms.float16


def test_registration_decorators_and_move_to(tmp_path):
    @ops.op_info_register({"op_name": "A"})
    def kernel_a():
        return 1

    @ops.kernel
    def hybrid(x):
        return x

    assert kernel_a.reg_info == [{"op_name": "A"}] and hybrid.ms_kernel and hybrid(2) == 2
    assert ops.add_flags(hybrid, fast=True)._mindspore_flags == {"fast": True}
    assert ops.move_to(ms.Tensor([1.0]), "CPU").tolist() == [1.0]
    with pytest.raises(ValueError, match="For 'move_to', the 'to' must be one of"):
        ops.move_to(ms.Tensor([1.0]), "TPU")
    ops.tensordump(str(tmp_path / "x.npy"), ms.Tensor(np.eye(2)))
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), np.eye(2))
    with pytest.raises(ValueError, match="For 'TensorDump', the 'mode'"):
        ops.tensordump("y", ms.Tensor([1.0]), "sideways")


def test_iteration_helpers():
    assert ops.iter_converter({"a": 1, "b": 2}) == ("a", "b") and ops.iter_converter([1, 2]) == (1, 2)
    assert ops.ms_hasnext((1,)) and not ops.ms_hasnext(())
    assert ops.ms_next((1, 2, 3)) == (1, (2, 3))
    assert ops.switch_layer(ms.Tensor(1), (abs, len))([1, 2]) == 2
    assert not ops.is_sequence_value_unknown((1, 2)) and not ops.is_sequence_shape_unknown([1])


def test_composite_tail_and_inner_names():
    from mindseed.ops import composite as C
    assert C.tail((0, 1, 2, 3)) == (1, 2, 3)
    assert ms.jit(lambda x: C.tail(x))((0, 1, 2)) == (1, 2)
    assert C.zip_operation((1, 2), (3, 4)) == ((1, 3), (2, 4))
    assert C.hyper_add(1, 2) == 3 and C.augassign_sub(5, 2) == 3


_SCALE = 3.0


@ops.kernel(compile_attrs={"test1": True})
def _outer_product(a, b):
    c = output_tensor(a.shape, a.dtype)  # noqa: F821 -- a Hybrid DSL intrinsic, bound by @kernel
    with block_realize(c):  # noqa: F821
        for i0 in range(a.shape[0]):
            for i1 in parallel(b.shape[1]):  # noqa: F821
                c[i0, i1] = 0.0
                for i2 in reduce(a.shape[1]):  # noqa: F821
                    c[i0, i1] = c[i0, i1] + (a[i0, i2] * b[i2, i1])
    return c * _SCALE + sqrt(abs(a))  # noqa: F821


def test_hybrid_kernel_runs_as_python_on_numpy():
    a = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    b = np.arange(12, dtype=np.float32).reshape(3, 4)[:, :2]
    got = _outer_product(a, b)
    want = np.zeros((2, 3), np.float32)
    want[:, :2] = a @ b
    np.testing.assert_allclose(got, want * 3.0 + np.sqrt(np.abs(a)), rtol=1e-6)
    assert got.dtype == np.float32
    assert _outer_product.ms_kernel_flag and _outer_product.compile_attrs == '{"test1": true}'
    assert "output_tensor" not in globals()        # the intrinsics do not leak into the module
    with pytest.raises(TypeError, match="'compile_attrs' of @kernel must be a dict"):
        ops.kernel(compile_attrs=[1])
