"""boost.BoostTrainOneStepWithLossScaleCell: one loss scale (Tensor or update cell) or, with the boost option
loss_scale_group, one scale per layer group kept by a GroupLossScaleManager inside the network."""
import numpy as np
import pytest

from mindseed import Tensor, boost, nn
from mindseed.common import dtype as mstype
from mindseed.train import Model

_X = Tensor(np.ones((3, 2), np.float32))
_Y = Tensor(np.zeros((3, 1), np.float32))


def _dense_with_loss():
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    return net, nn.WithLossCell(net, nn.MSELoss())


def test_tensor_scale_updates_with_unscaled_gradients():
    net, with_loss = _dense_with_loss()
    step = boost.BoostTrainOneStepWithLossScaleCell(with_loss, nn.SGD(net.trainable_params(), 0.1),
                                                    Tensor(np.float32(1024)))
    loss, overflow, scale = step(_X, _Y)
    # loss = mean((2 - 0)^2) = 4; d/dw = d/db = 2 * 2 = 4; SGD: 1 - 0.1 * 4, 0 - 0.1 * 4
    assert (float(loss.asnumpy()), bool(overflow.asnumpy()), float(scale.asnumpy())) == (4.0, False, 1024.0)
    np.testing.assert_allclose(net.weight.asnumpy(), [[0.6, 0.6]], rtol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), [-0.4], rtol=1e-6)
    # a scale that overflows the gradients skips the update
    step.set_sense_scale(Tensor(np.float32(np.finfo(np.float32).max)))
    loss, overflow, _ = step(_X, _Y)
    np.testing.assert_allclose(float(loss.asnumpy()), 0.04 * 4 * 0 + (2 * 0.6 - 0.4) ** 2, rtol=1e-5)
    assert bool(overflow.asnumpy())
    np.testing.assert_allclose(net.weight.asnumpy(), [[0.6, 0.6]], rtol=1e-6)


def test_update_cell_halves_the_scale_on_overflow():
    net, with_loss = _dense_with_loss()
    manager = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 20, scale_factor=2, scale_window=1000)
    step = boost.BoostTrainOneStepWithLossScaleCell(with_loss, nn.SGD(net.trainable_params(), 0.1), manager)
    _, overflow, scale = step(_X * 1e30, _Y)
    assert bool(overflow.asnumpy()) and float(scale.asnumpy()) == 2.0 ** 19
    np.testing.assert_array_equal(net.weight.asnumpy(), [[1.0, 1.0]])
    _, overflow, scale = step(_X, _Y)
    assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) == 2.0 ** 19
    np.testing.assert_allclose(net.weight.asnumpy(), [[0.6, 0.6]], rtol=1e-6)


def test_bad_scale_sense():
    net, with_loss = _dense_with_loss()
    opt = nn.SGD(net.trainable_params(), 0.1)
    with pytest.raises(ValueError, match=r"The shape of scale_sense must be \(1,\) or \(\), but got \(2,\)"):
        boost.BoostTrainOneStepWithLossScaleCell(with_loss, opt, Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="The scale_sense must be Cell or Tensor, but got <class 'float'>"):
        boost.BoostTrainOneStepWithLossScaleCell(with_loss, opt, 2.0)


class _GroupNet(nn.Cell):
    """Two Dense layers (float16, as enhanced amp expects) with the group manager at the group boundaries."""

    def __init__(self, manager):
        super().__init__()
        self.fc1 = nn.Dense(2, 2, weight_init="ones", bias_init="zeros").to_float(mstype.float16)
        self.fc2 = nn.Dense(2, 1, weight_init="ones", bias_init="zeros").to_float(mstype.float16)
        self.enhanced_amp = manager

    def construct(self, x):
        x = self.enhanced_amp(x, 0, 1)
        x = self.fc1(x)
        x = self.enhanced_amp(x, 1, 2)
        x = self.fc2(x)
        return self.enhanced_amp(x, 2, 3)


_GROUP_CONFIG = {"boost": {"mode": "manual", "less_bn": False, "grad_freeze": False, "adasum": False,
                           "grad_accumulation": False, "dim_reduce": False, "loss_scale_group": True}}


def test_loss_scale_groups_through_model():
    manager = boost.GroupLossScaleManager(4096, [])
    net = _GroupNet(manager)
    manager.loss_scale_groups = [[net.fc1.weight, net.fc1.bias], [net.fc2.weight, net.fc2.bias]]
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01), loss_scale_manager=manager,
                  boost_level="O1", boost_config_dict=_GROUP_CONFIG)
    step = model._train_network
    assert type(step) is boost.BoostTrainOneStepWithLossScaleCell and step.enable_enhanced_amp
    assert step.optimizer_loss_scale == [2, 2]
    x = Tensor(np.array([[1.0, 2.0]], np.float32))
    y = Tensor(np.array([[0.0]], np.float32))
    # out = 2 * (1 + 2) = 6, loss 36; dL/dout = 12; fc2: dW = 12 * [3, 3], db = 12; fc1: dW = 12 * [[1, 2], [1, 2]],
    # db = [12, 12]; the group of fc1 gets its gradients times its scale s1, fc2's times s2. The float16 backward
    # overflows where 12 * 3 * s2 or 12 * 2 * s1 passes 65504: an overflowing group's scale shrinks by sqrt(2), the
    # others grow by 2^(1/1000), and the weights stay until no group overflows; then the gradients are divided by
    # the grown scales.
    counts = []
    for _ in range(4):
        loss, overflow, scale = step(x, y)
        assert float(loss.asnumpy()) == 36.0
        counts.append(int(overflow.asnumpy()))
    assert counts == [2, 2, 1, 0]      # s1 = s2 = 4096, 2896, 2048 (fc2 only), then 2048 g and 1448
    growth = 2 ** (1 / 1000)
    s1, s2 = 2048 * growth ** 2, 2048 / 2 ** 0.5 * growth
    np.testing.assert_allclose(float(scale.asnumpy()), s1, rtol=1e-5)
    np.testing.assert_allclose([float(p.asnumpy()) for p in manager.dynamic_loss_scale], [1.0, s1, s2, 1.0],
                               rtol=1e-5)
    np.testing.assert_allclose(net.fc1.weight.asnumpy(), 1 - 0.01 * 12 * np.array([[1, 2], [1, 2]]) / growth,
                               rtol=1e-3)
    np.testing.assert_allclose(net.fc2.weight.asnumpy(), 1 - 0.01 * 36 / growth * np.ones((1, 2)), rtol=1e-3)
    np.testing.assert_allclose(net.fc2.bias.asnumpy(), [-0.01 * 12 / growth], rtol=1e-3)
    assert type(net.enhanced_amp).__name__ == "_OutputTo16"


def test_loss_scale_group_needs_the_group_manager():
    boost.AutoBoost("O1", _GROUP_CONFIG)
    net, with_loss = _dense_with_loss()
    with pytest.raises(TypeError, match="The scale_sense must be enhanced amp Cell"):
        boost.BoostTrainOneStepWithLossScaleCell(with_loss, nn.SGD(net.trainable_params(), 0.1),
                                                 Tensor(np.float32(1024)))
