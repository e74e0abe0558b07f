import numpy as np
import pytest

import mindseed as ms
from mindseed.common import np_dtype

pytest.importorskip("ml_dtypes")


def test_np_dtype_bfloat16_is_a_numpy_dtype():
    x = np.array([1, 2.5, -3], dtype=np_dtype.bfloat16)
    assert x.dtype == np_dtype.bfloat16 and "bfloat16" in np_dtype.__all__
    np.testing.assert_array_equal(np.add(x, x).astype(np.float32), [2, 5, -6])


def test_bfloat16_tensor_round_trips_through_numpy():
    t = ms.Tensor([1.2, 3.0, -0.5], ms.bfloat16)
    a = t.asnumpy()
    assert a.dtype == np_dtype.bfloat16
    # 1.2 rounds to the nearest bfloat16, 1.203125
    np.testing.assert_array_equal(a.astype(np.float32), [1.203125, 3.0, -0.5])
    back = ms.Tensor(a)
    assert back.dtype == ms.bfloat16
    np.testing.assert_array_equal(back.astype(ms.float32).asnumpy(), [1.203125, 3.0, -0.5])


def test_scalar_conversions_of_many_elements_are_value_errors():
    x = ms.Tensor([1, 2, 3], ms.bfloat16)
    with pytest.raises(ValueError, match="Only one element tensors can be converted to Python scalars"):
        int(x)
    with pytest.raises(ValueError, match="Only one element tensors can be converted to Python scalars"):
        float(ms.Tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="Only integer tensors of a single element can be converted to an index"):
        _ = [1, 2, 3][ms.Tensor(1.0)]
    assert int(ms.Tensor([2], ms.bfloat16)) == 2 and float(ms.Tensor(1.5, ms.bfloat16)) == 1.5
    assert [1, 2, 3][ms.Tensor(2, ms.int32)] == 3
