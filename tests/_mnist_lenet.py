"""LeNet-5 and the real-MNIST input pipeline shared by the accuracy tests (nn and train)."""
import os

import mindseed as ms
import mindseed.dataset as ds
import mindseed.dataset.transforms as T
import mindseed.dataset.vision as V
from mindseed import nn


class LeNet5(nn.Cell):
    """LeNet-5 as in MindSpore's tutorial: 1x32x32 input, two 5x5 convolutions, three dense layers."""

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


def mnist_pipeline(root, usage, batch, drop_remainder=False):
    """MnistDataset(root/usage) -> Resize 32, Rescale, Normalize, HWC2CHW; int32 labels; batched."""
    data = ds.MnistDataset(os.path.join(root, usage), usage=usage, shuffle=usage == "train")
    data = data.map([V.Resize((32, 32)), V.Rescale(1.0 / 255.0, 0.0), V.Normalize((0.1307,), (0.3081,)),
                     V.HWC2CHW()], input_columns="image")
    data = data.map(T.TypeCast(ms.int32), input_columns="label")
    return data.batch(batch, drop_remainder=drop_remainder)
