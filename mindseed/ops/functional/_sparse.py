"""MindSpore's sparse functions: COOTensor / CSRTensor / RowTensor construction, conversion, arithmetic.

Index arithmetic (which positions exist, row pointers, merges) is done on the host with numpy: indices carry no
gradient. Values always go through ops (gather, segment sums, scatters), so every function here is differentiable
in its values and works in graph mode as the ops it is made of do. The elementwise functions (`coo_sin`,
`csr_exp`, ...) apply the op to the stored values and keep the pattern, as MindSpore's do (for a function with
f(0) != 0 that is not the function of the dense tensor — MindSpore's definition).
"""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import COOTensor, CSRTensor, RowTensor, Tensor
from mindseed.ops import functional as F

__all__ = ["make_coo_tensor", "make_csr_tensor", "make_row_tensor", "make_row_tensor_inner", "make_sparse_tensor",
           "coo_tensor_get_indices", "coo_tensor_get_values", "coo_tensor_get_dense_shape",
           "csr_tensor_get_indptr", "csr_tensor_get_indices", "csr_tensor_get_values", "csr_tensor_get_dense_shape",
           "row_tensor_get_indices", "row_tensor_get_values", "row_tensor_get_dense_shape",
           "csr_to_coo", "csr_to_dense", "coo2csr", "csr2coo", "dense_to_sparse_coo", "dense_to_sparse_csr",
           "coo_add", "coo_concat", "csr_add", "csr_mul", "csr_div", "csr_mv", "csr_mm", "csr_reduce_sum",
           "csr_softmax", "csr_gather", "coalesce", "sparse_segment_mean", "row_tensor_add"]

TENSOR_METHODS = {}

_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1", "floor",
          "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg", "relu", "relu6", "round", "sigmoid", "sin",
          "sinh", "softsign", "sqrt", "square", "tan", "tanh")
_KINDS = {"coo": COOTensor, "csr": CSRTensor}


def _check(api, name, value, kind):
    if not isinstance(value, kind):
        raise TypeError(f"For '{api}', the '{name}' must be a {kind.__name__}, but got {type(value).__name__}.")
    return value


def _int_host(t):
    return np.asarray(t.asnumpy() if isinstance(t, Tensor) else t).astype(np.int64)


def _indptr(api, t):
    """The row pointer `t` (a 1-D Tensor of at least one entry) as host int64."""
    _check(api, "indptr", t, Tensor)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"For '{api}', the 'indptr' must be a non-empty 1-D Tensor, but got shape {t.shape}.")
    return _int_host(t)


def _int32_only(label, t):
    # MindSpore's COO2CSR / CSR2COO / CSRGather take int32 index tensors only
    if isinstance(t, Tensor) and t.dtype != mstype.int32:
        raise TypeError(f"The dtype of {label} only support Int32 for now, but got {t.dtype}.")


def _with_values(x, values):
    if isinstance(x, COOTensor):
        return COOTensor(x.indices, values, x.shape)
    return CSRTensor(x.indptr, x.indices, values, x.shape)


def _elementwise(kind, op):
    api = f"{kind}_{op}"

    def sparse_fn(x):
        return _with_values(_check(api, "x", x, _KINDS[kind]), getattr(F, op)(x.values))
    sparse_fn.__name__ = sparse_fn.__qualname__ = api
    sparse_fn.__doc__ = f"`{op}` of the stored values of a {_KINDS[kind].__name__}, same sparsity pattern."
    return sparse_fn


_GENERATED = {f"{k}_{op}": _elementwise(k, op) for k in _KINDS for op in _UNARY}
globals().update(_GENERATED)
__all__ += list(_GENERATED)


# ---------------------------------------------------------------- construction and parts
def make_coo_tensor(indices, values, dense_shape):
    """COOTensor(indices (N, ndim), values (N,), dense_shape)."""
    return COOTensor(indices, values, dense_shape)


make_sparse_tensor = make_coo_tensor


def make_csr_tensor(indptr, indices, values, dense_shape):
    """CSRTensor(indptr (rows + 1,), indices (N,), values (N,), dense_shape)."""
    return CSRTensor(indptr, indices, values, dense_shape)


def make_row_tensor(indices, values, dense_shape):
    """RowTensor: `values[i]` is row `indices[i]` of a dense tensor of `dense_shape`."""
    return RowTensor(indices, values, dense_shape)


make_row_tensor_inner = make_row_tensor


def _getter(kind, attr, api):
    def get(x):
        return getattr(_check(api, "x", x, kind), attr)
    get.__name__ = get.__qualname__ = api
    get.__doc__ = f"The `{attr}` of a {kind.__name__}."
    return get


coo_tensor_get_indices = _getter(COOTensor, "indices", "coo_tensor_get_indices")
coo_tensor_get_values = _getter(COOTensor, "values", "coo_tensor_get_values")
coo_tensor_get_dense_shape = _getter(COOTensor, "shape", "coo_tensor_get_dense_shape")
csr_tensor_get_indptr = _getter(CSRTensor, "indptr", "csr_tensor_get_indptr")
csr_tensor_get_indices = _getter(CSRTensor, "indices", "csr_tensor_get_indices")
csr_tensor_get_values = _getter(CSRTensor, "values", "csr_tensor_get_values")
csr_tensor_get_dense_shape = _getter(CSRTensor, "shape", "csr_tensor_get_dense_shape")
row_tensor_get_indices = _getter(RowTensor, "indices", "row_tensor_get_indices")
row_tensor_get_values = _getter(RowTensor, "values", "row_tensor_get_values")
row_tensor_get_dense_shape = _getter(RowTensor, "dense_shape", "row_tensor_get_dense_shape")


# ---------------------------------------------------------------- conversions
def _csr_rows(x):
    ptr = _int_host(x.indptr)
    return np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))


def coo2csr(row_indices, height):
    """The row pointer (height + 1,) of sorted COO row indices."""
    _check("coo2csr", "row_indices", row_indices, Tensor)
    _int32_only("row_indices", row_indices)
    if isinstance(height, bool) or not isinstance(height, (int, np.integer)) or not 0 <= height < 2 ** 31:
        raise ValueError(f"For 'coo2csr', the 'height' must be an int in [0, 2**31), but got {height!r}.")
    rows = _int_host(row_indices)
    if rows.size and (rows.min() < 0 or rows.max() >= height):
        raise ValueError(f"For 'coo2csr', every row index must be in [0, {height}), but got {rows.min()}.."
                         f"{rows.max()}.")
    ptr = np.zeros(height + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=height), out=ptr[1:])
    return Tensor(ptr.astype(row_indices.asnumpy().dtype))


def csr2coo(indptr, length):
    """The row index of each of the `length` stored values of a CSR row pointer."""
    _int32_only("Indptr", indptr)
    ptr = _indptr("csr2coo", indptr)
    if ptr[-1] != length:
        raise ValueError(f"For 'csr2coo', 'length' must equal indptr[-1] = {ptr[-1]}, but got {length}.")
    return Tensor(np.repeat(np.arange(len(ptr) - 1), np.diff(ptr)).astype(indptr.asnumpy().dtype))


def csr_to_coo(tensor):
    """The COOTensor of a CSRTensor (same values, row-major order)."""
    _check("csr_to_coo", "tensor", tensor, CSRTensor)
    idx = np.stack([_csr_rows(tensor), _int_host(tensor.indices)], axis=1)
    return COOTensor(Tensor(idx.astype(tensor.indices.asnumpy().dtype)), tensor.values, tensor.shape)


def _scatter_dense(index_rows, values, shape):
    zeros = F.zeros(tuple(shape), values.dtype)
    if index_rows.shape[0] == 0:
        return zeros
    return F.tensor_scatter_add(zeros, Tensor(index_rows.astype(np.int64)), values)


def coo_to_dense(x):
    """The dense Tensor of a COOTensor (zeros scatter-added with the values: duplicates summed)."""
    _check("coo_to_dense", "x", x, COOTensor)
    return _scatter_dense(_int_host(x.indices), x.values, x.shape)


def coo_to_csr(x):
    """The CSRTensor of a COOTensor: entries stably sorted by row (as MindSpore's sort of the row indices),
    stored zeros and duplicates kept."""
    _check("coo_to_csr", "x", x, COOTensor)
    idx = _int_host(x.indices)
    order = np.argsort(idx[:, 0], kind="stable")
    dtype = x.indices.asnumpy().dtype
    ptr = np.zeros(x.shape[0] + 1, np.int64)
    np.cumsum(np.bincount(idx[:, 0], minlength=x.shape[0]), out=ptr[1:])
    values = F.gather(x.values, Tensor(order.astype(np.int64)), 0) if order.size else x.values
    return CSRTensor(Tensor(ptr.astype(dtype)), Tensor(idx[order, 1].astype(dtype)), values, x.shape)


def csr_to_dense(csr_tensor):
    """The dense Tensor of a CSRTensor (duplicates summed); differentiable in the values."""
    _check("csr_to_dense", "csr_tensor", csr_tensor, CSRTensor)
    idx = np.stack([_csr_rows(csr_tensor), _int_host(csr_tensor.indices)], axis=1)
    return _scatter_dense(idx, csr_tensor.values, csr_tensor.shape)


def _nonzero(api, tensor):
    _check(api, "tensor", tensor, Tensor)
    idx = np.argwhere(tensor.asnumpy() != 0)
    return idx, F.gather_nd(tensor, Tensor(idx.astype(np.int64))) if idx.size else \
        F.zeros((0,), tensor.dtype)


def dense_to_sparse_coo(tensor):
    """The COOTensor of the non-zero elements of `tensor` (row-major order)."""
    _check("dense_to_sparse_coo", "tensor", tensor, Tensor)
    if tensor.ndim == 0:
        raise ValueError("For 'dense_to_sparse_coo', the 'tensor' must be at least 1-D, but got a 0-D Tensor.")
    idx, values = _nonzero("dense_to_sparse_coo", tensor)
    return COOTensor(Tensor(idx.reshape(-1, tensor.ndim).astype(np.int64)), values, tensor.shape)


def dense_to_sparse_csr(tensor):
    """The CSRTensor of the non-zero elements of a 2-D `tensor`."""
    if isinstance(tensor, Tensor) and tensor.ndim != 2:
        raise ValueError(f"For 'dense_to_sparse_csr', the 'tensor' must be 2-D, but got {tensor.ndim}-D.")
    idx, values = _nonzero("dense_to_sparse_csr", tensor)
    idx = idx.reshape(-1, 2)
    ptr = np.zeros(tensor.shape[0] + 1, np.int64)
    np.cumsum(np.bincount(idx[:, 0], minlength=tensor.shape[0]), out=ptr[1:])
    return CSRTensor(Tensor(ptr), Tensor(idx[:, 1].astype(np.int64)), values, tensor.shape)


# ---------------------------------------------------------------- arithmetic
def _merge(idx_list, values_list, shape):
    """Union of several index sets (rows of (N_i, ndim)): the sorted unique indices and the summed values."""
    idx = np.concatenate(idx_list, axis=0)
    flat = np.ravel_multi_index(idx.T, shape) if idx.size else np.zeros(0, np.int64)
    uniq, inverse = np.unique(flat, return_inverse=True)
    values = F.unsorted_segment_sum(F.concat(values_list), Tensor(inverse.astype(np.int32)), len(uniq))
    return np.stack(np.unravel_index(uniq, shape), axis=1), values


def _merge_walk(ia, ib):
    """MindSpore's SparseAdd walk: both index lists are read in order by two cursors (taken as sorted), an equal
    pair summed. Returns (from_a, from_b) positions per output entry, -1 where that input has none."""
    i = j = 0
    pa, pb = [], []
    while i < len(ia) and j < len(ib):
        a, b = tuple(ia[i]), tuple(ib[j])
        if a < b:
            pa.append(i), pb.append(-1)
            i += 1
        elif a > b:
            pa.append(-1), pb.append(j)
            j += 1
        else:
            pa.append(i), pb.append(j)
            i, j = i + 1, j + 1
    pa += list(range(i, len(ia)))
    pb += [-1] * (len(ia) - i)
    pa += [-1] * (len(ib) - j)
    pb += list(range(j, len(ib)))
    return np.array(pa, np.int64), np.array(pb, np.int64)


def _pick(values, pos):
    """values[pos] with 0 where pos is -1 (a gather from the values with one zero appended)."""
    padded = F.concat((values, F.zeros((1,), values.dtype)))
    return F.gather(padded, Tensor(np.where(pos < 0, values.shape[0], pos)), 0)


def coo_add(x1, x2, thresh):
    """x1 + x2 of two COOTensors of one shape, as MindSpore's SparseAdd: the indices are merged in order (sorted
    inputs give a sorted result), a position in both is summed and kept only when |sum| >= thresh; the indices
    are int64 (at least one input's must be)."""
    for name, x in (("x1", x1), ("x2", x2)):
        _check("coo_add", name, x, COOTensor)
    if tuple(x1.shape) != tuple(x2.shape):
        raise ValueError(f"For 'coo_add', the shapes of 'x1' and 'x2' must be equal, but got {x1.shape} and "
                         f"{x2.shape}.")
    if mstype.int64 not in (x1.indices.dtype, x2.indices.dtype):   # the kernel's index type, after promotion
        raise TypeError(f"For primitive[SparseAdd], the input argument[x1_indices] must be a type of "
                        f"{{Tensor[Int64]}}, but got Tensor[{x1.indices.dtype}].")
    ia, ib = _int_host(x1.indices), _int_host(x2.indices)
    pa, pb = _merge_walk(ia, ib)
    values = F.add(_pick(x1.values, pa), _pick(x2.values, pb))
    # row -1 of an index list with one zero row appended is that zero row
    ia_pad, ib_pad = (np.concatenate([i.reshape(-1, 2), np.zeros((1, 2), np.int64)]) for i in (ia, ib))
    idx = np.where((pa >= 0)[:, None], ia_pad[pa], ib_pad[pb])
    t = float(thresh.asnumpy()) if isinstance(thresh, Tensor) else float(thresh)
    both = (pa >= 0) & (pb >= 0)
    keep = np.nonzero(~both | (np.abs(values.asnumpy()) >= t))[0]
    if len(keep) != len(idx):
        idx, values = idx[keep], F.gather(values, Tensor(keep.astype(np.int64)), 0)
    return COOTensor(Tensor(np.asarray(idx, np.int64).reshape(-1, 2)), values, x1.shape)


def coo_concat(sp_input, concat_dim=0):
    """COOTensors (int64 indices, one values dtype) joined along `concat_dim`, their other dims equal; the result
    is in row-major order, as MindSpore's SparseConcat gives it."""
    from mindseed.ops.operations._sparse_coo import concat_coo    # operations import this module
    if not isinstance(sp_input, (list, tuple)):
        raise TypeError(f"For 'coo_concat', the 'sp_input' must be a list or tuple of COOTensor, but got "
                        f"{type(sp_input).__name__}.")
    if len(sp_input) < 2:
        raise ValueError(f"For 'coo_concat', at least 2 COOTensors are needed, but got {len(sp_input)}.")
    for x in sp_input:
        _check("coo_concat", "sp_input", x, COOTensor)
        if x.indices.dtype != mstype.int64:
            raise TypeError(f"For 'coo_concat', the indices of every COOTensor must be int64, but got "
                            f"{x.indices.dtype}.")
    idx, values, shape = concat_coo("coo_concat", [(_int_host(x.indices), x.values, x.shape) for x in sp_input],
                                    concat_dim)
    return COOTensor(Tensor(idx), values, tuple(int(s) for s in shape))


def _csr_of(idx, values, shape, index_dtype):
    ptr = np.zeros(shape[0] + 1, np.int64)
    np.cumsum(np.bincount(idx[:, 0], minlength=shape[0]), out=ptr[1:])
    return CSRTensor(Tensor(ptr.astype(index_dtype)), Tensor(idx[:, 1].astype(index_dtype)), values, shape)


def csr_add(a, b, alpha, beta):
    """alpha * a + beta * b of two CSRTensors of one shape (alpha, beta: 1-element Tensors or numbers)."""
    for name, x in (("a", a), ("b", b)):
        _check("csr_add", name, x, CSRTensor)
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"For 'csr_add', the shapes of 'a' and 'b' must be equal, but got {a.shape} and {b.shape}.")
    ia = np.stack([_csr_rows(a), _int_host(a.indices)], axis=1)
    ib = np.stack([_csr_rows(b), _int_host(b.indices)], axis=1)
    alpha, beta = (F.reshape(s, ()) if isinstance(s, Tensor) else s for s in (alpha, beta))
    idx, values = _merge([ia, ib], [a.values * alpha, b.values * beta], a.shape)
    return _csr_of(idx, values, a.shape, a.indices.asnumpy().dtype)


def _dense_at(api, x, y):
    """y (broadcast to x's dense shape) at x's stored positions."""
    _check(api, "x", x, CSRTensor)
    _check(api, "y", y, Tensor)
    full = F.broadcast_to(y, tuple(x.shape))
    idx = np.stack([_csr_rows(x), _int_host(x.indices)], axis=1)
    return F.gather_nd(full, Tensor(idx.astype(np.int64)))


def _scalar_operand(api, x, y):
    """y as a Tensor when it holds one value (MindSpore's is_scalar: size 1, at most 2-D), else None."""
    if isinstance(y, (bool, int, float)):
        y = Tensor(y)
    if isinstance(y, Tensor) and y.size == 1 and y.ndim <= 2:
        if y.ndim > len(x.shape):
            raise ValueError(f"For '{api}', dense tensor cannot broadcast to the sparse tensor.")
        return y
    return None


def csr_mul(x, y):
    """CSRTensor x times dense y (broadcast to x's shape) at x's stored positions. A one-value y gives the
    scaled values as a Tensor, not a CSRTensor (MindSpore 2.10)."""
    one = _scalar_operand("csr_mul", x, y)
    if one is not None:
        return F.reshape(x.values * one, x.values.shape)
    dense = _dense_at("csr_mul", x, y)
    return _with_values(x, x.values * dense)


def csr_div(x, y):
    """CSRTensor x divided by dense y (broadcast to x's shape) at x's stored positions; a one-value y gives the
    values Tensor, as csr_mul."""
    one = _scalar_operand("csr_div", x, y)
    if one is not None:
        return F.reshape(x.values / one, x.values.shape)
    dense = _dense_at("csr_div", x, y)
    return _with_values(x, x.values / dense)


def _rows_times(api, a, dense):
    """Sum over each CSR row of values * dense[column]: (rows, *dense.shape[1:])."""
    _check(api, "csr_tensor", a, CSRTensor)
    _check(api, "dense", dense, Tensor)
    if dense.shape[0] != a.shape[1]:
        raise ValueError(f"For '{api}', the sparse matrix of shape {a.shape} and the dense operand of shape "
                         f"{dense.shape} cannot be multiplied.")
    picked = F.gather(dense, Tensor(_int_host(a.indices)), 0)
    scale = F.reshape(a.values, (-1,) + (1,) * (dense.ndim - 1))
    rows = Tensor(_csr_rows(a).astype(np.int32))
    return F.unsorted_segment_sum(picked * scale, rows, a.shape[0])


def csr_mv(csr_tensor, dense_vector):
    """CSRTensor (m, n) times a dense (n, 1) vector: (m, 1)."""
    return _rows_times("csr_mv", csr_tensor, dense_vector)


def csr_mm(a, b, trans_a=False, trans_b=False, adjoint_a=False, adjoint_b=False):
    """CSRTensor a times b: a dense result for a dense b, a CSRTensor for a CSRTensor b."""
    _check("csr_mm", "a", a, CSRTensor)
    if trans_a or adjoint_a:
        a = dense_to_sparse_csr(F.transpose(csr_to_dense(a), (1, 0)))
    if isinstance(b, CSRTensor):
        dense_b = csr_to_dense(b)
        dense_b = F.transpose(dense_b, (1, 0)) if (trans_b or adjoint_b) else dense_b
        return dense_to_sparse_csr(_rows_times("csr_mm", a, dense_b))
    _check("csr_mm", "b", b, Tensor)
    return _rows_times("csr_mm", a, F.transpose(b, (1, 0)) if (trans_b or adjoint_b) else b)


def csr_reduce_sum(csr_tensor, axis):
    """Sum of a 2-D CSRTensor along `axis` (0 or 1), the dim kept: (1, n) or (m, 1)."""
    _check("csr_reduce_sum", "csr_tensor", csr_tensor, CSRTensor)
    if axis not in (0, 1, -1, -2):
        raise ValueError(f"For 'csr_reduce_sum', the 'axis' must be in [-2, 1], but got {axis}.")
    axis %= 2
    seg = _csr_rows(csr_tensor) if axis == 1 else _int_host(csr_tensor.indices)
    n = csr_tensor.shape[0] if axis == 1 else csr_tensor.shape[1]
    out = F.unsorted_segment_sum(csr_tensor.values, Tensor(seg.astype(np.int32)), n)
    return F.reshape(out, (n, 1) if axis == 1 else (1, n))


def csr_softmax(logits, dtype=mstype.float32):
    """Softmax over the stored values of each row of a CSRTensor."""
    _check("csr_softmax", "logits", logits, CSRTensor)
    rows = Tensor(_csr_rows(logits).astype(np.int32))
    v = F.cast(logits.values, dtype)
    m = F.gather(F.unsorted_segment_max(v, rows, logits.shape[0]), rows, 0)
    e = F.exp(v - F.stop_gradient(m))
    return _with_values(logits, e / F.gather(F.unsorted_segment_sum(e, rows, logits.shape[0]), rows, 0))


def csr_gather(indptr, indices, dense, dense_shape):
    """The elements of `dense` at the positions of a CSR pattern (indptr, indices): the values of a CSRTensor."""
    for name, v in (("indptr", indptr), ("indices", indices), ("dense", dense)):
        _check("csr_gather", name, v, Tensor)
    _int32_only("Indptr", indptr)
    _int32_only("Indices", indices)
    ptr = _indptr("csr_gather", indptr)
    rows = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    idx = np.stack([rows, _int_host(indices)], axis=1)
    return F.gather_nd(F.reshape(dense, tuple(dense_shape)), Tensor(idx.astype(np.int64)))


def coalesce(x_indices, x_values, x_shape):
    """(indices (ndim, M), values (M,), shape) with duplicate positions summed and positions sorted, from indices
    (ndim, N), values (N,) and the dense shape (a 1-D Tensor)."""
    for name, v in (("x_indices", x_indices), ("x_values", x_values), ("x_shape", x_shape)):
        _check("coalesce", name, v, Tensor)
    for name, v, ndim in (("x_indices", x_indices, 2), ("x_values", x_values, 1), ("x_shape", x_shape, 1)):
        if v.ndim != ndim:
            raise ValueError(f"For 'Coalesce', the '{name}' must be a {ndim}-D Tensor, but got shape {v.shape}.")
    if x_indices.shape[1] != x_values.shape[0] or x_indices.shape[0] != x_shape.shape[0]:
        raise ValueError(f"For 'Coalesce', the 'x_indices' shape must be (len(x_shape), len(x_values)) = "
                         f"({x_shape.shape[0]}, {x_values.shape[0]}), but got {x_indices.shape}.")
    shape, idx = tuple(_int_host(x_shape)), _int_host(x_indices)
    bad = np.nonzero((idx < 0) | (idx >= np.array(shape).reshape(-1, 1)))
    if bad[0].size:
        d, j = int(bad[0][0]), int(bad[1][0])
        raise RuntimeError(f"For 'Coalesce', the 'x_indices' [{d}, {j}] = {idx[d, j]} is out of range "
                           f"[0, {shape[d]}) of dimension {d} of 'x_shape'.")
    idx, values = _merge([idx.T], [x_values], shape)
    return Tensor(idx.T.astype(np.int64)), values, x_shape


def sparse_segment_mean(x, indices, segment_ids):
    """out[s] = mean of x[indices[j]] over the j with segment_ids[j] == s (segment_ids sorted); empty segments
    are 0."""
    for name, v in (("x", x), ("indices", indices), ("segment_ids", segment_ids)):
        _check("sparse_segment_mean", name, v, Tensor)
    for name, v in (("indices", indices), ("segment_ids", segment_ids)):
        if v.ndim != 1:
            raise ValueError(f"For 'sparse_segment_mean', the '{name}' must be 1-D, but got shape {v.shape}.")
    seg = _int_host(segment_ids)
    if seg.size and np.any(np.diff(seg) < 0):
        raise ValueError("For 'sparse_segment_mean', the 'segment_ids' must be sorted.")
    n = int(seg.max()) + 1 if seg.size else 0
    total = F.unsorted_segment_sum(F.gather(x, indices, 0), segment_ids, n)
    counts = np.maximum(np.bincount(seg, minlength=n), 1).astype(np.float64)
    return total / Tensor(counts.reshape((n,) + (1,) * (x.ndim - 1)), x.dtype)


def row_tensor_add(x, y):
    """A dense Tensor y plus a RowTensor x (its rows added at their indices)."""
    _check("row_tensor_add", "x", x, RowTensor)
    _check("row_tensor_add", "y", y, Tensor)
    return F.index_add(y, F.cast(x.indices, mstype.int32), x.values, 0)
