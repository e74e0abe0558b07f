"""Interleaved pipelines (``pipeline_config={"pipeline_interleave": True, "pipeline_scheduler": ...}``): 2- and
4-stage MLPs whose layers go round the stages twice give the single-process loss and gradients (float64, 1e-12); the
schedules' orders, timelines and per-stage peak activation memory equal their closed forms."""
import numpy as np
import pytest

import mindseed as ms
from _pipeline_model import Net, WithLoss, assert_pipeline_matches
from mindseed import Tensor, nn
from mindseed.parallel import _schedule
from mindseed.parallel._layout import assemble
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline

RNG = np.random.default_rng(7)
X, Y = Tensor(RNG.standard_normal((24, 4))), Tensor(RNG.standard_normal((24, 6)))
CHUNKS = 2


@pytest.fixture(autouse=True)
def _context():
    yield
    ms.reset_auto_parallel_context()


def _interleaved(stages, micro, segments=None, stage_of=None):
    """A 2 * stages-layer MLP, layer i on stage i % stages (or `stage_of`), optionally with explicit segments."""
    net = Net((4,) + (6,) * (CHUNKS * stages))
    for i, layer in enumerate(net.layers):
        layer.pipeline_stage = stage_of[i] if stage_of else i % stages
        if segments is not None:
            layer.pipeline_segment = segments[i]
    cell = nn.PipelineCell(WithLoss(net), micro)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    return net, cell, program, execute_pipeline(program, stages, stages)


@pytest.mark.parametrize("stages, micro", [(2, 4), (4, 4), (4, 8)])
def test_interleaved_pipeline_matches_one_process(stages, micro):
    net, cell, program, run = _interleaved(stages, micro)
    loss, grads = program.result
    ref = nn.PipelineCell(WithLoss(Net((4,) + (6,) * (CHUNKS * stages))), micro)
    ref_loss, ref_grads = ms.value_and_grad(ref, None, ref.trainable_params())(X, Y)
    assert_pipeline_matches(run, program, cell, ref_loss, ref_grads)
    # layer i is chunk i // stages of stage i % stages, its weight and gradient there only
    assert run.chunks == CHUNKS
    for i, layer in enumerate(net.layers):
        assert [s for s, ex in enumerate(run.stages) if id(layer.w) in ex._executor.env] == [i % stages]
    # forward values cross every boundary between virtual stages once per micro-batch, the wrap included
    # (activations forward, their gradients back)
    sends = [(a, b) for a, b, rec in run.p2p if rec.input_bytes == 24 // micro * 6 * 8]
    assert len(sends) == 2 * (CHUNKS * stages - 1) * micro
    assert sends.count((stages - 1, 0)) == (3 if stages == 2 else 1) * micro   # the wrap into chunk 1


def _closed_form_order(stages, micro, s):
    """MindSpore's interleaved 1F1B for stage s, built from its definition."""
    offset = micro % stages
    group = [m // (stages + offset) and (m - offset) // stages for m in range(micro)]
    fwd = [("F", m, c) for m, c in sorted(((m, c) for c in range(CHUNKS) for m in range(micro)),
                                          key=lambda u: (group[u[0]], u[1], u[0]))]
    bwd = [("B", m, c) for m, c in sorted(((m, c) for c in range(CHUNKS) for m in range(micro)),
                                          key=lambda u: (group[u[0]], -u[1], u[0]))]
    warm = min((stages + offset) * (CHUNKS - 1) + 2 * (stages - s - 1), micro * CHUNKS)
    order = fwd[:warm]
    for i in range(warm, micro * CHUNKS):
        order += [fwd[i], bwd[i - warm]]
    return order + bwd[micro * CHUNKS - warm:]


@pytest.mark.parametrize("stages, micro", [(2, 4), (4, 4), (4, 6)])
def test_interleaved_one_f_one_b_order_time_and_memory(stages, micro):
    _, _, _, run = _interleaved(stages, micro)
    ms.set_auto_parallel_context(pipeline_stages=stages,
                                 pipeline_config={"pipeline_interleave": True, "pipeline_scheduler": "1f1b"})
    order = run.schedule()
    assert order == [_closed_form_order(stages, micro, s) for s in range(stages)]
    if (stages, micro) == (2, 4):  # written out
        assert order[0] == [("F", 0, 0), ("F", 1, 0), ("F", 0, 1), ("F", 1, 1), ("F", 2, 0), ("B", 0, 1),
                            ("F", 3, 0), ("B", 1, 1), ("F", 2, 1), ("B", 0, 0), ("F", 3, 1), ("B", 1, 0),
                            ("B", 2, 1), ("B", 3, 1), ("B", 2, 0), ("B", 3, 0)]
        assert order[1][:4] == [("F", 0, 0), ("F", 1, 0), ("F", 0, 1), ("B", 0, 1)]
    # activations of one pass: a layer's MatMul, Add and Tanh outputs for 24 / micro rows of 6, float64; the loss's
    # difference, square and mean are kept on the last chunk of the last stage
    rows = 24 // micro
    a = 3 * rows * 6 * 8
    loss_terms = 2 * rows * 6 * 8 + 8
    expected = [[[a] * micro for _ in range(CHUNKS)] for _ in range(stages)]
    expected[-1][-1] = [a + loss_terms] * micro
    assert run.chunk_activations == expected
    # peak: every pass up to the first backward is held: min(bias + 1, micro * chunks) passes
    peaks = run.peak_activation_bytes()
    for s in range(stages):
        held = min(_schedule.interleaved_bias(stages, micro, CHUNKS, s) + 1, micro * CHUNKS)
        first = order[s][:held]
        assert all(p[0] == "F" for p in first)
        assert peaks[s] == sum(expected[s][c][m] for _, m, c in first)
        if s < stages - 1:
            assert peaks[s] == held * a
    assert run.peak_activation_bytes("gpipe") == [sum(map(sum, expected[s])) for s in range(stages)]
    # with a forward pass of a chunk taking 1 and a backward 2, the interleaved step takes (micro * chunks +
    # stages - 1) * 3 when micro is a multiple of stages, against (micro + stages - 1) * 3 * chunks without
    # interleaving (whole stages per pass)
    _, length = run.timeline()
    plain = _schedule.timeline(_schedule.schedule("1f1b", stages, micro), CHUNKS * 1.0, CHUNKS * 2.0)[1]
    assert plain == (micro + stages - 1) * 3 * CHUNKS
    if micro % stages == 0:
        assert length == (micro * CHUNKS + stages - 1) * 3
    assert length < plain


def test_interleaved_gpipe_runs_every_forward_first():
    _, _, _, run = _interleaved(2, 4)
    order = run.schedule("gpipe", True)
    for passes in order:
        assert [p[0] for p in passes] == ["F"] * 8 + ["B"] * 8
        assert passes[:4] == [("F", 0, 0), ("F", 1, 0), ("F", 0, 1), ("F", 1, 1)]
        assert passes[8:12] == [("B", 0, 1), ("B", 1, 1), ("B", 0, 0), ("B", 1, 0)]
    runs, length = run.timeline("gpipe", True)
    assert length == max(end for r in runs for _, end, _ in r)


def test_pipeline_segment_places_a_cell_in_its_chunk():
    # a V-shaped placement (stages 0, 1, 1, 0), which the colouring cannot infer: the segments give the chunks
    _, _, program, run = _interleaved(2, 2, segments=(0, 0, 1, 1), stage_of=(0, 1, 1, 0))
    assert run.chunks == 2
    staged = {(s, c) for s, c, fwd in zip(program.stages, program.chunks, program.forward) if fwd and s is not None}
    assert staged == {(0, 0), (1, 0), (1, 1), (0, 1)}
    net = Net((4, 6))
    # MindSpore's Cell checks the value when it is set
    with pytest.raises(TypeError, match="'pipeline_stages' must be int type, but got type : <class 'bool'>"):
        net.layers[0].pipeline_segment = True
    with pytest.raises(ValueError, match="'pipeline_stages' can not be less than 0, but got -1"):
        net.layers[0].pipeline_segment = -1
    net.layers[0].pipeline_segment = 1
    assert _staged(net).layers[0].pipeline_segment == 1


def _staged(net):
    net.layers[0].pipeline_stage = 0
    return net


def test_schedules_check_their_arguments():
    _, _, _, run = _interleaved(4, 4)
    with pytest.raises(ValueError, match="has 2 chunks per stage .*pipeline_interleave"):
        run.schedule("1f1b", False)
    with pytest.raises(ValueError, match="must be one of 1f1b, gpipe, seqpipe, seqvpp, seqsmartvpp, zero_bubble_v "
                                         ".the ones simulated., but got .dualpipe."):
        run.schedule("dualpipe", True)
    with pytest.raises(RuntimeError, match="MicroBatch num must be larger or equal than StageNum, but got "
                                           "MicroBatch:2 StageNum:4"):
        _schedule.schedule("1f1b", 4, 2, 2, True)
    with pytest.raises(ValueError, match="wait on each other for ever"):
        _schedule.timeline([[("B", 0), ("F", 0)], [("F", 0), ("B", 0)]])


@pytest.mark.parametrize("kind", ["1f1b", "gpipe"])
@pytest.mark.parametrize("stages, micro, interleave", [(2, 4, True), (4, 4, True), (4, 6, True), (2, 4, False),
                                                       (4, 8, False)])
def test_the_calls_run_in_the_schedules_order(stages, micro, interleave, kind):
    net = Net((4,) + (6,) * (CHUNKS * stages))
    for i, layer in enumerate(net.layers):
        layer.pipeline_stage = i % stages if interleave else i // CHUNKS
    cell = nn.PipelineCell(WithLoss(net), micro)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    run = execute_pipeline(program, stages, stages, scheduler=kind, interleave=interleave)
    recorded = execute_pipeline(program, stages, stages)
    # every stage starts its passes in the schedule's order, and no call waits past the start of a later pass (the
    # backward seed, a fill of the loss's shape, does not wait for the other micro-batches' losses)
    assert run.passes == [list(p) for p in run.schedule(kind, interleave)]
    assert run.late == []
    assert recorded.passes != run.passes
    loss, grads = program.result
    for t in [loss, *grads]:
        ours, theirs = run.execution_of(t).value(t), recorded.execution_of(t).value(t)
        np.testing.assert_array_equal(assemble(ours.shards, ours.layout), assemble(theirs.shards, theirs.layout))
    assert sorted((a, b, r.input_bytes) for a, b, r in run.p2p) == \
        sorted((a, b, r.input_bytes) for a, b, r in recorded.p2p)


ROWS = 24 // 4   # rows of a micro-batch in the step-time test


def _layer_flops(n_in):
    """A layer n_in -> 6 on a micro-batch: its MatMul 2 m n k, its Add and Tanh one per element."""
    return 2 * ROWS * n_in * 6 + 2 * ROWS * 6


class _Machine:
    """1 ns per floating-point operation, 0.1 ns per byte sent (the interface of plan.Machine)."""

    def compute_seconds(self, flops):
        return flops * 1e-9

    def comm_seconds(self, records):
        return sum(r.sent_bytes for r in records) * 1e-10


def test_step_time_estimate_from_the_schedule():
    estimates, busy = {}, {}
    for interleave in (False, True):
        net = Net((4, 6, 6, 6, 6))
        for i, layer in enumerate(net.layers):
            layer.pipeline_stage = i % 2 if interleave else i // 2
        cell = nn.PipelineCell(WithLoss(net), 4)
        program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
        run = execute_pipeline(program, 2, 2, scheduler="1f1b", interleave=interleave)
        seconds = run.pass_seconds(_Machine())
        if not interleave:
            # stage 0: layers 4->6 and 6->6; stage 1: layers 6->6 twice, the loss (Sub, Mul, ReduceMean per
            # element) and the Send of the 6 x 6 float64 activation
            assert seconds[(0, ("F", 0))] == pytest.approx((_layer_flops(4) + _layer_flops(6)) * 1e-9, rel=1e-12)
            assert seconds[(1, ("F", 0))] == pytest.approx((2 * _layer_flops(6) + 3 * ROWS * 6) * 1e-9 +
                                                           ROWS * 6 * 8 * 1e-10, rel=1e-12)
        else:
            assert seconds[(0, ("F", 0, 0))] == pytest.approx(_layer_flops(4) * 1e-9, rel=1e-12)
        estimates[interleave] = run.step_seconds(_Machine())
        assert estimates[interleave] == run.timeline(cost=lambda s, u, t=seconds: t[(s, u)])[1]
        busy[interleave] = [sum(v for (s, _), v in seconds.items() if s == stage) for stage in range(2)]
        assert estimates[interleave] > max(busy[interleave])
    # the same layers and work: interleaving shortens the bubble
    assert sum(busy[True]) == pytest.approx(sum(busy[False]), rel=0.05)
    assert estimates[True] < estimates[False]
