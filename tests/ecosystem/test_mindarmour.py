"""MindArmour 2.0.0, unmodified, on mindseed: its documented first uses.

Adversarial attacks (FGSM, PGD, momentum iterative, DeepFool, a black-box salt-and-pepper attack) against a
LeNet-5 trained here on MNIST-like synthetic digits, their success rates and, on a linear classifier whose
input gradient numpy computes, FGSM's images exactly; natural adversarial defense (adversarial training)
raising the accuracy on adversarial images; natural perturbations (the `natural_robustness` transforms) on
CHW and gray images; differential privacy: the Gaussian and adaptive noise mechanisms, a DP optimizer trained
by `Model`, and the RDP/ZCDP monitor callbacks' budgets against the closed-form Renyi accounting; suppress-based
privacy (SuppressModel, a Model subclass building its training network from MindSpore's private amp steps).
`DPModel` itself refuses a CPU target, on MindSpore as here.
"""
import gc
import math
import re

import numpy as np
import pytest

from _eco import use


@pytest.fixture(scope="module")
def ma():
    return use("mindarmour", "mindarmour")


def _digits(n, seed):
    """MNIST-like 1x32x32 images of 10 classes in [0, 1]: a bright 6x6 stroke at a class's place on noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 10, n)
    x = rng.normal(0.1, 0.05, (n, 1, 32, 32))
    for i, c in enumerate(y):
        r, col = divmod(int(c), 4)
        x[i, 0, 3 + r * 10:9 + r * 10, 2 + col * 8:8 + col * 8] += 0.8
    return np.clip(x, 0, 1).astype(np.float32), y.astype(np.int32)


def _accuracy(net, x, y):
    import mindspore as ms
    net.set_train(False)
    return float(np.mean(net(ms.Tensor(x)).asnumpy().argmax(1) == y))


@pytest.fixture(scope="module")
def lenet(ma):
    """A LeNet-5 trained by Model on 320 synthetic digits (the tutorial's loss and optimizer)."""
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.train import Model
    from _mnist_lenet import LeNet5  # noqa: PLC0415 -- mindseed's classes are the `mindspore` ones under compat
    ms.set_seed(0)
    x, y = _digits(320, 0)
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.05, 0.9))
    model.train(6, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(32), dataset_sink_mode=False)
    return net


@pytest.fixture(scope="module")
def test_digits():
    return _digits(64, 1)


def test_fgsm_is_the_signed_input_gradient_of_the_loss(ma):
    """On a linear softmax classifier the loss's input gradient is W^T (softmax(Wx + b) - onehot(y)): FGSM's image
    is x + eps * sign(gradient), clipped to the bounds, exactly; the L2 FGM step is eps * gradient / ||gradient||."""
    import mindspore as ms
    from mindspore import nn
    from mindarmour.adv_robustness.attacks import FastGradientMethod, FastGradientSignMethod
    rng = np.random.default_rng(3)
    net = nn.Dense(12, 4)
    w, b = net.weight.asnumpy().astype(np.float64), net.bias.asnumpy().astype(np.float64)
    x = rng.random((5, 12)).astype(np.float32)
    y = rng.integers(0, 4, 5).astype(np.int32)
    logits = x.astype(np.float64) @ w.T + b
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    grad = (p - np.eye(4)[y]) @ w
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    adv = FastGradientSignMethod(net, eps=0.1, loss_fn=loss).generate(x, y)
    np.testing.assert_allclose(adv, np.clip(x + 0.1 * np.sign(grad), 0, 1), rtol=0, atol=1e-6)
    fgm = FastGradientMethod(net, eps=0.2, bounds=None, norm_level=2, loss_fn=loss).generate(x, y)
    step = grad / np.linalg.norm(grad, axis=1, keepdims=True)
    np.testing.assert_allclose(fgm, x + 0.2 * step, rtol=0, atol=1e-5)
    # targeted: towards the target class, the step goes against the gradient of the target's loss
    target = (y + 1) % 4
    tadv = FastGradientSignMethod(net, eps=0.1, is_targeted=True, loss_fn=loss).generate(x, target)
    tgrad = (p - np.eye(4)[target]) @ w
    np.testing.assert_allclose(tadv, np.clip(x - 0.1 * np.sign(tgrad), 0, 1), rtol=0, atol=1e-6)
    assert isinstance(net(ms.Tensor(adv)), ms.Tensor)


def test_white_box_attacks_fool_a_trained_lenet(ma, lenet, test_digits):
    from mindspore import nn
    from mindarmour.adv_robustness.attacks import (DeepFool, FastGradientSignMethod, MomentumIterativeMethod,
                                                   ProjectedGradientDescent)
    from mindarmour.adv_robustness.evaluations import AttackEvaluate
    x, y = test_digits
    clean = _accuracy(lenet, x, y)
    assert clean >= 0.95
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    rates, losses = {}, {}
    for name, attack in (("FGSM", FastGradientSignMethod(lenet, eps=0.3, loss_fn=loss)),
                         ("PGD", ProjectedGradientDescent(lenet, eps=0.3, eps_iter=0.1, nb_iter=5, loss_fn=loss)),
                         ("MIM", MomentumIterativeMethod(lenet, eps=0.3, eps_iter=0.1, nb_iter=5, loss_fn=loss))):
        adv = attack.batch_generate(x, y, batch_size=32)
        assert adv.shape == x.shape and adv.dtype == np.float32
        assert np.abs(adv - x).max() <= 0.3 + 1e-5 and adv.min() >= 0 and adv.max() <= 1
        logits = lenet(_tensor(adv))
        pred = logits.asnumpy()
        evaluate = AttackEvaluate(x, np.eye(10)[y], adv, pred)
        rates[name] = evaluate.mis_classification_rate()
        assert rates[name] == pytest.approx(np.mean(pred.argmax(1) != y))
        losses[name] = float(loss(logits, _tensor(y)).asnumpy().mean())
    # most digits are misclassified; the iterative attacks climb the loss further than the single step
    assert rates["FGSM"] >= 0.5 and rates["PGD"] >= rates["FGSM"] and rates["MIM"] >= rates["FGSM"]
    assert losses["PGD"] > 1.2 * losses["FGSM"] and losses["MIM"] > 1.2 * losses["FGSM"]
    # DeepFool's minimal perturbations: every attacked digit changes class, with a perturbation far below FGSM's
    deepfool = DeepFool(lenet, num_classes=10, model_type="classification", max_iters=30, overshoot=0.02,
                        bounds=(0.0, 1.0))
    adv = deepfool.generate(x[:16], y[:16])
    changed = lenet(_tensor(adv)).asnumpy().argmax(1) != y[:16]
    assert changed.mean() >= 0.9
    l2 = np.linalg.norm((adv - x[:16]).reshape(16, -1), axis=1)[changed]
    assert 0 < l2.mean() < np.linalg.norm(np.full(32 * 32, 0.3))


def _tensor(a):
    import mindspore as ms
    return ms.Tensor(a)


def test_black_box_salt_and_pepper_attack(ma, lenet, test_digits):
    from mindarmour import BlackModel
    from mindarmour.adv_robustness.attacks import SaltAndPepperNoiseAttack

    class Model(BlackModel):
        def __init__(self, network):
            super().__init__()
            self._network = network

        def predict(self, inputs):
            if inputs.ndim == 3:
                inputs = inputs[None]
            return self._network(_tensor(inputs.astype(np.float32))).asnumpy()

    x, y = test_digits
    np.random.seed(5)
    attack = SaltAndPepperNoiseAttack(Model(lenet), bounds=(0.0, 1.0), max_iter=4, sparse=True)
    success, adv, queries = attack.generate(x[:8], y[:8])
    assert success.dtype == bool and queries.shape == (8,) and np.all(queries > 0)
    assert success.mean() >= 0.5
    fooled = lenet(_tensor(adv[success].astype(np.float32))).asnumpy().argmax(1)
    assert np.all(fooled != y[:8][success])
    # the noise is salt and pepper: every changed pixel is at a bound
    changed = adv[success] != x[:8][success]
    assert np.all(np.isin(adv[success][changed], (0.0, 1.0)))


def test_natural_adversarial_defense_trains_against_fgsm(ma, test_digits):
    import mindspore as ms
    from mindspore import nn
    from mindarmour.adv_robustness.attacks import FastGradientSignMethod
    from mindarmour.adv_robustness.defenses import NaturalAdversarialDefense
    from _mnist_lenet import LeNet5  # noqa: PLC0415
    ms.set_seed(3)
    x_train, y_train = _digits(320, 4)
    x, y = test_digits
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                                      reduction="mean")), opt)
    train.set_train()
    for _ in range(6):
        for i in range(0, 320, 32):
            train(_tensor(x_train[i:i + 32]), _tensor(y_train[i:i + 32]))
    attack = FastGradientSignMethod(net, eps=0.3, loss_fn=loss)
    adv = attack.batch_generate(x, y, batch_size=32)
    before = _accuracy(net, adv, y)
    assert _accuracy(net, x, y) >= 0.95 and before < 0.6
    # the defense trains on the loss of each sample (summed, so a small step), half of each batch replaced by
    # FGSM's images of it (written into the batch given: copies are passed)
    net.set_train()
    np.random.seed(0)
    opt = nn.Momentum(net.trainable_params(), 0.0002, 0.9)
    nad = NaturalAdversarialDefense(net, loss_fn=loss, optimizer=opt, bounds=(0.0, 1.0), eps=0.3)
    losses = [nad.defense(x_train[i:i + 32].copy(), y_train[i:i + 32]) for _ in range(3) for i in range(0, 320, 32)]
    assert all(v.shape == (32,) and np.isfinite(v).all() for v in losses)
    assert np.mean(losses[-10:]) < np.mean(losses[:10])
    after = _accuracy(net, adv, y)
    assert after > before + 0.2 and _accuracy(net, x, y) >= 0.9


def _cv2_reference(image_chw, fn):
    """What a perturbation computes on a normalized CHW image: fn on the uint8 HWC image, back to CHW / 255."""
    hwc = np.uint8(image_chw.transpose(1, 2, 0) * 255)
    return fn(hwc).transpose(2, 0, 1) / 255


def test_natural_perturbations_on_chw_and_gray_images(ma):
    import cv2
    from mindarmour.natural_robustness.transform.image import Contrast, GaussianBlur, Rotate, UniformNoise
    rng = np.random.default_rng(0)
    rgb = (rng.integers(0, 256, (3, 24, 20)) / 255).astype(np.float32)
    out = Contrast(alpha=1.5, beta=-20)(rgb)
    assert out.shape == rgb.shape and out.dtype == np.float32
    ref = np.clip(np.rint(np.abs(1.5 * np.uint8(rgb * 255).astype(np.float64) - 20)), 0, 255).transpose(0, 1, 2)
    np.testing.assert_allclose(out, ref / 255, rtol=0, atol=1e-6)
    blur = GaussianBlur(ksize=1)(rgb)           # a (2 * 1 + 1)-square kernel
    np.testing.assert_allclose(blur, _cv2_reference(rgb, lambda im: cv2.GaussianBlur(im, (3, 3), 0)),
                               rtol=0, atol=1e-6)
    assert np.abs(blur - rgb).mean() > 0.05
    rotated = Rotate(angle=90)(rgb)
    assert rotated.shape == rgb.shape and np.isfinite(rotated).all()
    # a gray image given as (1, H, W) keeps that shape; the noise is bounded by factor * 255 in uint8 steps
    gray = rgb[:1]
    np.random.seed(0)
    noisy = UniformNoise(factor=0.1)(gray)
    assert noisy.shape == (1, 24, 20)
    assert 0 < np.abs(noisy - gray).max() <= 0.1 + 1 / 255


def test_noise_mechanisms_and_their_decay(ma):
    import mindspore as ms
    from mindarmour.privacy.diff_privacy import NoiseMechanismsFactory
    from mindarmour.privacy.diff_privacy.mechanisms.mechanisms import _MechanismsParamsUpdater
    ms.set_seed(0)
    grad = ms.Tensor(np.zeros((200, 100), np.float32))
    gauss = NoiseMechanismsFactory().create("Gaussian", norm_bound=0.5, initial_noise_multiplier=2.0)
    noise = gauss(grad).asnumpy()
    assert noise.shape == (200, 100)
    assert abs(noise.mean()) < 0.03 and noise.std() == pytest.approx(1.0, rel=0.03)
    for policy, rate, expected in (("Time", 0.5, lambda m0, m: m0 / (m0 / m + 0.5)),
                                   ("Step", 0.1, lambda m0, m: 0.9 * m),
                                   ("Exp", 0.2, lambda m0, m: m / math.exp(0.2))):
        ada = NoiseMechanismsFactory().create("AdaGaussian", norm_bound=1.0, initial_noise_multiplier=1.5,
                                              noise_decay_rate=rate, decay_policy=policy)
        update = _MechanismsParamsUpdater(decay_policy=policy, decay_rate=ada._noise_decay_rate,
                                          cur_noise_multiplier=ada._noise_multiplier,
                                          init_noise_multiplier=ada._initial_noise_multiplier)
        m = 1.5
        for _ in range(3):
            update()
            m = expected(1.5, m)
            assert float(ada._noise_multiplier.asnumpy()) == pytest.approx(m, rel=1e-6)
        assert ada(grad).asnumpy().std() == pytest.approx(m, rel=0.03)


def test_dp_optimizer_adds_the_mechanisms_noise_to_the_gradients(ma):
    import mindspore as ms
    from mindspore import nn
    from mindarmour.privacy.diff_privacy import DPOptimizerClassFactory
    ms.set_seed(0)
    param = ms.Parameter(ms.Tensor(np.zeros((100, 100), np.float32)), name="w")
    factory = DPOptimizerClassFactory(micro_batches=2)
    factory.set_mechanisms("Gaussian", norm_bound=1.0, initial_noise_multiplier=1.5)
    opt = factory.create("SGD")(params=[param], learning_rate=0.1)
    assert isinstance(opt, nn.SGD)
    grad = np.full((100, 100), 0.4, np.float32)
    opt((ms.Tensor(grad),))
    # w <- w - lr * (g + N(0, (norm_bound * multiplier)^2)) / micro_batches
    noise = -param.asnumpy() / 0.1 * 2 - grad
    assert abs(noise.mean()) < 0.05 and noise.std() == pytest.approx(1.5, rel=0.03)
    # DPModel (a Model subclass) is made, then refuses the CPU target with its own error, as on MindSpore
    from mindarmour import DPModel
    net = nn.Dense(4, 2)
    mech = factory._mech
    with pytest.raises(ValueError, match="'device_target' or DP training should be 'GPU' or 'Ascend', but got CPU"):
        DPModel(micro_batches=2, norm_bound=1.0, noise_mech=mech, network=net,
                loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True),
                optimizer=nn.Momentum(net.trainable_params(), 0.01, 0.9))


def _sampled_gaussian_rdp(q, sigma, order):
    """Renyi DP of the sampled Gaussian mechanism at an integer order (Mironov et al., 2019, Eq. 3)."""
    total = sum(math.comb(order, k) * (1 - q) ** (order - k) * q ** k * math.exp((k * k - k) / (2 * sigma ** 2))
                for k in range(order + 1))
    return math.log(total) / (order - 1)


@pytest.mark.parametrize("mechanism", ["rdp", "zcdp"])
def test_privacy_monitor_callbacks_report_the_budget(ma, mechanism, capsys):
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.train import Model
    from mindarmour.privacy.diff_privacy import DPOptimizerClassFactory, PrivacyMonitorFactory
    ms.set_seed(0)
    x, y = _digits(96, 6)
    x = x.reshape(96, -1)
    net = nn.Dense(32 * 32, 10)
    factory = DPOptimizerClassFactory(micro_batches=1)
    factory.set_mechanisms("Gaussian", norm_bound=1.0, initial_noise_multiplier=1.5)
    opt = factory.create("Momentum")(params=net.trainable_params(), learning_rate=0.01, momentum=0.9)
    orders = [2, 4, 8, 16, 32]
    kwargs = dict(num_samples=96, batch_size=16, initial_noise_multiplier=1.5, per_print_times=2,
                  noise_decay_mode=None, target_delta=1e-5, max_eps=100.0)
    if mechanism == "rdp":
        kwargs.update(orders=orders)
    monitor = PrivacyMonitorFactory.create(mechanism, **kwargs)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt)
    model.train(2, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(16), callbacks=[monitor],
                dataset_sink_mode=False)
    lines = re.findall(r"epoch: (\d+) step: (\d+), delta is (\S+), eps is (\S+)", capsys.readouterr().out)
    # 6 steps an epoch, a report every 2nd step of the 12: epoch and step within the epoch as the callback saw them
    assert [(int(e), int(s)) for e, s, _, _ in lines] == [(1, 2), (1, 4), (1, 6), (2, 2), (2, 4), (2, 6)]
    eps = [float(v) for *_, v in lines]
    assert all(a < b for a, b in zip(eps, eps[1:]))
    # each report adds per_print_times + 1 steps (MindArmour's count): after the k-th, 3k steps of noise 1.5
    q, steps = 16 / 96, 3 * len(lines)
    if mechanism == "rdp":
        rdp = np.array([_sampled_gaussian_rdp(q, 1.5, a) for a in orders]) * steps
        assert eps[-1] == pytest.approx(np.min(rdp - np.log(1e-5) / (np.array(orders) - 1)), rel=1e-9)
    else:
        # zCDP of the Gaussian mechanism: rho = 1 / (2 sigma^2) a step; eps = rho + 2 sqrt(rho log(1 / delta))
        rho = steps / (2 * 1.5 ** 2)
        assert eps[-1] == pytest.approx(rho + 2 * math.sqrt(rho * math.log(1 / 1e-5)), rel=1e-9)


def test_suppress_privacy_training_sparsifies_the_lenet(ma):
    """Suppress-based privacy (its documented LeNet-5 example, PyNative on CPU): SuppressModel trains by SGD while
    SuppressMasker zeroes a growing share of each masked layer's weights from `start_epoch` on."""
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.train import Accuracy
    from mindarmour.privacy.sup_privacy import MaskLayerDes, SuppressMasker, SuppressModel, SuppressPrivacyFactory
    from _mnist_lenet import LeNet5  # noqa: PLC0415
    ms.set_seed(0)
    x, y = _digits(320, 0)
    x_test, y_test = _digits(64, 1)
    net = LeNet5()
    layers = [MaskLayerDes("conv1.weight", 0, False, True, 10), MaskLayerDes("conv2.weight", 1, False, True, 150),
              MaskLayerDes("fc1.weight", 2, True, False, -1), MaskLayerDes("fc2.weight", 4, True, False, -1),
              MaskLayerDes("fc3.weight", 6, True, False, 50)]
    ctrl = SuppressPrivacyFactory().create(net, layers, policy="local_train", end_epoch=8, batch_num=10,
                                           start_epoch=4, mask_times=10, lr=0.1, sparse_end=0.5, sparse_start=0.0)
    model = SuppressModel(network=net, loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                          optimizer=nn.SGD(net.trainable_params(), 0.1), metrics={"Accuracy": Accuracy()})
    model.link_suppress_ctrl(ctrl)
    # the masker runs gc.collect() at each of its ~100 mask updates; the objects of the session so far (every
    # package imported) are frozen out of the collector's walk meanwhile, so each takes milliseconds, not a second
    gc.freeze()
    try:
        model.train(8, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(32),
                    callbacks=[SuppressMasker(model=model, suppress_ctrl=ctrl)], dataset_sink_mode=False)
    finally:
        gc.unfreeze()
    acc = model.eval(ds.NumpySlicesDataset({"x": x_test, "y": y_test}, shuffle=False).batch(32),
                     dataset_sink_mode=False)["Accuracy"]
    assert acc >= 0.9
    zeros = {p.name.split(".", 1)[1]: float(np.mean(p.asnumpy() == 0)) for p in net.trainable_params()}
    masked = [zeros[d.layer_name] for d in layers]
    # the masks' last update before the end: 7/8 of the way from sparse_start to sparse_end, in every layer
    assert all(abs(z - 0.5 * 7 / 8) < 0.01 for z in masked), zeros
    assert zeros["fc1.bias"] == 0


def test_carlini_wagner_l2_finds_small_perturbations(ma, lenet, test_digits):
    from mindarmour.adv_robustness.attacks import CarliniWagnerL2Attack
    x, y = test_digits[0][:8], test_digits[1][:8]
    attack = CarliniWagnerL2Attack(lenet, 10, box_min=0.0, box_max=1.0, bin_search_steps=2, max_iterations=60,
                                   learning_rate=0.05, initial_const=1.0)
    adv = attack.generate(x, y)
    assert adv.shape == x.shape and adv.min() >= 0 and adv.max() <= 1
    changed = lenet(_tensor(adv.astype(np.float32))).asnumpy().argmax(1) != y
    assert changed.mean() >= 0.75
    # the L2 perturbations of the fooled digits stay below an FGSM step of 0.3 on every pixel, most well below
    l2 = np.linalg.norm((adv - x).reshape(8, -1), axis=1)[changed]
    fgsm = np.linalg.norm(np.full(32 * 32, 0.3))
    assert 0 < l2.max() < fgsm and np.median(l2) < 0.4 * fgsm, l2


def _black_model(ma, network):
    from mindarmour import BlackModel

    class Model(BlackModel):
        def predict(self, inputs):     # HopSkipJump queries one image as (1, 1, C, H, W), others as (C, H, W)
            inputs = inputs.reshape((-1,) + inputs.shape[-3:])
            return network(_tensor(inputs.astype(np.float32))).asnumpy()
    return Model()


def test_pointwise_black_box_attack(ma, lenet, test_digits):
    """PointWise (started from salt-and-pepper noise) only sees the predicted labels: the images it returns are
    classified otherwise."""
    from mindarmour.adv_robustness.attacks import PointWiseAttack
    x, y = test_digits[0][:4], test_digits[1][:4]
    np.random.seed(0)
    pointwise = PointWiseAttack(_black_model(ma, lenet), max_iter=30, search_iter=5, sparse=True)
    success, adv, queries = pointwise.generate(x, y)
    assert success.mean() >= 0.75 and np.all(queries > 0)
    pred = lenet(_tensor(adv[success].astype(np.float32))).asnumpy().argmax(1)
    assert np.all(pred != y[success])


def test_error_based_detector_thresholds_the_reconstruction_error(ma):
    """MagNet's ErrorBasedDetector through a Model's predict: with x + x as the 'auto-encoder' the error of a
    sample is mean(x^2); fit keeps the error the false positive rate leaves above, detect flags larger ones."""
    from mindspore import nn
    from mindspore.train import Model
    from mindarmour.adv_robustness.detectors import ErrorBasedDetector

    class Double(nn.Cell):
        def construct(self, x):
            return x + x

    rng = np.random.default_rng(5)
    ori = rng.random((8, 4, 4)).astype(np.float32)
    detector = ErrorBasedDetector(Model(Double()), false_positive_rate=0.25)
    marks = np.mean(ori.astype(np.float64) ** 2, axis=(1, 2))
    np.testing.assert_allclose(detector.detect_diff(ori), marks, rtol=1e-6)
    threshold = detector.fit(ori)
    assert threshold == pytest.approx(np.sort(marks)[-2], rel=1e-6)
    adv = np.concatenate([ori[:4] * 0.5, ori[4:] * 3]).astype(np.float32)
    assert detector.detect(adv) == [int(m > threshold) for m in np.mean(adv.astype(np.float64) ** 2, axis=(1, 2))]
    assert detector.detect(adv)[4:] == [1, 1, 1, 1]


def test_jsma_fools_a_trained_lenet(ma, lenet, test_digits):
    """JSMA, targeted: a few saliency-chosen pixels move each digit to the next class."""
    from mindarmour.adv_robustness.attacks import JSMAAttack
    x, y = test_digits
    x, y = x[:4], y[:4]
    target = (y + 1) % 10
    adv = JSMAAttack(lenet, num_classes=10, max_iteration=40, theta=1.0).generate(x, target)
    assert adv.shape == x.shape and adv.min() >= 0 and adv.max() <= 1
    hit = lenet(_tensor(adv.astype(np.float32))).asnumpy().argmax(1) == target
    assert hit.mean() >= 0.75
    changed = (np.abs(adv - x) > 1e-6).reshape(4, -1).sum(1)
    assert np.all(changed[hit] > 0) and np.all(changed[hit] <= 80)      # a sparse change: at most 2 px an iteration


def test_hop_skip_jump_black_box_attack(ma, lenet, test_digits):
    """HopSkipJump walks the decision boundary from a uniform-noise start on decisions only (no labels given: an
    untargeted attack): every success is misclassified, inside the bounds."""
    from mindarmour.adv_robustness.attacks import HopSkipJumpAttack
    x, y = test_digits
    x, y = x[:4], y[:4]
    np.random.seed(3)
    hsj = HopSkipJumpAttack(_black_model(ma, lenet), init_num_evals=20, max_num_evals=40, num_iterations=3,
                            batch_size=32)
    success, adv, queries = hsj.generate(x, None)
    assert success.mean() >= 0.75 and np.all(queries[success] > 0)
    adv = adv.reshape(x.shape)                          # each image comes back as its own batch of one
    pred = lenet(_tensor(adv[success].astype(np.float32))).asnumpy().argmax(1)
    assert np.all(pred != y[success]) and adv.min() >= 0 and adv.max() <= 1


def test_spatial_smoothing_and_region_based_detectors(ma, lenet, test_digits):
    """SpatialSmoothing's distance is the L1 norm between the predictions of an image and of its median-filtered
    image (numpy/scipy reference), its threshold a quantile of the clean images' distances; the region-based
    detector flags FGSM images at least as often as clean ones."""
    from scipy import ndimage
    from mindspore import nn
    from mindspore.train import Model
    from mindarmour.adv_robustness.attacks import FastGradientSignMethod
    from mindarmour.adv_robustness.detectors import RegionBasedDetector, SpatialSmoothing
    x, y = test_digits
    adv = FastGradientSignMethod(lenet, eps=0.3, loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True)).generate(x, y)
    model = Model(lenet)
    smooth = SpatialSmoothing(model, ksize=3, false_positive_ratio=0.1)
    threshold = smooth.fit(x)
    dist = smooth.detect_diff(adv)
    pred = lenet(_tensor(adv)).asnumpy()
    ref = np.abs(lenet(_tensor(ndimage.median_filter(adv, size=3, mode="reflect"))).asnumpy() - pred).sum(1)
    np.testing.assert_allclose(dist, ref, rtol=1e-4, atol=1e-4)
    # the threshold is the distance of the clean image at the (1 - false_positive_ratio) quantile
    assert threshold == np.sort(smooth.detect_diff(x))[int(64 * 0.9)]
    assert smooth.detect(adv) == [int(d > threshold) for d in dist] and np.mean(smooth.detect(x)) <= 0.1
    np.random.seed(1)
    region = RegionBasedDetector(model, number_points=10, initial_radius=0.0, max_radius=0.4, search_step=0.05)
    radius = region.fit(x[:16], np.eye(10)[y[:16]].astype(np.float32))
    assert 0 <= radius <= 0.4
    assert np.mean(region.detect(adv[:16])) >= np.mean(region.detect(x[:16]))


def _softmax_ce(logits, y):
    z = logits - logits.max(1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    return -np.log(p[np.arange(len(y)), y]), p


def test_adversarial_defense_steps_and_ensemble_replacement(ma):
    """AdversarialDefense is one SGD step of the mean cross entropy (numpy gradient); EnsembleAdversarialDefense
    replaces ceil(replace_ratio * n) samples of the batch, split between its attacks, by their images."""
    import mindspore as ms
    from mindspore import nn
    from mindarmour.adv_robustness.attacks import FastGradientSignMethod, ProjectedGradientDescent
    from mindarmour.adv_robustness.defenses import AdversarialDefense, EnsembleAdversarialDefense
    ms.set_seed(0)
    rng = np.random.default_rng(0)
    net = nn.Dense(6, 3)
    x = rng.random((8, 6)).astype(np.float32)
    y = rng.integers(0, 3, 8).astype(np.int32)
    w, b = net.weight.asnumpy().astype(np.float64), net.bias.asnumpy().astype(np.float64)
    ce, p = _softmax_ce(x @ w.T + b, y)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    value = AdversarialDefense(net, loss_fn=loss, optimizer=nn.SGD(net.trainable_params(), 0.5)).defense(x, y)
    assert float(value) == pytest.approx(ce.mean(), rel=1e-5)
    d = (p - np.eye(3)[y]) / 8
    np.testing.assert_allclose(net.weight.asnumpy(), w - 0.5 * d.T @ x, rtol=0, atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), b - 0.5 * d.sum(0), rtol=0, atol=1e-6)
    attacks = [FastGradientSignMethod(net, eps=0.1, loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True)),
               ProjectedGradientDescent(net, eps=0.1, eps_iter=0.05, nb_iter=3,
                                        loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True))]
    # a zero learning rate keeps the network fixed: the loss is that of the batch with the attacks' images in
    ead = EnsembleAdversarialDefense(net, attacks, loss_fn=loss, optimizer=nn.SGD(net.trainable_params(), 0.0),
                                     replace_ratio=0.5)
    np.random.seed(0)
    value = ead.defense(x, y)
    np.random.seed(0)
    idx = np.random.choice(8, size=4, replace=False)
    batch = x.copy()
    batch[idx[:2]] = attacks[0].generate(x[idx[:2]], y[idx[:2]])
    batch[idx[2:]] = attacks[1].generate(x[idx[2:]], y[idx[2:]])
    assert np.abs(batch - x).max() <= 0.1 + 1e-6 and (np.abs(batch - x).max(1) > 0).sum() == 4
    logits = batch.astype(np.float64) @ net.weight.asnumpy().T.astype(np.float64) + net.bias.asnumpy()
    assert float(value) == pytest.approx(_softmax_ce(logits, y)[0].mean(), rel=1e-5)
    assert float(value) > _softmax_ce(x @ net.weight.asnumpy().T + net.bias.asnumpy(), y)[0].mean()


@pytest.fixture(scope="module")
def summary_lenet(ma):
    """A LeNet trained on the synthetic digits whose ReLU outputs and logits are marked by TensorSummary, as the
    fuzz-testing docs' networks are: the coverage metrics read them back through `_get_summary_tensor_data`."""
    import mindspore as ms
    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.ops import TensorSummary
    from mindspore.train import Model

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.fc1 = nn.Dense(400, 84)
            self.fc2 = nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(2, 2)
            self.summary = TensorSummary()

        def features(self, x):
            c1 = self.relu(self.conv1(x))
            c2 = self.relu(self.conv2(self.pool(c1)))
            f1 = self.relu(self.fc1(self.pool(c2).reshape(-1, 400)))
            return c1, c2, f1, self.fc2(f1)

        def construct(self, x):
            c1, c2, f1, out = self.features(x)
            self.summary("conv1", c1)
            self.summary("conv2", c2)
            self.summary("fc1", f1)
            self.summary("fc2", out)
            return out

    ms.set_seed(0)
    x, y = _digits(320, 0)
    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    Model(net, loss, nn.Momentum(net.trainable_params(), 0.05, 0.9)).train(
        6, ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(32), dataset_sink_mode=False)
    net.set_train(False)
    return net, x


def test_fuzz_testing_coverage_metrics(ma, summary_lenet, test_digits, monkeypatch):
    """The five model-coverage metrics of `mindarmour.fuzz_testing` on a trained LeNet: figures in [0, 1] that
    do not fall as more test images come, and NeuronCoverage equal to numpy's count of the channels whose
    spatial mean exceeds the threshold for some image. (`np.bool`, which the metrics use, left NumPy in 1.24:
    the alias is put back for the test, as MindArmour 2.0.0 needs on any NumPy MindSpore 2.10 installs with.)"""
    import mindspore as ms
    from mindspore.train import Model
    from mindarmour.fuzz_testing import (KMultisectionNeuronCoverage, NeuronBoundsCoverage, NeuronCoverage,
                                         SuperNeuronActivateCoverage, TopKNeuronCoverage)
    monkeypatch.setattr(np, "bool", bool, raising=False)
    net, train_x = summary_lenet
    tx, ty = test_digits
    assert float(np.mean(net(ms.Tensor(tx)).asnumpy().argmax(1) == ty)) >= 0.9
    model = Model(net)
    figures = {}
    for cls, kw in [(NeuronCoverage, {"threshold": 0.1}), (TopKNeuronCoverage, {"top_k": 3}),
                    (NeuronBoundsCoverage, {"train_dataset": train_x}),
                    (SuperNeuronActivateCoverage, {"train_dataset": train_x}),
                    (KMultisectionNeuronCoverage, {"train_dataset": train_x, "segmented_num": 10})]:
        metric = cls(model, batch_size=32, **kw)
        figures[cls.__name__] = [metric.get_metrics(tx[:n]) for n in (2, 16, 64)]
    for name, (few, more, most) in figures.items():
        assert 0 <= few <= more <= most <= 1, (name, figures[name])
        assert most > few, (name, figures[name])
    # NeuronCoverage by hand: a neuron (channel) is covered when its spatial mean is above 0.1 for some image
    covered = total = 0
    for layer in net.features(ms.Tensor(tx)):
        value = layer.asnumpy()
        value = value.mean(axis=tuple(range(2, value.ndim)))
        covered += int(np.sum((value > 0.1).any(axis=0)))
        total += value.shape[1]
    assert total == 6 + 16 + 84 + 10
    assert figures["NeuronCoverage"][2] == pytest.approx(covered / total)
    # SuperNeuronActivate counts neurons above their training maximum, a subset of NeuronBounds' out-of-range ones
    assert figures["SuperNeuronActivateCoverage"][2] <= figures["NeuronBoundsCoverage"][2]


def test_fault_injection_on_a_trained_lenet(ma, lenet, test_digits):
    """`FaultInjector` (reliability.model_fault_injection): each fault type/mode rewrites the trained weights
    through Parameter.set_data, predicts, and puts them back with assign_value;
    NaN weights make every logit NaN, whose argmax is class 0; a flipped exponent bit in every layer costs accuracy;
    one zeroed or float16-rounded element does not; the trained weights are back after the run."""
    import random

    from mindspore.train import Model
    from mindarmour.reliability.model_fault_injection.fault_injection import FaultInjector
    tx, ty = test_digits
    lenet.set_train(False)
    before = [p.asnumpy().copy() for p in lenet.trainable_params()]
    random.seed(0)
    np.random.seed(0)
    injector = FaultInjector(Model(lenet), fi_type=["zeros", "nan", "bitflips_designated", "precision_loss"],
                             fi_mode=["single_layer", "all_layer"], fi_size=[1])
    results = injector.kick_off(tx, ty, iter_times=4)
    assert results[0] == {"original_acc": pytest.approx(_accuracy(lenet, tx, ty))}
    assert results[0]["original_acc"] >= 0.9
    by_case = {(r["type"], r["mode"]): r for r in results[1:]}
    assert len(by_case) == 8
    for r in results[1:]:
        assert 0 <= r["acc"] <= 1
        assert r["SDC"] == pytest.approx(results[0]["original_acc"] - r["acc"])
    for mode in ("single_layer", "all_layer"):
        assert by_case[("nan", mode)]["acc"] == pytest.approx(float(np.mean(ty == 0)))
        assert by_case[("zeros", mode)]["acc"] == pytest.approx(results[0]["original_acc"])
        assert by_case[("precision_loss", mode)]["acc"] == pytest.approx(results[0]["original_acc"])
    assert by_case[("bitflips_designated", "all_layer")]["acc"] < results[0]["original_acc"] - 0.3
    # the weights are the trained ones again
    for p, w in zip(lenet.trainable_params(), before):
        np.testing.assert_array_equal(p.asnumpy(), w)
    summary = injector.metrics()
    assert len(summary) == 4 and summary[0].startswith("single_layer_acc_mean:")


def test_image_inversion_attack_reconstructs_from_features(ma):
    """`ImageInversionAttack` (privacy.evaluation): its InversionLoss (feature MSE over the target's energy, the
    CPU path's neighbour differences through ops.Split, an L2 prior) against numpy, and the signed-gradient
    descent through GradWrapWithLoss bringing the reconstruction's features towards the target's."""
    import mindspore as ms
    from mindspore import nn
    from mindarmour.privacy.evaluation.inversion_attack import ImageInversionAttack

    rng = np.random.default_rng(0)
    w = rng.normal(0, 0.3, (64, 12)).astype(np.float32)

    class Features(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Tensor(w)

        def construct(self, x):
            return ms.ops.matmul(x.reshape(x.shape[0], -1), self.w)

    net = Features()
    original = rng.random((2, 1, 8, 8)).astype(np.float32)
    target = original.reshape(2, -1) @ w
    attack = ImageInversionAttack(net, input_shape=(1, 8, 8), input_bound=(0, 1), loss_weights=[1, 0.2, 5])

    def numpy_loss(x, t):
        mse = lambda a, b: float(np.mean((a - b) ** 2))  # noqa: E731
        smooth = sum(mse(x[:, :, i], x[:, :, i - 1]) for i in range(1, 8))
        smooth += sum(mse(x[:, :, :, j], x[:, :, :, j - 1]) for j in range(1, 8))
        return mse(x.reshape(1, -1) @ w, t) / mse(t, 0 * t) + 0.2 * smooth + 5 * mse(x, 0 * x)

    probe = original[:1]
    assert float(attack._loss(ms.Tensor(probe), ms.Tensor(target[0])).asnumpy()) == pytest.approx(
        numpy_loss(probe, target[0]), rel=1e-5)
    np.random.seed(0)
    start = np.random.random((1, 1, 8, 8)).astype(np.float32) * 0.05
    np.random.seed(0)
    images = attack.generate(target, iters=60)
    assert images.shape == (2, 1, 8, 8) and images.min() >= 0 and images.max() <= 1
    assert numpy_loss(images[:1], target[0]) < 0.5 * numpy_loss(start, target[0])
    l2, ssim, accuracy = attack.evaluate(original, images)    # no labels given: no accuracy
    assert accuracy is None
    assert l2 == pytest.approx(np.mean([np.linalg.norm(o - r) / np.linalg.norm(o)
                                        for o, r in zip(original, images)]), rel=1e-4)
    assert 0 < ssim < 1
