"""ops.flash_attention_score against a numpy reference: layouts, grouped-query heads, masks, causal modes, position
bias; gradients vs float64 finite differences; bad arguments."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests


def _np_attention(q, k, v, scale, excluded=None, pse=None):
    """q (B, N, S1, D), k/v (B, N, S2, D) -> (B, N, S1, D)."""
    s = q @ np.swapaxes(k, -1, -2)
    if pse is not None:
        s = s + pse
    s = s * scale
    if excluded is not None:
        s = np.where(excluded, -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def _bsh_to_bnsd(x, n):
    b, s, h = x.shape
    return x.reshape(b, s, n, h // n).transpose(0, 2, 1, 3)


def _bnsd_to_bsh(x):
    b, n, s, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, s, n * d)


_MASK = np.triu(np.ones((3, 5), bool), 3)          # a few excluded pairs


def _ref_bsh_gqa(q, k, v):
    kk = np.repeat(_bsh_to_bnsd(k, 1), 2, 1)
    vv = np.repeat(_bsh_to_bnsd(v, 1), 2, 1)
    return _bnsd_to_bsh(_np_attention(_bsh_to_bnsd(q, 2), kk, vv, 0.5, _MASK))


_Q_ENDS, _KV_ENDS = [3, 5], [4, 7]         # two packed sequences: queries 3 and 2, keys 4 and 3


def _ref_tnd_causal(q, k, v):
    """q (T1, 2, D), k/v (T2, 1, D) packed by _Q_ENDS / _KV_ENDS; lower-right causal within each sequence."""
    out, q0, k0 = [], 0, 0
    for q1, k1 in zip(_Q_ENDS, _KV_ENDS):
        s1, s2 = q1 - q0, k1 - k0
        qq = q[q0:q1].transpose(1, 0, 2)[None]                          # (1, 2, S1, D)
        kk = np.repeat(k[k0:k1].transpose(1, 0, 2)[None], 2, 1)
        vv = np.repeat(v[k0:k1].transpose(1, 0, 2)[None], 2, 1)
        excluded = np.arange(s2)[None, :] > np.arange(s1)[:, None] + (s2 - s1)
        out.append(_np_attention(qq, kk, vv, 0.5, excluded)[0].transpose(1, 0, 2))
        q0, k0 = q1, k1
    return np.concatenate(out, 0)


SPECS = [
    OpSpec("fas-tnd-gqa-causal", lambda q, k, v: ops.flash_attention_score(
        q, k, v, 2, scalar_value=0.5, input_layout="TND", sparse_mode=3, actual_seq_qlen=_Q_ENDS,
        actual_seq_kvlen=_KV_ENDS), _ref_tnd_causal, shapes=[(5, 2, 3), (7, 1, 3), (7, 1, 3)]),
    OpSpec("fas-bnsd-causal", lambda q, k, v: ops.flash_attention_score(q, k, v, 2, scalar_value=0.5,
                                                                        input_layout="BNSD", sparse_mode=2),
           lambda q, k, v: _np_attention(q, k, v, 0.5, np.arange(4)[None, :] > np.arange(4)[:, None]),
           shapes=[(1, 2, 4, 3), (1, 2, 4, 3), (1, 2, 4, 3)]),
    OpSpec("fas-bsh-gqa-mask", lambda q, k, v: ops.flash_attention_score(q, k, v, 2, attn_mask=ms.Tensor(_MASK),
                                                                         scalar_value=0.5),
           _ref_bsh_gqa, shapes=[(2, 3, 4), (2, 5, 2), (2, 5, 2)]),
    OpSpec("fas-bsnd-pse", lambda q, k, v, p: ops.flash_attention_score(q, k, v, 1, real_shift=p, scalar_value=0.7,
                                                                        input_layout="BSND"),
           lambda q, k, v, p: _np_attention(q.transpose(0, 2, 1, 3), k.transpose(0, 2, 1, 3),
                                            v.transpose(0, 2, 1, 3), 0.7, pse=p).transpose(0, 2, 1, 3),
           shapes=[(1, 3, 1, 2), (1, 4, 1, 2), (1, 4, 1, 2), (1, 1, 3, 4)]),
]
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)

_X = ms.Tensor(np.ones((1, 2, 4), np.float32))
test_bad_input = make_error_tests([
    ErrorSpec("fas-layout", lambda: ops.flash_attention_score(_X, _X, _X, 1, input_layout="NSD"), ValueError,
              "For 'FlashAttentionScore', the 'input_layout' must be one of"),
    ErrorSpec("fas-tnd-lengths", lambda: ops.flash_attention_score(_X[0], _X[0], _X[0], 1, input_layout="TH"),
              ValueError, "'actual_seq_qlen' and 'actual_seq_kvlen' are required with the input_layout 'TND' or 'TH'"),
    ErrorSpec("fas-tnd-bad-lengths", lambda: ops.flash_attention_score(
        _X[0], _X[0], _X[0], 1, input_layout="TH", actual_seq_qlen=[1, 3], actual_seq_kvlen=[2]), ValueError,
              "(non-decreasing, ending at the packed size 2) or their lengths (summing to it), but got [1, 3]."),
    ErrorSpec("fas-lengths-not-packed", lambda: ops.flash_attention_score(
        _X, _X, _X, 1, actual_seq_qlen=[2], actual_seq_kvlen=[2]), ValueError, "are required with the input_layout"),
    ErrorSpec("fas-sparse-mode", lambda: ops.flash_attention_score(_X, _X, _X, 1, sparse_mode=5), ValueError,
              "'sparse_mode' must be 0, 2 or 3"),
    ErrorSpec("fas-dropout", lambda: ops.flash_attention_score(_X, _X, _X, 1, keep_prob=0.9), ValueError,
              "attention dropout"),
    ErrorSpec("fas-heads", lambda: ops.flash_attention_score(_X, ms.Tensor(np.ones((1, 2, 3), np.float32)), _X, 2),
              ValueError, "must be a multiple of the key/value heads"),
    ErrorSpec("fas-list", lambda: ops.flash_attention_score([1.0], _X, _X, 1), TypeError,
              "For 'FlashAttentionScore', the 'query' must be a Tensor"),
])


def test_lower_right_causal_and_sbh_layout():
    r = np.random.RandomState(0)
    q, k, v = r.randn(3, 1, 4), r.randn(5, 1, 4), r.randn(5, 1, 4)           # SBH, one head
    got = ops.flash_attention_score(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), 1, input_layout="SBH",
                                    sparse_mode=3).asnumpy()
    excluded = np.arange(5)[None, :] > np.arange(3)[:, None] + 2
    want = _np_attention(q.transpose(1, 0, 2)[:, None], k.transpose(1, 0, 2)[:, None], v.transpose(1, 0, 2)[:, None],
                         1.0, excluded)[:, 0].transpose(1, 0, 2)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_prompt_incre_and_fused_infer_attention_match_the_reference():
    r = np.random.RandomState(1)
    q, k, v = r.randn(1, 3, 4), r.randn(1, 5, 4), r.randn(1, 5, 4)            # BSH, 2 heads of 2
    want = _bnsd_to_bsh(_np_attention(_bsh_to_bnsd(q, 2), _bsh_to_bnsd(k, 2), _bsh_to_bnsd(v, 2), 0.5, _MASK))
    args = (ms.Tensor(q), ms.Tensor(k), ms.Tensor(v))
    got = ops.prompt_flash_attention(*args, attn_mask=ms.Tensor(_MASK), num_heads=2, scale_value=0.5)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12)
    got = ops.incre_flash_attention(*args, attn_mask=ms.Tensor(_MASK), num_heads=2, scale_value=0.5)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12)
    out, lse = ops.fused_infer_attention_score(*args, atten_mask=ms.Tensor(_MASK), num_heads=2, scale=0.5,
                                               softmax_lse_flag=True)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-12)
    s = _bsh_to_bnsd(q, 2) @ np.swapaxes(_bsh_to_bnsd(k, 2), -1, -2) * 0.5
    s = np.where(_MASK, -np.inf, s)
    np.testing.assert_allclose(lse.asnumpy(), np.log(np.exp(s).sum(-1, keepdims=True)), rtol=1e-12)
    with pytest.raises(ValueError, match="For 'IncreFlashAttention', block_table"):
        ops.incre_flash_attention(*args, block_table=ms.Tensor([0]))


def test_packed_th_layout_takes_lengths_or_cumulative_ends_and_reads_the_mask_corner():
    """'TH' (T, N * D): mindformers passes each sequence's length where 'TND' documents the cumulative ends; both
    cut the same sequences. With sparse_mode 0 a 2-D mask (mindformers' 128 x 128 upper triangle of -10000) is read
    from its top-left corner for each sequence; FlashAttentionScore's statistics come per token, (T1, N, 8)."""
    from mindseed.ops.auto_generate import FlashAttentionScore
    r = np.random.RandomState(2)
    q, k, v = r.randn(5, 4), r.randn(5, 4), r.randn(5, 4)                   # 2 heads of 2, sequences of 3 and 2
    mask = ms.Tensor(np.triu(np.ones((128, 128), np.float32), 1) * -10000.0)
    fa = FlashAttentionScore(2, scale_value=0.5, next_tokens=0, input_layout="TH")
    by_lengths = fa(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), None, None, None, mask, None, [3, 2], [3, 2])
    by_ends = fa(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), None, None, None, mask, None, ms.Tensor([3, 5]),
                 ms.Tensor([3, 5]))
    want, row_max = [], []
    for lo, hi in ((0, 3), (3, 5)):
        qq, kk, vv = (_bsh_to_bnsd(t[None, lo:hi], 2) for t in (q, k, v))
        causal = np.arange(hi - lo)[None, :] > np.arange(hi - lo)[:, None]
        want.append(_bnsd_to_bsh(_np_attention(qq, kk, vv, 0.5, causal))[0])
        scores = np.where(causal, -np.inf, qq @ np.swapaxes(kk, -1, -2) * 0.5)
        row_max.append(scores.max(-1)[0].T)                                   # (S, N)
    for got in (by_lengths, by_ends):
        np.testing.assert_allclose(got[3].asnumpy(), np.concatenate(want), rtol=1e-10)
        assert got[0].shape == (5, 2, 8)
        np.testing.assert_allclose(got[0].asnumpy()[..., 0], np.concatenate(row_max), rtol=1e-6)     # float32
