"""Sharded plans on real processes (gloo): each process runs its rank's shards of the recorded step with the real
collectives (`_process_world.ProcessWorld`, the world object the simulated runs take), and gets the single-process
loss and gradients (float64, 1e-12) at 2 and 4 ranks: data parallel, column/row tensor parallel (Megatron's MLP),
data x tensor, and ZeRO levels 1 and 3 through `nn.TrainOneStepCell` under semi_auto_parallel (each rank feeding
its slice of the batch). A tensor-parallel MLP trained 2 steps at 2 ranks saves one checkpoint per rank with its
strategy file; it loads at 1 rank (`load_distributed_checkpoint`, `transform_checkpoints`) and at 4 ranks with another
strategy (loaded whole and run sharded; `transform_checkpoint_by_rank` to each rank's slices), giving the
single-process outputs. At 4 ranks a 2-stage pipeline with data parallel inside the stages gives the single-process
loss and gradients, and trains with the parallel optimizer inside the stages on lazily initialized Parameters (each
process holding its stage's slices only); at 2 ranks the parallel optimizer inside the stages cuts Parameters holding
data on the first step.

Convolutions cut along H (2 ranks) and H and W (4 ranks) exchange their overlapping rows between the processes
(sends and receives with the neighbours) and give the single-process loss and gradients.

Two launches (2 workers, then 4 workers reading the first one's checkpoint); workers in _parallel_worker.py.
"""
import json
import os
import sys

import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "parallel"))
from _mlp import MLP, lazy_mlp  # noqa: E402
from _parallel_worker import BATCHES, CHECKPOINT_PLAN, GROUPINGS, LOAD_PLAN, PLANS, SLICED, rank_array  # noqa: E402
from _parallel_worker import SPATIAL, ZERO_OPTIMIZERS  # noqa: E402
from _spatial_net import Net as SpatialNet, X as SPATIAL_X  # noqa: E402
from _pipeline_worker import X as PIPE_X, Y as PIPE_Y, batches as pipeline_batches, pipeline_cell  # noqa: E402
from _sliced_worker import pipeline_batches as sliced_pipeline_batches  # noqa: E402
from _sliced_worker import pipeline_cell as sliced_pipeline_cell  # noqa: E402
from _workers import clean_env, free_port, run  # noqa: E402

from mindseed.parallel._layout import shard_array  # noqa: E402
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline  # noqa: E402
from mindseed.parallel._spmd import execute, record  # noqa: E402
from mindseed.parallel._world import SimulatedWorld  # noqa: E402


def _launch(directory, scenario, n):
    env = clean_env(MS_WORKER_NUM=str(n), MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(free_port()),
                    MS_TOPO_TIMEOUT="60")
    workers = [(f"{scenario}{r}", [os.path.join(HERE, "_parallel_worker.py"), scenario, str(directory)],
                dict(env, MS_NODE_ID=str(r))) for r in range(n)]
    run(directory, workers)
    return [json.loads((directory / f"result_{r}.json").read_text()) for r in range(n)]


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    directory = tmp_path_factory.mktemp("two_ranks")
    return directory, _launch(directory, "save", 2)


@pytest.fixture(scope="module")
def four(two):
    directory, _ = two
    return _launch(directory, "load", 4)


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=0, atol=1e-12)


def _one_step(net):
    x, y = (Tensor(a) for a in BATCHES[0])
    loss, grads = ms.value_and_grad(net, None, net.trainable_params())(x, y)
    return loss.asnumpy(), {p.name: g.asnumpy() for p, g in zip(net.trainable_params(), grads)}


def _simulated_kinds(name):
    """The collectives of the plan on a SimulatedWorld of the same size (the process world logs the same)."""
    n, strategies, data = PLANS[name]
    net = MLP(**strategies)
    x, y = (Tensor(a) for a in BATCHES[0])
    program = record(ms.value_and_grad(net, None, net.trainable_params()), x, y)
    world = SimulatedWorld(n)
    execute(program, world, [(x, data), (y, data)] if data else None)
    return [rec.kind for rec in world.log]


def _check_plans(results, size):
    loss, grads = _one_step(MLP())
    names = sorted(name for name, plan in PLANS.items() if plan[0] == size)
    assert len(names) >= 2
    for res in results:
        assert res["size"] == size and sorted(res["plans"]) == names
        for name in names:
            got = res["plans"][name]
            _close(got["loss"], loss)
            for p, g in grads.items():
                _close(got["grads"][p], g)
    for name in names:
        kinds = _simulated_kinds(name)
        assert kinds and all(res["plans"][name]["kinds"][:len(kinds)] == kinds for res in results)
    return names


@pytest.mark.parametrize("which", ["two", "four"])
def test_convolutions_cut_along_h_and_w_exchange_their_overlaps_between_processes(request, which):
    results = request.getfixturevalue(which)
    results = results[1] if which == "two" else results
    size = len(results)
    ref = SpatialNet()
    loss, grads = ms.value_and_grad(ref, None, ref.trainable_params())(SPATIAL_X)
    net = SpatialNet(SPATIAL[size])
    world = SimulatedWorld(size)
    execute(record(ms.value_and_grad(net, None, net.trainable_params()), SPATIAL_X), world)
    halos = [[r.group_size, r.groups, r.input_bytes, r.sent_bytes] for r in world.log if r.kind == "NeighborExchange"]
    assert len(halos) == 5 * (size // 2)
    for res in results:
        got = res["spatial"]
        _close(got["loss"], loss.asnumpy())
        for p, g in zip(ref.trainable_params(), grads):
            _close(got["grads"][p.name], g.asnumpy())
        # the processes exchange what the simulated ranks do, with the same bytes
        assert got["halos"] == halos and got["kinds"] == [r.kind for r in world.log]


def test_plans_on_two_processes_equal_one_process(two):
    names = _check_plans(two[1], 2)
    assert names == ["column_row_2", "data_2"]
    # Megatron's MLP: the row product's partial sum is all-reduced, and data parallel all-reduces the gradients
    assert "AllReduce" in two[1][0]["plans"]["column_row_2"]["kinds"]


def test_plans_on_four_processes_equal_one_process(four):
    assert _check_plans(four, 4) == ["column_row_4", "data_4", "data_x_tensor_4"]


def test_the_parallel_optimizer_inside_pipeline_stages_cuts_parameters_holding_data(two):
    cell = pipeline_cell()
    step = nn.TrainOneStepCell(cell, nn.Momentum(cell.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in pipeline_batches()]
    first, last = (res["pipeline_parallel_optimizer"] for res in two[1])
    _close(last["losses"], losses)
    assert first["losses"] == [0.0, 0.0]
    # after the first step each process holds its stage's Parameters only: layers 0, 1 (65 values), layer 2 (24)
    assert sorted(first["params"]) == ["net.layers.0.b", "net.layers.0.w", "net.layers.1.b", "net.layers.1.w"]
    assert sorted(last["params"]) == ["net.layers.2.b", "net.layers.2.w"]
    assert [first["param_bytes"], last["param_bytes"]] == [65 * 8, 24 * 8]
    for p in cell.trainable_params():
        _close({**first["params"], **last["params"]}[p.name], p.asnumpy())


def _opt_slice(value, index):
    """Rank `index`'s optimizer slice of `value` on 2 ranks: half of dim 0, or whole when 2 does not divide it."""
    return np.split(value, 2)[index] if value.shape[0] % 2 == 0 else value


def test_the_parallel_optimizer_inside_pipeline_stages_on_processes_holding_their_slices(four):
    # 2 stages of 2 data-parallel processes, lazily initialized Parameters, Adam at level3: each process holds its
    # stage's weights and moments in the optimizer's slices (dim 0 halved where it divides), no other stage's
    cell = sliced_pipeline_cell(lazy=False)
    step = nn.TrainOneStepCell(cell, nn.Adam(cell.trainable_params(), learning_rate=0.01))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in sliced_pipeline_batches()]
    states = {q.name: q.asnumpy() for _, q in step.optimizer.parameters_and_names()
              if q.name.startswith(("moment1.", "moment2."))}
    for rank, res in enumerate(four):
        got = res["pipeline_zero"]
        stage, index = divmod(rank, 2)
        if stage:
            _close(got["losses"], losses)
        else:
            assert got["losses"] == [0.0, 0.0]
        names = [p.name for p in cell.trainable_params() if (p.name >= "net.layers.2") == bool(stage)]
        assert sorted(got["params"]) == sorted(names)
        for p in cell.trainable_params():
            if p.name in names:
                _close(got["params"][p.name], _opt_slice(p.asnumpy(), index))
                for prefix in ("moment1.", "moment2."):
                    _close(got["states"][prefix + p.name], _opt_slice(states[prefix + p.name], index))
        # stage 0: w0 (4, 6) and w1 (6, 5) halved, b0 (6,) halved, b1 (5,) whole; stage 1: w2 (5, 4) whole, b2 halved
        assert got["param_bytes"] == (35 if stage == 0 else 22) * 8
        assert got["state_bytes"] == 2 * got["param_bytes"]
        # per step in the stage: the cut weights all-gathered, their gradients reduce-scattered, the others (and the
        # loss on the last stage) all-reduced
        step_kinds = {"AllGather": 3, "ReduceScatter": 3, "AllReduce": 1} if stage == 0 else \
            {"AllGather": 1, "ReduceScatter": 1, "AllReduce": 2}
        assert {k: got["log"].count(k) for k in step_kinds} == {k: 2 * v for k, v in step_kinds.items()}
        assert len(got["log"]) == 2 * sum(step_kinds.values())


def test_a_pipeline_of_two_stages_of_two_data_parallel_processes(four):
    # stage 0 is ranks 0 and 1, stage 1 ranks 2 and 3: each stage's gradients all-reduced in its own group
    cell = pipeline_cell()
    loss, grads = ms.value_and_grad(cell, None, cell.trainable_params())(Tensor(PIPE_X), Tensor(PIPE_Y))
    assert [res["pipeline"]["stage"] for res in four] == [0, 0, 1, 1]
    for res in four[2:]:
        _close(res["pipeline"]["loss"], loss.asnumpy())
    for p, g in zip(cell.trainable_params(), grads):
        holders = [res for res in four if p.name in res["pipeline"]["grads"]]
        assert len(holders) == 2
        for res in holders:
            _close(res["pipeline"]["grads"][p.name], g.asnumpy())
    # rank i of stage 0 sends to rank i of stage 1 what the simulated pipeline sends: each micro-batch's activation
    # and its gradient back, each rank its half of the micro-batch's rows (the micro-batch slices keep the data's
    # batch cut: tests/parallel/test_micro_batch_slices.py)
    x, y = Tensor(PIPE_X), Tensor(PIPE_Y)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, x, y)
    sim = execute_pipeline(program, 2, 4, [(x, (2, 1)), (y, (2, 1))], scheduler="1f1b")
    sends = [[a, b, rec.input_bytes] for a, b, rec in sim.p2p]
    assert sorted(sends) == sorted([[0, 1, 1 * 5 * 8], [1, 0, 1 * 5 * 8]] * 4)
    assert all(res["pipeline"]["sends"] == sends for res in four)


def test_the_process_world_equals_the_simulated_world_in_any_group_order(four):
    sim = SimulatedWorld(4)
    values = [rank_array(r) for r in range(4)]
    for i, groups in enumerate(GROUPINGS):
        want = [sim.all_reduce(values, groups), sim.all_gather(values, groups, axis=1),
                sim.reduce_scatter(values, groups, axis=1), sim.all_to_all(values, groups, 0, 1),
                sim.broadcast(values, groups, root=1)]
        for r, res in enumerate(four):
            got = res["collectives"][0][i]
            for k in range(5):
                np.testing.assert_array_equal(got[k], want[k][r])
    log = [[rec.kind, rec.group_size, rec.groups, rec.input_bytes, rec.sent_bytes] for rec in sim.log]
    assert all(res["collectives"][1] == log for res in four)


def _zero_reference(optimizer="adam"):
    net = MLP()
    step = nn.TrainOneStepCell(net, ZERO_OPTIMIZERS[optimizer](net.trainable_params()))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in BATCHES]
    return losses, net, step.optimizer


@pytest.mark.parametrize("level", ["level1", "level3", "level3-graph", "level1-lamb"])
@pytest.mark.parametrize("which", ["two", "four"])
def test_zero_through_train_one_step_cell(request, which, level):
    # level1-lamb: Lamb's norms of the update all-reduced over the slices on the processes
    results = request.getfixturevalue(which)
    results = results[1] if which == "two" else results
    losses, net, opt = _zero_reference("lamb" if level.endswith("lamb") else "adam")
    state = {q.name: q.asnumpy() for _, q in opt.parameters_and_names()}
    whole_state = sum(v.nbytes for k, v in state.items() if k.startswith(("moment", "lamb_")))
    for res in results:
        zero = res["zero"][level]
        _close(zero["losses"], losses)
        for p in net.trainable_params():
            _close(zero["params"][p.name], p.asnumpy())
        for name, value in state.items():
            _close(zero["state"][name], value)
        assert zero["state_bytes"] == whole_state // len(results)   # each rank holds 1/n of the moments
        # in GRAPH_MODE the processes partition the step's graph (with the weights gathered again at its loss node)
        assert zero["graph"] == (level == "level3-graph")


def _trained_reference():
    net = MLP()
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in BATCHES]
    return losses, net


def test_a_checkpoint_saved_at_two_ranks_loads_at_one(two, tmp_path):
    directory, results = two
    losses, reference = _trained_reference()
    for res in results:
        _close(res["saved"]["losses"], losses)
        for p in reference.trainable_params():
            _close(res["saved"]["params"][p.name], p.asnumpy())
    src = str(directory / "strategy_0.ckpt")
    assert (directory / "strategy_1.ckpt").read_bytes() == (directory / "strategy_0.ckpt").read_bytes()
    strategy = ms.build_searched_strategy(src)
    assert strategy["w1"].tensor_map[0].dim == [-1, 0] and strategy["w2"].tensor_map[0].dim == [0, -1]
    files = [str(directory / f"rank_{r}" / f"net{r}.ckpt") for r in range(2)]
    # each rank saved its half (save_checkpoint(net, ..., integrated_save=False)), the whole with integrated_save
    halves = [ms.load_checkpoint(f) for f in files]
    _close(np.concatenate([h["w1"].asnumpy() for h in halves], 1), reference.w1.asnumpy())
    _close(np.concatenate([h["w2"].asnumpy() for h in halves], 0), reference.w2.asnumpy())
    for r, res in enumerate(results):
        for name, value in res["saved"]["rank_parameters"].items():
            np.testing.assert_array_equal(halves[r][name].asnumpy(), value)
        whole = ms.load_checkpoint(str(directory / f"whole_{r}.ckpt"))
        for p in reference.trainable_params():
            _close(whole[p.name].asnumpy(), p.asnumpy())
    # loaded into a fresh single-process network: the trained model's outputs
    fresh = MLP(seed=9)
    assert ms.load_distributed_checkpoint(fresh, files, None, src) is True
    want, want_grads = _one_step(reference)
    got, got_grads = _one_step(fresh)
    _close(got, want)
    for name, g in want_grads.items():
        _close(got_grads[name], g)
    # transformed to one rank (no destination strategy: whole parameters)
    ms.transform_checkpoints(str(directory), str(tmp_path / "one"), "whole_", src, None)
    whole = ms.load_checkpoint(str(tmp_path / "one" / "rank_0" / "whole_0.ckpt"))
    for p in reference.trainable_params():
        _close(whole[p.name].asnumpy(), p.asnumpy())


def test_a_checkpoint_saved_at_two_ranks_loads_at_four_with_another_strategy(two, four):
    directory, _ = two
    _, reference = _trained_reference()
    want, want_grads = _one_step(reference)
    for res in four:
        loaded = res["loaded"]
        _close(loaded["loss"], want)
        for name, g in want_grads.items():
            _close(loaded["grads"][name], g)
    # the 4-rank strategy cuts differently from the 2-rank one; each rank's transformed file holds its slices
    dst = ms.build_searched_strategy(str(directory / "dst_strategy_0.ckpt"))
    src = ms.build_searched_strategy(str(directory / "strategy_0.ckpt"))
    assert dst["w1"].dev_matrix[0].dim != src["w1"].dev_matrix[0].dim
    from mindseed.parallel._strategy_file import tensor_layout  # noqa: PLC0415
    for r, res in enumerate(four):
        for name, (got, cut) in res["loaded"]["transformed"].items():
            np.testing.assert_array_equal(got, cut)
            p = getattr(reference, name)
            _close(got, shard_array(p.asnumpy(), tensor_layout(dst[name], p.shape))[r])
    assert LOAD_PLAN != CHECKPOINT_PLAN


def _sliced_reference(name):
    """Losses and trained parameters of the lazily initialized MLP on one process, and the layouts the plan cuts
    the parameters by (from its simulated run)."""
    net = lazy_mlp()
    net.init_parameters_data()
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in BATCHES]
    moments = {q.name: q.asnumpy() for _, q in step.optimizer.parameters_and_names() if q.name.startswith("moments.")}
    n, strategies, data = PLANS[name]
    plan_net = MLP(**strategies)
    x, y = (Tensor(a) for a in BATCHES[0])
    ex = execute(record(ms.value_and_grad(plan_net, None, plan_net.trainable_params()), x, y), SimulatedWorld(n),
                 [(x, data), (y, data)] if data else None)
    layouts = {p.name: ex.layout_of(p) for p in plan_net.trainable_params()}
    return losses, {p.name: p.asnumpy() for p in net.trainable_params()}, moments, layouts


@pytest.mark.parametrize("which", ["two", "four"])
def test_processes_holding_only_their_slices_train_as_one_process(request, which):
    # Parameters made under no_init_parameters: each process initializes, holds and updates only its slices (and
    # its momenta's), records the step abstractly and feeds only its slice of the batch
    results = request.getfixturevalue(which)
    results = results[1] if which == "two" else results
    size = len(results)
    for name in SLICED[size]:
        losses, params, moments, layouts = _sliced_reference(name)
        whole_bytes = sum(v.nbytes for v in params.values())
        tensor_cuts = size if name.startswith("column_row") else 2 if name.startswith("data_x") else 1
        for rank, res in enumerate(results):
            for key in (name, name + "-graph"):   # GRAPH_MODE: the step's graph traced on shapes, partitioned
                got = res["sliced"][key]
                assert got["graph"] == key.endswith("-graph")
                _close(got["losses"], losses)
                assert got["sliced"] == [True, True, True]
                for p, value in params.items():
                    _close(got["slices"][p], shard_array(value, layouts[p])[rank])
                    _close(got["moments"][f"moments.{p}"], shard_array(moments[f"moments.{p}"], layouts[p])[rank])
                    _close(got["whole"][p], value)   # save_checkpoint's integrated save gathers them
                # the bytes each process holds: 1/tensor-cuts of the parameters (w1's columns, b1, w2's rows cut)
                assert got["param_bytes"] == got["moment_bytes"] == whole_bytes // tensor_cuts


def test_processes_holding_slices_refuse_an_optimizer_whose_state_is_not_shaped_as_the_parameters(two):
    for res in two[1]:
        text, waiting = res["sliced_refused"]
        assert "the optimizer must be one of SGD, Momentum, Adam, AdamWeightDecay, AdamOffload, Lamb, LARS" in text
        assert "but got AdaFactor" in text
        assert waiting == [True, True, True]   # nothing initialized before the refusal


def test_processes_holding_slices_train_with_lamb_as_one_process(two):
    # the tensor-parallel MLP's weights cut over the 2 processes: Lamb's norms are all-reduced over the pieces
    net = lazy_mlp()
    net.init_parameters_data()
    step = nn.TrainOneStepCell(net, nn.Lamb(net.trainable_params(), learning_rate=0.05, weight_decay=0.01))
    losses = [float(step(Tensor(x), Tensor(y)).asnumpy()) for x, y in BATCHES]
    for res in two[1]:
        got = res["sliced_lamb"]
        assert got["sliced"] == [True, True, True]   # w1 and b1 cut by columns, w2 by rows
        _close(got["losses"], losses)
        for p in net.trainable_params():
            _close(got["whole"][p.name], p.asnumpy())
