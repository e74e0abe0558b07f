"""Wrapper cells: losses, gradients, training steps, loss scaling with overflow skipping."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn


class Quad(nn.Cell):
    """loss = sum((x * w - y) ** 2) with w = [1, 2]."""

    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, x, y):
        return ((x * self.w - y) ** 2).sum()


class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="w")

    def construct(self, a):
        return a * self.w


class MSE(nn.Cell):
    def construct(self, a, b):
        return ((a - b) ** 2).mean()


X = ms.Tensor(np.array([1.0, 1.0], np.float32))
Y = ms.Tensor(np.array([0.0, 0.0], np.float32))


def test_with_loss_cell():
    net = nn.WithLossCell(Scale(), MSE())
    assert float(net(X, Y)) == pytest.approx(2.5)
    assert isinstance(net.backbone_network, Scale)
    assert [p.name for p in net.trainable_params()] == ["w"]


def test_with_eval_cell_casts_to_float32():
    backbone = Scale()
    loss, out, label = nn.WithEvalCell(backbone, MSE(), add_cast_fp32=True)(X, ms.Tensor([0.0, 0.0], ms.float16))
    assert float(loss) == pytest.approx(2.5) and out.dtype == ms.float32 and label.dtype == ms.float32
    with pytest.raises(TypeError, match="'add_cast_fp32' should be 'bool'"):
        nn.WithEvalCell(backbone, MSE(), add_cast_fp32=1)


def test_with_grad_cell():
    grads = nn.WithGradCell(Quad())(X, Y)
    np.testing.assert_allclose(grads[0].asnumpy(), [2.0, 4.0])
    grads = nn.WithGradCell(Scale(), MSE())(X, Y)
    np.testing.assert_allclose(grads[0].asnumpy(), [1.0, 2.0])
    grads = nn.WithGradCell(Quad(), sens=ms.Tensor(3.0))(X, Y)
    np.testing.assert_allclose(grads[0].asnumpy(), [6.0, 12.0])


def test_forward_value_and_grad_selections():
    net = Quad()
    loss, grads = nn.ForwardValueAndGrad(net, weights=net.trainable_params(), get_by_list=True)(X, Y)
    assert float(loss) == pytest.approx(5.0)
    np.testing.assert_allclose(grads[0].asnumpy(), [2.0, 4.0])
    _, grads = nn.ForwardValueAndGrad(net, get_all=True)(X, Y)
    np.testing.assert_allclose(grads[0].asnumpy(), [2.0, 8.0])
    np.testing.assert_allclose(grads[1].asnumpy(), [-2.0, -4.0])
    _, grad = nn.ForwardValueAndGrad(net)(X, Y)
    np.testing.assert_allclose(grad.asnumpy(), [2.0, 8.0])
    _, (igrads, wgrads) = nn.ForwardValueAndGrad(net, net.trainable_params(), get_all=True, get_by_list=True,
                                                 sens_param=True)(X, Y, ms.Tensor(2.0))
    np.testing.assert_allclose(igrads[0].asnumpy(), [4.0, 16.0])
    np.testing.assert_allclose(wgrads[0].asnumpy(), [4.0, 8.0])
    with pytest.raises(TypeError, match="the argument 'weights' must be Parameters array"):
        nn.ForwardValueAndGrad(net, get_by_list=True)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_forward_value_and_grad_get_all_of_one_input_is_a_tuple(mode):
    ms.set_context(mode=mode)
    try:
        net = Scale()                                  # out = x * [1, 2]
        x = ms.Tensor(np.array([2.0], np.float32))
        out, grads = nn.ForwardValueAndGrad(net, get_all=True)(x)
        assert isinstance(grads, tuple) and len(grads) == 1
        np.testing.assert_allclose(out.asnumpy(), [2.0, 4.0])
        np.testing.assert_allclose(grads[0].asnumpy(), [3.0])
        sens = ms.Tensor(np.array([5.0, 5.0], np.float32))
        _, grads = nn.ForwardValueAndGrad(net, get_all=True, sens_param=True)(x, sens)
        assert isinstance(grads, tuple) and len(grads) == 1
        np.testing.assert_allclose(grads[0].asnumpy(), [15.0])
        _, (igrads, wgrads) = nn.ForwardValueAndGrad(net, net.trainable_params(), get_all=True, get_by_list=True)(x)
        assert isinstance(igrads, tuple) and len(igrads) == 1
        np.testing.assert_allclose(igrads[0].asnumpy(), [3.0])
        np.testing.assert_allclose(wgrads[0].asnumpy(), [2.0, 2.0])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(TypeError, match="must be cell, function type or method type"):
        nn.ForwardValueAndGrad(3)


def test_train_one_step_cell_updates_and_returns_loss():
    net = Quad()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
    loss = step(X, Y)
    assert float(loss) == pytest.approx(5.0)
    np.testing.assert_allclose(net.w.asnumpy(), [0.8, 1.6], rtol=1e-6)


def test_train_one_step_cell_sens_and_return_grad():
    net = Quad()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1), sens=2.0)
    assert float(step(X, Y)) == pytest.approx(5.0)
    np.testing.assert_allclose(net.w.asnumpy(), [0.6, 1.2], rtol=1e-6)
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1), return_grad=True)
    loss, grads = step(X, Y)
    assert float(loss) == pytest.approx(1.8) and list(grads) == ["w"]
    np.testing.assert_allclose(grads["w"].asnumpy(), [1.2, 2.4], rtol=1e-6)
    with pytest.raises(ValueError, match="'sens' can not be 0"):
        nn.TrainOneStepCell(net, nn.SGD(net.trainable_params()), sens=0)


def test_train_one_step_cell_equals_manual_step():
    np.random.seed(1)
    x = ms.Tensor(np.random.randn(8, 4).astype(np.float32))
    y = ms.Tensor(np.random.randn(8, 2).astype(np.float32))
    nets = []
    for _ in range(2):
        ms.set_seed(5)
        nets.append(nn.WithLossCell(nn.Dense(4, 2), nn.MSELoss()))
    step = nn.TrainOneStepCell(nets[0], nn.Adam(nets[0].trainable_params(), 0.01))
    opt = nn.Adam(nets[1].trainable_params(), 0.01)
    grad_fn = ms.value_and_grad(nets[1], None, opt.parameters)
    for _ in range(3):
        loss_a = step(x, y)
        loss_b, grads = grad_fn(x, y)
        opt(grads)
        assert float(loss_a) == pytest.approx(float(loss_b), rel=1e-6)
    for a, b in zip(nets[0].trainable_params(), nets[1].trainable_params()):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)


def _dynamic_reference(scale, factor, window, overflows):
    """MindSpore's DynamicLossScaleUpdateCell, transcribed: the scale after each step."""
    cur, last, out = 1, 0, []
    for overflow in overflows:
        on_overflow = max(scale / factor, 1.0) if overflow else scale
        should_inc = window <= cur - last
        if overflow or should_inc:
            last = cur
        scale = on_overflow * factor if should_inc and not overflow else on_overflow
        cur += 1
        out.append(scale)
    return out


def test_dynamic_loss_scale_update_cell_sequence():
    overflows = [False, False, True, False, False, False, True, True, False]
    cell = nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 10, scale_factor=2, scale_window=2)
    scale = ms.Parameter(ms.Tensor(2.0 ** 10, ms.float32), name="scale")
    got = []
    for flag in overflows:
        assert bool(cell(scale, ms.Tensor(flag))) == flag
        got.append(float(scale))
    assert got == _dynamic_reference(2.0 ** 10, 2, 2, overflows)
    assert cell.get_loss_scale() == 1024
    assert nn.FixedLossScaleUpdateCell(8.0)(scale, ms.Tensor(True))


def test_loss_scale_cell_skips_overflowing_steps():
    net = Quad()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 10, scale_factor=2, scale_window=2)
    step = nn.TrainOneStepWithLossScaleCell(net, opt, update)
    bad = ms.Tensor(np.array([np.inf, 1.0], np.float32))
    overflows, scales = [], []
    for x in (X, X, bad, X):
        before = net.w.asnumpy().copy()
        loss, overflow, scale = step(x, Y)
        overflows.append(bool(overflow))
        scales.append(float(scale))
        if bool(overflow):
            np.testing.assert_array_equal(net.w.asnumpy(), before)
        else:
            assert not np.array_equal(net.w.asnumpy(), before)
    assert overflows == [False, False, True, False]
    assert scales == _dynamic_reference(1024.0, 2, 2, overflows)
    assert int(opt.global_step.asnumpy()[0]) == 3
    assert [n for n in {p.name for p in step.get_parameters()} if "scale" in n or "iterator" in n] != []


def test_loss_scale_cell_unscales_the_gradients():
    net_a, net_b = Quad(), Quad()
    step_a = nn.TrainOneStepWithLossScaleCell(net_a, nn.SGD(net_a.trainable_params(), 0.1), ms.Tensor(1024.0))
    step_b = nn.TrainOneStepCell(net_b, nn.SGD(net_b.trainable_params(), 0.1))
    loss, overflow, scale = step_a(X, Y)
    step_b(X, Y)
    assert float(loss) == pytest.approx(5.0) and not bool(overflow) and float(scale) == 1024.0
    np.testing.assert_allclose(net_a.w.asnumpy(), net_b.w.asnumpy(), rtol=1e-6)
    step_a.set_sense_scale(ms.Tensor(8.0))
    assert float(step_a.scale_sense) == 8.0
    assert bool(step_a.get_overflow_status(None, (ms.Tensor([np.nan]),)))


def test_loss_scale_cell_bad_scale_sense():
    net = Quad()
    with pytest.raises(ValueError, match="must be \\(1,\\) or \\(\\)"):
        nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params()), ms.Tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="must be Cell or Tensor"):
        nn.TrainOneStepWithLossScaleCell(net, nn.SGD(net.trainable_params()), 2.0)


def test_parameter_update_and_micro_batches():
    w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    out = nn.ParameterUpdate(w)(ms.Tensor([5.0, 6.0]))
    np.testing.assert_array_equal(w.asnumpy(), [5.0, 6.0])
    np.testing.assert_array_equal(out.asnumpy(), [5.0, 6.0])
    with pytest.raises(TypeError, match="'param' must be 'Parameter'"):
        nn.ParameterUpdate(ms.Tensor([1.0]))
    x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(4, 2))
    for cell in (nn.MicroBatchInterleaved(Scale(), 2), nn.GradAccumulationCell(Scale(), 2),
                 nn.PipelineCell(Scale(), 2)):
        np.testing.assert_allclose(cell(x).asnumpy(), [[4.0, 12.0], [8.0, 20.0]])
    with pytest.raises(ValueError, match="must be divided by micro size"):
        nn.MicroBatchInterleaved(Scale(), 3)(x)
    with pytest.raises(ValueError, match="must be large than 0"):
        nn.GradAccumulationCell(Scale(), 0)


def test_dynamic_loss_scale_growing_past_float32_max_stores_inf():
    cell = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 127, scale_factor=2, scale_window=1)
    scale = ms.Parameter(ms.Tensor(np.float32(2.0 ** 127)), name="scale")
    cell(scale, ms.Tensor(False))
    assert np.isinf(scale.asnumpy())


@pytest.mark.parametrize("args", [(3,), ("net",), (ms.Tensor([1.0]),), (nn.Dense(2, 1), "mse")])
def test_with_grad_cell_names_a_non_cell_argument(args):
    with pytest.raises(TypeError, match=r"For 'WithGradCell', the '(network|loss_fn)' must be a Cell, but got"):
        nn.WithGradCell(*args)


def test_lookups_and_constant_cells_refuse_bad_arguments_by_name():
    with pytest.raises(TypeError, match="'name' must be a str, but got list"):
        nn.get_activation(["relu"])
    with pytest.raises(TypeError, match="For 'get_metric_fn', the 'name' must be a str, but got dict"):
        nn.get_metric_fn({"a": 1})
    with pytest.raises(TypeError, match="For 'Range', the 'start' must be an int or a float, but got NoneType"):
        nn.Range(None)
    with pytest.raises(RuntimeError, match="Memory not enough"):
        nn.PReLU(channel=10 ** 12)
    np.testing.assert_array_equal(nn.Range(10 ** 3, 10 ** 3 + 3)().asnumpy(), [1000, 1001, 1002])
