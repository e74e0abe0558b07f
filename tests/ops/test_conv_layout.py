"""Convolutions with >= 16 output channels run in channels-last memory on the CPU (float32): the numbers, and
the gradients through the layers around them, are those of the channel-first path and of float64."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed._backend.kernels import conv as K


def _net(x, w1, w2):
    """conv (16 out) -> relu -> 2x2 max pool -> conv (stride 2, 32 out) -> relu -> + a residual -> mean."""
    y = ops.relu(ops.conv2d(x, w1, padding=1, pad_mode="pad"))
    p = ops.max_pool2d(y, 2, 2)
    z = ops.relu(ops.conv2d(p, w2, stride=2, padding=1, pad_mode="pad"))
    return (z * z).mean() + (p * p).mean()


def _run(dtype, compiled):
    rs = np.random.RandomState(0)
    x = ms.Tensor(rs.randn(4, 3, 12, 12).astype(dtype))
    w1 = ms.Tensor((rs.randn(16, 3, 3, 3) * 0.3).astype(dtype))
    w2 = ms.Tensor((rs.randn(32, 16, 3, 3) * 0.1).astype(dtype))
    fn = ms.value_and_grad(_net, (0, 1, 2))
    if compiled:
        fn = ms.jit(fn)
    loss, grads = fn(x, w1, w2)
    return [loss.asnumpy()] + [g.asnumpy() for g in grads]


@pytest.mark.parametrize("compiled", [False, True])
def test_channels_last_path_matches_channel_first_and_float64(monkeypatch, compiled):
    nhwc = _run(np.float32, compiled)
    ref64 = _run(np.float64, compiled)
    monkeypatch.setattr(K, "_NHWC_MIN_C", 10 ** 9)
    nchw = _run(np.float32, compiled)
    for a, b, c in zip(nhwc, nchw, ref64):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-5)


def test_channels_last_results_are_plain_nchw_tensors():
    rs = np.random.RandomState(1)
    x = ms.Tensor(rs.randn(2, 3, 6, 5).astype(np.float32))
    w = ms.Tensor(rs.randn(16, 3, 3, 3).astype(np.float32))
    y = ops.conv2d(x, w)
    assert y.shape == (2, 16, 4, 3)
    assert tuple(y._data.stride()) == (192, 1, 48, 16)  # channels-last memory
    a = y.asnumpy()
    ref = np.zeros((2, 16, 4, 3), np.float64)
    xn, wn = x.asnumpy().astype(np.float64), w.asnumpy().astype(np.float64)
    for i in range(4):
        for j in range(3):
            ref[:, :, i, j] = np.einsum("nchw,ochw->no", xn[:, :, i:i + 3, j:j + 3], wn)
    np.testing.assert_allclose(a, ref, rtol=1e-5, atol=1e-5)
    # flattening and reshaping see the logical NCHW order
    np.testing.assert_array_equal(y.reshape(2, -1).asnumpy(), a.reshape(2, -1))
    np.testing.assert_array_equal(y.transpose(0, 2, 3, 1).asnumpy(), a.transpose(0, 2, 3, 1))


def test_data_gradient_layout_follows_the_input_channels():
    # forward and weight gradient NHWC from 16 output channels; the data gradient (input channels) only when
    # the input has >= 16 channels too: 6 -> 16 (LeNet's second conv) gives an NCHW gradient, 16 -> 16 NHWC
    rs = np.random.RandomState(2)
    for c_in, strides in ((6, (384, 64, 8, 1)), (16, (1024, 1, 128, 16))):
        x = ms.Tensor(rs.randn(2, c_in, 8, 8).astype(np.float32))
        w = ms.Tensor((rs.randn(16, c_in, 3, 3) * 0.2).astype(np.float32))
        dy = rs.randn(2, 16, 6, 6).astype(np.float32)
        gx, gw = ms.grad(lambda a, b, dy=dy: (ops.conv2d(a, b) * ms.Tensor(dy)).sum(), (0, 1))(x, w)
        assert tuple(gx._data.stride()) == strides
        xn, wn = x.asnumpy().astype(np.float64), w.asnumpy().astype(np.float64)
        ref = np.zeros_like(xn)
        for i in range(6):
            for j in range(6):
                ref[:, :, i:i + 3, j:j + 3] += np.einsum("no,ochw->nchw", dy[:, :, i, j], wn)
        np.testing.assert_allclose(gx.asnumpy(), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kernel", ["relu_grad_", "add_"])
def test_in_place_kernels_keep_aten_layout_when_operands_differ(kernel):
    """write_in_place's kernels write over their first operand only when both operands share a layout; an NCHW
    gradient meeting an NHWC activation gets a new buffer, as the out-of-place kernel would make."""
    import torch
    from mindseed._backend.kernels import core as KC
    rs = np.random.RandomState(1)
    a = torch.from_numpy(rs.randn(2, 16, 4, 4).astype(np.float32))
    b = torch.from_numpy(rs.randn(2, 16, 4, 4).astype(np.float32))
    fn, ref = (KC.relu_grad_, KC.relu_grad) if kernel == "relu_grad_" else (KC.add_, KC.add)
    for b_layout, in_place in ((torch.contiguous_format, True), (torch.channels_last, False)):
        x, y = a.clone(), b.contiguous(memory_format=b_layout)
        want = ref(x.clone(), y)
        got = fn(x, y)
        assert torch.equal(got, want) and got.stride() == want.stride()
        assert (got.data_ptr() == x.data_ptr()) == in_place
        assert torch.equal(x, want) if in_place else torch.equal(x, a)


@pytest.mark.parametrize("groups,pads,stride", [(1, (1, 1, 1, 1), (1, 1)), (2, (0, 1, 1, 0), (2, 1))])
def test_weight_gradient_nhwc_matches_float64(groups, pads, stride):
    # the NHWC weight gradient hands aten a channels-last dummy weight (never read): same values as the float64
    # (channel-first) path, grouped and with asymmetric padding too
    rs = np.random.RandomState(3)
    x = rs.randn(3, 32, 9, 8)
    dy_shape = (3, 16, (9 + pads[0] + pads[1] - 3) // stride[0] + 1, (8 + pads[2] + pads[3] - 3) // stride[1] + 1)
    dy = rs.randn(*dy_shape)
    kw = dict(weight_shape=(16, 32 // groups, 3, 3), stride=stride, pads=pads, dilation=(1, 1), groups=groups)
    got = K.conv_backprop_filter(ms.Tensor(x.astype(np.float32))._data, ms.Tensor(dy.astype(np.float32))._data, **kw)
    want = K.conv_backprop_filter(ms.Tensor(x)._data, ms.Tensor(dy)._data, **kw)
    assert tuple(got.shape) == (16, 32 // groups, 3, 3)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
