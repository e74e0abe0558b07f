"""The pieces of a pipeline (and of the parallel optimizer) on processes holding only their part of the Parameters,
run in one process: an abstract pipeline recording run with its leaves' shards given (`record_pipeline(...,
abstract=True)`, `execute_pipeline(..., shards=)`), a shapes-only pipeline (`execute_pipeline(world=ShapeWorld)`),
the optimizer updating only the Parameters held (`_sliced.update_held`), a stage's first step initializing only its
Parameters, a Parameter shared by stages held by the first (`owners`), a checkpoint skipping the Parameters held
elsewhere, and the parallel optimizer's layout rule (`_zero.optimizer_layout`, `checked_config`) and first step.
tests/communication/test_sliced_processes.py runs them on gloo processes."""
import weakref

import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn
from mindseed.common import _parallel
from mindseed.common.initializer import Normal, initializer
from mindseed.parallel import _sliced
from mindseed.parallel._layout import TensorLayout, shard_array
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline
from mindseed.parallel._spmd import record
from mindseed.parallel._train import SimulatedTraining
from mindseed.parallel._world import ShapeWorld, SimulatedWorld
from mindseed.parallel._zero import checked_config, optimizer_layout

from _mlp import Drawn, lazy_mlp
from _pipeline_model import Net, WithLoss

RNG = np.random.default_rng(5)
X, Y = RNG.standard_normal((8, 4)), RNG.standard_normal((8, 4))


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-12)


def _cell(lazy=False, tie=False):
    """The 2-stage pipeline (layers 0 and 1 on stage 0, layer 2 on stage 1, 4 micro-batches). `lazy`: its Parameters
    drawn by seeded `Drawn`s, waiting for their initialization; `tie`: layer 2 reads layer 0's weight too (a
    Parameter two stages read)."""
    net = Net((4, 6, 5, 4))
    for k, (layer, stage) in enumerate(zip(net.layers, (0, 0, 1))):
        layer.pipeline_stage = stage
        for j, name in enumerate(("w", "b") if lazy else ()):
            shape = tuple(getattr(layer, name).shape)
            with nn.utils.no_init_parameters():
                setattr(layer, name, Parameter(initializer(Drawn(10 * k + j), shape, ms.float64), name=name))
    if tie:
        last, first = net.layers[2], net.layers[0]
        inner = type(last).construct
        last.construct = lambda x: inner(last, x) + first.w.sum() * 0
    return nn.PipelineCell(WithLoss(net), 4)


@pytest.mark.parametrize("devices,data", [(2, None), (4, (2, 1))])
def test_an_abstract_pipeline_recording_with_given_shards_equals_the_whole_run(devices, data):
    cell = _cell()
    params = cell.trainable_params()
    grad_fn = ms.value_and_grad(cell, None, params)
    x, y = Tensor(X), Tensor(Y)
    loss, grads = grad_fn(x, y)
    per = devices // 2
    whole = execute_pipeline(record_pipeline(grad_fn, cell, x, y), 2, devices, [(x, data), (y, data)] if data else
                             None, scheduler="1f1b")
    layouts = {p.name: whole.layout_of(p) for p in params}
    sliced = {id(p): (p, tuple(p.shape), layouts[p.name]) for p in params}
    xs, ys = _sliced.stand_in(X.shape, x.dtype), _sliced.stand_in(Y.shape, y.dtype)
    with _sliced.standing_whole(sliced):
        program = record_pipeline(grad_fn, cell, xs, ys, abstract=True)
    given = [(p, layouts[p.name]) for p in params]
    shards = [(p, shard_array(p.asnumpy(), layouts[p.name])) for p in params]
    for t, a in ((xs, X), (ys, Y)):
        layout = TensorLayout.from_strategy(a.shape, data or (1, 1), per)
        given.append((t, layout))
        shards.append((t, shard_array(a, layout)))
    # the layouts only: the same stages, layouts and Sends as the run on the ranks, no array computed
    probe = execute_pipeline(program, 2, devices, given, scheduler="1f1b", world=ShapeWorld(devices))
    assert [p.name for p in params if probe.stage_of(p) == 1] == ["net.layers.2.w", "net.layers.2.b"]
    assert all(probe.layout_of(p) == layouts[p.name] for p in params)
    assert all(ex._executor.env[id(o)].shards is None for ex in probe.stages for o in program.outputs
               if id(o) in ex._executor.env)
    with _sliced.standing_whole(sliced):   # the Parameters hold no data: the stages read the shards given
        ex = execute_pipeline(program, 2, devices, given, scheduler="1f1b", shards=shards)
    assert [(a, b, r.input_bytes) for a, b, r in ex.p2p] == [(a, b, r.input_bytes) for a, b, r in whole.p2p] == \
        [(a, b, r.input_bytes) for a, b, r in probe.p2p]
    assert [rec.kind for st in ex.stages for rec in st.world.log] == \
        [rec.kind for st in whole.stages for rec in st.world.log]
    got_loss, got_grads = program.result
    _close(ex.whole(got_loss), loss.asnumpy())
    for p, g, want in zip(params, got_grads, grads):
        _close(ex.whole(g, layouts[p.name]), want.asnumpy())


def test_the_optimizer_updates_only_the_parameters_held():
    a = Parameter(Tensor(np.arange(4.0)), name="a")
    b = Parameter(Tensor(np.ones((2, 3))), name="b")
    opt = nn.Momentum([a, b], learning_rate=0.5, momentum=0.5)
    states, _ = _sliced.optimizer_states(opt)
    absent = [b] + states[id(b)]
    for x in absent:   # another stage's: no data here
        _sliced.drop_data(x)
    assert _sliced.held_bytes([a, b]) == 4 * 8 and _sliced.held_bytes(states[id(a)] + states[id(b)]) == 4 * 8
    for _ in range(2):
        _sliced.update_held(opt, [np.full(4, 2.0), None], absent)
    # momentum: v = 0.5 v + g, p -= 0.5 v: v1 = 2, v2 = 3
    _close(a.asnumpy(), np.arange(4.0) - 0.5 * (2.0 + 3.0))
    _close(states[id(a)][0].asnumpy(), np.full(4, 3.0))
    assert not _sliced.holds_data(b) and tuple(b.shape) == (2, 3) and not _sliced.holds_data(states[id(b)][0])
    assert int(opt.global_step.asnumpy().reshape(-1)[0]) == 2


def test_the_parallel_optimizers_layout_of_a_parameter():
    p = Parameter(Tensor(np.zeros((4, 6))), name="w")
    odd = Parameter(Tensor(np.zeros((5, 4))), name="v")
    layout = TensorLayout.from_strategy((4, 6), (1, 1), 2)
    opt = optimizer_layout(p, layout, -1)
    assert opt.local_shape == (2, 6) and opt.cuts(0) == 2
    assert optimizer_layout(p, layout, 1) == layout                  # a shard size of 1: whole
    assert optimizer_layout(p, layout, -1, threshold=1) == layout    # 192 B below 1 KB: whole
    odd_layout = TensorLayout.from_strategy((5, 4), (1, 1), 2)
    assert optimizer_layout(odd, odd_layout, -1) == odd_layout         # dim 0 not divisible: whole
    cut = TensorLayout.from_strategy((4, 6), (1, 2), 2)               # no repeated rank: whole
    assert optimizer_layout(p, cut, -1) == cut
    momentum = nn.Momentum([p], learning_rate=0.1, momentum=0.9)
    assert checked_config(momentum, 2, "level3") == (2, "level3")
    assert checked_config(nn.LARS(nn.SGD([p], learning_rate=0.1)), 2, "level1") == (2, "level1")  # norms: reduced
    with pytest.raises(TypeError, match="must be one of SGD, Momentum, Adam.* or Lamb, LARS, AdaFactor .*but got "
                                        "RMSProp"):
        checked_config(nn.RMSProp([p], learning_rate=0.1))
    with pytest.raises(ValueError, match="'optimizer_weight_shard_size' must be -1 or a positive int, but got 0"):
        checked_config(momentum, 0)
    with pytest.raises(ValueError, match="'optimizer_level' must be one of level1, level2, level3, but got 'level4'"):
        checked_config(momentum, -1, "level4")


def test_a_checkpoint_skips_the_parameters_another_process_holds(tmp_path):
    net = Net((2, 3, 2))
    with nn.utils.no_init_parameters():
        net.layers[1].w = Parameter(initializer(Normal(), (3, 2), ms.float64), name="w")
    other = net.layers[1].w
    _parallel.parameter_elsewhere[id(other)] = weakref.ref(other)
    try:
        path = str(tmp_path / "stage.ckpt")
        ms.save_checkpoint(net, path)
        saved = ms.load_checkpoint(path)
    finally:
        del _parallel.parameter_elsewhere[id(other)]
    assert sorted(saved) == ["layers.0.b", "layers.0.w", "layers.1.b"]
    _close(saved["layers.0.w"].asnumpy(), net.layers[0].w.asnumpy())
    assert other.has_init and not _sliced.holds_data(other)   # neither initialized nor saved


def _abstract_program(cell):
    xs, ys = _sliced.stand_in(X.shape, ms.float64), _sliced.stand_in(Y.shape, ms.float64)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, xs, ys, abstract=True)
    return program, [(xs, TensorLayout.from_strategy(X.shape, (1, 1), 1)), (ys, TensorLayout.from_strategy(Y.shape,
                                                                                                          (1, 1), 1))]


def test_a_stage_initializes_only_its_own_parameters():
    cell = _cell(lazy=True)
    opt = nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9)
    step = nn.TrainOneStepCell(cell, opt)
    reference = _cell(lazy=True)
    program, layouts = _abstract_program(cell)
    runner = SimulatedTraining(SimulatedWorld(2))
    runner._init_stage_slices(step, program, layouts, 2, 1, 0)    # the process of stage 1
    mine = ["net.layers.2.w", "net.layers.2.b"]
    for p, want in zip(cell.trainable_params(), reference.trainable_params()):
        if p.name in mine:   # initialized: the single process's values, and its momentum (zeros)
            assert not p.has_init and p.sliced
            _close(p.asnumpy(), want.init_data().asnumpy())
        else:                # stage 0's: still waiting, no data, not saved here
            assert p.has_init and not _sliced.holds_data(p) and _parallel.held_elsewhere(p)
    states, _ = _sliced.optimizer_states(opt)
    assert _sliced.held_bytes(cell.trainable_params()) == 24 * 8
    assert _sliced.held_bytes([q for qs in states.values() for q in qs]) == 24 * 8


def test_a_parameter_two_stages_read_is_held_by_the_first():
    for mine in (0, 1):
        cell = _cell(lazy=True, tie=True)
        step = nn.TrainOneStepCell(cell, nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9))
        program, layouts = _abstract_program(cell)
        w = cell.network.net.layers[0].w
        runner = SimulatedTraining(SimulatedWorld(2))
        runner._init_stage_slices(step, program, layouts, 2, mine, 0)
        assert [(p.name, s) for p, s, _ in runner._owned.values()] == [("net.layers.0.w", 0)]
        assert (id(w) in runner._sliced) == (mine == 0) and (id(w) in runner._absent) == (mine == 1)


def test_a_parameter_shared_by_stages_held_by_its_first_stage():
    # the shared weight (a tied embedding) lives on stage 0; stage 1 receives it (one Send per step) and sends its
    # gradient part back to be summed on stage 0
    cell = _cell(tie=True)
    params = cell.trainable_params()
    grad_fn = ms.value_and_grad(cell, None, params)
    x, y = Tensor(X), Tensor(Y)
    loss, grads = grad_fn(x, y)
    program = record_pipeline(grad_fn, cell, x, y)
    whole = execute_pipeline(program, 2, 2, scheduler="1f1b")
    w = cell.network.net.layers[0].w
    assert [s for s, e in enumerate(whole.stages) if id(w) in e._executor.env] == [0, 1]   # a copy on each stage
    run = execute_pipeline(program, 2, 2, [(w, whole.layout_of(w))], scheduler="1f1b", owners=[(w, 0)])
    assert run.stage_of(w) == 0
    sends = [(a, b, r.input_bytes) for a, b, r in run.p2p]
    before = [(a, b, r.input_bytes) for a, b, r in whole.p2p]
    assert (1, 0, 4 * 6 * 8) in before      # stage 1's gradient part goes to stage 0 either way
    assert sorted(sends) == sorted(before + [(0, 1, 4 * 6 * 8)])
    got_loss, got_grads = program.result
    _close(run.whole(got_loss), loss.asnumpy())
    for p, g, want in zip(params, got_grads, grads):
        _close(run.whole(g, whole.layout_of(p)), want.asnumpy())
    assert run.stage_of(got_grads[0]) == 0
    with pytest.raises(ValueError, match=r"a leaf of shape \(4, 6\) held by stage 0 must have a given layout"):
        execute_pipeline(program, 2, 2, owners=[(w, 0)])


@pytest.mark.parametrize("level", ["level1", "level3"])
def test_the_parallel_optimizer_initializes_the_optimizer_slices(level):
    # data parallel on 2 ranks: rank 0's half (dim 0) of every weight and of both Adam moments, at every level;
    # level3 gathers the cut weights again for the backward pass
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", enable_parallel_optimizer=True,
                                 parallel_optimizer_config={"optimizer_level": level,
                                                            "parallel_optimizer_threshold": 0})
    try:
        net = lazy_mlp()
        step = nn.TrainOneStepCell(net, nn.Adam(net.trainable_params(), learning_rate=0.01))
        xs, ys = _sliced.stand_in((8, 4), ms.float64), _sliced.stand_in((8, 6), ms.float64)
        program = record(step._loss_and_grads, xs, ys, abstract=True)
        layouts = [(xs, TensorLayout.from_strategy((8, 4), (2, 1), 2)), (ys, TensorLayout.from_strategy((8, 6),
                                                                                                         (2, 1), 2))]
        runner = SimulatedTraining(SimulatedWorld(2))
        runner._init_slices(step, program, layouts)
    finally:
        ms.reset_auto_parallel_context()
    reference = lazy_mlp()
    for p, want in zip(net.trainable_params(), reference.trainable_params()):
        assert p.sliced and tuple(p.shape) == (want.shape[0] // 2,) + tuple(want.shape[1:])
        _close(p.asnumpy(), np.split(want.init_data().asnumpy(), 2)[0])
    states, _ = _sliced.optimizer_states(step.optimizer)
    assert _sliced.held_bytes(net.trainable_params()) == 44 * 8
    assert _sliced.held_bytes([q for qs in states.values() for q in qs]) == 2 * 44 * 8
    assert len(runner._regather) == (3 if level == "level3" else 0)
