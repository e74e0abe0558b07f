"""mindspore._checkparam: checks return what they accepted and raise MindSpore's errors."""
import pytest

from mindseed import _checkparam as V


def test_checks_return_the_value():
    assert V.check_value_type("k", 3, [int, float], "Op") == 3
    assert V.check_int(5, 2, V.GT, "k", "Op") == 5 and V.check_positive_int(1) == 1
    assert V.check_non_negative_int(0) == 0 and V.check_equal_int(4, 4) == 4 and V.check_bool(False) is False
    assert V.check_is_int(7) == 7 and V.check_positive_float(0.5) == 0.5 and V.check_number("x", 2, 1, V.GE) == 2
    assert V.check_float_range(1, 0.0, 1.0, V.INC_BOTH) == 1
    assert V.check_int_range(0, 0, 3, V.INC_LEFT) == 0
    assert V.check_isinstance("t", (1,), tuple) == (1,) and V.check_string("a", ["a", "b"]) == "a"
    assert V.twice(3) == (3, 3) and V.twice((1, 2)) == (1, 2)


@pytest.mark.parametrize("call, err, match", [
    (lambda: V.check_value_type("k", True, [int], "Op"), TypeError,
     "For 'Op', the 'k' must be int, but got 'True' with type 'bool'"),
    (lambda: V.check_int(1, 2, V.GT, "k", "Op"), ValueError, "For 'Op', the 'k' must be int > 2, but got 1"),
    (lambda: V.check_positive_int(1.0, "n"), TypeError, "The 'n' must be int, but got float"),
    (lambda: V.check_float_range(1.0, 0.0, 1.0, V.INC_LEFT, "p", "Op"), ValueError,
     r"For 'Op', the 'p' must be in \[0.0, 1.0\), but got 1.0"),
    (lambda: V.check_int_range(3, 0, 3, V.INC_NEITHER), ValueError, r"must be in \(0, 3\), but got 3"),
    (lambda: V.check_bool(1, "flag"), TypeError, "The 'flag' must be a bool, but got int"),
    (lambda: V.twice((1, 2, 3)), TypeError, "input tuple dimension must be 2"),
    (lambda: V.twice(1.5), TypeError, "input type must be integer or tuple"),
    (lambda: V.check_non_positive_int(1), ValueError, "must be"),
    (lambda: V.check_input_format("NHWC"), ValueError, "The data format must be NCHW"),
    (lambda: V.check_int(1, 0, 99), ValueError, "relation 99 is not a valid comparison relation"),
])
def test_bad_values_raise_mindspore_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_args_type_check_decorator():
    @V.args_type_check(a=int, b=(str, float))
    def f(a, b=None, c=0):
        return a, b, c

    assert f(1, "x", c="anything") == (1, "x", "anything") and f(2) == (2, None, 0) and f.__name__ == "f"
    with pytest.raises(TypeError, match="The parameter 'a' must be <class 'int'>, but got <class 'float'>"):
        f(1.5)
    with pytest.raises(TypeError, match="parameter 'b' must be"):
        f(1, 3)

    @V.args_type_check(mode=int, device_target=str)
    def set_ctx(**kwargs):
        return kwargs

    assert set_ctx(mode=1, other=[1]) == {"mode": 1, "other": [1]}
    with pytest.raises(TypeError, match="'device_target' must be <class 'str'>, but got <class 'int'>"):
        set_ctx(device_target=3)


def test_primexpr_computes_on_values():
    from mindseed.ops.primitive import _primexpr

    @_primexpr
    def doubled(shape):
        return tuple(s * 2 for s in shape)

    assert doubled((1, 2)) == (2, 4)
    assert _primexpr(reuse_result=False)(len)([1, 2, 3]) == 3


def test_check_subclass_follows_the_type_hierarchy():
    """MindSpore's check_subclass (mindspore_rl's TensorArray checks its dtype with it): a type passes when it is a
    template type, a number type under `number`, a tensor type under the TensorType class, or (any other
    template) the very object."""
    import mindseed as ms
    from mindseed.common import dtype as mstype
    numbers = mstype.number_type + (mstype.bool_,)
    for type_, templates in [(ms.float32, numbers), (ms.bool_, [mstype.number]), (int, (int, float)),
                             (mstype.TensorType(ms.float32), mstype.tensor_type), (ms.int32, ms.int32)]:
        assert V.check_subclass("dtype", type_, templates, "TensorArray") is None
    with pytest.raises(TypeError, match="For 'TensorArray', the element of 'dtype' must be one of Int8, .*Bool, but "
                                        "got String.The supported data types"):
        V.check_subclass("dtype", mstype.string, numbers, "TensorArray")
    with pytest.raises(TypeError, match="the element of 'dtype' must be Int32, but got Float32.The supported"):
        V.check_subclass("dtype", ms.float32, ms.int32, "X")
    with pytest.raises(TypeError, match="must be one of Float32, Int32, but got type 'tuple' extra.The supported"):
        V.check_subclass("x", (1,), [ms.float32, ms.int32], "P", "extra")
    with pytest.raises(TypeError, match="must be Float32, but got 3.The"):
        V.check_subclass("x", 3, [ms.float32], "P")
    with pytest.raises(TypeError, match="must be Float32, but got Tensor\\[Float32\\]"):
        V.check_subclass("x", mstype.TensorType(ms.float32), [ms.float32], "P")


def test_types_same_and_valid_and_the_tensor_dtype_checks():
    """MindSpore's checks of a primitive's input types (mindspore-rl's GRU checks its x and h dtypes with them):
    each valid, all the same; the tensor forms wrap the dtypes as Tensor types."""
    from mindseed.common import dtype as mstype
    float_types = [mstype.float32, mstype.float16]
    V.check_types_same_and_valid({"x": mstype.float32, "h": mstype.float32}, float_types, "GRU")
    with pytest.raises(TypeError, match="For 'GRU', the type of 'h' should be same as 'x', but got 'x' with type "
                                        "Float32 and 'h' with type Float16."):
        V.check_types_same_and_valid({"x": mstype.float32, "h": mstype.float16}, float_types, "GRU")
    with pytest.raises(TypeError, match="For 'GRU', the element of 'x' must be one of Float32, Float16, but got "
                                        "Int32."):
        V.check_types_same_and_valid({"x": mstype.int32}, float_types, "GRU")
    f32 = mstype.TensorType(mstype.float32)
    V.check_tensors_dtypes_same_and_valid({"a": f32, "b": f32}, float_types, "Add")
    V.check_tensor_dtype_valid("a", f32, mstype.float32, "Add")
    with pytest.raises(TypeError, match=r"the element of 'a' must be one of Tensor\[Float32\], Tensor\[Float16\], "
                                        r"but got Tensor\[Int32\]"):
        V.check_tensor_dtype_valid("a", mstype.TensorType(mstype.int32), float_types, "Add")
    with pytest.raises(TypeError, match="the type of 'b' should be same as 'a'"):
        V.check_tensors_dtypes_same_and_valid({"a": f32, "b": mstype.TensorType(mstype.float16)},
                                                      float_types, "Add")


@pytest.mark.parametrize("name, ok", [("12_sf.asdf_", True), ("x12_sf.asdf.", True), ("_x12.a", True),
                                      (".12_sf", False), ("12_sf.a$sdf.", False), ("12+sf", False), ("", False)])
def test_check_str_by_regular(name, ok):
    if ok:
        assert V.check_str_by_regular(name) is True
    else:
        with pytest.raises(ValueError, match="is illegal, it must be match regular"):
            V.check_str_by_regular(name)


def test_check_str_and_none_by_regular():
    assert V.check_str_and_none_by_regular("") is True
    assert V.check_str_and_none_by_regular("a-b.c") is True
    with pytest.raises(ValueError, match="For 'Op', the 'a b' is illegal"):
        V.check_str_and_none_by_regular("a b", prim_name="Op")
