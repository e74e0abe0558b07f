"""The two-layer MLP the parallel tests shard: x @ w1 + b1, ReLU, @ w2, mean squared error against y; each of
its three operators takes an optional shard strategy."""
import numpy as np

from mindseed import Parameter, Tensor, nn, ops


class MLP(nn.Cell):
    def __init__(self, seed=1, mm1=None, add=None, mm2=None):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w1 = Parameter(Tensor(rng.standard_normal((4, 8))), name="w1")
        self.b1 = Parameter(Tensor(rng.standard_normal((8,))), name="b1")
        self.w2 = Parameter(Tensor(rng.standard_normal((8, 6))), name="w2")
        self.mm1, self.add, self.mm2 = ops.MatMul(), ops.Add(), ops.MatMul()
        for op, s in ((self.mm1, mm1), (self.add, add), (self.mm2, mm2)):
            if s is not None:
                op.shard(s)
        self.relu, self.mean = ops.ReLU(), ops.ReduceMean()

    def construct(self, x, y):
        d = self.mm2(self.relu(self.add(self.mm1(x, self.w1), self.b1)), self.w2) - y
        return self.mean(d * d)
