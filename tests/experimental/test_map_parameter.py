"""MapParameter: a hash table from integer keys to value rows, with MindSpore's constructor forms, get/put/erase,
default values, export/import, clone, and use from a Cell."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn
from mindseed.experimental import MapParameter


def _keys(*k):
    return Tensor(np.array(k, np.int32))


def test_get_put_erase_with_a_default_value():
    m = MapParameter(key_dtype=ms.int32, value_dtype=ms.float32, value_shape=(3,), default_value="zeros", name="m")
    assert isinstance(m, Parameter) and m.name == "m" and m.requires_grad
    assert (m.key_dtype, m.value_dtype, m.value_shape, m.default_value) == (ms.int32, ms.float32, (3,), "zeros")
    assert m.shape == (3,) and m.dtype == ms.float32
    assert str(m) == ("MapParameter(MapTensor(key_dtype=Int32, value_dtype=Float32, value_shape=[3], "
                      "default_value=zeros, permit_filter=1, evict_filter=9223372036854775807))")
    assert m.put(_keys(1, 2), Tensor(np.array([[1.0] * 3, [2.0] * 3], np.float32))) is m
    np.testing.assert_array_equal(m.get(_keys(2, 5)).asnumpy(), [[2.0] * 3, [0.0] * 3])
    assert m.erase(_keys(1)) is m
    np.testing.assert_array_equal(m[_keys(1)].asnumpy(), [[0.0] * 3])
    m[_keys(7)] = Tensor(np.full((1, 3), 7.0, np.float32))
    assert sorted(m.get_keys().asnumpy().tolist()) == [1, 2, 5, 7]
    with pytest.raises(ValueError, match="the 'value_tensor' shape must be \\(2, 3\\)"):
        m.put(_keys(1, 2), Tensor(np.ones((2, 2), np.float32)))


def test_number_default_and_insert_flag_and_initial_tensors():
    m = MapParameter(key_dtype=ms.int64, value_dtype=ms.float32, value_shape=2, default_value=1.5)
    np.testing.assert_array_equal(m.get(Tensor(np.array([[4, 5]], np.int64)), False).asnumpy(), np.full((1, 2, 2), 1.5))
    assert m.get_keys().asnumpy().tolist() == []             # not inserted
    init = MapParameter(key_tensor=_keys(1, 2), value_tensor=Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),
                        default_value="ones")
    assert init.value_shape == (3,)
    np.testing.assert_array_equal(init.get(_keys(2, 1, 9)).asnumpy(), [[3, 4, 5], [0, 1, 2], [1, 1, 1]])
    with pytest.raises(ValueError, match="'key_dtype' and 'key_tensor.dtype' should be set the same"):
        MapParameter(key_dtype=ms.int64, key_tensor=_keys(1), value_tensor=Tensor(np.ones((1, 2), np.float32)))
    with pytest.raises(TypeError, match="'key_dtype' must be an integer dtype"):
        MapParameter(key_dtype=ms.float32, value_dtype=ms.float32, value_shape=(1,))


def test_export_incremental_and_import():
    m = MapParameter(key_dtype=ms.int32, value_dtype=ms.float32, value_shape=(2,), default_value=0.0)
    m.put(_keys(1, 2, 3), Tensor(np.array([[1, 1], [2, 2], [3, 3]], np.float32)))
    keys, values, status = m.export_data(incremental=True)
    assert keys.tolist() == [1, 2, 3] and values.tolist() == [[1, 1], [2, 2], [3, 3]] and status.tolist() == [1] * 3
    m.erase(_keys(2))
    m.put(_keys(3), Tensor(np.array([[9, 9]], np.float32)))
    keys, values, status = m.export_data(incremental=True)
    assert keys.tolist() == [2, 3] and values.tolist() == [[0, 0], [9, 9]] and status.tolist() == [2, 1]
    keys, values, status = m.export_data()
    assert keys.tolist() == [1, 3] and status.tolist() == [0, 0]
    other = m.clone()
    assert other.get_keys().asnumpy().tolist() == [] and other.default_value == 0.0
    other.import_data((np.array([5, 1], np.int32), np.array([[5, 5], [1, 1]], np.float32), np.array([1, 2])))
    np.testing.assert_array_equal(other.get(_keys(5)).asnumpy(), [[5, 5]])
    assert other.get_keys().asnumpy().tolist() == [5]


class _Embedding(nn.Cell):
    def __init__(self):
        super().__init__()
        self.table = MapParameter(key_dtype=ms.int32, value_dtype=ms.float32, value_shape=(2,), default_value="ones")

    def construct(self, keys, values):
        self.table.put(keys, values)
        return self.table.get(keys) * 2


def test_map_parameter_in_a_cell():
    net = _Embedding()
    out = net(_keys(4), Tensor(np.array([[2.0, 3.0]], np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [[4.0, 6.0]])
    assert any(p is net.table for p in net.get_parameters())
