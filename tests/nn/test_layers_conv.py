"""Convolution, pooling and padding layers: values vs numpy references of MindSpore's pad modes (the
references were checked against MindSpore 2.10), input/weight gradients vs finite differences, repr, errors."""
import itertools

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from _harness import ErrorSpec, make_error_tests
from _layer_checks import check_cell_grad, to64

R = np.random.RandomState(0)


def rnd(*shape):
    return R.standard_normal(shape)


def same_pads(sizes, kernel, stride, dilation):
    pads = []
    for n, k, s, d in zip(sizes, kernel, stride, dilation):
        total = max((-(-n // s) - 1) * s + d * (k - 1) + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def np_conv(x, w, stride, pads, dilation, groups=1, bias=None):
    """N-d cross-correlation with explicit (lo, hi) pads per spatial dim."""
    nd = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + list(pads))
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    ks = w.shape[2:]
    out_sp = [(x.shape[2 + i] - dilation[i] * (ks[i] - 1) - 1) // stride[i] + 1 for i in range(nd)]
    out = np.zeros((n, o) + tuple(out_sp))
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for kidx in itertools.product(*[range(k) for k in ks]):
            sl = tuple(slice(kidx[i] * dilation[i], kidx[i] * dilation[i] + stride[i] * (out_sp[i] - 1) + 1, stride[i])
                       for i in range(nd))
            patch = xs[(slice(None), slice(None)) + sl]
            wk = w[(slice(g * og, (g + 1) * og), slice(None)) + kidx]
            out[:, g * og:(g + 1) * og] += np.einsum("nc...,oc->no...", patch, wk)
    if bias is not None:
        out += bias.reshape((1, -1) + (1,) * nd)
    return out


def np_conv_transpose(x, w, stride, pads, dilation, out_sizes, groups=1):
    """The input gradient of np_conv for an input of `out_sizes` (MindSpore's Conv2DBackpropInput)."""
    nd = x.ndim - 2
    n, cin = x.shape[:2]
    cout_g = w.shape[1]
    ks = w.shape[2:]
    full = [(x.shape[2 + i] - 1) * stride[i] + dilation[i] * (ks[i] - 1) + 1 for i in range(nd)]
    big = [max(full[i], pads[i][0] + out_sizes[i]) for i in range(nd)]
    out = np.zeros((n, cout_g * groups) + tuple(big))
    cin_g = cin // groups
    for g in range(groups):
        xs = x[:, g * cin_g:(g + 1) * cin_g]
        for kidx in itertools.product(*[range(k) for k in ks]):
            sl = tuple(slice(kidx[i] * dilation[i], kidx[i] * dilation[i] + stride[i] * (x.shape[2 + i] - 1) + 1,
                             stride[i]) for i in range(nd))
            wk = w[(slice(g * cin_g, (g + 1) * cin_g), slice(None)) + kidx]
            out[(slice(None), slice(g * cout_g, (g + 1) * cout_g)) + sl] += np.einsum("nc...,co->no...", xs, wk)
    crop = tuple(slice(pads[i][0], pads[i][0] + out_sizes[i]) for i in range(nd))
    return out[(slice(None), slice(None)) + crop]


# ---------------------------------------------------------------- convolutions
@pytest.mark.parametrize("kw,shape", [
    (dict(), (1, 2, 5, 5)),
    (dict(stride=2, has_bias=True), (2, 2, 6, 5)),
    (dict(pad_mode="valid", dilation=2), (1, 2, 7, 6)),
    (dict(pad_mode="pad", padding=(1, 0, 2, 1), kernel_size=(3, 2)), (1, 2, 5, 5)),
    (dict(pad_mode="pad", padding=1, stride=(2, 1)), (1, 2, 5, 4)),
])
def test_conv2d(kw, shape):
    kw = dict(kw)
    k = kw.pop("kernel_size", 3)
    cell = to64(nn.Conv2d(2, 3, k, **kw))
    x = rnd(*shape)
    ks = cell.kernel_size
    stride, dil = cell.stride, cell.dilation
    mode = cell.pad_mode
    if mode == "same":
        pads = same_pads(shape[2:], ks, stride, dil)
    elif mode == "valid":
        pads = [(0, 0), (0, 0)]
    else:
        p = cell.padding if isinstance(cell.padding, tuple) else (cell.padding,) * 4
        pads = [(p[0], p[1]), (p[2], p[3])]
    bias = cell.bias.asnumpy() if cell.has_bias else None
    want = np_conv(x, cell.weight.asnumpy(), stride, pads, dil, 1, bias)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=1e-10, atol=1e-12)
    check_cell_grad(cell, [x])


def test_conv2d_groups_and_dtype():
    cell = to64(nn.Conv2d(4, 2, 3, group=2, pad_mode="valid"))
    x = rnd(1, 4, 5, 5)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(),
                               np_conv(x, cell.weight.asnumpy(), (1, 1), [(0, 0)] * 2, (1, 1), 2), rtol=1e-10)
    assert cell.weight.shape == (2, 2, 3, 3)
    y = nn.Conv2d(1, 2, 3)(ms.ops.ones((1, 1, 4, 4)))
    assert y.dtype == ms.float32 and y.shape == (1, 2, 4, 4)


def test_conv1d_weight_layout_and_values():
    cell = to64(nn.Conv1d(2, 3, 3, stride=2, has_bias=True))
    assert cell.weight.shape == (3, 2, 1, 3)  # MindSpore's 4-D layout
    x = rnd(2, 2, 7)
    w = cell.weight.asnumpy()[:, :, 0]
    want = np_conv(x, w, (2,), same_pads((7,), (3,), (2,), (1,)), (1,), 1, cell.bias.asnumpy())
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=1e-10)
    check_cell_grad(cell, [x])
    padded = to64(nn.Conv1d(2, 3, 3, pad_mode="pad", padding=2, dilation=2))
    want = np_conv(x, padded.weight.asnumpy()[:, :, 0], (1,), [(2, 2)], (2,))
    np.testing.assert_allclose(padded(ms.Tensor(x)).asnumpy(), want, rtol=1e-10)
    w3 = ms.Tensor(np.ones((3, 2, 3), np.float32))
    assert nn.Conv1d(2, 3, 3, weight_init=w3).weight.shape == (3, 2, 1, 3)


def test_conv3d():
    cell = to64(nn.Conv3d(2, 2, 3, stride=2, has_bias=True))
    x = rnd(1, 2, 4, 5, 3)
    pads = same_pads((4, 5, 3), (3, 3, 3), (2, 2, 2), (1, 1, 1))
    want = np_conv(x, cell.weight.asnumpy(), (2, 2, 2), pads, (1, 1, 1), 1, cell.bias.asnumpy())
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=1e-10)
    check_cell_grad(to64(nn.Conv3d(1, 1, 2, pad_mode="valid")), [rnd(1, 1, 3, 3, 2)])


@pytest.mark.parametrize("kw,shape,out", [
    (dict(stride=2), (1, 2, 4, 3), (8, 6)),
    (dict(stride=2, pad_mode="valid"), (1, 2, 4, 3), (9, 7)),
    (dict(stride=2, pad_mode="pad", padding=(1, 0, 2, 1)), (1, 2, 4, 3), (8, 4)),
    (dict(stride=3, kernel_size=2), (1, 2, 3, 3), (9, 9)),
    (dict(stride=2, group=2), (1, 2, 3, 3), (6, 6)),
])
def test_conv2d_transpose(kw, shape, out):
    kw = dict(kw)
    k = kw.pop("kernel_size", 3)
    cell = to64(nn.Conv2dTranspose(2, 4, k, has_bias=True, **kw))
    assert cell.weight.shape == (2, 4 // cell.group, k, k)
    x = rnd(*shape)
    ks, stride = cell.kernel_size, cell.stride
    if cell.pad_mode == "same":
        pads = same_pads(out, ks, stride, (1, 1))
    elif cell.pad_mode == "valid":
        pads = [(0, 0), (0, 0)]
    else:
        p = cell.padding
        pads = [(p[0], p[1]), (p[2], p[3])]
    want = np_conv_transpose(x, cell.weight.asnumpy(), stride, pads, (1, 1), out, cell.group)
    want += cell.bias.asnumpy().reshape(1, -1, 1, 1)
    got = cell(ms.Tensor(x)).asnumpy()
    assert got.shape == (1, 4) + out
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    check_cell_grad(cell, [x])


def test_conv2d_transpose_output_padding_appends_zeros():
    cell = to64(nn.Conv2dTranspose(2, 3, 3, stride=2, pad_mode="pad", padding=1, output_padding=1, has_bias=True))
    x = rnd(1, 2, 4, 3)
    y = cell(ms.Tensor(x)).asnumpy()
    assert y.shape == (1, 3, 8, 6)
    base = np_conv_transpose(x, cell.weight.asnumpy(), (2, 2), [(1, 1), (1, 1)], (1, 1), (7, 5))
    np.testing.assert_allclose(y[:, :, :7, :5], base + cell.bias.asnumpy().reshape(1, -1, 1, 1), rtol=1e-10)
    assert np.all(y[:, :, 7, :] == 0) and np.all(y[:, :, :, 5] == 0)  # MindSpore pads after the bias


def test_conv1d_and_conv3d_transpose():
    c1 = to64(nn.Conv1dTranspose(2, 3, 3, stride=2))
    assert c1.weight.shape == (2, 3, 1, 3)
    x = rnd(1, 2, 5)
    want = np_conv_transpose(x, c1.weight.asnumpy()[:, :, 0], (2,), same_pads((10,), (3,), (2,), (1,)), (1,), (10,))
    np.testing.assert_allclose(c1(ms.Tensor(x)).asnumpy(), want, rtol=1e-10)
    check_cell_grad(c1, [x])
    c3 = to64(nn.Conv3dTranspose(2, 2, 3, stride=2, pad_mode="pad", padding=1, output_padding=1))
    x3 = rnd(1, 2, 2, 3, 2)
    y = c3(ms.Tensor(x3)).asnumpy()
    assert y.shape == (1, 2, 4, 6, 4)
    # a real output_padding: the extra row holds the contributions cut by the padding
    want = np_conv_transpose(x3, c3.weight.asnumpy(), (2,) * 3, [(1, 0)] * 3, (1,) * 3, (4, 6, 4))
    np.testing.assert_allclose(y, want, rtol=1e-10)
    check_cell_grad(to64(nn.Conv3dTranspose(1, 1, 2, stride=2)), [rnd(1, 1, 2, 2, 1)])


def test_conv_init_defaults_and_repr():
    c = nn.Conv2d(3, 4, 3)
    assert c.bias is None and c.weight.shape == (4, 3, 3, 3) and c.pad_mode == "same"
    text = repr(c)
    assert text.startswith("Conv2d(input_channels=3, output_channels=4, kernel_size=(3, 3), stride=(1, 1), "
                           "pad_mode=same, padding=0, dilation=(1, 1), group=1, has_bias=False, weight_init=<")
    assert text.endswith("HeUniform object at " + text.split("HeUniform object at ")[1])
    assert text.endswith(", bias_init=None, format=NCHW)")
    assert repr(nn.Conv2d(1, 1, 3, weight_init="ones")).endswith("weight_init=ones, bias_init=None, format=NCHW)")
    assert "padding=(0, 0, 0, 0)" in repr(nn.Conv1d(2, 3, 3))
    assert "format=NCDHW" in repr(nn.Conv3d(2, 2, 3))
    ms.set_seed(1)
    w = nn.Conv2d(8, 4, 3, has_bias=True)
    fan_in = 8 * 9
    assert np.abs(w.weight.asnumpy()).max() <= 1 / np.sqrt(fan_in) + 1e-7
    assert np.abs(w.bias.asnumpy()).max() <= 1 / np.sqrt(fan_in) + 1e-7


# ---------------------------------------------------------------- pooling
def np_pool(x, kernel, stride, pads, op, dilation=None, ceil=False, count_pad=True, divisor=None):
    nd = len(kernel)
    dilation = dilation or (1,) * nd
    pad_val = -np.inf if op == "max" else 0.0
    xp = np.pad(x, [(0, 0), (0, 0)] + list(pads), constant_values=pad_val)
    ones = np.pad(np.ones(x.shape[2:]), list(pads))
    sizes = []
    for i in range(nd):
        span = xp.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1
        n = (-(-span // stride[i]) if ceil else span // stride[i]) + 1
        if ceil and (n - 1) * stride[i] >= x.shape[2 + i] + pads[i][0]:
            n -= 1
        sizes.append(n)
    out = np.zeros(x.shape[:2] + tuple(sizes))
    for idx in itertools.product(*[range(n) for n in sizes]):
        sl = tuple(slice(idx[i] * stride[i], idx[i] * stride[i] + dilation[i] * (kernel[i] - 1) + 1, dilation[i])
                   for i in range(nd))
        win = xp[(slice(None), slice(None)) + sl]
        flat = win.reshape(win.shape[:2] + (-1,))
        if op == "max":
            out[(slice(None), slice(None)) + idx] = flat.max(-1)
        else:
            real = ones[sl].sum()
            cells = [min(idx[i] * stride[i] + kernel[i], xp.shape[2 + i]) - idx[i] * stride[i] for i in range(nd)]
            div = divisor or (np.prod(cells) if count_pad else real)
            out[(slice(None), slice(None)) + idx] = flat.sum(-1) / div
    return out


@pytest.mark.parametrize("cell,shape,kernel,stride,pads,extra", [
    (nn.MaxPool2d(2, 2), (1, 2, 5, 5), (2, 2), (2, 2), [(0, 0)] * 2, {}),
    (nn.MaxPool2d(3, 2, "same"), (1, 2, 6, 5), (3, 3), (2, 2), "same", {}),
    (nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True), (1, 2, 6, 5), (3, 3), (2, 2), [(1, 1)] * 2,
     dict(ceil=True)),
    (nn.MaxPool2d(2, 1, pad_mode="pad", dilation=2), (1, 2, 6, 5), (2, 2), (1, 1), [(0, 0)] * 2,
     dict(dilation=(2, 2))),
    (nn.MaxPool1d(3, 2, "same"), (1, 2, 7), (3,), (2,), "same", {}),
    (nn.MaxPool3d(2, 2, "same"), (1, 2, 5, 4, 3), (2, 2, 2), (2, 2, 2), "same", {}),
    (nn.AvgPool2d(2, 2), (1, 2, 5, 5), (2, 2), (2, 2), [(0, 0)] * 2, {}),
    (nn.AvgPool2d(3, 2, "same"), (1, 2, 6, 5), (3, 3), (2, 2), "same", dict(count_pad=False)),
    (nn.AvgPool2d(3, 2, pad_mode="pad", padding=1), (1, 2, 6, 5), (3, 3), (2, 2), [(1, 1)] * 2, {}),
    (nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, count_include_pad=False), (1, 2, 6, 5), (3, 3), (2, 2),
     [(1, 1)] * 2, dict(count_pad=False)),
    (nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, divisor_override=2), (1, 2, 6, 5), (3, 3), (2, 2),
     [(1, 1)] * 2, dict(divisor=2)),
    (nn.AvgPool1d(3, 2, "same"), (1, 2, 7), (3,), (2,), "same", dict(count_pad=False)),
    (nn.AvgPool1d(3, 2), (2, 7), (3,), (2,), [(0, 0)], {}),
    (nn.AvgPool3d(2, 2, "same"), (1, 2, 5, 4, 3), (2, 2, 2), (2, 2, 2), "same", {}),
])
def test_pools(cell, shape, kernel, stride, pads, extra):
    x = rnd(*shape)
    batched = x if len(shape) == len(kernel) + 2 else x[None]
    if pads == "same":
        pads = same_pads(batched.shape[2:], kernel, stride, (1,) * len(kernel))
    op = "max" if "Max" in type(cell).__name__ else "avg"
    want = np_pool(batched, kernel, stride, pads, op, **extra)
    if batched is not x:
        want = want[0]
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), want, rtol=1e-10, atol=1e-12)
    check_cell_grad(cell, [x])


def test_maxpool_return_indices_and_repr():
    x = ms.Tensor(np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5))
    out, idx = nn.MaxPool2d(3, 1, pad_mode="pad", padding=1, return_indices=True)(x)
    assert idx.dtype == ms.int64
    np.testing.assert_array_equal(idx.asnumpy()[0, 0, 0], [6, 7, 8, 9, 9])  # flat indices of the unpadded plane
    np.testing.assert_array_equal(out.asnumpy()[0, 0, -1], [21, 22, 23, 24, 24])
    assert repr(nn.MaxPool2d(2, 2)) == "MaxPool2d(kernel_size=2, stride=2, pad_mode=VALID)"
    assert repr(nn.MaxPool2d(2, 2, pad_mode="pad", padding=1)) == "MaxPool2d(kernel_size=2, stride=2, pad_mode=PAD)"
    assert repr(nn.MaxPool1d(2, 2)) == "MaxPool1d(kernel_size=(1, 2), stride=(1, 2), pad_mode=VALID)"
    assert repr(nn.MaxPool1d(2, 2, "pad")) == "MaxPool1d(kernel_size=(1, 1, 2), stride=(1, 1, 2), pad_mode=PAD)"
    assert repr(nn.AvgPool1d(2, 2)) == "AvgPool1d(kernel_size=(1, 2), stride=(1, 2), pad_mode=VALID)"
    assert repr(nn.AvgPool3d(2, 2)) == "AvgPool3d(kernel_size=2, stride=2, pad_mode=VALID)"
    assert nn.MaxPool2d((2, 3), 2).kernel_size == (2, 3)


def test_adaptive_lp_unpool():
    x = rnd(1, 2, 6)
    np.testing.assert_allclose(nn.AdaptiveAvgPool1d(2)(ms.Tensor(x)).asnumpy(), x.reshape(1, 2, 2, 3).mean(-1))
    np.testing.assert_allclose(nn.AdaptiveMaxPool1d(3)(ms.Tensor(x)).asnumpy(), x.reshape(1, 2, 3, 2).max(-1))
    x2 = rnd(1, 2, 4, 6)
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d((2, 3))(ms.Tensor(x2)).asnumpy(),
                               x2.reshape(1, 2, 2, 2, 3, 2).mean((3, 5)))
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d((None, 3))(ms.Tensor(x2)).asnumpy(),
                               x2.reshape(1, 2, 4, 3, 2).mean(-1))
    out, idx = nn.AdaptiveMaxPool2d(2, return_indices=True)(ms.Tensor(x2))
    np.testing.assert_allclose(out.asnumpy(), x2.reshape(1, 2, 2, 2, 2, 3).max((3, 5)))
    x3 = rnd(1, 1, 4, 4, 2)
    np.testing.assert_allclose(nn.AdaptiveAvgPool3d((2, 2, 1))(ms.Tensor(x3)).asnumpy(),
                               x3.reshape(1, 1, 2, 2, 2, 2, 1, 2).mean((3, 5, 7)))
    np.testing.assert_allclose(nn.AdaptiveMaxPool3d(1)(ms.Tensor(x3)).asnumpy(), x3.max((2, 3, 4), keepdims=True))
    xp = np.abs(rnd(1, 2, 5, 5))
    want = np.sqrt(np_pool(xp ** 2, (2, 2), (2, 2), [(0, 0)] * 2, "avg") * 4)
    np.testing.assert_allclose(nn.LPPool2d(2, 2, 2)(ms.Tensor(xp)).asnumpy(), want)
    want1 = np.sqrt(np_pool(xp[:, :, 0] ** 2, (3,), (2,), [(0, 0)], "avg") * 3)
    np.testing.assert_allclose(nn.LPPool1d(2, 3, 2)(ms.Tensor(xp[:, :, 0])).asnumpy(), want1)
    check_cell_grad(nn.AdaptiveAvgPool2d(2), [x2])
    check_cell_grad(nn.LPPool2d(2, 2, 2), [xp])
    pooled, ind = nn.MaxPool2d(2, 2, pad_mode="pad", return_indices=True)(ms.Tensor(x2))
    up = nn.MaxUnpool2d(2, 2)(pooled, ind).asnumpy()
    assert up.shape == x2.shape and np.isclose(up.sum(), pooled.asnumpy().sum())
    np.testing.assert_allclose(up.reshape(1, 2, -1)[0, 0, ind.asnumpy()[0, 0].ravel()], pooled.asnumpy()[0, 0].ravel())
    p1, i1 = nn.MaxPool1d(2, 2, pad_mode="pad", return_indices=True)(ms.Tensor(x))
    assert nn.MaxUnpool1d(2)(p1, i1).shape == x.shape


def test_ext_pools():
    x = rnd(1, 2, 5, 5)
    np.testing.assert_allclose(nn.AvgPool2dExt(2)(ms.Tensor(x)).asnumpy(),
                               np_pool(x, (2, 2), (2, 2), [(0, 0)] * 2, "avg"))
    np.testing.assert_allclose(nn.MaxPool2dExt(3, 2, 1)(ms.Tensor(x)).asnumpy(),
                               np_pool(x, (3, 3), (2, 2), [(1, 1)] * 2, "max"))
    np.testing.assert_allclose(nn.AvgPool1dExt(2)(ms.Tensor(x[:, :, 0])).asnumpy(),
                               np_pool(x[:, :, 0], (2,), (2,), [(0, 0)], "avg"))
    assert nn.AvgPool3dExt(2)(ms.Tensor(rnd(1, 1, 4, 4, 4))).shape == (1, 1, 2, 2, 2)


def test_fractional_max_pool_shape():
    out = nn.FractionalMaxPool2d(2, output_size=(3, 3))(ms.Tensor(rnd(1, 2, 7, 7).astype(np.float32)))
    assert out.shape == (1, 2, 3, 3)
    out3 = nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 0.5))(ms.Tensor(rnd(1, 1, 6, 6, 6).astype(np.float32)))
    assert out3.shape == (1, 1, 3, 3, 3)


# ---------------------------------------------------------------- padding
@pytest.mark.parametrize("cell,shape,np_pad,mode,kw", [
    (nn.ConstantPad1d((1, 2), 0.5), (2, 3), [(0, 0), (1, 2)], "constant", dict(constant_values=0.5)),
    (nn.ConstantPad1d(2, -1.0), (2, 3), [(0, 0), (2, 2)], "constant", dict(constant_values=-1.0)),
    (nn.ConstantPad2d((1, 0, 2, 1), 0.5), (1, 2, 3), [(0, 0), (2, 1), (1, 0)], "constant",
     dict(constant_values=0.5)),
    (nn.ConstantPad3d(1, 2.0), (1, 1, 2, 2), [(0, 0), (1, 1), (1, 1), (1, 1)], "constant",
     dict(constant_values=2.0)),
    (nn.ZeroPad2d((1, 0, 0, 2)), (1, 1, 2, 2), [(0, 0), (0, 0), (0, 2), (1, 0)], "constant", {}),
    (nn.ReflectionPad1d((2, 1)), (1, 2, 4), [(0, 0), (0, 0), (2, 1)], "reflect", {}),
    (nn.ReflectionPad2d(1), (1, 3, 3), [(0, 0), (1, 1), (1, 1)], "reflect", {}),
    (nn.ReflectionPad3d(1), (1, 1, 2, 3, 3), [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1)], "reflect", {}),
    (nn.ReplicationPad1d((1, 3)), (1, 2, 3), [(0, 0), (0, 0), (1, 3)], "edge", {}),
    (nn.ReplicationPad2d((1, 2, 0, 1)), (1, 2, 3), [(0, 0), (0, 1), (1, 2)], "edge", {}),
    (nn.ReplicationPad3d(1), (1, 2, 2, 2), [(0, 0), (1, 1), (1, 1), (1, 1)], "edge", {}),
])
def test_padding_layers(cell, shape, np_pad, mode, kw):
    x = rnd(*shape)
    np.testing.assert_allclose(cell(ms.Tensor(x)).asnumpy(), np.pad(x, np_pad, mode=mode, **kw))
    check_cell_grad(cell, [x])


def test_constant_pad_negative_crops():
    x = rnd(1, 2, 3)
    out = nn.ConstantPad2d((1, -1, 2, 0), 0.5)(ms.Tensor(x)).asnumpy()
    want = np.pad(x[..., :-1], [(0, 0), (2, 0), (1, 0)], constant_values=0.5)
    np.testing.assert_allclose(out, want)


ERRORS = [
    ErrorSpec("conv_pad_mode", lambda: nn.Conv2d(1, 1, 3, pad_mode="full"), ValueError, "For 'Conv2d'"),
    ErrorSpec("conv_group", lambda: nn.Conv2d(3, 4, 3, group=2), ValueError, "divisible"),
    # MindSpore's words, which differ by class
    ErrorSpec("conv2d_group_words", lambda: nn.Conv2d(1, 6, 3, group=6), ValueError,
              "The argument 'group' should be divisible by 'in_channels' and 'out_channels', but got group:6, "
              "in_channels:1, out_channels:6."),
    ErrorSpec("conv1d_group_words", lambda: nn.Conv1d(4, 6, 3, group=4), ValueError,
              "should be divisible by 'in_channels' and 'out_channels', but got group:4, in_channels:4, "
              "out_channels:6."),
    ErrorSpec("conv3d_group_words", lambda: nn.Conv3d(1, 6, 3, group=6), ValueError,
              "The argument 'group' should be divisible by 'in_channels' and 'out_channels'"),
    ErrorSpec("conv2d_transpose_group_words", lambda: nn.Conv2dTranspose(1, 6, 3, group=6), ValueError,
              "For 'Conv2dTranspose', the attr 'in_channels' must be divisible by attr 'group'"),
    ErrorSpec("conv_padding_len", lambda: nn.Conv2d(1, 1, 3, pad_mode="pad", padding=(1, 1)), ValueError,
              "For 'Conv2d'"),
    ErrorSpec("conv_padding_mode", lambda: nn.Conv2d(1, 1, 3, padding=1), ValueError, "For 'Conv2d'"),
    ErrorSpec("conv_kernel", lambda: nn.Conv2d(1, 1, 0), ValueError, "For 'Conv2d'"),
    ErrorSpec("conv_input_rank", lambda: nn.Conv2d(1, 1, 3)(ms.ops.ones((1, 4, 4))), ValueError, "4D"),
    ErrorSpec("conv_channels", lambda: nn.Conv2d(2, 1, 3)(ms.ops.ones((1, 3, 4, 4))), RuntimeError,
              "For 'Conv2D', 'C_in' of input 'x' shape divide by parameter 'group'"),
    ErrorSpec("conv_nhwc", lambda: nn.Conv2d(1, 1, 3, data_format="NHWC"), ValueError, "NHWC"),
    ErrorSpec("conv1d_kernel_type", lambda: nn.Conv1d(1, 1, (3,)), TypeError, "For 'Conv1d'"),
    ErrorSpec("convT_output_padding", lambda: nn.Conv2dTranspose(1, 1, 3, stride=2, output_padding=1)(
        ms.ops.ones((1, 1, 3, 3))), ValueError, "pad_mode must be 'pad'"),
    ErrorSpec("maxpool_mode", lambda: nn.MaxPool2d(2, 2, "full"), ValueError, "For 'MaxPool2d'"),
    ErrorSpec("maxpool_extras", lambda: nn.MaxPool2d(2, 2, padding=1), ValueError, "pad_mode is not 'pad'"),
    ErrorSpec("maxpool_kernel", lambda: nn.MaxPool2d(0), ValueError, "For 'MaxPool2d'"),
    ErrorSpec("avgpool_divisor", lambda: nn.AvgPool2d(2, divisor_override=-1), ValueError, "divisor_override"),
    ErrorSpec("maxpool_rank", lambda: nn.MaxPool2d(2)(ms.ops.ones((4, 4))), ValueError, "For 'MaxPool2d'"),
    ErrorSpec("adaptive1d_divisible", lambda: nn.AdaptiveAvgPool1d(4)(ms.ops.ones((1, 1, 6))), ValueError,
              "divisible"),
    ErrorSpec("constpad_len", lambda: nn.ConstantPad1d((1, 2, 3, 4), 0.0), ValueError, "ConstantPad1d"),
    ErrorSpec("constpad_value", lambda: nn.ConstantPad2d(1, "a"), TypeError, "ConstantPad2d"),
    ErrorSpec("reflectpad_neg", lambda: nn.ReflectionPad1d((-1, 1)), ValueError, "ReflectionPad1d"),
    # MindSpore's MaxPool3D takes ceil_mode only with explicit padding; Conv3DTranspose no depth dilation
    ErrorSpec("adaptive_avg2d_negative", lambda: nn.AdaptiveAvgPool2d((2, -1)), ValueError,
              "For 'AdaptiveAvgPool2D', the argument 'output_size[1]' must >= 0, but got -1."),
    ErrorSpec("adaptive_avg3d_negative", lambda: nn.AdaptiveAvgPool3d(-1), ValueError,
              "For 'AdaptiveAvgPool3D', the argument 'output_size[0]' must >= 0, but got -1."),
    ErrorSpec("conv3d_kernel_larger_than_input", lambda: nn.Conv3d(4, 6, 3, pad_mode="valid", dilation=2)(
        ms.ops.ones((1, 4, 4, 5, 3))), ValueError, "For 'Conv3D', the input spatial shape (4, 5, 3)"),
    ErrorSpec("maxpool3d_ceil_valid", lambda: nn.MaxPool3d(2, 1, "valid", ceil_mode=True), ValueError,
              "When the 'pad_mode' is 'same' or 'valid', the 'ceil_mode' only supports 'None'."),
    ErrorSpec("maxpool3d_ceil_same", lambda: nn.MaxPool3d(2, 2, "same", ceil_mode=True), ValueError,
              "the 'ceil_mode' only supports 'None'"),
    ErrorSpec("conv3d_transpose_depth_dilation", lambda: nn.Conv3dTranspose(4, 6, 3, dilation=2), ValueError,
              "For 'Conv3DTranspose', the depth of parameter 'dilation' must be 1, but got 2."),
]
test_bad_input = make_error_tests(ERRORS)


def test_max_pool3d_ceil_mode_with_padding_and_transpose_hw_dilation_still_work():
    x = ms.Tensor(np.arange(2 * 5 * 4 * 6, dtype=np.float32).reshape(1, 2, 5, 4, 6))
    assert nn.MaxPool3d(2, 2, "pad", padding=1, ceil_mode=True)(x).shape == (1, 2, 3, 3, 4)
    assert nn.MaxPool3d(2, 2, "valid")(x).shape == (1, 2, 2, 2, 3)
    assert nn.Conv3dTranspose(2, 3, 3, dilation=(1, 2, 2))(x).shape == (1, 3, 5, 4, 6)
