"""Array family, shapes and movement: expand/squeeze/flatten, tile/repeat, flip/roll, slicing, splitting,
joining, axis moves, grids, and shape queries."""
import builtins
import numbers

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import array as A
from mindseed.ops._prims import core as P
from mindseed.ops.functional._core import _axis, _check_tensor, broadcast_to, cast, concat
from mindseed.ops.functional._core import reshape as _reshape

__all__ = [
    "expand_dims", "unsqueeze", "squeeze", "flatten", "ravel", "tile", "repeat_interleave", "repeat_elements",
    "flip", "fliplr", "flipud", "reverse", "roll", "rot90", "narrow", "slice", "tensor_slice", "strided_slice",
    "split", "chunk", "tensor_split", "hsplit", "vsplit", "dsplit", "unbind", "unstack", "movedim", "moveaxis",
    "swapaxes", "swapdims", "t", "hstack", "vstack", "dstack", "column_stack", "row_stack", "atleast_1d",
    "atleast_2d", "atleast_3d", "expand", "expand_as", "view_as", "reshape_", "meshgrid", "cartesian_prod",
    "combinations", "reverse_sequence", "shape", "shape_", "rank", "size", "numel", "dyn_shape", "is_tensor",
    "tuple_to_array", "scalar_to_tensor", "deepcopy", "block_diag", "slice_scatter", "select_scatter",
    "identity",
]


_py_slice = builtins.slice


def _int(op, name, v):
    if isinstance(v, Tensor):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"For '{op}', the '{name}' must be int, but got {type(v).__name__}.")
    return int(v)


def _non_negative_int(op, name, v):
    v = _int(op, name, v)
    if v < 0:
        raise ValueError(f"For '{op}', the '{name}' must be non-negative, but got {v}.")
    return v


def _ints(op, name, v):
    """An int or a sequence of ints as a tuple."""
    if isinstance(v, Tensor):
        v = v.asnumpy().reshape(-1).tolist()
    if isinstance(v, (list, tuple)):
        return tuple(_int(op, name, a) for a in v)
    return (_int(op, name, v),)


def _dims(op, name, v, ndim):
    """Axes (int or sequence) normalized to non-negative ints, with a range check."""
    out = tuple(_axis(op, a, ndim) for a in _ints(op, name, v))
    if len(set(out)) != len(out):
        raise ValueError(f"For '{op}', the '{name}' has duplicated elements: {v}.")
    return out


# ---------------------------------------------------------------- adding and removing dimensions
def expand_dims(input_x, axis):
    """A new dimension of size 1 inserted at `axis` (in [-ndim-1, ndim]).

    Raises:
        TypeError: `axis` is not an int.
        ValueError: `axis` is out of range.

    >>> import mindseed as ms
    >>> ms.ops.expand_dims(ms.ops.ones((2, 3)), 0).shape
    (1, 2, 3)
    """
    _check_tensor("ExpandDims", "input_x", input_x)
    ax = _axis("ExpandDims", axis, input_x.ndim + 1)
    s = input_x.shape
    return P.reshape_p(input_x, shape=s[:ax] + (1,) + s[ax:])


def unsqueeze(input, dim):
    """A new dimension of size 1 at `dim`."""
    _check_tensor("unsqueeze", "input", input)
    ax = _axis("unsqueeze", dim, input.ndim + 1)
    s = input.shape
    return P.reshape_p(input, shape=s[:ax] + (1,) + s[ax:])


def squeeze(input, axis=None):
    """Dimensions of size 1 removed (all of them, or those in `axis`; others in `axis` are kept).

    >>> import mindseed as ms
    >>> ms.ops.squeeze(ms.ops.ones((1, 3, 1)), 0).shape
    (3, 1)
    """
    _check_tensor("Squeeze", "input", input)
    s = input.shape
    if axis is None or axis == ():
        new = tuple(d for d in s if d != 1)
    else:
        axes = _dims("Squeeze", "axis", axis, input.ndim)
        new = tuple(d for i, d in enumerate(s) if not (i in axes and d == 1))
    return input if new == s else P.reshape_p(input, shape=new)


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """Dimensions start_dim..end_dim merged into one; order 'F' flattens column-major.

    >>> import mindseed as ms
    >>> ms.ops.flatten(ms.ops.ones((2, 3, 4))).shape
    (2, 12)
    """
    _check_tensor("Flatten", "input", input)
    if not isinstance(order, str):
        raise TypeError(f"For 'Flatten', the 'order' must be a str ('C' or 'F'), but got {type(order).__name__}.")
    if order not in ("C", "F"):
        raise ValueError(f"For 'Flatten', the 'order' must be 'C' or 'F', but got '{order}'.")
    if input.ndim == 0:
        return P.reshape_p(input, shape=(1,))
    if input.ndim == 1:
        return input
    if order == "F":
        input = P.transpose_p(input, perm=tuple(range(input.ndim - 1, -1, -1)))
    s = input.shape
    start = _axis("Flatten", start_dim, len(s))
    end = _axis("Flatten", end_dim, len(s))
    if start > end:
        raise ValueError(f"For 'Flatten', 'start_dim' {start_dim} must not come after 'end_dim' {end_dim}.")
    n = 1
    for d in s[start:end + 1]:
        n *= d
    new = s[:start] + (n,) + s[end + 1:]
    return input if new == s else P.reshape_p(input, shape=new)


def ravel(input):
    """The elements as a 1-D tensor."""
    _check_tensor("ravel", "input", input)
    return P.reshape_p(input, shape=(-1,))


def reshape_(input, shape):
    """Same as reshape (MindSpore's in-graph spelling)."""
    return _reshape(input, shape)


def view_as(input, other):
    """input reshaped to other's shape."""
    _check_tensor("view_as", "other", other)
    return _reshape(input, other.shape)


# ---------------------------------------------------------------- repetition
def tile(input, dims):
    """input repeated `dims[i]` times along each dimension (dims is left-padded with 1s when shorter).

    >>> import mindseed as ms
    >>> ms.ops.tile(ms.Tensor([[1, 2]]), (2, 2)).shape
    (2, 4)
    """
    _check_tensor("Tile", "input", input)
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"For 'Tile', the 'dims' must be tuple or list, but got {type(dims).__name__}.")
    reps = _ints("Tile", "dims", dims)
    if any(r < 0 for r in reps):
        raise ValueError(f"For 'Tile', the elements of 'dims' must be non-negative, but got {tuple(dims)}.")
    return A.tile_p(input, reps=reps)


def repeat_interleave(input, repeats, axis=None):
    """Each element repeated `repeats` times along `axis` (input flattened when axis is None).

    Args:
        repeats (Union[int, tuple, list, Tensor]): one count for all, or one per element along `axis`.
    """
    _check_tensor("RepeatInterleave", "input", input)
    if axis is None:
        input = P.reshape_p(input, shape=(-1,))
        axis = 0
    ax = _axis("RepeatInterleave", axis, input.ndim)
    if isinstance(repeats, (list, tuple)):
        repeats = repeats[0] if len(repeats) == 1 else Tensor(list(repeats), mstype.int64)
    if isinstance(repeats, Tensor):
        if repeats.size == 1:
            repeats = int(repeats.item())
        elif repeats.ndim != 1 or repeats.shape[0] != input.shape[ax]:
            raise ValueError(f"For 'RepeatInterleave', 'repeats' must have {input.shape[ax]} elements, but got "
                             f"shape {repeats.shape}.")
    if isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool):
        if repeats < 0:
            raise ValueError(f"For 'RepeatInterleave', 'repeats' must be non-negative, but got {repeats}.")
        return A.repeat_interleave_p(input, int(repeats), axis=ax)
    if not isinstance(repeats, Tensor):
        raise TypeError(f"For 'RepeatInterleave', 'repeats' must be int, tuple, list or Tensor, but got "
                        f"{type(repeats).__name__}.")
    return A.repeat_interleave_p(input, repeats, axis=ax)


def repeat_elements(x, rep, axis=0):
    """Each element repeated `rep` times along `axis` (x of rank at most 7, as in MindSpore)."""
    _check_tensor("RepeatElements", "x", x)
    if x.ndim > 7:
        raise ValueError(f"For repeat_elements, the rank of x should be less than or equal to 7, but got {x.ndim}.")
    rep = _int("RepeatElements", "rep", rep)
    if rep <= 0:
        raise ValueError(f"For 'RepeatElements', the 'rep' must be positive, but got {rep}.")
    return A.repeat_interleave_p(x, rep, axis=_axis("RepeatElements", axis, x.ndim))


# ---------------------------------------------------------------- reversing and rotating
def flip(input, dims):
    """input with the order of elements reversed along `dims`.

    >>> import mindseed as ms
    >>> ms.ops.flip(ms.Tensor([1, 2, 3]), (0,))
    Tensor(shape=[3], dtype=Int64, value= [3 2 1])
    """
    _check_tensor("ReverseV2", "input", input)
    return A.flip_p(input, dims=_dims("ReverseV2", "dims", dims, input.ndim))


def reverse(x, axis):
    """Same as flip(x, axis)."""
    return flip(x, axis)


def fliplr(input):
    """input flipped left/right (dimension 1); needs at least 2 dimensions."""
    _check_tensor("fliplr", "input", input)
    if input.ndim < 2:
        raise ValueError(f"For 'fliplr', the input must have at least 2 dimensions, but got {input.ndim}.")
    return A.flip_p(input, dims=(1,))


def flipud(input):
    """input flipped up/down (dimension 0); needs at least 1 dimension."""
    _check_tensor("flipud", "input", input)
    if input.ndim < 1:
        raise ValueError("For 'flipud', the input must have at least 1 dimension, but got 0.")
    return A.flip_p(input, dims=(0,))


def roll(input, shifts, dims=None):
    """Elements shifted cyclically by `shifts` along `dims` (the flattened tensor when dims is None)."""
    _check_tensor("Roll", "input", input)
    sh = _ints("Roll", "shifts", shifts)
    if dims is None:
        if len(sh) != 1:
            raise ValueError(f"For 'Roll', 'shifts' must be one int when 'dims' is None, but got {shifts}.")
        return P.reshape_p(A.roll_p(P.reshape_p(input, shape=(-1,)), shifts=sh, dims=(0,)), shape=input.shape)
    dd = tuple(_axis("Roll", d, input.ndim) for d in _ints("Roll", "dims", dims))
    if len(sh) != len(dd):
        raise ValueError(f"For 'Roll', 'shifts' and 'dims' must have the same length, but got {len(sh)} and "
                         f"{len(dd)}.")
    return A.roll_p(input, shifts=sh, dims=dd)


def rot90(input, k, dims):
    """input rotated by k * 90 degrees in the plane `dims` (from the first axis towards the second)."""
    _check_tensor("rot90", "input", input)
    k = _int("rot90", "k", k)
    d = _dims("rot90", "dims", dims, input.ndim)
    if len(d) != 2:
        raise ValueError(f"For 'rot90', 'dims' must have 2 distinct axes, but got {dims}.")
    k %= 4
    if k == 0:
        return input
    if k == 2:
        return A.flip_p(input, dims=d)
    perm = list(range(input.ndim))
    perm[d[0]], perm[d[1]] = perm[d[1]], perm[d[0]]
    flipped = A.flip_p(input, dims=(d[1],) if k == 1 else (d[0],))
    return P.transpose_p(flipped, perm=tuple(perm))


# ---------------------------------------------------------------- slicing
def _getitem(x, index):
    return P.getitem_p(x, index=index)


def narrow(input, axis, start, length):
    """The `length` elements from `start` along `axis`."""
    _check_tensor("narrow", "input", input)
    ax = _axis("narrow", axis, input.ndim, scalar_ok=False)
    n = input.shape[ax]
    start, length = _int("narrow", "start", start), _int("narrow", "length", length)
    if start < 0:
        start += n
    if not 0 <= start <= n or length < 0 or start + length > n:
        raise ValueError(f"For 'narrow', start {start} and length {length} must fit in dimension {ax} of size {n}.")
    return _getitem(input, (_py_slice(None),) * ax + (_py_slice(start, start + length),))


def slice(input_x, begin, size):  # noqa: A001 -- MindSpore's name
    """The block starting at `begin` of shape `size` (-1 in size: to the end).

    Raises:
        ValueError: begin/size lengths differ from the rank, or the block leaves the tensor.
    """
    _check_tensor("Slice", "input_x", input_x)
    begin, size = _ints("Slice", "begin", begin), _ints("Slice", "size", size)
    s = input_x.shape
    if len(begin) != len(s) or len(size) != len(s):
        raise ValueError(f"For 'Slice', the lengths of 'begin' {begin} and 'size' {size} must equal the rank "
                         f"{len(s)} of the input.")
    index = []
    for b, z, d in zip(begin, size, s):
        e = d if z == -1 else b + z
        if b < 0 or z < -1 or e > d:
            raise ValueError(f"For 'Slice', the slice begin {begin} size {size} is out of the input shape {s}.")
        index.append(_py_slice(b, e))
    return _getitem(input_x, tuple(index))


def tensor_slice(input, begin, size):
    """Same as slice."""
    return slice(input, begin, size)


def _positive_step(x, index):
    """Basic index tuple with any negative-step slices turned into flips (the kernel needs positive steps)."""
    flips, out, dim = [], [], 0
    for it in index:
        if it is None:
            out.append(it)
            continue
        if isinstance(it, _py_slice) and it.step is not None and it.step < 0:
            n = x.shape[dim]
            r = range(*it.indices(n))
            if len(r) == 0:
                out.append(_py_slice(0, 0))
            else:
                flips.append(dim)
                out.append(_py_slice(n - 1 - r[0], n - r[-1], -it.step))
        else:
            out.append(it)
        dim += 1
    if flips:
        x = A.flip_p(x, dims=tuple(flips))
    return x, tuple(out)


def _strided_slice_index(op, ndim, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                         shrink_axis_mask):
    """The basic Python index (slices, ints, None) that StridedSlice's arguments and masks describe for a tensor of
    rank `ndim`, its ellipsis expanded."""
    b, e, st = (_ints(op, n, v) for n, v in (("begin", begin), ("end", end), ("strides", strides)))
    if not len(b) == len(e) == len(st):
        raise ValueError(f"For '{op}', 'begin', 'end' and 'strides' must have the same length, but got "
                         f"{len(b)}, {len(e)} and {len(st)}.")
    if any(s == 0 for s in st):
        raise ValueError(f"For '{op}', the 'strides' must not contain 0, but got {st}.")
    index = []
    for i in range(len(b)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(b[i])
        else:
            index.append(_py_slice(None if begin_mask & bit else b[i], None if end_mask & bit else e[i], st[i]))
    if Ellipsis in index:
        at = index.index(Ellipsis)
        used = sum(1 for it in index if it is not None and it is not Ellipsis)
        index[at:at + 1] = [_py_slice(None)] * (ndim - used)
    return tuple(index)


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0):
    """x[begin:end:strides] per dimension, with TensorFlow-style bit masks.

    Bit i of begin_mask/end_mask ignores begin[i]/end[i]; ellipsis_mask puts `...` at position i;
    new_axis_mask inserts a dimension; shrink_axis_mask takes index begin[i] and drops the dimension.
    """
    _check_tensor("StridedSlice", "input_x", input_x)
    index = _strided_slice_index("StridedSlice", input_x.ndim, begin, end, strides, begin_mask, end_mask,
                                 ellipsis_mask, new_axis_mask, shrink_axis_mask)
    x, index = _positive_step(input_x, tuple(index))
    return _getitem(x, index)


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):
    """input with the slice start:end:step along `axis` replaced by src."""
    _check_tensor("slice_scatter", "input", input)
    _check_tensor("slice_scatter", "src", src)
    ax = _axis("slice_scatter", axis, input.ndim)
    index = (_py_slice(None),) * ax + (_py_slice(start, end, step),)
    want = P.getitem_p(input, index=index).shape
    if src.shape != want:
        raise ValueError(f"For 'slice_scatter', the 'src' shape {src.shape} must be {want}.")
    return P.setitem_p(input, cast(src, input.dtype), index=index)


def select_scatter(input, src, axis, index):
    """input with the slice at `index` along `axis` replaced by src."""
    _check_tensor("select_scatter", "input", input)
    _check_tensor("select_scatter", "src", src)
    ax = _axis("select_scatter", axis, input.ndim)
    i = _int("select_scatter", "index", index)
    n = input.shape[ax]
    if not -n <= i < n:
        raise ValueError(f"For 'select_scatter', the 'index' must be in [{-n}, {n}), but got {i}.")
    want = input.shape[:ax] + input.shape[ax + 1:]
    if src.shape != want:
        raise ValueError(f"For 'select_scatter', the 'src' shape {src.shape} must be {want}.")
    return P.setitem_p(input, cast(src, input.dtype), index=(_py_slice(None),) * ax + (i,))


# ---------------------------------------------------------------- splitting
def _split_at(op, x, sizes, ax):
    if len(sizes) == 1:
        return (x,)
    return tuple(P.split_sizes_p(x, sizes=list(sizes), axis=ax))


def split(tensor, split_size_or_sections, axis=0):
    """Pieces of `split_size` along `axis` (the last may be smaller), or pieces of the listed sizes.

    >>> import mindseed as ms
    >>> [p.shape for p in ms.ops.split(ms.ops.ones((5, 2)), 2)]
    [(2, 2), (2, 2), (1, 2)]
    """
    _check_tensor("Split", "tensor", tensor)
    ax = _axis("Split", axis, tensor.ndim, scalar_ok=False)
    n = tensor.shape[ax]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = _ints("Split", "split_size_or_sections", split_size_or_sections)
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise ValueError(f"For 'Split', the sum of 'split_size_or_sections' {sizes} must be {n} (the size of "
                             f"axis {ax}).")
    else:
        k = _int("Split", "split_size_or_sections", split_size_or_sections)
        if k <= 0:
            raise ValueError(f"For 'Split', the 'split_size_or_sections' must be positive, but got {k}.")
        sizes = [k] * (n // k) + ([n % k] if n % k else [])
    return _split_at("Split", tensor, sizes or [0], ax)


def chunk(input, chunks, axis=0):
    """`chunks` pieces of ceil(n / chunks) along `axis` (fewer when that does not divide)."""
    _check_tensor("chunk", "input", input)
    chunks = _int("chunk", "chunks", chunks)
    if chunks <= 0:
        raise ValueError(f"For 'chunk', the 'chunks' must be positive, but got {chunks}.")
    ax = _axis("chunk", axis, input.ndim, scalar_ok=False)
    n = input.shape[ax]
    k = max(-(-n // chunks), 1)
    sizes = [k] * (n // k) + ([n % k] if n % k else [])
    return _split_at("chunk", input, sizes or [0], ax)


def tensor_split(input, indices_or_sections, axis=0):
    """numpy's array_split: `sections` nearly equal pieces, or pieces cut at the listed indices."""
    _check_tensor("tensor_split", "input", input)
    ax = _axis("tensor_split", axis, input.ndim, scalar_ok=False)
    n = input.shape[ax]
    if isinstance(indices_or_sections, (list, tuple)):
        cuts = [min(max(c + n if c < 0 else c, 0), n) for c in _ints("tensor_split", "indices_or_sections",
                                                                       indices_or_sections)]
        bounds = [0] + cuts + [n]
        sizes = [max(bounds[i + 1] - bounds[i], 0) for i in range(len(bounds) - 1)]
        if sum(sizes) != n:  # decreasing cut points: numpy gives empty pieces and keeps later ones whole
            return tuple(_getitem(input, (_py_slice(None),) * ax + (_py_slice(bounds[i], bounds[i + 1]),))
                         for i in range(len(bounds) - 1))
        return _split_at("tensor_split", input, sizes, ax)
    k = _int("tensor_split", "indices_or_sections", indices_or_sections)
    if not 0 < k <= n + _MAX_EMPTY_SECTIONS:
        raise ValueError(f"For 'tensor_split', the number of sections must be in [1, {n + _MAX_EMPTY_SECTIONS}] "
                         f"(the axis has {n} elements), but got {k}.")
    q, r = divmod(n, k)
    return _split_at("tensor_split", input, [q + 1] * r + [q] * (k - r), ax)


# sections beyond the axis length are empty pieces (as numpy's array_split gives them), but each is a Tensor: a
# count far past the length is unbounded work, not a split
_MAX_EMPTY_SECTIONS = 1 << 16


def _nsplit(op, input, indices_or_sections, axis, min_ndim):
    _check_tensor(op, "input", input)
    if input.ndim < min_ndim:
        raise ValueError(f"For '{op}', the input must have at least {min_ndim} dimensions, but got {input.ndim}.")
    if not isinstance(indices_or_sections, (list, tuple)):
        k = _int(op, "indices_or_sections", indices_or_sections)
        if k <= 0:  # as MindSpore (tensor_split): an uneven count gives the first pieces one more element
            raise ValueError(f"For '{op}', 'indices_or_sections' must be a positive int, but got {k}.")
    return tensor_split(input, indices_or_sections, axis)


def hsplit(input, indices_or_sections):
    """tensor_split along dimension 1 (0 for 1-D input)."""
    return _nsplit("hsplit", input, indices_or_sections, 1 if getattr(input, "ndim", 0) > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    """tensor_split along dimension 0; needs at least 2 dimensions."""
    return _nsplit("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    """tensor_split along dimension 2; needs at least 3 dimensions."""
    return _nsplit("dsplit", input, indices_or_sections, 2, 3)


def unbind(input, dim=0):
    """The slices along `dim`, as a tuple."""
    _check_tensor("Unstack", "input", input)
    if input.ndim == 0:
        raise ValueError("For 'Unstack', input's rank should be greater equal to 1, but got 0")
    return tuple(A.unstack_p(input, axis=_axis("Unstack", dim, input.ndim)))


def unstack(input_x, axis=0):
    """The slices along `axis`, as a tuple."""
    return unbind(input_x, axis)


# ---------------------------------------------------------------- moving axes
def movedim(x, source, destination):
    """Dimensions `source` moved to positions `destination`, the others keeping their order."""
    _check_tensor("movedim", "x", x)
    src = _dims("movedim", "source", source, x.ndim)
    dst = _dims("movedim", "destination", destination, x.ndim)
    if len(src) != len(dst):
        raise ValueError(f"For 'movedim', 'source' and 'destination' must have the same number of elements, but "
                         f"got {len(src)} and {len(dst)}.")
    rest = [i for i in range(x.ndim) if i not in src]
    perm = [None] * x.ndim
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    perm = tuple(p if p is not None else next(it) for p in perm)
    return x if perm == tuple(range(x.ndim)) else P.transpose_p(x, perm=perm)


def moveaxis(x, source, destination):
    """Same as movedim."""
    return movedim(x, source, destination)


def swapaxes(input, axis0, axis1):
    """Dimensions axis0 and axis1 exchanged."""
    _check_tensor("swapaxes", "input", input)
    a, b = _axis("swapaxes", axis0, input.ndim), _axis("swapaxes", axis1, input.ndim)
    if a == b:
        return input
    perm = list(range(input.ndim))
    perm[a], perm[b] = b, a
    return P.transpose_p(input, perm=tuple(perm))


def swapdims(input, dim0, dim1):
    """Same as swapaxes."""
    return swapaxes(input, dim0, dim1)


def t(input):
    """The transpose of a 2-D tensor; 0-D and 1-D tensors are returned as they are."""
    _check_tensor("t", "input", input)
    if input.ndim != 2:
        return input
    return P.transpose_p(input, perm=(1, 0))


# ---------------------------------------------------------------- joining
def _as_list(op, tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)) or not tensors:
        raise TypeError(f"For '{op}', the input must be a non-empty tuple or list of Tensors.")
    for x in tensors:
        _check_tensor(op, "tensors", x)
    return list(tensors)


def _at_least(x, n):
    if x.ndim >= n:
        return x
    if n == 1:
        return P.reshape_p(x, shape=(1,))
    if n == 2:
        return P.reshape_p(x, shape=(1,) * (2 - x.ndim) + x.shape)
    s = x.shape
    new = (1, 1, 1) if x.ndim == 0 else (1,) + s + (1,) if x.ndim == 1 else s + (1,)
    return P.reshape_p(x, shape=new)


def _atleast(op, inputs, n):
    if isinstance(inputs, Tensor):
        return _at_least(inputs, n)
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"For '{op}', the input must be a Tensor or a sequence of Tensors, but got "
                        f"{type(inputs).__name__}.")
    return tuple(_at_least(x, n) for x in _as_list(op, inputs))


def atleast_1d(inputs):
    """Each tensor with at least 1 dimension."""
    return _atleast("atleast_1d", inputs, 1)


def atleast_2d(inputs):
    """Each tensor with at least 2 dimensions (new ones in front)."""
    return _atleast("atleast_2d", inputs, 2)


def atleast_3d(inputs):
    """Each tensor with at least 3 dimensions ((N,) -> (1, N, 1), (M, N) -> (M, N, 1))."""
    return _atleast("atleast_3d", inputs, 3)


def hstack(tensors):
    """Tensors joined along dimension 1 (0 for 1-D tensors)."""
    ts = [_at_least(x, 1) for x in _as_list("hstack", tensors)]
    return concat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(inputs):
    """Tensors joined along dimension 0, 1-D tensors as rows."""
    return concat([_at_least(x, 2) for x in _as_list("vstack", inputs)], 0)


def row_stack(tensors):
    """Tensors joined along dimension 0, 1-D tensors as rows (vstack)."""
    return vstack(tensors)


def dstack(tensors):
    """Tensors joined along dimension 2, lower-rank ones promoted as by atleast_3d."""
    return concat([_at_least(x, 3) for x in _as_list("dstack", tensors)], 2)


def column_stack(tensors):
    """1-D tensors as columns (and 2-D ones as they are) joined along dimension 1."""
    ts = []
    for x in _as_list("column_stack", tensors):
        ts.append(P.reshape_p(x, shape=(x.size, 1)) if x.ndim < 2 else x)
    return concat(ts, 1)


def block_diag(*inputs):
    """A block-diagonal matrix of the given matrices (0-D and 1-D inputs count as one row)."""
    mats = [_at_least(x, 2) for x in _as_list("block_diag", list(inputs))]
    for m in mats:
        if m.ndim != 2:
            raise ValueError(f"For 'block_diag', the inputs must have at most 2 dimensions, but got {m.shape}.")
    dt = mats[0].dtype
    for m in mats[1:]:
        dt = mstype.promote_types(dt, m.dtype)
    total = sum(m.shape[1] for m in mats)
    rows, col = [], 0
    for m in mats:
        r, c = m.shape
        parts = []
        if col:
            parts.append(P.fill_p(shape=(r, col), value=0, dtype=dt.name))
        parts.append(cast(m, dt))
        if total - col - c:
            parts.append(P.fill_p(shape=(r, total - col - c), value=0, dtype=dt.name))
        rows.append(P.concat_p(*parts, axis=1) if len(parts) > 1 else parts[0])
        col += c
    return P.concat_p(*rows, axis=0) if len(rows) > 1 else rows[0]


# ---------------------------------------------------------------- broadcasting and grids
def expand(input_x, size):
    """input_x broadcast to `size` (a tuple or a 1-D int Tensor; -1 keeps a dimension)."""
    return broadcast_to(input_x, size)


def expand_as(input, other):
    """input broadcast to other's shape."""
    _check_tensor("expand_as", "other", other)
    return broadcast_to(input, other.shape)


def broadcast_tensors(*tensors):
    """The tensors broadcast to their common shape."""
    ts = _as_list("broadcast_tensors", list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (list, tuple))
                  else list(tensors))
    try:
        shape = np.broadcast_shapes(*[x.shape for x in ts])
    except ValueError:
        raise ValueError(f"For 'broadcast_tensors', the shapes {[x.shape for x in ts]} cannot be broadcast.") \
            from None
    return tuple(x if x.shape == shape else P.broadcast_to_p(x, shape=tuple(shape)) for x in ts)


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids of 1-D inputs; 'xy' (Cartesian) swaps the first two output dimensions, 'ij' does not.

    >>> import mindseed as ms
    >>> [g.shape for g in ms.ops.meshgrid(ms.Tensor([1, 2, 3]), ms.Tensor([4, 5]))]
    [(2, 3), (2, 3)]
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'Meshgrid', the 'indexing' must be 'xy' or 'ij', but got '{indexing}'.")
    xs = _as_list("Meshgrid", list(inputs))
    for x in xs:
        if x.ndim != 1:
            raise ValueError(f"For 'Meshgrid', each input must be 1-D, but got shape {x.shape}.")
    n = len(xs)
    sizes = [x.shape[0] for x in xs]
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(xs):
        pos = (1 if i == 0 else 0 if i == 1 else i) if indexing == "xy" and n > 1 else i
        view = [1] * n
        view[pos] = x.shape[0]
        out.append(P.broadcast_to_p(P.reshape_p(x, shape=tuple(view)), shape=tuple(sizes)))
    return tuple(out)


def cartesian_prod(*inputs):
    """All combinations of one element from each 1-D input, as rows (N1*N2*..., k)."""
    xs = _as_list("cartesian_prod", list(inputs))
    if len(xs) == 1:
        return xs[0]
    grids = meshgrid(*xs, indexing="ij")
    return P.stack_p(*[P.reshape_p(g, shape=(-1,)) for g in grids], axis=1)


def combinations(input, r=2, with_replacement=False):
    """All r-length combinations of the elements of a 1-D tensor, as rows."""
    _check_tensor("combinations", "input", input)
    if input.ndim != 1:
        raise ValueError(f"For 'combinations', the input must be 1-D, but got shape {input.shape}.")
    r = _non_negative_int("combinations", "r", r)
    idx = A.combination_indices_p(n=input.shape[0], r=r, with_replacement=bool(with_replacement))
    return A.gather_p(input, idx, axis=0, batch_dims=0)


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """For each batch b, the first seq_lengths[b] entries along seq_dim reversed."""
    _check_tensor("ReverseSequence", "x", x)
    _check_tensor("ReverseSequence", "seq_lengths", seq_lengths)
    sd, bd = _axis("ReverseSequence", seq_dim, x.ndim), _axis("ReverseSequence", batch_dim, x.ndim)
    if sd == bd:
        raise ValueError(f"For 'ReverseSequence', 'seq_dim' and 'batch_dim' must differ, but both are {sd}.")
    if seq_lengths.shape != (x.shape[bd],):
        raise ValueError(f"For 'ReverseSequence', 'seq_lengths' must have shape ({x.shape[bd]},), but got "
                         f"{seq_lengths.shape}.")
    return A.reverse_sequence_p(x, seq_lengths, seq_dim=sd, batch_dim=bd)


# ---------------------------------------------------------------- shape queries and conversions
def shape(input_x):
    """The shape as a tuple of ints."""
    _check_tensor("Shape", "input_x", input_x)
    return input_x.shape


shape_ = shape


def rank(input_x):
    """The number of dimensions."""
    _check_tensor("Rank", "input_x", input_x)
    return input_x.ndim


def size(input_x):
    """The number of elements."""
    _check_tensor("Size", "input_x", input_x)
    return input_x.size


def numel(input):
    """The number of elements."""
    _check_tensor("numel", "input", input)
    return input.size


def dyn_shape(input_x):
    """The shape as a 1-D Int64 tensor."""
    _check_tensor("TensorShape", "input_x", input_x)
    return Tensor(list(input_x.shape), mstype.int64)


def is_tensor(obj):
    """Whether obj is a Tensor."""
    return isinstance(obj, Tensor)


def tuple_to_array(input_x):
    """A tuple (or range) of numbers as a 1-D tensor (ints -> Int32, floats -> Float32)."""
    if isinstance(input_x, range):
        input_x = tuple(input_x)
    if not isinstance(input_x, (tuple, list)):
        raise TypeError(f"For 'TupleToArray', the input must be tuple, but got {type(input_x).__name__}.")
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in input_x):
        return Tensor(list(input_x), mstype.int32)
    return Tensor(list(input_x), mstype.float32)


def scalar_to_tensor(input_x, dtype=mstype.float32):
    """A Python number as a 0-D tensor of `dtype`."""
    if isinstance(input_x, bool) or not isinstance(input_x, numbers.Number):
        raise TypeError(f"For 'ScalarToTensor', the input must be int or float, but got {type(input_x).__name__}.")
    return Tensor(input_x, dtype)


def deepcopy(input_x):
    """A copy of the tensor (differentiable)."""
    _check_tensor("deepcopy", "input_x", input_x)
    return A.copy_to_p(input_x, input_x)


def tensor_identity(x):
    """A new Tensor equal to the Tensor `x` (the `Identity` primitive; gradients flow through it)."""
    _check_tensor("Identity", "x", x)
    return P.identity_p(x)


def identity(x):
    """`x` itself, whatever it is: MindSpore's deprecated `ops.identity` primitive returns its argument unchanged
    (scripts use it as a no-op gradient reducer on a tuple of gradients)."""
    return x

