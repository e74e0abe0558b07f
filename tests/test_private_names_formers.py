"""MindSpore private and internal names mindformers 2.1.0 imports on its way in, with MindSpore 2.10's behaviour
(values checked against MindSpore 2.10 on CPU)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn


def test_cost_model_context_defaults_setters_and_reset():
    from mindseed.parallel import _cost_model_context as c
    assert c.get_cost_model_context("costmodel_beta") == 400.0
    assert c.get_cost_model_context("device_memory_capacity") == 17179869184.0
    assert c._get_multi_subgraphs() is False and c._get_algo_single_loop() is False
    c._set_multi_subgraphs()
    c._set_rp_matmul_mem_coef(0.5)
    c.set_cost_model_context(costmodel_alpha=2.0, run_phase=1)
    assert c._get_multi_subgraphs() is True and c._get_rp_matmul_mem_coef() == 0.5
    assert c.get_cost_model_context("costmodel_alpha") == 2.0 and c.get_cost_model_context("run_phase") == 1
    with pytest.raises(ValueError, match="not recognized"):
        c.set_cost_model_context(no_such_key=1)
    with pytest.raises(ValueError, match="run_phase"):
        c.set_cost_model_context(run_phase=2)
    with pytest.raises(TypeError, match="dp_algo_single_loop"):
        c._set_algo_single_loop(1)
    c.reset_cost_model_context()
    assert c.get_cost_model_context("costmodel_alpha") == 1.0 and c._get_multi_subgraphs() is False


def test_parallel_utils_queries():
    from mindseed.parallel import _utils as u
    assert u._is_sharding_propagation() is False and u._get_pipeline_stages() == 1
    assert u._get_enable_parallel_optimizer() is False
    ms.set_auto_parallel_context(search_mode="sharding_propagation", pipeline_stages=2)
    try:
        assert u._is_sharding_propagation() is True and u._get_pipeline_stages() == 2
    finally:
        ms.reset_auto_parallel_context()


def test_cell_attr_register_records_the_arguments():
    from mindseed._extends import cell_attr_register

    class Block(nn.Cell):
        @cell_attr_register
        def __init__(self, width, act="relu"):
            super().__init__()
            self.width = width

    class Named(nn.Cell):
        @cell_attr_register(attrs=["width"])
        def __init__(self, width):
            super().__init__()
            self.width = width

    assert Block(3).cell_init_args == "Block" + str({"width": 3}.values())     # the arguments given
    assert Block(3, act="gelu").cell_init_args == "Block" + str({"width": 3, "act": "gelu"}.values())
    assert Named(5).cell_init_args == "Named[5]"
    with pytest.raises(ValueError, match="attrs must be list or string"):
        cell_attr_register(attrs=3)(Block.__init__.__wrapped__)(Block.__new__(Block), 1)


def test_c_expression_context_and_types():
    from mindseed._c_expression import MSContext, ms_ctx_param, typing
    ctx = MSContext.get_instance()
    assert ctx is MSContext.get_instance()
    assert ctx.get_param(ms_ctx_param.mode) == ms.get_context("mode")
    assert ctx.get_param(ms_ctx_param.device_target) == "CPU"
    assert ctx.get_ascend_soc_version() == "" and ctx.is_pkg_support_device("CPU")
    assert not ctx.is_pkg_support_device("Ascend")
    assert isinstance(ms.float32, typing.Float) and isinstance(ms.bfloat16, typing.BFloat)
    assert not isinstance(ms.bfloat16, typing.Float) and typing.kFloat32 == ms.float32


def test_comm_helper_before_init():
    from mindseed.communication import _comm_helper as h
    from mindseed._backend.kernels import comm as K
    if K.is_initialized():
        pytest.skip("communication was initialized by an earlier test in this process")
    assert h._is_initialized() is False and h._get_group_map() == {}


def test_node_strategy_messages_round_trip():
    from mindseed.train import node_strategy_pb2 as pb
    m = pb.ParallelStrategyMap(current_stage=0)
    item = m.parallel_layout_item.add(param_name="w")
    item.parallel_layouts.dev_matrix.add(dim=[2, 4])
    item.parallel_layouts.tensor_map.add(dim=[1, -1])
    item.parallel_layouts.field, item.parallel_layouts.opt_weight_shard_step = 0, 0
    item.parallel_layouts.opt_weight_shard_size = 0
    back = pb.ParallelStrategyMap.FromString(m.SerializeToString())
    assert list(back.parallel_layout_item[0].parallel_layouts.tensor_map[0].dim) == [1, -1]
    assert pb.ParallelStrategyMap.DESCRIPTOR.full_name == "mindspore.straspb.ParallelStrategyMap"


def test_distributed_tensor_info_and_strategy_metadata():
    from mindseed.parallel import Layout
    from mindseed.parallel.shard import _DistributedTensorInfo
    from mindseed.parallel import strategy
    layout = Layout((2, 4), ("dp", "mp"))
    assert _DistributedTensorInfo(layout("mp", "None")).sharding_strategy == [4, 1]
    assert _DistributedTensorInfo(layout(("dp", "mp"), "None")).sharding_strategy == [8, 1]
    with pytest.raises(TypeError, match="Layout"):
        _DistributedTensorInfo((2, 4))
    net = nn.Dense(2, 3)
    strategy.enable_save_strategy_online()
    assert strategy.get_strategy_metadata(net) is None and strategy.get_current_strategy_metadata(net) is None
    strategy.clear_strategy_metadata()
    with pytest.raises(TypeError, match="network"):
        strategy.get_strategy_metadata("net")


def test_morph_is_a_primitive_run_in_graph_mode():
    from mindseed.ops.operations import Morph

    def scale(x):
        return x * 100

    morph = Morph(scale, lambda s: s, lambda t: t).add_prim_attr("self_define_shard", True)
    assert morph.attrs["self_define_shard"] is True
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    with pytest.raises(RuntimeError, match="GRAPH_MODE"):
        morph(x)
    np.testing.assert_allclose(ms.jit(lambda v: morph(v) + 1)(x).asnumpy(), [101, 201])


def test_small_module_level_names():
    from mindseed.dataset.transforms import TypeCast
    from mindseed.dataset.transforms.transforms import TypeCast as TypeCast2
    from mindseed.ops.composite import add_flags
    from mindseed.train.callback import _callback

    def f():
        return 1
    assert add_flags(f, has_effect=True) is f and add_flags(has_effect=False)(f) is f
    assert TypeCast2 is TypeCast
    net = nn.Dense(1, 1)
    _callback.set_cur_net(net)
    assert _callback.CUR_NET is net


def test_swap_cache_copies_blocks_in_place():
    from mindseed._c_expression import swap_cache
    host = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    device = ms.Tensor(np.zeros((3, 4), np.float32))
    swap_cache(host, device, ms.Tensor(np.array([[2, 0], [0, 1]], np.int64)), False)
    np.testing.assert_array_equal(device.asnumpy(), [[8, 9, 10, 11], [0, 1, 2, 3], [0, 0, 0, 0]])
    swap_cache(host, device, ms.Tensor(np.array([[1, 2]], np.int64)), True)
    np.testing.assert_array_equal(host.asnumpy()[2], [0, 1, 2, 3])


def test_file_system_auto_parallel_context_and_dataset_module():
    from mindseed.common import file_system
    from mindseed.dataset import BatchDataset
    from mindseed.dataset.engine import datasets
    from mindseed.parallel._auto_parallel_context import auto_parallel_context
    assert file_system.mindio_preload("net.ckpt") is False          # no MindIO installed
    with pytest.raises(TypeError, match="ckpt_file_name"):
        file_system.mindio_preload(3)
    file_system.set_mindio_server_info(8)
    assert file_system.mindio_server_info["memfs.data_block_pool_capacity_in_gb"] == "8"
    with pytest.raises((TypeError, ValueError)):
        file_system.set_mindio_server_info(0)
    ctx = auto_parallel_context()
    assert ctx.get_pipeline_stages() == 1 and ctx.get_strategy_search_mode() == "recursive_programming"
    ctx.set_pipeline_stages(2)
    try:
        assert ms.get_auto_parallel_context("pipeline_stages") == 2
    finally:
        ms.reset_auto_parallel_context()
    assert datasets.BatchDataset is BatchDataset
