"""Parameter's argument checks and scalar rules (as MindSpore 2.10)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor


def test_parameter_rejects_bool_data():
    with pytest.raises(ValueError, match="can not be `bool`"):
        Parameter(True, name="b")


@pytest.mark.parametrize("key", ["layerwise_parallel", "parallel_optimizer"])
@pytest.mark.parametrize("bad", [None, 3, "x", (1,), Tensor(1)])
def test_parameter_flag_must_be_bool(key, bad):
    with pytest.raises(TypeError, match=f"`{key}` must be bool"):
        Parameter(Tensor([1.0]), name="p", **{key: bad})
    p = Parameter(Tensor([1.0]), name="p", **{key: True})
    assert getattr(p, key) is True
    with pytest.raises(TypeError, match=f"`{key}` must be bool"):
        setattr(p, key, bad)


def test_python_scalar_parameter_dtypes():
    assert Parameter(1, "i").dtype == ms.int32
    assert Parameter(0.5, "f").dtype == ms.float32
    assert Parameter(np.float64(2.0), "f").dtype == ms.float32     # a float subclass
    assert Parameter([1, 2], "l").dtype == ms.int64


def test_set_data_scalar_rules():
    p = Parameter(1, "i")
    p.set_data(2)
    np.testing.assert_array_equal(p.asnumpy(), np.array(2, np.int32))
    with pytest.raises(TypeError, match="Current dtype is Int32, and incoming is Float"):
        p.set_data(1.2)
    p.set_data(Tensor(3.7))          # a Tensor is cast
    assert p.asnumpy() == 3 and p.dtype == ms.int32
    for bad in (np.float32(1.5), np.int64(3), [1]):
        with pytest.raises(TypeError, match="Parameter data must be"):
            p.set_data(bad)
    f = Parameter(0.5, "f")
    f.set_data(1)
    f.set_data(True)
    np.testing.assert_array_equal(f.asnumpy(), np.array(1.0, np.float32))
    f.set_data(0.8)
    np.testing.assert_allclose(f.asnumpy(), np.float32(0.8))
