"""Cell.recompute() in compiled training: identical numbers, fewer activation bytes kept for the backward."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.compiler.codegen import _last_uses
from mindseed.compiler.ir import Var

_BYTES = {"Float32": 4, "Float64": 8, "Int64": 8, "Int32": 4, "Bool": 1, "Float16": 2}


def _live_after_forward(graph):
    """(count, bytes) of node results alive when the forward is done (the loss, output 0, was just computed):
    what the generated code keeps for the backward pass (values die after their last use)."""
    last = _last_uses(graph)
    outputs = {o.id for o in graph.outputs if isinstance(o, Var)}
    loss = graph.outputs[0].id
    end = next(i for i, n in enumerate(graph.nodes) if any(o.id == loss for o in n.outputs))
    live = [o for node in graph.nodes[:end + 1] for o in node.outputs
            if o.id != loss and (last.get(o.id, -1) > end or o.id in outputs)]
    return len(live), sum(int(np.prod(o.shape or (1,))) * _BYTES.get(o.dtype, 4) for o in live)


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d1 = nn.Dense(8, 64)
        self.d2 = nn.Dense(64, 8)

    def construct(self, x):
        return self.d2(ops.tanh(ops.exp(ops.tanh(self.d1(x)))))


class Net(nn.Cell):
    def __init__(self, recompute):
        super().__init__()
        self.b = Block()
        self.h = nn.Dense(8, 1)
        if recompute:
            self.b.recompute()

    def construct(self, x):
        return self.h(ops.tanh(self.b(x))).sum()


def _train_step(recompute):
    net = Net(recompute)
    for k, p in enumerate(net.trainable_params()):
        p.set_data(ms.Tensor(np.random.RandomState(k).standard_normal(p.shape).astype(np.float32) * 0.3))
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())
    step = ms.jit(lambda x: grad_fn(x))
    x = ms.Tensor(np.random.RandomState(9).standard_normal((128, 8)).astype(np.float32))
    loss, grads = step(x)
    loss2, grads2 = step(x * 0.5)
    (graph,) = step.graphs()
    return (loss, grads, loss2, grads2), graph


def test_recompute_gives_identical_numbers_and_keeps_fewer_bytes():
    (l0, g0, m0, h0), plain = _train_step(False)
    (l1, g1, m1, h1), rec = _train_step(True)
    np.testing.assert_array_equal(l0.asnumpy(), l1.asnumpy())
    np.testing.assert_array_equal(m0.asnumpy(), m1.asnumpy())
    for a, b in zip(g0 + h0, g1 + h1):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)
    # the block's forward is in the graph twice, the second copy marked and not merged back by CSE
    assert sum(n.recomputed for n in rec.nodes) > 0 and sum(n.recomputed for n in plain.nodes) == 0
    assert [n.prim.name for n in rec.nodes].count("Exp") == 2
    # the activations of the block ([128, 64] values) are no longer kept from the forward for the backward
    n_plain, bytes_plain = _live_after_forward(plain)
    n_rec, bytes_rec = _live_after_forward(rec)
    assert n_rec < n_plain
    assert bytes_plain - bytes_rec >= 3 * 128 * 64 * 4


def test_recompute_is_a_no_op_without_gradients():
    net = Net(True)
    f = ms.jit(net)
    x = ms.Tensor(np.ones((4, 8), np.float32))
    np.testing.assert_allclose(f(x).asnumpy(), Net.construct(net, x).asnumpy(), rtol=1e-6)
    assert not any(n.recomputed for n in f.graphs()[0].nodes)


def test_recomputed_cell_weights_get_gradients_when_the_compiled_cell_is_differentiated_from_outside():
    # value_and_grad of a GRAPH_MODE cell / of ms.jit(cell): the compiled call is differentiated as a whole,
    # its tape meets the recomputed cell's weights only inside the recompute node
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = nn.Dense(3, 3, weight_init="ones", bias_init="zeros")
            self.d.recompute()

        def construct(self, x):
            y = self.d(x)
            return (y * y).sum()

    x = ms.Tensor(np.array([[1., 2., 3.]], np.float32))
    want_dw = np.array([[12., 24., 36.]] * 3, np.float32)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        n = Net()
        loss, (dx, (dw, db)) = ms.value_and_grad(n, 0, n.trainable_params())(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert float(loss) == 108.0
    np.testing.assert_array_equal(dx.asnumpy(), [[36., 36., 36.]])
    np.testing.assert_array_equal(dw.asnumpy(), want_dw)
    np.testing.assert_array_equal(db.asnumpy(), [12., 12., 12.])
    n = Net()
    _, (dw, _) = ms.value_and_grad(ms.jit(n), None, n.trainable_params())(x)
    np.testing.assert_array_equal(dw.asnumpy(), want_dw)


class _DropBlock(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(16, 16)
        self.d = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.d(ops.relu(self.fc(x))) * 1.0


@pytest.mark.parametrize("compiled", [False, True])
def test_recomputed_dropout_reuses_the_forward_mask(compiled):
    """The backward pass re-runs a recomputed cell; its dropout must apply the forward's mask (a new draw gave
    gradients of another mask)."""
    x = ms.Tensor(np.random.default_rng(0).uniform(0.5, 1.5, (8, 16)).astype(np.float32))
    ms.set_seed(0)
    block = _DropBlock()
    block.recompute()
    block.set_train(True)

    def loss(x):
        out = block(x)
        return out.sum(), out
    vg = ms.value_and_grad(loss, 0, None, has_aux=True)
    if compiled:
        vg = ms.jit(vg)
    for _ in range(2):
        (_, out), g = vg(x)
        # d out.sum() / dx = W^T (mask / (1 - p) * relu'(fc(x))): rebuild it from the forward's own output
        pre = block.fc(x)
        mask = (out.asnumpy() != 0) * 2.0 * (pre.asnumpy() > 0)
        want = mask @ block.fc.weight.asnumpy()
        np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-5, atol=1e-6)


class _DropIn(nn.Cell):
    """relu(fc(x)) with every pre-activation 0.16, dropout (p=0.5) once in a branch or a loop on a tensor."""

    def __init__(self, where):
        super().__init__()
        self.where = where
        self.d = nn.Dropout(p=0.5)
        self.fc = nn.Dense(16, 16, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        h = ops.relu(self.fc(x))
        if self.where == "if":
            if x.sum() > 0:
                h = self.d(h)
            else:
                h = h * 2.0
        else:
            i = ms.Tensor(0, ms.int32)
            while i < x.shape[0] // 4 + ops.zeros((), ms.int32):
                h = self.d(h)
                i = i + 1
        return (h * 3.0).sum()


@pytest.mark.parametrize("where", ["if", "while"])
def test_dropout_under_tensor_control_flow_uses_its_forward_mask_in_the_gradient(where):
    """The gradient of an If re-runs the taken branch, that of a While each iteration from its pushed values:
    their dropout must apply the forward's masks (pushed with the iteration's values for a loop)."""
    ms.set_seed(0)
    net = _DropIn(where)
    net.set_train()
    x = ms.Tensor(np.full((4, 16), 0.01, np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        vg = ms.value_and_grad(net, None, net.trainable_params())
        for _ in range(3):
            loss, grads = vg(x)
            # loss = 3 * 0.16 * 2 * (kept units); d loss / d bias = 3 * 2 * (kept units)
            kept = float(loss.asnumpy()) / (3 * 0.16 * 2)
            np.testing.assert_allclose(float(grads[1].asnumpy().sum()), 3 * 2 * kept, rtol=1e-4)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
