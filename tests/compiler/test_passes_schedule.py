"""schedule_locality: light nodes run right after the node whose result they read; values never change."""
import numpy as np

import mindseed as ms
from mindseed import nn, ops
from mindseed.compiler.passes.schedule import schedule_locality


def _prims(fn):
    (graph,) = fn.graphs()
    return [n.prim.name for n in graph.nodes]


def _two_products(x, w):
    a = ops.matmul(x, w)
    b = ops.matmul(a, w)         # traced before the light reader of a below
    c = ops.exp(a).sum()         # read right after a: moves above the second product
    return b + c


def test_light_reader_moves_up_to_its_producer_and_values_match():
    rng = np.random.default_rng(0)
    x, w = (ms.Tensor(rng.standard_normal(s).astype(np.float32) * 0.3) for s in ((3, 4), (4, 4)))
    f = ms.jit(_two_products)
    got = f(x, w).asnumpy()
    assert np.array_equal(got, _two_products(x, w).asnumpy())
    assert _prims(f) == ["MatMul", "Exp", "ReduceSum", "MatMul", "Add"]


def test_random_draws_keep_their_order():
    # the second dropout reads the product's result, but it may not run before the first dropout
    def g(x):
        a = ops.matmul(x, x)
        d1 = ops.dropout(x, p=0.5)
        d2 = ops.dropout(a, p=0.5)
        return d1.sum() + d2.sum()
    f = ms.jit(g)
    f(ms.Tensor(np.ones((4, 4), np.float32)))
    names = [n for n in _prims(f) if n in ("MatMul", "Dropout")]
    (graph,) = f.graphs()
    drops = [n for n in graph.nodes if n.prim.name == "Dropout"]
    assert names == ["MatMul", "Dropout", "Dropout"]
    assert drops[0].inputs[0] is not graph.nodes[0].outputs[0]  # the draw on x still comes first


class _Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = ms.Parameter(ms.Tensor(np.zeros((2, 2), np.float32)), name="total")

    def construct(self, x):
        a = ops.matmul(x, x)
        before = self.total * 1.0          # read before the update...
        ops.assign_add(self.total, x)
        after = self.total * 1.0           # ...and after it: neither crosses the assignment
        return ops.exp(a).sum() + before.sum() * 10 + after.sum() * 100


def test_nothing_crosses_a_side_effect_and_the_results_are_pynative():
    x = ms.Tensor(np.full((2, 2), 0.5, np.float32))
    eager, graph = _Counter(), _Counter()
    f = ms.jit(graph.construct)
    for _ in range(3):
        assert np.array_equal(f(x).asnumpy(), eager(x).asnumpy())
    np.testing.assert_array_equal(graph.total.asnumpy(), eager.total.asnumpy())


def test_training_step_gradients_equal_the_unscheduled_graph(monkeypatch):
    from mindseed.compiler import passes
    net = nn.SequentialCell([nn.Dense(6, 8), nn.ReLU(), nn.Dense(8, 3)])
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    rng = np.random.default_rng(3)
    x = ms.Tensor(rng.standard_normal((5, 6)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 3, 5).astype(np.int32))
    step = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, net.trainable_params())
    on = ms.jit(step)
    loss_on, g_on = on(x, y)
    monkeypatch.setattr(passes, "PIPELINE", [p for p in passes.PIPELINE if p is not schedule_locality])
    off = ms.jit(lambda a, b: step(a, b))
    loss_off, g_off = off(x, y)
    assert np.array_equal(loss_on.asnumpy(), loss_off.asnumpy())
    for a, b in zip(g_on, g_off):
        assert np.array_equal(a.asnumpy(), b.asnumpy())
    names = _prims(on)
    # the last layer's bias gradient (a sum over the batch) runs before the products of that layer
    first_sum = names.index("ReduceSum")
    assert first_sum < names.index("MatMul")
