"""zero_bubble_v's split backwards: as MindSpore's ZeroBubbleV, some backward passes are split into the input's
gradient (B) and the weights' (W), the Ws placed separately. The timeline then shows the zero bubble (stages - 1 idle
units per stage with F = B = W = 1, against 4 (stages - 1) with the Ws inside their Bs); V-shaped MLPs run in that
order on simulated stages (data parallel inside them) give the single-process loss and gradients (float64, 1e-12),
each W pass computing only weight gradients and sending nothing."""
import numpy as np
import pytest

import mindseed as ms
from _pipeline_model import Net, WithLoss, assert_pipeline_matches
from mindseed import Tensor, nn
from mindseed.parallel import _schedule
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline
from mindseed.parallel.plan import Machine

RNG = np.random.default_rng(17)
X, Y = Tensor(RNG.standard_normal((16, 4))), Tensor(RNG.standard_normal((16, 6)))


def _without_w(order):
    out = _schedule.Order([p for p in passes if p[0] != "W"] for passes in order)
    out.v_shape = order.v_shape
    return out


@pytest.mark.parametrize("stages, micro", [(2, 4), (2, 7), (4, 8), (4, 16), (8, 16)])
def test_the_split_timeline_shows_the_zero_bubble(stages, micro):
    order = _schedule.schedule("zero_bubble_v", stages, micro, 2, True)
    runs, length = _schedule.timeline(order, forward=1, backward=2, weight=1)
    # every stage busy 2 micro (F + B + W) = 6 micro units: idle only stages - 1 units
    assert length == 6 * micro + stages - 1
    assert [length - sum(end - start for start, end, _ in r) for r in runs] == [stages - 1] * stages
    # the same order with each W inside its B (a whole backward of 2 units): 4 (stages - 1) idle units
    runs, whole = _schedule.timeline(_without_w(order), forward=1, backward=2)
    assert whole == 6 * micro + 4 * (stages - 1)
    # a W runs after its own B, on the same stage
    for r in _schedule.timeline(order)[0]:
        ends = {unit: end for _, end, unit in r}
        for start, _, unit in r:
            if unit[0] == "W":
                assert start >= ends[("B",) + unit[1:]]


def test_activations_are_held_until_the_w_pass():
    order = [[("F", 0), ("F", 1), ("B", 0), ("F", 2), ("W", 0), ("B", 1), ("B", 2)]]
    ones = [[[1, 1, 1]]]
    # micro-batch 0's values stay from its F to its W (3 held after F2), not to its B (2)
    assert _schedule.peak_bytes(order, ones) == [3]
    assert _schedule.peak_bytes([[p for p in order[0] if p[0] != "W"]], ones) == [2]


def _v_shaped(stages, micro):
    net = Net((4,) + (6,) * (2 * stages))
    for i, layer in enumerate(net.layers):
        layer.pipeline_stage = i if i < stages else 2 * stages - 1 - i
        layer.pipeline_segment = i // stages
    return net, nn.PipelineCell(WithLoss(net), micro)


@pytest.mark.parametrize("stages, devices, micro", [(2, 2, 4), (2, 4, 4), (4, 4, 8), (4, 8, 8)])
def test_split_backwards_give_the_single_process_numbers(stages, devices, micro):
    dp = devices // stages
    net, cell = _v_shaped(stages, micro)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    layouts = [(X, (dp, 1)), (Y, (dp, 1))] if dp > 1 else None
    run = execute_pipeline(program, stages, devices, layouts, scheduler="zero_bubble_v", interleave=True)
    ref = nn.PipelineCell(WithLoss(Net((4,) + (6,) * (2 * stages))), micro)
    ref_loss, ref_grads = ms.value_and_grad(ref, None, ref.trainable_params())(X, Y)
    assert_pipeline_matches(run, program, cell, ref_loss, ref_grads)
    assert run.late == []
    order = run.schedule()
    weights = {id(p) for p in cell.trainable_params()}
    outputs = {id(t) for t in program.outputs}
    made_by = {id(o): key for key, calls in run.pass_calls.items() for c in calls for o in c.outs}
    for s in range(stages):
        split = _schedule.zero_bubble_v_split(stages, micro, s)
        assert {(p[1], p[2]) for p in order[s] if p[0] == "W"} == split
        for m, c in split:
            w_calls = run.pass_calls[(s, ("W", m, c))]
            # the weights' gradients: the products with the forward input (dw) and the bias sums
            assert {call.prim.name for call in w_calls} >= {"MatMul", "ReduceSum"}
            # nothing a W makes is read by another pass (only summed over micro-batches into the gradients)
            for other, calls in run.pass_calls.items():
                if other != (s, ("W", m, c)):
                    assert not any(made_by.get(id(a)) == (s, ("W", m, c)) for call in calls for a in call.args)
            b_calls = run.pass_calls.get((s, ("B", m, c)), [])
            if b_calls:   # the gradient from the next virtual stage was received by the B (an empty B: the W)
                assert not any(run.received.get((s, id(call))) for call in w_calls)
            # a B that sends a gradient on computes it with the weight (dx = dy w^T), never a weight's gradient
            assert not any(id(a) in weights for call in w_calls for a in call.args if call.prim.name == "MatMul")
            assert not any(id(o) in outputs for call in b_calls for o in call.outs)
            if (s, c) != (0, 0):   # the first virtual stage sends no gradient on (the data is not differentiated)
                assert any(id(a) in weights for call in b_calls for a in call.args)
    # each value crosses a stage boundary once per micro-batch each way, as without the split
    plain = execute_pipeline(program, stages, devices, layouts)
    assert sorted((a, b, r.input_bytes) for a, b, r in run.p2p) == sorted((a, b, r.input_bytes)
                                                                        for a, b, r in plain.p2p)
    # the estimate runs the split passes (a B and its W each take their own calls' seconds)
    seconds = run.pass_seconds(Machine())
    assert all(seconds[(s, ("W",) + p[1:])] > 0 for s in range(stages) for p in order[s] if p[0] == "W")
    assert run.step_seconds(Machine()) > 0
