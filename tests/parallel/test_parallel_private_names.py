"""The private `mindspore.parallel._*` helpers MindSpore's own test suites call: the auto-parallel context object's
fusion switches, operator-id reset and the optimizer-shard rank list."""
import pytest

import mindseed as ms
from mindseed.parallel._auto_parallel_context import auto_parallel_context
from mindseed.parallel._parallel_serialization import _get_param_list_when_first_dim_sharded
from mindseed.parallel._utils import _reset_op_id


def test_fusion_switches_of_the_context_object():
    ctx = auto_parallel_context()
    try:
        assert (ctx.get_enable_all_reduce_fusion(), ctx.get_enable_all_gather_fusion(),
                ctx.get_enable_reduce_scatter_fusion()) == (False, False, False)
        ctx.set_enable_all_reduce_fusion(enable_all_reduce_fusion=True)    # by keyword, as MindSpore's tests call it
        ctx.set_enable_reduce_scatter_fusion(True)
        assert ctx.get_enable_all_reduce_fusion() and ctx.get_enable_reduce_scatter_fusion()
        with pytest.raises(TypeError, match="set_enable_all_gather_fusion.*must be bool"):
            ctx.set_enable_all_gather_fusion(1)
        with pytest.raises(ValueError, match="enable_all_reduce_fusion is not recognized"):
            ms.get_auto_parallel_context("enable_all_reduce_fusion")    # a switch, not a context key
        ms.reset_auto_parallel_context()
        assert not ctx.get_enable_all_reduce_fusion()
        ms.set_auto_parallel_context(comm_fusion={"allgather": {"mode": "auto", "config": None}})
        assert ctx.get_enable_all_gather_fusion() and not ctx.get_enable_reduce_scatter_fusion()
        ctx.set_pipeline_stages(pipeline_stages=2)                         # keyword form of any setter
        assert ms.get_auto_parallel_context("pipeline_stages") == 2
        with pytest.raises(TypeError, match="exactly one argument"):
            ctx.set_pipeline_stages()
    finally:
        ms.reset_auto_parallel_context()


def test_reset_op_id_keeps_the_context():
    ms.set_auto_parallel_context(device_num=4)
    try:
        assert _reset_op_id() is None
        assert ms.get_auto_parallel_context("device_num") == 4
    finally:
        ms.reset_auto_parallel_context()


@pytest.mark.parametrize("arrangement, index, rank, expected", [
    ([2, 2], 1, 0, [0, 1]),
    ([2, 2], 1, 3, [2, 3]),
    ([2, 2, 2], 2, 6, [4, 5, 6, 7]),
    ([2, 2, 2], 0, 5, list(range(8))),     # split along an inner axis: every rank
    ([4, 8], 1, 19, [16, 17, 18, 19, 20, 21, 22, 23]),
])
def test_param_list_when_first_dim_sharded(arrangement, index, rank, expected):
    assert _get_param_list_when_first_dim_sharded(arrangement, index, rank) == expected
