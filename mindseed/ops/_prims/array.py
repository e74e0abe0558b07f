"""Array primitives: movement, gather/scatter, masks, sorting, triangles/diagonals, creation.

Gradient pairs are declared next to each other: Gather <-> GatherGrad, GatherD <-> TensorScatterElements,
GatherNd <-> TensorScatterAdd, Diagonal <-> DiagonalScatter, so every bprop is itself differentiable.
"""
from functools import partial

import numpy as np

from mindseed._backend.kernels import array as K
from mindseed.ops._prims.core import (cast_p, concat_p, div_p, equal_p, fill_p, mul_p, neg_p, reduce_sum_p, reshape_p,
                                      stack_p, where_p, zeros_like_p)
from mindseed.ops._prims.math import complex_p
from mindseed.ops import _infer as I
from mindseed.ops import _sharding as S
from mindseed.ops._registry import Prim

# ---------------------------------------------------------------- movement
tile_p = Prim("Tile", K.tile)


@tile_p.def_bprop
def _tile_bprop(x, out, dout, reps):
    n = max(len(reps), x.ndim)
    reps = (1,) * (n - len(reps)) + tuple(reps)
    shape = (1,) * (n - x.ndim) + x.shape
    split = []
    for r, s in zip(reps, shape):
        split += [r, s]
    g = reduce_sum_p(reshape_p(dout, shape=tuple(split)), axis=tuple(range(0, 2 * n, 2)))
    return (reshape_p(g, shape=x.shape),)


repeat_interleave_p = Prim("RepeatInterleave", K.repeat_interleave)


@repeat_interleave_p.def_bprop
def _repeat_interleave_bprop(x, repeats, out, dout, axis):
    if isinstance(repeats, int):
        n = x.shape[axis]
        g = reshape_p(dout, shape=x.shape[:axis] + (n, repeats) + x.shape[axis + 1:])
        return reduce_sum_p(g, axis=axis + 1), None
    index = repeat_interleave_p(range_p(start=0, end=x.shape[axis], step=1, dtype="Int64"), repeats, axis=0)
    return index_add_p(zeros_like_p(x), index, dout, axis=axis), None


flip_p = Prim("ReverseV2", K.flip)


@flip_p.def_bprop
def _flip_bprop(x, out, dout, dims):
    return (flip_p(dout, dims=dims),)


roll_p = Prim("Roll", K.roll)


@roll_p.def_bprop
def _roll_bprop(x, out, dout, shifts, dims):
    back = tuple(-s for s in shifts) if isinstance(shifts, tuple) else -shifts
    return (roll_p(dout, shifts=back, dims=dims),)


unstack_p = Prim("Unstack", K.unstack, multi_output=True, sharding=S.unstack)


@unstack_p.def_bprop
def _unstack_bprop(x, out, dout, axis=0):
    return (stack_p(*dout, axis=axis),)


reverse_sequence_p = Prim("ReverseSequence", K.reverse_sequence)


@reverse_sequence_p.def_bprop
def _reverse_sequence_bprop(x, seq_lengths, out, dout, seq_dim, batch_dim):
    return reverse_sequence_p(dout, seq_lengths, seq_dim=seq_dim, batch_dim=batch_dim), None


# ---------------------------------------------------------------- gather / scatter
gather_p = Prim("Gather", K.gather, sharding=S.gather, infer=I.gather)


@gather_p.def_check
def _gather_check(x, indices, axis=0, batch_dims=0):
    # runs only after the kernel failed: name the offending index as MindSpore does
    n = x.shape[axis]
    v = indices.asnumpy()
    bad = v[(v < -n) | (v >= n)]
    if bad.size:        # found by the kernel at run time: MindSpore's kernel launch fails (RuntimeError)
        raise RuntimeError(f"For 'Gather', the 'input_indices' should be in the range [{-n}, {n}), but got "
                           f"{int(bad[0])}.")


@gather_p.def_bprop
def _gather_bprop(x, indices, out, dout, axis=0, batch_dims=0):
    return gather_grad_p(dout, indices, shape=x.shape, axis=axis, batch_dims=batch_dims), None


gather_grad_p = Prim("GatherGrad", K.gather_grad, sharding=S.gather_grad, infer=I.gather_grad)


@gather_grad_p.def_bprop
def _gather_grad_bprop(dout, indices, out, ddout, shape, axis=0, batch_dims=0):
    return gather_p(ddout, indices, axis=axis, batch_dims=batch_dims), None


gather_d_p = Prim("GatherD", K.gather_d)


@gather_d_p.def_bprop
def _gather_d_bprop(x, index, out, dout, dim):
    return scatter_elements_p(zeros_like_p(x), index, dout, axis=dim, reduction="add"), None


scatter_elements_p = Prim("TensorScatterElements", K.scatter_elements, sharding=S.scatter_elements)


@scatter_elements_p.def_bprop
def _scatter_elements_bprop(x, index, updates, out, dout, axis, reduction="none"):
    picked = gather_d_p(dout, index, dim=axis)
    if reduction == "add":
        return dout, None, picked
    if reduction == "none":
        return scatter_elements_p(dout, index, zeros_like_p(updates), axis=axis, reduction="none"), None, picked
    # mul: out = x * prod(updates at each slot)
    dx = scatter_elements_p(dout, index, updates, axis=axis, reduction="mul")
    return dx, None, div_p(gather_d_p(mul_p(dout, out), index, dim=axis), updates)


gather_nd_p = Prim("GatherNd", K.gather_nd)


@gather_nd_p.def_bprop
def _gather_nd_bprop(x, indices, out, dout):
    return tensor_scatter_add_p(zeros_like_p(x), indices, dout), None


def _tensor_scatter(name, op):
    return Prim(name, partial(K.tensor_scatter, op=op))


tensor_scatter_update_p = _tensor_scatter("TensorScatterUpdate", "update")
tensor_scatter_add_p = _tensor_scatter("TensorScatterAdd", "add")
tensor_scatter_sub_p = _tensor_scatter("TensorScatterSub", "sub")
tensor_scatter_max_p = _tensor_scatter("TensorScatterMax", "max")
tensor_scatter_min_p = _tensor_scatter("TensorScatterMin", "min")
tensor_scatter_mul_p = _tensor_scatter("TensorScatterMul", "mul")
tensor_scatter_div_p = _tensor_scatter("TensorScatterDiv", "div")


@tensor_scatter_update_p.def_check
def _tensor_scatter_update_check(x, indices, updates):
    # runs only after the kernel failed: MindSpore's update kernel checks the indices first (a ValueError, where the
    # arithmetic scatters fail at launch)
    # (a negative index fails MindSpore's value check before the range check)
    depth = indices.shape[-1]
    rows = indices.asnumpy().reshape(-1, depth)
    if (rows < 0).any():
        raise RuntimeError(f"The int value({rows[rows < 0][0]}) is less than 0.")
    bad = rows[(rows >= np.array(x.shape[:depth])).any(axis=1)]
    if bad.size:
        raise ValueError(f"For 'TensorScatterUpdate', indices out of range for input_x. Please check the indices "
                         f"which is [const vector]{{{', '.join(map(str, bad[0].tolist()))}}}")


@tensor_scatter_update_p.def_bprop
def _tensor_scatter_update_bprop(x, indices, updates, out, dout):
    return tensor_scatter_update_p(dout, indices, zeros_like_p(updates)), None, gather_nd_p(dout, indices)


@tensor_scatter_add_p.def_bprop
def _tensor_scatter_add_bprop(x, indices, updates, out, dout):
    return dout, None, gather_nd_p(dout, indices)


@tensor_scatter_sub_p.def_bprop
def _tensor_scatter_sub_bprop(x, indices, updates, out, dout):
    return dout, None, neg_p(gather_nd_p(dout, indices))


@tensor_scatter_mul_p.def_bprop
def _tensor_scatter_mul_bprop(x, indices, updates, out, dout):
    # out = x * P with P the product of the updates landing on each slot; d/du_j = x * P / u_j
    dx = tensor_scatter_mul_p(dout, indices, updates)
    return dx, None, div_p(gather_nd_p(mul_p(dout, out), indices), updates)


@tensor_scatter_div_p.def_bprop
def _tensor_scatter_div_bprop(x, indices, updates, out, dout):
    dx = tensor_scatter_div_p(dout, indices, updates)
    return dx, None, neg_p(div_p(gather_nd_p(mul_p(dout, out), indices), updates))


def _tensor_scatter_extreme_bprop(x, indices, updates, out, dout):
    # the gradient goes to whichever of x and the updates holds the extreme value (ties: to each of them)
    dx = mul_p(dout, cast_p(equal_p(x, out), dtype=dout.dtype.name))
    won = cast_p(equal_p(gather_nd_p(out, indices), updates), dtype=dout.dtype.name)
    return dx, None, mul_p(gather_nd_p(dout, indices), won)


tensor_scatter_max_p.def_bprop(_tensor_scatter_extreme_bprop)
tensor_scatter_min_p.def_bprop(_tensor_scatter_extreme_bprop)

# ScatterMax / ScatterMin, the in-place updates of a Parameter by rows: the same kernels, but MindSpore's gradient
# passes dout to the variable and gathers it for every update, whichever value won
scatter_max_p = _tensor_scatter("ScatterMax", "max")
scatter_min_p = _tensor_scatter("ScatterMin", "min")


def _scatter_extreme_bprop(x, indices, updates, out, dout):
    return dout, None, gather_nd_p(dout, indices)


scatter_max_p.def_bprop(_scatter_extreme_bprop)
scatter_min_p.def_bprop(_scatter_extreme_bprop)

index_add_p = Prim("IndexAdd", K.index_add)


@index_add_p.def_bprop
def _index_add_bprop(x, index, y, out, dout, axis):
    return dout, None, gather_p(dout, index, axis=axis, batch_dims=0)


index_fill_p = Prim("IndexFill", K.index_fill)


@index_fill_p.def_bprop
def _index_fill_bprop(x, index, value, out, dout, axis):
    dx = index_fill_p(dout, index, 0, axis=axis)
    if not hasattr(value, "shape"):
        return dx, None, None
    return dx, None, reduce_sum_p(gather_p(dout, index, axis=axis, batch_dims=0))


masked_select_p = Prim("MaskedSelect", K.masked_select)


@masked_select_p.def_bprop
def _masked_select_bprop(x, mask, out, dout):
    return masked_scatter_p(zeros_like_p(x), mask, dout), None


masked_scatter_p = Prim("MaskedScatter", K.masked_scatter)


@masked_scatter_p.def_bprop
def _masked_scatter_bprop(x, mask, source, out, dout):
    zeros = zeros_like_p(dout)
    dx = where_p(mask, zeros, dout)
    picked = masked_select_p(dout, mask)
    n, k = source.size, picked.shape[0]
    if k < n:
        picked = concat_p(picked, fill_p(shape=(n - k,), value=0, dtype=dout.dtype.name), axis=0)
    return dx, None, reshape_p(picked, shape=source.shape)


# ---------------------------------------------------------------- sorting
def _sort_like_bprop(axis_of):
    def bprop(x, out, dout, **attrs):
        axis = axis_of(attrs)
        return (scatter_elements_p(zeros_like_p(x), out[1], dout[0], axis=axis, reduction="add"),)
    return bprop


sort_p = Prim("Sort", K.sort, multi_output=True, sharding=S.sort)
sort_p.def_bprop(_sort_like_bprop(lambda a: a.get("axis", -1)))
topk_p = Prim("TopK", K.topk, multi_output=True, sharding=S.topk)
topk_p.def_bprop(_sort_like_bprop(lambda a: a.get("dim", -1)))

# no gradient: integer results or piecewise constant
search_sorted_p = Prim("SearchSorted", K.searchsorted)
bucketize_p = Prim("Bucketize", K.bucketize)
nonzero_p = Prim("NonZero", K.nonzero)
unique_p = Prim("Unique", K.unique, multi_output=True)
unique_sorted_p = Prim("UniqueSorted", K.unique_sorted, multi_output=True)
unique_consecutive_p = Prim("UniqueConsecutive", K.unique_consecutive, multi_output=True)
unique_with_pad_p = Prim("UniqueWithPad", K.unique_with_pad, multi_output=True)
bincount_p = Prim("Bincount", K.bincount)
histc_p = Prim("Histogram", K.histc)

# ---------------------------------------------------------------- triangles and diagonals
tril_p = Prim("Tril", K.tril)
triu_p = Prim("Triu", K.triu)


@tril_p.def_bprop
def _tril_bprop(x, out, dout, diagonal=0):
    return (tril_p(dout, diagonal=diagonal),)


@triu_p.def_bprop
def _triu_bprop(x, out, dout, diagonal=0):
    return (triu_p(dout, diagonal=diagonal),)


diagonal_p = Prim("Diagonal", K.diagonal)


@diagonal_p.def_bprop
def _diagonal_bprop(x, out, dout, offset=0, dim1=0, dim2=1):
    return (diagonal_scatter_p(zeros_like_p(x), dout, offset=offset, dim1=dim1, dim2=dim2),)


diagonal_scatter_p = Prim("DiagonalScatter", K.diagonal_scatter)


@diagonal_scatter_p.def_bprop
def _diagonal_scatter_bprop(x, src, out, dout, offset=0, dim1=0, dim2=1):
    dx = diagonal_scatter_p(dout, zeros_like_p(src), offset=offset, dim1=dim1, dim2=dim2)
    return dx, diagonal_p(dout, offset=offset, dim1=dim1, dim2=dim2)


diag_embed_p = Prim("DiagEmbed", K.diag_embed)


@diag_embed_p.def_bprop
def _diag_embed_bprop(x, out, dout, offset=0, dim1=-2, dim2=-1):
    return (diagonal_p(dout, offset=offset, dim1=dim1, dim2=dim2),)


fill_diagonal_p = Prim("FillDiagonal", K.fill_diagonal)


@fill_diagonal_p.def_bprop
def _fill_diagonal_bprop(x, out, dout, value, wrap=False):
    return (fill_diagonal_p(dout, value=0, wrap=wrap),)


matrix_band_part_p = Prim("MatrixBandPart", K.matrix_band_part)


@matrix_band_part_p.def_bprop
def _matrix_band_part_bprop(x, out, dout, lower, upper):
    return (matrix_band_part_p(dout, lower=lower, upper=upper),)


# ---------------------------------------------------------------- creation (no inputs, no gradient)
eye_p = Prim("Eye", K.eye)
range_p = Prim("Range", K.arange)
linspace_p = Prim("LinSpace", K.linspace)
logspace_p = Prim("LogSpace", K.logspace)
empty_p = Prim("Empty", K.empty)
one_hot_p = Prim("OneHot", K.one_hot)
tril_indices_p = Prim("TrilIndices", K.tril_indices)
triu_indices_p = Prim("TriuIndices", K.triu_indices)
combination_indices_p = Prim("CombinationIndices", K.combination_indices)
view_as_real_p = Prim("ViewAsReal", K.view_as_real)


@view_as_real_p.def_bprop
def _view_as_real_bprop(x, out, dout):
    re, im = unstack_p(dout, axis=dout.ndim - 1)
    return (complex_p(re, im),)
copy_to_p = Prim("TensorCopy", K.copy_to)


@copy_to_p.def_bprop
def _copy_to_bprop(x, src, out, dout):
    return None, dout  # the engine sums broadcast dimensions back to src's shape

