"""Private helpers of mindspore.train that MindSpore's own code and tools import."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.train._utils import _construct_tensor_list


def test_construct_tensor_list_zero_tensors_of_the_dataset_columns():
    tensors = _construct_tensor_list((ms.float32, ms.int32), ((2, 3), (4,)), batch_expand_num=2)
    assert [t.shape for t in tensors] == [(4, 3), (8,)]
    assert [t.dtype for t in tensors] == [ms.float32, ms.int32]
    assert all(t.virtual_flag for t in tensors)
    np.testing.assert_array_equal(tensors[0].asnumpy(), np.zeros((4, 3), np.float32))
    with pytest.raises(ValueError, match="length of dataset types must be equal to dataset shapes"):
        _construct_tensor_list((ms.float32, ms.float32), ((1, 3),))
