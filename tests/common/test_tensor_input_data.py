"""What Tensor(input_data) accepts: empty data is float32; ragged sequences, non-numbers and numpy object or
structured arrays are MindSpore's TypeErrors."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor


def test_empty_data_shapes_and_dtypes():
    assert (Tensor([]).shape, Tensor([]).dtype) == ((0,), ms.float32)
    assert (Tensor([[], []]).shape, Tensor([[], []]).dtype) == ((2, 0), ms.float32)
    t = Tensor([[[], []], [[], []]], dtype=ms.int32)
    assert (t.shape, t.dtype) == ((2, 2, 0), ms.int32)
    t = Tensor(np.array([[[], []], [[], []], [[], []]]), dtype=ms.uint8)
    assert (t.shape, t.dtype) == ((3, 2, 0), ms.uint8)
    assert Tensor([True, False]).dtype == ms.bool_ and Tensor([1, 2]).dtype == ms.int64


@pytest.mark.parametrize("data", [[[3], [[4]]], [[3], [4, 5]], [[], [4]], [[], None], [None, []], [1, None], ["a"],
                                  [np.ones(2), np.ones(3)]])
def test_ragged_or_non_numeric_sequences(data):
    with pytest.raises(TypeError, match="For Tensor, the input_data is .* that contain unsupported element"):
        Tensor(data)


def test_numpy_object_and_structured_arrays():
    with pytest.raises(TypeError, match="(?s)initializing tensor by numpy array failed, numpy array: .*data type: "
                                        "object"):
        Tensor(np.array([[1, 2], [3, 4]], dtype=object))
    structured = np.array([("x", 1), ("y", 2)], dtype=[("name", "<U10"), ("value", "<i4")])
    with pytest.raises(TypeError, match="initializing tensor by numpy array failed, because the element type "
                                        ".<class .numpy.void.>."):
        Tensor(structured)


def test_tensor_from_platform_alias_integer_dtypes():
    # np.ulonglong / np.longlong are distinct numpy types from np.uint64 / np.int64 on Linux
    big = 2 ** 63 + 5
    t = ms.Tensor(np.array([1, big], dtype=np.ulonglong))
    assert t.dtype == ms.uint64
    np.testing.assert_array_equal(t.asnumpy(), np.array([1, big], dtype=np.uint64))
    s = ms.Tensor(np.array([-3, 7], dtype=np.longlong))
    assert s.dtype == ms.int64
    assert (s + 1).asnumpy().tolist() == [-2, 8]
