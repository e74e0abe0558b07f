"""Micro-batch slices of a data-parallel batch (`nn.GradAccumulationCell`, `nn.PipelineCell`): each rank slices its
own rows (MindSpore's regrouping of the samples into micro-batches), so the batch is never gathered. On meshes (2),
(4), (8) (data parallel) and (2, 2), (2, 4) (data x tensor) the loss and gradients equal the single-process run
(float64, 1e-12); the collectives are counted (the sums over micro-batches of partial sums stay partial sums: one
reduction each, as MindSpore reduces the accumulated gradient once)."""
import numpy as np
import pytest

import mindseed as ms
from _pipeline_model import Net, WithLoss, assert_pipeline_matches
from mindseed import Tensor, nn
from mindseed.parallel._layout import assemble
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld

RNG = np.random.default_rng(31)
X, Y = Tensor(RNG.standard_normal((32, 4))), Tensor(RNG.standard_normal((32, 4)))
B = 32
# mesh: (devices, dp, MatMul strategy of every layer, widths)
MESHES = {
    "2": (2, 2, None, (4, 6, 4)),
    "4": (4, 4, None, (4, 6, 4)),
    "8": (8, 8, None, (4, 6, 4)),
    "2x2": (4, 2, ((2, 1), (1, 2)), (4, 8, 4)),
    "2x4": (8, 2, ((2, 1), (1, 4)), (4, 8, 4)),
}


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-12)


def _run(mesh, micro):
    n, dp, strategy, widths = MESHES[mesh]
    cell = nn.GradAccumulationCell(WithLoss(Net(widths, strategy)), micro)
    program = record(ms.value_and_grad(cell, None, cell.trainable_params()), X, Y)
    world = SimulatedWorld(n)
    ex = execute(program, world, [(X, (dp, 1)), (Y, (dp, 1))])
    return cell, program, ex, world


def _reference(mesh, micro):
    ref = nn.GradAccumulationCell(WithLoss(Net(MESHES[mesh][3])), micro)
    loss, grads = ms.value_and_grad(ref, None, ref.trainable_params())(X, Y)
    return loss.asnumpy(), [g.asnumpy() for g in grads]


def _slices(ex):
    return [p for p in ex.plans if p.call.prim.name == "MicroBatchSlice"]


@pytest.mark.parametrize("mesh", sorted(MESHES))
@pytest.mark.parametrize("micro", [2, 4])
def test_each_rank_slices_its_own_rows_and_the_numbers_are_one_process(mesh, micro):
    cell, program, ex, world = _run(mesh, micro)
    n, dp = MESHES[mesh][:2]
    log = [r.kind for r in world.log]        # the step's collectives (read below: more)
    loss, grads = program.result
    want_loss, want_grads = _reference(mesh, micro)
    for p, g, want in zip(cell.trainable_params(), grads, want_grads):
        _close(ex.whole(g, ex.layout_of(p)), want)
    # the gradients summed over the micro-batches stay partial sums: each is reduced once, when it is read
    assert [r.kind for r in world.log[len(log):]] == ["AllReduce"] * 4
    _close(ex.whole(loss), want_loss)
    assert ex.whole_calls == []
    slices = _slices(ex)
    assert len(slices) == 2 * micro           # x and y, per micro-batch
    for p in slices:                           # the rows keep the dataset's cut, and nothing moves
        assert p.in_layouts[0].cuts(0) == p.out_layouts[0].cuts(0) == dp
        assert sum(m.sent_bytes for m in p.moves) == 0
    if MESHES[mesh][2] is None:
        # data parallel: the loss's partial means summed over the micro-batches, reduced once (the backward pass
        # reads it), nothing else: the batch is never gathered, no micro-batch's gradient is reduced on its own
        assert log == ["AllReduce"]
    else:
        # data x tensor: per micro-batch the hidden activation's columns gathered for the row-cut layer and
        # scattered back in the backward pass, and the loss's one AllReduce; no step moves the batch dim
        assert sorted(log) == sorted(["AllReduce"] + ["AllGather"] * micro + ["ReduceScatter"] * micro)
        steps = [s for p in ex.plans for m in p.moves for s in m.steps if s.kind != "AllReduce"]
        assert {s.dim for s in steps if s.kind in ("AllGather", "ReduceScatter")} == {1}


@pytest.mark.parametrize("n, micro", [(2, 2), (4, 2), (2, 4)])
def test_the_ranks_micro_batch_is_micro_batch_i_of_each_ranks_rows(n, micro):
    _, program, ex, _ = _run({2: "2", 4: "4"}[n], micro)
    rows = X.asnumpy().reshape(n, B // n, 4)       # rank r's rows
    local = B // n // micro
    x_slices = [p for p in _slices(ex) if p.call.args[0] is X]
    for i, p in enumerate(x_slices):
        v = ex.value(p.call.outs[0])
        regrouped = np.concatenate([rows[r, i * local:(i + 1) * local] for r in range(n)])
        _close(assemble(v.shards, v.layout), regrouped)
        # not the whole batch's rows [i L, (i + 1) L) (what one process slices)
        assert not np.allclose(regrouped, X.asnumpy()[i * B // micro:(i + 1) * B // micro])


def test_a_micro_batch_smaller_than_a_ranks_rows_reads_the_batch_whole():
    # 16 micro-batches of 2 rows on 4 ranks of 8 rows each: the ranks' rows do not split into 16: x and y gathered
    # once, every micro-batch then sliced from the whole batch (exactly one process's slices)
    cell, program, ex, world = _run("4", 16)
    assert [r.kind for r in world.log] == ["AllGather", "AllGather"]
    loss, grads = program.result
    want_loss, want_grads = _reference("4", 16)
    _close(ex.whole(loss), want_loss)
    for p, g, want in zip(cell.trainable_params(), grads, want_grads):
        _close(ex.whole(g, ex.layout_of(p)), want)
    x_slices = [p for p in _slices(ex) if p.call.args[0] is X]
    v = ex.value(x_slices[3].call.outs[0])
    _close(assemble(v.shards, v.layout), X.asnumpy()[6:8])


@pytest.mark.parametrize("stages, devices", [(2, 4), (2, 8), (4, 8)])
def test_a_data_parallel_pipeline_gathers_no_batch(stages, devices):
    dp = devices // stages
    net = Net((4, 6, 5, 6, 4))
    for layer, stage in zip(net.layers, [s * stages // 4 for s in range(4)]):
        layer.pipeline_stage = stage
    cell = nn.PipelineCell(WithLoss(net), 4)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    run = execute_pipeline(program, stages, devices, [(X, (dp, 1)), (Y, (dp, 1))])
    ref_cell = nn.PipelineCell(WithLoss(Net((4, 6, 5, 6, 4))), 4)
    ref_loss, ref_grads = ms.value_and_grad(ref_cell, None, ref_cell.trainable_params())(X, Y)
    assert_pipeline_matches(run, program, cell, ref_loss, ref_grads)
    for ex in run.stages:
        assert ex.whole_calls == []
        assert {r.kind for r in ex.world.log} <= {"AllReduce"}
