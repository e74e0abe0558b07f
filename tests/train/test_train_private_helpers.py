"""Private helpers of mindspore.train that MindSpore's own code and tools import."""
import os
import struct

import numpy as np
import pytest

import mindseed as ms
from mindseed.train import summary_pb2
from mindseed.train._utils import _construct_tensor_list
from mindseed.train.summary._summary_adapter import _calc_histogram_bins
from mindseed.train.summary.summary_record import SummaryRecord, _cache_summary_tensor_data


def test_construct_tensor_list_zero_tensors_of_the_dataset_columns():
    tensors = _construct_tensor_list((ms.float32, ms.int32), ((2, 3), (4,)), batch_expand_num=2)
    assert [t.shape for t in tensors] == [(4, 3), (8,)]
    assert [t.dtype for t in tensors] == [ms.float32, ms.int32]
    assert all(t.virtual_flag for t in tensors)
    np.testing.assert_array_equal(tensors[0].asnumpy(), np.zeros((4, 3), np.float32))
    with pytest.raises(ValueError, match="length of dataset types must be equal to dataset shapes"):
        _construct_tensor_list((ms.float32, ms.float32), ((1, 3),))


def _read_events(path):
    events = []
    with open(path, "rb") as f:
        while True:
            header = f.read(8)
            if not header:
                return events
            n = struct.unpack("Q", header)[0]
            f.read(4)
            events.append(summary_pb2.Event.FromString(f.read(n)))
            f.read(4)


def test_cached_summary_values_are_written_and_read_back_with_summary_pb2(tmp_path):
    assert [_calc_histogram_bins(n) for n in (0, 3, 8, 50, 880, 10 ** 6)] == [1, 2, 3, 6, 89, 90]
    values = np.arange(100, dtype=np.float32)
    with SummaryRecord(str(tmp_path), file_suffix="_MS_T") as writer:
        assert _cache_summary_tensor_data([{"name": "w[:Histogram]", "data": ms.Tensor(values)},
                                           {"name": "loss[:Scalar]", "data": ms.Tensor(np.float32(0.5))}]) is True
        writer.record(step=3)
    files = [f for f in os.listdir(tmp_path) if f.endswith("_MS_T")]
    events = _read_events(tmp_path / files[0])
    assert events[0].version.startswith("MindSpore.Event")
    by_tag = {v.tag: v for v in events[1].summary.value}
    assert events[1].step == 3 and by_tag["loss"].scalar_value == 0.5
    hist = by_tag["w"].histogram
    assert hist.count == 100 and len(hist.buckets) == _calc_histogram_bins(100)
    assert sum(b.count for b in hist.buckets) == 100 and (hist.min, hist.max, hist.sum) == (0.0, 99.0, 4950.0)
