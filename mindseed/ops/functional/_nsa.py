"""Native sparse attention (`ops.nsa_compress`, `ops.nsa_select_attention`), composed of mindseed ops (so they
differentiate).

MindSpore runs them on Ascend only; the definitions are those of the kernels' references in torch_npu's tests of
`npu_nsa_compress` (the weighted sum of each window, per head, in float32) and `npu_nsa_select_attention` (attention
over the selected key blocks of each query token, in float32, the probabilities rounded to the input dtype).
"""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F

__all__ = ["nsa_compress", "nsa_select_attention"]


def _window_starts(actual_seq_len, block, stride):
    """The first token of every window: windows of `block` tokens every `stride` inside each segment."""
    starts, begin = [], 0
    for end in actual_seq_len:
        starts.extend(range(begin, end - block + 1, stride))
        begin = end
    return starts


def _check_tensors(name, **tensors):
    for arg, value in tensors.items():
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(value).__name__}.")


def _check_ints(name, **values):
    for arg, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For '{name}', the '{arg}' must be an int, but got {type(value).__name__}.")


def _prefix_sums(name, arg, values, total):
    """`values` as a list of ints: non-empty, positive, non-decreasing, ending at `total`."""
    if not isinstance(values, (tuple, list)) or \
            not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        raise TypeError(f"For '{name}', the '{arg}' must be a tuple or list of int, but got {values!r}.")
    seq = [int(v) for v in values]
    if not seq or any(v <= 0 for v in seq) or any(b < a for a, b in zip(seq, seq[1:])) or seq[-1] != total:
        raise RuntimeError(f"For '{name}', the '{arg}' must be a non-empty non-decreasing sequence of positive prefix "
                           f"sums ending at T={total}, but got {tuple(seq)}.")
    return seq


def _check_nsa_compress(input, weight, compress_block_size, compress_stride, actual_seq_len):
    name = "nsa_compress"
    _check_tensors(name, input=input, weight=weight)
    if input.dtype not in (mstype.float16, mstype.bfloat16):
        raise TypeError(f"For '{name}', the dtype of 'input' must be float16 or bfloat16, but got {input.dtype}.")
    if weight.dtype != input.dtype:
        raise TypeError(f"For '{name}', 'input' and 'weight' must have the same dtype, but got {input.dtype} and "
                        f"{weight.dtype}.")
    _check_ints(name, compress_block_size=compress_block_size, compress_stride=compress_stride)
    if not isinstance(actual_seq_len, (tuple, list)):
        raise TypeError(f"For '{name}', the 'actual_seq_len' must be a tuple or list of int, but got "
                        f"{actual_seq_len!r}.")
    if input.ndim != 3 or weight.ndim != 2:
        raise RuntimeError(f"For '{name}', 'input' must be 3-D (T, N, D) and 'weight' 2-D (compress_block_size, N), "
                           f"but got shapes {input.shape} and {weight.shape}.")
    t, n, d = input.shape
    if weight.shape != (compress_block_size, n):
        raise RuntimeError(f"For '{name}', the 'weight' shape must be (compress_block_size, N) = "
                           f"({compress_block_size}, {n}), but got {weight.shape}.")
    if d % 16 or d > 256 or not 1 <= n <= 128:
        raise RuntimeError(f"For '{name}', D must be a multiple of 16 no greater than 256 and N in [1, 128], but "
                           f"got D={d}, N={n}.")
    if compress_block_size % 16 or not 16 <= compress_block_size <= 128:
        raise RuntimeError(f"For '{name}', the 'compress_block_size' must be a multiple of 16 in [16, 128], but got "
                           f"{compress_block_size}.")
    if compress_stride % 16 or not 16 <= compress_stride <= compress_block_size:
        raise RuntimeError(f"For '{name}', the 'compress_stride' must be a multiple of 16 in [16, "
                           f"compress_block_size={compress_block_size}], but got {compress_stride}.")
    return _prefix_sums(name, "actual_seq_len", actual_seq_len, t)


def nsa_compress(input, weight, compress_block_size, compress_stride, *, actual_seq_len):  # noqa: A002
    r"""Compress keys or values along the sequence (NSA): each window of `compress_block_size` tokens, taken every
    `compress_stride` tokens inside each segment of `actual_seq_len`, becomes one token, the sum of its tokens
    weighted per head: ``out[i, n] = sum_j weight[j, n] * input[start_i + j, n]`` (computed in float32).

    Args:
        input (Tensor): (T, N, D), float16 or bfloat16; D a multiple of 16 up to 256, 1 <= N <= 128.
        weight (Tensor): (compress_block_size, N), of `input`'s dtype.
        compress_block_size (int): the window, a multiple of 16 in [16, 128].
        compress_stride (int): the step between windows, a multiple of 16 in [16, compress_block_size].

    Keyword Args:
        actual_seq_len (Union[tuple[int], list[int]]): the segments' ends (prefix sums), the last one T.

    Returns:
        Tensor (T', N, D) of `input`'s dtype, T' the number of whole windows over all segments.

    Raises:
        TypeError: a non-Tensor input, dtypes other than float16/bfloat16 or differing, non-int sizes.
        RuntimeError: ranks, shapes, sizes or `actual_seq_len` outside the limits above.

    >>> import numpy as np, mindseed as ms
    >>> x = ms.Tensor(np.ones((48, 1, 16), np.float16))
    >>> w = ms.Tensor(np.full((16, 1), 0.5, np.float16))
    >>> ms.ops.nsa_compress(x, w, 16, 16, actual_seq_len=(20, 48)).shape
    (2, 1, 16)
    """
    seq = _check_nsa_compress(input, weight, compress_block_size, compress_stride, actual_seq_len)
    starts = _window_starts(seq, compress_block_size, compress_stride)
    _, n, d = input.shape
    if not starts:
        return F.zeros((0, n, d), input.dtype)
    index = Tensor(np.add.outer(np.array(starts), np.arange(compress_block_size)).astype(np.int64))
    windows = F.cast(F.gather(input, index, 0), mstype.float32)             # (T', block, N, D)
    weights = F.cast(weight, mstype.float32).reshape(1, compress_block_size, n, 1)
    return F.cast(F.sum(windows * weights, 1), input.dtype)


def _check_nsa_select(query, key, value, topk_indices, scale_value, head_num, select_block_size, select_block_count,
                      atten_mask, actual_seq_qlen, actual_seq_kvlen):
    name = "nsa_select_attention"
    _check_tensors(name, query=query, key=key, value=value, topk_indices=topk_indices)
    if isinstance(scale_value, bool) or not isinstance(scale_value, float):
        raise TypeError(f"For '{name}', the 'scale_value' must be a float, but got {type(scale_value).__name__}.")
    _check_ints(name, head_num=head_num, select_block_size=select_block_size, select_block_count=select_block_count)
    if atten_mask is not None:
        raise RuntimeError(f"For '{name}', 'atten_mask' is not supported (as in MindSpore); it must be None.")
    if query.dtype not in (mstype.float16, mstype.bfloat16) or key.dtype != query.dtype or value.dtype != query.dtype:
        raise RuntimeError(f"For '{name}', 'query', 'key' and 'value' must all be float16 or all bfloat16, but got "
                           f"{query.dtype}, {key.dtype} and {value.dtype}.")
    if topk_indices.dtype != mstype.int32:
        raise TypeError(f"For '{name}', the dtype of 'topk_indices' must be int32, but got {topk_indices.dtype}.")
    if query.ndim != 3 or key.ndim != 3 or value.ndim != 3:
        raise RuntimeError(f"For '{name}', 'query', 'key' and 'value' must be 3-D (TND), but got shapes {query.shape}, "
                           f"{key.shape} and {value.shape}.")
    (t1, n1, dq), (t2, n2, dk), dv = query.shape, key.shape, value.shape[2]
    if value.shape[:2] != (t2, n2) or dq != dk or dk < dv:
        raise RuntimeError(f"For '{name}', 'key' (T2, N2, D1) and 'value' (T2, N2, D2) must agree with D_q == D_k >= "
                           f"D_v, but got shapes {query.shape}, {key.shape} and {value.shape}.")
    if head_num != n1 or n1 % n2:
        raise RuntimeError(f"For '{name}', the 'head_num' must equal N1={n1}, a multiple of the key heads N2={n2}, "
                           f"but got {head_num}.")
    if select_block_size < 1 or select_block_count < 1 or topk_indices.shape != (t1, n2, select_block_count):
        raise RuntimeError(f"For '{name}', the 'topk_indices' shape must be (T1, N2, select_block_count) = "
                           f"({t1}, {n2}, {select_block_count}), but got {topk_indices.shape}.")
    q_seq = _prefix_sums(name, "actual_seq_qlen", actual_seq_qlen, t1)
    kv_seq = _prefix_sums(name, "actual_seq_kvlen", actual_seq_kvlen, t2)
    if len(q_seq) != len(kv_seq):
        raise RuntimeError(f"For '{name}', 'actual_seq_qlen' and 'actual_seq_kvlen' must have one entry per batch, "
                           f"but got {len(q_seq)} and {len(kv_seq)}.")
    kv_begin = [0] + kv_seq[:-1]
    if any(b % select_block_size for b in kv_begin):
        raise RuntimeError(f"For '{name}', each batch's keys must start at a multiple of select_block_size="
                           f"{select_block_size}, but 'actual_seq_kvlen' is {tuple(kv_seq)}.")
    blocks = np.asarray(topk_indices.asnumpy())
    batch_of_token = np.searchsorted(np.array(q_seq), np.arange(t1), side="right")
    limit = (np.array(kv_seq) - np.array(kv_begin))[batch_of_token] // select_block_size
    if blocks.size and ((blocks < 0).any() or (blocks >= limit[:, None, None]).any()):
        raise RuntimeError(f"For '{name}', every 'topk_indices' value must name a whole block of its batch's keys "
                           f"(0 <= index < S2 / {select_block_size}).")
    return np.array(kv_begin)[batch_of_token] // select_block_size


def nsa_select_attention(query, key, value, topk_indices, scale_value, head_num, select_block_size,
                         select_block_count, *, atten_mask=None, actual_seq_qlen, actual_seq_kvlen):
    r"""Selected-block attention of native sparse attention (TND layout): query token t of head h attends to the
    `select_block_count` key blocks of `select_block_size` tokens that ``topk_indices[t, h // G]`` names in its
    batch's keys (G = N1 / N2 query heads share a key head), with a softmax over those tokens.

    Args:
        query (Tensor): (T1, N1, D1), float16 or bfloat16.
        key (Tensor): (T2, N2, D1), `query`'s dtype.
        value (Tensor): (T2, N2, D2), D2 <= D1, `query`'s dtype.
        topk_indices (Tensor): (T1, N2, select_block_count) int32, block numbers within the token's batch.
        scale_value (float): the factor of the scores.
        head_num (int): N1.
        select_block_size (int): tokens per block (MindSpore's kernel: 64).
        select_block_count (int): blocks per query token (MindSpore's kernel: 16).

    Keyword Args:
        atten_mask (Tensor): not supported; must be None.
        actual_seq_qlen (Union[tuple[int], list[int]]): the batches' query ends (prefix sums), the last one T1.
        actual_seq_kvlen (Union[tuple[int], list[int]]): the batches' key ends (prefix sums), the last one T2; each
            batch's keys start at a multiple of `select_block_size`.

    Returns:
        Tuple of (attention_out (T1, N1, D2) of `query`'s dtype, softmax_max (T1, N1, 8) and softmax_sum (T1, N1, 8)
        float32: the row maximum of the scaled scores and the sum of their exponentials after subtracting it).

    Raises:
        TypeError: non-Tensor inputs, a non-float `scale_value`, non-int sizes, `topk_indices` not int32.
        RuntimeError: dtypes, shapes, head counts, sequence lengths or block indices outside the limits above.

    >>> import numpy as np, mindseed as ms
    >>> q = ms.Tensor(np.ones((2, 2, 16), np.float16)); k = ms.Tensor(np.ones((8, 1, 16), np.float16))
    >>> top = ms.Tensor(np.zeros((2, 1, 1), np.int32))
    >>> out, mx, sm = ms.ops.nsa_select_attention(q, k, k, top, 1.0, 2, 4, 1, actual_seq_qlen=[1, 2],
    ...                                           actual_seq_kvlen=[4, 8])
    >>> out.shape, mx.shape, float(sm[0, 0, 0])
    ((2, 2, 16), (2, 2, 8), 4.0)
    """
    first_block = _check_nsa_select(query, key, value, topk_indices, scale_value, head_num, select_block_size,
                                    select_block_count, atten_mask, actual_seq_qlen, actual_seq_kvlen)
    (t1, n1, dq), (t2, n2, _), dv = query.shape, key.shape, value.shape[2]
    group, width = n1 // n2, select_block_count * select_block_size
    blocks = F.cast(topk_indices, mstype.int64) + Tensor(first_block.astype(np.int64).reshape(t1, 1, 1))
    tokens = (blocks.reshape(t1, n2, select_block_count, 1) * select_block_size
              + Tensor(np.arange(select_block_size, dtype=np.int64))).reshape(t1, n2, width)
    rows = tokens + Tensor((np.arange(n2, dtype=np.int64) * t2).reshape(1, n2, 1))     # into (N2 * T2) rows

    def pick(x, d):
        flat = F.transpose(F.cast(x, mstype.float32), (1, 0, 2)).reshape(n2 * t2, d)
        return F.gather(flat, rows, 0)                                                   # (T1, N2, width, d)
    q = F.cast(query, mstype.float32).reshape(t1, n2, group, dq)
    scores = F.matmul(q, F.transpose(pick(key, dq), (0, 1, 3, 2))) * scale_value      # (T1, N2, G, width)
    row_max = F.amax(scores, -1, True)
    weights = F.exp(scores - row_max)
    row_sum = F.sum(weights, -1, True)
    probs = F.cast(F.cast(weights / row_sum, query.dtype), mstype.float32)
    out = F.cast(F.matmul(probs, pick(value, dv)).reshape(t1, n1, dv), query.dtype)
    return out, F.broadcast_to(row_max.reshape(t1, n1, 1), (t1, n1, 8)), \
        F.broadcast_to(row_sum.reshape(t1, n1, 1), (t1, n1, 8))
