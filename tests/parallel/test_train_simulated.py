"""The parallel optimizer through the ordinary training API: `set_auto_parallel_context(enable_parallel_optimizer=
True, parallel_optimizer_config={"optimizer_level": ...})` drives `nn.TrainOneStepCell` and `Model.train` on simulated
meshes (2), (4) and (2, 2); after three steps the parameters equal the single-process ones (float64, 1e-12), and the
collectives of a step are those of the level (closed forms)."""
import numpy as np
import pytest

import mindseed as ms
from _mlp import MLP
from _pipeline_model import Net, WithLoss
from mindseed import Tensor, nn
from mindseed.dataset import NumpySlicesDataset
from mindseed.parallel import _schedule
from mindseed.parallel._train import simulate

RNG = np.random.default_rng(5)
BATCHES = [(Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 6)))) for _ in range(3)]
OPTIMIZERS = {
    "Adam": lambda ps: nn.Adam(ps, learning_rate=0.01),
    "Momentum": lambda ps: nn.Momentum(ps, learning_rate=0.1, momentum=0.9),
}
# name: (devices, operator strategies, dataset strategy)
MESHES = {
    "2": (2, dict(mm1=((2, 1), (1, 1))), "data_parallel"),
    "4": (4, dict(mm1=((4, 1), (1, 1))), "data_parallel"),
    "2x2": (4, dict(mm1=((2, 1), (1, 2)), add=((2, 2), (2,)), mm2=((2, 2), (2, 1))), ((2, 1), (2, 1))),
}
WHOLE = 4 * 8 + 8 + 8 * 6   # elements of w1, b1, w2


@pytest.fixture(autouse=True)
def _context():
    yield
    ms.reset_auto_parallel_context()


def _configure(mesh, level, threshold=0, enable=True):
    _, _, data = MESHES[mesh]
    config = {"optimizer_level": level}
    if threshold is not None:
        config["parallel_optimizer_threshold"] = threshold
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy=data,
                                 enable_parallel_optimizer=enable, parallel_optimizer_config=config)


def _reference(opt_name):
    ref = MLP()
    step = nn.TrainOneStepCell(ref, OPTIMIZERS[opt_name](ref.trainable_params()))
    losses = [float(step(x, y).asnumpy()) for x, y in BATCHES]
    return ref, step.optimizer, losses


def _train(mesh, opt_name, **config):
    n, strategies, _ = MESHES[mesh]
    _configure(mesh, **config)
    net = MLP(**strategies)
    step = nn.TrainOneStepCell(net, OPTIMIZERS[opt_name](net.trainable_params()))
    logs = []
    with simulate(n) as run:
        losses = []
        for x, y in BATCHES:
            start = len(run.world.log)
            losses.append(float(step(x, y).asnumpy()))
            logs.append([rec.kind for rec in run.world.log[start:]])
    return net, step, run, losses, logs


def _assert_same(net, opt, losses, opt_name):
    ref, ref_opt, ref_losses = _reference(opt_name)
    np.testing.assert_allclose(losses, ref_losses, rtol=0, atol=1e-12)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    ours = {q.name: q for _, q in opt.parameters_and_names()}
    for _, q in ref_opt.parameters_and_names():
        np.testing.assert_allclose(ours[q.name].asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("level", ["level1", "level2", "level3"])
@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("mesh", sorted(MESHES))
def test_train_one_step_cell_with_the_parallel_optimizer_matches_one_process(mesh, opt_name, level):
    n = MESHES[mesh][0]
    net, step, run, losses, logs = _train(mesh, opt_name, level=level)
    _assert_same(net, step.optimizer, losses, opt_name)
    sharded = run.sharded_optimizer(step)
    assert sharded.level == level
    # every parameter's state is cut over all n ranks (on (2, 2) the tensor axis cuts it, the data axis cuts dim 0)
    moments = 2 if opt_name == "Adam" else 1
    for r in range(n):
        mem = sharded.memory(r)
        assert mem["state"] == moments * WHOLE * 8 // n
        assert mem["grads"] == (WHOLE * 8 // n if level != "level1" else mem["grads"])
        if level == "level3":
            assert mem["params"] == WHOLE * 8 // n
    if mesh == "2x2":
        return  # the tensor-parallel products add their own collectives
    # per step under data parallel: the loss's partial mean all-reduced, one reduce-scatter per gradient, one
    # all-gather per weight for its update (level1/2) or per weight read by the forward pass and again per weight
    # the backward reads (level3: w2 in the input gradient of the second layer; the first layer's input needs no
    # gradient, the bias add reads no weight)
    for kinds in logs:
        assert kinds.count("ReduceScatter") == 3 and kinds.count("AllReduce") == 1
        assert kinds.count("AllGather") == (3 + 1 if level == "level3" else 3)
        if level == "level3":
            assert kinds[:3] == ["AllGather"] * 3   # gathered layer by layer inside the forward pass


def test_level3_gathers_each_weight_where_the_forward_pass_first_needs_it():
    _, step, run, _, _ = _train("4", "Adam", level="level3")
    ex = run.executions[-1]
    gathered = []
    for p in ex.plans:
        for move in p.moves:
            if any(s.kind == "AllGather" for s in move.steps):
                gathered.append(p.call.prim.name)
    # w1 for the first MatMul, b1 for the Add, w2 for the second MatMul, then w2 again for the backward MatMul
    assert gathered == ["MatMul", "Add", "MatMul", "MatMul"]
    sharded = run.sharded_optimizer(step)
    for p in step.optimizer.parameters:
        assert ex.layout_of(p) == sharded.opt_layouts[id(p)]    # the ranks start the step with slices only


def test_auto_parallel_searches_the_plan_the_parallel_optimizer_runs_on():
    config = {"optimizer_level": "level2", "parallel_optimizer_threshold": 0}
    ms.set_auto_parallel_context(parallel_mode="auto_parallel", search_mode="dynamic_programming",
                                 enable_parallel_optimizer=True, parallel_optimizer_config=config)
    net = MLP()
    step = nn.TrainOneStepCell(net, OPTIMIZERS["Adam"](net.trainable_params()))
    with simulate(4) as run:
        losses = [float(step(x, y).asnumpy()) for x, y in BATCHES]
    ms.reset_auto_parallel_context()
    _assert_same(net, step.optimizer, losses, "Adam")
    # every parameter's state is cut over the 4 ranks, whatever cuts the search gave the parameter
    sharded = run.sharded_optimizer(step)
    assert sharded.memory(0)["state"] == 2 * WHOLE * 8 // 4


def test_a_graph_mode_context_trains_the_same():
    # the step is recorded and partitioned as PyNative calls; the single-process reference runs compiled
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net, step, _, losses, _ = _train("4", "Adam", level="level3")
        ms.reset_auto_parallel_context()
        _assert_same(net, step.optimizer, losses, "Adam")
        assert ms.get_context("mode") == ms.GRAPH_MODE
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_model_train_runs_the_parallel_optimizer():
    n, strategies, _ = MESHES["2x2"]
    _configure("2x2", "level2")
    net = MLP(**strategies)
    opt = OPTIMIZERS["Adam"](net.trainable_params())
    xs = np.concatenate([x.asnumpy() for x, _ in BATCHES])
    ys = np.concatenate([y.asnumpy() for _, y in BATCHES])
    data = NumpySlicesDataset((xs, ys), column_names=["x", "y"], shuffle=False).batch(8)
    model = ms.train.Model(net, optimizer=opt)
    with simulate(n) as run:
        model.train(1, data)
    assert len(run.executions) == 3
    ref, ref_opt, _ = _reference("Adam")
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    assert run.sharded_optimizer(model.train_network).level == "level2"


def test_without_the_parallel_optimizer_the_gradients_are_all_reduced():
    net, step, run, losses, logs = _train("4", "Momentum", level="level1", enable=False)
    _assert_same(net, step.optimizer, losses, "Momentum")
    assert run.sharded_optimizer(step) is None
    # the loss's partial mean, then each gradient of the data-parallel weights
    assert all(kinds == ["AllReduce"] * 4 for kinds in logs)


def test_parameters_below_the_threshold_keep_whole_state():
    # MindSpore's default threshold is 64 KB: none of the MLP's parameters (at most 384 B) is cut
    _, step, run, _, logs = _train("4", "Adam", level="level1", threshold=None)
    sharded = run.sharded_optimizer(step)
    assert sharded.memory(0)["state"] == 2 * WHOLE * 8
    assert all("ReduceScatter" not in kinds for kinds in logs)


def test_return_grad_gives_the_whole_gradients():
    n, strategies, _ = MESHES["2"]
    _configure("2", "level2")
    net, ref = MLP(**strategies), MLP()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1), return_grad=True)
    x, y = BATCHES[0]
    with simulate(n):
        loss, grads = step(x, y)
    ref_loss, ref_grads = ms.value_and_grad(ref, None, ref.trainable_params())(x, y)
    np.testing.assert_allclose(loss.asnumpy(), ref_loss.asnumpy(), rtol=0, atol=1e-12)
    assert list(grads) == ["w1", "b1", "w2"]
    for g, r in zip(grads.values(), ref_grads):
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=0, atol=1e-12)


def test_simulated_steps_check_the_context():
    net = MLP()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
    x, y = BATCHES[0]
    with simulate(2):
        with pytest.raises(ValueError, match="'parallel_mode' must be one of semi_auto_parallel, auto_parallel, "
                                             "but got 'stand_alone'"):
            step(x, y)
        ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=4)
        with pytest.raises(ValueError, match="'device_num' 4 of the context must be the world's size 2"):
            step(x, y)
        ms.set_auto_parallel_context(device_num=2, dataset_strategy=((2, 1),))
        with pytest.raises(ValueError, match="must hold one strategy per input tensor, but the step has 2"):
            step(x, y)
        ms.set_auto_parallel_context(dataset_strategy="data_parallel")
        scaled = nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params(), 0.1),
                                                  scale_sense=Tensor(np.float64(1.0)))
        with pytest.raises(TypeError, match="TrainOneStepWithLossScaleCell overrides 'construct'"):
            scaled(x, y)
        with pytest.raises(ValueError, match="The strategy is \\(\\(2, 1\\)\\), shape 3 can not be divisible"):
            step(Tensor(np.ones((3, 4))), Tensor(np.ones((3, 6))))
    # outside the block the cell runs in this process again
    assert step(x, y).shape == ()


def _pipeline_cell(widths, stage_of, micro, strategy=None):
    net = Net(widths, strategy)
    for layer, stage in zip(net.layers, stage_of):
        if stage is not None:       # MindSpore refuses pipeline_stage = None: an unassigned layer keeps its default
            layer.pipeline_stage = stage
    return nn.PipelineCell(WithLoss(net), micro)


def _pipeline_training(stages, devices, interleave, opt_name, **context):
    """Three steps of a pipeline of 2 * stages layers (layer i on stage i % stages when interleaved, else on stage
    i // 2), data parallel inside each stage, through TrainOneStepCell; and the same single-process steps."""
    layers = 2 * stages
    stage_of = [i % stages if interleave else i // 2 for i in range(layers)]
    widths = (4,) + (6,) * layers
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=stages,
                                 pipeline_config={"pipeline_interleave": interleave, "pipeline_scheduler": "1f1b"},
                                 **context)
    cell = _pipeline_cell(widths, stage_of, 4, ((devices // stages, 1), (1, 1)))
    step = nn.TrainOneStepCell(cell, OPTIMIZERS[opt_name](cell.trainable_params()))
    batches = [(Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 6)))) for _ in range(3)]
    with simulate(devices) as run:
        losses = [float(step(x, y).asnumpy()) for x, y in batches]
    ms.reset_auto_parallel_context()
    ref = _pipeline_cell(widths, (None,) * layers, 4)
    ref_step = nn.TrainOneStepCell(ref, OPTIMIZERS[opt_name](ref.trainable_params()))
    np.testing.assert_allclose(losses, [float(ref_step(x, y).asnumpy()) for x, y in batches], rtol=0, atol=1e-12)
    for p, q in zip(cell.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    ours = {q.name: q for _, q in step.optimizer.parameters_and_names()}
    for _, q in ref_step.optimizer.parameters_and_names():
        np.testing.assert_allclose(ours[q.name].asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    return step, run


@pytest.mark.parametrize("interleave", [False, True])
def test_train_one_step_cell_runs_pipeline_stages(interleave):
    # 2 stages of 2 ranks (data parallel inside each); interleaved: the layers go round the stages twice
    _, run = _pipeline_training(2, 4, interleave, "Momentum")
    last = run.executions[-1]
    assert [ex.world.size for ex in last.stages] == [2, 2] and last.chunks == (2 if interleave else 1)
    ms.set_auto_parallel_context(pipeline_config={"pipeline_interleave": interleave, "pipeline_scheduler": "1f1b"})
    assert last.schedule() == _schedule.schedule("1f1b", 2, 4, last.chunks, interleave)


@pytest.mark.parametrize("level", ["level1", "level2", "level3"])
@pytest.mark.parametrize("stages, devices, interleave", [(2, 4, False), (2, 4, True), (4, 8, False)])
def test_the_parallel_optimizer_inside_pipeline_stages(stages, devices, interleave, level):
    step, run = _pipeline_training(stages, devices, interleave, "Adam", enable_parallel_optimizer=True,
                                   parallel_optimizer_config={"optimizer_level": level,
                                                              "parallel_optimizer_threshold": 0})
    sharded = run.sharded_optimizer(step)
    last = run.executions[-1]
    # each weight's Adam moments cut over the 2 data-parallel ranks of its stage (w: 6 rows, b: 6 entries)
    for p in step.optimizer.parameters:
        assert sharded.opt_layouts[id(p)].local_shape[0] == p.shape[0] // 2
    assert sharded.state_bytes(0) == 2 * sum(int(np.prod(p.shape)) * 8 for p in step.optimizer.parameters) // 2
    whole = sum(int(np.prod(p.shape)) * 8 for p in step.optimizer.parameters)
    assert sharded.memory(0)["grads"] == (whole // 2 if level != "level1" else whole)
    if level == "level3":  # the ranks start the step with the weight slices of their stage only
        assert sharded.memory(0)["params"] == whole // 2
        for p in step.optimizer.parameters:
            assert last.layout_of(p) == sharded.opt_layouts[id(p)]
            assert [s for s, ex in enumerate(last.stages) if id(p) in ex._executor.env] == [last.stage_of(p)]
