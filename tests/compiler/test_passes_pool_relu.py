"""pool_before_relu: maxpool2x2(relu(c)) as relu(maxpool2x2(c)); the same values and gradients, bit for bit."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def _prims(fn):
    (graph,) = fn.graphs()
    return [n.prim.name for n in graph.nodes]


def _net(x, w, v):
    c = ops.conv2d(x, w, pad_mode="pad", padding=1)
    p = ops.max_pool2d(ops.relu(c), 2, 2)
    return (p * v).sum()


def _data(ties, c_out=4):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = rng.standard_normal((c_out, 3, 3, 3)).astype(np.float32)
    if ties:  # small integers: many equal maxima inside windows, and all-negative windows (maximum 0 after relu)
        x = np.round(x).astype(np.float32)
        w = np.round(w).astype(np.float32)
    v = rng.standard_normal((2, c_out, 3, 3)).astype(np.float32)
    return [ms.Tensor(a) for a in (x, w, v)]


@pytest.mark.parametrize("c_out", [4, 16])  # 16: the convolution and the pool gradient run channels-last
@pytest.mark.parametrize("ties", [False, True])
def test_gradients_are_pynative_bit_for_bit(ties, c_out):
    args = _data(ties, c_out)
    g = ms.jit(ms.value_and_grad(_net, (0, 1)))
    (val, grads) = g(*args)
    (val_e, grads_e) = ms.value_and_grad(_net, (0, 1))(*args)
    assert np.array_equal(val.asnumpy(), val_e.asnumpy())
    for a, b in zip(grads, grads_e):
        assert np.array_equal(a.asnumpy(), b.asnumpy())
    names = _prims(g)
    relu_grad = next(i for i, n in enumerate(names) if n.startswith("ReluGrad"))   # ReluGrad(Inplace)
    assert names.index("MaxPool2x2") < names.index("ReLU") and relu_grad < names.index("MaxPool2x2Grad")
    if ties:  # the data really has tied and non-positive windows
        c = ops.conv2d(args[0], args[1], pad_mode="pad", padding=1).asnumpy()
        win = c.reshape(2, c_out, 3, 2, 3, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, c_out, 3, 3, 4)
        top = win.max(-1, keepdims=True)
        assert ((win == top).sum(-1) > 1)[top[..., 0] > 0].any() and (top <= 0).any()


def test_forward_only_pools_first():
    x, w, _ = _data(False)
    f = ms.jit(lambda x, w: ops.max_pool2d(ops.relu(ops.conv2d(x, w)), 2, 2))
    out = f(x, w).asnumpy()
    ref = ops.max_pool2d(ops.relu(ops.conv2d(x, w)), 2, 2).asnumpy()
    assert np.array_equal(out, ref)
    names = _prims(f)
    assert names.index("MaxPool2x2") < names.index("ReLU")


def test_rectified_value_read_elsewhere_is_left_alone():
    x, w, v = _data(False)

    def h(x, w):
        r = ops.relu(ops.conv2d(x, w, pad_mode="pad", padding=1))
        return (ops.max_pool2d(r, 2, 2) * v).sum() + r.mean()
    g = ms.jit(ms.grad(h, (0, 1)))
    got = g(x, w)
    want = ms.grad(h, (0, 1))(x, w)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-6)
    names = _prims(g)
    assert names.index("MaxPool2x2") > min(i for i, n in enumerate(names) if n.startswith("ReLU"))
