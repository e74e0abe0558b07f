"""The network of the spatial-cut tests (tests/parallel/test_conv_spatial.py, and on real processes
tests/communication/test_parallel_processes.py): two 'same' convolutions behind a strategy cutting H and W."""
import numpy as np

from mindseed import Parameter, Tensor, nn, ops

X = Tensor(np.random.default_rng(1).standard_normal((2, 3, 8, 8)))


class Net(nn.Cell):
    """conv1 (the strategy's, 3 -> 4 channels), tanh, conv2 ('same' 3x3, 4 -> 2, no strategy: it takes conv1's
    cuts), mean of squares."""

    def __init__(self, strategy=None, kernel=3, stride=1, mode="same", pool=None):
        super().__init__()
        self.pool = pool
        rng = np.random.default_rng(0)
        self.w1 = Parameter(Tensor(rng.standard_normal((4, 3, kernel, kernel)) * 0.3), name="w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((2, 4, 3, 3)) * 0.3), name="w2")
        self.conv1 = ops.Conv2D(4, kernel, pad_mode=mode, stride=stride)
        self.conv2 = ops.Conv2D(2, 3, pad_mode="same")
        if strategy is not None:
            self.conv1.shard(strategy)

    def construct(self, x):
        h = ops.tanh(self.conv1(x, self.w1))
        if self.pool is not None:
            h = self.pool(h)
        return ops.reduce_mean(self.conv2(h, self.w2) ** 2)
