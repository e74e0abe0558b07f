"""ops.flash_attention_score: scaled dot-product attention over MindSpore's fused-attention layouts, composed of
differentiable ops (on a CPU there is no fused kernel to call; the result and its gradients are the same).

scores = scale * (pse + q k^T) per head; positions where `attn_mask` is 1 (True) are excluded; softmax over the
keys; out = softmax @ v. Grouped-query attention: the key/value heads are shared by head_num / kv_heads query heads.
"""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F

__all__ = ["flash_attention_score", "prompt_flash_attention", "incre_flash_attention", "fused_infer_attention_score"]

TENSOR_METHODS = {}

_INT_MAX = 2147483647
_LAYOUTS = ("BSH", "SBH", "BSND", "BNSD")
_VARLEN = ("TND", "TH")         # sequences of different lengths packed along T, cut by cumulative lengths


def _to_bnsd(x, layout, heads):
    if layout in ("BSH", "SBH"):
        if layout == "SBH":
            x = F.transpose(x, (1, 0, 2))
        b, s, h = x.shape
        x = F.reshape(x, (b, s, heads, h // heads))
    if layout != "BNSD":
        x = F.transpose(x, (0, 2, 1, 3))
    return x


def _from_bnsd(x, layout):
    if layout == "BNSD":
        return x
    x = F.transpose(x, (0, 2, 1, 3))                                  # B S N D
    if layout == "BSND":
        return x
    b, s, n, d = x.shape
    x = F.reshape(x, (b, s, n * d))
    return F.transpose(x, (1, 0, 2)) if layout == "SBH" else x


def _kv_heads(key, layout, query_heads, query_dim):
    if layout in ("BSND", "BNSD"):
        return key.shape[2 if layout == "BSND" else 1]
    return key.shape[-1] // query_dim if key.shape[-1] % query_dim == 0 else 0


def _band(s1, s2, sparse_mode):
    """The positions (query i, key j) excluded by the causal or band rule of `sparse_mode`, or None."""
    i, j = np.arange(s1)[:, None], np.arange(s2)[None, :]
    if sparse_mode == 2:                     # causal from the upper-left corner
        return j > i
    if sparse_mode == 3:                     # causal from the lower-right corner
        return j > i + (s2 - s1)
    return None     # sparse_mode 0: the mask as given (pre/next tokens only describe it)


def flash_attention_score(query, key, value, head_num, real_shift=None, drop_mask=None, padding_mask=None,
                          attn_mask=None, prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, keep_prob=1.0,
                          scalar_value=1.0, pre_tokens=_INT_MAX, next_tokens=_INT_MAX, inner_precise=0,
                          input_layout="BSH", sparse_mode=0):
    """Attention of `query` over `key`/`value` in `input_layout` ('BSH', 'SBH', 'BSND', 'BNSD', or the packed
    'TND' / 'TH' with `actual_seq_qlen` / `actual_seq_kvlen`); returns the attention output in the query's layout.

    Args:
        head_num (int): the number of query heads.
        real_shift (Tensor): a position bias added to q k^T (broadcast to (B, N, S1, S2)).
        attn_mask (Tensor): 1 / True where a (query, key) pair is excluded, broadcast to (B, N, S1, S2).
        scalar_value (float): the scale of the scores (usually 1 / sqrt(D)).
        pre_tokens, next_tokens (int): with sparse_mode 0 they describe the band `attn_mask` holds (the mask is
            applied as given).
        sparse_mode (int): 0 (the mask as given), 2 (causal, upper-left aligned), 3 (causal, lower-right aligned).
        actual_seq_qlen, actual_seq_kvlen (Union[list[int], tuple[int], Tensor]): with 'TND' / 'TH', the cumulative
            lengths of the packed sequences of query and key/value (sequence i is rows [len[i-1], len[i])), or the
            length of each. Each sequence attends only to its own keys; with sparse_mode 0 a 2-D `attn_mask` is read
            from its top-left corner.

    Raises:
        ValueError: an unknown layout or sparse_mode, keep_prob < 1 (attention dropout), cumulative lengths missing
            or given where they do not apply, or head counts that do not divide.
    """
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'FlashAttentionScore', the '{name}' must be a Tensor, but got {type(t).__name__}.")
    check_fa_args(input_layout, sparse_mode, keep_prob, drop_mask, prefix, actual_seq_qlen, actual_seq_kvlen)
    if input_layout in _VARLEN:
        return attend_varlen(query, key, value, head_num, input_layout, scalar_value, attn_mask, real_shift,
                             sparse_mode, actual_seq_qlen, actual_seq_kvlen)[0]
    return attend(query, key, value, head_num, input_layout, scalar_value, attn_mask, real_shift, sparse_mode)[0]


def check_fa_args(input_layout, sparse_mode, keep_prob, drop_mask, prefix, actual_seq_qlen, actual_seq_kvlen):
    """FlashAttentionScore's checks of the layout, the sparse mode, the cumulative lengths the packed layouts take
    and the forms not carried (dropout, prefix)."""
    if input_layout not in _LAYOUTS + _VARLEN:
        raise ValueError(f"For 'FlashAttentionScore', the 'input_layout' must be one of {_LAYOUTS + _VARLEN}, but "
                         f"got {input_layout!r}.")
    if sparse_mode not in (0, 2, 3):
        raise ValueError(f"For 'FlashAttentionScore', the 'sparse_mode' must be 0, 2 or 3 here, but got "
                         f"{sparse_mode}.")
    if keep_prob != 1.0 or drop_mask is not None:
        raise ValueError(f"For 'FlashAttentionScore', attention dropout (keep_prob={keep_prob}) is not supported: "
                         f"apply ops.dropout to the output instead.")
    if prefix is not None:
        raise ValueError("For 'FlashAttentionScore', the 'prefix' (sparse_mode 5) is not supported: pass the prefix "
                         "pattern as attn_mask with sparse_mode 0.")
    packed = input_layout in _VARLEN
    if packed != (actual_seq_qlen is not None) or packed != (actual_seq_kvlen is not None):
        raise ValueError(f"For 'FlashAttentionScore', 'actual_seq_qlen' and 'actual_seq_kvlen' are required with the "
                         f"input_layout 'TND' or 'TH' and only then, but got input_layout {input_layout!r} with "
                         f"actual_seq_qlen {actual_seq_qlen} and actual_seq_kvlen {actual_seq_kvlen}.")


def _check_qkv(query, key, value, input_layout):
    """query, key and value are Tensors of the layout's rank."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'FlashAttentionScore', the '{name}' must be a Tensor, but got {type(t).__name__}.")
        if t.ndim != len(input_layout):
            raise ValueError(f"For 'FlashAttentionScore', the '{name}' must be {len(input_layout)}-D in the layout "
                             f"{input_layout}, but got shape {t.shape}.")


def attend(query, key, value, head_num, input_layout, scale, attn_mask, pse, sparse_mode):
    """(output in the query's layout, the masked, scaled scores (B, N, S1, S2))."""
    _check_qkv(query, key, value, input_layout)
    q = _to_bnsd(query, input_layout, head_num)
    kv_heads = _kv_heads(key, input_layout, head_num, q.shape[-1])
    if kv_heads <= 0 or head_num % kv_heads:
        raise ValueError(f"For 'FlashAttentionScore', the 'head_num' {head_num} must be a multiple of the key/value "
                         f"heads, but the key of shape {key.shape} holds {kv_heads} heads of size {q.shape[-1]}.")
    k, v = _to_bnsd(key, input_layout, kv_heads), _to_bnsd(value, input_layout, kv_heads)
    if kv_heads != head_num:
        k, v = (F.repeat_interleave(t, head_num // kv_heads, 1) for t in (k, v))
    scores = F.matmul(q, F.swapaxes(k, -1, -2))
    if pse is not None:
        scores = scores + pse
    scores = scores * scale
    excluded = _band(q.shape[2], k.shape[2], sparse_mode)
    if attn_mask is not None:
        masked = F.cast(attn_mask, mstype.bool_)
        excluded = masked if excluded is None else F.logical_or(masked, Tensor(excluded))
    elif excluded is not None:
        excluded = Tensor(excluded)
    if excluded is not None:
        scores = F.masked_fill(scores, F.broadcast_to(excluded, scores.shape), float("-inf"))
    probs = F.softmax(scores, -1)
    if excluded is not None:                 # a query with every key excluded attends to nothing: zeros, not NaN
        probs = F.where(F.isnan(probs), F.zeros_like(probs), probs)
    return _from_bnsd(F.matmul(probs, v), input_layout), scores


def _cumulative(name, lengths, total):
    """The end of each packed sequence. `lengths` (a list, tuple or Tensor) holds those ends, non-decreasing up to the
    packed size (the documented 'TND' form), or the length of each sequence, summing to it (the form MindSpore's
    inference kernel takes with 'TH', which mindformers passes): the two agree whenever both read the same list."""
    if isinstance(lengths, Tensor):
        lengths = lengths.asnumpy().reshape(-1).tolist()
    values = [int(n) for n in lengths]
    if values and all(b >= a for a, b in zip([0] + values, values)) and values[-1] == total:
        return values
    if values and min(values) >= 0 and sum(values) == total:
        return np.cumsum(values).tolist()
    raise ValueError(f"For 'FlashAttentionScore', the '{name}' must be the cumulative lengths of the packed "
                     f"sequences (non-decreasing, ending at the packed size {total}) or their lengths (summing to "
                     f"it), but got {values}.")


def attend_varlen(query, key, value, head_num, input_layout, scale, attn_mask, pse, sparse_mode, actual_seq_qlen,
                  actual_seq_kvlen):
    """The packed layouts 'TND' (T, N, D) and 'TH' (T, N * D): each sequence attends to its own keys. Returns (the
    output in the query's layout, the masked, scaled scores (1, N, S1, S2) of each sequence)."""
    _check_qkv(query, key, value, input_layout)
    q_ends = _cumulative("actual_seq_qlen", actual_seq_qlen, query.shape[0])
    kv_ends = _cumulative("actual_seq_kvlen", actual_seq_kvlen, key.shape[0])
    if len(q_ends) != len(kv_ends):
        raise ValueError(f"For 'FlashAttentionScore', the 'actual_seq_qlen' and 'actual_seq_kvlen' must list as many "
                         f"sequences, but got {len(q_ends)} and {len(kv_ends)}.")
    if pse is not None:
        raise ValueError("For 'FlashAttentionScore', a 'real_shift' with the packed layouts 'TND' / 'TH' is not "
                         "supported: pad the batch into 'BNSD' to add a position bias.")
    if attn_mask is not None and sparse_mode == 0 and attn_mask.ndim != 2:
        raise ValueError(f"For 'FlashAttentionScore', with the packed layouts and sparse_mode 0 the 'attn_mask' must "
                         f"be 2-D (read from its top-left corner for each sequence), but got shape {attn_mask.shape}.")
    layout = "BSND" if input_layout == "TND" else "BSH"
    outs, scores = [], []
    q0 = k0 = 0
    for q1, k1 in zip(q_ends, kv_ends):
        if q1 > q0:
            mask = None
            if attn_mask is not None and sparse_mode == 0:
                mask = attn_mask[:q1 - q0, :k1 - k0]
            out, s = attend(F.expand_dims(query[q0:q1], 0), F.expand_dims(key[k0:k1], 0),
                            F.expand_dims(value[k0:k1], 0), head_num, layout, scale, mask, None, sparse_mode)
            outs.append(out[0])
            scores.append(s)
        q0, k0 = q1, k1
    return (F.concat(outs, 0) if outs else query * 0), scores


def _check_inference(api, layout, sparse_mode, **unsupported):
    if layout not in _LAYOUTS:
        raise ValueError(f"For '{api}', the 'input_layout' must be one of {_LAYOUTS}, but got {layout!r}.")
    if sparse_mode not in (0, 2, 3):
        raise ValueError(f"For '{api}', the 'sparse_mode' must be 0, 2 or 3 here, but got {sparse_mode}.")
    given = [k for k, v in unsupported.items() if v is not None]
    if given:
        raise ValueError(f"For '{api}', {', '.join(given)} (quantisation, paged or variable-length caches) are not "
                         f"supported: pass dequantised, padded key/value with attn_mask.")


def prompt_flash_attention(query, key, value, attn_mask=None, actual_seq_lengths=None, actual_seq_lengths_kv=None,
                           pse_shift=None, deq_scale1=None, quant_scale1=None, deq_scale2=None, quant_scale2=None,
                           quant_offset2=None, num_heads=1, scale_value=1.0, pre_tokens=_INT_MAX, next_tokens=0,
                           input_layout="BSH", num_key_value_heads=0, sparse_mode=0, inner_precise=1):
    """Attention of a whole prompt (see flash_attention_score): `attn_mask` 1/True excludes a pair, `pse_shift` is
    a position bias, sparse_mode 2/3 causal; returns the output in the query's layout."""
    _check_inference("PromptFlashAttention", input_layout, sparse_mode, actual_seq_lengths=actual_seq_lengths,
                     actual_seq_lengths_kv=actual_seq_lengths_kv, deq_scale1=deq_scale1, quant_scale1=quant_scale1,
                     deq_scale2=deq_scale2, quant_scale2=quant_scale2, quant_offset2=quant_offset2)
    return attend(query, key, value, num_heads, input_layout, scale_value, attn_mask, pse_shift, sparse_mode)[0]


def incre_flash_attention(query, key, value, attn_mask=None, actual_seq_lengths=None, pse_shift=None,
                          dequant_scale1=None, quant_scale1=None, dequant_scale2=None, quant_scale2=None,
                          quant_offset2=None, antiquant_scale=None, antiquant_offset=None, block_table=None,
                          num_heads=1, input_layout="BSH", scale_value=1.0, num_key_value_heads=0, block_size=0,
                          inner_precise=1, kv_padding_size=None):
    """Attention of the new token(s) of an incremental decoding step over the cached keys and values."""
    _check_inference("IncreFlashAttention", input_layout, 0, actual_seq_lengths=actual_seq_lengths,
                     dequant_scale1=dequant_scale1, quant_scale1=quant_scale1, dequant_scale2=dequant_scale2,
                     quant_scale2=quant_scale2, quant_offset2=quant_offset2, antiquant_scale=antiquant_scale,
                     antiquant_offset=antiquant_offset, block_table=block_table, kv_padding_size=kv_padding_size)
    return attend(query, key, value, num_heads, input_layout, scale_value, attn_mask, pse_shift, 0)[0]


def fused_infer_attention_score(query, key, value, *, pse_shift=None, atten_mask=None, actual_seq_lengths=None,
                                actual_seq_lengths_kv=None, dequant_scale1=None, quant_scale1=None,
                                dequant_scale2=None, quant_scale2=None, quant_offset2=None, antiquant_scale=None,
                                antiquant_offset=None, key_antiquant_scale=None, key_antiquant_offset=None,
                                value_antiquant_scale=None, value_antiquant_offset=None, block_table=None,
                                query_padding_size=None, kv_padding_size=None, key_shared_prefix=None,
                                value_shared_prefix=None, actual_shared_prefix_len=None, num_heads=1, scale=1.0,
                                pre_tokens=_INT_MAX, next_tokens=_INT_MAX, input_layout="BSH",
                                num_key_value_heads=0, sparse_mode=0, inner_precise=1, block_size=0,
                                antiquant_mode=0, key_antiquant_mode=0, value_antiquant_mode=0,
                                softmax_lse_flag=False):
    """Prompt or incremental attention in one op: (attention output in the query's layout, the log-sum-exp of the
    scores (B, N, S1, 1) when softmax_lse_flag, else a zero of shape (1,))."""
    _check_inference("FusedInferAttentionScore", input_layout, sparse_mode, actual_seq_lengths=actual_seq_lengths,
                     actual_seq_lengths_kv=actual_seq_lengths_kv, dequant_scale1=dequant_scale1,
                     quant_scale1=quant_scale1, dequant_scale2=dequant_scale2, quant_scale2=quant_scale2,
                     quant_offset2=quant_offset2, antiquant_scale=antiquant_scale, antiquant_offset=antiquant_offset,
                     key_antiquant_scale=key_antiquant_scale, key_antiquant_offset=key_antiquant_offset,
                     value_antiquant_scale=value_antiquant_scale, value_antiquant_offset=value_antiquant_offset,
                     block_table=block_table, query_padding_size=query_padding_size, kv_padding_size=kv_padding_size,
                     key_shared_prefix=key_shared_prefix, value_shared_prefix=value_shared_prefix,
                     actual_shared_prefix_len=actual_shared_prefix_len)
    out, scores = attend(query, key, value, num_heads, input_layout, scale, atten_mask, pse_shift, sparse_mode)
    return out, (F.logsumexp(scores, -1, True) if softmax_lse_flag else F.zeros((1,), mstype.float32))
