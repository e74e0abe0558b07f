"""MindArmour 2.0.0, unmodified, on mindseed: privacy evaluation and reliability.

The membership inference attack (its scikit-learn attack models trained on a target model's loss and logits),
the out-of-distribution detector reading a layer's outputs through a `TensorSummary` in a graph-mode network,
the time-series concept drift check, and the adaptive norm clipping of differential privacy. The expected figures
are MindSpore 2.10's on CPU for the same scripts (the random draws of the clipping noise aside).
"""
import numpy as np
import pytest

from _eco import use


@pytest.fixture(scope="module")
def ma():
    return use("mindarmour", "mindarmour")


def _batches(x, y):
    import mindspore.dataset as ds
    return ds.NumpySlicesDataset({"image": x, "label": y}, shuffle=False).batch(32)


def test_membership_inference_tells_the_training_samples_of_an_overfit_model(ma):
    import mindspore as ms
    from mindspore import nn
    from mindspore.train import Model
    from mindarmour.privacy.evaluation import MembershipInference
    rng = np.random.RandomState(0)
    x_train, y_train = rng.randn(96, 16).astype(np.float32), rng.randint(0, 4, 96).astype(np.int32)
    x_test, y_test = rng.randn(96, 16).astype(np.float32), rng.randint(0, 4, 96).astype(np.int32)
    net = nn.SequentialCell(nn.Dense(16, 64), nn.ReLU(), nn.Dense(64, 4))
    for i, p in enumerate(net.trainable_params()):
        p.set_data(ms.Tensor((np.random.RandomState(10 + i).randn(*p.shape) * 0.3).astype(np.float32)))
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), 0.05, 0.9))
    model.train(40, _batches(x_train, y_train), dataset_sink_mode=False)   # random labels: memorised
    np.testing.assert_allclose(net[2].bias.asnumpy(), [0.1037, 0.0616, -0.0213, -0.0095], atol=2e-4)
    assert np.mean(net(ms.Tensor(x_train)).asnumpy().argmax(1) == y_train) == 1.0
    assert np.mean(net(ms.Tensor(x_test)).asnumpy().argmax(1) == y_test) == pytest.approx(28 / 96)

    np.random.seed(0)      # MembershipInference shuffles the attack set with numpy's global generator
    attack = MembershipInference(model, n_jobs=1)
    attack.train(_batches(x_train[:64], y_train[:64]), _batches(x_test[:64], y_test[:64]),
                 [{"method": "lr", "params": {"C": np.logspace(-4, 2, 10)}},
                  {"method": "knn", "params": {"n_neighbors": [3, 5, 7]}},
                  {"method": "rf", "params": {"n_estimators": [10, 20], "max_depth": [2, 4]}}])
    result = attack.eval(_batches(x_train[64:], y_train[64:]), _batches(x_test[64:], y_test[64:]),
                         ["precision", "accuracy", "recall"])
    expected = [(0.8906, 0.8205, 1.0), (0.7344, 0.6829, 0.875), (0.9219, 0.8649, 1.0)]   # MindSpore 2.10's
    for got, (accuracy, precision, recall) in zip(result, expected):
        assert got["accuracy"] == pytest.approx(accuracy, abs=1e-4)
        assert got["precision"] == pytest.approx(precision, abs=1e-4)
        assert got["recall"] == pytest.approx(recall, abs=1e-4)
    with pytest.raises(ValueError, match="Element in 'metrics' must be in"):
        attack.eval(_batches(x_train[64:], y_train[64:]), _batches(x_test[64:], y_test[64:]), ["f1"])


def test_ood_detector_clusters_a_summarised_layer(ma):
    import mindspore as ms
    from mindspore import nn
    from mindspore.ops import TensorSummary
    import mindspore.ops.operations as P
    from mindspore.train import Model
    from mindarmour.reliability.concept_drift.concept_drift_check_images import OodDetectorFeatureCluster

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self._softmax = P.Softmax()
            self._dense = nn.Dense(10, 10)
            self._squeeze = P.Squeeze(1)
            self._summary = TensorSummary()

        def construct(self, inputs):
            out = self._squeeze(self._dense(self._softmax(inputs)))
            self._summary("output", out)
            return out

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        net._dense.weight.set_data(ms.Tensor(np.random.RandomState(3).randn(10, 10).astype(np.float32)))
        net._dense.bias.set_data(ms.Tensor(np.zeros(10, np.float32)))
        rng = np.random.RandomState(4)
        train = rng.randn(64, 1, 10).astype(np.float32)
        evaluation = np.concatenate([rng.randn(16, 1, 10), rng.randn(16, 1, 10) * 5 + 3]).astype(np.float32)
        detector = OodDetectorFeatureCluster(Model(net), train, n_cluster=10, layer="output[:Tensor]")
        assert detector.feature.shape == (64, 10)
        np.testing.assert_allclose(detector.feature[0, :4], [-0.27472, 0.16954, -0.24956, 0.04829], atol=1e-5)
        label = np.concatenate([np.zeros(16), np.ones(16)])
        np.random.seed(0)              # KMeans draws its initial centres from numpy's global generator
        threshold = detector.get_optimal_threshold(label, evaluation)
        predicted = detector.ood_predict(threshold, evaluation)      # the same input shape again: still recorded
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert threshold == pytest.approx(0.5)
    np.testing.assert_array_equal(predicted, [0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0] + [1] * 16)


def test_concept_drift_check_time_series_locates_the_drift(ma, tmp_path, monkeypatch):
    from mindarmour import ConceptDriftCheckTimeSeries
    monkeypatch.chdir(tmp_path)         # it saves its plot in the working directory
    np.random.seed(0)
    concept = ConceptDriftCheckTimeSeries(window_size=100, rolling_window=10, step=10, threshold_index=1.5,
                                          need_label=False)
    data = 5 * np.random.rand(1000)
    data[200:800] = 20 * np.random.rand(600)
    score, threshold, location = concept.concept_check(data)
    assert score.shape == (1000,) and threshold == pytest.approx(0.4226499499396783, rel=1e-9)
    assert location == [180, 190, 200, 210, 220, 230, 750, 760, 770, 780, 790, 800, 810, 820, 830]
    assert (tmp_path / "concept_drift_check.pdf").is_file()


def test_adaptive_clipping_updates_the_norm_bound(ma):
    import mindspore as ms
    from mindarmour.privacy.diff_privacy import AdaClippingWithGaussianRandom, ClipMechanismsFactory
    beta, bound = ms.Tensor(0.5, ms.float32), ms.Tensor(1.0, ms.float32)
    # no fraction noise: bound - lr * (beta - q) and bound * exp(-lr * (beta - q))
    linear = ClipMechanismsFactory().create("Gaussian", decay_policy="Linear", learning_rate=0.001,
                                            target_unclipped_quantile=0.9, fraction_stddev=0.0)
    geometric = ClipMechanismsFactory().create("Gaussian", decay_policy="Geometric", learning_rate=0.001,
                                               target_unclipped_quantile=0.9, fraction_stddev=0.0)
    assert isinstance(linear, AdaClippingWithGaussianRandom)
    np.testing.assert_allclose(linear(beta, bound).asnumpy(), [1.0004], rtol=1e-6)
    np.testing.assert_allclose(geometric(beta, bound).asnumpy(), [np.exp(0.0004)], rtol=1e-6)
    # the empirical fraction gets N(0, fraction_stddev) noise: lr 0.1 moves the bound by 0.04 - 0.1 * noise
    ms.set_seed(0)
    noisy = AdaClippingWithGaussianRandom(decay_policy="Linear", learning_rate=0.1, fraction_stddev=0.01, seed=1)
    moved = np.array([float(noisy(beta, bound).asnumpy()[0]) for _ in range(200)]) - 1.0
    noise = (0.04 - moved) / 0.1
    assert abs(noise.mean()) < 0.003 and noise.std() == pytest.approx(0.01, rel=0.2)
    with pytest.raises(ValueError, match="decay policy of adaptive clip must be in"):
        AdaClippingWithGaussianRandom(decay_policy="Cosine")
    with pytest.raises(NameError, match="is not implement"):
        ClipMechanismsFactory().create("Laplace")
