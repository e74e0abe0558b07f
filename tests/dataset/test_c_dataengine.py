"""mindseed._c_dataengine: the engine's Tensor / DataType / TensorShape (oracle behaviour of MindSpore 2.10)."""
import numpy as np

from mindseed import _c_dataengine as cde


def test_tensor_shares_contiguous_arrays_and_copies_strided_ones():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    t = cde.Tensor(a)
    assert np.shares_memory(a, t.as_array()) and np.shares_memory(a, np.asarray(t))
    view = np.array(t, copy=False)
    view[0, 0] = 7
    assert a[0, 0] == 7 and t.as_array()[0, 0] == 7
    s = cde.Tensor(a[:, 1])
    np.testing.assert_array_equal(np.array(s, copy=False), [1, 4])
    assert np.asarray(s).flags.c_contiguous and not np.shares_memory(a, s.as_array())
    assert s.shape().as_list() == [2] and str(t.shape()) == "<2,3>"


def test_data_types_and_shapes():
    assert cde.Tensor(np.zeros(2, np.float32)).type() == cde.DataType("float32")
    assert cde.Tensor(np.zeros(2, np.uint16)).type() != cde.DataType("int16")
    assert str(cde.Tensor(np.array(["ab"])).type()) == "string"
    assert str(cde.Tensor(np.array([b"ab"])).type()) == "bytes"
    assert str(cde.DataType("foo")) == "unknown" and not cde.DataType("int64").is_python()
    assert cde.TensorShape([2, 3]).as_list() == [2, 3] and cde.TensorShape([2, 3]).is_known()
    assert not cde.TensorShape([-1, 3]).is_known() and str(cde.TensorShape([])) == "<>"
