"""MindSpore's CSR sparse-matrix primitives (`mindspore.ops.operations.sparse_ops`), the ragged-tensor and the
set ones.

A (batched) CSR sparse matrix is five inputs: dense_shape (2,) or (3,) = ([batch,] rows, cols); batch_pointers
(batch + 1,), the running count of stored values per batch; row_pointers (batch * (rows + 1),), each batch's row
pointer; col_indices (nnz,); values (nnz,). Structure is worked out on the host (numpy), values go through ops."""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.operations._more import _host
from mindseed.ops.operations._sparse_coo import row_major, segment_softmax, take
from mindseed.ops.operations._table import REQUIRED, primitive_class

_CSR = ("dense_shape", "batch_pointers", "row_pointers", "col_indices", "values")


def _csr_coo(op, dense_shape, batch_pointers, row_pointers, col_indices, values, prefix="x_", batch_checked=True,
             batch_read_2d=True):
    """(shape (batch, rows, cols), rank, index dtype, host (nnz, 3) batch/row/col coordinates) of a CSR input.

    batch_checked=False: as MindSpore's SparseMatrixSoftmax, the batch pointers are not read (any shape is
    accepted); each batch's count comes from the end of its row pointer. batch_read_2d=False: the same for an
    unbatched (2-D) matrix only, as MindSpore's CSRSparseMatrixToDense/ToSparseTensor."""
    for name, x in zip(_CSR, (dense_shape, batch_pointers, row_pointers, col_indices, values)):
        if not isinstance(x, Tensor):
            raise TypeError(f"For '{op}', the '{prefix}{name}' must be a Tensor, but got {type(x).__name__}.")
    dims = _host(dense_shape).astype(np.int64).reshape(-1)
    if dims.size not in (2, 3):
        raise ValueError(f"For '{op}', the '{prefix}dense_shape' must have 2 or 3 elements, but got {dims.tolist()}.")
    batch, rows, cols = (1, *dims) if dims.size == 2 else dims
    bptr = _host(batch_pointers).astype(np.int64).reshape(-1)
    rptr = _host(row_pointers).astype(np.int64).reshape(-1)
    col = _host(col_indices).astype(np.int64).reshape(-1)
    if (not batch_checked or (dims.size == 2 and not batch_read_2d)) and rptr.size == batch * (rows + 1):
        bptr = np.concatenate([[0], np.cumsum(rptr.reshape(batch, rows + 1)[:, -1])])
    if bptr.size != batch + 1 or rptr.size != batch * (rows + 1):
        raise ValueError(f"For '{op}', with batch {batch} and {rows} rows the '{prefix}batch_pointers' must have "
                         f"{batch + 1} elements and '{prefix}row_pointers' {batch * (rows + 1)}, but got {bptr.size} "
                         f"and {rptr.size}.")
    if col.size != values.shape[0] or bptr[-1] != col.size:
        raise ValueError(f"For '{op}', '{prefix}col_indices' and '{prefix}values' must both hold batch_pointers[-1] "
                         f"= {bptr[-1]} elements, but got {col.size} and {values.shape[0]}.")
    coords = []
    for b in range(batch):
        ptr = rptr[b * (rows + 1):(b + 1) * (rows + 1)]
        r = np.repeat(np.arange(rows), np.diff(ptr))
        coords.append(np.stack([np.full(r.size, b), r, col[bptr[b]:bptr[b] + r.size]], axis=1))
    idx = np.concatenate(coords).reshape(-1, 3)
    if idx.size and (np.any(idx[:, 2] < 0) or np.any(idx[:, 2] >= cols)):
        raise ValueError(f"For '{op}', the '{prefix}col_indices' must be in [0, {cols}).")
    return (int(batch), int(rows), int(cols)), dims.size, col_indices.dtype, idx


def _csr_of(shape, rank, dtype, idx, values):
    """The five CSR outputs of (nnz, 3) batch/row/col coordinates in row-major order and their values."""
    batch, rows, _ = shape
    bptr = np.zeros(batch + 1, np.int64)
    np.cumsum(np.bincount(idx[:, 0], minlength=batch), out=bptr[1:])
    rptr = np.zeros((batch, rows + 1), np.int64)
    for b in range(batch):
        np.cumsum(np.bincount(idx[idx[:, 0] == b, 1], minlength=rows), out=rptr[b, 1:])
    dims = np.array(shape if rank == 3 else shape[1:], np.int64)
    return (Tensor(dims.astype(mstype.dtype_to_nptype(dtype))), Tensor(bptr, dtype), Tensor(rptr.reshape(-1), dtype),
            Tensor(idx[:, 2], dtype), values)


def _dense3(shape, idx, values):
    zeros = F.zeros(shape, values.dtype)
    return F.tensor_scatter_add(zeros, Tensor(idx), values) if idx.size else zeros


def _unbatch(dense, rank):
    return F.reshape(dense, dense.shape[1:]) if rank == 2 else dense


def _to_dense(*csr):
    shape, rank, _, idx = _csr_coo("CSRSparseMatrixToDense", *csr, batch_read_2d=False)
    return _unbatch(_dense3(shape, idx, csr[4]), rank)


def _to_sparse_tensor(*csr):
    shape, rank, dtype, idx = _csr_coo("CSRSparseMatrixToSparseTensor", *csr, batch_read_2d=False)
    out = idx if rank == 3 else idx[:, 1:]
    dims = np.array(shape if rank == 3 else shape[1:], np.int64)
    return Tensor(out, dtype), csr[4], Tensor(dims, dtype)


def _from_coo(op, x_indices, x_values, x_dense_shape):
    dims = _host(x_dense_shape).astype(np.int64).reshape(-1)
    idx = _host(x_indices).astype(np.int64).reshape(-1, dims.size)
    if dims.size not in (2, 3) or idx.shape[0] != x_values.shape[0]:
        raise ValueError(f"For '{op}', the indices must be (N, 2) or (N, 3) with N values, but got shapes "
                         f"{x_indices.shape} and {x_values.shape}.")
    shape = (1, *dims) if dims.size == 2 else tuple(dims)
    idx3 = np.concatenate([np.zeros((idx.shape[0], 1), np.int64), idx], 1) if dims.size == 2 else idx
    if idx3.size and (np.any(idx3 < 0) or np.any(idx3 >= np.array(shape))):
        raise ValueError(f"For '{op}', every index must lie inside the dense shape {dims.tolist()}.")
    order = np.argsort(row_major(idx3, shape), kind="stable")
    return tuple(int(s) for s in shape), dims.size, idx3[order], order


def _sparse_tensor_to_csr(x_indices, x_values, x_dense_shape):
    shape, rank, idx, order = _from_coo("SparseTensorToCSRSparseMatrix", x_indices, x_values, x_dense_shape)
    return _csr_of(shape, rank, x_indices.dtype, idx, take(x_values, order))


def _dense_to_csr(dense_input, indices):
    dims = Tensor(np.array(dense_input.shape, np.int64))
    shape, rank, idx, order = _from_coo("DenseToCSRSparseMatrix", indices, F.zeros((indices.shape[0],)), dims)
    flat = F.reshape(dense_input, shape)
    values = F.gather_nd(flat, Tensor(idx)) if idx.size else F.zeros((0,), dense_input.dtype)
    return _csr_of(shape, rank, indices.dtype, idx, values)


def _nnz(*csr):
    shape, _, _, idx = _csr_coo("SparseMatrixNNZ", *csr)
    return Tensor(np.bincount(idx[:, 0], minlength=shape[0]).astype(np.int32))


def _transposed(shape, idx, values, conjugate):
    t = idx[:, [0, 2, 1]]
    order = np.argsort(row_major(t, (shape[0], shape[2], shape[1])), kind="stable")
    vals = take(values, order)
    vals = F.conj(vals) if conjugate and mstype.is_complex(vals.dtype) else vals
    return (shape[0], shape[2], shape[1]), t[order], vals


def _transpose(*csr, conjugate=False):
    shape, rank, dtype, idx = _csr_coo("SparseMatrixTranspose", *csr)
    new_shape, t, vals = _transposed(shape, idx, csr[4], conjugate)
    return _csr_of(new_shape, rank, dtype, t, vals)


def _softmax(*csr, dtype=REQUIRED):
    if dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"For 'SparseMatrixSoftmax', the 'dtype' must be float32 or float64, but got {dtype}.")
    shape, rank, idx_dtype, idx = _csr_coo("SparseMatrixSoftmax", *csr, prefix="logits_", batch_checked=False)
    rows = Tensor((idx[:, 0] * shape[1] + idx[:, 1]).astype(np.int32))
    values = segment_softmax(F.cast(csr[4], dtype), rows, shape[0] * shape[1])
    return _csr_of(shape, rank, idx_dtype, idx, values)


def _matrix_add(*args):
    a, b, alpha, beta = args[:5], args[5:10], args[10], args[11]
    sa, rank, dtype, ia = _csr_coo("SparseMatrixAdd", *a, prefix="x1_")
    sb, _, _, ib = _csr_coo("SparseMatrixAdd", *b, prefix="x2_")
    if sa != sb:
        raise ValueError(f"For 'SparseMatrixAdd', the dense shapes of the two matrices must be equal, but got {sa} "
                         f"and {sb}.")
    keys = np.concatenate([row_major(ia, sa), row_major(ib, sa)])
    uniq, inverse = np.unique(keys, return_inverse=True)
    values = F.unsorted_segment_sum(F.concat([F.reshape(alpha, ()) * a[4], F.reshape(beta, ()) * b[4]]),
                                    Tensor(inverse.astype(np.int32)), uniq.size)
    idx = np.stack(np.unravel_index(uniq, sa), axis=1).reshape(-1, 3)
    return _csr_of(sa, rank, dtype, idx, values)


def _oriented(dense, transpose, adjoint):
    if transpose and adjoint:
        raise ValueError("For 'SparseMatrixMatMul', transpose and adjoint of one input cannot both be True.")
    if transpose or adjoint:
        dense = F.swapaxes(dense, -1, -2)
    return F.conj(dense) if adjoint and mstype.is_complex(dense.dtype) else dense


def _matmul(*args, transpose_x1=False, transpose_x2=False, adjoint_x1=False, adjoint_x2=False,
            transpose_output=False, conjugate_output=False):
    shape, rank, _, idx = _csr_coo("SparseMatrixMatMul", *args[:5], prefix="x1_")
    a = _oriented(_dense3(shape, idx, args[4]), transpose_x1, adjoint_x1)
    x2 = args[5]
    b = _oriented(x2 if x2.ndim == 3 else F.reshape(x2, (1, *x2.shape)), transpose_x2, adjoint_x2)
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"For 'SparseMatrixMatMul', x1's col and x2's row must be the same, but got x1_col = "
                         f"{a.shape[-1]}, and x2_row = {b.shape[-2]}.")
    out = F.matmul(a, b)
    out = F.swapaxes(out, -1, -2) if transpose_output else out
    out = F.conj(out) if conjugate_output and mstype.is_complex(out.dtype) else out
    return _unbatch(out, rank)


def _sparse_matmul(*args, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False):
    sa, rank, dtype, ia = _csr_coo("SparseMatrixSparseMatMul", *args[:5], prefix="x1_")
    sb, _, _, ib = _csr_coo("SparseMatrixSparseMatMul", *args[5:], prefix="x2_")
    a = _oriented(_dense3(sa, ia, args[4]), transpose_a, adjoint_a)
    b = _oriented(_dense3(sb, ib, args[9]), transpose_b, adjoint_b)
    if a.shape[-1] != b.shape[-2] or a.shape[0] != b.shape[0]:
        raise ValueError(f"For 'SparseMatrixSparseMatMul', the matrices {a.shape} and {b.shape} cannot multiply.")
    pattern_a, pattern_b = np.zeros(sa, bool), np.zeros(sb, bool)
    pattern_a[tuple(ia.T)] = True
    pattern_b[tuple(ib.T)] = True
    pa = np.swapaxes(pattern_a, 1, 2) if transpose_a or adjoint_a else pattern_a
    pb = np.swapaxes(pattern_b, 1, 2) if transpose_b or adjoint_b else pattern_b
    idx = np.argwhere(np.matmul(pa.astype(np.int64), pb.astype(np.int64)) > 0)    # structural non-zeros
    prod = F.matmul(a, b)
    values = F.gather_nd(prod, Tensor(idx)) if idx.size else F.zeros((0,), prod.dtype)
    return _csr_of(tuple(prod.shape), rank, dtype, idx.reshape(-1, 3), values)


def _ragged_to_sparse(rt_nested_splits, rt_dense_values, Tsplits=mstype.int64):
    splits = [_host(s).astype(np.int64).reshape(-1) for s in rt_nested_splits]
    if not splits:
        raise ValueError("For 'RaggedTensorToSparse', the 'rt_nested_splits' must hold at least one Tensor.")
    rows = [np.arange(splits[0].size - 1).reshape(-1, 1)]      # the index prefix of every item at this level
    for k, sp in enumerate(splits):
        if sp.size == 0 or sp[0] != 0 or np.any(np.diff(sp) < 0):
            raise ValueError(f"For 'RaggedTensorToSparse', rt_nested_splits[{k}] must start at 0 and not decrease, "
                             f"but got {sp.tolist()}.")
        lengths = np.diff(sp)
        parent = np.repeat(rows[-1], lengths, axis=0)
        rows.append(np.concatenate([parent, (np.arange(sp[-1]) - np.repeat(sp[:-1], lengths)).reshape(-1, 1)], 1))
    leaf = rows[-1]
    if leaf.shape[0] != rt_dense_values.shape[0]:
        raise ValueError(f"For 'RaggedTensorToSparse', the last splits end at {leaf.shape[0]}, but 'rt_dense_values' "
                         f"has {rt_dense_values.shape[0]} rows.")
    inner = rt_dense_values.shape[1:]
    grid = np.stack(np.meshgrid(*[np.arange(d) for d in inner], indexing="ij"), -1).reshape(-1, len(inner)) \
        if inner else np.zeros((1, 0), np.int64)
    idx = np.concatenate([np.repeat(leaf, grid.shape[0], 0), np.tile(grid, (leaf.shape[0], 1))], 1)
    dense_shape = [splits[0].size - 1] + [int(np.diff(sp).max()) if sp.size > 1 else 0 for sp in splits] + list(inner)
    return (Tensor(idx.astype(np.int64)), F.reshape(rt_dense_values, (-1,)),
            Tensor(np.array(dense_shape, np.int64)))


def _ragged_to_tensor(shape, values, default_value, row_partition_tensors, row_partition_types=REQUIRED):
    parts = [_host(t).astype(np.int64).reshape(-1) for t in row_partition_tensors]
    types = list(row_partition_types)
    if len(types) != len(parts):
        raise ValueError(f"For 'RaggedTensorToTensor', 'row_partition_types' has {len(types)} entries but "
                         f"'row_partition_tensors' {len(parts)}.")
    if types[0] == "FIRST_DIM_SIZE":
        first, types, parts = int(parts[0][0]), types[1:], parts[1:]
    elif types[0] == "ROW_SPLITS":
        first = parts[0].size - 1
    else:
        raise ValueError(f"For 'RaggedTensorToTensor', the first row partition type must be FIRST_DIM_SIZE or "
                         f"ROW_SPLITS, but got {types[0]}.")
    rows = np.arange(first).reshape(-1, 1)
    for kind, part in zip(types, parts):
        if kind == "ROW_SPLITS":
            parent = np.repeat(np.arange(part.size - 1), np.diff(part))
        elif kind == "VALUE_ROWIDS":
            parent = part
        else:
            raise ValueError(f"For 'RaggedTensorToTensor', unknown row partition type {kind}.")
        start = np.searchsorted(parent, np.arange(rows.shape[0]))
        rows = np.concatenate([rows[parent], (np.arange(parent.size) - start[parent]).reshape(-1, 1)], 1)
    depth = rows.shape[1]
    natural = [first] + [int(rows[:, k].max()) + 1 if rows.size else 0 for k in range(1, depth)]
    want = _host(shape).astype(np.int64).reshape(-1) if shape.ndim else np.array([], np.int64)
    out_shape = [int(w) if w >= 0 else n for w, n in zip(want, natural)] if want.size else natural
    out_shape += list(values.shape[1:])
    keep = np.nonzero(np.all(rows < np.array(out_shape[:depth]), axis=1))[0]
    fill = F.fill(values.dtype, tuple(out_shape), 0) + F.cast(F.reshape(default_value, ()), values.dtype) \
        if default_value.ndim == 0 or default_value.size == 1 else F.broadcast_to(default_value, tuple(out_shape))
    if not keep.size:
        return fill
    return F.tensor_scatter_update(fill, Tensor(rows[keep]), take(values, keep))



def _row_sets(values, lead, groups):
    """The set (sorted unique values) of each group id 0..groups-1 (lead: a host group id per value)."""
    sets = [set() for _ in range(groups)]
    for g, v in zip(lead.tolist(), values.tolist()):
        sets[g].add(v)
    return sets


def _dense_sets(op, name, x):
    a = _host(x)
    if a.ndim < 2:
        raise ValueError(f"For '{op}', the rank of '{name}' must be at least 2, but got {a.ndim}.")
    rows = a.reshape(-1, a.shape[-1])
    return [set(r.tolist()) for r in rows], a.shape[:-1], a.dtype


def _sparse_sets(op, indices, values, shape):
    idx, dims = _host(indices).astype(np.int64), _host(shape).astype(np.int64).reshape(-1)
    if dims.size < 2:
        raise ValueError(f"For '{op}', the rank of the sparse set must be at least 2, but got {dims.size}.")
    lead = row_major(idx[:, :-1], dims[:-1]) if idx.size else np.zeros(0, np.int64)
    return _row_sets(_host(values).reshape(-1), lead, int(np.prod(dims[:-1]))), tuple(dims[:-1])


_SET_OPS = {"a-b": lambda a, b: a - b, "b-a": lambda a, b: b - a, "intersection": lambda a, b: a & b,
            "union": lambda a, b: a | b}


def _set_result(op, set_operation, a_sets, b_sets, lead_shape, dtype):
    if set_operation.lower() not in _SET_OPS:
        raise ValueError(f"For '{op}', the 'set_operation' must be one of {sorted(_SET_OPS)}, but got "
                         f"'{set_operation}'.")
    if len(a_sets) != len(b_sets):
        raise ValueError(f"For '{op}', the two inputs must have the same leading dims, but got {len(a_sets)} and "
                         f"{len(b_sets)} sets.")
    result = [sorted(_SET_OPS[set_operation.lower()](a, b)) for a, b in zip(a_sets, b_sets)]
    width = max((len(r) for r in result), default=0)
    lead = np.array([np.unravel_index(k, lead_shape) for k, r in enumerate(result) for _ in r], np.int64)
    col = np.array([j for r in result for j in range(len(r))], np.int64).reshape(-1, 1)
    idx = np.concatenate([lead.reshape(-1, len(lead_shape)), col], 1)
    values = np.array([v for r in result for v in r], dtype)
    return Tensor(idx), Tensor(values), Tensor(np.array(list(lead_shape) + [width], np.int64))


def _dense_to_dense_set(x1, x2, set_operation="a-b", validate_indices=True):
    a, lead_a, dtype = _dense_sets("DenseToDenseSetOperation", "x1", x1)
    b, lead_b, _ = _dense_sets("DenseToDenseSetOperation", "x2", x2)
    if lead_a != lead_b:
        raise ValueError(f"For 'DenseToDenseSetOperation', 'x1' and 'x2' must agree in all dims but the last, but "
                         f"got {x1.shape} and {x2.shape}.")
    return _set_result("DenseToDenseSetOperation", set_operation, a, b, lead_a, dtype)


def _dense_to_sparse_set(x1, x2_indices, x2_values, x2_shape, set_operation="a-b", validate_indices=True):
    a, lead_a, dtype = _dense_sets("DenseToSparseSetOperation", "x1", x1)
    b, lead_b = _sparse_sets("DenseToSparseSetOperation", x2_indices, x2_values, x2_shape)
    if tuple(lead_a) != lead_b:
        raise ValueError(f"For 'DenseToSparseSetOperation', 'x1' {x1.shape} and 'x2_shape' must agree in all dims "
                         f"but the last.")
    return _set_result("DenseToSparseSetOperation", set_operation, a, b, lead_a, dtype)


def _set_size(set_indices, set_values, set_shape, validate_indices=True):
    sets, lead = _sparse_sets("SetSize", set_indices, set_values, set_shape)
    return Tensor(np.array([len(x) for x in sets], np.int32).reshape(lead))


def _sparse_slice_grad(backprop_val_grad, indices, start, new_indices):
    idx, lo = _host(indices).astype(np.int64), _host(start).astype(np.int64).reshape(1, -1)
    where = {tuple(r): k for k, r in enumerate((idx - lo).tolist())}
    picked = _host(new_indices).astype(np.int64).tolist()
    missing = [r for r in picked if tuple(r) not in where]
    if missing:
        raise ValueError(f"For 'SparseSliceGrad', the 'new_indices' row {missing[0]} (shifted by 'start') is not "
                         f"among 'indices'.")
    pos = np.array([where[tuple(r)] for r in picked], np.int64).reshape(-1, 1)
    zeros = F.zeros((idx.shape[0],), backprop_val_grad.dtype)
    return F.tensor_scatter_add(zeros, Tensor(pos), backprop_val_grad) if pos.size else zeros


_ROWS = {
    "CSRSparseMatrixToDense": (_to_dense, (), tuple("x_" + n for n in _CSR), "The dense matrix of a CSR input."),
    "CSRSparseMatrixToSparseTensor": (_to_sparse_tensor, (), tuple("x_" + n for n in _CSR),
                                      "(indices, values, dense_shape) of a CSR input."),
    "SparseTensorToCSRSparseMatrix": (_sparse_tensor_to_csr, (), ("x_indices", "x_values", "x_dense_shape"),
                                      "The five CSR parts of a COO sparse tensor."),
    "DenseToCSRSparseMatrix": (_dense_to_csr, (), ("dense_input", "indices"),
                               "The five CSR parts of the elements of dense_input at indices."),
    "SparseMatrixNNZ": (_nnz, (), tuple("x_" + n for n in _CSR), "The number of stored values of each batch."),
    "SparseMatrixTranspose": (_transpose, (("conjugate", False),), tuple("x_" + n for n in _CSR),
                              "The CSR transpose (conjugate: of complex values too)."),
    "SparseMatrixSoftmax": (_softmax, (("dtype", REQUIRED),), tuple("logits_" + n for n in _CSR),
                            "Softmax over the stored values of each row."),
    "SparseMatrixAdd": (_matrix_add, (), tuple("x1_" + n for n in _CSR) + tuple("x2_" + n for n in _CSR)
                        + ("alpha", "beta"), "alpha * x1 + beta * x2 of two CSR matrices."),
    "SparseMatrixMatMul": (_matmul, (("transpose_x1", False), ("transpose_x2", False), ("adjoint_x1", False),
                                     ("adjoint_x2", False), ("transpose_output", False), ("conjugate_output", False)),
                           tuple("x1_" + n for n in _CSR) + ("x2_dense",), "A CSR matrix times a dense one."),
    "SparseMatrixSparseMatMul": (_sparse_matmul, (("transpose_a", False), ("transpose_b", False),
                                                  ("adjoint_a", False), ("adjoint_b", False)),
                                 tuple("x1_" + n for n in _CSR) + tuple("x2_" + n for n in _CSR),
                                 "The CSR product of two CSR matrices (its structural non-zeros)."),
    "RaggedTensorToSparse": (_ragged_to_sparse, (("Tsplits", mstype.int64),), ("rt_nested_splits", "rt_dense_values"),
                             "(indices, values, dense_shape) of a ragged tensor given by nested row splits."),
    "RaggedTensorToTensor": (_ragged_to_tensor, (("row_partition_types", REQUIRED),),
                             ("shape", "values", "default_value", "row_partition_tensors"),
                             "The dense tensor of a ragged tensor, default_value where a row is short."),
    "DenseToDenseSetOperation": (_dense_to_dense_set, (("set_operation", "a-b"), ("validate_indices", True)),
                                 ("x1", "x2"), "Set operation of the last-dim rows of two dense tensors, as a "
                                 "sparse tensor of sorted values."),
    "DenseToSparseSetOperation": (_dense_to_sparse_set, (("set_operation", "a-b"), ("validate_indices", True)),
                                  ("x1", "x2_indices", "x2_values", "x2_shape"),
                                  "Set operation of the last-dim rows of a dense and a sparse tensor."),
    "SetSize": (_set_size, (("validate_indices", True),), ("set_indices", "set_values", "set_shape"),
                "The number of distinct values in each last-dim row of a sparse tensor."),
    "SparseSliceGrad": (_sparse_slice_grad, (), ("backprop_val_grad", "indices", "start", "new_indices"),
                        "The gradient of SparseSlice for its input values."),
}

globals().update({_name: primitive_class(_name, _fn, _attrs, _inputs, doc=_doc,
                                         module="mindseed.ops.operations.sparse_ops")
                  for _name, (_fn, _attrs, _inputs, _doc) in _ROWS.items()})
__all__ = [_n for _n in _ROWS if not _n.endswith("Grad")]    # the Grad kernels are in _grad_ops
GRAD_CLASSES = [_n for _n in _ROWS if _n.endswith("Grad")]
