"""Tensors of strings (dtype String) and the Tensor constructor's refusals of what MindSpore refuses."""
import copy

import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor


def test_string_tensor_from_numpy_str_and_bytes_arrays():
    t = Tensor(np.array(["a", "bc"]))
    assert isinstance(t, Tensor) and t.dtype == ms.string
    assert t.shape == (2,) and t.ndim == 1 and t.size == 2 and len(t) == 2
    assert t.itemsize == 8 and t.nbytes == 16          # numpy's '<U2': 4 bytes per character
    a = t.asnumpy()
    assert a.dtype == np.dtype("<U2") and a.tolist() == ["a", "bc"]
    a[0] = "z"                                           # a copy: the tensor keeps its value
    assert t.asnumpy().tolist() == ["a", "bc"]
    b = Tensor(np.array([b"ab", b"c"]))
    assert b.dtype == ms.string and b.itemsize == 2 and b.asnumpy().tolist() == [b"ab", b"c"]
    # a dtype asked for does not change a string array (MindSpore keeps String)
    assert Tensor(np.array(["x", "y"]), ms.int32).dtype == ms.string
    # numbers asked for as String keep their own dtype
    assert Tensor(np.array([[0.5], [1.5]]), ms.string).dtype == ms.float64
    assert Tensor([1, 2], ms.string).dtype == ms.int64
    # a numpy array of mixed str and numbers is a str array
    assert str(Tensor(np.array(["88", 0, 9]))) == "['88' '0' '9']"


def test_string_tensor_printing_and_copies():
    t = Tensor(np.array([["a", "bc"], ["d", "e"]]))
    assert repr(t) == "Tensor(shape=[2, 2], dtype=String, value=\n[['a', 'bc'],\n ['d', 'e']])"
    assert str(t) == "[['a' 'bc']\n ['d' 'e']]"
    s = Tensor(np.array("x"))
    assert repr(s) == "Tensor(shape=[], dtype=String, value= 'x')" and str(s) == "x" and s.shape == ()
    assert repr(Tensor(np.array(["a", "bc"]))) == "Tensor(shape=[2], dtype=String, value= ['a', 'bc'])"
    for other in (Tensor(t), copy.copy(t), copy.deepcopy(t)):
        assert other.dtype == ms.string and other is not t
        np.testing.assert_array_equal(other.asnumpy(), t.asnumpy())
    np.testing.assert_array_equal(np.array(t), [["a", "bc"], ["d", "e"]])


def test_string_tensor_refuses_arithmetic():
    t = Tensor(np.array(["a", "bc"]))
    for fn in (lambda: t + t, lambda: t.astype(ms.int32), lambda: ms.ops.reshape(t, (2, 1))):
        with pytest.raises(TypeError):
            fn()


@pytest.mark.parametrize("dtype", [np.int64, np.float32, int, float, bool, "int32"])
def test_tensor_dtype_must_be_a_mindspore_dtype(dtype):
    with pytest.raises(TypeError, match=r"For 'Tensor', the 'dtype' should be one of \[mindspore.int8, "):
        Tensor([1, 2], dtype)


def test_tensor_without_data_needs_a_dtype():
    for kwargs in ({}, {"shape": (2,)}):
        with pytest.raises(TypeError, match="the type of 'input_data' should be one of"):
            Tensor(**kwargs)
    np.testing.assert_array_equal(Tensor(shape=(2,), dtype=ms.int32).asnumpy(), [0, 0])


def test_python_complex_is_complex128():
    t = Tensor(1 + 2.22222222j)
    assert t.dtype == ms.complex128 and t.asnumpy() == 1 + 2.22222222j
    assert Tensor([1.0, 2j]).dtype == ms.complex128
    assert Tensor(np.array([1 + 2j], np.complex64)).dtype == ms.complex64
