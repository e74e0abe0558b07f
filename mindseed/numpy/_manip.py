"""Shape and arrangement functions of mindspore.numpy: reshape, transpose, concatenate, split, flip, ..."""
import numbers

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed import ops
from mindseed.numpy._utils import _axis, _shape, _to_tensor

__all__ = ["reshape", "ravel", "transpose", "moveaxis", "swapaxes", "expand_dims", "squeeze", "concatenate",
           "stack", "hstack", "vstack", "dstack", "column_stack", "split", "array_split", "hsplit", "vsplit", "dsplit",
           "tile", "repeat", "flip", "fliplr", "flipud", "roll", "rot90", "broadcast_to", "broadcast_arrays",
           "atleast_1d", "atleast_2d", "atleast_3d", "where", "take", "take_along_axis", "sort", "argsort", "unique",
           "size", "ndim", "shape"]


def reshape(x, new_shape):
    """`x` with a new shape (one entry may be -1)."""
    return ops.reshape(_to_tensor(x), _shape(new_shape))


def ravel(x):
    """`x` flattened to 1-D."""
    return ops.reshape(_to_tensor(x), (-1,))


def transpose(a, axes=None):
    """`a` with its axes permuted (reversed when `axes` is None)."""
    a = _to_tensor(a)
    axes = tuple(range(a.ndim - 1, -1, -1)) if axes is None else tuple(_axis(axes, a.ndim, "axes"))
    return ops.transpose(a, axes)


def moveaxis(a, source, destination):
    """`a` with axes moved from `source` to `destination` (the others keep their order)."""
    return ops.movedim(_to_tensor(a), source, destination)


def swapaxes(x, axis1, axis2):
    """`x` with two axes interchanged."""
    return ops.swapaxes(_to_tensor(x), axis1, axis2)


def expand_dims(a, axis):
    """`a` with new axes of length one at `axis` (an int or tuple of ints)."""
    a = _to_tensor(a)
    if isinstance(axis, (tuple, list)):
        nd = a.ndim + len(axis)
        shape = list(a.shape)
        for ax in sorted(_axis(tuple(axis), nd)):
            shape.insert(ax, 1)
        return ops.reshape(a, tuple(shape))
    return ops.expand_dims(a, axis)


def squeeze(a, axis=None):
    """`a` without its axes of length one (only `axis` when given).

    Raises:
        ValueError: an axis in `axis` does not have length one.
    """
    a = _to_tensor(a)
    if axis is None:
        return ops.reshape(a, tuple(s for s in a.shape if s != 1))
    axes = _axis(axis if isinstance(axis, (tuple, list)) else (axis,), a.ndim)
    for ax in axes:
        if a.shape[ax] != 1:
            raise ValueError(f"For 'squeeze', cannot select an axis to squeeze out which has size not equal to one, "
                             f"axis {ax} has size {a.shape[ax]}.")
    return ops.reshape(a, tuple(s for i, s in enumerate(a.shape) if i not in axes))


def _promoted(arrays):
    ts = [_to_tensor(x) for x in arrays]
    if not ts:
        raise ValueError("need at least one array to concatenate")
    dt = ts[0].dtype
    for t in ts[1:]:
        dt = mstype.promote_types(dt, t.dtype)
    return [t if t.dtype == dt else ops.cast(t, dt) for t in ts]


def concatenate(arrays, axis=0):
    """Arrays joined along an existing axis (flattened first when `axis` is None)."""
    if isinstance(arrays, Tensor):
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    ts = _promoted(arrays)
    if axis is None:
        return ops.concat([ops.reshape(t, (-1,)) for t in ts], 0)
    return ops.concat(ts, axis)


def stack(arrays, axis=0):
    """Arrays of one shape joined along a new axis."""
    if isinstance(arrays, Tensor):
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    return ops.stack(_promoted(arrays), axis)


def hstack(tup):
    """Arrays joined column-wise (along axis 1, or 0 for 1-D arrays)."""
    ts = [atleast_1d(t) for t in tup]
    return concatenate(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tup):
    """Arrays joined row-wise (1-D arrays become rows)."""
    return concatenate([atleast_2d(t) for t in tup], 0)


def dstack(tup):
    """Arrays joined along the third axis."""
    return concatenate([atleast_3d(t) for t in tup], 2)


def column_stack(tup):
    """1-D arrays as the columns of a 2-D array (2-D arrays joined along axis 1)."""
    ts = [_to_tensor(t) for t in tup]
    return concatenate([ops.reshape(t, (-1, 1)) if t.ndim < 2 else t for t in ts], 1)


def _split(x, indices_or_sections, axis, exact):
    x = _to_tensor(x)
    axis = _axis(axis, x.ndim)
    n = x.shape[axis]
    if isinstance(indices_or_sections, numbers.Integral):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"For 'split', the number of sections must be positive, but got {k}.")
        if exact and n % k:
            raise ValueError(f"For 'split', array split does not result in an equal division: {n} into {k}.")
        base, extra = divmod(n, k)
        sizes = [base + 1] * extra + [base] * (k - extra)
    else:
        bounds = [min(max(int(i) + (n if i < 0 else 0), 0), n) for i in indices_or_sections]
        edges = [0] + bounds + [n]
        sizes = [max(b - a, 0) for a, b in zip(edges[:-1], edges[1:])]
    out, start = [], 0
    for s in sizes:
        index = (slice(None),) * axis + (slice(start, start + s),)
        out.append(x[index])
        start += s
    return tuple(out)


def split(x, indices_or_sections, axis=0):
    """`x` split into equal sections (an int) or at the given indices along `axis`.

    Raises:
        ValueError: an int number of sections does not divide the axis.
    """
    return _split(x, indices_or_sections, axis, True)


def array_split(x, indices_or_sections, axis=0):
    """Like `split`, but an int number of sections need not divide the axis."""
    return _split(x, indices_or_sections, axis, False)


def hsplit(x, indices_or_sections):
    """`split` along axis 1 (axis 0 for 1-D)."""
    x = _to_tensor(x)
    return split(x, indices_or_sections, 1 if x.ndim > 1 else 0)


def vsplit(x, indices_or_sections):
    """`split` along axis 0."""
    return split(x, indices_or_sections, 0)


def dsplit(x, indices_or_sections):
    """`split` along axis 2."""
    return split(x, indices_or_sections, 2)


def tile(a, reps):
    """`a` repeated `reps` times along each axis."""
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    a = _to_tensor(a)
    if len(reps) < a.ndim:
        reps = (1,) * (a.ndim - len(reps)) + reps
    return ops.tile(a, reps)


def repeat(a, repeats, axis=None):
    """Each element of `a` repeated (`repeats` an int or one count per element); flattened when `axis` is None."""
    a = _to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    if isinstance(repeats, (list, tuple)) and len(repeats) == 1:
        repeats = repeats[0]
    if isinstance(repeats, (list, tuple)):
        repeats = Tensor(list(repeats), mstype.int64)
    return ops.repeat_interleave(a, repeats, axis)


def flip(m, axis=None):
    """`m` with the order of elements reversed along `axis` (all axes when None)."""
    m = _to_tensor(m)
    axes = tuple(range(m.ndim)) if axis is None else _axis(axis if isinstance(axis, (tuple, list)) else (axis,),
                                                              m.ndim)
    return ops.flip(m, axes)


def fliplr(m):
    """`m` reversed along axis 1."""
    return flip(m, 1)


def flipud(m):
    """`m` reversed along axis 0."""
    return flip(m, 0)


def roll(a, shift, axis=None):
    """Elements of `a` rolled by `shift` along `axis` (over the flattened array when None)."""
    a = _to_tensor(a)
    if axis is None:
        return ops.reshape(ops.roll(ops.reshape(a, (-1,)), shift, 0), a.shape)
    return ops.roll(a, shift, axis)


def rot90(a, k=1, axes=(0, 1)):
    """`a` rotated by 90 degrees `k` times in the plane of `axes`."""
    return ops.rot90(_to_tensor(a), k, axes)


def broadcast_to(array, shape):
    """`array` broadcast to `shape`."""
    return ops.broadcast_to(_to_tensor(array), _shape(shape))


def broadcast_arrays(*args):
    """The arrays broadcast against each other."""
    ts = [_to_tensor(a) for a in args]
    shape = ()
    for t in ts:
        shape = _bshape(shape, t.shape)
    return [ops.broadcast_to(t, shape) for t in ts]


def _bshape(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ValueError(f"For 'broadcast_arrays', shapes {a} and {b} cannot be broadcast together.")
        out.append(max(x, y) if 0 not in (x, y) else 0)
    return tuple(out)


def atleast_1d(*arys):
    """Each input as a Tensor of rank >= 1."""
    res = [ops.reshape(t, (1,)) if t.ndim == 0 else t for t in map(_to_tensor, arys)]
    return res[0] if len(res) == 1 else res


def atleast_2d(*arys):
    """Each input as a Tensor of rank >= 2 (a 1-D array becomes a row)."""
    res = [ops.reshape(t, (1,) * (2 - t.ndim) + t.shape) if t.ndim < 2 else t for t in map(_to_tensor, arys)]
    return res[0] if len(res) == 1 else res


def atleast_3d(*arys):
    """Each input as a Tensor of rank >= 3 (shape (N,) -> (1, N, 1), (M, N) -> (M, N, 1))."""
    res = []
    for t in map(_to_tensor, arys):
        if t.ndim == 0:
            t = ops.reshape(t, (1, 1, 1))
        elif t.ndim == 1:
            t = ops.reshape(t, (1, t.shape[0], 1))
        elif t.ndim == 2:
            t = ops.reshape(t, t.shape + (1,))
        res.append(t)
    return res[0] if len(res) == 1 else res


def where(condition, x=None, y=None):
    """Elements of `x` where `condition` holds, else of `y`; with only `condition`, the indices where it holds.

    Raises:
        ValueError: only one of `x` and `y` is given.
    """
    condition = _to_tensor(condition)
    if x is None and y is None:
        nz = ops.nonzero(condition)
        return tuple(nz[:, i] for i in range(condition.ndim))
    if x is None or y is None:
        raise ValueError("For 'where', either both or neither of 'x' and 'y' should be given.")
    if condition.dtype != mstype.bool_:
        condition = ops.cast(condition, mstype.bool_)
    tx = x if isinstance(x, Tensor) else _to_tensor(x)
    ty = y if isinstance(y, Tensor) else _to_tensor(y)
    dt = mstype.promote_types(tx.dtype, ty.dtype)
    return ops.where(condition, ops.cast(tx, dt), ops.cast(ty, dt))


def take(a, indices, axis=None, mode="clip"):
    """Elements of `a` at `indices` along `axis` (of the flattened array when None); indices are clipped."""
    a = _to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    axis = _axis(axis, a.ndim)
    idx = _to_tensor(indices, mstype.int32)
    n = a.shape[axis]
    if mode == "wrap":
        idx = ops.remainder(idx, n)
    else:
        idx = ops.clamp(ops.where(idx < 0, idx + n, idx) if mode == "raise" else idx, 0, n - 1)
    return ops.gather(a, idx, axis)


def take_along_axis(arr, indices, axis):
    """Values of `arr` at `indices` taken along `axis` (numpy's take_along_axis)."""
    arr = _to_tensor(arr)
    if axis is None:
        arr, axis = ops.reshape(arr, (-1,)), 0
    idx = _to_tensor(indices, mstype.int64)
    shape = tuple(max(a, b) if i != _axis(axis, arr.ndim) else b
                  for i, (a, b) in enumerate(zip(arr.shape, idx.shape)))
    return ops.gather_elements(arr, _axis(axis, arr.ndim), ops.broadcast_to(idx, shape))


def sort(a, axis=-1, kind=None, order=None):
    """`a` sorted ascending along `axis` (over the flattened array when None)."""
    a = _to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return ops.sort(a, axis)[0]


def argsort(a, axis=-1, kind=None, order=None):
    """Indices that sort `a` along `axis`."""
    a = _to_tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return ops.sort(a, axis)[1]


def unique(x, return_inverse=False):
    """The unique elements of the flattened `x` in order of first appearance, as MindSpore's Unique kernel gives
    them (numpy sorts them); with `return_inverse`, also the indices rebuilding `x`."""
    x = ops.reshape(_to_tensor(x), (-1,))
    vals, inv = ops.unique(x)
    return (vals, ops.cast(inv, mstype.int32)) if return_inverse else vals


def size(a, axis=None):
    """The number of elements of `a` (along `axis` when given)."""
    a = _to_tensor(a)
    return a.size if axis is None else a.shape[_axis(axis, a.ndim)]


def ndim(a):
    """The rank of `a`."""
    return _to_tensor(a).ndim


def shape(a):
    """The shape of `a`."""
    return _to_tensor(a).shape
