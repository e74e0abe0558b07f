"""Communication in one process: errors before init, the world of one, the auto-parallel context, grad reducer."""
import re

import numpy as np
import pytest
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests

import mindseed as ms
from mindseed import communication as comm
from mindseed import nn, ops
from mindseed.communication import comm_func


@pytest.fixture
def world():
    """A world of one process for the test; released (and the parallel context reset) afterwards."""
    comm.init()
    yield
    comm.release()
    ms.reset_auto_parallel_context()


@pytest.fixture(autouse=True)
def _restore():
    yield
    comm.release()
    ms.reset_auto_parallel_context()


X = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))


# ---------------------------------------------------------------- before init
@pytest.mark.parametrize("name, call", [
    ("AllReduce", lambda: ops.AllReduce()(X)),
    ("AllGather", lambda: ops.AllGather()(X)),
    ("ReduceScatter", lambda: ops.ReduceScatter()(X)),
    ("Broadcast", lambda: ops.Broadcast(0)((X,))),
    ("Barrier", lambda: ops.Barrier()()),
    ("AllReduce", lambda: comm_func.all_reduce(X)),
])
def test_collective_before_init_raises(name, call):
    with pytest.raises(RuntimeError, match=f"For '{name}', the communication service is not initialized: call "
                                           r"mindspore.communication.init\(\) first."):
        call()


def test_rank_queries_before_init_read_the_environment(monkeypatch):
    # MindSpore 2.10 answers these without init: RANK_ID / RANK_SIZE / LOCAL_RANK(_SIZE), else 0 and 1
    assert (comm.get_rank(), comm.get_group_size(), comm.get_local_rank(), comm.get_local_rank_size()) == (0, 1, 0, 1)
    monkeypatch.setenv("RANK_ID", "3")
    monkeypatch.setenv("RANK_SIZE", "8")
    assert (comm.get_rank(), comm.get_group_size()) == (3, 8)
    assert comm.GlobalComm.INITED is False and comm.GlobalComm.WORLD_COMM_GROUP == "hccl_world_group"


@pytest.mark.parametrize("call", [lambda: comm.create_group("g", [0]), lambda: comm.destroy_group("g"),
                                  lambda: comm.get_world_rank_from_group_rank("g", 0),
                                  lambda: comm.get_group_rank_from_world_rank(0, "g"),
                                  lambda: comm.get_process_group_ranks()])
def test_group_management_before_init_raises(call):
    with pytest.raises(RuntimeError, match=re.escape("Distributed Communication has not been inited.You can't invoke "
                                                     "this interface yet. Please call `init()` method first.")):
        call()


def test_init_errors(monkeypatch):
    with pytest.raises(TypeError, match="For 'init', the argument 'backend_name' must be a string"):
        comm.init(1)
    with pytest.raises(RuntimeError, match="For 'init', the argument 'backend_name' should be 'mccl' to init 'CPU', "
                                           "but got 'hccl'."):
        comm.init("hccl")
    with pytest.raises(RuntimeError, match="must be one of 'hccl', 'nccl' and 'mccl', but got 'backend_name' : x"):
        comm.init("x")
    monkeypatch.setenv("MS_WORKER_NUM", "2")
    with pytest.raises(RuntimeError, match="the rank of this process is unknown"):
        comm.init()
    monkeypatch.setenv("MS_NODE_ID", "5")
    with pytest.raises(RuntimeError, match=r"the rank 5 of this process must be in \[0, 2\)"):
        comm.init()
    assert comm.GlobalComm.INITED is False


# ---------------------------------------------------------------- the world of one
def test_init_without_launcher_is_a_world_of_one(world):
    assert comm.GlobalComm.INITED and comm.GlobalComm.BACKEND == "mccl"
    assert comm.GlobalComm.WORLD_COMM_GROUP == comm.MCCL_WORLD_COMM_GROUP == "mccl_world_group"
    assert (comm.get_rank(), comm.get_group_size(), comm.get_local_rank(), comm.get_local_rank_size()) == (0, 1, 0, 1)
    assert comm.get_process_group_ranks() == [0] and isinstance(comm.get_comm_name(), str)
    comm.init()    # a second init is a no-op
    assert comm.get_group_size() == 1


def _collective(prim):
    return lambda x: prim(x)


SPECS = [OpSpec(f"all_reduce_{op}", _collective(ops.AllReduce(op)), lambda x: x, shapes=[(2, 3)], grad2=True)
         for op in ("sum", "max", "min", "prod", "avg")] + [
    OpSpec("all_gather", _collective(ops.AllGather()), lambda x: x, shapes=[(2, 3)], grad2=True),
    OpSpec("reduce_scatter", _collective(ops.ReduceScatter()), lambda x: x, shapes=[(4, 3)], grad2=True),
    OpSpec("broadcast", lambda x, y: ops.Broadcast(0)((x, y)), lambda x, y: (x, y), shapes=[(2, 3), (3,)]),
    OpSpec("comm_func_all_reduce", lambda x: comm_func.all_reduce(x)[0], lambda x: x, shapes=[(3,)]),
    OpSpec("comm_func_broadcast", lambda x: comm_func.broadcast(x, 0), lambda x: x, shapes=[(3,)]),
]
_test_value, _test_grad, _test_grad2, _test_graph = make_tests(SPECS)


# in a world of one every collective is the identity: its value and gradients are checked by the op harness
test_value = pytest.mark.usefixtures("world")(_test_value)
test_grad = pytest.mark.usefixtures("world")(_test_grad)
test_grad2 = pytest.mark.usefixtures("world")(_test_grad2)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.bool_])
def test_world_of_one_dtypes(world, dtype):
    x = ms.Tensor(np.array([[1, 0, 3]], dtype=dtype))
    for prim in (ops.AllReduce(), ops.AllGather(), ops.ReduceScatter()):
        y = prim(x)
        assert y.dtype == x.dtype and np.array_equal(y.asnumpy(), x.asnumpy())


def test_collectives_stay_in_compiled_graphs(world):
    ar = ops.AllReduce()

    @ms.jit
    def f(x):
        ar(x)                      # result unused: still executed (other processes wait for it)
        return ar(x * 2) + ar(x * 2)

    np.testing.assert_allclose(f(X).asnumpy(), 4 * X.asnumpy())
    source = next(iter(f.cache.values())).source
    assert source.count("k_AllReduce") == 3, source


def test_barrier_and_async_handles(world):
    comm_func.barrier()
    assert ops.Barrier()().shape == (1,)
    out, handle = comm_func.all_reduce(X, async_op=True)
    assert handle.wait() is None and np.array_equal(out.asnumpy(), X.asnumpy())
    assert comm_func.all_reduce(X)[1] is None


def test_user_groups(world):
    comm.create_group("solo", [0])
    assert (comm.get_rank("solo"), comm.get_group_size("solo")) == (0, 1)
    assert comm.get_group_rank_from_world_rank(0, "solo") == 0
    assert comm.get_world_rank_from_group_rank("solo", 0) == 0
    assert comm.get_process_group_ranks("solo") == [0]
    np.testing.assert_array_equal(ops.AllReduce(group="solo")(X).asnumpy(), X.asnumpy())
    with pytest.warns(UserWarning, match="'solo' group has existed."):
        comm.create_group("solo", [0])             # the same ranks again: a warning, no error
    with pytest.raises(ValueError, match="The group solo has been created, the rank_list is"):
        comm.create_group("solo", [0, 0])
    comm.destroy_group("solo")
    with pytest.raises(ValueError, match="For 'get_rank', the communication group 'solo' does not exist"):
        comm.get_rank("solo")


_BAD = ms.Tensor(np.ones((3, 2), np.uint16))
ERRORS = [
    ErrorSpec("all_reduce_op_type", lambda: ops.AllReduce(op=1), TypeError, "For 'AllReduce', the 'op' must be str, "
                                                                            "but got int."),
    ErrorSpec("all_reduce_group_type", lambda: ops.AllReduce(group=1), TypeError,
              "For 'AllReduce', the 'group' must be str, but got int."),
    ErrorSpec("all_reduce_op_value", lambda: ops.AllReduce(op="mean"), ValueError,
              "For 'AllReduce', the 'op' must be one of"),
    ErrorSpec("reduce_scatter_op_type", lambda: ops.ReduceScatter(op=1), TypeError,
              "For 'ReduceScatter', the type of 'op' should be 'str', but got type 'int'."),
    ErrorSpec("all_gather_group_type", lambda: ops.AllGather(group=2), TypeError,
              "For 'AllGather', the type of 'group' should be 'str', but got type 'int'."),
    ErrorSpec("broadcast_root_type", lambda: ops.Broadcast(1.0), TypeError,
              "For 'Broadcast', the type of 'root_rank' should be 'int', but got type 'float'."),
    ErrorSpec("get_rank_group_type", lambda: comm.get_rank(1), TypeError,
              "For 'get_rank', the argument 'group' must be type of string, but got 'group' type : <class 'int'>."),
    ErrorSpec("comm_func_op", lambda: comm_func.all_reduce(X, op="avg"), TypeError,
              "For all_reduce, the input op value must be one of sum, prod, min, max"),
    ErrorSpec("comm_func_tensor", lambda: comm_func.broadcast([1.0]), TypeError,
              "For broadcast, the input tensor must be tensor"),
]
test_errors = make_error_tests(ERRORS)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: ops.AllReduce()(_BAD), TypeError, r"For 'AllReduce', the element of 'x' must be one of .*but got "
                                               r"Tensor\[UInt16\]"),
    (lambda: ops.AllReduce()([1.0]), TypeError, "For 'AllReduce', the 'x' must be a Tensor, but got list."),
    (lambda: ops.AllGather()(ms.Tensor(1.0)), ValueError, "For 'AllGather', the 'x shape' must be a positive int"),
    (lambda: ops.Broadcast(1)((X,)), ValueError, r"For 'Broadcast', the 'root_rank' must be in \[0, 1\), but got 1."),
    (lambda: ops.Broadcast(0)(X), TypeError, "For 'Broadcast', the 'input_x' must be a tuple of Tensors"),
    (lambda: ops.AllReduce(group="nope")(X), ValueError, "For 'AllReduce', the communication group 'nope' does not "
                                                         "exist"),
    (lambda: comm.create_group("g", (0,)), TypeError, "the argument 'rank_ids' must be type of list"),
    (lambda: comm.create_group("g", []), ValueError, "the argument 'rank_ids' size should be greater than 1"),
    (lambda: comm.create_group("g", [0, 0]), ValueError, "List rank_ids in Group g has duplicate data!"),
    (lambda: comm.create_group("g", [0, 1]), ValueError, r"must be world ranks in \[0, 1\)"),
    (lambda: comm.destroy_group("mccl_world_group"), ValueError, "The world_group does not support destruction."),
    (lambda: comm.destroy_group(comm.HCCL_WORLD_COMM_GROUP), ValueError, "does not support destruction"),
    (lambda: comm.get_world_rank_from_group_rank("g", 0.5), TypeError, "'group_rank_id' must be type of int"),
])
def test_errors_after_init(world, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ---------------------------------------------------------------- auto-parallel context
# MindSpore 2.10's defaults, read from the real package
DEFAULTS = {
    'device_num': 1, 'global_rank': 0, 'gradients_mean': False, 'gradient_fp32_sync': True, 'loss_repeated_mean': True,
    'pipeline_stages': 1, 'auto_pipeline': False, 'pipeline_result_broadcast': False, 'pipeline_interleave': False,
    'pipeline_scheduler': '1f1b', 'parallel_mode': 'stand_alone', 'search_mode': 'recursive_programming',
    'auto_parallel_search_mode': 'recursive_programming', 'parameter_broadcast': False, 'strategy_ckpt_load_file': '',
    'strategy_ckpt_save_file': '', 'full_batch': False, 'dataset_strategy': 'data_parallel',
    'enable_parallel_optimizer': False, 'force_fp32_communication': False, 'grad_accumulation_step': 1,
    'all_reduce_fusion_config': [], 'communi_parallel_mode': 'all_group_parallel', 'optimizer_weight_shard_size': -1,
    'optimizer_weight_shard_aggregated_save': False, 'sharding_propagation': False, 'enable_alltoall': False,
    'comm_fusion': {'openstate': True, 'allreduce': {'mode': 'auto', 'config': None},
                    'allgather': {'mode': 'auto', 'config': None}, 'reducescatter': {'mode': 'auto', 'config': None}},
    'strategy_ckpt_config': {'load_file': '', 'save_file': '', 'only_trainable_params': True},
    'full_batch_is_set': False, 'dump_local_norm': False, 'dump_local_norm_path': '', 'dump_device_local_norm': False,
    'auto_parallel_new_interface': False, 'init_param_in_compile': True,
}


def test_auto_parallel_context_defaults():
    for key, value in DEFAULTS.items():
        assert ms.get_auto_parallel_context(key) == value, key


def test_auto_parallel_context_set_get_reset(tmp_path):
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=8,
                                 global_rank=3, parameter_broadcast=True, search_mode="sharding_propagation",
                                 dataset_strategy=((1, 8), (1, 8)), all_reduce_fusion_config=[2, 5],
                                 pipeline_stages=2, pipeline_config={"pipeline_interleave": True,
                                                                     "pipeline_scheduler": "gpipe"},
                                 comm_fusion={"allreduce": {"mode": "size", "config": 32}},
                                 strategy_ckpt_config={"load_file": "l.ckpt"},
                                 strategy_ckpt_save_file=str(tmp_path / "s" / "a.ckpt"),
                                 parallel_optimizer_config={"parallel_optimizer_threshold": 24})
    got = {k: ms.get_auto_parallel_context(k) for k in DEFAULTS}
    assert got["parallel_mode"] == "data_parallel" and got["gradients_mean"] is True
    assert (got["device_num"], got["global_rank"], got["pipeline_stages"]) == (8, 3, 2)
    assert got["search_mode"] == got["auto_parallel_search_mode"] == "sharding_propagation"
    assert got["dataset_strategy"] == ((1, 8), (1, 8)) and got["all_reduce_fusion_config"] == [2, 5]
    assert (got["pipeline_interleave"], got["pipeline_scheduler"]) == (True, "gpipe")
    assert got["comm_fusion"]["allreduce"] == {"mode": "size", "config": 32}
    assert got["strategy_ckpt_config"]["load_file"] == got["strategy_ckpt_load_file"] == "l.ckpt"
    # like MindSpore, setting the save file creates its directory
    assert got["strategy_ckpt_config"]["save_file"].endswith("a.ckpt") and (tmp_path / "s").is_dir()
    ms.set_auto_parallel_context(dataset_strategy="full_batch")
    assert ms.get_auto_parallel_context("full_batch") is True
    assert ms.get_auto_parallel_context("full_batch_is_set") is True
    ms.reset_auto_parallel_context()
    test_auto_parallel_context_defaults()


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"foo": 1}, ValueError, "Set context keyword foo is not recognized!"),
    ({"device_num": 0}, ValueError, "The context configuration parameter 'device_num' must be a positive integer, but "
                                    "got the value of device_num : 0."),
    ({"device_num": "a"}, TypeError, "The parameter 'device_num' must be <class 'int'>, but got <class 'str'>"),
    ({"parallel_mode": "x"}, ValueError, "The context configuration parameter 'parallel_mode' only support "
                                         "'stand_alone', 'data_parallel', 'hybrid_parallel', 'semi_auto_parallel' and "
                                         "'auto_parallel', but got the value : x."),
    ({"global_rank": 5000}, ValueError, r"'global_rank' must be in \[0, 4095\], but got the value of global_rank : "
                                        r"5000."),
    ({"gradients_mean": 1}, TypeError, "The parameter 'gradients_mean' must be <class 'bool'>, but got <class 'int'>"),
    ({"all_reduce_fusion_config": []}, ValueError, "the argument 'indices' can not be empty"),
    ({"all_reduce_fusion_config": [3, 1]}, ValueError, "must be sorted in ascending order"),
    ({"pipeline_stages": 0}, ValueError, "'pipeline_stages' should be greater or equal 1"),
    ({"search_mode": "greedy"}, ValueError, "The context configuration parameter 'auto_parallel_search_mode' only "
                                            "support"),
    ({"dataset_strategy": "half"}, ValueError, "'dataset_strategy' must be 'full_batch' or 'data_parallel'"),
    ({"grad_accumulation_step": 2}, ValueError, "The interface is deprecated"),
    ({"strategy_ckpt_config": {"x": 1}}, ValueError, r"Unknown config: \['x'\]"),
    ({"comm_fusion": {"allreduce": {"mode": "fast", "config": 1}}}, KeyError, "fusion method mode must be auto, index "
                                                                              "or size"),
    ({"enable_alltoall": 1}, TypeError, "The parameter 'enable_alltoall' must be <class 'bool'>"),
])
def test_auto_parallel_context_errors(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        ms.set_auto_parallel_context(**kwargs)
    with pytest.raises(ValueError, match="Get context keyword foo is not recognized!"):
        ms.get_auto_parallel_context("foo")


# ---------------------------------------------------------------- gradient reducer and TrainOneStepCell
def test_grad_reducer_mean_dtypes_and_filters(world):
    net = nn.Dense(3, 2)
    frozen = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="frozen", layerwise_parallel=True)
    reducer = nn.DistributedGradReducer(net.trainable_params() + [frozen], mean=True, degree=2)
    g_w = ms.Tensor(np.arange(6, dtype=np.float16).reshape(2, 3))
    g_b = ms.Tensor(np.array([1.0, -2.0]))
    g_f = ms.Tensor(np.array([4.0, 4.0], np.float32))
    w, b, f = reducer((g_w, g_b, g_f))
    assert (w.dtype, b.dtype, f.dtype) == (ms.float16, ms.float64, ms.float32)
    np.testing.assert_allclose(w.asnumpy(), g_w.asnumpy() / 2)
    np.testing.assert_allclose(b.asnumpy(), [0.5, -1.0])
    np.testing.assert_array_equal(f.asnumpy(), [4.0, 4.0])       # layerwise_parallel: not reduced
    sparse = ms.RowTensor(ms.Tensor(np.array([1], np.int32)), ms.Tensor(np.array([[2.0, 4.0]], np.float32)), (3, 2))
    table = ms.Parameter(ms.Tensor(np.zeros((3, 2), np.float32)), name="table")
    out = nn.DistributedGradReducer([table], mean=True, degree=2)((sparse,))[0]
    np.testing.assert_allclose(out.values.asnumpy(), [[1.0, 2.0]])
    assert nn.DistributedGradReducer(net.trainable_params()).mean is False   # gradients_mean of the context
    with pytest.raises(ValueError, match="For 'DistributedGradReducer', parameter 'degree' in DistributedGradReducer "
                                         "should large than 0 and be int, degree: 0."):
        nn.DistributedGradReducer(net.trainable_params(), degree=0)


def test_grad_reducer_is_differentiable(world):
    reducer = nn.DistributedGradReducer([ms.Parameter(ms.Tensor(np.zeros(3)), name="p")], mean=True, degree=4)
    x = ms.Tensor(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(ms.grad(lambda t: (reducer((t,))[0] ** 2).sum())(x).asnumpy(), 2 * x.asnumpy() / 16)


def test_train_one_step_cell_reducer_wiring(world):
    loss = nn.WithLossCell(nn.Dense(3, 2), nn.MSELoss())
    step = nn.TrainOneStepCell(loss, nn.SGD(loss.trainable_params(), 0.1))
    assert step.reducer_flag is False
    ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True, device_num=1)
    step = nn.TrainOneStepCell(loss, nn.SGD(loss.trainable_params(), 0.1))
    assert step.reducer_flag is True and isinstance(step.grad_reducer, nn.DistributedGradReducer)
    assert (step.mean, step.degree, step.grad_reducer.degree) == (True, 1, 1)
    x, y = ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.zeros((4, 2), np.float32))
    before = step(x, y).asnumpy()
    assert step(x, y).asnumpy() < before
    ms.set_auto_parallel_context(parallel_mode="hybrid_parallel")
    assert nn.TrainOneStepCell(loss, nn.SGD(loss.trainable_params(), 0.1)).reducer_flag is True


def test_parallel_utils(world):
    from mindseed.parallel._utils import _get_device_num, _get_global_rank, _get_gradients_mean, _get_parallel_mode
    assert (_get_parallel_mode(), _get_device_num(), _get_global_rank(), _get_gradients_mean()) == \
        ("stand_alone", 1, 0, False)
    ms.set_auto_parallel_context(parallel_mode="data_parallel")
    assert (_get_device_num(), _get_global_rank()) == (1, 0)
    ms.set_auto_parallel_context(device_num=4, global_rank=2)
    assert (_get_device_num(), _get_global_rank()) == (4, 2)
