"""mindspore.parallel._utils helpers: the checkpoint-slice planner `_infer_rank_list`."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.parallel._utils import _infer_rank_list


@pytest.fixture(autouse=True)
def _context():
    yield
    ms.reset_auto_parallel_context()


def test_rank_list_without_predict_map_keeps_distinct_slices():
    # dev_mat [4, 8]: tensor dim 1 cut along device axis 0 (the 8), axis 1 (the 4) repeats the slices
    ranks, exact = _infer_rank_list({"w": [[4, 8], [-1, 0]]})["w"]
    assert ranks.tolist() == list(range(8)) and exact is False
    ranks, _ = _infer_rank_list({"w": [[4, 8], [1, -1]]})["w"]
    assert ranks.tolist() == [0, 8, 16, 24]
    ranks, _ = _infer_rank_list({"w": [[2, 2, 2], [2, 0]]})["w"]
    np.testing.assert_array_equal(ranks, np.arange(8).reshape(2, 2, 2)[:, 0, :].flatten())
    ranks, _ = _infer_rank_list({"w": [[8], [-1, -1]]})["w"]
    assert ranks.tolist() == [0]


@pytest.mark.parametrize("predict, expect", [
    ([[4, 8], [-1, 0]], ([0], True)),          # the same layout: this rank's own slice
    ([[8], [-1, 0]], ([0], True)),             # the same cut on fewer devices: one slice each
    ([[2, 2], [1, 0]], (list(range(8)), False)),
])
def test_rank_list_with_predict_map(predict, expect):
    ranks, exact = _infer_rank_list({"w": [[4, 8], [-1, 0]]}, {"w": predict})["w"]
    assert list(ranks) == expect[0] and exact is expect[1]


def test_rank_list_single_slice_and_missing_parameter():
    assert _infer_rank_list({"w": [[8], [-1, -1]]}, {"w": [[8], [-1, -1]]}) == {"w": ([0], True)}
    plan = _infer_rank_list({"w": [[8], [-1, -1]], "b": [[8], [0]]}, {"w": [[2, 2], [-1, -1]]})
    assert list(plan) == ["w"] and plan["w"][0].tolist() == [0] and plan["w"][1] is True


def test_rank_list_uses_the_rank_within_its_pipeline_stage():
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=8, global_rank=6, pipeline_stages=2)
    assert _infer_rank_list({"w": [[4], [0]]}, {"w": [[4], [0]]}) == {"w": ([2], True)}
    ranks, exact = _infer_rank_list({"w": [[2, 4], [-1, 0]]}, {"w": [[4], [-1, 0]]})["w"]
    assert list(ranks) == [2] and exact is True
