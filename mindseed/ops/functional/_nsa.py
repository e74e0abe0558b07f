"""Native sparse attention's KV compression (`ops.nsa_compress`), composed of mindseed ops (so it differentiates).

MindSpore runs it on Ascend only; the definition (the weighted sum of each window, per head, computed in float32)
is that of the kernel's reference in torch_npu's tests of `npu_nsa_compress`.
"""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F

__all__ = ["nsa_compress"]


def _window_starts(actual_seq_len, block, stride):
    """The first token of every window: windows of `block` tokens every `stride` inside each segment."""
    starts, begin = [], 0
    for end in actual_seq_len:
        starts.extend(range(begin, end - block + 1, stride))
        begin = end
    return starts


def _check_nsa_compress(input, weight, compress_block_size, compress_stride, actual_seq_len):
    name = "nsa_compress"
    for arg, value in (("input", input), ("weight", weight)):
        if not isinstance(value, Tensor):
            raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(value).__name__}.")
    if input.dtype not in (mstype.float16, mstype.bfloat16):
        raise TypeError(f"For '{name}', the dtype of 'input' must be float16 or bfloat16, but got {input.dtype}.")
    if weight.dtype != input.dtype:
        raise TypeError(f"For '{name}', 'input' and 'weight' must have the same dtype, but got {input.dtype} and "
                        f"{weight.dtype}.")
    for arg, value in (("compress_block_size", compress_block_size), ("compress_stride", compress_stride)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For '{name}', the '{arg}' must be an int, but got {type(value).__name__}.")
    if not isinstance(actual_seq_len, (tuple, list)) or \
            not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in actual_seq_len):
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
    seq = [int(v) for v in actual_seq_len]
    if not seq or any(v <= 0 for v in seq) or any(b < a for a, b in zip(seq, seq[1:])) or seq[-1] != t:
        raise RuntimeError(f"For '{name}', the 'actual_seq_len' must be a non-empty non-decreasing sequence of "
                           f"positive prefix sums ending at T={t}, but got {tuple(seq)}.")
    return seq


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
