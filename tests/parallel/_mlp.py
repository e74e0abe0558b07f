"""The two-layer MLP the parallel tests shard: x @ w1 + b1, ReLU, @ w2, mean squared error against y; each of
its three operators takes an optional shard strategy."""
import numpy as np

from mindseed import Parameter, Tensor, nn, ops
from mindseed.common import dtype as mstype
from mindseed.common.initializer import Initializer, initializer


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


class Drawn(Initializer):
    """Normal values drawn from their own seeded generator: the same whatever else is initialized first."""

    def __init__(self, seed):
        super().__init__(seed=seed)
        self.seed = seed

    def _initialize(self, arr):
        arr[...] = np.random.default_rng(self.seed).standard_normal(arr.shape)


def lazy_mlp(seed=1, **strategies):
    """An `MLP` whose Parameters wait for their initialization (made under `nn.utils.no_init_parameters`, as
    MindSpore's lazy initialization): w1, w2 drawn by `Drawn`, b1 zeros (a constant: initialized slice by slice)."""
    with nn.utils.no_init_parameters():
        net = MLP(seed, **strategies)
        for k, (name, shape) in enumerate((("w1", (4, 8)), ("b1", (8,)), ("w2", (8, 6)))):
            init = "zeros" if name == "b1" else Drawn(seed * 10 + k)
            setattr(net, name, Parameter(initializer(init, shape, mstype.float64), name=name))
    return net
