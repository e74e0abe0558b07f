"""The LSTM primitive class, the patch extractors, Dilation2D, FFTWithSize and CopyWithSlice: values against numpy
(and against what MindSpore 2.10 CPU computed for LSTM's flat weight layout), gradients against float64 finite
differences, MindSpore's errors."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests

T = ms.Tensor


def _sig(z):
    return 1 / (1 + np.exp(-z))


def _lstm_ref(x, h0, c0, w, layers, bidir, bias, proj, hidden):
    """numpy LSTM over MindSpore's CPU weight layout: every w_ih, every w_hh, every projection, every bias."""
    d, real = (2 if bidir else 1), (proj or hidden)
    flat, pos = w.reshape(-1), 0

    def take(shape):
        nonlocal pos
        n = int(np.prod(shape))
        part = flat[pos:pos + n].reshape(shape)
        pos += n
        return part

    keys = [(layer, k) for layer in range(layers) for k in range(d)]
    w_ih = {key: take((4 * hidden, x.shape[2] if key[0] == 0 else real * d)) for key in keys}
    w_hh = {key: take((4 * hidden, real)) for key in keys}
    w_p = {key: take((proj, hidden)) if proj else None for key in keys}
    b = {key: take((4 * hidden,)) if bias else 0 for key in keys}
    inp, hn, cn = x, [], []
    for layer in range(layers):
        outs = []
        for k in range(d):
            key, h, c = (layer, k), h0[layer * d + k], c0[layer * d + k]
            seq = [None] * x.shape[0]
            for t in (range(x.shape[0]) if k == 0 else range(x.shape[0] - 1, -1, -1)):
                g = inp[t] @ w_ih[key].T + h @ w_hh[key].T + b[key]
                i, f, cand, o = np.split(g, 4, -1)
                c = _sig(f) * c + _sig(i) * np.tanh(cand)
                h = _sig(o) * np.tanh(c)
                if proj:
                    h = h @ w_p[key].T
                seq[t] = h
            outs.append(np.stack(seq))
            hn.append(h)
            cn.append(c)
        inp = np.concatenate(outs, -1)
    return inp, np.stack(hn), np.stack(cn)


def _lstm_size(inp, hidden, layers, bidir, bias, proj):
    d, real = (2 if bidir else 1), (proj or hidden)
    return sum(d * (4 * hidden * ((inp if layer == 0 else real * d) + real) + proj * hidden + (4 * hidden if bias
                                                                                                 else 0))
               for layer in range(layers))


_LSTM_CASES = [(1, False, True, 0), (2, False, False, 0), (1, True, True, 0), (2, True, True, 2), (1, False, True, 3)]


def _lstm_spec(layers, bidir, bias, proj, inp=3, hidden=4, seq=3, batch=2):
    d, real = (2 if bidir else 1), (proj or hidden)
    op = ops.LSTM(inp, hidden, layers, bias, bidir, 0.0, proj)
    return OpSpec(f"lstm-{layers}-{bidir}-{bias}-{proj}", lambda x, h, c, w: op(x, h, c, w)[:3],
                  lambda x, h, c, w: _lstm_ref(x, h, c, w, layers, bidir, bias, proj, hidden),
                  shapes=[(seq, batch, inp), (layers * d, batch, real), (layers * d, batch, hidden),
                          (_lstm_size(inp, hidden, layers, bidir, bias, proj), 1, 1)],
                  gen=[None, None, None, lambda r, s: 0.4 * r.standard_normal(s)])


def _patches_ref(x, kernel, strides, rates=None):
    rates = rates or (1,) * len(kernel)
    spatial = x.shape[2:]
    out = [(n - ((k - 1) * r + 1)) // s + 1 for n, k, r, s in zip(spatial, kernel, rates, strides)]
    pieces = []
    for offset in np.ndindex(*kernel):
        index = (slice(None), slice(None)) + tuple(slice(o * r, o * r + (n - 1) * s + 1, s)
                                                   for o, r, n, s in zip(offset, rates, out, strides))
        pieces.append(x[index])
    p = np.stack(pieces, 1)
    return p.reshape((p.shape[0], -1) + p.shape[3:])


def _dilation_ref(x, f, stride, rate):
    kernel = f.shape[1:]
    p = _patches_ref(x, kernel, stride, rate).reshape((x.shape[0], -1, x.shape[1]) + tuple(
        (n - ((k - 1) * r + 1)) // s + 1 for n, k, r, s in zip(x.shape[2:], kernel, rate, stride)))
    return (p + f.reshape(f.shape[0], -1).T[None, :, :, None, None]).max(1)


def _ijfo_ref(x, h, c, w, b, forget_bias=0.0):
    i, j, f, o = np.split(np.concatenate([x, h], -1) @ w + b, 4, -1)
    i, j, f, o = _sig(i), np.tanh(j), _sig(f + forget_bias), _sig(o)
    c = f * c + i * j
    return c, o * np.tanh(c), i, j, f, o, np.tanh(c)


def _dynamic_rnn_ref(x, w, b, h0, c0):
    h, c, rows = h0[0], c0[0], []
    for t in range(x.shape[0]):
        c, h, *gates = _ijfo_ref(x[t], h, c, w, b)
        rows.append((h, h, c, *gates))
    return [np.stack(col) for col in zip(*rows)]


def _gru_ref(x, wi, wh, bi, bh, h0, lengths):
    h, rows = h0, []
    for t in range(x.shape[0]):
        xr, xz, xn = np.split(x[t] @ wi + bi, 3, -1)
        hr, hz, hn = np.split(h @ wh + bh, 3, -1)
        r, z = _sig(xr + hr), _sig(xz + hz)
        n = np.tanh(xn + r * hn)
        h = np.where((lengths > t)[:, None], (1 - z) * n + z * h, h)
        rows.append((h, h, z, r, n, hn))
    return [np.stack(col) for col in zip(*rows)]


_LENGTHS = np.array([3, 1], np.int32)


def _parts(z):
    return ops.real(z), ops.imag(z)


def _np_parts(z):
    return z.real, z.imag


SPECS = [_lstm_spec(*case) for case in _LSTM_CASES] + [
    OpSpec("extract_volume_patches", lambda x: ops.ExtractVolumePatches((1, 1, 2, 3, 2), (1, 1, 2, 2, 1), "VALID")(x),
           lambda x: _patches_ref(x, (2, 3, 2), (2, 2, 1)), shapes=[(1, 2, 5, 6, 4)]),
    OpSpec("extract_image_patches", lambda x: ops.ExtractImagePatches((1, 1, 2, 3), (1, 1, 2, 1), (1, 1, 1, 2),
                                                                      "VALID")(x),
           lambda x: _patches_ref(x, (2, 3), (2, 1), (1, 2)), shapes=[(2, 3, 6, 7)]),
    OpSpec("dilation2d", lambda x, f: ops.Dilation2D((2, 1), (1, 2), "VALID")(x, f),
           lambda x, f: _dilation_ref(x, f, (2, 1), (1, 2)), shapes=[(1, 3, 7, 8), (3, 2, 3)]),
    OpSpec("basic_lstm_cell", lambda x, h, c, w, b: ops.BasicLSTMCell(forget_bias=0.5)(x, h, c, w, b),
           lambda x, h, c, w, b: _ijfo_ref(x, h, c, w, b, 0.5), shapes=[(2, 3), (2, 4), (2, 4), (7, 16), (16,)]),
    OpSpec("dynamic_rnn", lambda x, w, b, h, c: ops.DynamicRNN()(x, w, b, None, h, c), _dynamic_rnn_ref,
           shapes=[(3, 2, 3), (7, 16), (16,), (1, 2, 4), (1, 2, 4)]),
    OpSpec("dynamic_gru_v2", lambda x, wi, wh, bi, bh, h: ops.DynamicGRUV2()(x, wi, wh, bi, bh, T(_LENGTHS), h),
           lambda x, wi, wh, bi, bh, h: _gru_ref(x, wi, wh, bi, bh, h, _LENGTHS),
           shapes=[(3, 2, 3), (3, 12), (4, 12), (12,), (12,), (2, 4)]),
    # (real, imaginary parts): the harness differentiates real outputs
    OpSpec("fft_with_size_rfft2", lambda x: _parts(ops.FFTWithSize(2, False, True, "ortho")(x)),
           lambda x: _np_parts(np.fft.rfft2(x, norm="ortho")), shapes=[(2, 4, 6)]),
    OpSpec("fft_with_size_full", lambda x: _parts(ops.FFTWithSize(3, False, True, "forward", False)(x)),
           lambda x: _np_parts(np.fft.fftn(x, axes=(0, 1, 2), norm="forward")), shapes=[(2, 4, 6)]),
]
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def test_lstm_matches_mindspore_cpu_outputs_shapes():
    op = ops.LSTM(4, 4, 1, False, False, 0.0, 2)
    x, h, c = (T(np.ones(s, np.float32)) for s in ((2, 1, 4), (1, 1, 2), (1, 1, 4)))
    w = T(np.full((4 * 4 * (4 + 2) + 2 * 4, 1, 1), 0.1, np.float32))
    y, hn, cn, reserve, state = op(x, h, c, w)
    assert (y.shape, hn.shape, cn.shape, state.shape) == ((2, 1, 2), (1, 1, 2), (1, 1, 4), (1, 1))
    assert reserve.ndim == 2 and reserve.shape[1] == 1
    want = _lstm_ref(np.ones((2, 1, 4)), np.ones((1, 1, 2)), np.ones((1, 1, 4)), np.full(104, 0.1), 1, False,
                     False, 2, 4)
    np.testing.assert_allclose(y.asnumpy(), want[0], rtol=1e-5)


def test_lstm_reads_the_weights_it_needs_and_ignores_extra_ones():
    # MindSpore 2.10 CPU (oracle): a w of 112 elements (two biases per gate) for a layer needing 104 runs, and its
    # first 104 elements are the weights; all-ones inputs give these outputs
    op = ops.LSTM(10, 2, 1, True, False, 0.0)
    x, h, c = T(np.ones((5, 2, 10), np.float32)), T(np.ones((1, 2, 2), np.float32)), T(np.ones((1, 2, 2), np.float32))
    y = op(x, h, c, T(np.ones((112, 1, 1), np.float32)))[0].asnumpy()
    np.testing.assert_allclose(y[:, 0, 0], [0.9640251, 0.99505216, 0.999327, 0.99990696, 0.9999854], rtol=1e-6)
    np.testing.assert_array_equal(y, op(x, h, c, T(np.ones((104, 1, 1), np.float32)))[0].asnumpy())


def test_fft_with_size_inverse_forms():
    r = np.random.RandomState(0)
    z = r.standard_normal((2, 4, 6)) + 1j * r.standard_normal((2, 4, 6))
    np.testing.assert_allclose(ops.FFTWithSize(1, True, False)(T(z)).asnumpy(), np.fft.ifft(z), atol=1e-12)
    np.testing.assert_allclose(ops.FFTWithSize(2, True, True)(T(z)).asnumpy(), np.fft.irfft2(z, s=(4, 10)),
                               atol=1e-12)
    np.testing.assert_allclose(ops.FFTWithSize(1, True, True, signal_sizes=(11,))(T(z)).asnumpy(),
                               np.fft.irfft(z, n=11), atol=1e-12)


def test_copy_with_slice_writes_the_parameter():
    x = ms.Parameter(T(np.zeros((3, 4), np.float32)), name="x")
    out = ops.CopyWithSlice()(x, T(np.arange(12, dtype=np.float32).reshape(3, 4)))
    np.testing.assert_array_equal(x.asnumpy(), np.arange(12).reshape(3, 4))
    assert type(out) is ms.Tensor     # MindSpore's output: a Tensor of the Parameter's new value
    np.testing.assert_array_equal(out.asnumpy(), np.arange(12).reshape(3, 4))


def test_dilation2d_same_keeps_the_size_and_ignores_the_border():
    x = np.random.RandomState(1).standard_normal((1, 2, 5, 6)).astype(np.float32)
    f = np.zeros((2, 3, 3), np.float32)
    out = ops.Dilation2D(1, 1, "same")(T(x), T(f)).asnumpy()
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    np.testing.assert_allclose(out, _dilation_ref(padded, f, (1, 1), (1, 1)))


_X4 = T(np.ones((1, 2, 5, 5), np.float32))
test_bad_input = make_error_tests([
    ErrorSpec("fft_with_size-irfft-last-dim-1", lambda: ops.FFTWithSize(2, True, True)(
        ms.Tensor(np.ones((2, 1), np.complex64))), ValueError, "the last dimension of the input cannot be 1"),
    ErrorSpec("lstm-proj-size", lambda: ops.LSTM(2, 3, 1, True, False, 0.0, 3), ValueError, "proj_size"),
    ErrorSpec("lstm-dropout-int", lambda: ops.LSTM(2, 3, 1, True, False, 0), TypeError, "dropout"),
    ErrorSpec("lstm-weight-size", lambda: ops.LSTM(2, 3, 1, True, False, 0.0)(
        T(np.ones((2, 1, 2), np.float32)), T(np.ones((1, 1, 3), np.float32)), T(np.ones((1, 1, 3), np.float32)),
        T(np.ones((5, 1, 1), np.float32))), ValueError, "must hold at least 72 elements"),
    ErrorSpec("dynamic-rnn-cell-type", lambda: ops.DynamicRNN(cell_type="GRU"), ValueError, "cell_type"),
    ErrorSpec("dynamic-rnn-forget-bias", lambda: ops.DynamicRNN(forget_bias=1), TypeError, "forget_bias"),
    ErrorSpec("gru-gate-order", lambda: ops.DynamicGRUV2(gate_order="hzr"), ValueError, "gate_order"),
    ErrorSpec("basic-lstm-weight", lambda: ops.BasicLSTMCell()(*(T(np.ones(s, np.float32)) for s in (
        (2, 3), (2, 4), (2, 4), (6, 16), (16,)))), ValueError, "w (I + H, 4H)"),
    ErrorSpec("dilation-nhwc", lambda: ops.Dilation2D(1, 1, "valid", "NHWC"), ValueError, "NHWC"),
    ErrorSpec("dilation-stride", lambda: ops.Dilation2D((3,), 1), ValueError, "stride"),
    ErrorSpec("dilation-filter-channels", lambda: ops.Dilation2D(1, 1)(_X4, T(np.ones((3, 2, 2), np.float32))),
              ValueError, "filter"),
    ErrorSpec("patches-padding", lambda: ops.ExtractImagePatches(2, 1, 1, "FULL"), ValueError, "padding"),
    ErrorSpec("patches-rank", lambda: ops.ExtractVolumePatches(2, 1, "VALID")(_X4), ValueError, "rank"),
    ErrorSpec("fft-real-input", lambda: ops.FFTWithSize(1, False, False)(T(np.ones(4, np.float32))), TypeError,
              "must be a type of {Complex128, Complex64}"),
    ErrorSpec("irfft-signal-sizes", lambda: ops.FFTWithSize(1, True, True, signal_sizes=(8,))(
        T(np.ones(6, np.complex64))), ValueError, "a valid one should be [10], or [11]"),
])


@pytest.mark.parametrize("cls, reduce", [(ops.FractionalMaxPool, np.max), (ops.FractionalAvgPool, np.mean)])
@pytest.mark.parametrize("pseudo_random, overlapping", [(False, False), (True, False), (False, True)])
def test_fractional_pools_reduce_the_cells_of_their_sequences(cls, reduce, pseudo_random, overlapping):
    x = np.random.RandomState(5).standard_normal((2, 8, 9, 3)).astype(np.float32)
    y, rows, cols = cls([1.0, 1.5, 2.0, 1.0], pseudo_random, overlapping)(T(x))
    rows, cols = rows.asnumpy(), cols.asnumpy()
    assert y.shape == (2, 5, 4, 3) and rows[0] == 0 and rows[-1] == 8 and cols[-1] == 9
    assert (np.diff(rows) > 0).all() and (np.diff(cols) > 0).all()
    for i in range(5):
        for j in range(4):
            r1, c1 = (min(rows[i + 1] + 1, 8), min(cols[j + 1] + 1, 9)) if overlapping else (rows[i + 1], cols[j + 1])
            np.testing.assert_allclose(y.asnumpy()[:, i, j], reduce(x[:, rows[i]:r1, cols[j]:c1], axis=(1, 2)),
                                       rtol=1e-5, atol=1e-6)


def test_fractional_pool_deterministic_reuses_its_sequences_and_has_a_gradient():
    x = T(np.random.RandomState(6).standard_normal((1, 8, 9, 1)).astype(np.float32))
    op = ops.FractionalMaxPool([1.0, 1.5, 2.0, 1.0], deterministic=True)
    first, second = op(x), op(x)
    np.testing.assert_array_equal(first[1].asnumpy(), second[1].asnumpy())
    grad = ms.grad(lambda t: op(t)[0].sum())(x).asnumpy()
    assert grad.sum() == 20 and set(np.unique(grad)) <= {0.0, 1.0}    # one winner per output cell


def test_fractional_pool_arguments():
    with pytest.raises(TypeError, match="pooling_ratio"):
        ops.FractionalMaxPool((1.0, 1.5, 2.0, 1.0))
    with pytest.raises(ValueError, match="pooling_ratio"):
        ops.FractionalAvgPool([2.0, 1.5, 2.0, 1.0])
