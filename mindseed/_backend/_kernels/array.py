"""Kernels of the array family: movement, gather/scatter, masks, sorting, search, creation."""
import itertools

import torch

from mindseed._backend._core import _TORCH_DTYPES, to_dtype
from mindseed._backend._widen import _WIDER


def _dev():
    from mindseed._backend import _core as _backend  # noqa: PLC0415 -- the current device is chosen at run time
    return _backend.device()


def _long(i):
    return i if i.dtype == torch.int64 else i.long()


def _wrap_negative(i, n):
    """Indices with negatives counted from the end (MindSpore accepts -n <= i < n). Eagerly the common case (no
    negatives) costs one check; under torch.compile (jit_level O1) the check would split the graph, so the
    wrap is always computed there."""
    i = _long(i)
    if torch.compiler.is_compiling():
        return torch.where(i < 0, i + n, i)
    return torch.where(i < 0, i + n, i) if i.numel() and bool((i < 0).any()) else i


# ---------------------------------------------------------------- movement
def tile(x, reps):
    return x.repeat(reps) if len(reps) >= x.dim() else torch.tile(x, reps)


def repeat_interleave(x, repeats, axis):
    if isinstance(repeats, torch.Tensor):
        repeats = _long(repeats).to(x.device)
    return torch.repeat_interleave(x, repeats, dim=axis)


def flip(x, dims):
    return torch.flip(x, dims)


def roll(x, shifts, dims):
    return torch.roll(x, shifts, dims)


def unstack(x, axis=0):
    return torch.unbind(x, axis)


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim):
    """Reverse the first seq_lengths[b] entries along seq_dim of each batch b."""
    n = x.shape[seq_dim]
    lens = _long(seq_lengths).to(x.device)
    pos = torch.arange(n, device=x.device)
    shape = [1] * x.dim()
    shape[batch_dim] = lens.numel()
    shape[seq_dim] = n
    lens_b = lens.reshape([lens.numel() if d == batch_dim else 1 for d in range(x.dim())])
    pos_b = pos.reshape([n if d == seq_dim else 1 for d in range(x.dim())])
    src = torch.where(pos_b < lens_b, lens_b - 1 - pos_b, pos_b)
    return torch.gather(x, seq_dim, src.expand(x.shape).contiguous())


# ---------------------------------------------------------------- gather family
def gather(x, indices, axis=0, batch_dims=0):
    """MindSpore's Gather: out = x[..., indices, ...] along `axis`, the first `batch_dims` dims paired."""
    idx = _wrap_negative(indices, x.shape[axis])
    if batch_dims == 0:
        out = torch.index_select(x, axis, idx.reshape(-1))
        return out.reshape(x.shape[:axis] + idx.shape + x.shape[axis + 1:])
    x2, index, out_shape, dim = _batched_gather_index(x.shape, idx, axis, batch_dims)
    return torch.gather(x.reshape(x2), dim, index).reshape(out_shape)


def _batched_gather_index(shape, idx, axis, batch_dims):
    b, m, r = shape[:batch_dims], shape[batch_dims:axis], shape[axis + 1:]
    nb = 1
    for s in b:
        nb *= s
    ni = idx.numel() // max(nb, 1)
    x2 = (nb,) + tuple(m) + (shape[axis],) + tuple(r)
    view = idx.reshape((nb,) + (1,) * len(m) + (ni,) + (1,) * len(r))
    index = view.expand((nb,) + tuple(m) + (ni,) + tuple(r))
    out_shape = tuple(b) + tuple(m) + tuple(idx.shape[batch_dims:]) + tuple(r)
    return x2, index, out_shape, 1 + len(m)


def gather_grad(dout, indices, shape, axis=0, batch_dims=0):
    """Gradient of gather w.r.t. x: dout summed into zeros of `shape` at the gathered positions."""
    idx = _wrap_negative(indices, shape[axis])
    if batch_dims == 0:
        src = dout.reshape(tuple(shape[:axis]) + (idx.numel(),) + tuple(shape[axis + 1:]))
        return torch.zeros(shape, dtype=dout.dtype, device=dout.device).index_add_(axis, idx.reshape(-1), src)
    x2, index, _, dim = _batched_gather_index(shape, idx, axis, batch_dims)
    g = torch.zeros(x2, dtype=dout.dtype, device=dout.device)
    return g.scatter_add_(dim, index, dout.reshape(index.shape)).reshape(shape)


def _wrap_negative(index, size):
    """An int64 index with entries in [-size, 0) counted from the end of their axis (MindSpore allows them)."""
    index = _long(index)
    return torch.where(index < 0, index + size, index)


def gather_d(x, index, dim):
    return torch.gather(x, dim, _wrap_negative(index, x.shape[dim]))


def scatter_elements(x, index, updates, axis, reduction="none"):
    """MindSpore's TensorScatterElements: updates written (or added, multiplied) at index along axis.

    An index in [-s, 0) counts from the end of the axis, as MindSpore allows."""
    index = _wrap_negative(index, x.shape[axis])
    if reduction == "none":
        return torch.scatter(x, axis, index, updates)
    if reduction == "add":
        return torch.scatter_add(x, axis, index, updates)
    return torch.scatter_reduce(x, axis, index, updates, reduce="prod")


def _nd_positions(indices):
    idx = _long(indices)
    return tuple(idx[..., k] for k in range(idx.shape[-1]))


def _nd_bad_row(x, indices):
    """(row number, values) of the first index row of `indices` (..., k) outside x's leading k dims, negative
    ones included (MindSpore's nd kernels do not wrap them); None when all are inside."""
    k = indices.shape[-1]
    idx = _long(indices).reshape(-1, k)
    if not idx.numel():
        return None
    bad = ((idx < 0) | (idx >= torch.tensor(x.shape[:k], device=idx.device))).any(1)
    if not bool(bad.any()):
        return None
    i = int(torch.nonzero(bad)[0, 0])
    return i, idx[i].tolist()


def _braces(values):
    return "{" + ", ".join(str(v) for v in values) + "}"


def gather_nd(x, indices):
    bad = _nd_bad_row(x, indices)
    if bad is not None:
        raise RuntimeError(f"For 'GatherNd', the indices[{bad[0]}]: [const vector]{_braces(bad[1])}, does not index "
                           f"into input_shape: [const vector]{_braces(x.shape)}.")
    return x[_nd_positions(indices)]


def occurrence_waves(idx):
    """The positions of the 1-D int64 `idx` in waves of distinct values: wave k holds each value's k-th occurrence,
    in order. Applying an update wave by wave gives a repeated row its updates one after another, as the CPU kernels
    that walk their indices in order do. Yields (values, positions)."""
    if not idx.numel():
        return
    order = torch.argsort(idx, stable=True)
    ranked = idx[order]
    pos = torch.arange(idx.numel(), device=idx.device)
    first = torch.ones_like(ranked, dtype=torch.bool)
    first[1:] = ranked[1:] != ranked[:-1]
    start = torch.cummax(torch.where(first, pos, torch.zeros_like(pos)), 0).values
    rank = torch.empty_like(idx)
    rank[order] = pos - start
    for k in range(int(rank.max()) + 1):
        at = torch.nonzero(rank == k).reshape(-1)
        yield idx[at], at


def _flat_rows(x, indices):
    """x viewed as (rows, *rest) and the row number of each index tuple (for index_reduce)."""
    k = indices.shape[-1]
    lead = x.shape[:k]
    strides = torch.ones(k, dtype=torch.int64, device=x.device)
    for i in range(k - 2, -1, -1):
        strides[i] = strides[i + 1] * lead[i + 1]
    idx = _long(indices)                  # (in range: `tensor_scatter` checked them, `_nd_bad_row`)
    rows = (idx * strides).sum(-1).reshape(-1)
    n = 1
    for s in lead:
        n *= s
    return x.reshape((n,) + tuple(x.shape[k:])), rows


def tensor_scatter(x, indices, updates, op="update"):
    """MindSpore's TensorScatter{Update,Add,Sub,Max,Min,Mul,Div} (a new tensor). An index row out of range (a
    negative one too) is an error, in MindSpore's words for the arithmetic ones (the update's check words its own)."""
    bad = _nd_bad_row(x, indices)
    if bad is not None:
        if op == "update":
            raise IndexError(f"index {bad[1]} is out of range")
        k = indices.shape[-1]
        raise RuntimeError(f"For 'TensorScatter{op.capitalize()}', the {bad[0] * k}-th value of 'indices'"
                           f"[{', '.join(map(str, bad[1]))}] is out of range[{', '.join(map(str, x.shape[:k]))}].")
    if op in ("update", "add", "sub"):
        out = x.clone()
        vals = -updates if op == "sub" else updates
        out.index_put_(_nd_positions(indices), vals.to(x.dtype), accumulate=op != "update")
        return out
    flat, rows = _flat_rows(x, indices)
    src = updates.to(x.dtype).reshape((rows.numel(),) + tuple(flat.shape[1:]))
    index = rows.reshape((-1,) + (1,) * (flat.dim() - 1)).expand(src.shape)
    if op == "div" and (flat.is_floating_point() or flat.is_complex()):
        # one division per index, in order (a product of the divisors first could overflow where the kernel's
        # successive quotients do not, e.g. in float16)
        out = flat.clone()
        for rows_k, at in occurrence_waves(rows):
            out.index_copy_(0, rows_k, out.index_select(0, rows_k) / src.index_select(0, at))
        return out.reshape(x.shape)
    if op == "div":
        denom = torch.ones_like(flat).scatter_reduce_(0, index, src, "prod")
        # integers divide as C does, truncating toward zero (one division by the product: the same result); by
        # zero, MindSpore's kernel saturates: the dtype's max for a positive value, its min for a negative, 0 for 0
        zero = denom == 0
        out = torch.div(flat, torch.where(zero, torch.ones_like(denom), denom), rounding_mode="trunc")
        if bool(zero.any()):
            info = torch.iinfo(flat.dtype)
            sat = torch.where(flat > 0, info.max, torch.where(flat < 0, info.min, 0)).to(flat.dtype)
            out = torch.where(zero, sat, out)
        return out.reshape(x.shape)
    reduce = {"max": "amax", "min": "amin", "mul": "prod"}[op]
    return flat.scatter_reduce(0, index, src, reduce).reshape(x.shape)



def tensor_scatter_(x, indices, updates, op="update"):
    """TensorScatter{Update,Add,Sub} written into x itself (x's holder owns it alone: `sole_owner`). An index out
    of range is an IndexError before anything is written."""
    positions = _nd_positions(indices)
    for k, pos in enumerate(positions):
        if pos.numel() and (bool(pos.min() < -x.shape[k]) or bool(pos.max() >= x.shape[k])):
            raise IndexError(f"an index along dimension {k} is out of range for size {x.shape[k]}")
    vals = -updates if op == "sub" else updates
    x.index_put_(positions, vals.to(x.dtype), accumulate=op != "update")
    return x


def index_add(x, index, y, axis):
    return torch.index_add(x, axis, _wrap_negative(index, x.shape[axis]), y.to(x.dtype))


def index_fill(x, index, value, axis):
    if isinstance(value, torch.Tensor):
        value = value.to(x.dtype)
    return torch.index_fill(x, axis, _wrap_negative(index, x.shape[axis]), value)


def masked_scatter(x, mask, source):
    return torch.masked_scatter(x, mask, to_dtype(source, x.dtype))


def masked_select(x, mask):
    xb, mb = torch.broadcast_tensors(x, mask)
    return xb[mb]


# ---------------------------------------------------------------- sorting and search
def sort(x, axis=-1, descending=False, stable=False):
    v, i = torch.sort(x, dim=axis, descending=descending, stable=stable)
    return v, i.int()


def topk(x, k, dim=-1, largest=True, sorted=True):
    v, i = torch.topk(x, k, dim=dim, largest=largest, sorted=sorted)
    if not sorted:
        # as MindSpore's CPU kernel, unsorted keeps the chosen elements in their input order (all k: x itself)
        i, _ = torch.sort(i, dim=dim)
        v = torch.gather(x, dim, i)
    return v, i.int()


def searchsorted(seq, values, sorter=None, out_int32=False, right=False):
    if not isinstance(values, torch.Tensor):
        values = torch.tensor(values, dtype=seq.dtype, device=seq.device)
    if sorter is not None:
        sorter = _long(sorter)
    return torch.searchsorted(seq.contiguous(), values.contiguous(), out_int32=out_int32, right=right, sorter=sorter)


def bucketize(x, boundaries, right=False):
    b = torch.tensor(boundaries, dtype=x.dtype if x.is_floating_point() else torch.float64, device=x.device)
    return torch.bucketize(x.to(b.dtype), b, out_int32=True, right=right)


def nonzero(x):
    return torch.nonzero(x)


def unique(x):
    out, inv = torch.unique(x, sorted=False, return_inverse=True)
    # NOTE: MindSpore's Unique keeps first-occurrence order; torch's unsorted CPU unique returns sorted values.
    first = torch.full((out.numel(),), x.numel(), dtype=torch.int64, device=x.device)
    first.scatter_reduce_(0, inv.reshape(-1), torch.arange(x.numel(), device=x.device), reduce="amin")
    order = torch.argsort(first)
    rank = torch.empty_like(order)
    rank[order] = torch.arange(order.numel(), device=x.device)
    return out[order], rank[inv].to(torch.int64 if x.dtype == torch.int64 else torch.int32)


def unique_sorted(x, return_inverse=False, return_counts=False, dim=None):
    out = torch.unique(x, sorted=True, return_inverse=True, return_counts=True, dim=dim)
    return out


def unique_consecutive(x, dim=None):
    return torch.unique_consecutive(x, return_inverse=True, return_counts=True, dim=dim)


def unique_with_pad(x, pad_num):
    y, idx = unique(x.reshape(-1))
    out = torch.full((x.numel(),), pad_num, dtype=x.dtype, device=x.device)
    out[:y.numel()] = y
    return out, idx.to(x.dtype if x.dtype in (torch.int32, torch.int64) else torch.int32)


def bincount(x, weights=None, minlength=0):
    return torch.bincount(_long(x), weights=weights, minlength=minlength)


def histc(x, bins=100, min=0.0, max=0.0):  # noqa: A002 -- MindSpore's argument names
    src = x if x.is_floating_point() else x.float()
    return torch.histc(src, bins=bins, min=min, max=max).to(x.dtype if x.is_floating_point() else torch.float32)


# ---------------------------------------------------------------- triangles and diagonals
def tril(x, diagonal=0):
    return torch.tril(x, diagonal)


def triu(x, diagonal=0):
    return torch.triu(x, diagonal)


def diagonal(x, offset=0, dim1=0, dim2=1):
    return torch.diagonal(x, offset, dim1, dim2).contiguous()


def diagonal_scatter(x, src, offset=0, dim1=0, dim2=1):
    return torch.diagonal_scatter(x, src.to(x.dtype), offset, dim1, dim2)


def diag_embed(x, offset=0, dim1=-2, dim2=-1):
    return torch.diag_embed(x, offset, dim1, dim2)


def fill_diagonal(x, value, wrap=False):
    out = x.clone()
    return out.fill_diagonal_(value, wrap)


def matrix_band_part(x, lower, upper):
    m, n = x.shape[-2], x.shape[-1]
    i = torch.arange(m, device=x.device).reshape(m, 1)
    j = torch.arange(n, device=x.device).reshape(1, n)
    keep = torch.ones((m, n), dtype=torch.bool, device=x.device)
    if lower >= 0:
        keep &= (i - j) <= lower
    if upper >= 0:
        keep &= (j - i) <= upper
    return torch.where(keep, x, torch.zeros((), dtype=x.dtype, device=x.device))


def tril_indices(row, col, offset=0, dtype="Int64"):
    return torch.tril_indices(row, col, offset, dtype=_TORCH_DTYPES[dtype], device=_dev())


def triu_indices(row, col, offset=0, dtype="Int64"):
    return torch.triu_indices(row, col, offset, dtype=_TORCH_DTYPES[dtype], device=_dev())


# ---------------------------------------------------------------- creation
def eye(n, m, dtype):
    dt = _TORCH_DTYPES[dtype]
    if dt in _WIDER:       # no eye kernel for uint16/32/64: made in a wider dtype
        return torch.eye(n, m, dtype=_WIDER[dt], device=_dev()).to(dt)
    return torch.eye(n, m, dtype=dt, device=_dev())


def arange(start, end, step, dtype):
    return torch.arange(start, end, step, dtype=_TORCH_DTYPES[dtype], device=_dev())


def linspace(start, end, steps, dtype):
    return torch.linspace(start, end, steps, dtype=_TORCH_DTYPES[dtype], device=_dev())


def logspace(start, end, steps, base, dtype):
    return torch.logspace(start, end, steps, base, dtype=_TORCH_DTYPES[dtype], device=_dev())


def empty(shape, dtype):
    return torch.empty(shape, dtype=_TORCH_DTYPES[dtype], device=_dev())


def one_hot(indices, on_value, off_value, depth, axis=-1):
    """MindSpore's OneHot: out-of-range indices (negative or >= depth) give an all-off row."""
    idx = _long(indices)
    valid = (idx >= 0) & (idx < depth)
    hot = torch.nn.functional.one_hot(torch.where(valid, idx, 0), depth) * valid.unsqueeze(-1)
    on = on_value if isinstance(on_value, torch.Tensor) else torch.tensor(on_value, device=idx.device)
    off = off_value if isinstance(off_value, torch.Tensor) else torch.tensor(off_value, dtype=on.dtype,
                                                                             device=idx.device)
    out = torch.where(hot.bool(), on, off.to(on.dtype))
    if axis != -1 and axis != out.dim() - 1:
        out = torch.movedim(out, -1, axis)
    return out


def combination_indices(n, r, with_replacement=False):
    """(C, r) int64 index tuples of the r-combinations of range(n), in lexicographic order."""
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    combos = list(gen(range(n), r))
    if not combos:
        return torch.zeros((0, r), dtype=torch.int64, device=_dev())
    return torch.tensor(combos, dtype=torch.int64, device=_dev())


def view_as_real(x):
    return torch.view_as_real(x).clone()


def copy_to(x, src):
    """src broadcast and cast into a fresh tensor of x's shape and dtype."""
    if not isinstance(src, torch.Tensor):
        return torch.full_like(x, src)
    if src.is_complex() and not x.is_complex():
        src = src.real      # the real part, as a cast keeps it
    return src.to(x.dtype).expand(x.shape).clone()
