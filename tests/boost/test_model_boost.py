"""Model(..., boost_level="O1") builds MindSpore 2.10's boost network on CPU: LessBN with a CommonHeadLastFN head,
gradient centralization groups, BoostTrainOneStepCell; parameters after 3 steps as the oracle's."""
import numpy as np
import pytest

from mindseed import Tensor, amp, boost, nn
from mindseed.boost.less_batch_normalization import CommonHeadLastFN
from mindseed.train import Model
from tests.boost._boost_nets import ThreeDense


def test_model_boost_o1_less_bn():
    net = ThreeDense()
    model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.01, 0.9), metrics={"mae"},
                  boost_level="O1", boost_config_dict={"boost": {"mode": "manual", "grad_freeze": False}})
    train = model._train_network
    assert type(train) is boost.BoostTrainOneStepCell and type(model._network) is boost.LessBN
    assert type(model._optimizer) is nn.Momentum and type(net.fc3) is CommonHeadLastFN
    assert [(g.get("grad_centralization"), [p.name for p in g["params"]])
            for g in model._optimizer.init_params["params"]] == [
        (True, ["network.fc1.weight", "network.fc2.weight"]),
        (None, ["network.fc1.bias", "network.fc2.bias", "fc3.weight", "fc3.multiplier"])]
    x = Tensor(np.array([[1., 2., 3.], [-1., 0.5, 2.]], np.float32))
    y = Tensor(np.array([[1., 0.], [0., 1.]], np.float32))
    # MindSpore's step returns None here (its no-sens branch drops the loss); mindseed returns the loss
    np.testing.assert_allclose([float(train(x, y).asnumpy()) for _ in range(3)], [0.5, 0.4901, 0.4720294],
                               rtol=1e-5)
    np.testing.assert_allclose(net.fc3.multiplier.asnumpy(), [0.94486], rtol=1e-5)
    np.testing.assert_array_equal(net.fc3.weight.asnumpy(), np.ones((2, 4)))


def test_model_boost_o0_unchanged_and_amp_level_check():
    net = ThreeDense()
    model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.01, 0.9), boost_level="O0")
    assert type(model._train_network) is nn.TrainOneStepCell and model._network is net
    with pytest.raises(ValueError, match="'boost_level' must be in"):
        amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.01, 0.9), boost_level="O3")


def test_dim_reduce_is_refused_with_mindspores_directory_check(tmp_path):
    from mindseed.boost import AutoBoost
    boost = AutoBoost("O0")
    saved = dict(boost.boost_config), boost.weight_load_dir
    try:
        boost.boost_config["dim_reduce"] = True
        boost.weight_load_dir = None
        with pytest.raises(ValueError, match="The weight_load_dir: None is None / not exists / not directory."):
            boost.network_auto_process_train(None, None)
        boost.weight_load_dir = str(tmp_path)
        with pytest.raises(RuntimeError, match="dim_reduce .* is not provided by mindseed"):
            boost.network_auto_process_train(None, None)
    finally:
        boost.boost_config.clear()
        boost.boost_config.update(saved[0])
        boost.weight_load_dir = saved[1]
