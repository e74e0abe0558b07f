"""boost.AutoBoost and BoostTrainOneStepCell against MindSpore 2.10's CPU results (hard-coded)."""
import numpy as np
import pytest

from mindseed import Tensor, boost, nn
from tests.boost._boost_nets import ThreeDense


_X = Tensor(np.array([[1., 2., 3.], [-1., 0.5, 2.]], np.float32))
_Y = Tensor(np.array([[1., 0.], [0., 1.]], np.float32))
_CONFIG = {"boost": {"mode": "manual", "less_bn": False, "grad_freeze": True, "x": 1},
           "grad_freeze": {"param_groups": 2, "freeze_type": 0, "freeze_p": 0.5, "total_steps": 4},
           "less_bn": {"fn_flag": False}, "common": {"device_number": 4}}


def test_configuration():
    auto = boost.AutoBoost("O1", _CONFIG)
    assert auto.level == "O1"
    assert auto.boost_config == {"less_bn": False, "grad_freeze": True, "adasum": False, "grad_accumulation": False,
                                 "dim_reduce": False, "loss_scale_group": False}
    assert (auto._param_groups, auto._freeze_type, auto._freeze_p, auto._total_steps) == (2, 0, 0.5, 4)
    assert auto._fn_flag is True and auto.device_number == 4      # the less_bn section is off
    assert boost.AutoBoost() is auto and boost.AutoBoost("O2").level == "O1"
    boost.AutoBoost._instance = None
    assert boost.AutoBoost("O3").boost_config == dict.fromkeys(auto.boost_config, False)
    boost.AutoBoost._instance = None
    assert boost.AutoBoost("O0", {"boost": {"mode": "enable_all"}}).boost_config == dict.fromkeys(auto.boost_config,
                                                                                                   True)
    boost.AutoBoost._instance = None
    with pytest.raises(ValueError, match=r"The boost mode must be in \['auto', 'manual', 'enable_all', "
                                         r"'disable_all'\], but got bad"):
        boost.AutoBoost("O1", {"boost": {"mode": "bad"}})


def test_freeze_training_by_config():
    auto = boost.AutoBoost("O1", _CONFIG)
    net = ThreeDense()
    net2, opt = auto.network_auto_process_train(net, nn.Momentum(net.trainable_params(), 0.001, 0.9))
    assert net2 is net and isinstance(opt, boost.FreezeOpt)
    assert opt.train_strategy.asnumpy().tolist() == [0, 1, 0, 1]
    assert [len(o.parameters) for o in opt.opts] == [6, 2]
    assert auto.network_auto_process_eval(net) is net
    train = boost.BoostTrainOneStepCell(nn.WithLossCell(net2, nn.MSELoss()), opt)
    assert (train.freeze, train.use_grad_accumulation, train.enable_adasum, train.enable_dim_reduce) == \
        (True, False, False, False)
    losses = [float(train(_X, _Y).asnumpy()) for _ in range(3)]
    np.testing.assert_allclose(losses, [4836.5, 2.104593, 2.0383594], rtol=1e-5)
    assert int(train.step.asnumpy()) == 3


def test_plain_step_with_sens():
    boost.AutoBoost("O0")
    net = ThreeDense()
    train = boost.BoostTrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                        nn.Momentum(net.trainable_params(), 0.001, 0.9), sens=2.0)
    losses = [float(train(_X, _Y).asnumpy()) for _ in range(3)]
    np.testing.assert_allclose(losses, [4836.5, 833.68115, 52932.68], rtol=1e-5)
    np.testing.assert_allclose(net.fc3.bias.asnumpy(), [0.22848466, 0.23410136], rtol=1e-5)


def test_grad_accumulation_by_config():
    # MindSpore's graph-mode numbers (its PyNative run stops at `self.accumulation_step = 0`)
    boost.AutoBoost("O1", {"boost": {"mode": "manual", "less_bn": False, "grad_freeze": False,
                                     "grad_accumulation": True}, "grad_accumulation": {"grad_accumulation_step": 2}})
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    train = boost.BoostTrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                        nn.Momentum(net.trainable_params(), 0.01, 0.9), sens=1.0)
    assert train.use_grad_accumulation and train.max_accumulation_step == 2
    updated = [[0.9825, 0.94625, 0.91], [0.9725, 0.93875, 0.905]]
    for loss, weight, step in ((15.875, np.ones((2, 3)), 1), (15.875, updated, 0), (13.306301, updated, 1)):
        np.testing.assert_allclose(float(train(_X, _Y).asnumpy()), loss, rtol=1e-6)
        np.testing.assert_allclose(net.weight.asnumpy(), weight, rtol=1e-6)
        assert int(train.accumulation_step.asnumpy()) == step
