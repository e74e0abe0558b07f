"""fuse_relu: relu(a + b) in one kernel, ReLU written over a fresh buffer nothing else reads."""
import numpy as np

import mindseed as ms
from mindseed import nn, ops


def _prims(fn):
    (graph,) = fn.graphs()
    return [n.prim.name for n in graph.nodes]


def _block(x, w1, w2):
    h = ops.relu(ops.matmul(x, w1))            # a matmul's fresh result: ReLU over it in place
    return ops.relu(ops.matmul(h, w2) + h)     # the residual join: one AddReLU


def _block_np(x, w1, w2):
    h = np.maximum(x @ w1, 0)
    return np.maximum(h @ w2 + h, 0)


def _data(seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in ((4, 6), (6, 6), (6, 6))]


def test_forward_fuses_and_matches_pynative():
    xs = [ms.Tensor(a) for a in _data()]
    f = ms.jit(_block)
    got = f(*xs).asnumpy()
    assert np.array_equal(got, _block(*xs).asnumpy())
    np.testing.assert_allclose(got, _block_np(*_data()), rtol=1e-5, atol=1e-6)
    names = _prims(f)
    assert names.count("AddReLU") == 1 and names.count("ReLUInplace") == 1 and "ReLU" not in names


def test_gradients_match_pynative_and_finite_differences():
    x, w1, w2 = _data(1, np.float64)
    x[np.abs(x) < 0.05] = 0.3      # keep finite differences away from the kinks
    c = np.random.default_rng(2).standard_normal((4, 6))

    def loss(x, w1, w2):
        return (_block(x, w1, w2) * ms.Tensor(c)).sum()
    args = [ms.Tensor(a) for a in (x, w1, w2)]
    g = ms.jit(ms.grad(loss, grad_position=(0, 1, 2)))
    got = [t.asnumpy() for t in g(*args)]
    want = [t.asnumpy() for t in ms.grad(loss, grad_position=(0, 1, 2))(*args)]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    eps = 1e-6
    for k, base in enumerate((x, w1, w2)):
        fd = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            hi, lo = [a.copy() for a in (x, w1, w2)], [a.copy() for a in (x, w1, w2)]
            hi[k][i] += eps
            lo[k][i] -= eps
            fd[i] = ((_block_np(*hi) * c).sum() - (_block_np(*lo) * c).sum()) / (2 * eps)
        np.testing.assert_allclose(got[k], fd, rtol=1e-5, atol=1e-6)
    assert "AddReLU" in _prims(g) and "ReLUInplace" in _prims(g)
    # the backward pass's ReLU gradients and join run in place (write_in_place), bit for bit as in PyNative
    assert "ReluGradInplace" in _prims(g) and "AddInplace" in _prims(g)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_values_read_elsewhere_are_not_overwritten():
    def f(x, w):
        y = ops.matmul(x, w)
        s = y + 1.0
        return ops.relu(y), y * 2, ops.relu(s), s, ops.relu(x)   # y, s and x have other readers
    x, w, _ = _data(3)
    fj = ms.jit(f)
    got = [t.asnumpy() for t in fj(ms.Tensor(x), ms.Tensor(w))]
    y = x @ w
    for a, b in zip(got, (np.maximum(y, 0), y * 2, np.maximum(y + 1, 0), y + 1, np.maximum(x, 0))):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    names = _prims(fj)
    assert "ReLUInplace" not in names and "AddReLU" not in names


def test_graph_inputs_are_never_written():
    x = ms.Tensor(np.array([-1.0, 2.0, -3.0], np.float32))
    out = ms.jit(lambda t: ops.relu(t))(x)
    assert x.asnumpy().tolist() == [-1.0, 2.0, -3.0] and out.asnumpy().tolist() == [0.0, 2.0, 0.0]


def test_broadcast_add_is_not_fused_but_relu_runs_in_place():
    f = ms.jit(lambda x, b: ops.relu(ops.matmul(x, x.T) + b))
    x, b = np.ones((3, 4), np.float32), np.array([-5.0, 0.0, 5.0], np.float32)
    got = f(ms.Tensor(x), ms.Tensor(b)).asnumpy()
    np.testing.assert_array_equal(got, np.maximum(x @ x.T + b, 0))
    names = _prims(f)
    assert "AddReLU" not in names and names.count("ReLUInplace") == 1


def _train_step(grad_fn, opt):
    """One training step of `grad_fn` (value_and_grad) and `opt` (bound here, not read from a loop's variables)."""
    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss
    return step


def test_resnet_block_in_graph_mode_trains_as_pynative():
    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(16, 16, 3, pad_mode="pad", padding=1, has_bias=False)
            self.bn1 = nn.BatchNorm2d(16)
            self.conv2 = nn.Conv2d(16, 16, 3, pad_mode="pad", padding=1, has_bias=False)
            self.bn2 = nn.BatchNorm2d(16)
            self.relu = nn.ReLU()

        def construct(self, x):
            h = self.relu(self.bn1(self.conv1(x)))
            h = self.relu(self.bn2(self.conv2(h)) + x)
            return self.relu(self.bn2(self.conv2(h)) + h).mean()   # two residual joins

    x = ms.Tensor(np.random.default_rng(4).standard_normal((2, 16, 6, 6)).astype(np.float32))
    losses = {}
    for jit in (False, True):
        ms.set_seed(0)
        net = Block()
        net.set_train()
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        step = _train_step(ms.value_and_grad(net, None, opt.parameters), opt)
        if jit:
            step = ms.jit(step)
        losses[jit] = [float(step(x).asnumpy()) for _ in range(4)]
        if jit:
            names = _prims(step)
            assert names.count("AddReLU") == 2 and names.count("ReLUInplace") == 1
            # and the backward joins and ReLU gradients written in place (write_in_place)
            assert "ReluGradInplace" in names and "AddInplace" in names
    np.testing.assert_allclose(losses[True], losses[False], rtol=1e-6, atol=1e-7)
