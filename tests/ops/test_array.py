"""Array ops: values vs numpy, gradients vs finite differences, bad input, in-place and Tensor methods."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, OpSpec, bools, ints, make_error_tests, make_tests

I = ms.Tensor  # noqa: E741 -- short constructor for constant index tensors


def _np_scatter_nd(x, idx, upd, op):
    out = x.copy()
    for i, pos in enumerate(map(tuple, idx.reshape(-1, idx.shape[-1]))):
        u = upd.reshape((-1,) + x.shape[idx.shape[-1]:])[i]
        if op == "update":
            out[pos] = u
        elif op == "add":
            out[pos] += u
        elif op == "sub":
            out[pos] -= u
        elif op == "mul":
            out[pos] *= u
        elif op == "div":
            out[pos] /= u
        elif op == "max":
            out[pos] = np.maximum(out[pos], u)
        elif op == "min":
            out[pos] = np.minimum(out[pos], u)
    return out


def _np_scatter_elements(x, axis, idx, src, add=False):
    out = x.copy()
    for pos in np.ndindex(*idx.shape):
        tgt = list(pos)
        tgt[axis] = idx[pos]
        if add:
            out[tuple(tgt)] += src[pos]
        else:
            out[tuple(tgt)] = src[pos]
    return out


def _np_diag_embed(x, offset=0):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n), x.dtype)
    for i in range(x.shape[-1]):
        r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
        out[..., r, c] = x[..., i]
    return out


def _np_strided(x):
    return x[1:3:2, -1:-5:-1, None]


def _np_reverse_seq(x, lens):
    out = x.copy()
    for b, n in enumerate(lens):
        out[b, :n] = x[b, :n][::-1]
    return out


ND_IDX = np.array([[0, 1], [2, 3], [0, 1]])
ND_IDX_UNIQ = np.array([[0, 1], [2, 3], [1, 0]])
ROWS = np.array([[0, 2], [1, 0]])
MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
SORTED_SEQ = np.array([1.0, 3.0, 5.0, 7.0])


_INT = ("float64",)  # integer results of integer (or no) inputs: the dtype label is irrelevant, run once


def _with_zeros(r, s):
    return r.standard_normal(s) * (r.uniform(size=s) > 0.4)


def _ties(r, s):
    """Values on a coarse grid: repeats, and hits of the boundaries/sequences below."""
    return r.randint(-4, 5, s) * 0.5


def _sorted_rows(r, s):
    return np.sort(r.randint(-4, 5, s) * 0.5, -1)


def _np_unique_first(x):
    """(distinct values in order of first appearance, each element's position among them)."""
    u, first, inv = np.unique(x.reshape(-1), return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return [u[order], rank[inv].reshape(x.shape)]


def _np_unique_consecutive(x):
    starts = np.concatenate([[True], x[1:] != x[:-1]])
    return [x[starts], np.cumsum(starts) - 1, np.diff(np.append(np.flatnonzero(starts), x.size))]


def _np_unique_with_pad(x, pad):
    out, idx = _np_unique_first(x)
    return [np.concatenate([out, np.full(x.size - out.size, pad, x.dtype)]), idx]


def _np_fill_diagonal(x, value, wrap=False):
    out = x.copy()
    np.fill_diagonal(out, value, wrap)
    return out

SPECS = [
    # ---------------------------------------------------------- shapes
    OpSpec("expand_dims", lambda x: ops.expand_dims(x, -1), lambda x: x[..., None]),
    OpSpec("unsqueeze", lambda x: ops.unsqueeze(x, 1), lambda x: x[:, None]),
    OpSpec("squeeze", lambda x: ops.squeeze(x), np.squeeze, shapes=[(1, 3, 1)]),
    OpSpec("squeeze_axis_keeps_non1", lambda x: ops.squeeze(x, (0, 1)), lambda x: x[0], shapes=[(1, 3, 1)]),
    OpSpec("flatten", ops.flatten, lambda x: x.reshape(2, -1), shapes=[(2, 3, 4)]),
    OpSpec("flatten_range", lambda x: ops.flatten(x, start_dim=0, end_dim=1), lambda x: x.reshape(6, 4),
           shapes=[(2, 3, 4)]),
    OpSpec("flatten_F", lambda x: ops.flatten(x, "F", start_dim=0), lambda x: x.reshape(-1, order="F")),
    OpSpec("ravel", ops.ravel, np.ravel, shapes=[(2, 3)]),
    OpSpec("tile", lambda x: ops.tile(x, (2, 1, 3)), lambda x: np.tile(x, (2, 1, 3)), shapes=[(2, 3)], grad2=True),
    OpSpec("tile_short", lambda x: ops.tile(x, (2,)), lambda x: np.tile(x, (1, 2)), shapes=[(2, 3)]),
    OpSpec("repeat_interleave", lambda x: ops.repeat_interleave(x, 2, 1), lambda x: np.repeat(x, 2, 1),
           grad2=True),
    OpSpec("repeat_interleave_flat", lambda x: ops.repeat_interleave(x, 3), lambda x: np.repeat(x, 3)),
    OpSpec("repeat_interleave_tensor", lambda x: ops.repeat_interleave(x, I([1, 0, 2]), 0),
           lambda x: np.repeat(x, [1, 0, 2], 0), grad2=True),
    OpSpec("repeat_elements", lambda x: ops.repeat_elements(x, 2, 0), lambda x: np.repeat(x, 2, 0)),
    OpSpec("contiguous_of_transpose", lambda x: ops.transpose(x, (1, 0)).contiguous(), lambda x: x.T, grad2=True),
    OpSpec("flip", lambda x: ops.flip(x, (0, 2)), lambda x: np.flip(x, (0, 2)), shapes=[(2, 3, 4)], grad2=True),
    OpSpec("fliplr", ops.fliplr, np.fliplr),
    OpSpec("flipud", ops.flipud, np.flipud),
    OpSpec("roll", lambda x: ops.roll(x, (1, -2), (0, 1)), lambda x: np.roll(x, (1, -2), (0, 1))),
    OpSpec("roll_flat", lambda x: ops.roll(x, 5), lambda x: np.roll(x, 5)),
    OpSpec("rot90_1", lambda x: ops.rot90(x, 1, (0, 1)), lambda x: np.rot90(x, 1, (0, 1))),
    OpSpec("rot90_2", lambda x: ops.rot90(x, 2, (1, 2)), lambda x: np.rot90(x, 2, (1, 2)), shapes=[(2, 3, 4)]),
    OpSpec("rot90_neg", lambda x: ops.rot90(x, -1, (0, 1)), lambda x: np.rot90(x, -1, (0, 1))),
    OpSpec("narrow", lambda x: ops.narrow(x, 1, 1, 2), lambda x: x[:, 1:3]),
    OpSpec("slice", lambda x: ops.slice(x, (1, 0), (2, -1)), lambda x: x[1:3, :]),
    OpSpec("strided_slice", lambda x: ops.strided_slice(x, (1, -1, 0), (3, -5, 0), (2, -1, 1), new_axis_mask=4),
           _np_strided, shapes=[(3, 4)]),
    OpSpec("strided_slice_masks", lambda x: ops.strided_slice(x, (0, 1), (0, 3), (1, 1), begin_mask=1, end_mask=1,
                                                              shrink_axis_mask=0), lambda x: x[:, 1:3]),
    OpSpec("split_int", lambda x: ops.split(x, 2, 1), lambda x: np.split(x, [2, 4], 1), shapes=[(2, 5)]),
    OpSpec("split_list", lambda x: ops.split(x, [1, 3], 1), lambda x: np.split(x, [1], 1)),
    OpSpec("chunk", lambda x: ops.chunk(x, 2, 1), lambda x: np.split(x, [3], 1), shapes=[(2, 5)]),
    OpSpec("tensor_split", lambda x: ops.tensor_split(x, 3, 1), lambda x: np.array_split(x, 3, 1),
           shapes=[(2, 5)]),
    OpSpec("tensor_split_idx", lambda x: ops.tensor_split(x, [1, 4], 1), lambda x: np.split(x, [1, 4], 1),
           shapes=[(2, 5)]),
    OpSpec("hsplit", lambda x: ops.hsplit(x, 2), lambda x: np.hsplit(x, 2)),
    OpSpec("vsplit", lambda x: ops.vsplit(x, [1]), lambda x: np.vsplit(x, [1])),
    OpSpec("dsplit", lambda x: ops.dsplit(x, 2), lambda x: np.dsplit(x, 2), shapes=[(2, 3, 4)]),
    # an uneven count gives the first pieces one more element (MindSpore's tensor_split rule)
    OpSpec("vsplit_uneven", lambda x: ops.vsplit(x, 3), lambda x: np.array_split(x, 3, 0), shapes=[(10, 2)]),
    OpSpec("hsplit_uneven", lambda x: ops.hsplit(x, 3), lambda x: np.array_split(x, 3, 1), shapes=[(2, 10)]),
    OpSpec("unbind", lambda x: ops.unbind(x, 1), lambda x: [x[:, i] for i in range(4)], grad2=True),
    OpSpec("unstack", lambda x: ops.unstack(x, 0), lambda x: list(x)),
    OpSpec("movedim", lambda x: ops.movedim(x, (0, 1), (2, 0)), lambda x: np.moveaxis(x, (0, 1), (2, 0)),
           shapes=[(2, 3, 4)]),
    OpSpec("moveaxis", lambda x: ops.moveaxis(x, 0, -1), lambda x: np.moveaxis(x, 0, -1), shapes=[(2, 3, 4)]),
    OpSpec("swapaxes", lambda x: ops.swapaxes(x, 0, 2), lambda x: np.swapaxes(x, 0, 2), shapes=[(2, 3, 4)]),
    OpSpec("t", ops.t, np.transpose),
    OpSpec("hstack", lambda a, b: ops.hstack([a, b]), lambda a, b: np.hstack([a, b]), shapes=[(3, 2), (3, 4)]),
    OpSpec("vstack", lambda a, b: ops.vstack((a, b)), lambda a, b: np.vstack([a, b]), shapes=[(4,), (2, 4)]),
    OpSpec("dstack", lambda a, b: ops.dstack([a, b]), lambda a, b: np.dstack([a, b]), shapes=[(3, 4), (3, 4)]),
    OpSpec("column_stack", lambda a, b: ops.column_stack([a, b]), lambda a, b: np.column_stack([a, b]),
           shapes=[(3,), (3, 2)]),
    OpSpec("row_stack", lambda a, b: ops.row_stack([a, b]), lambda a, b: np.vstack([a, b]), shapes=[(3,), (3,)]),
    OpSpec("atleast_3d", lambda a, b: ops.atleast_3d([a, b]), lambda a, b: [np.atleast_3d(a), np.atleast_3d(b)],
           shapes=[(3,), (3, 2)]),
    OpSpec("expand", lambda x: ops.expand(x, I([2, -1, 4])), lambda x: np.broadcast_to(x, (2, 3, 4)),
           shapes=[(3, 1)]),
    OpSpec("meshgrid_xy", lambda a, b: ops.meshgrid(a, b), lambda a, b: np.meshgrid(a, b), shapes=[(3,), (2,)]),
    OpSpec("meshgrid_ij", lambda a, b, c: ops.meshgrid(a, b, c, indexing="ij"),
           lambda a, b, c: np.meshgrid(a, b, c, indexing="ij"), shapes=[(3,), (2,), (2,)]),
    OpSpec("cartesian_prod", lambda a, b: ops.cartesian_prod(a, b),
           lambda a, b: np.stack(np.meshgrid(a, b, indexing="ij"), -1).reshape(-1, 2), shapes=[(3,), (2,)]),
    OpSpec("combinations", lambda x: ops.combinations(x, 2), lambda x: np.array([[x[i], x[j]] for i in range(4)
                                                                                  for j in range(i + 1, 4)]),
           shapes=[(4,)]),
    OpSpec("reverse_sequence", lambda x: ops.reverse_sequence(x, I([2, 4, 1]), 1),
           lambda x: _np_reverse_seq(x, [2, 4, 1]), grad2=True),
    OpSpec("block_diag", lambda a, b: ops.block_diag(a, b),
           lambda a, b: np.block([[a, np.zeros((2, 3))], [np.zeros((1, 2)), b]]), shapes=[(2, 2), (1, 3)]),
    OpSpec("slice_scatter", lambda x, s: ops.slice_scatter(x, s, 1, 0, 4, 2),
           lambda x, s: np.concatenate([s[:, :1], x[:, 1:2], s[:, 1:], x[:, 3:]], 1), shapes=[(3, 4), (3, 2)]),
    OpSpec("select_scatter", lambda x, s: ops.select_scatter(x, s, 0, 1),
           lambda x, s: np.stack([x[0], s, x[2]]), shapes=[(3, 4), (4,)]),
    OpSpec("deepcopy", ops.deepcopy, lambda x: x),
    # ---------------------------------------------------------- select, masks, gather, scatter
    OpSpec("select", lambda c, a, b: ops.select(c, a, b), np.where, shapes=[(3, 4), (3, 4), (4,)],
           gen=[bools, None, None]),
    OpSpec("masked_fill", lambda x: ops.masked_fill(x, I(MASK), 0.5), lambda x: np.where(MASK, 0.5, x)),
    OpSpec("masked_fill_tensor_value", lambda x, v: ops.masked_fill(x, I(MASK[0]), v),
           lambda x, v: np.where(MASK[0], v, x), shapes=[(3, 4), ()]),
    OpSpec("masked_select", lambda x: ops.masked_select(x, I(MASK[1])), lambda x: x[np.broadcast_to(MASK[1], x.shape)],
           grad2=True),
    OpSpec("masked_scatter", lambda x, s: ops.masked_scatter(x, I(MASK), s),
           lambda x, s: np.where(MASK, np.zeros_like(x), x) + _np_masked_place(MASK, s), shapes=[(3, 4), (8,)],
           grad2=True),
    OpSpec("index_fill", lambda x: ops.index_fill(x, 1, I([0, 2]), -1.0),
           lambda x: np.concatenate([np.full((3, 1), -1.0), x[:, 1:2], np.full((3, 1), -1.0), x[:, 3:]], 1)),
    OpSpec("index_fill_tensor", lambda x, v: ops.index_fill(x, 0, I([1]), v),
           lambda x, v: np.stack([x[0], np.full(4, v), x[2]]), shapes=[(3, 4), ()]),
    OpSpec("index_select", lambda x: ops.index_select(x, 1, I([3, 0, 3])), lambda x: x[:, [3, 0, 3]], grad2=True),
    OpSpec("index_select_method_dim", lambda x: x.index_select(dim=1, index=I([2, 0])), lambda x: x[:, [2, 0]]),
    OpSpec("index_select_method_axis", lambda x: x.index_select(axis=0, index=I([1])), lambda x: x[[1]]),
    OpSpec("gather", lambda x: ops.gather(x, I(ROWS), 0), lambda x: x[ROWS], grad2=True),
    OpSpec("gather_neg_axis1", lambda x: ops.gather(x, I([-1, 0]), 1), lambda x: x[:, [-1, 0]]),
    OpSpec("gather_batch_dims", lambda x: ops.gather(x, I([[0, 1], [2, 2]]), 2, 1),
           lambda x: np.stack([x[0][:, [0, 1]], x[1][:, [2, 2]]]), shapes=[(2, 3, 4)], grad2=True),
    OpSpec("gather_elements", lambda x: ops.gather_elements(x, 1, I([[0, 0], [3, 1], [2, 2]])),
           lambda x: np.take_along_axis(x, np.array([[0, 0], [3, 1], [2, 2]]), 1), grad2=True),
    OpSpec("gather_d", lambda x: ops.gather_d(x, 0, I([[2, 0, 1, 1]])), lambda x: np.take_along_axis(
        x, np.array([[2, 0, 1, 1]]), 0)),
    OpSpec("gather_nd", lambda x: ops.gather_nd(x, I(ND_IDX)), lambda x: x[ND_IDX[:, 0], ND_IDX[:, 1]], grad2=True),
    OpSpec("gather_nd_rows", lambda x: ops.gather_nd(x, I([[2], [0]])), lambda x: x[[2, 0]]),
    OpSpec("take", lambda x: ops.take(x, I([[0, 5], [11, 5]])), lambda x: np.take(x, [[0, 5], [11, 5]])),
    OpSpec("scatter", lambda x, s: ops.scatter(x, 1, I([[0, 3], [1, 2], [3, 0]]), s),
           lambda x, s: _np_scatter_elements(x, 1, np.array([[0, 3], [1, 2], [3, 0]]), s), shapes=[(3, 4), (3, 2)]),
    OpSpec("tensor_scatter_elements_add", lambda x, s: ops.tensor_scatter_elements(
        x, I([[0, 0], [1, 2], [3, 3]]), s, 1, "add"),
        lambda x, s: _np_scatter_elements(x, 1, np.array([[0, 0], [1, 2], [3, 3]]), s, True),
        shapes=[(3, 4), (3, 2)], grad2=True),
    OpSpec("tensor_scatter_elements_negative_index", lambda x, s: ops.tensor_scatter_elements(
        x, I([[-1, 0], [1, -2], [-4, 3]]), s, 1),
        lambda x, s: _np_scatter_elements(x, 1, np.array([[3, 0], [1, 2], [0, 3]]), s), shapes=[(3, 4), (3, 2)]),
    OpSpec("gather_d_negative_index", lambda x: ops.gather_d(x, 0, I([[-1, 0, -3, 1]])), lambda x: np.take_along_axis(
        x, np.array([[2, 0, 0, 1]]), 0)),
    OpSpec("tensor_scatter_update", lambda x, u: ops.tensor_scatter_update(x, I(ND_IDX_UNIQ), u),
           lambda x, u: _np_scatter_nd(x, ND_IDX_UNIQ, u, "update"), shapes=[(3, 4), (3,)], grad2=True),
    OpSpec("tensor_scatter_add", lambda x, u: ops.tensor_scatter_add(x, I(ND_IDX), u),
           lambda x, u: _np_scatter_nd(x, ND_IDX, u, "add"), shapes=[(3, 4), (3,)]),
    OpSpec("tensor_scatter_add_rows", lambda x, u: ops.tensor_scatter_add(x, I([[1], [1]]), u),
           lambda x, u: _np_scatter_nd(x, np.array([[1], [1]]), u, "add"), shapes=[(3, 4), (2, 4)]),
    OpSpec("tensor_scatter_sub", lambda x, u: ops.tensor_scatter_sub(x, I(ND_IDX), u),
           lambda x, u: _np_scatter_nd(x, ND_IDX, u, "sub"), shapes=[(3, 4), (3,)]),
    OpSpec("tensor_scatter_mul", lambda x, u: ops.tensor_scatter_mul(x, I(ND_IDX), u),
           lambda x, u: _np_scatter_nd(x, ND_IDX, u, "mul"), shapes=[(3, 4), (3,)]),
    OpSpec("tensor_scatter_div", lambda x, u: ops.tensor_scatter_div(x, I(ND_IDX_UNIQ), u),
           lambda x, u: _np_scatter_nd(x, ND_IDX_UNIQ, u, "div"), shapes=[(3, 4), (3,)],
           gen=[None, lambda r, s: r.uniform(0.5, 2.0, s)]),
    OpSpec("tensor_scatter_max", lambda x, u: ops.tensor_scatter_max(x, I(ND_IDX_UNIQ), u),
           lambda x, u: _np_scatter_nd(x, ND_IDX_UNIQ, u, "max"), shapes=[(3, 4), (3,)]),
    OpSpec("tensor_scatter_min", lambda x, u: ops.tensor_scatter_min(x, I(ND_IDX_UNIQ), u),
           lambda x, u: _np_scatter_nd(x, ND_IDX_UNIQ, u, "min"), shapes=[(3, 4), (3,)]),
    OpSpec("scatter_nd", lambda u: ops.scatter_nd(I([[0], [2], [0]]), u, (4, 2)),
           lambda u: _np_scatter_nd(np.zeros((4, 2), u.dtype), np.array([[0], [2], [0]]), u, "add"),
           shapes=[(3, 2)]),
    # ---------------------------------------------------------- sorting
    OpSpec("sort", lambda x: ops.sort(x, 1)[0], lambda x: np.sort(x, 1), grad2=True),
    OpSpec("sort_desc_axis0", lambda x: ops.sort(x, 0, True)[0], lambda x: -np.sort(-x, 0)),
    OpSpec("argsort", lambda x: ops.argsort(x, 1), lambda x: np.argsort(x, 1).astype(np.int32), grad=False),
    OpSpec("msort", ops.msort, lambda x: np.sort(x, 0)),
    OpSpec("topk", lambda x: ops.topk(x, 2)[0], lambda x: -np.sort(-x, -1)[:, :2], grad2=True),
    OpSpec("topk_small_dim0", lambda x: ops.topk(x, 2, 0, False)[0], lambda x: np.sort(x, 0)[:2]),
    # ---------------------------------------------------------- triangles and diagonals
    OpSpec("tril", lambda x: ops.tril(x, 1), lambda x: np.tril(x, 1)),
    OpSpec("triu_batch", lambda x: ops.triu(x, -1), lambda x: np.triu(x, -1), shapes=[(2, 3, 3)]),
    OpSpec("diag_1d", ops.diag, np.diag, shapes=[(3,)], grad2=True),
    OpSpec("diag_2d", ops.diag, lambda x: np.einsum("ij,ik,jl->ijkl", x, np.eye(2), np.eye(3)), shapes=[(2, 3)]),
    OpSpec("diagflat", lambda x: ops.diagflat(x, -1), lambda x: np.diagflat(x, -1), shapes=[(2, 2)]),
    OpSpec("diag_embed", lambda x: ops.diag_embed(x, 1), lambda x: _np_diag_embed(x, 1), shapes=[(2, 3)]),
    OpSpec("diagonal", lambda x: ops.diagonal(x, 1), lambda x: np.diagonal(x, 1), grad2=True),
    OpSpec("diagonal_3d", lambda x: ops.diagonal(x, 0, 1, 2), lambda x: np.diagonal(x, 0, 1, 2),
           shapes=[(2, 3, 4)]),
    OpSpec("diagonal_scatter", lambda x, s: ops.diagonal_scatter(x, s, -1),
           lambda x, s: x * (1 - np.eye(3, 4, -1)) + np.pad(np.diag(s), ((1, 0), (0, 2))), shapes=[(3, 4), (2,)],
           grad2=True),
    OpSpec("trace", ops.trace, np.trace, grad2=True),
    OpSpec("matrix_band_part", lambda x: ops.matrix_band_part(x, 1, 0), lambda x: np.tril(x) - np.tril(x, -2)),
    OpSpec("matrix_diag_band", lambda d: ops.matrix_diag(d, ms.Tensor([-1, 0], ms.int32), 3, 3, ms.Tensor(0.0)),
           lambda d: np.diag(d[0]) + np.diag(d[1, :2], -1), shapes=[(2, 3)], grad2=True),
    OpSpec("matrix_diag_band_right", lambda d: ops.matrix_diag(d, (0, 1), align="RIGHT_LEFT"),
           lambda d: np.diag(d[1]) + np.diag(d[0, 1:], 1), shapes=[(2, 3)]),
    OpSpec("matrix_diag_part_band", lambda x: ops.matrix_diag_part(x, ms.Tensor([-1, 1], ms.int32), 9.0),
           lambda x: np.stack([np.diagonal(x, 1), np.diagonal(x), np.append(np.diagonal(x, -1), 9.0)])),
    OpSpec("matrix_diag_part_left_right", lambda x: ops.matrix_diag_part(x, (-1, 0), 9.0, "LEFT_RIGHT"),
           lambda x: np.stack([np.diagonal(x), np.append(9.0, np.diagonal(x, -1))])),
    OpSpec("matrix_set_diag_band", lambda x, d: ops.matrix_set_diag(x, d, (0, 1)),
           lambda x, d: x * (1 - np.eye(3, 4) - np.eye(3, 4, 1)) + np.diag(d[1])[:, :3].dot(np.eye(3, 4))
           + np.pad(np.diag(d[0]), ((0, 0), (1, 0))), shapes=[(3, 4), (2, 3)], grad2=True),
    OpSpec("space_to_batch_nd", lambda x: ops.space_to_batch_nd(x, (2, 2), ((1, 0), (0, 1))),
           lambda x: _np_s2b(np.pad(x, ((0, 0), (0, 0), (1, 0), (0, 1))), 2, 2), shapes=[(1, 2, 3, 3)]),
    OpSpec("batch_to_space_nd", lambda x: ops.batch_to_space_nd(x, 2, ((1, 0), (0, 1))),
           lambda x: _np_b2s(x, 2, 2)[:, :, 1:, :-1], shapes=[(4, 1, 2, 2)]),
    OpSpec("fill_diagonal", lambda x: x.fill_diagonal(2.5), lambda x: _np_fill_diagonal(x, 2.5), shapes=[(3, 4)],
           grad2=True),
    OpSpec("fill_diagonal_wrap", lambda x: x.fill_diagonal(-1.0, True), lambda x: _np_fill_diagonal(x, -1.0, True),
           shapes=[(7, 3)]),
    # complex numbers built from real parts and viewed as real again: the gradient reaches both real inputs
    OpSpec("view_as_real", lambda re, im: ops.view_as_real(ops.Complex()(re, im)),
           lambda re, im: np.stack([re, im], -1), shapes=[(3, 4), (3, 4)], grad2=True),
    # ---------------------------------------------------------- searches, sets, counts (integer results: no gradient)
    OpSpec("nonzero", ops.nonzero, np.argwhere, shapes=[(3, 4)], gen=_with_zeros, grad=False),
    OpSpec("argwhere", ops.argwhere, np.argwhere, shapes=[(2, 2, 3)], gen=_with_zeros, grad=False),
    OpSpec("unique", ops.unique, _np_unique_first, shapes=[(3, 4)], gen=ints(0, 5), grad=False, dtypes=_INT),
    OpSpec("unique_method_sorted", lambda x: x.unique(return_inverse=True, return_counts=True),
           lambda x: list(np.unique(x, return_inverse=True, return_counts=True)), shapes=[(10,)], gen=_ties,
           grad=False),
    OpSpec("unique_consecutive", lambda x: ops.unique_consecutive(x, True, True), _np_unique_consecutive,
           shapes=[(10,)], gen=ints(0, 3), grad=False, dtypes=_INT),
    OpSpec("unique_with_pad", lambda x: ops.unique_with_pad(x, -1), lambda x: _np_unique_with_pad(x, -1),
           shapes=[(8,)], gen=ints(0, 4), grad=False, dtypes=_INT),
    OpSpec("searchsorted", ops.searchsorted,
           lambda s, v: np.stack([np.searchsorted(a, b) for a, b in zip(s, v, strict=True)]),
           shapes=[(2, 5), (2, 4)], gen=[_sorted_rows, _ties], grad=False),
    OpSpec("searchsorted_right_int32", lambda s, v: ops.searchsorted(s, v, out_int32=True, right=True),
           lambda s, v: np.searchsorted(s, v, "right").astype(np.int32), shapes=[(6,), (3, 4)],
           gen=[_sorted_rows, _ties], grad=False),
    OpSpec("bucketize", lambda x: ops.bucketize(x, [-1.0, 0.0, 0.5, 2.0]),
           lambda x: np.searchsorted([-1.0, 0.0, 0.5, 2.0], x, "left").astype(np.int32), gen=_ties, grad=False),
    OpSpec("bucketize_right", lambda x: ops.bucketize(x, [-1.0, 0.0, 0.5, 2.0], right=True),
           lambda x: np.searchsorted([-1.0, 0.0, 0.5, 2.0], x, "right").astype(np.int32), gen=_ties, grad=False),
    # the counts are a function of the integer input only; weighted counts are linear in the weights
    OpSpec("bincount", ops.bincount, lambda i: np.bincount(i).astype(np.float32), shapes=[(9,)], gen=ints(0, 6),
           grad=False, dtypes=_INT),
    OpSpec("bincount_weights_minlength", lambda i, w: ops.bincount(i, w, 8), lambda i, w: np.bincount(i, w, 8),
           shapes=[(9,), (9,)], gen=[ints(0, 6), None], grad=False),
    OpSpec("histc", lambda x: ops.histc(x, 5, -1.5, 1.5), lambda x: np.histogram(x, 5, (-1.5, 1.5))[0],
           shapes=[(4, 6)], grad=False),
    OpSpec("histc_data_range", lambda x: ops.histc(x, 4), lambda x: np.histogram(x, 4)[0], shapes=[(10,)],
           grad=False),
    OpSpec("one_hot", lambda i: ops.one_hot(i, 4), lambda i: np.eye(4, dtype=np.int64)[i], shapes=[(2, 3)],
           gen=ints(0, 4), grad=False, dtypes=_INT),
    OpSpec("one_hot_tensor_values_axis0", lambda i, on, off: ops.one_hot(i, 3, on, off, 0),
           lambda i, on, off: np.where(np.eye(3)[i].T > 0, on, off), shapes=[(4,), (), ()],
           gen=[ints(0, 3), None, None], grad=False),
    # ---------------------------------------------------------- constructors of no tensor input (no gradient)
    OpSpec("linspace", lambda: ops.linspace(-1, 2, 7), lambda: np.linspace(-1, 2, 7), shapes=[], grad=False,
           dtypes=_INT),
    OpSpec("linspace_tensor_ends", lambda: ops.linspace(ms.Tensor(3.0), ms.Tensor(-1.0), 5),
           lambda: np.linspace(3, -1, 5), shapes=[], grad=False, dtypes=_INT),
    OpSpec("logspace", lambda: ops.logspace(-1, 2, 4, 3, dtype=ms.float64), lambda: np.logspace(-1, 2, 4, base=3),
           shapes=[], grad=False, dtypes=_INT),
    OpSpec("tril_indices", lambda: ops.tril_indices(4, 3, -1), lambda: np.array(np.tril_indices(4, -1, 3)),
           shapes=[], grad=False, dtypes=_INT),
    OpSpec("triu_indices_int32", lambda: ops.triu_indices(3, 5, 1, dtype=ms.int32),
           lambda: np.array(np.triu_indices(3, 1, 5), np.int32), shapes=[], grad=False, dtypes=_INT),
]


def _np_s2b(x, b1, b2):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // b1, b1, w // b2, b2).transpose(3, 5, 0, 1, 2, 4).reshape(-1, c, h // b1, w // b2)


def _np_b2s(x, b1, b2):
    nb, c, h, w = x.shape
    return x.reshape(b1, b2, nb // (b1 * b2), c, h, w).transpose(2, 3, 4, 0, 5, 1).reshape(-1, c, h * b1, w * b2)


def _np_masked_place(mask, src):
    out = np.zeros(mask.shape, src.dtype)
    out[mask] = src.reshape(-1)[:mask.sum()]
    return out


test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)

X = ops.ones((2, 3))
ERRORS = [
    ErrorSpec("expand_dims_axis", lambda: ops.expand_dims(X, 3), ValueError, "For 'ExpandDims', the 'axis'"),
    ErrorSpec("expand_dims_axis_type", lambda: ops.expand_dims(X, 1.0), TypeError, "For 'ExpandDims'"),
    ErrorSpec("squeeze_axis", lambda: ops.squeeze(X, 2), ValueError, "For 'Squeeze'"),
    ErrorSpec("flatten_order", lambda: ops.flatten(X, "K"), ValueError, "For 'Flatten'"),
    ErrorSpec("tile_type", lambda: ops.tile(X, 2), TypeError, "For 'Tile'"),
    ErrorSpec("flip_dup", lambda: ops.flip(X, (0, 0)), ValueError, "duplicated"),
    ErrorSpec("narrow_range", lambda: ops.narrow(X, 1, 2, 2), ValueError, "For 'narrow'"),
    ErrorSpec("slice_range", lambda: ops.slice(X, (0, 1), (1, 5)), ValueError, "For 'Slice'"),
    ErrorSpec("split_sections", lambda: ops.split(X, [1, 1], 1), ValueError, "For 'Split'"),
    ErrorSpec("hsplit_zero", lambda: ops.hsplit(X, 0), ValueError, "must be a positive int"),
    ErrorSpec("movedim_len", lambda: ops.movedim(X, (0, 1), (1,)), ValueError, "For 'movedim'"),
    ErrorSpec("concat_not_list", lambda: ops.hstack(X), TypeError, "For 'hstack'"),
    ErrorSpec("meshgrid_2d", lambda: ops.meshgrid(X, X), ValueError, "For 'Meshgrid'"),
    ErrorSpec("masked_fill_mask_dtype", lambda: ops.masked_fill(X, ops.ones((2, 3)), 1.0), TypeError,
              "For 'MaskedFill', the 'mask' must be a bool Tensor"),
    ErrorSpec("gather_index_dtype", lambda: ops.gather(X, ms.Tensor([0.0]), 0), TypeError,
              "For 'Gather', the 'input_indices' must be a Tensor of int32 or int64"),
    ErrorSpec("gather_axis", lambda: ops.gather(X, ms.Tensor([0]), 2), ValueError, "For 'Gather', the 'axis'"),
    ErrorSpec("gather_out_of_range", lambda: ops.gather(X, ms.Tensor([0, 5]), 1), RuntimeError,
              "For 'Gather', the 'input_indices' should be in the range [-3, 3), but got 5."),
    # an index outside its dim is met by the kernel while it runs: MindSpore's kernel launch fails (RuntimeError)
    ErrorSpec("tensor_scatter_index_range", lambda: ops.tensor_scatter_add(X, ms.Tensor([[0], [2]]), ops.ones((2, 3))),
              RuntimeError, "For 'TensorScatterAdd'"),
    ErrorSpec("tensor_scatter_index_int8",
              lambda: ops.tensor_scatter_add(X, ms.Tensor([[0]], ms.int8), ops.ones((1, 3))), TypeError,
              "For primitive[TensorScatterAdd], the input[indices type] supports types: Int32, Int64"),
    ErrorSpec("tensor_scatter_update_index_range",
              lambda: ops.tensor_scatter_update(X, ms.Tensor([[0], [2]]), ops.ones((2, 3))), ValueError,
              "For 'TensorScatterUpdate', indices out of range for input_x"),
    ErrorSpec("gather_nd_index_range", lambda: ops.gather_nd(X, ms.Tensor([[0], [4]])), RuntimeError,
              "For 'GatherNd', the indices[1]: [const vector]{4}, does not index into input_shape: "
              "[const vector]{2, 3}."),
    # MindSpore's nd kernels do not wrap a negative index: each refuses it in its own words
    ErrorSpec("gather_nd_negative_index", lambda: ops.gather_nd(X, ms.Tensor([[-1]])), RuntimeError,
              "For 'GatherNd', the indices[0]: [const vector]{-1}, does not index into input_shape: "
              "[const vector]{2, 3}."),
    ErrorSpec("tensor_scatter_negative_index",
              lambda: ops.tensor_scatter_max(X, ms.Tensor([[0], [-1]]), ops.ones((2, 3))), RuntimeError,
              "For 'TensorScatterMax', the 1-th value of 'indices'[-1] is out of range[2]."),
    ErrorSpec("tensor_scatter_update_negative_index",
              lambda: ops.tensor_scatter_update(X, ms.Tensor([[0], [-1]]), ops.ones((2, 3))), RuntimeError,
              "The int value(-1) is less than 0."),
    ErrorSpec("scatter_rows_negative_index",
              lambda: ops.scatter_max(ms.Parameter(X), ms.Tensor([-1]), ops.ones((1, 3))), RuntimeError,
              "For 'ScatterMax', the value of indices should be in [0, 2), but got '-1' in indices."),
    ErrorSpec("scatter_nd_update_negative_index",
              lambda: ops.scatter_nd_update(ms.Parameter(X), ms.Tensor([[-1]]), ops.ones((1, 3))), RuntimeError,
              "The int value(-1) is less than 0."),
    ErrorSpec("scatter_nd_update_index_range",
              lambda: ops.scatter_nd_update(ms.Parameter(X), ms.Tensor([[2]]), ops.ones((1, 3))), ValueError,
              "For 'ScatterNdUpdate', indices out of range for input_x. Please check the indices which is "
              "[const vector]{2}"),
    ErrorSpec("scatter_nd_add_index_range",
              lambda: ops.scatter_nd_add(ms.Parameter(X), ms.Tensor([[0], [5]]), ops.ones((2, 3))), RuntimeError,
              "For 'ScatterNdAdd', the 1-th value of 'indices'[5] is out of range[2]."),
    ErrorSpec("gather_elements_index_range", lambda: ops.gather_elements(X, 0, ms.Tensor([[0, 0, 7]])), RuntimeError,
              "For 'GatherD'"),
    ErrorSpec("gather_elements_shape", lambda: ops.gather_elements(X, 0, ms.Tensor([[0, 0, 0, 0]])), ValueError,
              "For 'GatherD'"),
    ErrorSpec("gather_nd_depth", lambda: ops.gather_nd(X, ms.Tensor([[0, 0, 0]])), ValueError, "For 'GatherNd'"),
    ErrorSpec("tensor_scatter_shape", lambda: ops.tensor_scatter_update(X, ms.Tensor([[0, 1]]), ms.Tensor([1., 2.])),
              ValueError, "For 'TensorScatterUpdate', the 'updates' shape (2,)"),
    ErrorSpec("tensor_scatter_index_dtype", lambda: ops.tensor_scatter_add(X, ms.Tensor([[0.0]]), ops.ones((1, 3))),
              TypeError, "For 'TensorScatterAdd'"),
    ErrorSpec("scatter_elements_reduction", lambda: ops.tensor_scatter_elements(
        X, ms.Tensor([[0]]), ms.Tensor([[1.0]]), 0, "max"), ValueError, "For 'TensorScatterElements'"),
    ErrorSpec("repeat_elements_rank", lambda: ops.repeat_elements(ops.ones((1,) * 8), 2, 0), ValueError,
              "For repeat_elements, the rank of x should be less than or equal to 7, but got 8"),
    ErrorSpec("index_select_2d", lambda: ops.index_select(X, 0, ms.Tensor([[0]])), ValueError,
              "For 'index_select'"),
    ErrorSpec("index_select_axis_and_dim", lambda: X.index_select(1, ms.Tensor([0]), dim=1), TypeError,
              "For 'Tensor.index_select'"),
    ErrorSpec("index_add_shape", lambda: ops.index_add(X, ms.Tensor([0]), ops.ones((2, 2)), 0), ValueError,
              "For 'IndexAdd', the 'y' shape"),
    ErrorSpec("sort_bool", lambda: ops.sort(ms.Tensor([True, False])), TypeError, "For 'Sort'"),
    ErrorSpec("topk_k", lambda: ops.topk(X, 4), ValueError, "For primitive[TopK], the k must be in (0,3], but got 4."),
    ErrorSpec("tril_1d", lambda: ops.tril(ms.Tensor([1.0])), ValueError, "For 'Tril'"),
    ErrorSpec("trace_3d", lambda: ops.trace(ops.ones((2, 2, 2))), ValueError, "For 'Trace'"),
    ErrorSpec("diagonal_scatter_shape", lambda: ops.diagonal_scatter(X, ms.Tensor([1.0])), ValueError,
              "For 'DiagonalScatter'"),
    ErrorSpec("arange_step0", lambda: ops.arange(0, 3, 0), ValueError, "For 'arange', the 'step'"),
    ErrorSpec("arange_direction", lambda: ops.arange(5, 0, 1), ValueError, "For 'arange'"),
    ErrorSpec("one_hot_float", lambda: ops.one_hot(ms.Tensor([0.5]), 3), TypeError, "For 'OneHot'"),
    ErrorSpec("one_hot_depth", lambda: ops.one_hot(ms.Tensor([0]), -1), ValueError, "For 'OneHot'"),
    ErrorSpec("logspace_int", lambda: ops.logspace(0, 2, 3, dtype=ms.int32), TypeError, "For 'LogSpace'"),
    ErrorSpec("searchsorted_side", lambda: ops.searchsorted(ms.Tensor([1.0]), ms.Tensor([1.0]), side="up"),
              ValueError, "For 'SearchSorted'"),
]
test_bad_input = make_error_tests(ERRORS)


# ---------------------------------------------------------------- non-differentiable results
@pytest.mark.parametrize("name,got,want", [
    ("nonzero", lambda: ops.nonzero(ms.Tensor([[0, 1], [2, 0]])), np.array([[0, 1], [1, 0]])),
    ("argwhere", lambda: ops.argwhere(ms.Tensor([0.0, 3.0, 1.0])), np.array([[1], [2]])),
    ("unique_consecutive", lambda: ops.unique_consecutive(ms.Tensor([1, 1, 2, 2, 3, 1]), True, True),
     ([1, 2, 3, 1], [0, 0, 1, 1, 2, 3], [2, 2, 1, 1])),
    ("unique_with_pad", lambda: ops.unique_with_pad(ms.Tensor([1, 1, 2, 5, 3, 1]), -1),
     ([1, 2, 5, 3, -1, -1], [0, 0, 1, 2, 3, 0])),
    ("unique_with_pad_float_pad", lambda: ops.UniqueWithPad()(ms.Tensor([1.0, 2.0, 5.0, 2.0]), 0.5),
     ([1.0, 2.0, 5.0, 0.5], [0, 1, 2, 1])),
    ("searchsorted", lambda: ops.searchsorted(ms.Tensor(SORTED_SEQ), ms.Tensor([3.0, 4.0, 9.0])), [1, 2, 4]),
    ("searchsorted_right", lambda: ops.searchsorted(ms.Tensor(SORTED_SEQ), ms.Tensor([3.0]), right=True), [2]),
    ("bucketize", lambda: ops.bucketize(ms.Tensor([[0.5, 3.0], [6.0, 9.0]]), [1.0, 3.0, 5.0]), [[0, 1], [3, 3]]),
    # the Primitive class counts the boundaries <= x (MindSpore 2.10's kernel), unlike ops.bucketize's default
    ("bucketize_class", lambda: ops.Bucketize(boundaries=[1., 3., 5., 7., 9.])(
        ms.Tensor([[0.5, 1, 3, 6, 9, 10], [2, 3, 3.5, 7, 8, 9]], ms.float32)),
     np.array([[0, 1, 2, 3, 5, 5], [1, 2, 2, 4, 4, 5]], np.int32)),
    ("bucketize_class_int", lambda: ops.Bucketize(boundaries=[1., 3., 5., 7., 9.])(
        ms.Tensor(np.array([[3, 6, 9], [3, 6, 9]], np.int32))), np.array([[2, 3, 5], [2, 3, 5]], np.int32)),
    ("bincount", lambda: ops.bincount(ms.Tensor([0, 1, 1, 3])), [1.0, 2.0, 0.0, 1.0]),
    ("bincount_weights", lambda: ops.bincount(ms.Tensor([0, 1, 1, 3]), ms.Tensor([1., 2., 3., 4.]), 6),
     [1.0, 5.0, 0.0, 4.0, 0.0, 0.0]),
    ("histc", lambda: ops.histc(ms.Tensor([1.0, 2.0, 1.0]), 4, 0.0, 3.0), [0.0, 2.0, 1.0, 0.0]),
    ("eye", lambda: ops.eye(2, 3, ms.int32), np.eye(2, 3, dtype=np.int32)),
    ("arange_float", lambda: ops.arange(0, 1, 0.25), np.arange(0, 1, 0.25, dtype=np.float32)),
    ("range", lambda: ops.range(ms.Tensor(0), ms.Tensor(4), ms.Tensor(1)), np.arange(4)),
    ("linspace", lambda: ops.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32)),
    ("logspace", lambda: ops.logspace(0, 2, 3, 2), np.array([1.0, 2.0, 4.0], np.float32)),
    ("one_hot_axis0", lambda: ops.one_hot(ms.Tensor([0, 2]), 3, 5, 0, 0), np.array([[5, 0], [0, 0], [0, 5]])),
    ("one_hot_out_of_range", lambda: ops.one_hot(ms.Tensor([-1, 3]), 3), np.zeros((2, 3), np.int64)),
    ("tril_indices", lambda: ops.tril_indices(3, 4, -1), np.array(np.tril_indices(3, -1, 4))),
    ("triu_indices", lambda: ops.triu_indices(3, 4, 1), np.array(np.triu_indices(3, 1, 4))),
    ("sequence_mask", lambda: ops.sequence_mask(ms.Tensor([1, 3]), 4),
     np.array([[True, False, False, False], [True, True, True, False]])),
])
def test_values_without_gradient(name, got, want):
    out = got()
    if isinstance(want, tuple):
        for o, w in zip(out, want):
            np.testing.assert_array_equal(o.asnumpy(), w)
    else:
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
        if isinstance(want, np.ndarray):
            assert out.asnumpy().dtype == want.dtype


def test_matrix_diag_values_match_mindspore():
    d = ms.Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    want = {"LEFT_LEFT": [[4.0, 1.0, 0.0], [0.0, 5.0, 2.0], [0.0, 0.0, 6.0]],
            "RIGHT_LEFT": [[4.0, 2.0, 0.0], [0.0, 5.0, 3.0], [0.0, 0.0, 6.0]]}
    for align, w in want.items():
        out = ops.matrix_diag(d, ms.Tensor([0, 1], ms.int32), 3, 3, ms.Tensor(0.0), align)
        np.testing.assert_allclose(out.asnumpy(), w)
    x = ms.Tensor(np.arange(1, 13, dtype=np.float32).reshape(3, 4))
    out = ops.matrix_set_diag(x, ms.Tensor([[7.0, 7.0, 7.0], [8.0, 8.0, 8.0]]), ms.Tensor([0, 1], ms.int32))
    np.testing.assert_allclose(out.asnumpy(), [[8, 7, 3, 4], [5, 8, 7, 8], [9, 10, 8, 7]])
    with pytest.raises(ValueError, match="MatrixDiagV3"):
        ops.matrix_diag(ms.Tensor([1.0, 2.0]), 1, 3, 4)


def test_small_helpers():
    np.testing.assert_allclose(ops.view_as_real(ms.Tensor(np.array([1 + 2j], np.complex64))).asnumpy(), [[1, 2]])
    assert ops.is_nonzero(ms.Tensor([0.5])) and not ops.is_nonzero(ms.Tensor(0))
    x = ms.Tensor(np.zeros((2, 2), np.float32))
    assert ops.put_(x, ms.Tensor([3, 3]), ms.Tensor([1.0, 2.0]), accumulate=True) is x
    np.testing.assert_allclose(x.asnumpy(), [[0.0, 0.0], [0.0, 3.0]])
    np.testing.assert_array_equal(ops.tensor_range(ms.Tensor(0), ms.Tensor(3), ms.Tensor(1)).asnumpy(), [0, 1, 2])
    assert ops.scalar_to_array(2).dtype == ms.int64
    assert ops.type_as(ms.Tensor([1]), ms.Tensor([1.0])).dtype == ms.float32 and ops.dtype(x) == ms.float32
    y = ms.Tensor([1.0, 2.0])
    c = y.clone()
    assert c is not y and c.asnumpy().tolist() == [1.0, 2.0] and y.ndimension() == 1
    np.testing.assert_allclose(ms.grad(lambda t: (t.clone() * t).sum())(y).asnumpy(), [2.0, 4.0])


def test_result_dtypes_match_mindspore():
    x = ms.Tensor([3.0, 1.0, 2.0])
    assert ops.sort(x)[1].dtype == ms.int32
    assert ops.argsort(x).dtype == ms.int32
    assert ops.topk(x, 2)[1].dtype == ms.int32
    assert ops.nonzero(x).dtype == ms.int64
    assert ops.searchsorted(x, x).dtype == ms.int64
    assert ops.bincount(ms.Tensor([1, 2])).dtype == ms.float32
    assert ops.arange(3).dtype == ms.int64 and ops.arange(3.0).dtype == ms.float32
    assert ops.one_hot(ms.Tensor([0]), 2, 1.0, 0.0).dtype == ms.float32
    assert ops.trace(ms.Tensor([[1, 2], [3, 4]], ms.int32)).dtype == ms.int32


def test_unique_keeps_first_appearance_order():
    out, idx = ops.unique(ms.Tensor([[3.0, 1.0], [3.0, 2.0]]))
    np.testing.assert_array_equal(out.asnumpy(), [3.0, 1.0, 2.0])
    np.testing.assert_array_equal(idx.asnumpy(), [[0, 1], [0, 2]])


def test_nonzero_as_tuple():
    rows, cols = ops.nonzero(ms.Tensor([[0, 1], [2, 0]]), as_tuple=True)
    np.testing.assert_array_equal(rows.asnumpy(), [0, 1])
    np.testing.assert_array_equal(cols.asnumpy(), [1, 0])


def test_empty_shapes_and_dtype():
    assert ops.empty(2, 3).shape == (2, 3)
    assert ops.empty((4,), dtype=ms.int32).dtype == ms.int32
    assert ops.empty_like(ops.ones((2, 2), ms.float64)).dtype == ms.float64


def test_shape_queries():
    x = ops.ones((2, 3))
    assert ops.shape(x) == (2, 3) and ops.rank(x) == 2 and ops.size(x) == 6 and ops.numel(x) == 6
    np.testing.assert_array_equal(ops.dyn_shape(x).asnumpy(), [2, 3])
    assert ops.is_tensor(x) and not ops.is_tensor(1)
    assert ops.tuple_to_array((1, 2)).dtype == ms.int32
    assert ops.scalar_to_tensor(2).dtype == ms.float32


# ---------------------------------------------------------------- in-place ops (MindSpore updates the input)
def test_index_add_updates_input_in_place():
    x = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="x")
    out = ops.index_add(x, ms.Tensor([0, 2], ms.int32), ops.ones((2, 2)), 1)
    want = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]])
    np.testing.assert_allclose(x.asnumpy(), want)
    np.testing.assert_allclose(out.asnumpy(), want)


def test_scatter_ref_ops_update_parameter():
    p = ms.Parameter(ms.Tensor(np.zeros((3, 2), np.float32)), name="p")
    ops.scatter_add(p, ms.Tensor([0, 0]), ops.ones((2, 2)))
    ops.scatter_update(p, ms.Tensor([2]), ms.Tensor([[5.0, 6.0]]))
    ops.scatter_nd_sub(p, ms.Tensor([[1, 1]]), ms.Tensor([3.0]))
    ops.scatter_max(p, ms.Tensor([0]), ms.Tensor([[1.0, 7.0]]))
    np.testing.assert_allclose(p.asnumpy(), [[2.0, 7.0], [0.0, -3.0], [5.0, 6.0]])


def test_grad_through_in_place_scatter():
    def f(x, u):
        y = x * 2
        ops.scatter_nd_update(y, ms.Tensor([[0]]), u)
        return (y * y).sum()
    gx, gu = ms.grad(f, grad_position=(0, 1))(ms.Tensor([1.0, 2.0]), ms.Tensor([3.0]))
    np.testing.assert_allclose(gx.asnumpy(), [0.0, 16.0])
    np.testing.assert_allclose(gu.asnumpy(), [6.0])


def test_scatter_ref_ops_write_a_sole_owned_buffer_in_place():
    """A replay buffer's row writes: the Parameter nothing else sees is written in place (no copy of the buffer per
    write); one whose value is still seen (a numpy view from asnumpy, a Tensor sharing it) keeps that value."""
    p = ms.Parameter(ms.Tensor(np.zeros((1000, 3), np.float32)), name="buf")
    where = p._data.data_ptr()
    ops.scatter_update(p, ms.Tensor([4, 7], ms.int32), ms.Tensor(np.ones((2, 3), np.float32)))
    ops.scatter_add(p, ms.Tensor([[4], [4]], ms.int32).reshape(2), ms.Tensor(np.full((2, 3), 2.0, np.float32)))
    ops.scatter_sub(p, ms.Tensor([7], ms.int32), ms.Tensor([[0.5, 1.0, 1.5]]))
    assert p._data.data_ptr() == where
    want = np.zeros((1000, 3), np.float32)
    want[4], want[7] = 5.0, [0.5, 0.0, -0.5]
    np.testing.assert_array_equal(p.asnumpy(), want)
    seen = p.asnumpy()                                  # shares the memory: the next write must not reach it
    ops.scatter_update(p, ms.Tensor([0], ms.int32), ms.Tensor([[9.0, 9.0, 9.0]]))
    np.testing.assert_array_equal(seen[0], [0.0, 0.0, 0.0])
    del seen
    alias = ms.Tensor._from_raw(p._data)                # another Tensor holding the same value
    ops.scatter_add(p, ms.Tensor([0], ms.int32), ms.Tensor([[1.0, 1.0, 1.0]]))
    np.testing.assert_array_equal(alias.asnumpy()[0], [9.0, 9.0, 9.0])
    np.testing.assert_array_equal(p.asnumpy()[0], [10.0, 10.0, 10.0])
    with pytest.raises(RuntimeError, match=r"^For 'ScatterUpdate', the value of indices should be in \[0, 1000\), but "
                                           r"got '1000' in indices.$"):
        ops.scatter_update(p, ms.Tensor([3, 1000], ms.int32), ms.Tensor(np.ones((2, 3), np.float32)))
    assert p.asnumpy()[3].tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------- Tensor methods
def test_tensor_method_overloads():
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    a = x.asnumpy()
    np.testing.assert_allclose(x.gather(ms.Tensor([0, 2]), 1).asnumpy(), a[:, [0, 2]])
    np.testing.assert_allclose(x.gather(1, ms.Tensor([[0], [2], [1]])).asnumpy(), [[0.0], [6.0], [9.0]])
    np.testing.assert_allclose(x.flatten().asnumpy(), a.reshape(-1))
    assert x.reshape(1, 3, 4).flatten(1).shape == (1, 12)
    np.testing.assert_allclose(x.flatten("F").asnumpy(), a.reshape(-1, order="F"))
    assert ms.Tensor(np.ones((1, 3, 1))).squeeze((0, 2)).shape == (3,)
    assert x.repeat(2, 1).shape == (6, 4)
    assert x.repeat(2, axis=0).shape == (6, 4)
    np.testing.assert_allclose(x.sort(dim=0, descending=True)[0].asnumpy(), a[::-1])
    assert x.topk(2, dim=0, largest=False)[1].dtype == ms.int32
    assert x.tile(2, 1).shape == (6, 4) and x.expand(2, 3, 4).shape == (2, 3, 4)
    np.testing.assert_allclose(x.select(1, 2).asnumpy(), a[:, 2])
    np.testing.assert_allclose(x.take(ms.Tensor([0, 15]), mode="wrap").asnumpy(), [0.0, 3.0])
    np.testing.assert_allclose(x.where(x > 5, 0.0).asnumpy(), np.where(a > 5, a, 0.0))
    np.testing.assert_allclose(x.scatter_add(1, ms.Tensor([[0], [0], [0]]), ms.Tensor([[1.0], [1.0], [1.0]]))
                               .asnumpy()[:, 0], [1.0, 5.0, 9.0])
    assert ms.Tensor([1.0, 3.0]).searchsorted(ms.Tensor([3.0])).dtype == ms.int32
    np.testing.assert_allclose(x.trace(1).asnumpy(), a.trace(1))
    assert x.unique().shape == (12,)
    v, i = x.kthvalue(2, 1)
    np.testing.assert_allclose(v.asnumpy(), a[:, 1])
    np.testing.assert_allclose(x.diagonal(axis1=1, axis2=0).asnumpy(), np.diagonal(a, 0, 1, 0))
    np.testing.assert_allclose(x.narrow(dim=1, start=1, length=2).asnumpy(), a[:, 1:3])
    np.testing.assert_allclose(x.addr(ms.Tensor([1.0, 0, 0]), ms.Tensor([1.0, 0, 0, 0]), 0.5).asnumpy()[0, 0], 1.0)


def test_tensor_in_place_methods():
    x = ms.Tensor(np.zeros((2, 3), np.float32))
    assert x.fill_(2.0) is x
    np.testing.assert_allclose(x.asnumpy(), 2.0)
    x.masked_fill_(ms.Tensor([True, False, True]), 0.0)
    np.testing.assert_allclose(x.asnumpy(), [[0.0, 2.0, 0.0]] * 2)
    x.copy_(ms.Tensor([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(x.asnumpy(), [[1.0, 2.0, 3.0]] * 2)
    x.index_add_(1, ms.Tensor([0]), ms.Tensor([[1.0], [1.0]]), alpha=2)
    np.testing.assert_allclose(x.asnumpy()[:, 0], [3.0, 3.0])
    x.put_(ms.Tensor([5]), ms.Tensor([9.0]))
    assert x.asnumpy()[1, 2] == 9.0
    x.zero_()
    np.testing.assert_allclose(x.asnumpy(), 0.0)
    x.resize(2, 2)
    assert x.shape == (2, 2)
    y = ms.Tensor([1.0, 2.0])
    assert y.new_zeros((3,)).shape == (3,) and y.new_full((2,), 7).asnumpy().tolist() == [7.0, 7.0]
    assert y.new_ones(2, 2).dtype == ms.float32 and y.new_empty((1,)).shape == (1,)
    # MindSpore's signature (size, dtype=None): size by keyword, an int, and the dtype second
    assert y.new_ones(size=(2, 3), dtype=ms.int32).asnumpy().tolist() == [[1, 1, 1]] * 2
    assert y.new_zeros(size=2).asnumpy().tolist() == [0.0, 0.0] and y.new_empty(size=(4,)).shape == (4,)
    z = y.new_ones((2,), ms.int64)
    assert z.dtype == ms.int64 and z.asnumpy().tolist() == [1, 1]


def test_index_put_and_fill_diagonal():
    x = ms.Tensor(np.zeros((3, 3), np.float32))
    out = x.index_put((ms.Tensor([0, 1]), ms.Tensor([0, 2])), ms.Tensor([5.0, 6.0]))
    assert out.asnumpy()[0, 0] == 5.0 and out.asnumpy()[1, 2] == 6.0
    np.testing.assert_allclose(x.fill_diagonal(1.0).asnumpy(), np.eye(3))


def test_choose_and_itemset():
    out = ms.Tensor([0, 1]).choose([ms.Tensor([1, 2]), ms.Tensor([3, 4])])
    np.testing.assert_array_equal(out.asnumpy(), [1, 4])
    x = ms.Tensor(np.zeros((2, 2), np.float32))
    # MindSpore 2.10: a new tensor; x keeps its values
    np.testing.assert_array_equal(x.itemset((1, 0), 3.0).asnumpy(), [[0.0, 0.0], [3.0, 0.0]])
    np.testing.assert_array_equal(x.asnumpy(), np.zeros((2, 2)))
    assert ms.Tensor([2.0]).itemset(7).asnumpy().tolist() == [7.0]


def test_class_api():
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert ops.ExpandDims()(x, 0).shape == (1, 2, 3)
    assert ops.Squeeze(0)(ops.ExpandDims()(x, 0)).shape == (2, 3)
    np.testing.assert_allclose(ops.Gather()(x, ms.Tensor([2, 0]), 1).asnumpy(), x.asnumpy()[:, [2, 0]])
    assert ops.Tile()(x, (2, 2)).shape == (4, 6)
    oh = ops.OneHot()(ms.Tensor([0, 2]), 3, ms.Tensor(1.0), ms.Tensor(0.0))
    np.testing.assert_allclose(oh.asnumpy(), np.eye(3)[[0, 2]])
    v, i = ops.TopK(sorted=True)(x, 2)
    np.testing.assert_allclose(v.asnumpy(), [[2.0, 1.0], [5.0, 4.0]])
    assert ops.Sort(axis=0, descending=True)(x)[0].asnumpy()[0, 0] == 3.0
    assert ops.Unstack(axis=1)(x)[2].shape == (2,)
    assert len(ops.Split(1, 3)(x)) == 3
    np.testing.assert_allclose(ops.ScatterNd()(ms.Tensor([[1]]), ms.Tensor([2.0]), (3,)).asnumpy(), [0, 2, 0])
    assert ops.Eye()(2, 2, ms.float32).shape == (2, 2)
    assert ops.Range()(ms.Tensor(0), ms.Tensor(3), ms.Tensor(1)).shape == (3,)
    np.testing.assert_allclose(ops.StridedSlice()(x, (0, 0), (2, 3), (1, 2)).asnumpy(), x.asnumpy()[:, ::2])


def test_tensor_scatter_div_of_integers_truncates_toward_zero():
    x = np.array([[7, -7, 9], [1, 5, -5]], np.int32)
    idx = np.array([[0, 0], [0, 1], [1, 2], [0, 0]], np.int32)
    up = np.array([2, 2, 3, 2], np.int32)
    out = ops.tensor_scatter_div(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(up))
    assert out.dtype == ms.int32
    assert out.asnumpy().tolist() == [[1, -3, 9], [1, 5, -1]]   # 7 / 2 / 2, -7 / 2, -5 / 3 (MindSpore's values)
    # by zero the kernel saturates as MindSpore's ScatterNdDiv does: max for a positive value, min for a negative, 0
    zero = ops.tensor_scatter_div(ms.Tensor(np.array([7, -7, 0], np.int32)), ms.Tensor([[0], [1], [2]]),
                                  ms.Tensor(np.array([0, 0, 0], np.int32)))
    assert zero.asnumpy().tolist() == [2 ** 31 - 1, -2 ** 31, 0]
    with pytest.raises(TypeError, match=r"TensorScatterDiv.*Tensor\[Int8\]"):
        ops.tensor_scatter_div(ms.Tensor(x.astype(np.int8)), ms.Tensor(idx), ms.Tensor(up.astype(np.int8)))


def test_scatter_div_divides_once_per_index_in_float16():
    # MindSpore divides by each update in turn: in float16 the quotients stay representable where the product of
    # the divisors (34 * 38 * ...) would overflow; values MindSpore 2.10 printed
    x = ms.Parameter(ms.Tensor(np.arange(9).reshape(3, 3).astype(np.float16)), name="x")
    indices = ms.Tensor(np.array([[[1, 0, 2], [2, 2, 0]], [[1, 0, 1], [2, 1, 2]]], np.int32))
    updates = ms.Tensor(np.arange(34, 70).reshape(2, 2, 3, 3).astype(np.float16))
    out = ops.ScatterDiv()(x, indices, updates).asnumpy()
    assert out.tolist() == [[0.0, 9.417533874511719e-06, 1.7642974853515625e-05],
                            [4.76837158203125e-07, 5.364418029785156e-07, 6.556510925292969e-07], [0.0, 0.0, 0.0]]
    y = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    got = ops.tensor_scatter_div(y, ms.Tensor(np.array([[0], [0], [1]])), ms.Tensor(np.array([[2.0, 4], [5, 8],
                                                                                           [3, 2]])))
    np.testing.assert_allclose(got.asnumpy(), [[0.1, 1 / 16], [1.0, 2.0]], rtol=1e-12)


def test_scatter_max_gradient_reaches_every_update_as_mindspore():
    # ScatterMax / ScatterMin (in place on a Parameter): dout for the variable, dout gathered for each update, whatever
    # won; TensorScatterMax keeps the masked gradient
    x = ms.Parameter(ms.Tensor(np.array([[5.0, 1.0], [0.0, 9.0]], np.float32)), name="x")
    idx = ms.Tensor(np.array([0, 1], np.int32))
    u = ms.Tensor(np.array([[3.0, 4.0], [2.0, 2.0]], np.float32))
    dout = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    for prim in (ops.ScatterMax(), ops.ScatterMin()):
        g = ops.GradOperation(get_all=True, get_by_list=True, sens_param=True)(lambda a, b, p=prim: p(x, a, b),
                                                                            ms.ParameterTuple([x]))(idx, u, dout)
        np.testing.assert_array_equal(g[0][1].asnumpy(), dout.asnumpy())
        np.testing.assert_array_equal(g[1][0].asnumpy(), dout.asnumpy())
    xs = ms.Tensor(np.array([[5.0, 1.0], [0.0, 9.0]], np.float32))
    g = ms.ops.grad(lambda a, b: ops.tensor_scatter_max(a, ms.Tensor(np.array([[0], [1]], np.int32)), b),
                    (0, 1))(xs, u)
    np.testing.assert_array_equal(g[0].asnumpy(), [[1, 0], [0, 1]])
    np.testing.assert_array_equal(g[1].asnumpy(), [[0, 1], [1, 0]])


@pytest.mark.parametrize("graph", [False, True])
def test_functional_identity_returns_its_argument_and_identity_primitive_copies(graph):
    """`ops.identity` (MindSpore's deprecated identity primitive) returns whatever it is given, so scripts use it as
    a no-op gradient reducer over a tuple of gradients; the `Identity` primitive copies a Tensor and takes only one."""
    a, b = ms.Tensor([1.0, -2.0]), ms.Tensor([3.0])

    def reduce_pair(x, y):
        return ops.identity((x * 2, y + 1))

    fn = ms.jit(reduce_pair) if graph else reduce_pair
    out = fn(a, b)
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_allclose(out[0].asnumpy(), [2.0, -4.0])
    np.testing.assert_allclose(out[1].asnumpy(), [4.0])
    assert ops.identity(a) is a and ops.identity(3) == 3 and ops.identity(None) is None
    grads = ms.grad(lambda x: ops.identity([x * x])[0].sum())(a)
    np.testing.assert_allclose(grads.asnumpy(), [2.0, -4.0])
    copy = ops.Identity()(a)
    assert copy is not a
    np.testing.assert_allclose(copy.asnumpy(), [1.0, -2.0])
    with pytest.raises(TypeError, match="Identity.*must be a Tensor"):
        ops.Identity()((a, b))
