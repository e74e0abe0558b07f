"""Recurrent layers, embeddings, attention and transformers: values vs numpy transcriptions (checked against
MindSpore 2.10), gradients vs finite differences, parameter names, masks and errors."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from _harness import ErrorSpec, make_error_tests
from _layer_checks import check_cell_grad, to64

R = np.random.RandomState(0)


def rnd(*shape):
    return R.standard_normal(shape)


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_step(mode, x, h, w_ih, w_hh, b_ih, b_hh):
    gi = x @ w_ih.T + (0 if b_ih is None else b_ih)
    if mode == "LSTM":
        hx, cx = h
        g = gi + hx @ w_hh.T + (0 if b_hh is None else b_hh)
        i, f, c, o = np.split(g, 4, -1)
        cy = sig(f) * cx + sig(i) * np.tanh(c)
        return sig(o) * np.tanh(cy), cy
    gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
    if mode == "GRU":
        ir, iz, inn = np.split(gi, 3, -1)
        hr, hz, hn = np.split(gh, 3, -1)
        r, z = sig(ir + hr), sig(iz + hz)
        n = np.tanh(inn + r * hn)
        return n + z * (h - n)
    pre = gi + gh
    return np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0)


def np_rnn(mode, cell, x, h0=None, lengths=None):
    """Reference multi-layer (bi)directional recurrence over (T, B, I) using the cell's parameters."""
    params = {n: p.asnumpy() for n, p in cell.parameters_and_names()}
    layers, dirs, hid = cell.num_layers, 2 if cell.bidirectional else 1, cell.hidden_size
    steps, batch = x.shape[:2]
    lengths = np.full(batch, steps) if lengths is None else lengths
    lstm = mode == "LSTM"
    if h0 is None:
        z = np.zeros((layers * dirs, batch, hid))
        h0 = (z, z) if lstm else z
    inp, hn, cn = x, [], []
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            sfx = "_reverse" if d else ""
            w_ih, w_hh = params[f"weight_ih_l{layer}{sfx}"], params[f"weight_hh_l{layer}{sfx}"]
            b_ih, b_hh = params.get(f"bias_ih_l{layer}{sfx}"), params.get(f"bias_hh_l{layer}{sfx}")
            k = layer * dirs + d
            state = (h0[0][k], h0[1][k]) if lstm else h0[k]
            out = np.zeros((steps, batch, hid))
            for b in range(batch):
                st = (state[0][b:b + 1], state[1][b:b + 1]) if lstm else state[b:b + 1]
                order = range(lengths[b]) if d == 0 else range(lengths[b] - 1, -1, -1)
                for t in order:
                    st = np_step(mode, inp[t, b:b + 1], st, w_ih, w_hh, b_ih, b_hh)
                    out[t, b] = st[0][0] if lstm else st[0]
                if lstm:
                    hn.append(st[0][0])
                    cn.append(st[1][0])
                else:
                    hn.append(st[0])
            outs.append(out)
        inp = np.concatenate(outs, -1)
    h = np.stack(hn).reshape(layers * dirs, batch, hid)
    if lstm:
        return inp, (h, np.stack(cn).reshape(layers * dirs, batch, hid))
    return inp, h


@pytest.mark.parametrize("cls,mode,kw", [
    (nn.RNN, "RNN_TANH", dict(num_layers=2)),
    (nn.RNN, "RNN_RELU", dict(bidirectional=True, nonlinearity="relu")),
    (nn.LSTM, "LSTM", dict(num_layers=2, bidirectional=True)),
    (nn.GRU, "GRU", dict(num_layers=2, has_bias=False)),
    (nn.GRU, "GRU", dict(bidirectional=True)),
])
def test_rnn_layers(cls, mode, kw):
    cell = to64(cls(3, 4, **kw))
    x = rnd(5, 2, 3)
    out, h = cell(ms.Tensor(x))
    want_out, want_h = np_rnn(mode, cell, x)
    np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-9, atol=1e-12)
    if mode == "LSTM":
        np.testing.assert_allclose(h[0].asnumpy(), want_h[0], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(h[1].asnumpy(), want_h[1], rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_allclose(h.asnumpy(), want_h, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cls,mode", [(nn.LSTM, "LSTM"), (nn.GRU, "GRU"), (nn.RNN, "RNN_TANH")])
def test_rnn_seq_length_and_initial_state(cls, mode):
    cell = to64(cls(3, 4, bidirectional=True))
    x = rnd(5, 2, 3)
    lengths = np.array([5, 3])
    h0 = rnd(2, 2, 4)
    hx = (h0, rnd(2, 2, 4)) if mode == "LSTM" else h0
    ms_hx = tuple(ms.Tensor(a) for a in hx) if mode == "LSTM" else ms.Tensor(hx)
    out, h = cell(ms.Tensor(x), ms_hx, ms.Tensor(lengths.astype(np.int32)))
    want_out, want_h = np_rnn(mode, cell, x, hx, lengths)
    np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-9, atol=1e-12)
    assert np.all(out.asnumpy()[3:, 1] == 0)
    hs = h if mode == "LSTM" else (h,)
    ws = want_h if mode == "LSTM" else (want_h,)
    for a, b in zip(hs, ws):
        np.testing.assert_allclose(a.asnumpy(), b, rtol=1e-9, atol=1e-12)


def test_lstm_batch_first_and_grads():
    cell = to64(nn.LSTM(2, 3, batch_first=True))
    x = rnd(2, 4, 2)
    out, (h, c) = cell(ms.Tensor(x))
    want, (wh, wc) = np_rnn("LSTM", cell, x.transpose(1, 0, 2))
    np.testing.assert_allclose(out.asnumpy(), want.transpose(1, 0, 2), rtol=1e-9)
    np.testing.assert_allclose(c.asnumpy(), wc, rtol=1e-9)
    check_cell_grad(cell, [x])


@pytest.mark.parametrize("cls", [nn.GRU, nn.RNN])
def test_rnn_grads_bidirectional(cls):
    check_cell_grad(to64(cls(2, 3, bidirectional=True, num_layers=2)), [rnd(3, 2, 2)])


def test_rnn_parameter_names_and_repr():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    names = [n for n, _ in lstm.parameters_and_names()]
    assert names[:4] == ["weight_ih_l0", "weight_ih_l0_reverse", "weight_ih_l1", "weight_ih_l1_reverse"]
    assert names[-1] == "bias_hh_l1_reverse" and len(names) == 16
    shapes = {n: p.shape for n, p in lstm.parameters_and_names()}
    assert shapes["weight_ih_l1"] == (16, 8) and shapes["weight_hh_l0"] == (16, 4) and shapes["bias_ih_l0"] == (16,)
    assert [p.name for p in lstm.get_parameters()][:2] == ["weight_ih_l0", "weight_ih_l0_reverse"]
    assert repr(lstm) == "LSTM(\n  (rnn): _DynamicLSTMCPUGPU()\n  (dropout_op): Dropout(p=0.0)\n)"
    assert repr(nn.GRU(2, 3)) == "GRU(\n  (rnn): _DynamicGRUCPUGPU()\n  (dropout_op): Dropout(p=0.0)\n)"

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(2, 3)

    assert [p.name for p in Net().get_parameters()] == ["rnn.weight_ih_l0", "rnn.weight_hh_l0", "rnn.bias_ih_l0",
                                                        "rnn.bias_hh_l0"]
    stdv = 1 / np.sqrt(4)
    assert all(np.abs(p.asnumpy()).max() <= stdv + 1e-7 for p in lstm.get_parameters())


def test_rnn_dropout_between_layers():
    cell = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = ms.Tensor(rnd(4, 2, 3).astype(np.float32))
    a, _ = cell(x)
    b, _ = cell(x)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())  # no dropout outside training
    cell.set_train()
    c, _ = cell(x)
    assert not np.allclose(a.asnumpy(), c.asnumpy())


@pytest.mark.parametrize("cls,mode", [(nn.RNNCell, "RNN_TANH"), (nn.GRUCell, "GRU"), (nn.LSTMCell, "LSTM")])
def test_rnn_cells(cls, mode):
    cell = to64(cls(3, 4))
    x, h = rnd(2, 3), rnd(2, 4)
    p = {n: q.asnumpy() for n, q in cell.parameters_and_names()}
    assert list(p) == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    hx = (h, rnd(2, 4)) if mode == "LSTM" else h
    out = cell(ms.Tensor(x), tuple(ms.Tensor(a) for a in hx) if mode == "LSTM" else ms.Tensor(hx))
    want = np_step(mode, x, hx, p["weight_ih"], p["weight_hh"], p["bias_ih"], p["bias_hh"])
    if mode == "LSTM":
        np.testing.assert_allclose(out[0].asnumpy(), want[0], rtol=1e-10)
        np.testing.assert_allclose(out[1].asnumpy(), want[1], rtol=1e-10)
    else:
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-10)
        check_cell_grad(cell, [x, h])
    relu = to64(nn.RNNCell(3, 4, has_bias=False, nonlinearity="relu"))
    pr = {n: q.asnumpy() for n, q in relu.parameters_and_names()}
    np.testing.assert_allclose(relu(ms.Tensor(x), ms.Tensor(h)).asnumpy(),
                               np_step("RNN_RELU", x, h, pr["weight_ih"], pr["weight_hh"], None, None), rtol=1e-10)


def test_lstm_cell_grads():
    cell = to64(nn.LSTMCell(2, 3))

    class Wrap(nn.Cell):
        def __init__(self):
            super().__init__()
            self.cell = cell

        def construct(self, x, h, c):
            return self.cell(x, (h, c))

    check_cell_grad(Wrap(), [rnd(2, 2), rnd(2, 3), rnd(2, 3)])


# ---------------------------------------------------------------- embeddings
def test_embedding():
    emb = to64(nn.Embedding(10, 3))
    ids = np.array([[1, 2], [9, 1]], np.int32)
    table = emb.embedding_table.asnumpy()
    np.testing.assert_array_equal(emb(ms.Tensor(ids)).asnumpy(), table[ids])
    oh = to64(nn.Embedding(10, 3, use_one_hot=True))
    np.testing.assert_allclose(oh(ms.Tensor(ids)).asnumpy(), oh.embedding_table.asnumpy()[ids])
    g = ms.grad(lambda t: emb(t).sum(), grad_position=None, weights=emb.trainable_params())(ms.Tensor(ids))[0]
    want = np.zeros((10, 3))
    np.add.at(want, ids.ravel(), 1.0)
    np.testing.assert_allclose(g.asnumpy(), want)
    pad = nn.Embedding(5, 2, padding_idx=3)
    assert np.all(pad.embedding_table.asnumpy()[3] == 0)
    assert repr(nn.Embedding(4, 2)) == (
        "Embedding(vocab_size=4, embedding_size=2, use_one_hot=False, embedding_table=Parameter (name=embedding_table, "
        "shape=(4, 2), dtype=Float32, requires_grad=True), dtype=Float32, padding_idx=None)")
    ms.set_seed(0)
    std = nn.Embedding(200, 50).embedding_table.asnumpy().std()
    assert 0.008 < std < 0.012  # 'normal' = N(0, 0.01)


def test_embedding_ext_and_lookup():
    ext = nn.EmbeddingExt(10, 3, padding_idx=2)
    assert ext.weight.name == "weight" and np.all(ext.weight.asnumpy()[2] == 0)
    ids = ms.Tensor(np.array([[2, 5]], np.int64))
    np.testing.assert_array_equal(ext(ids).asnumpy(), ext.weight.asnumpy()[[[2, 5]]])
    look = to64(nn.EmbeddingLookup(10, 3))
    np.testing.assert_array_equal(look(ids).asnumpy(), look.embedding_table.asnumpy()[[[2, 5]]])
    clip = to64(nn.EmbeddingLookup(10, 3, max_norm=0.01))
    ids = np.array([[1, 2], [3, 4]], np.int32)
    rows = clip.embedding_table.asnumpy()[ids]
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    np.testing.assert_allclose(clip(ms.Tensor(ids)).asnumpy(), rows * np.minimum(1, 0.01 / norms), rtol=1e-9)


def test_multi_field_embedding_lookup():
    if not hasattr(ms.ops, "unsorted_segment_sum"):
        pytest.skip("ops.unsorted_segment_sum is not available yet")
    ids = np.array([[1, 2, 3], [4, 5, 0]], np.int32)
    vals = np.array([[1.0, 0.5, 0.0], [2.0, 1.0, 0.0]], np.float32)
    fields = np.array([[0, 1, 1], [0, 0, 1]], np.int32)
    for op in ("SUM", "MEAN", "MAX"):
        cell = nn.MultiFieldEmbeddingLookup(10, 3, 2, operator=op)
        t = cell.embedding_table.asnumpy()
        out = cell(ms.Tensor(ids), ms.Tensor(vals), ms.Tensor(fields)).asnumpy()
        want = np.zeros((2, 2, 3))
        for b in range(2):
            for f in range(2):
                sel = fields[b] == f
                rows = vals[b, sel, None] * t[ids[b, sel]]
                if op == "SUM":
                    want[b, f] = rows.sum(0)
                elif op == "MEAN":
                    cnt = np.abs(vals[b, sel]).sum()
                    want[b, f] = rows.sum(0) / cnt if cnt else 0
                else:
                    keep = vals[b, sel] != 0
                    want[b, f] = rows[keep].max(0) if keep.any() else 0
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-7)
        # compiled as one graph: the segment ids are only known when it runs
        got = ms.jit(cell, fullgraph=True)(ms.Tensor(ids), ms.Tensor(vals), ms.Tensor(fields)).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    cell = nn.MultiFieldEmbeddingLookup(10, 3, 2)
    with pytest.raises(TypeError, match="'input_indices' should be one of \\[mindspore.int32, mindspore.int64\\]"):
        cell(ms.Tensor(ids.astype(np.int16)), ms.Tensor(vals), ms.Tensor(fields))
    with pytest.raises(TypeError, match="'field_ids' should be Int32, but got 'mindspore.int64'"):
        cell(ms.Tensor(ids), ms.Tensor(vals), ms.Tensor(fields.astype(np.int64)))


# ---------------------------------------------------------------- attention and transformers
def np_mha(cell, q, k, v, attn_mask=None, kpm=None, average=True):
    p = {n: x.asnumpy() for n, x in cell.parameters_and_names()}
    e, h = cell.embed_dim, cell.num_heads
    hd = e // h
    wq, wk, wv = np.split(p["in_proj_weight"], 3)
    bq, bk, bv = np.split(p["in_proj_bias"], 3)
    qq, kk, vv = q @ wq.T + bq, k @ wk.T + bk, v @ wv.T + bv
    tgt, bsz = q.shape[:2]
    src = k.shape[0]
    qq = qq.reshape(tgt, bsz, h, hd).transpose(1, 2, 0, 3)
    kk = kk.reshape(src, bsz, h, hd).transpose(1, 2, 0, 3)
    vv = vv.reshape(src, bsz, h, hd).transpose(1, 2, 0, 3)
    scores = qq @ kk.transpose(0, 1, 3, 2) / np.sqrt(hd)
    if attn_mask is not None:
        scores = np.where(attn_mask, -np.inf, scores)
    if kpm is not None:
        scores = np.where(kpm[:, None, None, :], -np.inf, scores)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    out = (w @ vv).transpose(2, 0, 1, 3).reshape(tgt, bsz, e)
    out = out @ p["out_proj.weight"].T + p["out_proj.bias"]
    return out, (w.mean(1) if average else w)


def test_multihead_attention():
    cell = to64(nn.MultiheadAttention(8, 2))
    q, k = rnd(3, 2, 8), rnd(4, 2, 8)
    out, w = cell(ms.Tensor(q), ms.Tensor(k), ms.Tensor(k))
    want, ww = np_mha(cell, q, k, k)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w.asnumpy(), ww, rtol=1e-9, atol=1e-12)
    mask = np.triu(np.ones((3, 4), bool), 1)
    kpm = np.array([[0, 0, 0, 1], [0, 0, 1, 1]], bool)
    out, w = cell(ms.Tensor(q), ms.Tensor(k), ms.Tensor(k), attn_mask=ms.Tensor(mask), key_padding_mask=ms.Tensor(kpm),
                  average_attn_weights=False)
    want, ww = np_mha(cell, q, k, k, mask, kpm, average=False)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w.asnumpy(), ww, rtol=1e-9, atol=1e-12)
    only = cell(ms.Tensor(q), ms.Tensor(k), ms.Tensor(k), need_weights=False)
    assert isinstance(only, tuple) and len(only) == 1
    assert [n for n, _ in cell.parameters_and_names()] == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                                           "out_proj.bias"]
    check_cell_grad(cell, [rnd(2, 1, 8), rnd(3, 1, 8), rnd(3, 1, 8)], kwargs=dict(need_weights=False))


def test_multihead_attention_variants():
    bf = to64(nn.MultiheadAttention(4, 2, batch_first=True))
    q = rnd(2, 3, 4)
    out, _ = bf(ms.Tensor(q), ms.Tensor(q), ms.Tensor(q))
    want, _ = np_mha(bf, q.transpose(1, 0, 2), q.transpose(1, 0, 2), q.transpose(1, 0, 2))
    np.testing.assert_allclose(out.asnumpy(), want.transpose(1, 0, 2), rtol=1e-9, atol=1e-12)
    un = bf(ms.Tensor(q[0]), ms.Tensor(q[0]), ms.Tensor(q[0]))
    assert un[0].shape == (3, 4) and un[1].shape == (3, 3)
    kv = nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True, kdim=6, vdim=5)
    out, w = kv(ms.ops.ones((3, 2, 8)), ms.ops.ones((4, 2, 6)), ms.ops.ones((4, 2, 5)))
    assert out.shape == (3, 2, 8) and w.shape == (2, 3, 6)  # + bias_k + zero attention
    assert {n for n, _ in kv.parameters_and_names()} >= {"q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k"}


def test_transformer_layers():
    enc = to64(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0))
    src = rnd(3, 2, 8)

    def ln(x, cell):
        m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - m) / np.sqrt(v + 1e-5) * cell.gamma.asnumpy() + cell.beta.asnumpy()

    sa, _ = np_mha(enc.self_attn, src, src, src)
    x = ln(src + sa, enc.norm1)
    ff = np.maximum(x @ enc.dense1.weight.asnumpy().T + enc.dense1.bias.asnumpy(), 0)
    ff = ff @ enc.dense2.weight.asnumpy().T + enc.dense2.bias.asnumpy()
    want = ln(x + ff, enc.norm2)
    np.testing.assert_allclose(enc(ms.Tensor(src)).asnumpy(), want, rtol=1e-8, atol=1e-10)
    stack = nn.TransformerEncoder(enc, 2, nn.LayerNorm((8,)))
    assert stack(ms.Tensor(src.astype(np.float32))).shape == (3, 2, 8)
    names = [n for n, _ in stack.parameters_and_names()]
    assert "layers.1.self_attn.in_proj_weight" in names and names[-1] == "norm.beta"
    dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True, activation="gelu")
    assert dec(ms.ops.ones((4, 2, 8)), ms.ops.ones((3, 2, 8))).shape == (4, 2, 8)
    tr = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True)
    assert tr(ms.ops.ones((2, 3, 8)), ms.ops.ones((2, 4, 8))).shape == (2, 4, 8)
    check_cell_grad(to64(nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0)), [rnd(2, 1, 4)], max_checks=6)


def test_transformer_repr():
    text = repr(nn.TransformerEncoderLayer(4, 2, 8))
    assert text.splitlines()[:4] == ["TransformerEncoderLayer(", "  (self_attn): MultiheadAttention(",
                                     "    (out_proj): Dense(input_channels=4, output_channels=4, has_bias=True)",
                                     "  )"]
    assert "  (dense1): Dense(input_channels=4, output_channels=8, has_bias=True)" in text
    assert "  (dropout2): Dropout(p=0.1)" in text


ERRORS = [
    ErrorSpec("rnn_hidden", lambda: nn.LSTM(3, 0), ValueError, "For 'LSTM'"),
    ErrorSpec("rnn_dropout", lambda: nn.GRU(3, 4, dropout=1.0), ValueError, "dropout"),
    ErrorSpec("rnn_nonlinearity", lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError, "nonlinearity"),
    ErrorSpec("rnn_input_rank", lambda: nn.GRU(3, 4)(ms.ops.ones((2, 3))), ValueError, "For 'GRU'"),
    ErrorSpec("lstm_hx_type", lambda: nn.LSTM(3, 4)(ms.ops.ones((2, 1, 3)), ms.ops.ones((1, 1, 4))), TypeError,
              "For 'LSTM'"),
    ErrorSpec("rnn_seq_len", lambda: nn.RNN(3, 4)(ms.ops.ones((2, 2, 3)), None, ms.Tensor([2, 2, 2])), ValueError,
              "seq_length"),
    ErrorSpec("rnncell_dtype", lambda: nn.RNNCell(3, 4)(ms.Tensor([[1, 2, 3]]), ms.ops.ones((1, 4))), TypeError,
              "For 'RNNCell'"),
    ErrorSpec("lstmcell_hx", lambda: nn.LSTMCell(3, 4)(ms.ops.ones((1, 3)), ms.ops.ones((1, 4))), TypeError,
              "For 'LSTMCell'"),
    ErrorSpec("embedding_ids", lambda: nn.Embedding(4, 2)(ms.ops.ones((2,))), TypeError, "For 'Embedding'"),
    ErrorSpec("embedding_padding", lambda: nn.Embedding(4, 2, padding_idx=4), ValueError, "padding_idx"),
    ErrorSpec("lookup_target", lambda: nn.EmbeddingLookup(4, 2, target="GPU"), ValueError, "target"),
    ErrorSpec("lookup_sparse", lambda: nn.EmbeddingLookup(4, 2, sparse=False), ValueError, "sparse"),
    ErrorSpec("mha_heads", lambda: nn.MultiheadAttention(5, 2), ValueError, "divisible"),
    ErrorSpec("mha_mask_shape", lambda: nn.MultiheadAttention(4, 2)(
        ms.ops.ones((3, 1, 4)), ms.ops.ones((2, 1, 4)), ms.ops.ones((2, 1, 4)), attn_mask=ms.ops.ones((3, 3))),
        ValueError, "attn_mask"),
    ErrorSpec("transformer_activation", lambda: nn.TransformerEncoderLayer(4, 2, activation=nn.Tanh()), ValueError,
              "activation"),
    ErrorSpec("transformer_features", lambda: nn.Transformer(8, 2, 1, 1, 16)(ms.ops.ones((2, 1, 4)),
                                                                            ms.ops.ones((2, 1, 4))),
              ValueError, "d_model"),
]
test_bad_input = make_error_tests(ERRORS)


@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
def test_initial_state_shape_is_checked(name):
    # MindSpore 2.10 raises a ValueError for an hx whose (layers * directions, batch, hidden) shape is wrong
    net = getattr(nn, name)(4, 5, num_layers=2, bidirectional=True, batch_first=True)
    x = ms.ops.ones((3, 2, 4))
    for shape in [(2, 3, 5), (4, 2, 5), (4, 3, 6), (3, 5)]:
        h = ms.ops.ones(shape)
        with pytest.raises(ValueError, match=rf"For '{name}', the shape of 'hx(\[0\])?' must be .*\(4, 3, 5\)"):
            net(x, (h, h) if name == "LSTM" else h)
    h = ms.ops.zeros((4, 3, 5))
    out, _ = net(x, (h, h) if name == "LSTM" else h)
    assert out.shape == (3, 2, 10)
