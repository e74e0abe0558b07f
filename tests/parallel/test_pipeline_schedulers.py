"""MindSpore's seqpipe and zero_bubble_v pipeline schedulers: their orders (written out for small cases), no stage
waiting for ever, and MLPs run in those orders on simulated stages give the single-process loss and gradients
(float64, 1e-12) with every pass in the schedule's order."""
import numpy as np
import pytest

import mindseed as ms
from _pipeline_model import Net, WithLoss, assert_pipeline_matches
from mindseed import Tensor, nn
from mindseed.parallel import _schedule
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline

RNG = np.random.default_rng(11)
X, Y = Tensor(RNG.standard_normal((24, 4))), Tensor(RNG.standard_normal((24, 6)))


@pytest.fixture(autouse=True)
def _context():
    yield
    ms.reset_auto_parallel_context()


def _all_passes(micro, chunks):
    return sorted((k, m, c) for k in "FB" for m in range(micro) for c in range(chunks))


def test_zero_bubble_v_order_on_two_stages():
    order = _schedule.schedule("zero_bubble_v", 2, 4, 2, True)
    assert order.v_shape
    f = lambda m, c: ("F", m, c)  # noqa: E731
    b = lambda m, c: ("B", m, c)  # noqa: E731
    w = lambda m, c: ("W", m, c)  # noqa: E731
    # stage 0: F0 F0 | F0 F1 | B1 W1 F1 | B1 F0 B0 F1 | B1 B0 | W0 B0 | W0 (split: micro-batch 0 of chunk 1, the
    # last two of chunk 0)
    assert _schedule.zero_bubble_v_split(2, 4, 0) == {(0, 1), (2, 0), (3, 0)}
    assert order[0] == [f(0, 0), f(1, 0), f(2, 0), f(0, 1), b(0, 1), w(0, 1), f(1, 1), b(1, 1), f(3, 0), b(0, 0),
                        f(2, 1), b(2, 1), b(1, 0), f(3, 1), b(3, 1), b(2, 0), w(2, 0), b(3, 0), w(3, 0)]
    # stage 1 (the bottom of the V): F0 F1 F0 F1 | B1 F0 B0 F1 (twice) | B1 B0 (twice) | W0 W1 (split: the last
    # micro-batch of each chunk)
    assert _schedule.zero_bubble_v_split(2, 4, 1) == {(3, 0), (3, 1)}
    assert order[1] == [f(0, 0), f(0, 1), f(1, 0), f(1, 1), b(0, 1), f(2, 0), b(0, 0), f(2, 1), b(1, 1), f(3, 0),
                        b(1, 0), f(3, 1), b(2, 1), b(2, 0), b(3, 1), b(3, 0), w(3, 0), w(3, 1)]


@pytest.mark.parametrize("stages, micro", [(2, 3), (2, 8), (4, 7), (4, 8), (8, 16)])
def test_zero_bubble_v_runs_every_pass_once_without_waiting_for_ever(stages, micro):
    order = _schedule.schedule("zero_bubble_v", stages, micro, 2, True)
    for s, passes in enumerate(order):
        split = _schedule.zero_bubble_v_split(stages, micro, s)
        assert sorted(passes) == sorted(_all_passes(micro, 2) + [("W", m, c) for m, c in split])
        # stages - s - 1 early chunk-1 backwards, (s + 1) // 2 late ones, stages - (s + 1) // 2 late chunk-0 ones
        assert len(split) == 2 * stages - s - 1
    runs, length = _schedule.timeline(order)
    # the first stage starts the V and ends it: the loss is on stage 0, whose last pass is the last of the step
    assert runs[0][-1][1] == length


def test_seqpipe_orders():
    # without chunks seqpipe is 1F1B
    for stages, micro in [(2, 4), (4, 4), (4, 6), (3, 2)]:
        assert _schedule.schedule("seqpipe", stages, micro) == _schedule.schedule("1f1b", stages, micro)
    # two chunks on 2 stages, 4 micro-batches: cycles of 2; stage 0 warms up with (2 - 1) * 2 + 2 = 4 forwards
    order = _schedule.schedule("seqpipe", 2, 4, 2, True)
    assert order[0] == [("F", 0, 0), ("F", 1, 0), ("F", 0, 1), ("F", 1, 1), ("F", 2, 0), ("B", 0, 1),
                        ("F", 3, 0), ("B", 1, 1), ("F", 2, 1), ("B", 0, 0), ("F", 3, 1), ("B", 1, 0),
                        ("B", 2, 1), ("B", 3, 1), ("B", 2, 0), ("B", 3, 0)]
    # 5 micro-batches on 2 stages: cycles of 3 and 2
    fwd = [p[1:] for p in _schedule.schedule("seqpipe", 2, 5, 2, True)[1] if p[0] == "F"]
    assert fwd == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (3, 0), (4, 0), (3, 1), (4, 1)]
    for stages, micro in [(2, 4), (4, 4), (4, 6), (4, 9)]:
        order = _schedule.schedule("seqpipe", stages, micro, 2, True)
        assert all(sorted(passes) == _all_passes(micro, 2) for passes in order)
        _schedule.timeline(order)


def test_seqvpp_and_seqsmartvpp_orders():
    # seqvpp is seqpipe with chunks; seqsmartvpp warms up one forward per later stage instead of two
    for stages, micro in [(2, 4), (4, 4), (4, 6), (4, 9)]:
        assert _schedule.schedule("seqvpp", stages, micro, 2, True) == _schedule.schedule("seqpipe", stages, micro, 2,
                                                                                          True)
        order = _schedule.schedule("seqsmartvpp", stages, micro, 2, True)
        assert all(sorted(passes) == _all_passes(micro, 2) for passes in order)
        _schedule.timeline(order)
        first_backward = [next(i for i, p in enumerate(passes) if p[0] == "B") for passes in order]
        # the first cycle: `stages` micro-batches and its share of the micro % stages left over
        cycle = stages + -(-(micro % stages) // (micro // stages))
        assert first_backward == [(stages - 1 - s) + cycle + 1 for s in range(stages)]
    with pytest.raises(RuntimeError, match="For seq vpp scheduler, vpp should large than 1."):
        _schedule.schedule("seqvpp", 2, 4, 1, False)
    with pytest.raises(RuntimeError, match="micro_num \\* seq_chunk_size should be greater than or equal to pp"):
        _schedule.schedule("seqsmartvpp", 4, 2, 2, True)


def test_schedulers_check_their_pipelines():
    with pytest.raises(ValueError, match="Zero Bubble V scheduler only support chunk_num is 2, but got:1"):
        _schedule.schedule("zero_bubble_v", 2, 4, 1, False)
    with pytest.raises(ValueError, match=r"Zero Bubble V needs at least 2 \* stages - 1 = 7 micro-batches, but got 6"):
        _schedule.schedule("zero_bubble_v", 4, 6, 2, True)
    with pytest.raises(ValueError, match="has 2 chunks per stage"):
        _schedule.schedule("seqpipe", 2, 4, 2, False)


def _v_shaped(stages, micro):
    """A 2 * stages-layer MLP in a V: layer i on stage i (chunk 0) for the first half, then back up the stages
    (chunk 1), named by pipeline_segment."""
    net = Net((4,) + (6,) * (2 * stages))
    for i, layer in enumerate(net.layers):
        layer.pipeline_stage = i if i < stages else 2 * stages - 1 - i
        layer.pipeline_segment = i // stages
    return net, nn.PipelineCell(WithLoss(net), micro)


def _looped(stages, micro, chunks):
    net = Net((4,) + (6,) * (chunks * stages))
    for i, layer in enumerate(net.layers):
        layer.pipeline_stage = i % stages if chunks > 1 else i * stages // len(net.layers)
    return net, nn.PipelineCell(WithLoss(net), micro)


@pytest.mark.parametrize("kind, stages, micro, chunks", [
    ("zero_bubble_v", 2, 4, 2), ("zero_bubble_v", 4, 8, 2), ("seqpipe", 2, 4, 1), ("seqpipe", 2, 4, 2),
    ("seqpipe", 4, 6, 2), ("seqvpp", 2, 4, 2), ("seqsmartvpp", 4, 6, 2)])
def test_scheduled_pipelines_match_one_process(kind, stages, micro, chunks):
    net, cell = _v_shaped(stages, micro) if kind == "zero_bubble_v" else _looped(stages, micro, chunks)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    run = execute_pipeline(program, stages, stages, scheduler=kind, interleave=chunks > 1)
    order = run.schedule(kind, chunks > 1)
    # every pass in the schedule's order; the B pass of a split backward of the first virtual stage computes
    # nothing (no gradient goes on: the data is not differentiated), its W everything
    empty = [(s, p) for s, passes in enumerate(order) for p in passes if (s, p) not in run.pass_calls]
    assert all(s == 0 and p[0] == "B" and p[2] == 0 and ("W",) + p[1:] in order[0] for s, p in empty)
    assert run.passes == [[p for p in passes if (s, p) not in empty] for s, passes in enumerate(order)]
    assert run.late == []
    ref = nn.PipelineCell(WithLoss(Net((4,) + (6,) * (chunks * stages))), micro)
    ref_loss, ref_grads = ms.value_and_grad(ref, None, ref.trainable_params())(X, Y)
    assert_pipeline_matches(run, program, cell, ref_loss, ref_grads)
    if kind == "zero_bubble_v":   # the V: layer i and layer 2 stages - 1 - i on stage i, the loss on stage 0
        assert run.stage_of(program.result[0]) == 0
        for i, layer in enumerate(net.layers):
            assert [s for s, ex in enumerate(run.stages) if id(layer.w) in ex._executor.env] == \
                [i if i < stages else 2 * stages - 1 - i]
