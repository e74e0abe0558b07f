"""mindspore-xai 1.8.1, unmodified, on mindseed: its saliency explainers and benchmarks.

Gradient, Deconvolution and GuidedBackprop against the input gradients numpy computes for a Dense-ReLU-Dense
network (the latter two through `nn.ReLU` backward hooks, with MindSpore 2.10's hook convention); Occlusion
against its sliding-window average of output drops; RISE finding the region a network looks at; GradCAM failing
on 2.10's hook convention as it does on MindSpore 2.10; the Localization and Faithfulness benchmarks.
"""
import numpy as np
import pytest

from _eco import use


@pytest.fixture(scope="module")
def xai():
    """The package, imported with two numpy 1.x names its copy of shap reads at import (`np.bool8`,
    `np.obj2sctype`, which numpy 2 removed; MindSpore 2.10's own environment has numpy 1.26) put back for the
    import, with numpy 1.x's meaning, and taken away after (nothing of mindseed's is involved)."""
    added = {}
    if not hasattr(np, "bool8"):
        added["bool8"] = np.bool_
    if not hasattr(np, "obj2sctype"):
        added["obj2sctype"] = lambda rep, default=None: (rep if isinstance(rep, type) and issubclass(rep, np.generic)
                                                         else np.dtype(rep).type)
    for name, value in added.items():
        setattr(np, name, value)
    try:
        return use("mindspore-xai", "mindspore_xai.explainer")
    finally:
        for name in added:
            delattr(np, name)


def _dense_relu_dense(nn):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(2 * 3 * 3, 6)
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(6, 4)

        def construct(self, x):
            return self.fc2(self.relu(self.fc1(self.flatten(x))))
    return Net()


def test_gradient_deconvolution_guided_backprop(xai):
    import mindspore as ms
    from mindspore import nn
    from mindspore_xai.explainer import Deconvolution, Gradient, GuidedBackprop
    ms.set_seed(0)
    net = _dense_relu_dense(nn)
    x = np.random.default_rng(0).normal(size=(2, 2, 3, 3)).astype(np.float32)
    targets = np.array([1, 3])
    w1, b1, w2 = (net.fc1.weight.asnumpy().astype(np.float64), net.fc1.bias.asnumpy().astype(np.float64),
                  net.fc2.weight.asnumpy().astype(np.float64))
    active = x.reshape(2, -1) @ w1.T + b1 > 0
    dout = w2[targets]                       # d logit[target] / d relu's output
    saliency = lambda g: np.abs(g.reshape(2, 2, 3, 3)).max(1, keepdims=True)  # noqa: E731 -- abs, max over C
    grad = Gradient(net)(ms.Tensor(x), ms.Tensor(targets, ms.int32))
    assert grad.shape == (2, 1, 3, 3)
    np.testing.assert_allclose(grad.asnumpy(), saliency((dout * active) @ w1), rtol=1e-5, atol=1e-6)
    # the ReLU rule is a backward hook on each nn.ReLU returning relu(grad_inputs) (Deconvolution) or
    # relu(grad_outputs) (GuidedBackprop). In MindSpore 2.10's convention grad_input is the gradient of the
    # cell's input (relu' * dout) and grad_output the one of its output (dout): xai 1.8.1 (written for 1.x,
    # where the names were the other way round) then computes guided backprop in Deconvolution and the
    # deconvolution rule in GuidedBackprop, on MindSpore 2.10 and here alike.
    deconv = Deconvolution(net)(ms.Tensor(x), ms.Tensor(targets, ms.int32)).asnumpy()
    guided = GuidedBackprop(net)(ms.Tensor(x), 3).asnumpy()
    np.testing.assert_allclose(deconv, saliency(np.maximum(dout * active, 0) @ w1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(guided, saliency(np.maximum(np.tile(w2[3], (2, 1)), 0) @ w1), rtol=1e-5, atol=1e-6)
    # the explainers work on copies: the network's own ReLU has no hook and its gradient is unchanged
    np.testing.assert_allclose(Gradient(net)(ms.Tensor(x), ms.Tensor(targets, ms.int32)).asnumpy(),
                               grad.asnumpy(), rtol=1e-6)


def _occlusion_reference(w, x, target, window=3):
    """Occlusion of a linear network (identity activation): every window of all channels zeroed in turn, the
    target's output drop (the window's sum of w * x) averaged over the windows covering a pixel (+1 in the count)."""
    c, h, wd = x.shape
    contrib = (w[target].reshape(c, h, wd) * x).astype(np.float64)
    total, count = np.zeros((h, wd)), np.ones((h, wd))
    for i in range(h - window + 1):
        for j in range(wd - window + 1):
            total[i:i + window, j:j + window] += contrib[:, i:i + window, j:j + window].sum()
            count[i:i + window, j:j + window] += 1
    return np.abs(total / count)[None]


def test_occlusion_averages_the_output_drops_of_sliding_windows(xai):
    import mindspore as ms
    from mindspore import nn
    from mindspore_xai.explainer import Occlusion
    ms.set_seed(1)
    net = nn.SequentialCell([nn.Flatten(), nn.Dense(3 * 8 * 8, 4, has_bias=True)])
    x = np.random.default_rng(1).random((2, 3, 8, 8)).astype(np.float32)
    occ = Occlusion(net, nn.Identity(), perturbation_per_eval=7)(ms.Tensor(x), ms.Tensor([0, 2], ms.int32))
    assert occ.shape == (2, 1, 8, 8)
    w = net[1].weight.asnumpy()
    for k, target in enumerate((0, 2)):
        np.testing.assert_allclose(occ.asnumpy()[k], _occlusion_reference(w, x[k], target), rtol=1e-4, atol=1e-5)


class _Region:
    """A network on 1x32x32 images whose class-1 logit is 4 x the mean of the top-left 8x8 corner - 2 (class 0's
    the negative): on a grey image the probability of class 1 is even, and follows how much of the corner shows."""

    @staticmethod
    def make(nn, ms):
        net = nn.SequentialCell([nn.Flatten(), nn.Dense(32 * 32, 2)])
        w = np.zeros((2, 1, 32, 32), np.float32)
        w[1, 0, :8, :8] = 4.0 / 64
        w[0] = -w[1]
        net[1].weight.set_data(ms.Tensor(w.reshape(2, -1)))
        net[1].bias.set_data(ms.Tensor(np.array([1.0, -1.0], np.float32)))
        return net


def test_rise_finds_the_region_the_network_looks_at(xai):
    import mindspore as ms
    from mindspore import nn
    from mindspore_xai.explainer import RISE
    net = _Region.make(nn, ms)
    x = np.full((1, 1, 32, 32), 0.5, np.float32)
    np.random.seed(0)
    sal = RISE(net, nn.Softmax(), perturbation_per_eval=50)(ms.Tensor(x), 1).asnumpy()[0, 0]
    assert sal.shape == (32, 32) and np.isfinite(sal).all()
    # RISE's 6000 random masks: the corner's 8x8 block stands out of the other fifteen (which sit at ~1/4)
    blocks = sal.reshape(4, 8, 4, 8).mean(axis=(1, 3)).ravel()
    assert blocks[0] > blocks[1:].max() + 0.02 and np.abs(blocks[1:] - 0.25).max() < 0.02


def test_gradcam_fails_on_the_210_hook_convention(xai):
    """GradCAM 1.8.1 takes the gradient its hook receives as the layer's output gradient; with 2.10's convention
    it is the input's (3 channels against the 4 of the activation), and the weighting fails on MindSpore 2.10 with
    this ValueError from Mul, as here."""
    import mindspore as ms
    from mindspore import nn
    from mindspore_xai.explainer import GradCAM

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, pad_mode="same")
            self.relu = nn.ReLU()
            self.pool = nn.AvgPool2d(8)
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(4, 5)

        def construct(self, x):
            return self.fc(self.flatten(self.pool(self.relu(self.conv(x)))))

    x = ms.Tensor(np.random.default_rng(0).random((2, 3, 8, 8)).astype(np.float32))
    with pytest.raises(ValueError, match="Mul"):
        GradCAM(Net(), layer="conv")(x, ms.Tensor([1, 3], ms.int32))


def test_localization_and_faithfulness_benchmarks(xai):
    import mindspore as ms
    from mindspore import nn
    from mindspore_xai.benchmark import Faithfulness, Localization
    from mindspore_xai.explainer import Gradient
    net = _Region.make(nn, ms)
    x = ms.Tensor(np.random.default_rng(2).random((1, 1, 32, 32)).astype(np.float32))
    gradient = Gradient(net)
    sal = gradient(x, 1)
    # the gradient is 4/64 on the corner and 0 elsewhere: the pointing game (15 pixels' tolerance) hits a mask
    # on the corner and misses one 16 pixels away
    np.testing.assert_allclose(sal.asnumpy()[0, 0, :8, :8], 4 / 64, rtol=1e-6)
    assert np.all(sal.asnumpy()[0, 0, 8:] == 0) and np.all(sal.asnumpy()[0, 0, :, 8:] == 0)
    corner, far = np.zeros((1, 1, 32, 32)), np.zeros((1, 1, 32, 32))
    corner[..., :8, :8] = 1
    far[..., 23:, 23:] = 1
    loc = Localization(num_labels=2, metric="PointingGame")
    assert loc.evaluate(gradient, x, 1, sal, mask=corner).tolist() == [1.0]
    assert loc.evaluate(gradient, x, 1, sal, mask=far).tolist() == [0.0]
    ioss = Localization(num_labels=2, metric="IoSR")
    assert ioss.evaluate(gradient, x, 1, sal, mask=corner)[0] == pytest.approx(1.0)
    # deleting the pixels the saliency ranks first lowers the class probability most: faithful
    np.random.seed(0)
    faith = Faithfulness(num_labels=2, activation_fn=nn.Softmax(), metric="NaiveFaithfulness")
    score = faith.evaluate(gradient, x, 1, sal)
    assert score.shape == (1,) and np.isfinite(score).all() and score[0] > 0.5


def test_shap_kernel_and_gradient_on_a_linear_model(xai):
    """On a linear model with independent features the Shapley value of feature i for class t is
    w[t, i] * (x_i - mean of the background's feature i): SHAPKernel finds it exactly (4 features, every coalition),
    SHAPGradient (expected gradients over sampled baselines and interpolation points) approximately."""
    import mindspore as ms
    from mindspore import nn
    from mindspore_xai.explainer import SHAPGradient, SHAPKernel
    ms.set_seed(0)
    np.random.seed(0)
    net = nn.Dense(4, 3)
    net.set_train(False)
    rng = np.random.default_rng(0)
    features = rng.random((20, 4)).astype(np.float32)
    inputs = rng.random((2, 4)).astype(np.float32)
    w = net.weight.asnumpy().astype(np.float64)
    targets = np.array([0, 2])
    expected = w[targets] * (inputs - features.mean(0))
    kernel = SHAPKernel(net, ms.Tensor(features), num_neighbours=200)(ms.Tensor(inputs), targets=ms.Tensor(targets))
    kernel = kernel.asnumpy() if isinstance(kernel, ms.Tensor) else np.asarray(kernel)
    np.testing.assert_allclose(kernel.reshape(2, 4), expected, rtol=0, atol=1e-4)
    grad = SHAPGradient(net, ms.Tensor(features), num_neighbours=400)(ms.Tensor(inputs), targets=ms.Tensor(targets))
    grad = grad.asnumpy() if isinstance(grad, ms.Tensor) else np.asarray(grad)
    np.testing.assert_allclose(grad.reshape(2, 4), expected, rtol=0, atol=0.25 * np.abs(expected).max())


def test_lime_tabular_ranks_the_features_a_linear_model_weighs(xai):
    """LIMETabular (quartile-discretized perturbations, a weighted ridge fit) on a linear model whose class 1
    output weighs the petal length by 3, the sepal length by -1 and the rest by 0: the conditions on those two
    features lead (ranked by the effect of the sample's quartile), the unweighted ones get next to nothing."""
    import mindspore as ms
    from mindspore import nn
    from mindspore_xai.explainer import LIMETabular
    np.random.seed(0)
    net = nn.Dense(4, 3)
    w = np.zeros((3, 4), np.float32)
    w[1] = [-1.0, 0.0, 3.0, 0.0]
    net.weight.set_data(ms.Tensor(w))
    names = ["sepal length", "sepal width", "petal length", "petal width"]
    train = ms.Tensor(np.random.rand(100, 4), ms.float32)
    stats = LIMETabular.to_feat_stats(train, feature_names=names)
    lime = LIMETabular(net, stats, feature_names=names, class_names=["a", "b", "c"], num_perturbs=2000)
    exps = lime(ms.Tensor(np.random.rand(2, 4), ms.float32), ms.Tensor([[1], [1]], ms.int32))
    assert (len(exps), len(exps[0])) == (2, 1)
    for exp in exps:
        (first, w_first), (second, _), *rest = exp[0]
        assert {n for n in names if n in first or n in second} == {"petal length", "sepal length"}
        assert all(abs(v) < 0.25 * abs(w_first) for _, v in rest), exp


def test_class_sensitivity_and_robustness_benchmarks(xai):
    """ClassSensitivity: (1 - Pearson correlation) / 2 of the Gradient saliencies of the most and the least
    confident labels, against numpy on a linear network (whose input gradient is its weight row); Robustness:
    1 / exp(max saliency change under perturbation / saliency norm), exactly 1 for a linear network whose
    gradient does not depend on the input, and in (0, 1] on a ReLU network."""
    import mindspore as ms
    from mindspore import nn
    from mindspore_xai.benchmark import ClassSensitivity, Robustness
    from mindspore_xai.explainer import Gradient
    ms.set_seed(0)

    class Linear(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.fc = nn.Dense(2 * 3 * 3, 4)

        def construct(self, x):
            return self.fc(self.flatten(x))

    net = Linear()
    x = np.random.default_rng(1).normal(size=(1, 2, 3, 3)).astype(np.float32)
    w, b = net.fc.weight.asnumpy().astype(np.float64), net.fc.bias.asnumpy().astype(np.float64)
    logits = x.reshape(1, -1) @ w.T + b
    sal = lambda label: np.abs(w[label].reshape(2, 3, 3)).max(0).reshape(-1)  # noqa: E731
    corr = np.corrcoef(sal(int(logits.argmax())), sal(int(logits.argmin())))[0, 1]
    res = ClassSensitivity().evaluate(Gradient(net), ms.Tensor(x))
    assert res.shape == (1,)
    assert res[0] == pytest.approx((1 - corr) / 2, rel=1e-5)

    np.random.seed(0)
    robust = Robustness(4, nn.Softmax()).evaluate(Gradient(net), ms.Tensor(x), ms.Tensor([1], ms.int32))
    assert robust.shape == (1,) and robust[0] == pytest.approx(1.0, abs=1e-6)
    relu_net = _dense_relu_dense(nn)
    np.random.seed(0)
    relu_robust = Robustness(4, nn.Softmax()).evaluate(Gradient(relu_net), ms.Tensor(x), 2)
    assert 0 < relu_robust[0] <= 1


def test_ood_net_scores_and_training(xai):
    """`tool.cv.OoDNet`: the OoD scores are the cosine similarities of the classifier's features with the rows of
    its class weights (against numpy); `train` (Model with the epoch learning-rate scheduler, the temperature
    branch's BatchNorm2d) fits those rows so that in-distribution samples score their class highest, and
    higher than noise far from the training data."""
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore_xai.tool.cv import OoDNet
    ms.set_seed(0)

    class Classifier(nn.Cell):
        def __init__(self):
            super().__init__()
            self.num_features = 8
            self.output_features = False
            self.fc1 = nn.Dense(6, 8)
            self.relu = nn.ReLU()
            self.fc2 = nn.Dense(8, 3)

        def construct(self, x):
            x = self.relu(self.fc1(x))
            if self.output_features:
                return x
            return self.fc2(x)

    rng = np.random.default_rng(0)
    centres = rng.normal(0, 3, (3, 6))
    y = rng.integers(0, 3, 240)
    x = (centres[y] + rng.normal(0, 0.3, (240, 6))).astype(np.float32)
    clf = Classifier()
    ood = OoDNet(clf, 3)
    feat = np.maximum(x[:5] @ clf.fc1.weight.asnumpy().T + clf.fc1.bias.asnumpy(), 0)
    h = ood._h.weight.asnumpy()
    normed = lambda a: a / (np.linalg.norm(a, axis=1, keepdims=True) + 1e-4)  # noqa: E731
    np.testing.assert_allclose(ood(ms.Tensor(x[:5])).asnumpy(), normed(feat) @ normed(h).T, rtol=1e-4, atol=1e-5)

    before = float(np.mean(ood(ms.Tensor(x)).asnumpy().argmax(1) == y))
    onehot = np.eye(3, dtype=np.float32)[y]
    data = ds.NumpySlicesDataset({"data": x, "label": onehot}, shuffle=False).batch(40)
    ood.train(data, nn.SoftmaxCrossEntropyWithLogits(), epoch=15, learning_rate=0.1, train_underlying=True)
    scores = ood(ms.Tensor(x)).asnumpy()
    assert scores.shape == (240, 3) and not ood.training
    assert float(np.mean(scores.argmax(1) == y)) >= 0.95 > before
    noise = rng.normal(0, 3, (64, 6)).astype(np.float32) * np.array([-1, 1, -1, 1, -1, 1], np.float32)
    assert np.median(scores.max(1)) > np.median(ood(ms.Tensor(noise)).asnumpy().max(1))


def test_riseplus_weights_the_masks_by_the_ood_inlier_score(xai):
    """RISEPlus: RISE's masks weighted by OoDNet's inlier scores, on a classifier whose class-1 logit follows the
    top-left corner (`_Region`'s weights, with the feature/output switch OoDNet requires): finite saliencies of
    (N, 1, H, W) for an int target and (N, 2, H, W) for two targets a sample, the corner standing out for class 1."""
    import mindspore as ms
    from mindspore import nn
    from mindspore_xai.explainer import RISEPlus
    from mindspore_xai.tool.cv import OoDNet
    ms.set_seed(0)

    class Classifier(nn.Cell):
        def __init__(self):
            super().__init__()
            self.num_features = 2
            self.output_features = False
            self.region = _Region.make(nn, ms)
            self.relu = nn.ReLU()

        def construct(self, x):
            logits = self.region(x)
            if self.output_features:
                return self.relu(logits)
            return logits

    clf = Classifier()
    x = np.full((1, 1, 32, 32), 0.5, np.float32)
    np.random.seed(0)
    explainer = RISEPlus(OoDNet(clf, 2), clf, nn.Softmax(), perturbation_per_eval=50)
    sal = explainer(ms.Tensor(x), 1).asnumpy()
    assert sal.shape == (1, 1, 32, 32) and np.isfinite(sal).all()
    blocks = sal[0, 0].reshape(4, 8, 4, 8).mean(axis=(1, 3)).ravel()
    assert blocks[0] > blocks[1:].max()
    both = explainer(ms.Tensor(x), ms.Tensor([[0, 1]], ms.int32)).asnumpy()
    assert both.shape == (1, 2, 32, 32) and np.isfinite(both).all()
    corner = both[0, :, :8, :8].mean(axis=(1, 2))
    assert corner[1] > corner[0]


def test_documented_lenet_explanations_equal_mindspores(xai):
    """The explainers' documented LeNet5 (model_zoo's, 3 channels) after `set_seed(0)`: its weights are MindSpore's
    and numpy's next draw is MindSpore's input, so the logits and the Gradient/GuidedBackprop/Occlusion saliency
    maps are MindSpore 2.10's (hard-coded: their sums and maxima)."""
    import mindspore as ms
    from mindspore import nn
    from mindspore.common.initializer import Normal
    from mindspore_xai.explainer import Gradient, GuidedBackprop, Occlusion

    class LeNet5(nn.Cell):
        def __init__(self, num_class=10, num_channel=3):
            super().__init__()
            self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="valid")
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.relu = nn.ReLU()
            self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(16 * 5 * 5, 120, weight_init=Normal(0.02))
            self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
            self.fc3 = nn.Dense(84, num_class, weight_init=Normal(0.02))

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.max_pool2d(self.relu(self.conv2(x)))
            x = self.relu(self.fc1(self.flatten(x)))
            return self.fc3(self.relu(self.fc2(x)))

    ms.set_seed(0)
    net = LeNet5()
    x = ms.Tensor(np.random.rand(1, 3, 32, 32), ms.float32)
    assert float(x.asnumpy().ravel()[0]) == pytest.approx(0.9636627435684204, abs=1e-7)
    np.testing.assert_allclose(net(x).asnumpy().ravel()[:3], [-0.01097288727760315, -0.09012571722269058,
                                                              -0.06303969770669937], rtol=1e-5, atol=1e-7)
    expected = {"gradient": (Gradient(net)(x, 5), 0.042283445596694946, 0.00016758122364990413),
                "guided": (GuidedBackprop(net)(x, 5), 0.033403098583221436, 0.00016459813923574984),
                "occlusion": (Occlusion(net, activation_fn=nn.Softmax())(x, ms.Tensor([1], ms.int32)),
                              0.004151717759668827, 2.685263825696893e-05)}
    for name, (saliency, total, peak) in expected.items():
        s = saliency.asnumpy()
        assert s.shape == (1, 1, 32, 32), name
        # occlusion's map is made of differences of softmax outputs ~1e-4: float32 rounding shows at 1e-3
        np.testing.assert_allclose([s.sum(), s.max()], [total, peak], rtol=1e-3 if name == "occlusion" else 2e-4,
                                   err_msg=name)
