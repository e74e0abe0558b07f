"""MindQuantum 0.12.0, unmodified, on mindseed: its MindSpore layers, a QNN classifier and QAOA.

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


# MindSpore 2.10's numbers for the runs below (same circuits, data and starting weights)
QNN_LOSSES = [0.709722, 0.664925, 0.58201, 0.467561, 0.428656, 0.428027, 0.41546, 0.422256, 0.420937, 0.418491]
QNN_WEIGHTS = [-0.4201088547706604, 0.19799686968326569, -0.3708134889602661, 0.6263273358345032, 0.7750614285469055,
               -0.5573002696037292, 1.3595870733261108, 0.3956954777240753, 1.1421467065811157, -1.7103986740112305,
               0.4123981297016144, 0.5]


def test_qnn_classifier_trains_with_model_as_on_mindspore(mq):
    """The classification tutorial's shape: IQP encoding of the features, a hardware-efficient RY/CNOT ansatz,
    <Z0>, <Z1> as the two logits of an MQLayer trained by Model with softmax cross-entropy and Adam; then the
    gradient of the loss with respect to the ansatz weights against finite differences of the simulator."""
    import mindspore as ms
    import mindspore.dataset as ds
    from mindquantum.algorithm.nisq import HardwareEfficientAnsatz, IQPEncoding
    from mindquantum.core.gates import RY, X
    from mindquantum.core.operators import Hamiltonian, QubitOperator
    from mindquantum.framework import MQLayer
    from mindquantum.simulator import Simulator
    from mindspore import nn
    from mindspore.train import Accuracy, Callback, Model
    ms.set_seed(1)
    rng = np.random.default_rng(0)
    n = 3
    y = np.repeat([0, 1], 24).astype(np.int32)
    x = (rng.normal(0, 0.25, (48, n)) + np.where(y[:, None] == 0, -0.6, 0.6)).astype(np.float32)
    iqp = IQPEncoding(n)
    ansatz = HardwareEfficientAnsatz(n, [RY], X, depth=3).circuit
    circ = iqp.circuit.as_encoder() + ansatz.as_ansatz()
    grad_ops = Simulator("mqvector", n).get_expectation_with_grad(
        [Hamiltonian(QubitOperator(f"Z{i}")) for i in (0, 1)], circ, parallel_worker=1)
    qnet = MQLayer(grad_ops, ms.Tensor(np.linspace(-0.5, 0.5, len(ansatz.params_name)).astype(np.float32)))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(qnet, loss, nn.Adam(qnet.trainable_params(), learning_rate=0.1), metrics={"Acc": Accuracy()})
    perm = rng.permutation(48)
    x = iqp.data_preparation(x).astype(np.float32)           # alpha_i and the products alpha_i * alpha_(i+1)
    assert x.shape == (48, 5)
    train = ds.NumpySlicesDataset({"features": x[perm[:32]], "labels": y[perm[:32]]}, shuffle=False).batch(8)
    test = ds.NumpySlicesDataset({"features": x[perm[32:]], "labels": y[perm[32:]]}, shuffle=False).batch(8)

    class Losses(Callback):
        def __init__(self):
            self.values = []

        def on_train_step_end(self, run_context):
            self.values.append(float(run_context.original_args().net_outputs.asnumpy()))
    losses = Losses()
    assert model.eval(test, dataset_sink_mode=False)["Acc"] == 0.5
    model.train(30, train, callbacks=[losses], dataset_sink_mode=False)
    assert len(losses.values) == 120
    np.testing.assert_allclose(losses.values[::12], QNN_LOSSES, rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(qnet.weight.asnumpy(), QNN_WEIGHTS, rtol=1e-5, atol=3e-6)
    assert model.eval(test, dataset_sink_mode=False)["Acc"] == 0.875
    # d loss / d weights through MQLayer's bprop against central differences of the simulator's expectations
    xb, yb = x[perm[:8]], y[perm[:8]]
    (gw,) = ms.grad(lambda e, t: loss(qnet(e), t), grad_position=None, weights=qnet.trainable_params())(
        ms.Tensor(xb), ms.Tensor(yb))

    def loss_np(w):
        logits = grad_ops(xb.astype(np.float64), w)[0].real
        logits = logits - logits.max(1, keepdims=True)
        return float(np.mean(np.log(np.exp(logits).sum(1)) - logits[np.arange(len(yb)), yb]))
    w = qnet.weight.asnumpy().astype(np.float64)
    fd = [(loss_np(w + d) - loss_np(w - d)) / 2e-5 for d in np.eye(len(w)) * 1e-5]
    np.testing.assert_allclose(gw.asnumpy(), fd, rtol=1e-4, atol=1e-6)
    assert gw.asnumpy()[-1] == 0.0             # the last RY acts on qubit 2, which neither logit measures


# MindSpore 2.10's expectation every 25 steps and the weights after 200
QAOA_CUTS = [-1.116511, -4.262557, -4.788265, -4.820991, -4.826305, -4.827153, -4.828856, -4.831572]
QAOA_WEIGHTS = [0.46598923206329346, -1.0794692039489746, 0.9336901307106018, -0.8022010922431946, 0.9286875128746033,
                -0.5959064364433289, -0.2275199294090271, 0.21713638305664062]


def test_qaoa_maxcut_with_ansatz_only_layer_finds_the_maximum_cut(mq):
    """QAOA (MaxCutAnsatz, depth 4) on a 5-node graph whose maximum cut is 5: MQAnsatzOnlyLayer on minus the cut
    Hamiltonian, Adam 200 steps; the expectation and weights follow MindSpore's, the most probable partitions
    cut 5 edges."""
    import mindspore as ms
    from mindquantum.algorithm.nisq import MaxCutAnsatz
    from mindquantum.core.operators import Hamiltonian
    from mindquantum.framework import MQAnsatzOnlyLayer
    from mindquantum.simulator import Simulator
    graph = [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4), (0, 2)]
    maxcut = MaxCutAnsatz(graph, 4)
    circ = maxcut.circuit
    assert circ.params_name == [f"{k}_{i}" for i in range(4) for k in ("gamma", "beta")]
    grad_ops = Simulator("mqvector", circ.n_qubits).get_expectation_with_grad(Hamiltonian(-maxcut.hamiltonian), circ)
    net = MQAnsatzOnlyLayer(grad_ops, ms.Tensor(np.linspace(0.1, 0.8, 8).astype(np.float32)))
    train = ms.nn.TrainOneStepCell(net, ms.nn.Adam(net.trainable_params(), learning_rate=0.05))
    values = [float(train().asnumpy()[0]) for _ in range(200)]
    np.testing.assert_allclose(values[::25], QAOA_CUTS, rtol=1e-5)
    np.testing.assert_allclose(net.weight.asnumpy(), QAOA_WEIGHTS, rtol=1e-5, atol=1e-6)
    assert -5 < float(net().asnumpy()[0]) < -4.83                 # close to the maximum cut, 5
    partitions = maxcut.get_partition(4, net.weight.asnumpy())
    assert partitions == [[[0, 3], [1, 2, 4]], [[1, 2, 4], [0, 3]], [[0, 1, 3], [2, 4]], [[2, 4], [0, 1, 3]]]
    assert [maxcut.get_cut_value(p) for p in partitions] == [5, 5, 5, 5]
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(RuntimeError, match="is `PYNATIVE_MODE` supported only"):
            MQAnsatzOnlyLayer(grad_ops)        # its ops check the mode when they are made
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_ansatz_only_layer_trains_from_mindspores_initial_weights(mq):
    """MQAnsatzOnlyLayer's documented example: after `set_seed(42)` its weights are MindSpore's (the initializer's
    seeded stream), so the Adam trajectory is MindSpore 2.10's own (its values hard-coded)."""
    import mindspore as ms
    from mindquantum.core.circuit import Circuit
    from mindquantum.core.operators import Hamiltonian, QubitOperator
    from mindquantum.framework import MQAnsatzOnlyLayer
    from mindquantum.simulator import Simulator
    ms.set_seed(42)
    circ = Circuit().ry("a", 0).h(0).rx("b", 0)
    grad_ops = Simulator("mqvector", 1).get_expectation_with_grad(Hamiltonian(QubitOperator("Z0")), circ)
    net = MQAnsatzOnlyLayer(grad_ops)
    train_net = ms.nn.TrainOneStepCell(net, ms.nn.Adam(net.trainable_params(), learning_rate=0.1))
    losses = [float(train_net().asnumpy()[0]) for _ in range(100)]
    np.testing.assert_allclose(losses[:4], [-2.25867075e-03, -1.01654284e-01, -2.00827643e-01, -2.97063798e-01],
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(losses[-1], -9.99999940e-01, rtol=1e-6)
    np.testing.assert_allclose(net.weight.asnumpy(), [-1.5723442, -1.3133796e-04], rtol=1e-4, atol=1e-6)
