"""A LeNet / ResNet-style convolutional network with class-API operators (float64) for the parallel tests: two 3x3
convolutions (the first cutting its output channels, the second its input channels: partial sums with a bias), a
training BatchNorm, ReLU, 2x2 max pooling, a residual 1x1 convolution, 2x2 average pooling and a dense
classifier."""
import numpy as np

from mindseed import Parameter, Tensor, nn, ops

N, C_IN, H, W = 8, 3, 8, 8
C1, C2, CLASSES = 4, 4, 5


def _param(rng, shape, name, scale=0.3):
    return Parameter(Tensor(rng.standard_normal(shape) * scale), name=name)


class ConvNet(nn.Cell):
    """`dp` x `mp`: the batch cut by dp everywhere; conv1's output channels, conv2's input channels and the residual
    convolution's output channels cut by mp."""

    def __init__(self, dp=1, mp=1):
        super().__init__()
        rng = np.random.default_rng(7)
        self.w1 = _param(rng, (C1, C_IN, 3, 3), "w1")
        self.w2 = _param(rng, (C2, C1, 3, 3), "w2")
        self.b2 = _param(rng, (C2,), "b2")
        self.w3 = _param(rng, (C2, C2, 1, 1), "w3")
        self.gamma = Parameter(Tensor(1.0 + rng.standard_normal(C1) * 0.1), name="gamma")
        self.beta = _param(rng, (C1,), "beta", 0.1)
        self.mean = Parameter(Tensor(np.zeros(C1)), name="mean", requires_grad=False)
        self.var = Parameter(Tensor(np.ones(C1)), name="var", requires_grad=False)
        self.fc = _param(rng, (CLASSES, C2 * 2 * 2), "fc")
        self.conv1 = ops.Conv2D(C1, 3, pad_mode="same")
        self.conv2 = ops.Conv2D(C2, 3, pad_mode="pad", pad=1)
        self.conv3 = ops.Conv2D(C2, 1)
        self.bn = ops.BatchNorm(is_training=True)
        self.max_pool = ops.MaxPool(kernel_size=2, strides=2)
        self.avg_pool = ops.AvgPool(kernel_size=2, strides=2)
        self.dense = ops.MatMul(transpose_b=True)
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        if dp * mp > 1:
            self.conv1.shard(((dp, 1, 1, 1), (mp, 1, 1, 1)))
            self.conv2.shard(((dp, mp, 1, 1), (1, mp, 1, 1)))
            self.conv3.shard(((dp, 1, 1, 1), (mp, 1, 1, 1)))
            self.max_pool.shard(((dp, mp, 1, 1),))
            self.dense.shard(((dp, 1), (1, 1)))

    def construct(self, x, labels):
        h = self.conv1(x, self.w1)
        h = ops.relu(self.bn(h, self.gamma, self.beta, self.mean, self.var)[0])
        h = self.max_pool(h)
        h = ops.relu(self.conv2(h, self.w2) + self.b2.reshape((1, C2, 1, 1)))
        h = h + self.conv3(h, self.w3)
        h = self.avg_pool(h)
        logits = self.dense(h.reshape((N, C2 * 2 * 2)), self.fc)
        return self.loss(logits, labels)


def batches(count, seed=3):
    rng = np.random.default_rng(seed)
    return [(Tensor(rng.standard_normal((N, C_IN, H, W))), Tensor(rng.integers(0, CLASSES, (N,)).astype(np.int32)))
            for _ in range(count)]

