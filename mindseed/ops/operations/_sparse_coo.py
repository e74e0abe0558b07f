"""MindSpore's COO sparse primitives (`mindspore.ops.operations.sparse_ops`): a sparse tensor is three inputs,
indices (N, ndim) int64, values (N,) and the dense shape (ndim,) int64.

As in `ops.functional._sparse`, index arithmetic (which positions exist, merges, sorting) runs on the host with
numpy, since indices carry no gradient; values always go through ops (gather, segment sums, scatters), so every
primitive here is differentiable in its values and runs in graph mode as the ops it is made of do."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations._more import _host
from mindseed.ops.operations._table import primitive_class

_I64 = mstype.int64


def _check_tensor(op, name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def coo_parts(op, indices, values, shape, prefix="", bound_error=ValueError):
    """The host indices (N, ndim) and the shape (ndim,) of a COO input, checked as MindSpore's kernels do (an index
    outside the shape raises `bound_error`: the kernels that find it while they run fail at launch, RuntimeError;
    None: the kernel never compares them, as SparseSoftmax's)."""
    names = [prefix + n for n in ("indices", "values", "shape")]
    for name, x in zip(names, (indices, values, shape)):
        _check_tensor(op, name, x)
    if not mstype.is_integral(indices.dtype):
        raise TypeError(f"For '{op}', the '{names[0]}' must be a Tensor of int64, but got {indices.dtype}.")
    if indices.ndim != 2 or values.ndim != 1 or shape.ndim != 1:
        raise ValueError(f"For '{op}', '{names[0]}' must be 2-D, '{names[1]}' 1-D and '{names[2]}' 1-D, but got "
                         f"shapes {indices.shape}, {values.shape} and {shape.shape}.")
    if indices.shape[0] != values.shape[0] or indices.shape[1] != shape.shape[0]:
        raise ValueError(f"For '{op}', '{names[0]}' must have shape (len({names[1]}), len({names[2]})) = "
                         f"({values.shape[0]}, {shape.shape[0]}), but got {indices.shape}.")
    idx, dims = _host(indices).astype(np.int64).reshape(-1, shape.shape[0]), _host(shape).astype(np.int64)
    if bound_error is not None and idx.size and (np.any(idx < 0) or np.any(idx >= dims)):
        raise bound_error(f"For '{op}', every row of '{names[0]}' must lie inside '{names[2]}' {dims.tolist()}, but "
                          f"got {idx[np.any((idx < 0) | (idx >= dims), axis=1)][0].tolist()}.")
    return idx, dims


def row_major(idx, dims):
    """The flat row-major positions of index rows (the sort key of COO order)."""
    if not idx.size:
        return np.zeros(idx.shape[0], np.int64)
    return np.ravel_multi_index(tuple(idx.T), tuple(int(d) for d in dims))


def take(values, positions):
    """values[positions] along dim 0 (positions a host int array), keeping the dtype when empty."""
    return F.gather(values, Tensor(np.asarray(positions, np.int64)), 0)


def _same_shape(op, d1, d2):
    if d1.tolist() != d2.tolist():
        raise ValueError(f"For '{op}', the two sparse shapes must be equal, but got {d1.tolist()} and "
                         f"{d2.tolist()}.")


def _union(idx1, idx2, dims):
    """Sorted union of two index sets: (union rows, position in union of each row of idx1, of idx2)."""
    keys = np.concatenate([row_major(idx1, dims), row_major(idx2, dims)])
    uniq, inverse = np.unique(keys, return_inverse=True)
    rows = np.stack(np.unravel_index(uniq, tuple(dims)), axis=1) if uniq.size else np.zeros((0, len(dims)), np.int64)
    return rows.astype(np.int64), inverse[:len(idx1)], inverse[len(idx1):]


def _sparse_add(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    ia, da = coo_parts("SparseAdd", a_indices, a_values, a_shape, "x1_")
    ib, db = coo_parts("SparseAdd", b_indices, b_values, b_shape, "x2_")
    _same_shape("SparseAdd", da, db)
    if a_values.dtype != b_values.dtype:
        raise TypeError(f"For 'SparseAdd', the dtypes of 'x1_values' and 'x2_values' must be equal, but got "
                        f"{a_values.dtype} and {b_values.dtype}.")
    rows, pa, pb = _union(ia, ib, da)
    n = rows.shape[0]
    total = F.unsorted_segment_sum(F.concat([a_values, b_values]),
                                   Tensor(np.concatenate([pa, pb]).astype(np.int32)), n)
    # MindSpore drops a sum below `thresh` in magnitude only where both inputs have the position
    both = np.bincount(np.concatenate([pa, pb]), minlength=n) > 1
    small = np.abs(_host(total).astype(np.float64)) < float(np.ravel(_host(thresh))[0])
    keep = np.nonzero(~(both & small))[0]
    if keep.size != n:
        rows, total = rows[keep], take(total, keep)
    return Tensor(rows, _I64), total, a_shape


def _merge(idx1, idx2):
    """MindSpore's (and TensorFlow's) walk over two index lists taken as sorted: equal rows pair up, the smaller row
    goes out alone. Returns the output rows and, per output row, its row in idx1 and in idx2 (-1: absent)."""
    rows, from1, from2 = [], [], []
    i = j = 0
    while i < len(idx1) or j < len(idx2):
        a = tuple(idx1[i]) if i < len(idx1) else None
        b = tuple(idx2[j]) if j < len(idx2) else None
        if a is not None and a == b:
            rows.append(a), from1.append(i), from2.append(j)
            i, j = i + 1, j + 1
        elif b is None or (a is not None and a < b):
            rows.append(a), from1.append(i), from2.append(-1)
            i += 1
        else:
            rows.append(b), from1.append(-1), from2.append(j)
            j += 1
    out = np.array(rows, np.int64).reshape(len(rows), idx1.shape[1] if idx1.ndim == 2 else idx2.shape[1])
    return out, np.array(from1, np.int64), np.array(from2, np.int64)


def _present_or_zero(values, sources):
    """values[sources] with 0 where a source is -1 (a position missing from one input counts as 0)."""
    have = np.nonzero(sources >= 0)[0]
    zeros = F.zeros((sources.size,), values.dtype)
    if not have.size:
        return zeros
    return F.tensor_scatter_update(zeros, Tensor(have.reshape(-1, 1)), take(values, sources[have]))


def _sparse_sparse_extreme(op, pick):
    def run(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape):
        i1, d1 = coo_parts(op, x1_indices, x1_values, x1_shape, "x1_")
        i2, d2 = coo_parts(op, x2_indices, x2_values, x2_shape, "x2_")
        _same_shape(op, d1, d2)
        rows, s1, s2 = _merge(i1, i2)
        return Tensor(rows, _I64), pick(_present_or_zero(x1_values, s1), _present_or_zero(x2_values, s2))
    return run


def _reorder(indices, values, shape):
    idx, dims = coo_parts("SparseReorder", indices, values, shape)
    order = np.argsort(row_major(idx, dims), kind="stable")
    return Tensor(idx[order], indices.dtype), take(values, order)


def _reshape(indices, shape, new_shape):
    for name, x in (("indices", indices), ("shape", shape), ("new_shape", new_shape)):
        _check_tensor("SparseReshape", name, x)
    idx, dims, new = _host(indices).astype(np.int64), _host(shape).astype(np.int64), _host(new_shape).astype(np.int64)
    total = int(np.prod(dims))
    unknown = np.nonzero(new == -1)[0]
    if unknown.size > 1:
        raise ValueError(f"For 'SparseReshape', at most one dim of 'new_shape' may be -1, but got {new.tolist()}.")
    known = int(np.prod(new[new != -1]))
    if unknown.size:
        if known == 0 or total % known:
            raise ValueError(f"For 'SparseReshape', 'new_shape' {new.tolist()} cannot hold the {total} elements of "
                             f"'shape' {dims.tolist()}.")
        new[unknown[0]] = total // known
    if int(np.prod(new)) != total:
        raise ValueError(f"For 'SparseReshape', 'new_shape' {new.tolist()} must have the {total} elements of 'shape' "
                         f"{dims.tolist()}, but has {int(np.prod(new))}.")
    flat = row_major(idx, dims)
    rows = np.stack(np.unravel_index(flat, tuple(new)), axis=1) if flat.size else np.zeros((0, new.size), np.int64)
    return Tensor(rows.astype(np.int64)), Tensor(new)


def _groups(idx):
    """Group id of each index row by all its dims but the last (the values of those dims, whatever the shape says),
    and the number of groups."""
    if idx.shape[1] < 2 or not idx.shape[0]:
        return Tensor(np.zeros(idx.shape[0], np.int32)), int(idx.shape[0] > 0)
    uniq, inverse = np.unique(idx[:, :-1], axis=0, return_inverse=True)
    return Tensor(inverse.reshape(-1).astype(np.int32)), uniq.shape[0]


def segment_softmax(values, seg, n):
    """Softmax of `values` within the segments `seg` (a Tensor of segment ids) of n segments."""
    m = F.gather(F.stop_gradient(F.unsorted_segment_max(values, seg, n)), seg, 0)
    e = F.exp(values - m)
    return e / F.gather(F.unsorted_segment_sum(e, seg, n), seg, 0)


def _sparse_softmax(indices, values, shape):
    # MindSpore's kernel sorts the rows by their indices (row-major order), groups them by their leading indices and
    # returns the softmax values in that sorted order; it never compares the indices with `shape`
    idx, dims = coo_parts("SparseSoftmax", indices, values, shape, bound_error=None)
    if not mstype.is_float(values.dtype):
        raise TypeError(f"For 'SparseSoftmax', the 'values' must be float32 or float64, but got {values.dtype}.")
    if dims.size < 2:
        raise ValueError(f"For 'SparseSoftmax', the 'shape' must have at least 2 dims, but got {dims.tolist()}.")
    order = np.lexsort(idx.T[::-1]) if idx.size else np.arange(idx.shape[0])
    if not np.array_equal(order, np.arange(idx.shape[0])):
        idx, values = idx[order], F.gather(values, Tensor(order.astype(np.int64)), 0)
    seg, n = _groups(idx)
    return segment_softmax(values, seg, n)


def _to_dense_v2(indices, output_shape, values, default_value, validate_indices=True):
    _check_tensor("SparseToDenseV2", "default_value", default_value)
    idx = _host(indices).astype(np.int64)
    idx = idx.reshape(-1, 1) if idx.ndim < 2 else idx
    dims = _host(output_shape).astype(np.int64).reshape(-1)
    if validate_indices and idx.size:
        if np.any(idx < 0) or np.any(idx >= dims):
            raise ValueError(f"For 'SparseToDenseV2', the 'indices' must lie inside 'output_shape' {dims.tolist()}.")
        flat = row_major(idx, dims)
        if np.any(np.diff(flat) <= 0):
            raise ValueError("For 'SparseToDenseV2', the 'indices' must be sorted in row-major order without "
                             "repeats when validate_indices is True.")
    fill = F.fill(values.dtype, tuple(int(d) for d in dims), 0) + F.cast(F.reshape(default_value, ()), values.dtype)
    if not idx.size:
        return fill
    vals = F.broadcast_to(values, (idx.shape[0],)) if values.ndim == 0 else values
    return F.tensor_scatter_update(fill, Tensor(idx), vals)


def _cwise(op, fn):
    def run(x1_indices, x1_values, x1_shape, x2):
        idx, dims = coo_parts(op, x1_indices, x1_values, x1_shape, "x1_")
        _check_tensor(op, "x2", x2)
        if x2.ndim > dims.size or any(s not in (1, int(d)) for s, d in zip(x2.shape[::-1], dims[::-1])):
            raise ValueError(f"For '{op}', 'x2' of shape {x2.shape} cannot broadcast to 'x1_shape' {dims.tolist()}.")
        dense = F.broadcast_to(x2, tuple(int(d) for d in dims))
        return fn(x1_values, F.gather_nd(dense, Tensor(idx)) if idx.size else F.zeros((0,), x2.dtype))
    return run


def concat_coo(op, parts, concat_dim):
    """Concatenate COO parts [(host indices, values Tensor, host shape)] along `concat_dim`, in row-major order:
    (indices, values, shape) with indices and shape host int64."""
    if isinstance(concat_dim, bool) or not isinstance(concat_dim, (int, np.integer)):
        raise TypeError(f"For '{op}', the type of 'concat_dim' should be 'int', but got type "
                        f"'{type(concat_dim).__name__}'.")
    if len(parts) < 2:
        raise ValueError(f"For '{op}', at least 2 sparse inputs are needed, but got {len(parts)}.")
    first_idx, first_values, first_shape = parts[0]
    ndim = len(first_shape)
    if not -ndim <= concat_dim < ndim:
        raise IndexError(f"For '{op}', the 'concat_dim' must be in [{-ndim}, {ndim}), but got {concat_dim}.")
    dim = concat_dim % ndim
    idx, offset = [], 0
    for k, (i, values, shape) in enumerate(parts):
        if values.dtype != first_values.dtype:
            raise TypeError(f"For '{op}', every input's values must have the dtype {first_values.dtype}, but input "
                            f"{k} has {values.dtype}.")
        if len(shape) != ndim or any(a != b for d, (a, b) in enumerate(zip(shape, first_shape)) if d != dim):
            raise RuntimeError(f"For '{op}', input {k} has shape {list(shape)}, which must equal the first input's "
                               f"{list(first_shape)} in every dim but 'concat_dim' {dim}.")
        i = np.array(i, np.int64).reshape(-1, ndim)
        i[:, dim] += offset
        idx.append(i)
        offset += int(shape[dim])
    shape = np.array([offset if d == dim else int(s) for d, s in enumerate(first_shape)], np.int64)
    idx = np.concatenate(idx)
    order = np.argsort(row_major(idx, shape), kind="stable")
    return idx[order], take(F.concat([p[1] for p in parts]), order), shape


def _sparse_concat(sp_input_indices, sp_input_values, sp_input_shapes, concat_dim=0):
    if not (len(sp_input_indices) == len(sp_input_values) == len(sp_input_shapes)):
        raise ValueError(f"For 'SparseConcat', the three input lists must have one length, but got "
                         f"{len(sp_input_indices)}, {len(sp_input_values)} and {len(sp_input_shapes)}.")
    parts = [(*coo_parts("SparseConcat", i, v, s), v) for i, v, s in
             zip(sp_input_indices, sp_input_values, sp_input_shapes)]
    idx, values, shape = concat_coo("SparseConcat", [(i, v, d) for i, d, v in parts], concat_dim)
    return Tensor(idx), values, Tensor(shape)


def _fill_empty_rows(indices, values, dense_shape, default_value):
    idx, dims = coo_parts("SparseFillEmptyRows", indices, values, dense_shape, "")
    n, rows = idx.shape[0], int(dims[0])
    empty = np.bincount(idx[:, 0], minlength=rows) == 0 if n else np.ones(rows, bool)
    extra = np.zeros((int(empty.sum()), dims.size), np.int64)
    extra[:, 0] = np.nonzero(empty)[0]
    all_idx = np.concatenate([idx, extra])
    order = np.argsort(all_idx[:, 0], kind="stable")
    where = np.empty_like(order)
    where[order] = np.arange(order.size)
    fill = F.broadcast_to(F.cast(F.reshape(default_value, ()), values.dtype), (extra.shape[0],))
    out_values = take(F.concat([values, fill]), order)
    return Tensor(all_idx[order]), out_values, Tensor(empty), Tensor(where[:n].astype(np.int64))


def _fill_empty_rows_grad(reverse_index_map, grad_values):
    rev = _host(reverse_index_map).astype(np.int64)
    d_values = take(grad_values, rev)
    mask = np.ones(grad_values.shape[0], np.float32)
    mask[rev] = 0
    return d_values, F.reduce_sum(grad_values * Tensor(mask, grad_values.dtype))


def _sparse_split(split_dim, indices, values, shape, num_split=1):
    idx, dims = coo_parts("SparseSplit", indices, values, shape)
    dim = int(np.ravel(_host(split_dim))[0])
    if not -dims.size <= dim < dims.size:
        raise ValueError(f"For 'SparseSplit', the 'split_dim' must be in [{-dims.size}, {dims.size}), but got {dim}.")
    dim %= dims.size
    size = int(dims[dim])
    if not 1 <= num_split <= size:
        raise ValueError(f"For 'SparseSplit', the 'num_split' must be in [1, {size}], but got {num_split}.")
    base, rem = divmod(size, num_split)        # the first `rem` pieces are one longer, as TensorFlow's
    starts = [k * base + min(k, rem) for k in range(num_split + 1)]
    out_i, out_v, out_s = [], [], []
    for k in range(num_split):
        keep = np.nonzero((idx[:, dim] >= starts[k]) & (idx[:, dim] < starts[k + 1]))[0]
        piece = idx[keep].copy()
        piece[:, dim] -= starts[k]
        piece_shape = dims.copy()
        piece_shape[dim] = starts[k + 1] - starts[k]
        out_i.append(Tensor(piece))
        out_v.append(take(values, keep))
        out_s.append(Tensor(piece_shape))
    return tuple(out_i), tuple(out_v), tuple(out_s)


def _segment_reduce(op, scale):
    """SparseSegment{Sum,Mean,SqrtN}[WithNumSegments]: out[s] = scale(count[s]) * sum of x[indices[j]] over
    segment_ids[j] == s (sorted segment ids)."""
    def run(x, indices, segment_ids, num_segments=None):
        for name, v in (("x", x), ("indices", indices), ("segment_ids", segment_ids)):
            _check_tensor(op, name, v)
        for name, v in (("indices", indices), ("segment_ids", segment_ids)):
            if not mstype.is_integral(v.dtype) or v.ndim != 1:
                raise TypeError(f"For '{op}', the '{name}' must be a 1-D Tensor of int32 or int64, but got "
                                f"{v.dtype} of shape {v.shape}.")
        if indices.shape != segment_ids.shape:
            raise ValueError(f"For '{op}', 'indices' and 'segment_ids' must have one shape, but got {indices.shape} "
                             f"and {segment_ids.shape}.")
        seg, idx = _host(segment_ids).astype(np.int64), _host(indices).astype(np.int64)
        if seg.size and (seg[0] < 0 or np.any(np.diff(seg) < 0)):
            raise ValueError(f"For '{op}', the 'segment_ids' must be non-negative and sorted, but got {seg.tolist()}.")
        if idx.size and (idx.min() < 0 or idx.max() >= x.shape[0]):
            raise ValueError(f"For '{op}', the 'indices' must be in [0, {x.shape[0]}), but got {idx.tolist()}.")
        n = int(seg[-1]) + 1 if seg.size else 0
        if num_segments is None and np.any(np.diff(seg) > 1):
            raise ValueError(f"For '{op}', the 'segment_ids' must be contiguous (no id skipped), but got "
                             f"{seg.tolist()}.")
        if num_segments is not None:
            want = int(np.ravel(_host(num_segments))[0])
            if want < n:
                raise ValueError(f"For '{op}', the 'num_segments' must be greater than the largest segment id "
                                 f"{n - 1}, but got {want}.")
            n = want
        total = F.unsorted_segment_sum(F.gather(x, Tensor(idx), 0), Tensor(seg.astype(np.int32)), n)
        if scale is None:
            return total
        factor = scale(np.maximum(np.bincount(seg, minlength=n), 1).astype(np.float64))
        return total * Tensor(factor.reshape((n,) + (1,) * (x.ndim - 1)), x.dtype)
    return run


def _segment_grad(op, scale):
    """SparseSegment{Sum,Mean,SqrtN}Grad(grad, indices, segment_ids, output_dim0): the gradient for x."""
    def run(grad, indices, segment_ids, output_dim0):
        seg, idx = _host(segment_ids).astype(np.int64), _host(indices).astype(np.int64)
        n = grad.shape[0]
        g = grad
        if scale is not None:
            factor = scale(np.maximum(np.bincount(seg, minlength=n), 1).astype(np.float64))
            g = grad * Tensor(factor.reshape((n,) + (1,) * (grad.ndim - 1)), grad.dtype)
        rows = F.gather(g, Tensor(seg), 0)
        return F.unsorted_segment_sum(rows, Tensor(idx.astype(np.int32)), int(np.ravel(_host(output_dim0))[0]))
    return run


def _mean(c):
    return 1.0 / c


def _sqrt_n(c):
    return 1.0 / np.sqrt(c)


def _count_sparse_output(indices, values, dense_shape, weights, binary_output=False, minlength=-1, maxlength=-1):
    idx, dims = coo_parts("SparseCountSparseOutput", indices, values, dense_shape, bound_error=RuntimeError)
    if not mstype.is_integral(values.dtype):
        raise TypeError(f"For 'SparseCountSparseOutput', the 'values' must be int32 or int64, but got "
                        f"{values.dtype}.")
    v = _host(values).astype(np.int64)
    if v.size and v.min() < 0:
        raise ValueError(f"For 'SparseCountSparseOutput', the 'values' must be non-negative, but got {v.min()}.")
    w = _host(weights)
    if w.size and w.shape != v.shape:     # found by MindSpore's kernel while it runs: a RuntimeError
        raise RuntimeError(f"For 'SparseCountSparseOutput', weights and values must have the same shape: the "
                           f"'weights' must be empty or of the shape of 'values' {v.shape}, but got {w.shape}.")
    batch = idx[:, 0] if dims.size == 2 else np.zeros(v.size, np.int64)
    keep = v < maxlength if maxlength >= 0 else np.ones(v.size, bool)
    batch, v = batch[keep], v[keep]
    rows = int(dims[0]) if dims.size == 2 else 1
    width = max(int(v.max()) + 1 if v.size else 0, minlength)
    width = min(width, maxlength) if maxlength >= 0 else width
    flat = batch * width + v
    uniq, inverse = np.unique(flat, return_inverse=True)
    if w.size and not binary_output:
        counts = F.unsorted_segment_sum(take(weights, np.nonzero(keep)[0]), Tensor(inverse.astype(np.int32)),
                                        uniq.size)
    else:
        count = np.ones(uniq.size) if binary_output else np.bincount(inverse, minlength=uniq.size)
        counts = Tensor(count.astype(np.float32) if not w.size else count.astype(w.dtype))
    out_idx = np.stack([uniq // width, uniq % width], axis=1) if dims.size == 2 else (uniq % width).reshape(-1, 1)
    out_shape = [rows, width] if dims.size == 2 else [width]
    return Tensor(out_idx.astype(np.int64)), counts, Tensor(np.array(out_shape, np.int64))


def coo_dense(op, indices, values, shape, prefix=""):
    """The dense Tensor of a COO input (duplicates summed), differentiable in the values."""
    idx, dims = coo_parts(op, indices, values, shape, prefix)
    zeros = F.zeros(tuple(int(d) for d in dims), values.dtype)
    return F.tensor_scatter_add(zeros, Tensor(idx), values) if idx.size else zeros


def _addmm(x1_indices, x1_values, x1_shape, x2, x3, alpha, beta):
    a = coo_dense("SparseAddmm", x1_indices, x1_values, x1_shape, "x1_")
    if a.ndim != 2 or x2.ndim != 2 or a.shape[1] != x2.shape[0]:
        raise ValueError(f"For 'SparseAddmm', x1 {a.shape} and x2 {x2.shape} must be matrices that can multiply.")
    return F.reshape(alpha, ()) * F.matmul(a, x2) + F.reshape(beta, ()) * x3


def _sspaddmm(x1_indices, x1_values, x1_shape, x2_indices, x2_values, x2_shape, x3_dense, alpha, beta):
    i1 = _host(x1_indices).astype(np.int64).T
    a = coo_dense("Sspaddmm", F.transpose(x2_indices, (1, 0)), x2_values, x2_shape, "x2_")
    coo_parts("Sspaddmm", F.transpose(x1_indices, (1, 0)), x1_values, x1_shape, "x1_")
    if a.shape[1] != x3_dense.shape[0]:
        raise ValueError(f"For 'Sspaddmm', x2 {a.shape} and x3_dense {x3_dense.shape} must be matrices that can "
                         f"multiply.")
    prod = F.matmul(a, x3_dense)
    rows = np.unique(_host(x2_indices).astype(np.int64)[0])    # the rows of x2 holding an entry, every column
    pos = np.stack(np.meshgrid(rows, np.arange(x3_dense.shape[1]), indexing="ij"), -1).reshape(-1, 2)
    prod_values = F.gather_nd(prod, Tensor(pos)) if pos.size else F.zeros((0,), prod.dtype)
    values = F.concat([F.reshape(beta, ()) * x1_values, F.reshape(alpha, ()) * prod_values])
    return Tensor(np.concatenate([i1, pos]).T.astype(np.int64)), values, x1_shape


def _coo_inputs(*prefixes):
    return tuple(p + n for p in prefixes for n in ("indices", "values", "shape"))


_SEGMENTS = {"Sum": None, "Mean": _mean, "SqrtN": _sqrt_n}
_ROWS = {
    "SparseAdd": (_sparse_add, (), _coo_inputs("x1_", "x2_") + ("thresh",),
                  "(indices, values, shape) of x1 + x2; where both hold a position, a sum below thresh in magnitude "
                  "is dropped."),
    "SparseSparseMinimum": (_sparse_sparse_extreme("SparseSparseMinimum", F.minimum), (), _coo_inputs("x1_", "x2_"),
                            "(indices, values) of the elementwise minimum (a missing position counts as 0)."),
    "SparseSparseMaximum": (_sparse_sparse_extreme("SparseSparseMaximum", F.maximum), (), _coo_inputs("x1_", "x2_"),
                            "(indices, values) of the elementwise maximum (a missing position counts as 0)."),
    "SparseReorder": (_reorder, (), ("indices", "values", "shape"), "(indices, values) in row-major order."),
    "SparseReshape": (_reshape, (), ("indices", "shape", "new_shape"),
                      "(indices, shape) of the sparse tensor reshaped (one dim of new_shape may be -1)."),
    "SparseSoftmax": (_sparse_softmax, (), ("indices", "values", "shape"),
                      "Softmax of the values over the last dim of each group of the other dims."),
    "SparseToDenseV2": (_to_dense_v2, (("validate_indices", True),),
                        ("indices", "output_shape", "values", "default_value"),
                        "The dense tensor of output_shape: values at indices, default_value elsewhere."),
    "SparseDenseCwiseAdd": (_cwise("SparseDenseCwiseAdd", F.add), (), _coo_inputs("x1_") + ("x2",),
                            "The values of x1 plus the dense x2 (broadcast) at the same positions."),
    "SparseDenseCwiseMul": (_cwise("SparseDenseCwiseMul", F.mul), (), _coo_inputs("x1_") + ("x2",),
                            "The values of x1 times the dense x2 (broadcast) at the same positions."),
    "SparseDenseCwiseDiv": (_cwise("SparseDenseCwiseDiv", F.div), (), _coo_inputs("x1_") + ("x2",),
                            "The values of x1 divided by the dense x2 (broadcast) at the same positions."),
    "SparseConcat": (_sparse_concat, (("concat_dim", 0),), ("sp_input_indices", "sp_input_values", "sp_input_shapes"),
                     "(indices, values, shape) of the sparse inputs joined along concat_dim, row-major order."),
    "SparseFillEmptyRows": (_fill_empty_rows, (), ("indices", "values", "dense_shape", "default_value"),
                            "(indices, values, empty_row_indicator, reverse_index_map): each empty row gets "
                            "default_value at column 0."),
    "SparseFillEmptyRowsGrad": (_fill_empty_rows_grad, (), ("reverse_index_map", "grad_values"),
                                "(d_values, d_default_value) of SparseFillEmptyRows."),
    "SparseSplit": (_sparse_split, (("num_split", 1),), ("split_dim", "indices", "values", "shape"),
                    "num_split sparse pieces along split_dim: (indices list, values list, shape list)."),
    "SparseCountSparseOutput": (_count_sparse_output, (("binary_output", False), ("minlength", -1),
                                                       ("maxlength", -1)),
                                ("indices", "values", "dense_shape", "weights"),
                                "Per-row counts (or weight sums) of the values, as a sparse tensor."),
    "SparseAddmm": (_addmm, (), _coo_inputs("x1_") + ("x2", "x3", "alpha", "beta"),
                    "alpha * (x1 @ x2) + beta * x3 of a sparse x1."),
    "Sspaddmm": (_sspaddmm, (), ("x1_indices", "x1_values", "x1_shape", "x2_indices", "x2_values", "x2_shape",
                                 "x3_dense", "alpha", "beta"),
                 "beta * x1 + alpha * (x2 @ x3_dense) as a sparse tensor, indices (2, N)."),
}
for _kind, _scale in _SEGMENTS.items():
    _op = f"SparseSegment{_kind}"
    _ROWS.setdefault(_op, (_segment_reduce(_op, _scale), (), ("x", "indices", "segment_ids"),
                           f"Segment {_kind.lower()} of the rows x[indices] by sorted segment_ids."))
    _ROWS[_op + "WithNumSegments"] = (_segment_reduce(_op + "WithNumSegments", _scale), (),
                                      ("x", "indices", "segment_ids", "num_segments"),
                                      f"Segment {_kind.lower()} of the rows x[indices] into num_segments segments.")
    _ROWS[_op + "Grad"] = (_segment_grad(_op + "Grad", _scale), (),
                           ("grad", "indices", "segment_ids", "output_dim0"), f"The gradient of {_op} for x.")

_MATH_OPS = ("SparseSegmentMean",)     # MindSpore keeps this one in math_ops
globals().update({_name: primitive_class(_name, _fn, _attrs, _inputs, doc=_doc, module="mindseed.ops.operations." + (
    "math_ops" if _name in _MATH_OPS else "sparse_ops")) for _name, (_fn, _attrs, _inputs, _doc) in _ROWS.items()})
__all__ = [_n for _n in _ROWS if not _n.endswith("Grad") and _n not in _MATH_OPS]   # Grad kernels: _grad_ops
GRAD_CLASSES = [_n for _n in _ROWS if _n.endswith("Grad")]
