"""nn.GetNextSingleOp: the next element of a data queue, as ops.GetNext gives it."""
import numpy as np
import pytest

import mindseed as ms
import mindseed.dataset as ds


def test_get_next_single_op_reads_batches_in_order():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    data = ds.NumpySlicesDataset({"x": x, "y": np.arange(6, dtype=np.int32)}, shuffle=False).batch(3)
    types, shapes = ms.train.DatasetHelper(data, dataset_sink_mode=True).types_shapes()
    data.device_que(queue_name="test_get_next_single_op")
    net = ms.nn.GetNextSingleOp(types, shapes, "test_get_next_single_op")
    first, second = net(), net()
    np.testing.assert_array_equal(first[0].asnumpy(), x[:3])
    np.testing.assert_array_equal(second[1].asnumpy(), [3, 4, 5])
    assert ms.ops.relu(second[0] - 8).asnumpy().sum() == pytest.approx(1 + 2 + 3)


def test_get_next_single_op_bad_input():
    with pytest.raises(TypeError, match="'types' must be a list or tuple"):
        ms.nn.GetNextSingleOp(ms.int32, [()], "q")
    with pytest.raises(ValueError, match="'types length' must be equal to 'shapes length'"):
        ms.nn.GetNextSingleOp([ms.int32], [(), ()], "q")
    with pytest.raises(RuntimeError, match="no data queue named 'nowhere_single'"):
        ms.nn.GetNextSingleOp([ms.int32], [()], "nowhere_single")()
