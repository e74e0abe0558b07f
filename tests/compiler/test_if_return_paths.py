"""Graph mode: a `return` in a nested branch of an if on a tensor, with variables assigned on only some paths
(mindformers' warm-up learning-rate schedules): the paths that return or never assign a variable need no value
for it. Values checked against the same code in PyNative mode and hard-coded results."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn, ops


class _WarmUpThenDecay(nn.Cell):
    def __init__(self):
        super().__init__()
        self.warmup = Tensor(10.0, ms.float32)
        self.total = Tensor(20.0, ms.float32)
        self.greater = ops.Greater()

    def construct(self, step):
        step = ops.cast(step, ms.float32)
        if self.warmup != 0 and self.greater(self.warmup, step):
            percent = step / self.warmup
            lr = 0.5 * percent
        elif self.greater(step, self.total):
            return step - step + 0.001
        else:
            remaining = 1 - (step - self.warmup) / 10.0
            lr = 0.5 * remaining
        return lr


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE])
def test_return_in_an_elif_and_variables_of_one_branch(mode):
    ms.set_context(mode=mode)
    try:
        net = _WarmUpThenDecay()
        got = [float(net(Tensor(s)).asnumpy()) for s in (1, 15, 25, 5, 20)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(got, [0.05, 0.25, 0.001, 0.25, 0.0], rtol=1e-6, atol=1e-7)
