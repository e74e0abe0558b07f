"""nn.probability.bnn_layers: reparameterised Bayesian layers, their KL and training through WithBNNLossCell."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn
from mindseed.nn.probability import bnn_layers as B


def _std(post):
    return np.log1p(np.exp(post.untransformed_std.asnumpy().astype(np.float64)))


def test_dense_reparam_kl_is_closed_form_normal_kl():
    d = B.DenseReparam(3, 2)
    kl = 0.0
    for post in (d.weight_posterior, d.bias_posterior):
        m, s = post.mean.asnumpy().astype(np.float64), _std(post)
        kl += np.sum(np.log(s / 0.1) + (0.1 ** 2 + m ** 2) / (2 * s ** 2) - 0.5)   # KL(prior N(0, .1) || post)
    assert float(d.compute_kl_loss().asnumpy()) == pytest.approx(kl, rel=1e-4)


def test_dense_reparam_output_matches_sampled_weight_mean_and_spread():
    ms.set_seed(0)
    d = B.DenseReparam(3, 2, has_bias=False)
    x = Tensor(np.ones((1, 3), np.float32))
    outs = np.stack([d(x).asnumpy()[0] for _ in range(400)])
    mean_w = d.weight_posterior.mean.asnumpy().sum(1)
    sd = np.sqrt((_std(d.weight_posterior) ** 2).sum(1))
    np.testing.assert_allclose(outs.mean(0), mean_w, atol=5 * sd.max() / 20)
    np.testing.assert_allclose(outs.std(0), sd, rtol=0.2)


def test_shapes_of_conv_and_local_reparam():
    x = Tensor(np.ones((2, 1, 6, 6), np.float32))
    assert B.ConvReparam(1, 4, 3, has_bias=True)(x).shape == (2, 4, 6, 6)
    assert B.ConvReparam(1, 4, 3, pad_mode="valid")(x).shape == (2, 4, 4, 4)
    assert B.DenseLocalReparam(6, 5, activation="relu")(Tensor(np.ones((3, 6), np.float32))).shape == (3, 5)


def test_with_bnn_loss_cell_trains_a_bayesian_regression():
    ms.set_seed(1)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 2)).astype(np.float32)
    y = (x @ np.array([[1.5], [-2.0]], np.float32) + 0.5).astype(np.float32)
    net = nn.SequentialCell([B.DenseReparam(2, 1)])
    loss_net = B.WithBNNLossCell(net, nn.MSELoss(), dnn_factor=1, bnn_factor=1e-4)
    opt = nn.Adam(net.trainable_params(), learning_rate=0.05)
    step = nn.TrainOneStepCell(loss_net, opt)
    first = float(loss_net(Tensor(x), Tensor(y)).asnumpy())
    for _ in range(150):
        last = float(step(Tensor(x), Tensor(y)).asnumpy())
    assert first > 1.0 and last < 0.1 * first
    w = net[0].weight_posterior.mean.asnumpy()
    np.testing.assert_allclose(w, [[1.5, -2.0]], atol=0.2)


@pytest.mark.parametrize("make", [
    lambda: B.DenseReparam(0, 2),
    lambda: B.ConvReparam(3, 4, 3, group=2),
    lambda: B.ConvReparam(1, 4, 3, pad_mode="full"),
    lambda: B.NormalPosterior("w", (2,), loc_std=-1.0),
    lambda: B.WithBNNLossCell(B.DenseReparam(1, 1), nn.MSELoss(), dnn_factor="a"),
    lambda: B.DenseReparam(2, 2, weight_posterior_fn=lambda **kw: 3),
])
def test_bad_arguments_raise(make):
    with pytest.raises((ValueError, TypeError)):
        make()
