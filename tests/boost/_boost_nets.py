"""The three-Dense network (ones and zeros) the boost tests run, as in their MindSpore 2.10 oracle scripts."""
from mindseed import nn


class ThreeDense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(3, 4, weight_init="ones", bias_init="zeros")
        self.fc2 = nn.Dense(4, 4, weight_init="ones", bias_init="zeros")
        self.fc3 = nn.Dense(4, 2, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.fc3(self.fc2(self.fc1(x)))
