"""jit_level='O1': the generated graph code handed to torch's inductor gives the numbers of O0."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops


class _MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16, weight_init="normal")
        self.fc2 = nn.Dense(16, 3, weight_init="normal")
        self.act = nn.GELU()

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


def _train(level, steps=4):
    ms.set_seed(0)
    net = _MLP()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    @ms.jit(jit_level=level)
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss

    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal((32, 8)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 3, 32).astype(np.int32))
    return [float(step(x, y).asnumpy()) for _ in range(steps)], step


def test_o1_training_matches_o0():
    ref, _ = _train("O0")
    got, step = _train("O1")
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
    assert len(step.cache) == 1 and ref[-1] < ref[0]
    (entry,) = step.cache.values()
    assert hasattr(entry.run_fn, "_torchdynamo_orig_callable")     # really handed to torch.compile
    assert "k_Dense" in entry.source


def test_o1_from_context_with_print_inside(capsys):
    @ms.jit
    def f(x):
        y = ops.exp(x) * 2 + 1
        print("y is", y)
        return ops.sin(y).sum()

    x = ms.Tensor(np.array([0.5, -1.0], np.float32))
    ms.set_context(jit_config={"jit_level": "O1"})
    try:
        first = f(x)
        second = f(x)
    finally:
        ms.set_context(jit_config={"jit_level": "O0"})
    expect = np.sin(np.exp(np.array([0.5, -1.0])) * 2 + 1).sum()
    np.testing.assert_allclose([first.asnumpy(), second.asnumpy()], [expect, expect], rtol=1e-5)
    assert capsys.readouterr().out.count("y is") == 2


def test_bad_jit_level():
    with pytest.raises(ValueError, match="jit_level"):
        ms.jit(lambda x: x, jit_level="O9")


def test_o1_gather_with_negative_indices_is_one_graph():
    import torch._dynamo

    @ms.jit(jit_level="O1")
    def f(table, idx):
        return ops.gather(table, idx, 0).sum(axis=1)

    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    idx = np.array([0, -1, 2, -4], np.int32)
    f(ms.Tensor(table), ms.Tensor(idx))            # the first call traces; the compiled code runs from the next
    torch._dynamo.utils.counters.clear()
    for ids in (idx, np.array([3, 1, 0, 2], np.int32)):
        got = f(ms.Tensor(table), ms.Tensor(ids)).asnumpy()
        np.testing.assert_array_equal(got, table[ids].sum(axis=1))
    # the negative-index wrap is computed in the graph, not decided by a Python bool (a graph break)
    assert torch._dynamo.utils.counters["stats"]["unique_graphs"] == 1
    assert not torch._dynamo.utils.counters["graph_break"]


def test_o1_convolution_gradients_stay_channels_last():
    """Under inductor the NHWC data gradient gets an NHWC dummy input, so oneDNN reorders no activation."""
    from torch.profiler import ProfilerActivity, profile

    def f(x, w1, w2):
        h = ops.relu(ops.conv2d(x, w1, padding=1, pad_mode="pad"))
        return ops.relu(ops.conv2d(h, w2, padding=1, pad_mode="pad")).mean()

    rs = np.random.RandomState(0)
    args = [ms.Tensor(rs.randn(*s).astype(np.float32) * 0.3) for s in ((4, 16, 12, 12), (16, 16, 3, 3), (16, 16, 3, 3))]
    want = [t.asnumpy() for t in ms.jit(ms.grad(f, (0, 1, 2)))(*args)]
    g = ms.jit(ms.grad(f, (0, 1, 2)), jit_level="O1")
    for _ in range(2):
        got = [t.asnumpy() for t in g(*args)]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        g(*args)
    reorders = [e for e in prof.events() if e.name in ("aten::contiguous", "aten::clone")
                and e.input_shapes and list(e.input_shapes[0]) == [4, 16, 12, 12]]
    assert not reorders
