"""mindspore.hal.contiguous_tensors_handle: tensors in one contiguous buffer, sliced by element or by tensor."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor
from mindseed.hal.contiguous_tensors_handle import ContiguousTensorsHandle, combine_tensor_list_contiguous


def _parts():
    return (np.array([5.0, 7.0, 9.0], np.float32), np.arange(6, dtype=np.float32).reshape(2, 3),
            np.array([-1.0], np.float32))


def test_slices_by_element_and_by_tensor():
    arrays = _parts()
    tensors = [Tensor(a) for a in arrays]
    h = combine_tensor_list_contiguous(tensors, True)
    flat = np.concatenate([a.ravel() for a in arrays])
    assert h.before_padding_sizes == h.after_padding_sizes == [12, 24, 4]
    assert h.total_padding_size == 40 and h.handle_shape == 10.0
    np.testing.assert_array_equal(h[1].asnumpy(), flat[1:2])
    np.testing.assert_array_equal(h[2:7].asnumpy(), flat[2:7])
    np.testing.assert_array_equal(h[4:].asnumpy(), flat[4:])
    np.testing.assert_array_equal(h.slice_by_tensor_index(1).asnumpy(), arrays[1].ravel())
    np.testing.assert_array_equal(h.slice_by_tensor_index(0, 2).asnumpy(), flat[:9])
    np.testing.assert_array_equal(h.slice_by_tensor_index().asnumpy(), flat)
    # the tensors keep their values and shapes (now views of the buffer)
    for t, a in zip(tensors, arrays):
        np.testing.assert_array_equal(t.asnumpy(), a)
    assert str(h).startswith("Handle total size: 40\nTensor[0]: [5. 7. 9.]\n")
    h2 = ContiguousTensorsHandle((Tensor(np.array([1, 2], np.int32)), Tensor(np.array([3], np.int32))))
    assert h2.handle_shape == 3.0 and h2[2].dtype == ms.int32


def test_bad_arguments():
    h = combine_tensor_list_contiguous([Tensor(a) for a in _parts()])
    for item, kind, text in ((slice(0, 20), ValueError, "slice input error"),
                             (slice(3, 2), ValueError, "slice input error"),
                             (-1, ValueError, "out of tensor_list size"), (10, ValueError, "out of tensor_list size"),
                             ("a", TypeError, "slice input must be")):
        with pytest.raises(kind, match=text):
            h[item]
    with pytest.raises(ValueError, match="slice input error"):
        h.slice_by_tensor_index(2, 5)
    with pytest.raises(TypeError, match="slice input error"):
        h.slice_by_tensor_index(1.0)
    with pytest.raises(TypeError, match=r"input list must be \[Tensor, ...\]"):
        combine_tensor_list_contiguous([1])
    with pytest.raises(TypeError, match="enable_mem_align must be bool"):
        combine_tensor_list_contiguous([Tensor([1.0])], 1)
    with pytest.raises(TypeError, match="dtype of the first"):
        combine_tensor_list_contiguous([Tensor([1.0]), Tensor([1])])
