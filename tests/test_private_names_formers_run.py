"""The MindSpore names mindformers 2.1.0 needs past its first imports to import whole and to train its Llama, with
MindSpore 2.10's behaviour (values and messages checked against MindSpore 2.10 on CPU)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops


def test_dataset_classes_have_mindspores_base_classes():
    import mindseed.dataset as ds
    # MindSpore 2.10's method resolution orders, restricted to its base classes
    expected = {
        "GeneratorDataset": ["MappableDataset", "SourceDataset", "UnionBaseDataset", "VisionBaseDataset",
                             "TextBaseDataset", "AudioBaseDataset"],
        "MnistDataset": ["MappableDataset", "SourceDataset", "VisionBaseDataset"],
        "TextFileDataset": ["SourceDataset", "TextBaseDataset"],
        "LJSpeechDataset": ["MappableDataset", "SourceDataset", "AudioBaseDataset"],
        "IMDBDataset": ["MappableDataset", "SourceDataset", "TextBaseDataset"],
    }
    bases = {"MappableDataset": ds.MappableDataset, "SourceDataset": ds.SourceDataset,
             "UnionBaseDataset": ds.UnionBaseDataset, "VisionBaseDataset": ds.VisionBaseDataset,
             "TextBaseDataset": ds.TextBaseDataset, "AudioBaseDataset": ds.AudioBaseDataset}
    for name, chain in expected.items():
        found = [next(k for k, v in bases.items() if v is b) for b in getattr(ds, name).__mro__
                 if b in bases.values()]
        assert found == chain, name
    data = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
    batched = data.batch(2)     # (one consumer: MindSpore refuses a node feeding two pipelines)
    assert isinstance(data, ds.SourceDataset) and not isinstance(batched, ds.SourceDataset)
    assert [r["x"].tolist() for r in batched.create_dict_iterator(output_numpy=True)] == [[0, 1], [2, 3]]


def test_ops_communication_is_the_torch_style_collectives():
    from mindseed.mint.distributed import distributed
    from mindseed.ops import communication
    for name in ("all_reduce", "all_gather_into_tensor", "barrier", "gather", "scatter", "P2POp", "new_group"):
        assert getattr(communication, name) is getattr(distributed, name)
    assert ops.all_reduce is communication.all_reduce
    assert ops.gather is not communication.gather           # ops.gather stays the indexing op
    assert set(communication.__all__) >= {"gather_into_tensor", "scatter_tensor", "all_to_all_v_c"}


def test_pynative_executor_enable_grad_is_the_no_grad_switch():
    from mindseed.common.api import _pynative_executor as executor
    x = ms.Tensor(2.0)
    assert executor.enable_grad() is True and executor.grad_flag() is False
    executor.set_enable_grad(False)
    try:
        assert executor.enable_grad() is False
        with pytest.raises(RuntimeError, match="no_grad"):
            ms.grad(lambda v: v * v)(x)
        with pytest.raises(RuntimeError, match="no_grad"):
            ms.value_and_grad(lambda v: v * v)(x)
    finally:
        executor.set_enable_grad(True)
    flags = []

    def f(v):
        flags.append(executor.grad_flag())
        executor.set_enable_grad(False)
        y = v * v                       # not recorded: a constant for the gradient
        executor.set_enable_grad(True)
        return y + v * 3
    assert float(ms.grad(f)(x).asnumpy()) == 3.0 and flags == [True]     # MindSpore 2.10: 3.0
    assert executor.sync() is None and executor.set_async_for_graph(True) is None
    with pytest.raises(TypeError, match="set_async_for_graph"):
        executor.set_async_for_graph(1)


def test_flops_collection_in_common_api():
    from mindseed.common import api
    assert api.flops_collection is ms.flops_collection


LAYOUT = {"a": [[2, 4], [1, -1], [1, 4], 0, True, ""], "b": [[2, 4], [-1, 0], [2, 2], 0, True, ""],
          "c": [[2, 2, 2], [0, 2, -1], [], 0, True, ""], "d": [[2, 2, 2], [1, 2], [], 0, True, ""],
          "e": [[8], [-1], [], 0, True, ""]}


def test_parameter_redundancy_maps_as_mindspore_builds_them():
    from mindseed.train._utils import get_parameter_redundancy, remove_param_redundancy
    red = get_parameter_redundancy(LAYOUT, 0)
    assert red == {"a": ((0, 1, 2, 3), (4, 5, 6, 7)), "b": ((0, 4), (1, 5), (2, 6), (3, 7)),
                   "c": ((0, 2), (4, 6), (1, 3), (5, 7)), "d": ((0, 1), (4, 5), (2, 3), (6, 7)),
                   "e": ((0, 1, 2, 3, 4, 5, 6, 7),)}
    assert get_parameter_redundancy(LAYOUT, 8)["c"] == ((8, 10), (12, 14), (9, 11), (13, 15))
    assert remove_param_redundancy(red) == {0: {"a", "b", "c", "d", "e"}, 1: {"b", "c"}, 2: {"b", "d"}, 3: {"b"},
                                            4: {"a", "c", "d"}, 5: {"c"}, 6: {"d"}}
    three = remove_param_redundancy(red, 3)
    assert three[3] == {"b", "c", "d"} and three[7] == {"b", "c", "d"} and three[1] == {"a", "b", "c", "d", "e"}


def test_merged_param_data_of_a_whole_parameter_is_itself():
    from mindseed.train.serialization import _get_merged_param_data
    net = nn.Dense(4, 2)
    data = net.weight.value()
    assert _get_merged_param_data(net, {"w": [[2], [-1]]}, "w", data, True) is data          # short layout
    layout = {"w": [[2, 1], [1, -1], [1, 4], 0, True, "", [], []]}                            # cut in two on dim 0
    assert _get_merged_param_data(net, layout, "w", data, True) is data                      # already whole
    assert _get_merged_param_data(net, layout, "w", data, False) is data


def test_squared_device_local_norm_parameter():
    from mindseed.ops._grad_experimental import grad_comm_ops
    with pytest.raises(ValueError, match="dump_device_local_norm"):
        grad_comm_ops.get_squared_device_local_norm_param()
    ms.set_auto_parallel_context(dump_device_local_norm=True)
    try:
        p = grad_comm_ops.get_squared_device_local_norm_param()
        assert isinstance(p, ms.Parameter) and p.name == "_squared_device_local_norm" and not p.requires_grad
        assert p.dtype == ms.float32 and p.shape == () and float(p.asnumpy()) == 0.0
        assert grad_comm_ops.get_squared_device_local_norm_param() is p
    finally:
        ms.reset_auto_parallel_context()
        grad_comm_ops._squared_device_local_norm = None


def _routing_reference(x, idx, capacity=None, active=0):
    """MoeInitRoutingV2 in plain numpy: pairs (token, k) sorted by expert, stable."""
    rows, k = idx.shape
    flat = idx.reshape(-1)
    order = sorted(range(flat.size), key=lambda i: (flat[i], i))
    row_idx = np.empty(flat.size, np.int64)
    if capacity is None:
        for pos, i in enumerate(order):
            row_idx[i] = pos
        n = flat.size if active == 0 else min(active, flat.size)
        return x[[i // k for i in order[:n]]], row_idx
    experts = int(flat.max()) + 1
    out = np.zeros((experts, capacity, x.shape[1]), x.dtype)
    seen = [0] * experts
    for i in order:
        e = flat[i]
        if seen[e] < capacity:
            out[e, seen[e]] = x[i // k]
            row_idx[i] = e * capacity + seen[e]
        else:
            row_idx[i] = -1
        seen[e] += 1
    return out, row_idx


def test_moe_init_routing_v2_against_numpy():
    from mindseed.ops.auto_generate import MoeInitRoutingV2, MoeTokenUnpermute
    # MindSpore's documented example (Drop/Pad mode)
    x = np.array([[0.1, 0.2, 0.3], [0.2, 0.7, 0.8], [0.3, 0.3, 0.5]], np.float32)
    idx = np.array([[0, 1, 1], [2, 1, 1], [0, 0, 0]], np.int32)
    out, row = ops.moe_init_routing_v2(ms.Tensor(x), ms.Tensor(idx), 3, 2, 3, 1, 0, False)
    np.testing.assert_array_equal(row.asnumpy(), [0, 2, 3, 4, -1, -1, 1, -1, -1])
    np.testing.assert_array_equal(out.asnumpy(), _routing_reference(x, idx, capacity=2)[0])
    _, _, before = ops.moe_init_routing_v2(ms.Tensor(x), ms.Tensor(idx), 3, 2, 3, 1, 0, True)
    np.testing.assert_array_equal(before.asnumpy(), [4, 4, 1])
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 8)).astype(np.float32)
    idx = rng.integers(0, 4, (6, 2)).astype(np.int32)
    ref_x, ref_row = _routing_reference(x, idx)
    expanded, row, cum = ops.moe_init_routing_v2(ms.Tensor(x), ms.Tensor(idx), 0, 0, 4, 0, 1, False)
    np.testing.assert_array_equal(expanded.asnumpy(), ref_x)
    np.testing.assert_array_equal(row.asnumpy(), ref_row)
    counts = np.bincount(idx.reshape(-1), minlength=4)
    np.testing.assert_array_equal(cum.asnumpy(), np.cumsum(counts))
    outs = MoeInitRoutingV2()(ms.Tensor(x), ms.Tensor(idx), 5, 0, 4, 0, 2, False)     # active: the first 5 rows
    assert len(outs) == 4
    np.testing.assert_array_equal(outs[0].asnumpy(), _routing_reference(x, idx, active=5)[0])
    np.testing.assert_array_equal(outs[2].asnumpy(), counts)
    # unpermuting the routed rows with the routing weights gives back the weighted sum per token
    probs = rng.random((6, 2)).astype(np.float32)
    back = MoeTokenUnpermute()(expanded, row, ms.Tensor(probs))
    np.testing.assert_allclose(back.asnumpy(), x * probs.sum(1, keepdims=True), rtol=1e-6)
    with pytest.raises(ValueError, match="expert_capacity"):
        ops.moe_init_routing_v2(ms.Tensor(x), ms.Tensor(idx), 0, 7, 4, 1, 0, False)
    with pytest.raises(ValueError, match="expert_num"):
        ops.moe_init_routing_v2(ms.Tensor(x), ms.Tensor(idx), 0, 0, 3, 0, 1, False)
    with pytest.raises(TypeError, match="expert_idx"):
        ops.moe_init_routing_v2(ms.Tensor(x), ms.Tensor(idx.astype(np.int64)), 0, 0, 4, 0, 0, False)


def test_moe_distribute_primitives_need_an_ascend_soc():
    from mindseed.ops.auto_generate import MoeDistributeCombine, MoeDistributeDispatch
    x = ms.Tensor(np.ones((2, 32), np.float16))
    with pytest.raises(RuntimeError, match="only support \\[ascend910b, ascend910_93\\]"):
        MoeDistributeDispatch()(x, ms.Tensor(np.array([[0], [1]], np.int32)), 1, 0, 2)
    with pytest.raises(RuntimeError, match="MoeDistributeCombine"):
        MoeDistributeCombine()(x, x, x, x, x, 1, 0, 2)


def test_checkparam_check_type_name_check_and_check_float():
    from mindseed import _checkparam as V
    assert V.check_type_name("dtype", ms.float16, [ms.float16, ms.float32], "Linear") == ms.float16
    with pytest.raises(TypeError, match="For 'Linear', the 'dtype' should be one of"):
        V.check_type_name("dtype", ms.int32, [ms.float16, ms.float32], "Linear")
    with pytest.raises(ValueError, match="For 'AdamW', the betas size should be in : \\[2\\], but got 3."):
        V.check("betas size", 3, "", [2], V.IN, "AdamW")
    with pytest.raises(ValueError, match="The 'x' should be = y: 2, but got 3."):
        V.check("x", 3, "y", 2)
    assert V.check("x", 3, "y", 2, V.GE) == 3
    assert V.check_float(1e-8, 0.0, V.GT, "eps", "AdamW") == 1e-8
    with pytest.raises(ValueError, match="eps"):
        V.check_float(0.0, 0.0, V.GT, "eps", "AdamW")
    with pytest.raises(TypeError, match="eps"):
        V.check_float(1, 0.0, V.GT, "eps", "AdamW")


def test_inner_ops_silu_is_the_generated_primitive():
    from mindseed.ops.auto_generate import SiLU
    from mindseed.ops.operations import _inner_ops
    assert _inner_ops.SiLU is SiLU
    x = np.array([-1.0, 0.0, 2.0], np.float32)
    np.testing.assert_allclose(_inner_ops.SiLU()(ms.Tensor(x)).asnumpy(), x / (1 + np.exp(-x)), rtol=1e-6)


def test_cell_phase_is_settable_and_set_train_sets_the_cells_own():
    net = nn.SequentialCell([nn.Dense(2, 2)])
    assert net.phase == "train" and net[0].phase == "train"           # MindSpore's initial phase
    net.set_train(False)
    assert net.phase == "predict" and net[0].phase == "train"
    net[0].phase = "prefill"
    net.set_train(True)
    assert net.phase == "train" and net[0].phase == "prefill"
    with pytest.raises(TypeError, match="'phase' must be string type"):
        net.phase = 3


def test_param_info_holds_a_parameters_attributes():
    p = ms.Parameter(ms.Tensor([1.0]), name="w", requires_grad=False, layerwise_parallel=True)
    info = p.param_info
    assert (info.name, info.requires_grad, info.layerwise_parallel, info.parallel_optimizer) == ("w", False, True, True)
    clone = info.clone()
    q = ms.Parameter(ms.Tensor([2.0]), name="q")
    q.param_info = clone
    assert (q.name, q.requires_grad, q.layerwise_parallel) == ("w", False, True)
    q.name = "adam_m." + q.name                     # the optimizers' way of naming a cloned state
    assert q.name == "adam_m.w" and clone.name == "adam_m.w" and p.name == "w"
    p.requires_grad = True
    assert clone.requires_grad is False
    q.requires_grad_(True)
    assert q.requires_grad is True and clone.requires_grad is True
    with pytest.raises(TypeError, match="param_info"):
        q.param_info = None


def test_train_one_step_cell_graceful_exit_is_off_by_default():
    net = nn.Dense(2, 1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    assert step.use_graceful_exit is False


def test_dropout_layer_holds_its_primitive():
    d = nn.Dropout(p=0.25)
    prim = d.dropout
    assert prim.name == "Dropout" and prim.keep_prob == 0.75 and d.dropout is prim
    prim.shard(((2, 1),))                                   # what model code does with it (mindformers' GLM2)
    assert nn.Dropout(keep_prob=0.9).dropout.keep_prob == pytest.approx(0.9)
    out, mask = nn.Dropout(p=0.5).dropout(ms.Tensor(np.ones((64, 64), np.float32)))
    kept = out.asnumpy() != 0
    assert set(np.unique(out.asnumpy())) <= {0.0, 2.0} and 0.4 < kept.mean() < 0.6
