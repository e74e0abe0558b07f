"""Pipeline parallel on simulated meshes: 2- and 4-stage MLPs in nn.PipelineCell with micro-batches, alone and with
data parallel inside the stages, give the single-process loss and gradients (float64, 1e-12); activations and
gradients cross the stages once per micro-batch."""
import numpy as np
import pytest

import mindseed as ms
from _pipeline_model import Net, WithLoss
from mindseed import Parameter, Tensor, nn, ops
from mindseed.parallel._layout import TensorLayout, assemble
from mindseed.parallel._pipeline import execute_pipeline, record_pipeline


RNG = np.random.default_rng(0)
X, Y = Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 4)))


def _pipeline(widths, stage_of_layer, micro, strategy=None):
    net = Net(widths, strategy)
    for layer, stage in zip(net.layers, stage_of_layer):
        layer.pipeline_stage = stage
    return net, nn.PipelineCell(WithLoss(net), micro)


def _reference(widths, micro):
    net = Net(widths)
    cell = nn.PipelineCell(WithLoss(net), micro)
    return ms.value_and_grad(cell, None, cell.trainable_params())(X, Y)


# name: (widths, stage of each layer, stages, devices, micro-batches, strategy in the stages, dataset strategy)
CASES = {
    "2-stage": ((4, 6, 5, 4), (0, 0, 1), 2, 2, 4, None, None),
    "4-stage": ((4, 6, 5, 7, 4), (0, 1, 2, 3), 4, 4, 2, None, None),
    "2-stage-x-data-2": ((4, 6, 5, 4), (0, 1, 1), 2, 4, 2, ((2, 1), (1, 1)), (2, 1)),
    "2-stage-x-tensor-2": ((4, 6, 6, 4), (0, 0, 1), 2, 4, 4, ((1, 1), (1, 2)), None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_pipeline_matches_one_process(case):
    widths, stage_of, stages, devices, micro, strategy, data = CASES[case]
    net, cell = _pipeline(widths, stage_of, micro, strategy)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    loss, grads = program.result
    run = execute_pipeline(program, stages, devices, [(X, data), (Y, data)] if data else None)
    ref_loss, ref_grads = _reference(widths, micro)
    last = run.execution_of(loss)
    assert run.stage_of(loss) == stages - 1
    value = last.value(loss)
    np.testing.assert_allclose(assemble(value.shards, value.layout), ref_loss.asnumpy(), rtol=0, atol=1e-12)
    for p, g, ref in zip(cell.trainable_params(), grads, ref_grads):
        ex = run.execution_of(g)
        layout = ex.layout_of(p)
        np.testing.assert_allclose(assemble(ex.value(g, layout).shards, layout), ref.asnumpy(), rtol=0, atol=1e-12)
    # each layer's parameters and gradients live on its stage only
    for layer, stage in zip(net.layers, stage_of):
        for p, g in zip(cell.trainable_params(), grads):
            if p is layer.w:
                assert run.stage_of(g) == stage
                assert [s for s, ex in enumerate(run.stages) if id(p) in ex._executor.env] == [stage]


def test_activations_and_gradients_cross_each_stage_boundary_once_per_micro_batch():
    widths, stage_of, stages, devices, micro, _, _ = CASES["4-stage"]
    _, cell = _pipeline(widths, stage_of, micro)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    run = execute_pipeline(program, stages, devices)
    forward = sorted((a, b) for a, b, _ in run.p2p if b > a)
    backward = sorted((a, b) for a, b, _ in run.p2p if b < a)
    assert forward == sorted([(s, s + 1) for s in range(stages - 1)] * micro)
    assert backward == sorted([(s + 1, s) for s in range(stages - 1)] * micro)
    # a micro-batch of 4 rows of the 6-, 5- and 7-wide activations, float64
    assert sorted(rec.input_bytes for a, b, rec in run.p2p if b > a) == \
        sorted([4 * w * 8 for w in widths[1:-1]] * micro)


def test_bad_pipeline_configurations_are_named():
    _, cell = _pipeline((4, 6, 5, 4), (0, 0, 3), 2)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    with pytest.raises(ValueError, match="a cell has pipeline_stage 3, but 'pipeline_stages' is 2"):
        execute_pipeline(program, 2, 2)
    with pytest.raises(ValueError, match="must be a positive int dividing the device number 3"):
        execute_pipeline(program, 2, 3)
    plain = nn.PipelineCell(WithLoss(Net((4, 4))), 2)
    with pytest.raises(ValueError, match="no cell of the network has a 'pipeline_stage'"):
        record_pipeline(ms.value_and_grad(plain, None, plain.trainable_params()), plain, X, Y)
    net = Net((4, 4))
    with pytest.raises(ValueError, match="the property 'pipeline_stage' can not be less than 0, but got -1"):
        net.layers[0].pipeline_stage = -1       # MindSpore's Cell refuses it when set


def test_layout_of_stage_inputs_is_their_dataset_strategy():
    widths, stage_of, stages, devices, micro, strategy, data = CASES["2-stage-x-data-2"]
    _, cell = _pipeline(widths, stage_of, micro, strategy)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    run = execute_pipeline(program, stages, devices, [(X, data), (Y, data)])
    assert all(ex.world.size == 2 for ex in run.stages)
    assert isinstance(run.stages[0].layout_of(X), TensorLayout) and run.stages[0].layout_of(X).local_shape == (4, 4)


def test_tensor_parallel_inside_a_stage_cuts_its_weights():
    widths, stage_of, stages, devices, micro, strategy, _ = CASES["2-stage-x-tensor-2"]
    net, cell = _pipeline(widths, stage_of, micro, strategy)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    run = execute_pipeline(program, stages, devices)
    for layer, stage in zip(net.layers, stage_of):
        layout = run.stages[stage].layout_of(layer.w)
        assert layout.local_shape == (layer.w.shape[0], layer.w.shape[1] // 2)


@pytest.mark.parametrize("micro", [2, 8])
def test_one_forward_one_backward_holds_fewer_micro_batches_than_gpipe(micro):
    widths, stage_of, stages, devices, _, _, _ = CASES["4-stage"]
    _, cell = _pipeline(widths, stage_of, micro)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    run = execute_pipeline(program, stages, devices)
    rows = 8 // micro
    # every micro-batch keeps the same forward values on a stage; stage 0 holds MatMul, Add and Tanh outputs
    assert run.activations[0] == [3 * rows * widths[1] * 8] * micro
    one = run.activations
    gpipe, f1b = run.peak_activation_bytes("gpipe"), run.peak_activation_bytes("1f1b")
    assert gpipe == [micro * one[s][0] for s in range(stages)]
    assert f1b == [min(stages - s, micro) * one[s][0] for s in range(stages)]
    order = run.schedule("1f1b")
    assert order[stages - 1][:4] == [("F", 0), ("B", 0), ("F", 1), ("B", 1)]
    assert sorted(order[0]) == sorted(run.schedule("gpipe")[0])
    with pytest.raises(ValueError, match="must be one of .* .the ones simulated., but got 'zb'"):
        run.schedule("zb")


class Tied(nn.Cell):
    """A weight read by the first and the last stage (an embedding tied to the output head)."""

    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(4)
        self.w = Parameter(Tensor(rng.standard_normal((4, 6)) / 2), name="w")
        self.first, self.last = _Use(self.w, False), _Use(self.w, True)
        self.first.pipeline_stage, self.last.pipeline_stage = 0, 1

    def construct(self, x):
        return self.last(self.first(x))


class _Use(nn.Cell):
    def __init__(self, w, transpose):
        super().__init__()
        self.w, self.mm, self.act = w, ops.MatMul(transpose_b=transpose), ops.Tanh()

    def construct(self, x):
        return self.act(self.mm(x, self.w))


def test_a_parameter_shared_by_two_stages_gets_both_stages_gradients():
    net = Tied()
    cell = nn.PipelineCell(WithLoss(net), 2)
    program = record_pipeline(ms.value_and_grad(cell, None, cell.trainable_params()), cell, X, Y)
    run = execute_pipeline(program, 2, 2)
    ref_net = Tied()
    ref = nn.PipelineCell(WithLoss(ref_net), 2)
    _, (ref_grad,) = ms.value_and_grad(ref, None, ref.trainable_params())(X, Y)
    (g,) = program.result[1]
    ex = run.execution_of(g)
    value = ex.value(g)
    np.testing.assert_allclose(assemble(value.shards, value.layout), ref_grad.asnumpy(), rtol=0, atol=1e-12)
    # both stages hold the weight
    assert [s for s, e in enumerate(run.stages) if id(net.w) in e._executor.env] == [0, 1]
