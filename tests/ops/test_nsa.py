"""ops.nsa_compress and ops.nsa_select_attention against numpy loops over windows and query tokens."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

T = ms.Tensor


def _reference(x, w, block, stride, seq):
    out, begin = [], 0
    for end in seq:
        for start in range(begin, end - block + 1, stride):
            out.append((x[start:start + block].astype(np.float32) * w.astype(np.float32)[:, :, None]).sum(0))
        begin = end
    return np.array(out).astype(x.dtype).reshape(-1, x.shape[1], x.shape[2])


@pytest.mark.parametrize("block, stride, segments", [(64, 16, [80, 96, 80]), (16, 16, [15, 33, 16]),
                                                     (32, 32, [31]), (48, 16, [100])])
def test_nsa_compress_equals_the_window_loop(block, stride, segments):
    rs = np.random.RandomState(block + stride)
    seq = tuple(np.cumsum(segments).tolist())
    x = rs.standard_normal((seq[-1], 3, 32)).astype(np.float16)
    w = rs.standard_normal((block, 3)).astype(np.float16)
    got = ops.nsa_compress(T(x), T(w), block, stride, actual_seq_len=seq)
    want = _reference(x, w, block, stride, seq)
    assert got.shape == want.shape and got.dtype == ms.float16
    np.testing.assert_allclose(got.asnumpy().astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_nsa_compress_gradient_of_weight_and_input():
    rs = np.random.RandomState(0)
    seq = (40, 72)
    x = rs.standard_normal((72, 2, 16)).astype(np.float16)
    w = rs.standard_normal((16, 2)).astype(np.float16)
    gx, gw = ms.grad(lambda a, b: ops.nsa_compress(a, b, 16, 16, actual_seq_len=seq).astype(ms.float32).sum(),
                     grad_position=(0, 1))(T(x), T(w))
    starts = [0, 16, 40, 56]            # two windows in each segment (40 and 32 tokens)
    want_w = sum(x[s:s + 16].astype(np.float32).sum(-1) for s in starts)
    want_x = np.zeros((72, 2, 16), np.float32)
    for s in starts:
        want_x[s:s + 16] += w.astype(np.float32)[:, :, None]
    np.testing.assert_allclose(gw.asnumpy().astype(np.float32), want_w, rtol=2e-3, atol=2e-2)
    np.testing.assert_allclose(gx.asnumpy().astype(np.float32), want_x, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("kwargs, err, match", [
    ({"input": np.zeros((32, 1, 16), np.float32)}, TypeError, "float16 or bfloat16"),
    ({"weight": np.zeros((16, 1), np.float32)}, TypeError, "same dtype"),
    ({"compress_block_size": 16.0}, TypeError, "'compress_block_size' must be an int"),
    ({"weight": np.zeros((32, 1), np.float16)}, RuntimeError, "'weight' shape"),
    ({"compress_stride": 8}, RuntimeError, "'compress_stride' must be a multiple of 16"),
    ({"input": np.zeros((32, 1, 24), np.float16)}, RuntimeError, "D must be a multiple of 16"),
    ({"actual_seq_len": (20, 10, 32)}, RuntimeError, "non-decreasing"),
    ({"actual_seq_len": (16, 30)}, RuntimeError, "ending at T=32"),
    ({"actual_seq_len": "32"}, TypeError, "tuple or list of int"),
])
def test_nsa_compress_bad_input(kwargs, err, match):
    args = {"input": np.zeros((32, 1, 16), np.float16), "weight": np.zeros((16, 1), np.float16),
            "compress_block_size": 16, "compress_stride": 16, "actual_seq_len": (32,)}
    args.update(kwargs)
    with pytest.raises(err, match=match):
        ops.nsa_compress(T(args["input"]), T(args["weight"]), args["compress_block_size"], args["compress_stride"],
                         actual_seq_len=args["actual_seq_len"])


def _select_reference(q, k, v, top, scale, block, q_seq, kv_seq):
    """Loop over query tokens and key heads: softmax over the selected blocks' tokens (float32, probabilities
    rounded to float16 before the value product)."""
    t1, n1, _ = q.shape
    n2, dv = k.shape[1], v.shape[2]
    g = n1 // n2
    out = np.zeros((t1, n1, dv), np.float32)
    mx, sm = np.zeros((t1, n1), np.float32), np.zeros((t1, n1), np.float32)
    for t in range(t1):
        b = int(np.searchsorted(q_seq, t, side="right"))
        kv0 = 0 if b == 0 else kv_seq[b - 1]
        for h in range(n2):
            idx = np.concatenate([np.arange(kv0 + i * block, kv0 + (i + 1) * block) for i in top[t, h]])
            keys, vals = k[idx, h].astype(np.float32), v[idx, h].astype(np.float32)
            for j in range(g):
                s = keys @ q[t, h * g + j].astype(np.float32) * scale
                e = np.exp(s - s.max())
                p = (e / e.sum()).astype(np.float16).astype(np.float32)
                out[t, h * g + j] = p @ vals
                mx[t, h * g + j], sm[t, h * g + j] = s.max(), e.sum()
    return out.astype(np.float16), mx, sm


def test_nsa_select_attention_equals_the_token_loop():
    rs = np.random.RandomState(3)
    block, count, q_seq, kv_seq = 8, 3, [5, 9], [32, 72]        # batch 0: 4 key blocks, batch 1: 5
    q = rs.standard_normal((9, 4, 16)).astype(np.float16)
    k = rs.standard_normal((72, 2, 16)).astype(np.float16)
    v = rs.standard_normal((72, 2, 8)).astype(np.float16)
    top = np.stack([rs.choice(4 if t < 5 else 5, size=(2, count)) for t in range(9)]).astype(np.int32)
    out, mx, sm = ops.nsa_select_attention(T(q), T(k), T(v), T(top), 0.25, 4, block, count,
                                           actual_seq_qlen=q_seq, actual_seq_kvlen=kv_seq)
    want_out, want_mx, want_sm = _select_reference(q, k, v, top, 0.25, block, q_seq, kv_seq)
    assert out.dtype == ms.float16 and mx.shape == (9, 4, 8) and sm.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), want_out.astype(np.float32), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(mx.asnumpy(), np.repeat(want_mx[:, :, None], 8, 2), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sm.asnumpy(), np.repeat(want_sm[:, :, None], 8, 2), rtol=1e-5)


@pytest.mark.parametrize("change, err, match", [
    ({"top": np.full((2, 1, 1), 2, np.int32)}, RuntimeError, "whole block of its batch"),
    ({"scale": 1}, TypeError, "'scale_value' must be a float"),
    ({"heads": 3}, RuntimeError, "'head_num' must equal N1=2"),
    ({"kv_seq": [6, 8]}, RuntimeError, "multiple of select_block_size"),
    ({"top": np.zeros((2, 1, 1), np.int64)}, TypeError, "must be int32"),
])
def test_nsa_select_attention_bad_input(change, err, match):
    args = {"top": np.zeros((2, 1, 1), np.int32), "scale": 1.0, "heads": 2, "kv_seq": [4, 8]}
    args.update(change)
    q, k = T(np.ones((2, 2, 16), np.float16)), T(np.ones((8, 1, 16), np.float16))
    with pytest.raises(err, match=match):
        ops.nsa_select_attention(q, k, k, T(args["top"]), args["scale"], args["heads"], 4, 1, actual_seq_qlen=[1, 2],
                                 actual_seq_kvlen=args["kv_seq"])
