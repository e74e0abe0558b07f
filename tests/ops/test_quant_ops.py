"""ops.operations._quant_ops: simulated quantization against a numpy reference of MindSpore's kernels."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.ops.operations import _quant_ops as Q


def _nudge(mn, mx, qmin, qmax, symmetric):
    """In float32, as the kernels compute it (a zero point of 127.4999 rounds down, not up)."""
    mn, mx = np.asarray(mn, np.float32), np.asarray(mx, np.float32)
    qmin, qmax = np.float32(qmin), np.float32(qmax)
    if symmetric:
        use_max = np.abs(mn) < mx
        mn, mx = np.where(use_max, -mx, mn), np.where(use_max, mx, -mn)
    scale = (mx - mn) / (qmax - qmin)
    zp = np.where(scale == 0, np.float32(0), qmin - mn / np.where(scale == 0, np.float32(1), scale))
    zp = np.clip(np.sign(zp) * np.floor(np.abs(zp) + np.float32(0.5)), qmin, qmax)
    return ((qmin - zp) * scale).astype(np.float64), ((qmax - zp) * scale).astype(np.float64), scale.astype(np.float64)


def _fake_quant_ref(x, mn, mx, num_bits=8, symmetric=False, narrow_range=False, axis=None):
    qmin, qmax = (1.0 if narrow_range else 0.0), float(2 ** num_bits - 1)
    nmin, nmax, scale = _nudge(mn, mx, qmin, qmax, symmetric)
    if axis is not None:
        shape = [1] * x.ndim
        shape[axis] = -1
        nmin, nmax, scale = (v.reshape(shape) for v in (nmin, nmax, scale))
    clamped = np.clip(x, nmin, nmax)
    return np.floor((clamped - nmin) / scale + 0.5) * scale + nmin, (x >= nmin) & (x <= nmax)


@pytest.mark.parametrize("symmetric,narrow_range", [(False, False), (True, False), (True, True)])
def test_fake_quant_per_layer_values_and_gradient(symmetric, narrow_range):
    x = np.random.default_rng(0).uniform(-3, 5, (4, 7)).astype(np.float32)
    mn, mx = np.array([-2.0], np.float32), np.array([4.0], np.float32)
    op = Q.FakeQuantPerLayer(symmetric=symmetric, narrow_range=narrow_range)
    out = op(ms.Tensor(x), ms.Tensor(mn), ms.Tensor(mx)).asnumpy()
    ref, inside = _fake_quant_ref(x.astype(np.float64), mn, mx, symmetric=symmetric, narrow_range=narrow_range)
    np.testing.assert_allclose(out, ref, rtol=0, atol=2e-6)
    levels = 255 if narrow_range else 256
    assert len(np.unique(out.round(5))) <= levels
    w = np.random.default_rng(1).standard_normal(x.shape).astype(np.float32)
    grad = ms.grad(lambda t: (Q.FakeQuantPerLayer(symmetric=symmetric, narrow_range=narrow_range)(
        t, ms.Tensor(mn), ms.Tensor(mx)) * ms.Tensor(w)).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(grad, w * inside, rtol=0, atol=0)        # straight through inside the range


def test_fake_quant_per_channel_and_min_max_update():
    w = np.random.default_rng(2).standard_normal((3, 2, 2, 2)).astype(np.float32)
    zeros = ms.Tensor(np.zeros(3, np.float32))
    mn, mx = Q.MinMaxUpdatePerChannel(channel_axis=0)(ms.Tensor(w), zeros, zeros)
    flat = w.reshape(3, -1)
    np.testing.assert_allclose(mn.asnumpy(), np.minimum(flat.min(1), 0), rtol=0, atol=0)
    np.testing.assert_allclose(mx.asnumpy(), np.maximum(flat.max(1), 0), rtol=0, atol=0)
    out = Q.FakeQuantPerChannel(channel_axis=0, symmetric=True)(ms.Tensor(w), mn, mx).asnumpy()
    ref, _ = _fake_quant_ref(w.astype(np.float64), mn.asnumpy(), mx.asnumpy(), symmetric=True, axis=0)
    np.testing.assert_allclose(out, ref, rtol=0, atol=2e-6)
    # EMA as MindSpore's kernels blend: decay * current + (1 - decay) * previous; the range always holds 0
    x = np.array([[1.0, 3.0], [2.0, 5.0]], np.float32)
    up_mn, up_mx = Q.MinMaxUpdatePerLayer(ema=True, ema_decay=0.75)(ms.Tensor(x), ms.Tensor([-4.0]),
                                                                    ms.Tensor([8.0]))
    np.testing.assert_allclose(up_mn.asnumpy(), [min(0.75 * 1 + 0.25 * -4, 0)], rtol=1e-6)
    np.testing.assert_allclose(up_mx.asnumpy(), [0.75 * 5 + 0.25 * 8], rtol=1e-6)


def test_quant_delay_and_bad_input():
    op = Q.FakeQuantPerLayer(quant_delay=2)
    x = ms.Tensor(np.array([0.123, 0.456], np.float32))
    rng = (ms.Tensor([0.0]), ms.Tensor([1.0]))
    assert np.array_equal(op(x, *rng).asnumpy(), x.asnumpy()) and np.array_equal(op(x, *rng).asnumpy(), x.asnumpy())
    assert not np.array_equal(op(x, *rng).asnumpy(), x.asnumpy())       # from the third training step on
    with pytest.raises(ValueError, match="num_bits"):
        Q.FakeQuantPerLayer(num_bits=3)
    with pytest.raises(ValueError, match="channel"):
        Q.FakeQuantPerChannel(channel_axis=1)(ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor([0.0]),
                                              ms.Tensor([1.0]))
    with pytest.raises(TypeError, match="'x' must be a Tensor"):
        Q.MinMaxUpdatePerLayer()(np.ones(3), ms.Tensor([0.0]), ms.Tensor([1.0]))


def test_fake_quant_param_and_quant_dtype():
    op = Q.FakeQuantParam.linear_quant_param(ms.QuantDtype.INT8, 0.5, 1)
    assert op.attrs["linear_quant_scale"] == [0.5] and op.attrs["linear_quant_zero_point"] == [1]
    assert op.attrs["quant_dtype"] == 7 and op.attrs["quant_algo_name"] == "linear_quant_algo"
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    assert op(x) is x
    assert ms.QuantDtype.INT4.value() == 3 and ms.QuantDtype.UINT8.value() == 107 and str(ms.QuantDtype.INT8) == "INT8"
    assert str(ms.qint4x2) == "Int4"
