"""Array family, bands and blocks: TensorFlow-style diagonal bands (matrix_diag, matrix_diag_part,
matrix_set_diag) and space <-> batch block rearrangements. All are compositions of differentiable
primitives (DiagonalScatter, Diagonal, Reshape, Transpose, Concat)."""
import numpy as np

from mindseed.common.tensor import Tensor
from mindseed.ops._prims import array as A
from mindseed.ops._prims import core as P
from mindseed.ops.functional._array_shape import _int, _ints, _py_slice
from mindseed.ops.functional._core import _check_tensor, cast

__all__ = ["matrix_diag", "matrix_diag_part", "matrix_set_diag", "space_to_batch_nd", "batch_to_space_nd"]

_ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")


def _band(op, k):
    """k as (lower, upper): an int, a pair, or an int Tensor of one or two elements."""
    ks = _ints(op, "k", k)
    if len(ks) == 1:
        return ks[0], ks[0]
    if len(ks) != 2 or ks[0] > ks[1]:
        raise ValueError(f"For '{op}', the 'k' must be an int or a pair (low, high) with low <= high, but got {k}.")
    return ks


def _check_align(op, align):
    if align not in _ALIGNS:
        raise ValueError(f"For '{op}', the 'align' must be one of {_ALIGNS}, but got '{align}'.")


def _diag_len(rows, cols, d):
    return min(rows + min(0, d), cols - max(0, d))


def _offset(d, length, max_len, align):
    """Where diagonal d starts in a row of length max_len (TensorFlow's alignment rule)."""
    left_super, left_sub = align.startswith("LEFT"), align.endswith("_LEFT")
    return 0 if (d >= 0 and left_super) or (d <= 0 and left_sub) else max_len - length


def _scalar(v):
    return v.item() if isinstance(v, Tensor) else v


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Matrices with the diagonals k[0]..k[1] taken from x (a band: x has shape (..., num_diags, max_diag_len),
    highest diagonal first) and padding_value elsewhere.

    Raises:
        ValueError: num_rows/num_cols do not fit k and the length of x's diagonals.
    """
    _check_tensor("MatrixDiagV3", "x", x)
    _check_align("MatrixDiagV3", align)
    lo, hi = _band("MatrixDiagV3", k)
    max_len = x.shape[-1] if x.ndim else 1
    min_rows, min_cols = max_len - min(hi, 0), max_len + max(lo, 0)
    rows, cols = _int("MatrixDiagV3", "num_rows", _scalar(num_rows)), _int("MatrixDiagV3", "num_cols",
                                                                          _scalar(num_cols))
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows != min_rows and cols != min_cols:
        raise ValueError(f"For 'MatrixDiagV3', the number of rows {rows} or columns {cols} is not consistent with "
                         f"k ({lo}, {hi}) and diagonals of length {max_len}.")
    batch = x.shape[:-1] if lo == hi else x.shape[:-2]
    out = P.fill_p(shape=batch + (rows, cols), value=_scalar(padding_value), dtype=x.dtype.name)
    for d in range(hi, lo - 1, -1):
        length = _diag_len(rows, cols, d)
        if length <= 0:
            continue
        row = x if lo == hi else P.getitem_p(x, index=(Ellipsis, hi - d, _py_slice(None)))
        start = _offset(d, length, max_len, align)
        vals = P.getitem_p(row, index=(Ellipsis, _py_slice(start, start + length)))
        out = A.diagonal_scatter_p(out, vals, offset=d, dim1=out.ndim - 2, dim2=out.ndim - 1)
    return out


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """The diagonals k[0]..k[1] of the last two dimensions, highest first, each aligned in a row of the longest
    diagonal's length and padded with padding_value."""
    _check_tensor("MatrixDiagPartV3", "x", x)
    _check_align("MatrixDiagPartV3", align)
    if x.ndim < 2:
        raise ValueError(f"For 'MatrixDiagPartV3', the 'x' must have at least 2 dimensions, but got {x.shape}.")
    lo, hi = _band("MatrixDiagPartV3", k)
    rows, cols = x.shape[-2], x.shape[-1]
    if not -rows < lo <= hi < cols:
        raise ValueError(f"For 'MatrixDiagPartV3', the 'k' ({lo}, {hi}) must be in ({-rows}, {cols}).")
    lens = {d: _diag_len(rows, cols, d) for d in range(lo, hi + 1)}
    max_len = max(lens.values())
    pad = _scalar(padding_value)
    parts = []
    for d in range(hi, lo - 1, -1):
        vals = A.diagonal_p(x, offset=d, dim1=x.ndim - 2, dim2=x.ndim - 1)
        start = _offset(d, lens[d], max_len, align)
        pieces = []
        if start:
            pieces.append(P.fill_p(shape=vals.shape[:-1] + (start,), value=pad, dtype=x.dtype.name))
        pieces.append(vals)
        if max_len - start - lens[d]:
            pieces.append(P.fill_p(shape=vals.shape[:-1] + (max_len - start - lens[d],), value=pad,
                                   dtype=x.dtype.name))
        parts.append(P.concat_p(*pieces, axis=vals.ndim - 1) if len(pieces) > 1 else vals)
    return parts[0] if lo == hi else P.stack_p(*parts, axis=x.ndim - 2)


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """x with the diagonals k[0]..k[1] replaced from `diagonal` (laid out as matrix_diag_part returns them)."""
    _check_tensor("MatrixSetDiagV3", "x", x)
    _check_tensor("MatrixSetDiagV3", "diagonal", diagonal)
    _check_align("MatrixSetDiagV3", align)
    lo, hi = _band("MatrixSetDiagV3", k)
    if x.ndim < 2 or diagonal.ndim < 1:
        raise ValueError(f"For 'MatrixSetDiagV3', the 'x' must be at least 2-D and the 'diagonal' at least 1-D, but "
                         f"got shapes {x.shape} and {diagonal.shape}.")
    rows, cols = x.shape[-2], x.shape[-1]
    max_len = max(_diag_len(rows, cols, d) for d in range(lo, hi + 1))
    if diagonal.shape[-1] != max_len:
        raise ValueError(f"For 'MatrixSetDiagV3', the last dimension of 'diagonal' must be {max_len}, but got "
                         f"{diagonal.shape}.")
    diagonal = cast(diagonal, x.dtype)
    for d in range(hi, lo - 1, -1):
        length = _diag_len(rows, cols, d)
        row = diagonal if lo == hi else P.getitem_p(diagonal, index=(Ellipsis, hi - d, _py_slice(None)))
        start = _offset(d, length, max_len, align)
        vals = P.getitem_p(row, index=(Ellipsis, _py_slice(start, start + length)))
        x = A.diagonal_scatter_p(x, vals, offset=d, dim1=x.ndim - 2, dim2=x.ndim - 1)
    return x


# ---------------------------------------------------------------- space <-> batch
def _blocks(op, block, n):
    b = _ints(op, "block_shape", block)
    if len(b) == 1:
        b = b * n
    if len(b) != n or any(v < 1 for v in b):
        raise ValueError(f"For '{op}', the block shape must have {n} positive elements, but got {block}.")
    return b


def _pairs(op, name, v, n):
    arr = np.asarray(v.asnumpy() if isinstance(v, Tensor) else v, dtype=np.int64).reshape(-1, 2)
    if arr.shape != (n, 2) or (arr < 0).any():
        raise ValueError(f"For '{op}', the '{name}' must be {n} non-negative (before, after) pairs, but got {v}.")
    return [tuple(int(a) for a in p) for p in arr]


def _zeros_pad(x, axis, before, after):
    parts = []
    if before:
        parts.append(P.fill_p(shape=x.shape[:axis] + (before,) + x.shape[axis + 1:], value=0, dtype=x.dtype.name))
    parts.append(x)
    if after:
        parts.append(P.fill_p(shape=x.shape[:axis] + (after,) + x.shape[axis + 1:], value=0, dtype=x.dtype.name))
    return P.concat_p(*parts, axis=axis) if len(parts) > 1 else x


def _nd_block_args(op, input_x, block, name, pairs):
    """(m, blocks, pairs) of the *ToSpaceND/SpaceTo*ND ops: m spatial dimensions after (N, C), one block size and
    one (before, after) pair of `name` per spatial dimension."""
    _check_tensor(op, "input_x", input_x)
    m = input_x.ndim - 2
    if m < 1:
        raise ValueError(f"For '{op}', the input must have at least 3 dimensions, but got {input_x.shape}.")
    return m, _blocks(op, block, m), _pairs(op, name, pairs, m)


def space_to_batch_nd(input_x, block_size, paddings):
    """Zero-pad the spatial dimensions (those after N, C), cut them into blocks and move the block offsets into
    the batch: (N, C, H, W) -> (N * b0 * b1, C, (H + pads) / b0, (W + pads) / b1)."""
    m, blocks, pads = _nd_block_args("SpaceToBatchND", input_x, block_size, "paddings", paddings)
    x = input_x
    for i, (b, a) in enumerate(pads):
        x = _zeros_pad(x, 2 + i, b, a)
    n, c = x.shape[:2]
    split = [n, c]
    for i, blk in enumerate(blocks):
        size = x.shape[2 + i]
        if size % blk:
            raise ValueError(f"For 'SpaceToBatchND', the padded spatial size {size} must be divisible by the block "
                             f"size {blk}.")
        split += [size // blk, blk]
    x = P.reshape_p(x, shape=tuple(split))
    perm = tuple(3 + 2 * i for i in range(m)) + (0, 1) + tuple(2 + 2 * i for i in range(m))
    x = P.transpose_p(x, perm=perm)
    total = n
    for blk in blocks:
        total *= blk
    return P.reshape_p(x, shape=(total, c) + tuple(split[2 + 2 * i] for i in range(m)))


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of space_to_batch_nd: block offsets move from the batch back into space, then `crops` are
    cut off each spatial dimension."""
    m, blocks, crop = _nd_block_args("BatchToSpaceND", input_x, block_shape, "crops", crops)
    prod = 1
    for blk in blocks:
        prod *= blk
    nb, c = input_x.shape[:2]
    if nb % prod:
        raise ValueError(f"For 'BatchToSpaceND', the batch {nb} must be divisible by the product of the block "
                         f"shape {prod}.")
    n = nb // prod
    x = P.reshape_p(input_x, shape=tuple(blocks) + (n, c) + input_x.shape[2:])
    perm = (m, m + 1)
    for i in range(m):
        perm += (m + 2 + i, i)
    x = P.transpose_p(x, perm=perm)
    x = P.reshape_p(x, shape=(n, c) + tuple(s * b for s, b in zip(input_x.shape[2:], blocks)))
    index = (_py_slice(None), _py_slice(None)) + tuple(_py_slice(b, x.shape[2 + i] - a) for i, (b, a)
                                                       in enumerate(crop))
    return P.getitem_p(x, index=index)
