"""MindSpore 2.10's `mindspore.parallel.auto_parallel.AutoParallel` on simulated worlds: a functional training step
(``value_and_grad`` then the optimizer, as MindSpore's 2.10 tutorials write it), `TrainOneStepCell` and `Model.train`
over a wrapped network, a forward pass, pipelines and the parallel optimizer (`hsdp`) give the single-process losses
and parameters (float64, 1e-12) and the same collectives as `set_auto_parallel_context` with the same settings; the
process's context is left as it was; the settings' checks are MindSpore's."""
import json
import math
import os

import numpy as np
import pytest

import mindseed as ms
from _mlp import MLP
from _pipeline_model import Net, WithLoss
from mindseed import Tensor, mint, nn, ops
from mindseed.common.initializer import HeUniform, initializer
from mindseed.dataset import NumpySlicesDataset
from mindseed.parallel import build_searched_strategy
from mindseed.parallel._train import simulate
from mindseed.parallel.auto_parallel import AutoParallel
from mindseed.nn.utils import no_init_parameters
from mindseed.parallel.nn import GradAccumulation, Pipeline, PipelineGradReducer

RNG = np.random.default_rng(11)
BATCHES = [(Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 6)))) for _ in range(3)]
# name: (devices, operator strategies)
MESHES = {
    "2": (2, dict(mm1=((2, 1), (1, 1)))),
    "4": (4, dict(mm1=((4, 1), (1, 1)))),
    "2x2": (4, dict(mm1=((2, 1), (1, 2)), add=((2, 2), (2,)), mm2=((2, 2), (2, 1)))),
    "col-row 4": (4, dict(mm1=((1, 1), (1, 4)), add=((1, 4), (4,)), mm2=((1, 4), (4, 1)))),
}


@pytest.fixture(autouse=True)
def _context():
    yield
    ms.reset_auto_parallel_context()
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _functional_step(net, opt, jit=False):
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    return ms.jit(train_step) if jit else train_step


def _reference(opt_name="Momentum", batches=BATCHES):
    ref = MLP()
    step = _functional_step(ref, _optimizer(opt_name, ref))
    return ref, [float(step(x, y).asnumpy()) for x, y in batches]


def _optimizer(name, net):
    if name == "Adam":
        return nn.Adam(net.trainable_params(), learning_rate=0.01)
    return nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)


def _assert_params(net, ref):
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("mesh", sorted(MESHES))
def test_a_functional_training_step_matches_one_process(mesh, jit):
    n, strategies = MESHES[mesh]
    net = MLP(**strategies)
    parallel_net = AutoParallel(_functional_step(net, _optimizer("Momentum", net), jit), parallel_mode="semi_auto")
    with simulate(n) as run:
        losses = [float(parallel_net(x, y).asnumpy()) for x, y in BATCHES]
    ref, ref_losses = _reference()
    np.testing.assert_allclose(losses, ref_losses, rtol=0, atol=1e-12)
    _assert_params(net, ref)
    assert len(run.executions) == 3 and all(not ex.whole_calls for ex in run.executions)
    kinds = [rec.kind for rec in run.world.log]
    if mesh in ("2", "4"):   # data parallel: the loss's mean and the weights' gradients, all-reduced
        assert set(kinds) == {"AllReduce"}
    else:                    # tensor parallel: the hidden activations move between the column and row cuts
        assert {"AllGather", "AllReduce"} <= set(kinds) or {"ReduceScatter", "AllReduce"} <= set(kinds)
    # the process's own context is untouched
    assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"


def test_a_graph_mode_functional_step_trains_the_same():
    n, strategies = MESHES["2x2"]
    logs = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net = MLP(**strategies)
        parallel_net = AutoParallel(_functional_step(net, _optimizer("Momentum", net), jit=True))
        with simulate(n) as run:
            losses = [float(parallel_net(x, y).asnumpy()) for x, y in BATCHES]
        assert ms.get_context("mode") == mode and len(run.executions) == 3
        # in GRAPH_MODE the gradient call is partitioned from its graph (traced once), else from its recording
        assert [ex.program.graph is not None for ex in run.executions] == [mode == ms.GRAPH_MODE] * 3
        assert len({id(ex.program.graph) for ex in run.executions}) == 1
        logs[mode] = [(r.kind, r.group_size, r.input_bytes) for r in run.world.log]
        ms.set_context(mode=ms.PYNATIVE_MODE)
        ref, ref_losses = _reference()
        np.testing.assert_allclose(losses, ref_losses, rtol=0, atol=1e-12)
        _assert_params(net, ref)
    assert logs[ms.GRAPH_MODE] == logs[ms.PYNATIVE_MODE]


def _train_one_step(wrap, n, strategies, configure):
    net = MLP(**strategies)
    network = AutoParallel(net) if wrap else net
    if wrap:
        configure(network)
    step = nn.TrainOneStepCell(network, _optimizer("Adam", net))
    with simulate(n) as run:
        losses = [float(step(x, y).asnumpy()) for x, y in BATCHES]
    return net, step, run, losses


@pytest.mark.parametrize("level", ["level1", "level2", "level3"])
def test_hsdp_trains_as_the_context_s_parallel_optimizer(level):
    n, strategies = MESHES["2x2"]

    def configure(parallel_net):
        parallel_net.hsdp(threshold=0, optimizer_level=level)
        parallel_net.dataset_strategy(((2, 1), (2, 1)))

    net, step, run, losses = _train_one_step(True, n, strategies, configure)
    assert ms.get_auto_parallel_context("enable_parallel_optimizer") is False
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy=((2, 1), (2, 1)),
                                 enable_parallel_optimizer=True,
                                 parallel_optimizer_config={"optimizer_level": level,
                                                            "parallel_optimizer_threshold": 0})
    ctx_net, ctx_step, ctx_run, ctx_losses = _train_one_step(False, n, strategies, None)
    assert losses == ctx_losses
    _assert_params(net, ctx_net)
    assert [repr(r) for r in run.world.log] == [repr(r) for r in ctx_run.world.log]
    assert run.sharded_optimizer(step).level == level
    ms.reset_auto_parallel_context()
    ref = MLP()
    ref_step = nn.TrainOneStepCell(ref, _optimizer("Adam", ref))
    np.testing.assert_allclose(losses, [float(ref_step(x, y).asnumpy()) for x, y in BATCHES], rtol=0, atol=1e-12)
    _assert_params(net, ref)


def test_model_train_over_an_auto_parallel_network(tmp_path):
    # MindSpore's docstring example: Model(network=AutoParallel(net_with_loss), optimizer=...) with the settings
    n, strategies = MESHES["2x2"]
    net = MLP(**strategies)
    opt = _optimizer("Momentum", net)
    parallel_net = AutoParallel(net, parallel_mode="semi_auto")
    parallel_net.dataset_strategy("data_parallel")
    path = str(tmp_path / "strategy.json")
    parallel_net.save_param_strategy_file(path)
    parallel_net.set_group_ckpt_save_file(str(tmp_path / "group.ckpt"))
    parallel_net.enable_gradients_mean()
    parallel_net.disable_gradient_fp32_sync()
    parallel_net.disable_loss_repeated_mean()
    parallel_net.enable_fp32_communication()
    xs = np.concatenate([x.asnumpy() for x, _ in BATCHES])
    ys = np.concatenate([y.asnumpy() for _, y in BATCHES])
    data = NumpySlicesDataset((xs, ys), column_names=["x", "y"], shuffle=False).batch(8)
    model = ms.train.Model(network=parallel_net, optimizer=opt)
    with simulate(n) as run:
        model.train(1, data)
    assert len(run.executions) == 3
    ref = MLP()
    ref_step = nn.TrainOneStepCell(ref, _optimizer("Momentum", ref))
    for x, y in BATCHES:
        ref_step(x, y)
    _assert_params(net, ref)
    # the run wrote the strategy file: w1 cut by columns over the 2 "model" ranks, w2 by rows (the (2, 2) mesh)
    strategy = build_searched_strategy(path)
    assert sorted(strategy) == ["b1", "w1", "w2"]
    assert list(strategy["w1"].dev_matrix[0].dim) == [2, 2]
    assert list(strategy["w1"].tensor_map[0].dim) == [-1, 0]
    assert list(strategy["w2"].tensor_map[0].dim) == [0, -1]
    assert os.path.exists(tmp_path / "group.ckpt")
    assert ms.get_auto_parallel_context("strategy_ckpt_save_file") == ""


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_a_forward_pass_runs_partitioned(mode):
    n, strategies = MESHES["col-row 4"]
    net, ref = MLP(**strategies), MLP()
    x, y = BATCHES[0]
    parallel_net = AutoParallel(net)
    parallel_net.dataset_strategy("full_batch")
    if mode == "graph":   # partitioned from the network's graph
        ms.set_context(mode=ms.GRAPH_MODE)
    with simulate(n) as run:
        out = parallel_net(x, y)
    assert (run.executions[0].program.graph is not None) == (mode == "graph")
    np.testing.assert_allclose(out.asnumpy(), ref(x, y).asnumpy(), rtol=0, atol=1e-12)
    # the whole batch on every rank, w1 by columns, w2 by rows: the second MatMul's partial sums (8 x 6 float64)
    # all-reduced once over the 4 ranks, nothing else
    assert [(r.kind, r.group_size, r.input_bytes) for r in run.world.log] == [("AllReduce", 4, 8 * 6 * 8)]


def test_on_one_device_the_network_runs_as_it_is():
    net, ref = MLP(), MLP()
    x, y = BATCHES[0]
    np.testing.assert_allclose(AutoParallel(net)(x, y).asnumpy(), ref(x, y).asnumpy(), rtol=0, atol=0)
    assert AutoParallel(lambda a, b: a + b)(x, x).shape == (8, 4)
    # a functional training step in GRAPH_MODE (the tutorials' context) compiles and trains as the PyNative one
    ms.set_context(mode=ms.GRAPH_MODE)
    net = MLP()
    parallel_net = AutoParallel(_functional_step(net, _optimizer("Momentum", net)))
    losses = [float(parallel_net(x, y).asnumpy()) for x, y in BATCHES]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ref, ref_losses = _reference()
    np.testing.assert_allclose(losses, ref_losses, rtol=0, atol=1e-12)
    _assert_params(net, ref)


@pytest.mark.parametrize("mode", ["sharding_propagation", "recursive_programming"])
def test_the_automatic_modes_search_and_match_one_process(mode):
    strategies = dict(mm1=((4, 1), (1, 1))) if mode == "sharding_propagation" else {}
    net = MLP(**strategies)
    parallel_net = AutoParallel(_functional_step(net, _optimizer("Momentum", net)), parallel_mode=mode)
    values = parallel_net._context_values()
    assert values["parallel_mode"] == "auto_parallel" and values["search_mode"] == mode
    with simulate(4) as run:
        losses = [float(parallel_net(x, y).asnumpy()) for x, y in BATCHES]
    ref, ref_losses = _reference()
    np.testing.assert_allclose(losses, ref_losses, rtol=0, atol=1e-12)
    _assert_params(net, ref)
    assert run.world.log   # the searched plan cuts something: its collectives ran


def _pipeline(stage_config=None, micro=4):
    net = Net((4, 6, 6, 6, 6))
    return Pipeline(WithLoss(net), micro, stage_config=stage_config)


@pytest.mark.parametrize("interleave, scheduler", [(False, "1f1b"), (True, "1f1b"), (True, "gpipe")])
def test_pipeline_stages_through_train_one_step_cell(interleave, scheduler):
    stages = {"net.layers.0": 0, "net.layers.1": 1, "net.layers.2": 0, "net.layers.3": 1} if interleave else \
        {"net.layers.0": 0, "net.layers.1": 0, "net.layers.2": 1, "net.layers.3": 1}
    cell = _pipeline(stages)
    parallel_net = AutoParallel(cell)
    parallel_net.pipeline(stages=2, interleave=interleave, scheduler=scheduler)
    assert parallel_net.get_pipeline_stages() == 2
    step = nn.TrainOneStepCell(parallel_net, nn.Momentum(cell.trainable_params(), 0.1, 0.9))
    with simulate(4) as run:
        losses = [float(step(x, y).asnumpy()) for x, y in BATCHES]
    ref = _pipeline()
    ref_step = nn.TrainOneStepCell(ref, nn.Momentum(ref.trainable_params(), 0.1, 0.9))
    np.testing.assert_allclose(losses, [float(ref_step(x, y).asnumpy()) for x, y in BATCHES], rtol=0, atol=1e-12)
    _assert_params(cell, ref)
    last = run.executions[-1]
    assert [ex.world.size for ex in last.stages] == [2, 2] and last.chunks == (2 if interleave else 1)
    assert last.p2p   # the activations and their gradients cross the stages


def test_the_settings_are_the_context_they_make(tmp_path):
    seen = {}

    def probe(x):
        for key in ("parallel_mode", "pipeline_stages", "dataset_strategy", "optimizer_weight_shard_size",
                    "strategy_ckpt_config", "comm_fusion"):
            seen[key] = ms.get_auto_parallel_context(key)
        return x

    parallel_net = AutoParallel(probe, parallel_mode="semi_auto")
    values = parallel_net._context_values()
    assert values["parallel_mode"] == "semi_auto_parallel" and "search_mode" not in values
    assert values["enable_parallel_optimizer"] is False and values["parallel_optimizer_config"] == {}
    assert values["auto_parallel_new_interface"] is True and values["dataset_strategy"] is None
    parallel_net.hsdp(shard_size=2, threshold=16, optimizer_level="level3")
    parallel_net.pipeline(stages=4, output_broadcast=True, interleave=True, scheduler="seqpipe")
    parallel_net.dataset_strategy("full_batch")
    parallel_net.comm_fusion({"allreduce": {"mode": "size", "config": 32}})
    parallel_net.load_param_strategy_file("/tmp/a.ckpt")
    parallel_net.disable_strategy_file_only_for_trainable_params()
    parallel_net.dump_local_norm("/tmp/norms")
    parallel_net.enable_device_local_norm()
    parallel_net.no_init_parameters_in_compile()
    values = parallel_net._context_values()
    assert values["enable_parallel_optimizer"] is True and values["optimizer_weight_shard_size"] == 2
    assert values["parallel_optimizer_config"] == {"parallel_optimizer_threshold": 16, "optimizer_level": "level3"}
    assert (values["pipeline_stages"], values["pipeline_result_broadcast"], values["pipeline_interleave"],
            values["pipeline_scheduler"]) == (4, True, True, "seqpipe")
    assert values["full_batch"] is True
    assert values["comm_fusion"]["allreduce"] == {"mode": "size", "config": 32}
    assert values["comm_fusion"]["allgather"] == {"mode": "auto", "config": None}
    assert values["strategy_ckpt_load_file"] == "/tmp/a.ckpt" and values["only_trainable_params"] is False
    assert (values["dump_local_norm"], values["dump_local_norm_path"], values["dump_device_local_norm"]) == \
        (True, "/tmp/norms", True)
    assert values["init_param_in_compile"] is False
    # while the network runs, get_auto_parallel_context reads them
    parallel_net(Tensor(np.ones(2)))
    assert seen["parallel_mode"] == "semi_auto_parallel" and seen["pipeline_stages"] == 4
    assert seen["dataset_strategy"] == "full_batch" and seen["optimizer_weight_shard_size"] == 2
    assert seen["strategy_ckpt_config"] == {"load_file": "/tmp/a.ckpt", "save_file": "", "only_trainable_params": False}
    assert ms.get_auto_parallel_context("pipeline_stages") == 1
    speed_up = tmp_path / "parallel_speed_up.json"
    speed_up.write_text(json.dumps({"enable_communication_fusion": True}))
    parallel_net.transformer_opt(str(speed_up))
    assert ms.get_context("ascend_config")["parallel_speed_up_json_path"] == str(speed_up)


def test_the_settings_check_their_arguments():
    with pytest.raises(ValueError, match="the argument 'parallel_mode' must be one of \\['semi_auto', "
                                         "'sharding_propagation', 'recursive_programming'\\], but got the value : "
                                         "auto_parallel ."):
        AutoParallel(MLP(), parallel_mode="auto_parallel")
    net = AutoParallel(MLP())
    with pytest.raises(TypeError, match="the argument 'file_path' must be str, but got the type : <class 'int'> ."):
        net.save_param_strategy_file(1)
    with pytest.raises(KeyError, match="must be an absolute path"):
        net.save_operator_strategy_file("strategy.json")
    with pytest.raises(KeyError, match="File type must be .json"):
        net.load_operator_strategy_file("/tmp/strategy.txt")
    with pytest.raises(ValueError, match="dataset_strategy is none in config!"):
        net.dataset_strategy(None)
    with pytest.raises(ValueError, match="must be 'full_batch' or 'data_parallel', but got the value : dp."):
        net.dataset_strategy("dp")
    with pytest.raises(TypeError, match="the element of argument 'config' must be tuple or Layout"):
        net.dataset_strategy(([2, 1],))
    with pytest.raises(TypeError, match="the element of argument 'config' must be int type"):
        net.dataset_strategy(((2.0, 1),))
    with pytest.raises(ValueError, match="shard_size must be a positive integer or -1, but got 0."):
        net.hsdp(shard_size=0)
    with pytest.raises(ValueError, match="threshold must be a positive integer or 0, but got -1."):
        net.hsdp(threshold=-1)
    with pytest.raises(ValueError, match="Optimizer level should in \\['level1', 'level2', 'level3'\\], but got l4"):
        net.hsdp(optimizer_level="l4")
    with pytest.raises(TypeError, match="For 'AutoParallel.pipeline', the argument 'stages' must be int type"):
        net.pipeline(stages=2.0)
    with pytest.raises(ValueError, match="the argument 'stages' must be larger than zero, but got value: 0."):
        net.pipeline(stages=0)
    with pytest.raises(ValueError, match="'scheduler' must be '1f1b'/'gpipe'/'seqpipe'/'seqvpp'/'seqsmartvpp'/"
                                         "'zero_bubble_v' , but got the value : dualpipe."):
        net.pipeline(stages=2, scheduler="dualpipe")
    with pytest.raises(TypeError, match="must be <class 'dict'>, but got <class 'list'>"):
        net.comm_fusion([])
    net.comm_fusion({"allreduce": {"mode": "fast", "config": None}})
    with pytest.raises(KeyError, match="fusion method mode must be auto, index or size, but got fast"):
        net(*BATCHES[0])
    with pytest.raises(ValueError, match="parallel_speed_up_json: .* does not exist"):
        net.transformer_opt("/nonexistent/parallel_speed_up.json")


def test_per_rank_checkpoints_load_through_the_auto_parallel_s_strategy_file(tmp_path):
    # trained at (2, 2) with the strategy file an AutoParallel saves; each rank's slices saved; a fresh network
    # wrapped the same way loads them with no strategy file named (MindSpore reads the AutoParallel's)
    n, strategies = MESHES["2x2"]
    net = MLP(**strategies)
    parallel_net = AutoParallel(net)
    path = str(tmp_path / "strategy.ckpt")
    parallel_net.save_param_strategy_file(path)
    step = nn.TrainOneStepCell(parallel_net, _optimizer("Momentum", net))
    with simulate(n) as run:
        for x, y in BATCHES:
            step(x, y)
    files = []
    for rank in range(n):
        files.append(str(tmp_path / f"rank_{rank}.ckpt"))
        ms.save_checkpoint(run.rank_parameters(step, rank), files[-1])
    assert ms.load_checkpoint(files[1])["w1"].shape == (4, 4)   # rank 1: the second column half of w1
    fresh = AutoParallel(MLP(seed=9))
    fresh.save_param_strategy_file(path)
    assert ms.load_distributed_checkpoint(fresh, files) is True
    _assert_params(fresh.network, net)


def _functional_pipeline(stage_config, jit):
    """MindSpore's functional pipeline (its PipelineGradReducer example): a Pipeline cell, value_and_grad of a
    function calling it, the reducer, the optimizer, in one (jitted) step function."""
    net_with_loss = _pipeline(stage_config)
    optimizer = nn.Momentum(net_with_loss.trainable_params(), 0.1, 0.9)
    grad_fn = ms.value_and_grad(lambda x, y: net_with_loss(x, y), None, net_with_loss.trainable_params())
    reducer = PipelineGradReducer(optimizer.parameters)

    def train_one_step(x, y):
        loss, grads = grad_fn(x, y)
        grads = reducer(grads)
        optimizer(grads)
        return loss, grads
    return net_with_loss, (ms.jit(train_one_step) if jit else train_one_step)


@pytest.mark.parametrize("jit, graph", [(False, False), (True, False), (True, True)])
def test_a_functional_pipeline_step_runs_in_stages(jit, graph):
    stages = {"net.layers.0": 0, "net.layers.1": 0, "net.layers.2": 1, "net.layers.3": 1}
    cell, step = _functional_pipeline(stages, jit)
    parallel_net = AutoParallel(step, parallel_mode="semi_auto")
    parallel_net.pipeline(stages=2)
    if graph:   # GRAPH_MODE: the gradient call's graph, its calls staged by the cell scopes they were traced in
        ms.set_context(mode=ms.GRAPH_MODE)
    with simulate(4) as run:
        out = [parallel_net(x, y) for x, y in BATCHES]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert [ex.program.graph is not None for ex in run.executions] == [graph] * 3 and run.fallbacks == []
    ref, ref_step = _functional_pipeline(None, False)
    want = [ref_step(x, y) for x, y in BATCHES]
    for (loss, grads), (ref_loss, ref_grads) in zip(out, want):
        np.testing.assert_allclose(loss.asnumpy(), ref_loss.asnumpy(), rtol=0, atol=1e-12)
        for g, r in zip(grads, ref_grads):
            np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=0, atol=1e-12)
    _assert_params(cell, ref)
    last = run.executions[-1]
    assert len(run.executions) == 3 and [ex.world.size for ex in last.stages] == [2, 2] and last.p2p


class _TutorialNetwork(nn.Cell):
    """The network of MindSpore 2.10's operator-parallel tutorial (hidden width 64 instead of 512)."""

    def __init__(self, shard):
        super().__init__()
        self.flatten = ops.Flatten()
        self.fc1_weight = ms.Parameter(initializer("normal", [28 * 28, 64], ms.float32))
        self.fc2_weight = ms.Parameter(initializer("normal", [64, 64], ms.float32))
        self.fc3_weight = ms.Parameter(initializer("normal", [64, 10], ms.float32))
        self.matmul1, self.relu1 = ops.MatMul(), ops.ReLU()
        self.matmul2, self.relu2, self.matmul3 = ops.MatMul(), ops.ReLU(), ops.MatMul()
        if shard:
            self.matmul1.shard(((2, 4), (4, 1)))
            self.relu1.shard(((4, 1),))
            self.matmul2.shard(((1, 8), (8, 1)))
            self.relu2.shard(((8, 1),))

    def construct(self, x):
        x = self.relu1(self.matmul1(self.flatten(x), self.fc1_weight))
        x = self.relu2(self.matmul2(x, self.fc2_weight))
        return self.matmul3(x, self.fc3_weight)


def _tutorial(shard):
    ms.set_seed(1)
    with no_init_parameters():   # the tutorial's delayed initialization: the parallel run initializes them
        net = _TutorialNetwork(shard)
        optimizer = nn.SGD(net.trainable_params(), 1e-2)
    loss_fn = nn.CrossEntropyLoss()

    def forward_fn(data, target):
        logits = net(data)
        return loss_fn(logits, target), logits

    grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params(), has_aux=True)

    def train_step(inputs, targets):
        (loss_value, _), grads = grad_fn(inputs, targets)
        optimizer(grads)
        return loss_value
    return net, train_step


def test_the_operator_parallel_tutorial_on_8_ranks():
    rng = np.random.default_rng(0)
    data = [(Tensor(rng.random((32, 1, 28, 28)).astype(np.float32)),
             Tensor(rng.integers(0, 10, 32).astype(np.int32))) for _ in range(3)]
    net, train_step = _tutorial(True)
    parallel_net = AutoParallel(train_step, parallel_mode="semi_auto")
    with simulate(8) as run:
        losses = [float(parallel_net(image, label).asnumpy()) for image, label in data]
    ref, ref_step = _tutorial(False)
    ref.init_parameters_data()
    np.testing.assert_allclose(losses, [float(ref_step(image, label).asnumpy()) for image, label in data],
                               rtol=1e-6)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-6)
    # every call ran sharded but the loss (NLLLoss has no sharding rule: it runs on whole tensors)
    assert {c.prim.name for c in run.executions[0].whole_calls} == {"NLLLoss", "NLLLossGrad"}


class _MintTutorialNetwork(nn.Cell):
    """The network of MindSpore 2.10's mint operator-parallel tutorial: functions sharded by
    `mindspore.parallel.shard` (hidden width 64)."""

    def __init__(self, shard):
        super().__init__()
        self.fc1_weight = ms.Parameter(initializer("normal", [28 * 28, 64], ms.float32))
        self.fc2_weight = ms.Parameter(initializer("normal", [64, 64], ms.float32))
        self.fc3_weight = ms.Parameter(initializer("normal", [64, 10], ms.float32))
        cut = ms.parallel.shard if shard else (lambda fn, in_strategy: fn)
        self.matmul1 = cut(mint.matmul, in_strategy=((2, 4), (4, 1)))
        self.relu1 = cut(mint.nn.functional.relu, in_strategy=((4, 1),))
        self.matmul2 = cut(mint.matmul, in_strategy=((1, 8), (8, 1)))
        self.relu2 = cut(mint.nn.functional.relu, in_strategy=((8, 1),))

    def construct(self, x):
        x = self.relu1(self.matmul1(mint.flatten(x, 1), self.fc1_weight))
        x = self.relu2(self.matmul2(x, self.fc2_weight))
        return mint.matmul(x, self.fc3_weight)


def test_the_mint_operator_parallel_tutorial_forward_on_8_ranks():
    ms.set_seed(1)
    net = _MintTutorialNetwork(True)
    ms.set_seed(1)
    ref = _MintTutorialNetwork(False)
    image = Tensor(np.random.default_rng(0).random((32, 1, 28, 28)).astype(np.float32))
    with simulate(8) as run:
        logits = AutoParallel(net, parallel_mode="semi_auto")(image)
    np.testing.assert_allclose(logits.asnumpy(), ref(image).asnumpy(), rtol=1e-5, atol=1e-6)
    ex = run.executions[0]
    assert not ex.whole_calls and run.world.log
    # the first product ran cut (2, 4) x (4, 1): its partial sums over the 4 column pieces reduced
    first = next(p for p in ex.plans if p.call.prim.name == "MatMul")
    assert [[lay.cuts(d) for d in range(2)] for lay in first.in_layouts] == [[2, 4], [4, 1]]


class _Block(nn.Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(4)
        self.w = ms.Parameter(Tensor(rng.standard_normal((4, 6))), name="w")
        self.v = ms.Parameter(Tensor(rng.standard_normal((6, 6))), name="v")

    def construct(self, x):
        return ops.matmul(ops.relu(ops.matmul(x, self.w)), self.v)


class _BlockNet(nn.Cell):
    def __init__(self, shard):
        super().__init__()
        self.block = _Block()
        if shard:
            layout = ms.parallel.Layout((2, 2), ("dp", "mp"))
            self.block.shard(in_strategy=(layout("dp", "None"),), out_strategy=(layout("dp", "mp"),),
                             parameter_plan={"self.block.v": layout("mp", "None")})

    def construct(self, x, y):
        d = ops.tanh(self.block(x)) - y
        return ops.reduce_mean(d * d)


@pytest.mark.parametrize("mode", ["semi_auto", "sharding_propagation"])
def test_a_cell_shard_network_trains_through_model(mode, tmp_path):
    from mindseed.common._parallel import PARAMETER_PLANS
    net = _BlockNet(True)
    parallel_net = AutoParallel(net, parallel_mode=mode)
    parallel_net.dataset_strategy("full_batch")
    path = str(tmp_path / "strategy.json")
    parallel_net.save_param_strategy_file(path)
    xs = np.concatenate([x.asnumpy() for x, _ in BATCHES])
    ys = np.concatenate([y.asnumpy() for _, y in BATCHES])
    data = NumpySlicesDataset((xs, ys), column_names=["x", "y"], shuffle=False).batch(8)
    model = ms.train.Model(parallel_net, optimizer=nn.Momentum(net.trainable_params(), 0.1, 0.9))
    try:
        with simulate(4) as run:
            model.train(1, data)
    finally:
        PARAMETER_PLANS.clear()
    ref = _BlockNet(False)
    ref_step = nn.TrainOneStepCell(ref, nn.Momentum(ref.trainable_params(), 0.1, 0.9))
    for x, y in BATCHES:
        ref_step(x, y)
    _assert_params(net, ref)
    assert len(run.executions) == 3
    strategy = build_searched_strategy(path)
    # v as the parameter plan's Layout: the device matrix (2, 2), rows cut by "mp" (counted from the right: 0)
    assert list(strategy["block.v"].dev_matrix[0].dim) == [2, 2]
    assert list(strategy["block.v"].tensor_map[0].dim) == [0, -1]


class _MatMulCell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.param = ms.Parameter(initializer(HeUniform(math.sqrt(5)), [28 * 28, 64]), name="param")
        self.matmul = ops.MatMul()

    def construct(self, x):
        return self.matmul(x, self.param)


class _PipelineTutorialNetwork(nn.Cell):
    """The network of MindSpore 2.10's pipeline-parallel tutorial (hidden width 64, without its Print)."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.layer1 = _MatMulCell()
        self.relu1 = nn.ReLU()
        self.layer2 = nn.Dense(64, 64)
        self.relu2 = nn.ReLU()
        self.layer3 = nn.Dense(64, 10)

    def construct(self, x):
        x = self.relu1(self.layer1(self.flatten(x)))
        return self.layer3(self.relu2(self.layer2(x)))


def _pipeline_tutorial(interleave):
    ms.set_seed(1)
    with no_init_parameters():
        net = _PipelineTutorialNetwork()
        optimizer = nn.SGD(net.trainable_params(), 1e-2)
        pp_grad_reducer = PipelineGradReducer(optimizer.parameters, opt_shard=False)
    stages = (1, 0, 1, 0, 1) if interleave else (0, 0, 1, 1, 1)
    stage_config = {"_backbone.flatten": 0, **{f"_backbone.{name}": s for name, s in
                                               zip(("layer1", "relu1", "layer2", "relu2", "layer3"), stages)}}
    net_with_loss = Pipeline(nn.WithLossCell(net, nn.CrossEntropyLoss()), 4, stage_config=stage_config)
    net_with_loss.set_train()
    grad_fn = ms.value_and_grad(lambda inputs, target: net_with_loss(inputs, target), None, optimizer.parameters)

    @ms.jit
    def train_one_step(inputs, target):
        loss, grads = grad_fn(inputs, target)
        grads = pp_grad_reducer(grads)
        optimizer(grads)
        return loss, grads
    return net, train_one_step


@pytest.mark.parametrize("interleave", [False, True])
def test_the_pipeline_parallel_tutorial_on_8_ranks(interleave):
    rng = np.random.default_rng(1)
    data = [(Tensor(rng.random((32, 1, 28, 28)).astype(np.float32)),
             Tensor(rng.integers(0, 10, 32).astype(np.int32))) for _ in range(2)]
    net, train_one_step = _pipeline_tutorial(interleave)
    parallel_net = AutoParallel(train_one_step, parallel_mode="semi_auto")
    parallel_net.pipeline(stages=2, interleave=interleave)
    with simulate(8) as run:
        losses = [float(parallel_net(image, label)[0].asnumpy()) for image, label in data]
    ref, ref_step = _pipeline_tutorial(interleave)
    ref_losses = [float(ref_step(image, label)[0].asnumpy()) for image, label in data]
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-6)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-6)
    last = run.executions[-1]
    # interleaved: flatten on stage 0, then the layers alternating 1, 0, 1, 0, 1 go round the stages 3 times
    assert [ex.world.size for ex in last.stages] == [4, 4] and last.chunks == (3 if interleave else 1)


class _AccumulationTutorialNetwork(nn.Cell):
    """The network of MindSpore 2.10's gradient-accumulation tutorial (hidden width 64)."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 64, weight_init="normal", bias_init="zeros"), nn.ReLU(),
            nn.Dense(64, 64, weight_init="normal", bias_init="zeros"), nn.ReLU(),
            nn.Dense(64, 10, weight_init="normal", bias_init="zeros"))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


def test_the_gradient_accumulation_tutorial_on_8_ranks():
    # GradAccumulation(WithLossCell(net, loss), 4) in AutoParallel with hsdp(), trained by Model over a dataset
    rng = np.random.default_rng(2)
    images = rng.random((64, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, 64).astype(np.int32)

    def trained(parallel):
        ms.set_seed(1)
        with no_init_parameters():
            net = _AccumulationTutorialNetwork()
            optimizer = nn.SGD(net.trainable_params(), 1e-2)
        network = GradAccumulation(nn.WithLossCell(net, nn.CrossEntropyLoss()), 4)
        if parallel:
            network = AutoParallel(network)
            network.hsdp()
        model = ms.train.Model(network, optimizer=optimizer)
        data = NumpySlicesDataset((images, labels), column_names=["image", "label"], shuffle=False).batch(32)
        if not parallel:
            model.train(1, data)
            return net, None
        with simulate(8) as run:
            model.train(1, data)
        return net, run

    net, run = trained(True)
    ref, _ = trained(False)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-6)
    # the first weight ((64, 784) float32, above hsdp's 64 KB threshold) has its SGD state cut over the 8 ranks
    sharded = run.sharded_optimizer(next(iter(run._cells.values())).cell)
    first = net.trainable_params()[0]
    assert sharded.opt_layouts[id(first)].local_shape == (64 // 8, 784)
    assert len(run.executions) == 2


def test_the_multiple_copy_tutorial_on_8_ranks():
    # ms.parallel.nn.MicroBatchInterleaved(nn.WithLossCell(net, loss), 2) in AutoParallel, Model.train
    rng = np.random.default_rng(3)
    images = rng.random((32, 1, 28, 28)).astype(np.float32)
    labels = rng.integers(0, 10, 32).astype(np.int32)

    def trained(parallel):
        ms.set_seed(1)
        with no_init_parameters():
            net = _AccumulationTutorialNetwork()
            optimizer = nn.SGD(net.trainable_params(), 1e-2)
        network = ms.parallel.nn.MicroBatchInterleaved(nn.WithLossCell(net, nn.CrossEntropyLoss()), 2)
        if parallel:
            network = AutoParallel(network, parallel_mode="semi_auto")
        model = ms.train.Model(network, optimizer=optimizer)
        data = NumpySlicesDataset((images, labels), column_names=["image", "label"], shuffle=False).batch(16)
        if not parallel:
            model.train(1, data)
            return net
        with simulate(8) as run:
            model.train(1, data)
        # data parallel: the gradients all-reduced (the loss, NLLLoss, has no sharding rule: its inputs gathered)
        assert len(run.executions) == 2 and {r.kind for r in run.world.log} == {"AllReduce", "AllGather"}
        return net

    net, ref = trained(True), trained(False)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-6)


def test_a_dataset_strategy_of_layouts():
    # the batch's rows over "dp" given as Layouts (AutoParallel.dataset_strategy accepts them; the context refuses)
    n, strategies = MESHES["2x2"]
    layout = ms.parallel.Layout((2, 2), ("dp", "mp"))
    net = MLP(**strategies)
    parallel_net = AutoParallel(_functional_step(net, _optimizer("Momentum", net)))
    parallel_net.dataset_strategy((layout("dp", "None"), layout("dp", "None")))
    with simulate(n) as run:
        losses = [float(parallel_net(x, y).asnumpy()) for x, y in BATCHES]
    ref, ref_losses = _reference()
    np.testing.assert_allclose(losses, ref_losses, rtol=0, atol=1e-12)
    _assert_params(net, ref)
    # the inputs start with their rows over the first mesh axis
    ex = run.executions[0]
    x_layout = ex.layout_of(BATCHES[0][0])
    assert [x_layout.cuts(d) for d in range(2)] == [2, 1]


class _VocabEmbedding(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embedding_table = ms.Parameter(Tensor(np.random.default_rng(0).standard_normal((32, 32)), ms.float32),
                                            name="embedding_table")
        self.gather = ops.Gather()

    def construct(self, x):
        return self.gather(self.embedding_table, x, 0).squeeze(1), self.embedding_table.value()


class _Head(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul(transpose_b=True)

    def construct(self, state, embed):
        return self.matmul(state, embed)


class _InferenceNetwork(nn.Cell):
    """The pipeline-inference tutorial's network: the embedding table shared by the first and the last stage."""

    def __init__(self):
        super().__init__()
        self.word_embedding = _VocabEmbedding()
        self.layer1 = nn.Dense(32, 32)
        self.layer2 = nn.Dense(32, 32)
        self.head = _Head()

    def construct(self, x):
        x, embed = self.word_embedding(x)
        return self.head(self.layer2(self.layer1(x)), embed)


class _PipelineCellInference(nn.Cell):
    def __init__(self, network, micro_batch_num):
        super().__init__()
        self.network = network
        self.micro_batch_num = micro_batch_num
        self.concat = ops.Concat()

    def construct(self, x):
        ret = ()
        size = x.shape[0] // self.micro_batch_num
        for i in range(self.micro_batch_num):
            ret = ret + (self.network(x[size * i:size * (i + 1)]),)
        return self.concat(ret)


def test_the_pipeline_inference_tutorial_runs_in_4_stages():
    ms.set_seed(1)
    net = _InferenceNetwork()
    for cell, stage in ((net.word_embedding, 0), (net.layer1, 1), (net.layer2, 2), (net.head, 3)):
        cell.pipeline_stage = stage
    inference = _PipelineCellInference(net, 4)
    inference.set_train(False)
    parallel_net = AutoParallel(inference, parallel_mode="semi_auto")
    parallel_net.dataset_strategy("full_batch")
    parallel_net.pipeline(stages=4, output_broadcast=True)
    input_ids = Tensor(np.random.default_rng(1).integers(0, 32, (8, 1)), ms.int32)
    parallel_net.compile(input_ids)
    ms.sync_pipeline_shared_parameters(parallel_net)
    want = inference(input_ids).asnumpy()
    with simulate(8) as run:
        logits = parallel_net(input_ids)
    np.testing.assert_allclose(logits.asnumpy(), want, rtol=1e-5, atol=1e-5)
    ex = run.executions[-1]
    assert [s.world.size for s in ex.stages] == [2, 2, 2, 2]
    # each micro-batch's activations go stage to stage (the shared table is a leaf each stage reads)
    assert sorted((a, b) for a, b, _ in ex.p2p) == [(0, 1)] * 4 + [(1, 2)] * 4 + [(2, 3)] * 4
