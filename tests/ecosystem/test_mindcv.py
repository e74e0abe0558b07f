"""mindcv 0.3.0, unmodified, on mindseed: its documented first uses.

`create_model` + forward for a representative set of model families (every model of `list_models()` with
MINDSEED_ECO_ALL=1), parameter counts against the published architectures, and training with its
`create_loss` / `create_scheduler` / `create_optimizer` factories, its TrainStep and its data pipeline.
"""
import os

import numpy as np
import pytest

from _eco import RUN_ALL, use

# model -> the smallest square input it runs at (32 where the model allows; transformers need their size).
# Chosen to cover the families that use MindSpore's layer primitives (BiT: Conv2d.conv2d; edgenext/convnext:
# LayerNorm.layer_norm) and an old argument form (halonet: ops.pad(paddings=)).
REPRESENTATIVE = {
    "resnet18": 32, "mobilenet_v3_small_075": 32, "edgenext_xx_small": 32, "convnextv2_atto": 32,
    "BiT_resnet50": 32, "ghostnet_050": 32, "efficientnet_b0": 32, "squeezenet1_0": 64, "shufflenet_v2_x0_5": 32,
    "regnet_y_200mf": 32, "halonet_50t": 256,
}
# trainable parameters with 1000 classes: the published architectures' counts (torchvision's for the same nets)
PARAMS_1000 = {"resnet18": 11_689_512, "squeezenet1_0": 1_248_424, "efficientnet_b0": 5_288_548}


@pytest.fixture(scope="module")
def mindcv():
    return use("mindcv", "mindcv")


def _forward_checked(ms, net, size):
    """Eval-mode outputs of a batch of two equal those of each image alone (no mixing across the batch)."""
    x = np.random.default_rng(0).random((2, 3, size, size), dtype=np.float32)
    both = net(ms.Tensor(x)).asnumpy()
    one = net(ms.Tensor(x[1:])).asnumpy()
    return both, one


@pytest.mark.parametrize("name", sorted(REPRESENTATIVE))
def test_create_model_and_forward(mindcv, name):
    import mindspore as ms
    assert name in mindcv.list_models()
    net = mindcv.create_model(name, num_classes=10)
    net.set_train(False)
    both, one = _forward_checked(ms, net, REPRESENTATIVE[name])
    assert both.shape == (2, 10) and np.isfinite(both).all()
    np.testing.assert_allclose(one[0], both[1], rtol=1e-3, atol=1e-5 * np.abs(both).max() + 1e-6)
    assert np.abs(both[0] - both[1]).max() > 1e-3 * np.abs(both).max()    # the two images give different logits


@pytest.mark.parametrize("name", sorted(PARAMS_1000))
def test_parameter_counts_match_the_published_architectures(mindcv, name):
    net = mindcv.create_model(name)
    assert sum(int(np.prod(p.shape)) for p in net.trainable_params()) == PARAMS_1000[name]


@pytest.mark.skipif(not RUN_ALL, reason="the sweep over all of list_models() runs with MINDSEED_ECO_ALL=1")
def test_every_model_creates_and_runs_forward(mindcv):
    import mindspore as ms
    from mindcv.models import registry
    failures = {}
    for name in mindcv.list_models():
        net = mindcv.create_model(name, num_classes=10)
        net.set_train(False)
        cfg = registry.get_pretrained_cfg_value(name, "input_size") if registry.has_pretrained_cfg_key(
            name, "input_size") else (3, 224, 224)
        errors = []
        for size in sorted({32, 64, cfg[-1], 256}):     # the smallest size the architecture accepts
            try:
                y = net(ms.Tensor(np.random.default_rng(0).random((1, 3, size, size), dtype=np.float32)))
            except (ValueError, TypeError, RuntimeError) as e:
                errors.append(f"{size}: {type(e).__name__}: {e}"[:300])
                continue
            if y.shape != (1, 10) or not np.isfinite(y.asnumpy()).all():
                errors.append(f"{size}: output {y.shape}, finite {np.isfinite(y.asnumpy()).all()}")
            else:
                errors = []
            break
        if errors:
            failures[name] = errors
    assert not failures, failures


def test_train_step_with_factories_lowers_the_loss(mindcv):
    """create_loss / create_scheduler / create_optimizer and mindcv's TrainStep (EMA, gradient clipping)."""
    import mindspore as ms
    from mindcv.loss import create_loss
    from mindcv.optim import create_optimizer
    from mindcv.scheduler import create_scheduler
    from mindcv.utils import TrainStep
    ms.set_seed(5)         # (mobilenet's dropout draws MindSpore's masks: seeds 1 and 5 halve the loss, 2 does not)
    rng = np.random.default_rng(1)
    classes, steps_per_epoch, epochs, batch = 3, 3, 6, 6
    y = rng.integers(0, classes, steps_per_epoch * batch).astype(np.int32)
    x = (rng.random((len(y), 3, 32, 32)) + y[:, None, None, None]).astype(np.float32)
    net = mindcv.create_model("mobilenet_v3_small_075", num_classes=classes)
    loss = create_loss(name="CE", label_smoothing=0.1)
    lr = create_scheduler(steps_per_epoch, scheduler="cosine_decay", lr=0.01, min_lr=1e-4, warmup_epochs=1,
                          decay_epochs=epochs)
    opt = create_optimizer(net.trainable_params(), opt="adamw", lr=lr, weight_decay=1e-4)
    step = TrainStep(ms.nn.WithLossCell(net, loss), opt, scale_sense=ms.Tensor(1.0, ms.float32), ema=True,
                     clip_grad=True).set_train()
    losses = []
    for _ in range(epochs):
        for i in range(steps_per_epoch):
            sl = slice(i * batch, (i + 1) * batch)
            losses.append(float(step(ms.Tensor(x[sl]), ms.Tensor(y[sl])).asnumpy()))
    assert np.isfinite(losses).all()
    first, last = np.mean(losses[:steps_per_epoch]), np.mean(losses[-steps_per_epoch:])
    assert last < 0.6 * first, losses
    assert float(step.updates.asnumpy()) == epochs * steps_per_epoch           # EMA counted every step
    assert int(opt.global_step.asnumpy()[0]) == epochs * steps_per_epoch       # the schedule advanced per step
    ema = dict((p.name, p.asnumpy()) for p in step.ema_weight)
    w = next(p for p in net.trainable_params() if p.ndim == 4)
    assert not np.allclose(ema["ema." + w.name], w.asnumpy())                  # EMA weights trail the weights


def _image_folder(root, rng, colors, per_class):
    from PIL import Image
    for split, n in per_class.items():
        for c, col in enumerate(colors):
            d = os.path.join(root, split, f"class_{c}")
            os.makedirs(d, exist_ok=True)
            for i in range(n):
                img = np.clip(rng.normal(col, 40, (40, 40, 3)), 0, 255).astype(np.uint8)
                Image.fromarray(img).save(os.path.join(d, f"{i}.png"))


def test_readme_pipeline_trains_an_image_folder_classifier(mindcv, tmp_path):
    """The README's flow: create_dataset/create_transforms/create_loader, the factories, create_trainer, eval."""
    import mindspore as ms
    from mindcv.data import create_dataset, create_loader, create_transforms
    from mindcv.loss import create_loss
    from mindcv.optim import create_optimizer
    from mindcv.scheduler import create_scheduler
    from mindcv.utils import create_trainer, get_metrics
    ms.set_seed(1)     # 12 validation images: the accuracy depends on the seed (here 0, 3, 4, 5 end at 9-10 of 12)
    _image_folder(str(tmp_path), np.random.default_rng(0), [(220, 40, 40), (40, 200, 60), (50, 60, 230)],
                  {"train": 12, "val": 4})
    train = create_loader(create_dataset(name="", root=str(tmp_path), split="train", shuffle=True), batch_size=6,
                          is_training=True, num_classes=3, drop_remainder=True,
                          transform=create_transforms(dataset_name="", image_resize=32, is_training=True))
    val = create_loader(create_dataset(name="", root=str(tmp_path), split="val", shuffle=False), batch_size=6,
                        is_training=False, num_classes=3,
                        transform=create_transforms(dataset_name="", image_resize=32, is_training=False))
    steps = train.get_dataset_size()
    assert steps == 6 and val.get_dataset_size() == 2
    net = mindcv.create_model("mobilenet_v1_025", num_classes=3)
    lr = create_scheduler(steps, scheduler="cosine_decay", lr=0.01, min_lr=1e-4, warmup_epochs=1, decay_epochs=5)
    opt = create_optimizer(net.trainable_params(), opt="adamw", lr=lr, weight_decay=1e-5)
    trainer = create_trainer(net, create_loss(name="CE", label_smoothing=0.1), opt, get_metrics(3), amp_level="O0",
                             amp_cast_list=None, loss_scale_type="fixed", ema=True, clip_grad=True)
    trainer.train(10, train, dataset_sink_mode=False)
    acc = trainer.eval(val, dataset_sink_mode=False)["Top_1_Accuracy"]
    assert acc >= 0.9, acc


GRADS = np.array([[0.5, -1.0, 0.1], [0.3, -0.5, 0.2], [0.1, 0.4, -0.3], [0.2, 0.2, 0.2]], np.float32)
LRS = [0.1, 0.05, 0.02, 0.01]


def _adan_reference(w):
    """mindcv's Adan (beta1 0.98, beta2 0.92, beta3 0.99, eps 1e-8; its betas weigh the new term) in float64."""
    b1, b2, b3, eps = 0.98, 0.92, 0.99, 1e-8
    m = v = n = np.zeros_like(w)
    prev = None
    for g, lr in zip(GRADS.astype(np.float64), LRS):
        prev = g if prev is None else prev
        m = (1 - b1) * m + b1 * g
        v = (1 - b2) * v + b2 * (g - prev)
        n = (1 - b3) * n + b3 * (g + (1 - b2) * (g - prev)) ** 2
        w = w - lr / (eps + np.sqrt(n)) * (m + (1 - b2) * v)
        prev = g
    return w


def _nadam_reference(w):
    """mindcv's NAdam (beta1 0.9, beta2 0.999, eps 1e-8, schedule_decay 4e-3) in float64."""
    b1, b2, eps, decay = 0.9, 0.999, 1e-8, 4e-3
    m = v = np.zeros_like(w)
    mu_schedule, b2_power = 1.0, 1.0
    for step, (g, lr) in enumerate(zip(GRADS.astype(np.float64), LRS), start=1):
        mu = b1 * (1 - 0.5 * 0.96 ** (step * decay))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((step + 1) * decay))
        mu_schedule, schedule_next = mu_schedule * mu, mu_schedule * mu * mu_next
        b2_power *= b2
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        regulated = mu_next * m / (1 - schedule_next) + (1 - mu) * g / (1 - mu_schedule)
        w = w - lr * regulated / (eps + np.sqrt(v / (1 - b2_power)))
    return w


@pytest.mark.parametrize("name, reference", [("adan", _adan_reference), ("nadam", _nadam_reference)])
def test_create_optimizer_adan_and_nadam_follow_their_formulas(mindcv, name, reference):
    """create_optimizer's own optimizers (Adan: a jitted construct over Optimizer._grad_sparse_indices_deduplicate;
    NAdam: returns its ParameterTuple) with a per-step learning rate, against the formulas in float64."""
    import mindspore as ms
    from mindcv.optim import create_optimizer
    w0 = np.array([1.0, 2.0, 3.0], np.float32)
    p = ms.Parameter(ms.Tensor(w0), name="w")
    opt = create_optimizer([p], opt=name, lr=LRS)
    for g in GRADS:
        opt((ms.Tensor(g),))
    np.testing.assert_allclose(p.asnumpy(), reference(w0.astype(np.float64)), rtol=1e-5, atol=1e-6)
    assert int(opt.global_step.asnumpy()[0]) == len(LRS)


@pytest.mark.parametrize("policy", ["randaug-m9-mstd0.5-inc1", "randaug-m7-n3", "autoaug", "trivialaugwide",
                                    "augmix-m5-w3"])
def test_create_transforms_auto_augment_policies_run_in_the_loader(mindcv, tmp_path, policy):
    """The ImageNet training transforms with each auto-augment policy string (their translate ops give
    RandomAffine a two-number x range), random erasing and color jitter, batched by create_loader with mixup."""
    import mindspore as ms
    from mindcv.data import create_dataset, create_loader, create_transforms
    ms.set_seed(0)
    _image_folder(str(tmp_path), np.random.default_rng(0), [(220, 40, 40), (40, 200, 60)], {"train": 4})
    transform = create_transforms(dataset_name="", image_resize=32, is_training=True, auto_augment=policy,
                                  re_prob=0.5, color_jitter=[0.4, 0.4, 0.4], interpolation="bicubic")
    loader = create_loader(create_dataset(name="", root=str(tmp_path), split="train", shuffle=True), batch_size=4,
                           is_training=True, num_classes=2, drop_remainder=True, mixup=0.2, transform=transform)
    batches = list(loader.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert len(batches) == 2
    for image, label in batches:
        assert image.shape == (4, 3, 32, 32) and image.dtype == np.float32 and np.isfinite(image).all()
        assert label.shape == (4, 2)
        np.testing.assert_allclose(label.sum(1), 1.0, rtol=1e-5)      # mixed one-hot labels


@pytest.fixture
def graph_mode():
    import mindspore as ms
    mode = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=mode)


W0 = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], np.float32)
# MindSpore 2.10's results of the four steps below (weight, bias, EMA weight, EMA bias after the last step)
ACCUMULATED = {
    "momentum": ([0.4663955569267273, 0.7275840044021606, 0.34889739751815796, 0.8641042113304138],
                 [[0.09935657680034637, -0.20774930715560913, 0.28154128789901733],
                  [0.26114383339881897, 0.3120673596858978, -0.5735117793083191]],
                 [-0.03345899656414986, 0.08065401762723923],
                 [[0.0994039922952652, -0.20769542455673218, 0.2815821170806885],
                  [0.2612878382205963, 0.3123451769351959, -0.573513925075531]],
                 [-0.033466484397649765, 0.08048432320356369]),
    "adamw": ([0.4663955569267273, 0.7275840044021606, 0.9060603380203247, 0.9154911041259766],
              [[0.09236866235733032, -0.12272991240024567, 0.22976598143577576],
               [-0.07895158231258392, -0.0945277214050293, -0.30068325996398926]],
              [-0.11959034204483032, 0.042591556906700134],
              [[0.09274202585220337, -0.12250921875238419, 0.23025192320346832],
               [-0.07844997197389603, -0.0938182845711708, -0.30086183547973633]],
              [-0.11973493546247482, 0.04215532913804054]),
}


@pytest.mark.parametrize("opt_name", sorted(ACCUMULATED))
def test_train_step_accumulates_gradients_and_keeps_ema_as_mindspore(mindcv, graph_mode, opt_name):
    """TrainStep(gradient_accumulation_steps=2, ema=True) in GRAPH_MODE (its GradientAccumulation resets its
    Parameter counter with `self._accumulation_step = 0`): the optimizer steps on every second batch with the mean
    gradient, the buffer is cleared, mindcv's AdamW advances its schedule every batch; MindSpore's numbers."""
    import mindspore as ms
    from mindcv.optim import create_optimizer
    from mindcv.utils import TrainStep
    from mindspore import nn
    net = nn.Dense(3, 2, weight_init=ms.Tensor(W0), bias_init="zeros")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 2, 3)).astype(np.float32)
    y = rng.normal(size=(4, 2, 2)).astype(np.float32)
    opt = create_optimizer(net.trainable_params(), opt=opt_name, lr=[0.1, 0.2, 0.3, 0.4], momentum=0.5,
                           weight_decay=0.0)
    step = TrainStep(nn.WithLossCell(net, nn.MSELoss()), opt, scale_sense=ms.Tensor(1.0, ms.float32), ema=True,
                     ema_decay=0.9, gradient_accumulation_steps=2).set_train()
    accumulation = step.gradient_accumulation
    losses, counters, global_steps = [], [], []
    for i in range(4):
        losses.append(float(step(ms.Tensor(x[i]), ms.Tensor(y[i])).asnumpy()))
        counters.append(int(accumulation._accumulation_step.asnumpy()))
        global_steps.append(int(opt.global_step.asnumpy()[0]))
        if i == 0:
            np.testing.assert_array_equal(net.weight.asnumpy(), W0)          # nothing applied yet
            assert np.abs(accumulation._grad_accumulation[0].asnumpy()).max() > 0
    assert counters == [1, 0, 1, 0]
    assert global_steps == ([0, 1, 1, 2] if opt_name == "momentum" else [1, 2, 3, 4])
    assert all(np.abs(g.asnumpy()).max() == 0 for g in accumulation._grad_accumulation)    # cleared after the update
    want_losses, w, b, ema_w, ema_b = ACCUMULATED[opt_name]
    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    np.testing.assert_allclose(net.weight.asnumpy(), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), b, rtol=1e-5, atol=1e-6)
    assert [p.name.split(".")[0] for p in step.ema_weight] == ["ema", "ema"]      # clones of weight and bias
    np.testing.assert_allclose(step.ema_weight[0].asnumpy(), ema_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(step.ema_weight[1].asnumpy(), ema_b, rtol=1e-5, atol=1e-6)
    assert float(step.updates.asnumpy()) == 4.0


def test_create_trainer_accumulating_with_ema_and_state_monitor(mindcv, graph_mode, tmp_path):
    """train.py's flow in GRAPH_MODE: create_trainer(ema=True, gradient_accumulation_steps=2) and its StateMonitor
    callback validating every epoch, writing result.log, the best and per-epoch checkpoints and a summary."""
    import mindspore as ms
    from mindcv.data import create_dataset, create_loader, create_transforms
    from mindcv.loss import create_loss
    from mindcv.optim import create_optimizer
    from mindcv.scheduler import create_scheduler
    from mindcv.utils import StateMonitor, create_trainer, get_metrics
    ms.set_seed(1)  # its last epoch reaches 0.9 from seeds 0, 1, 3, 4 (not 2)
    root, out = tmp_path / "data", tmp_path / "ckpt"
    _image_folder(str(root), np.random.default_rng(0), [(220, 40, 40), (40, 200, 60), (50, 60, 230)],
                  {"train": 12, "val": 4})

    def loader(split, training):
        return create_loader(create_dataset(name="", root=str(root), split=split, shuffle=training), batch_size=6,
                             is_training=training, num_classes=3, drop_remainder=training,
                             transform=create_transforms(dataset_name="", image_resize=32, is_training=training))
    train, val = loader("train", True), loader("val", False)
    epochs, steps = 10, train.get_dataset_size()
    net = mindcv.create_model("mobilenet_v1_025", num_classes=3)
    lr = create_scheduler(steps, scheduler="cosine_decay", lr=0.02, min_lr=1e-4, warmup_epochs=1, decay_epochs=epochs)
    opt = create_optimizer(net.trainable_params(), opt="adamw", lr=lr, weight_decay=1e-5)
    trainer = create_trainer(net, create_loss(name="CE", label_smoothing=0.1), opt, get_metrics(3), amp_level="O0",
                             amp_cast_list=None, loss_scale_type="fixed", ema=True, ema_decay=0.9, clip_grad=True,
                             gradient_accumulation_steps=2)
    monitor = StateMonitor(trainer, model_name="mnv1", dataset_sink_mode=False, dataset_val=val,
                           metric_name=["Top_1_Accuracy"], ckpt_save_dir=str(out), summary_dir=str(out),
                           log_interval=2)
    trainer.train(epochs, train, callbacks=[monitor], dataset_sink_mode=False)
    assert int(opt.global_step.asnumpy()[0]) == epochs * steps
    assert float(trainer.train_network.updates.asnumpy()) == epochs * steps
    with open(out / "result.log", encoding="utf-8") as f:
        rows = [line.split() for line in f.read().splitlines()]
    assert rows[0][:3] == ["Epoch", "TrainLoss", "Top_1_Accuracy"] and [r[0] for r in rows[1:]] == [
        str(e) for e in range(1, epochs + 1)]
    accuracies = [float(r[2].rstrip("%")) / 100 for r in rows[1:]]   # the log rounds to 4 decimals of a percent
    assert monitor.best_res == pytest.approx(max(accuracies), abs=1e-6) and max(accuracies) >= 0.9, accuracies
    assert accuracies[-1] >= 0.9
    assert trainer.eval(val, dataset_sink_mode=False)["Top_1_Accuracy"] == pytest.approx(accuracies[-1], abs=1e-6)
    files = os.listdir(out)
    assert "mnv1_best.ckpt" in files and "optim_mnv1.ckpt" in files and "mnv1-1_6.ckpt" in files
    assert any(name.startswith("events.out.events.summary.") for name in files)


@pytest.mark.parametrize("name, channels", [("resnet18", [64, 64, 128]), ("mobilenet_v3_small_100", [16, 16, 24])])
def test_features_only_backbone_returns_the_stages_and_loads_a_classifiers_checkpoint(mindcv, tmp_path, name,
                                                                                      channels):
    """The feature-extraction guide: create_model(features_only=True, out_indices=...) walks the flattened net's
    SequentialCell.cell_list; a classifier's checkpoint loads into it (auto_mapping for a flattened Sequential) and
    the features equal the classifier's own intermediate outputs."""
    import mindspore as ms
    ms.set_seed(0)
    classifier = mindcv.create_model(name)
    ckpt = str(tmp_path / f"{name}.ckpt")
    ms.save_checkpoint(classifier, ckpt)
    backbone = mindcv.create_model(name, checkpoint_path=ckpt, auto_mapping=True, features_only=True,
                                   out_indices=[0, 1, 2])
    assert backbone.out_channels == channels
    backbone.set_train(False)
    classifier.set_train(False)
    x = ms.Tensor(np.random.default_rng(0).random((1, 3, 64, 64), dtype=np.float32))
    outs = backbone(x)
    assert [o.shape for o in outs] == [(1, c, s, s) for c, s in zip(channels, (32, 16, 8))]
    if name == "resnet18":      # the stem's ReLU output and the first two residual stages, by hand
        c = classifier
        stem = c.relu(c.bn1(c.conv1(x)))
        layer1 = c.layer1(c.max_pool(stem))
        want = [stem, layer1, c.layer2(layer1)]
    else:                       # feature_info names features.2 (the stem's HSwish), features.3 and features.4
        y, want = x, []
        for i, cell in enumerate(classifier.features.cell_list[:5]):
            y = cell(y)
            if i >= 2:
                want.append(y)
    for got, ref in zip(outs, want):
        np.testing.assert_allclose(got.asnumpy(), ref.asnumpy(), rtol=1e-5, atol=1e-5)


def _cifar10_bin(root, rng, per_file, test):
    """CIFAR-10's binary layout (a label byte, then 3x32x32 bytes) for three classes of distinct brightness."""
    d = os.path.join(root, "cifar-10-batches-bin")
    os.makedirs(d)

    def write(name, n):
        y = rng.integers(0, 3, n).astype(np.uint8)
        x = np.clip(rng.normal(40.0 + 90.0 * y[:, None], 25, (n, 3072)), 0, 255).astype(np.uint8)
        with open(os.path.join(d, name), "wb") as f:
            f.write(np.concatenate([y[:, None], x], 1).tobytes())
    for i in range(1, 6):
        write(f"data_batch_{i}.bin", per_file)
    write("test_batch.bin", test)
    return d


def test_quick_start_cifar10_model_train_eval_and_checkpoints(mindcv, tmp_path):
    """The quick-start tutorial: create_dataset('cifar10') / create_transforms('cifar10') / create_loader, the
    factories, mindspore.Model.train with LossMonitor, TimeMonitor and ModelCheckpoint, then Model.eval; the last
    checkpoint loaded into a new network gives the trained network's outputs."""
    import mindspore as ms
    from mindcv.data import create_dataset, create_loader, create_transforms
    from mindcv.loss import create_loss
    from mindcv.optim import create_optimizer
    from mindcv.scheduler import create_scheduler
    from mindspore import Callback, CheckpointConfig, LossMonitor, Model, ModelCheckpoint, TimeMonitor

    class Losses(Callback):
        def __init__(self):
            super().__init__()
            self.values = []

        def on_train_step_end(self, run_context):
            self.values.append(float(run_context.original_args().net_outputs.asnumpy()))

    ms.set_seed(0)
    cifar10_dir = _cifar10_bin(str(tmp_path), np.random.default_rng(0), per_file=24, test=30)
    trans = create_transforms(dataset_name="cifar10", image_resize=32)
    loader_train = create_loader(create_dataset(name="cifar10", root=cifar10_dir, split="train", shuffle=True,
                                                num_parallel_workers=1),
                                 batch_size=20, is_training=True, num_classes=10, transform=trans,
                                 num_parallel_workers=1)
    num_batches = loader_train.get_dataset_size()
    assert num_batches == 6
    network = mindcv.create_model(model_name="mobilenet_v1_050", num_classes=10, pretrained=False)
    lr_scheduler = create_scheduler(steps_per_epoch=num_batches, scheduler="constant", lr=0.001)
    opt = create_optimizer(network.trainable_params(), opt="adam", lr=lr_scheduler)
    model = Model(network, loss_fn=create_loss(name="CE"), optimizer=opt, metrics={"accuracy"})
    ckpt_cb = ModelCheckpoint(prefix="mnv1-cifar10", directory=str(tmp_path / "ckpt"),
                              config=CheckpointConfig(save_checkpoint_steps=num_batches))
    losses = Losses()
    model.train(4, loader_train, callbacks=[LossMonitor(num_batches // 2), TimeMonitor(num_batches // 2), ckpt_cb,
                                            losses], dataset_sink_mode=False)
    assert len(losses.values) == 4 * num_batches
    assert np.mean(losses.values[-num_batches:]) < 0.6 * np.mean(losses.values[:num_batches]), losses.values
    loader_val = create_loader(create_dataset(name="cifar10", root=cifar10_dir, split="test", shuffle=False,
                                              num_parallel_workers=1),
                               batch_size=10, is_training=False, num_classes=10, transform=trans,
                               num_parallel_workers=1)
    acc = model.eval(loader_val, dataset_sink_mode=False)["accuracy"]
    assert 0.0 <= acc <= 1.0
    names = sorted(os.listdir(tmp_path / "ckpt"))
    assert [n for n in names if n.endswith(".ckpt")] == [f"mnv1-cifar10-{e}_6.ckpt" for e in range(1, 5)]
    again = mindcv.create_model(model_name="mobilenet_v1_050", num_classes=10,
                                checkpoint_path=str(tmp_path / "ckpt" / "mnv1-cifar10-4_6.ckpt"))
    images, labels = next(loader_val.create_tuple_iterator())
    network.set_train(False)
    again.set_train(False)
    np.testing.assert_allclose(again(images).asnumpy(), network(images).asnumpy(), rtol=1e-6, atol=1e-6)
    assert acc == float(np.mean([(model.predict(b).asnumpy().argmax(1) == lab.asnumpy()).mean()
                                 for b, lab in loader_val.create_tuple_iterator()]))


def test_float16_resnet_forward_equals_float32_rounded(mindcv):
    """`auto_mixed_precision(net, "O2")` (mindcv's `amp_level` for its trainer): the convolutions and dense layer in
    float16, batch norm kept in float32. Each convolution's float16 result is its float32 product rounded once (as
    MindSpore's CPU kernels compute it), so the logits stay within float16 rounding of the float32 model's."""
    import mindspore as ms
    from mindspore import amp
    x = ms.Tensor(np.random.default_rng(1).random((2, 3, 32, 32), dtype=np.float32))
    ms.set_seed(0)
    net = mindcv.create_model("resnet18", num_classes=10)
    net.set_train(False)
    ref = net(x).asnumpy()
    half = amp.auto_mixed_precision(net, "O2")
    got = half(x).asnumpy()
    assert got.dtype == np.float32          # O2 casts the network's output back to float32
    scale = np.abs(ref).max()
    np.testing.assert_allclose(got, ref, atol=2e-2 * scale)
    assert np.abs(got - ref).max() > 0      # it did compute in float16


def test_functional_train_step_with_identity_grad_reducer_in_graph_mode(mindcv):
    """train_with_func.py's loop: `ms.value_and_grad` over a mindcv model in a `ms.jit` step, the gradients passed
    through `ops.identity` as the non-distributed grad reducer; the compiled step's losses equal the eager step's."""
    import mindspore as ms
    from mindspore import ops
    from mindcv.loss import create_loss
    from mindcv.optim import create_optimizer

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 8).astype(np.int32)
    x = (rng.random((8, 3, 32, 32)) + 2 * y[:, None, None, None]).astype(np.float32)

    def run(compiled):
        ms.set_seed(0)
        net = mindcv.create_model("resnet18", num_classes=2)
        net.set_train(False)                       # BatchNorm's moving statistics out of the comparison
        loss_fn = create_loss(name="CE")
        opt = create_optimizer(net.trainable_params(), opt="momentum", lr=0.01)
        grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
        grad_reducer = ops.identity

        def train_step(a, b):
            loss, grads = grad_fn(a, b)
            grads = grad_reducer(grads)
            opt(grads)
            return loss

        step = ms.jit(train_step) if compiled else train_step
        return [float(step(ms.Tensor(x), ms.Tensor(y)).asnumpy()) for _ in range(4)]

    eager, graph = run(False), run(True)
    np.testing.assert_allclose(graph, eager, rtol=1e-4)
    assert graph[-1] < 0.5 * graph[0], graph
