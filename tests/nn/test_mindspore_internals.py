"""Internals of MindSpore's nn layer that code built on it uses: layer primitives, the child tables, optimizer
attributes (docs/compat-private-names.md)."""
import copy

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn


def _x(*shape):
    return ms.Tensor(np.random.default_rng(0).random(shape, dtype=np.float32))


@pytest.mark.parametrize("kw", [dict(pad_mode="same", stride=2), dict(pad_mode="pad", padding=(1, 2, 0, 1), stride=2,
                                                                       dilation=2),
                                dict(pad_mode="valid", group=3, has_bias=True)])
def test_conv2d_primitive_attribute_is_the_layer_without_bias(kw):
    x = _x(2, 3, 9, 9)
    layer = nn.Conv2d(3, 6, 3, **kw)
    out = layer.conv2d(x, layer.weight).asnumpy()
    if layer.has_bias:
        out = out + layer.bias.asnumpy()[None, :, None, None]
    np.testing.assert_allclose(out, layer(x).asnumpy(), rtol=1e-6, atol=1e-6)
    assert layer.conv2d.name == "Conv2D" and layer.conv2d is layer.conv2d      # built once


def test_weight_standardised_conv_through_the_primitive_matches_numpy():
    class StdConv(nn.Conv2d):
        def construct(self, x):
            w = self.weight
            w = (w - w.mean((1, 2, 3), keep_dims=True)) / ms.ops.sqrt(w.var((1, 2, 3), keepdims=True) + 1e-10)
            return self.conv2d(x, w)
    x = _x(1, 2, 4, 4)
    layer = StdConv(2, 3, 3, pad_mode="valid")
    w = layer.weight.asnumpy().astype(np.float64)
    w = (w - w.mean((1, 2, 3), keepdims=True)) / np.sqrt(w.var((1, 2, 3), keepdims=True) + 1e-10)
    xn = x.asnumpy().astype(np.float64)
    ref = np.zeros((1, 3, 2, 2))
    for o in range(3):
        for i in range(2):
            for j in range(2):
                ref[0, o, i, j] = (xn[0, :, i:i + 3, j:j + 3] * w[o]).sum()
    np.testing.assert_allclose(layer(x).asnumpy(), ref, rtol=1e-4, atol=1e-5)


def test_conv1d_and_conv3d_primitive_attributes():
    x1 = _x(2, 3, 7)
    c1 = nn.Conv1d(3, 4, 3, pad_mode="pad", padding=1)
    np.testing.assert_allclose(c1.conv2d(x1.expand_dims(2), c1.weight).asnumpy()[:, :, 0], c1(x1).asnumpy(),
                               rtol=1e-6, atol=1e-6)
    x3 = _x(1, 2, 5, 5, 5)
    c3 = nn.Conv3d(2, 3, 3, stride=2)
    np.testing.assert_allclose(c3.conv3d(x3, c3.weight).asnumpy(), c3(x3).asnumpy(), rtol=1e-6, atol=1e-6)


def test_layer_norm_primitive_attribute_returns_mean_and_variance():
    x = _x(2, 3, 5)
    ln = nn.LayerNorm((5,), epsilon=1e-5)
    y, mean, var = ln.layer_norm(x, ln.gamma, ln.beta)
    xn = x.asnumpy().astype(np.float64)
    np.testing.assert_allclose(mean.asnumpy()[..., 0], xn.mean(-1), rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy()[..., 0], xn.var(-1), rtol=1e-3, atol=1e-6)
    np.testing.assert_allclose(y.asnumpy(), ln(x).asnumpy(), rtol=1e-6, atol=1e-6)


class _Two(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = nn.Dense(2, 3)
        self.act = nn.ReLU()

    def construct(self, x):
        return self.act(self.a(x))


def test_assigning_into_cells_table_is_seen_through_the_attribute():
    net = _Two()
    new = nn.Dense(2, 4)
    net._cells["a"] = new                     # how network-rewriting tools replace a child
    assert net.a is new and net(ms.ops.ones((1, 2))).shape == (1, 4)
    assert [n for n, _ in net.cells_and_names()] == ["", "a", "act"]
    del net._cells["act"]
    assert not hasattr(net, "act")
    p = ms.Parameter(ms.Tensor([2.0]), name="w")
    net._params["w"] = p
    assert net.w is p


def test_copies_keep_their_own_tables_in_step_with_their_attributes():
    net = _Two()
    deep, shallow = copy.deepcopy(net), copy.copy(net)
    deep._cells["a"] = nn.Dense(2, 5)
    shallow._cells["a"] = nn.Dense(2, 6)
    assert (deep.a.out_channels, shallow.a.out_channels, net.a.out_channels) == (5, 6, 3)


def test_user_written_optimizer_uses_the_base_class_step_counter():
    class MySGD(nn.Optimizer):
        def construct(self, grads):
            lr = self.get_lr()
            self.assignadd(self.global_step, self.global_step_increase_tensor)
            return self.hyper_map(lambda p, g: ms.ops.assign(p, p - lr * g), self.parameters, grads)
    w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    opt = MySGD(0.5, [w])
    opt((ms.Tensor([1.0, -2.0]),))
    opt((ms.Tensor([1.0, -2.0]),))
    np.testing.assert_allclose(w.asnumpy(), [0.0, 4.0])
    assert int(opt.global_step.asnumpy()[0]) == 2


def test_optimizer_grad_sparse_indices_deduplicate():
    """On CPU the gradients pass as they are; off CPU with `unique`, a RowTensor's repeated rows are summed."""
    p = ms.Parameter(ms.Tensor(np.zeros((4, 2), np.float32)), name="p")
    opt = nn.SGD([p], 0.1)
    rows = ms.RowTensor(ms.Tensor(np.array([1, 3, 1], np.int32)),
                        ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)), (4, 2))
    assert opt._grad_sparse_indices_deduplicate((rows,))[0] is rows
    opt._target = "GPU"
    out = opt._grad_sparse_indices_deduplicate((rows,))[0]
    dense = np.zeros((4, 2), np.float32)
    np.add.at(dense, out.indices.asnumpy(), out.values.asnumpy())
    np.testing.assert_array_equal(dense, [[0, 0], [6, 8], [0, 0], [3, 4]])
    assert sorted(out.indices.asnumpy().tolist()) == [1, 3] and out.dense_shape == (4, 2)
    opt.unique = False
    assert opt._grad_sparse_indices_deduplicate((rows,))[0] is rows
