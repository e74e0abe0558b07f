"""boost.GradientFreeze / FreezeOpt / freeze_cell against MindSpore 2.10's CPU results (hard-coded)."""
import numpy as np
import pytest

from mindseed import Tensor, boost, nn, ops


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 4, weight_init="ones", bias_init="zeros")
        self.bn = nn.BatchNorm1d(4)
        self.fc2 = nn.Dense(4, 4, weight_init="ones", bias_init="zeros")
        self.fc3 = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.fc3(self.fc2(self.bn(self.fc1(x))))


_ALL = ["fc1.weight", "fc1.bias", "bn.gamma", "bn.beta", "fc2.weight", "fc2.bias", "fc3.weight", "fc3.bias"]


def test_freeze_sequences_and_groups():
    freeze = boost.GradientFreeze(2, 0, 0.5, 10)
    assert [[p.name for p in g] for g in freeze.split_parameters_groups(_Net(), 2)] == [_ALL, _ALL[4:]]
    assert freeze.generate_freeze_index_sequence(3, 0, 0.5, 10) == [0, 0, 1, 2] * 3
    assert freeze.generate_freeze_index_sequence(1, 0, 0.5, 5) == [0] * 5
    np.random.seed(0)
    assert freeze.generate_freeze_index_sequence(3, 1, 0.5, 10) == [0, 1] * 5
    with pytest.raises(ValueError, match="Unsupported freezing training strategy '2'"):
        freeze.generate_freeze_index_sequence(3, 2, 0.5, 10)


def test_freeze_opt_errors():
    opt = nn.Momentum(_Net().trainable_params(), 0.001, 0.9)
    with pytest.raises(TypeError, match="The first arg 'opt' must be an Optimizer instance"):
        boost.FreezeOpt(1)
    with pytest.raises(ValueError, match="'train_parameter_groups' must also be specified"):
        boost.FreezeOpt(opt, None, [0])
    with pytest.raises(TypeError, match="'train_parameter_groups' should be tuple or list"):
        boost.FreezeOpt(opt, 3)
    with pytest.raises(TypeError, match="'train_strategy' should be None, tuple, list or Tensor"):
        boost.FreezeOpt(opt, [[1]], "x")
    with pytest.raises(ValueError, match="The element in train_strategy should be int number"):
        boost.FreezeOpt(opt, [[1]], [1.5])
    with pytest.raises(TypeError, match="The each element of 'train_parameter_groups' should be tuple or list"):
        boost.FreezeOpt(opt, [3])


def test_freeze_training():
    net = _Net()
    opt = nn.Momentum(net.trainable_params(), 0.001, 0.9)
    net2, freeze_opt = boost.GradientFreeze(2, 0, 0.5, 10).freeze_generate(net, opt)
    assert net2 is net and freeze_opt.groups_num == 2 and len(freeze_opt.opts) == 2
    assert freeze_opt.train_strategy.asnumpy().tolist() == [0, 1] * 5
    names = ["single_opt." + n for n in _ALL]
    assert [p.name for p in freeze_opt.opts[0].parameters] == names
    assert [p.name for p in freeze_opt.opts[1].moments] == ["boost_1moments." + n for n in names[4:]]
    single = boost.FreezeOpt(opt)
    assert single.groups_num == 1 and single.train_strategy is None
    cells = boost.freeze_cell(False, nn.WithLossCell(net, nn.MSELoss()), freeze_opt, 1.0,
                              ops.GradOperation(get_by_list=True, sens_param=True), False)
    assert len(cells) == 2
    x = Tensor(np.array([[1., 2., 3.], [-1., 0.5, 2.]], np.float32))
    y = Tensor(np.array([[1., 0.], [0., 1.]], np.float32))
    losses = [cells[i](x, y).asnumpy() for i in (1, 0, 1)]
    np.testing.assert_allclose(losses, [4836.451, 40.270683, 24.173393], rtol=1e-5)
    params = net.trainable_params()
    np.testing.assert_allclose(params[0].asnumpy()[0], [0.99793, 0.99375, 0.98956], atol=1e-5)
    np.testing.assert_allclose(params[2].asnumpy(), [0.98124] * 4, atol=1e-5)
    np.testing.assert_allclose(params[4].asnumpy(), np.full((4, 4), -0.17486), atol=1e-5)
    np.testing.assert_allclose(params[6].asnumpy(), [[-1.2273] * 4, [-1.24787] * 4], atol=1e-5)
    np.testing.assert_allclose(params[7].asnumpy(), [-0.10341, -0.10297], atol=1e-5)
