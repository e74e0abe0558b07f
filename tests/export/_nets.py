"""Networks for the export tests, written once for both frameworks: `build(ms)` takes `mindspore` or `mindseed`.

Weights come from numpy (seeded by the parameter's name), so the same network has the same numbers on both.
"""
import zlib

import numpy as np


def _det_init(ms, net):
    for name, p in net.parameters_and_names():
        rng = np.random.RandomState(zlib.crc32(name.encode()) % (2 ** 31))
        v = rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)
        if "variance" in name:
            v = np.abs(v) + 0.5
        p.set_data(ms.Tensor(v))
    net.set_train(False)
    return net


def build(ms, lenet5=False):
    """{name: (net, input array)} for LeNet-5 at 16x16, a ResNet basic block, an MLP and a net with an if and a
    while on tensor values (and the full-size LeNet-5 with `lenet5`)."""
    nn, ops = ms.nn, ms.ops

    class LeNet(nn.Cell):
        """LeNet-5's layers; the default sizes make a small one for 16x16 inputs."""

        def __init__(self, c1=4, c2=8, k2=3, fc=(32, 16, 12), conv_bias=True):
            super().__init__()
            self.conv1 = nn.Conv2d(1, c1, 5, pad_mode="valid", has_bias=conv_bias)
            self.conv2 = nn.Conv2d(c1, c2, k2, pad_mode="valid")
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(fc[0], fc[1])
            self.fc2 = nn.Dense(fc[1], fc[2])
            self.fc3 = nn.Dense(fc[2], 10)

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = self.flatten(x)
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    class ResidualBlock(nn.Cell):
        """ResNet-20's basic block: conv-bn-relu-conv-bn, identity shortcut, relu; then pooling and a head."""

        def __init__(self, c=4):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, stride=1, pad_mode="pad", padding=1)
            self.bn1 = nn.BatchNorm2d(c)
            self.conv2 = nn.Conv2d(c, c, 3, stride=1, pad_mode="same")
            self.bn2 = nn.BatchNorm2d(c)
            self.relu = nn.ReLU()
            self.pool = nn.AvgPool2d(kernel_size=2, stride=2)
            self.fc = nn.Dense(c, 3)

        def construct(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            y = self.relu(y + x)
            y = ops.mean(self.pool(y), (2, 3))
            return self.fc(y)

    class MLP(nn.Cell):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Dense(6, 8)
            self.l2 = nn.Dense(8, 8)
            self.l3 = nn.Dense(8, 3)
            self.act = nn.Sigmoid()

        def construct(self, x):
            h = self.act(self.l1(x))
            h = ops.tanh(self.l2(h)) + h
            return ops.softmax(self.l3(h), -1), h * 2.0 - 1.0

    class Control(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = nn.Dense(4, 4)

        def construct(self, x):
            if x.sum() > 0:
                x = self.d(x)
            else:
                x = x * 2
            while x.sum() < 20:
                x = x + 1.5
            return x

    rng = np.random.RandomState(7)
    nets = {
        "lenet": (_det_init(ms, LeNet()), rng.randn(2, 1, 16, 16).astype(np.float32)),
        "resblock": (_det_init(ms, ResidualBlock()), rng.randn(2, 4, 8, 8).astype(np.float32)),
        "mlp": (_det_init(ms, MLP()), rng.randn(5, 6).astype(np.float32)),
        "control": (_det_init(ms, Control()), rng.randn(3, 4).astype(np.float32)),
    }
    if lenet5:   # the LeNet-5 of MindSpore's tutorials, 1x32x32 inputs
        nets["lenet5"] = (_det_init(ms, LeNet(6, 16, 5, (400, 120, 84), conv_bias=False)),
                          np.random.RandomState(3).randn(2, 1, 32, 32).astype(np.float32))
    return nets


def outputs(result):
    """A network's result as a list of numpy arrays."""
    result = result if isinstance(result, (tuple, list)) else (result,)
    return [r.asnumpy() for r in result]

