"""MindQuantum 0.12.0, unmodified, on mindseed: its MindSpore layers.

`MQLayer` and `MQOps` (Cells whose custom `bprop` hands back the simulator's gradients) give the simulator's
expectations, and mindseed's autodiff returns exactly the simulator's gradients with respect to the encoder data
and the ansatz weights; a hybrid network (a Dense layer feeding the encoder) trains end to end.
"""
import numpy as np
import pytest

from _eco import use


@pytest.fixture(scope="module")
def mq():
    return use("mindquantum", "mindquantum")


def _circuit_and_grad_ops():
    from mindquantum.core.circuit import Circuit
    from mindquantum.core.operators import Hamiltonian, QubitOperator
    from mindquantum.simulator import Simulator
    encoder = Circuit().h(0).rx("a0", 0).ry("a1", 0).as_encoder()
    ansatz = Circuit().rx("b0", 0).ry("b1", 0).rz("b2", 0).h(1).x(1, 0).ry("b3", 1).as_ansatz()
    ham = Hamiltonian(QubitOperator("Z0 Z1"))
    return Simulator("mqvector", 2).get_expectation_with_grad(ham, encoder + ansatz)


def test_mqlayer_expectations_and_gradients_are_the_simulators(mq):
    import mindspore as ms
    from mindquantum.framework import MQLayer
    ms.set_seed(1)
    grad_ops = _circuit_and_grad_ops()
    net = MQLayer(grad_ops)
    weight = net.trainable_params()[0]
    assert weight.shape == (4,)
    enc = np.array([[0.1, 0.2], [0.5, -0.3], [1.2, 0.7]], np.float32)
    f, g_enc, g_ans = grad_ops(enc.astype(np.float64), weight.asnumpy().astype(np.float64))
    out = net(ms.Tensor(enc))
    assert out.shape == (3, 1) and out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), f.real, rtol=1e-6, atol=1e-7)
    # d sum(out) / d (encoder data, weights): the simulator's gradients, summed over the batch for the weights
    gx, (gw,) = ms.grad(lambda x: net(x).sum(), grad_position=0, weights=net.trainable_params())(ms.Tensor(enc))
    np.testing.assert_allclose(gx.asnumpy(), g_enc.real.sum(1), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gw.asnumpy(), g_ans.real.sum((0, 1)), rtol=1e-5, atol=1e-7)
    # a weighted sum: the sensitivity reaches the simulator's gradient
    sens = np.array([[1.0], [-2.0], [0.5]], np.float32)
    gx = ms.grad(lambda x: (net(x) * ms.Tensor(sens)).sum())(ms.Tensor(enc))
    np.testing.assert_allclose(gx.asnumpy(), (sens[:, :, None] * g_enc.real).sum(1), rtol=1e-5, atol=1e-7)


def test_mqops_takes_the_weights_as_an_input(mq):
    import mindspore as ms
    from mindquantum.framework import MQOps
    grad_ops = _circuit_and_grad_ops()
    ops = MQOps(grad_ops)
    enc = np.array([[0.3, -0.4]], np.float32)
    ans = np.array([0.2, 0.9, -0.5, 1.1], np.float32)
    f, g_enc, g_ans = grad_ops(enc.astype(np.float64), ans.astype(np.float64))
    np.testing.assert_allclose(ops(ms.Tensor(enc), ms.Tensor(ans)).asnumpy(), f.real, rtol=1e-6)
    ge, ga = ms.grad(lambda e, a: ops(e, a).sum(), grad_position=(0, 1))(ms.Tensor(enc), ms.Tensor(ans))
    np.testing.assert_allclose(ge.asnumpy(), g_enc.real.sum(1), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(ga.asnumpy(), g_ans.real.sum((0, 1)), rtol=1e-5, atol=1e-7)


def test_hybrid_network_trains_to_the_lowest_expectation(mq):
    """A Dense layer maps features to the encoder angles, MQLayer measures <Z0 Z1>; Adam drives the expectation
    down towards its minimum -1 through both the quantum and the classical parameters."""
    import mindspore as ms
    from mindspore import nn
    from mindquantum.framework import MQLayer
    ms.set_seed(2)

    class Hybrid(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 2)
            self.quantum = MQLayer(_circuit_and_grad_ops())

        def construct(self, x):
            return self.quantum(self.dense(x)).mean()

    net = Hybrid()
    x = ms.Tensor(np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32))
    dense_before = net.dense.weight.asnumpy().copy()
    train = nn.TrainOneStepCell(net, nn.Adam(net.trainable_params(), learning_rate=0.1))
    losses = [float(train(x).asnumpy()) for _ in range(40)]
    assert losses[-1] < -0.9 < losses[0]
    assert np.abs(net.dense.weight.asnumpy() - dense_before).max() > 0.01       # the classical part trained too
