"""boost.OptimizerProcess / ParameterProcess / LessBN against MindSpore 2.10's CPU results (hard-coded)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, boost, nn
from mindseed.boost.less_batch_normalization import CommonHeadLastFN


class _ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, weight_init="ones")
        self.bn = nn.BatchNorm2d(4)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(4 * 4 * 4, 3, weight_init="ones")

    def construct(self, x):
        return self.fc(self.flat(self.bn(self.conv(x))))


def _show(groups):
    return [{k: ([p.name for p in v] if k in ("params", "order_params") else v) for k, v in g.items()}
            for g in groups]


def test_optimizer_process_grad_centralization_groups():
    net = _ConvNet()
    params = net.trainable_params()
    group = [{"params": [params[0]], "weight_decay": 0.01}, {"params": params[1:], "lr": 0.05},
             {"order_params": params}]
    process = boost.OptimizerProcess(nn.Momentum(group, learning_rate=0.1, momentum=0.9))
    assert not process.is_lars and process.opt_class is nn.Momentum and process.learning_rate == 0.1
    assert process.opt_init_args == {"momentum": 0.9, "weight_decay": 0.0, "loss_scale": 1.0, "use_nesterov": False}
    process.add_grad_centralization(net)
    names = ["conv.weight", "bn.gamma", "bn.beta", "fc.weight", "fc.bias"]
    assert _show(process.origin_params) == [
        {"params": ["conv.weight"], "weight_decay": 0.01, "grad_centralization": True},
        {"params": ["fc.weight"], "lr": 0.05, "grad_centralization": True},
        {"params": ["bn.gamma", "bn.beta", "fc.bias"], "lr": 0.05},
        {"order_params": names}]
    new = process.generate_new_optimizer()
    assert type(new) is nn.Momentum and new.grad_centralization
    plain = nn.Momentum(params, learning_rate=0.1, momentum=0.9)
    process = boost.OptimizerProcess(plain)
    process.add_grad_centralization(net)          # only grouped parameters: a warning, nothing changes
    assert process.origin_params is plain.init_params["params"]


def test_optimizer_process_centralized_step():
    net = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")
    process = boost.OptimizerProcess(nn.Momentum([{"params": net.trainable_params()}], 0.1, 0.9))
    process.add_grad_centralization(net)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), process.generate_new_optimizer())
    x = Tensor(np.array([[1., 2., 3.], [-1., 0.5, 2.]], np.float32))
    y = Tensor(np.array([[1., 0.], [0., 1.]], np.float32))
    assert np.isclose(train(x, y).asnumpy(), 15.875)
    np.testing.assert_allclose(net.weight.asnumpy(), [[0.825, 0.4625, 0.1], [0.725, 0.3875, 0.05]], atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), [-0.325, -0.325], atol=1e-6)


def test_parameter_process():
    params = _ConvNet().trainable_params()
    process = boost.ParameterProcess()
    assert [p.comm_fusion for p in process.assign_parameter_group(params)] == [1, 1, 2, 2, 2]
    assert [p.comm_fusion for p in process.assign_parameter_group(params, split_point=[1, 3])] == [2, 3, 3, 4, 4]
    assert process.assign_parameter_group([]) == [] and process.assign_parameter_group("x") == "x"
    group = [{"params": [params[0]], "weight_decay": 0.01}, {"params": params[1:], "lr": 0.05},
             {"order_params": params}]
    assert _show(boost.ParameterProcess.generate_group_params(params[:2], group)) == [
        {"params": ["conv.weight"], "weight_decay": 0.01}, {"params": ["bn.gamma"], "lr": 0.05},
        {"order_params": ["conv.weight", "bn.gamma"]}]
    assert _show(boost.ParameterProcess.generate_group_params(params[:2], params)) == [
        {"params": ["conv.weight", "bn.gamma"]}]
    assert _show(boost.ParameterProcess.generate_group_params(params, [{"params": params[:1], "lr": 0.2}])) == [
        {"params": ["conv.weight"], "lr": 0.2},
        {"params": ["bn.gamma", "bn.beta", "fc.weight", "fc.bias"], "lr": 0.2}]
    with pytest.raises(ValueError, match="Optimizer got an empty parameter list."):
        boost.ParameterProcess.generate_group_params(params, [])
    with pytest.raises(TypeError, match="Only a list of Parameter or dict can be supported."):
        boost.ParameterProcess.generate_group_params(params, [1])


class _TwoDense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 4, weight_init="ones", bias_init="zeros")
        self.fc = nn.Dense(4, 2, weight_init=Tensor(np.arange(8).reshape(2, 4).astype(np.float32)), bias_init="ones")

    def construct(self, x):
        return self.fc(self.fc1(x))


_X = np.array([[1., 2., 3.], [-1., 0.5, 2.]], np.float32)


def test_less_bn_fn_flag():
    net = _TwoDense()
    less = boost.LessBN(net, fn_flag=True)
    assert type(net.fc) is CommonHeadLastFN
    assert [(p.name, p.shape) for p in net.get_parameters()] == [
        ("network.fc1.weight", (4, 3)), ("network.fc1.bias", (4,)), ("fc.weight", (2, 4)), ("fc.multiplier", (1,))]
    assert net.get_flags() == {"less_bn": True, "defer_inline": True}
    np.testing.assert_allclose(less(Tensor(_X)).asnumpy(), [[0.8017837, 0.97995794]] * 2, rtol=1e-6)
    plain = _TwoDense()
    assert type(plain.fc) is nn.Dense
    np.testing.assert_allclose(boost.LessBN(plain)(Tensor(_X)).asnumpy(), [[37., 133.], [10., 34.]])


def test_common_head_last_fn_and_set_boost():
    head = CommonHeadLastFN(3, 2, weight_init=Tensor(np.array([[1., 2., 3.], [0., 1., -1.]], np.float32)),
                            bias_init="ones")
    np.testing.assert_allclose(head(Tensor(_X)).asnumpy(), [[2., 0.8110178], [1.6998541, 0.53708994]], rtol=1e-6)
    assert [p.name for p in head.get_parameters()] == ["weight", "multiplier", "bias"]
    with pytest.raises(ValueError, match="'boost_type' must be 'less_bn', but got bad"):
        nn.Dense(2, 1).set_boost("bad")
    assert ms.nn.Dense(2, 1).set_boost("less_bn").get_flags()["less_bn"]
