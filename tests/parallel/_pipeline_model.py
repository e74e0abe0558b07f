"""The MLP the pipeline tests cut into stages: tanh layers (each with an optional MatMul strategy) and a
mean-squared-error loss."""
import numpy as np

from mindseed import Parameter, Tensor, nn, ops
from mindseed.parallel._layout import assemble


class Layer(nn.Cell):
    def __init__(self, rng, n_in, n_out, strategy=None):
        super().__init__()
        self.w = Parameter(Tensor(rng.standard_normal((n_in, n_out)) / 2), name="w")
        self.b = Parameter(Tensor(rng.standard_normal((n_out,))), name="b")
        self.mm, self.add, self.act = ops.MatMul(), ops.Add(), ops.Tanh()
        if strategy is not None:
            self.mm.shard(strategy)

    def construct(self, x):
        return self.act(self.add(self.mm(x, self.w), self.b))


class Net(nn.Cell):
    def __init__(self, widths, strategy=None):
        super().__init__()
        rng = np.random.default_rng(3)
        self.layers = nn.CellList([Layer(rng, a, b, strategy) for a, b in zip(widths, widths[1:])])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class WithLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x, y):
        d = self.net(x) - y
        return ops.reduce_mean(d * d)


def assert_pipeline_matches(run, program, cell, ref_loss, ref_grads):
    """The pipeline run's loss and every parameter's gradient (read in the parameter's layout on its stage) equal
    the single-process `ref_loss` and `ref_grads` within 1e-12."""
    loss, grads = program.result
    value = run.execution_of(loss).value(loss)
    np.testing.assert_allclose(assemble(value.shards, value.layout), ref_loss.asnumpy(), rtol=0, atol=1e-12)
    for p, g, r in zip(cell.trainable_params(), grads, ref_grads):
        ex = run.execution_of(g)
        layout = ex.layout_of(p)
        np.testing.assert_allclose(assemble(ex.value(g, layout).shards, layout), r.asnumpy(), rtol=0, atol=1e-12)
