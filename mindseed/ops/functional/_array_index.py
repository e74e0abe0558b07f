"""Array family, indexing: select/mask, gather, scatter (functional and in-place), index ops, sorting,
searching, unique and counting."""
import numbers

import numpy as np

from mindseed._backend.kernels import array as K
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import array as A
from mindseed.ops._prims import core as P
from mindseed.ops.functional._array_shape import _int, _ints, _non_negative_int
from mindseed.ops.functional._core import _axis, _check_tensor, cast, where
from mindseed.ops.functional._core import update_in_place as _inplace

__all__ = [
    "select", "masked_fill", "masked_select", "masked_scatter", "index_fill", "index_add", "index_select",
    "inplace_index_add", "gather", "gather_d", "gather_elements", "gather_nd", "take", "scatter",
    "tensor_scatter_elements", "scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_max",
    "scatter_min", "scatter_update", "scatter_nd", "scatter_nd_add", "scatter_nd_sub", "scatter_nd_mul",
    "scatter_nd_div", "scatter_nd_max", "scatter_nd_min", "scatter_nd_update", "tensor_scatter_update",
    "tensor_scatter_add", "tensor_scatter_sub", "tensor_scatter_max", "tensor_scatter_min", "tensor_scatter_mul",
    "tensor_scatter_div", "inplace_update", "inplace_add", "inplace_sub", "nonzero", "argwhere", "unique",
    "unique_consecutive", "unique_with_pad", "sort", "argsort", "msort", "topk", "top_k", "searchsorted",
    "bucketize", "bincount", "histc", "put_",
]


def _check_int_tensor(op, name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor, but got {type(x).__name__}.")
    if x.dtype == mstype.bool_ or not mstype.is_integral(x.dtype):
        raise TypeError(f"For '{op}', the '{name}' must be a Tensor of int32 or int64, but got {x.dtype}.")


# ---------------------------------------------------------------- select and masks
def select(condition, input, other):
    """input where condition is True, else other (either may be a number).

    >>> import mindseed as ms
    >>> x = ms.Tensor([1.0, -2.0])
    >>> ms.ops.select(x > 0, x, 0.0)
    Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00  0.00000000e+00])
    """
    _check_tensor("Select", "condition", condition)
    if condition.dtype != mstype.bool_:
        raise TypeError(f"For 'Select', the 'condition' must be a bool Tensor, but got {condition.dtype}.")
    return where(condition, input, other)


def _check_mask(op, mask):
    _check_tensor(op, "mask", mask)
    if mask.dtype != mstype.bool_:
        raise TypeError(f"For '{op}', the 'mask' must be a bool Tensor, but got {mask.dtype}.")


def _scalar_like(x, value, op="fill"):
    """A number converted to x's kind so the kernel keeps x's dtype."""
    if isinstance(value, (complex, np.complexfloating)) or not isinstance(value, (numbers.Number, np.number)):
        raise TypeError(f"For '{op}', the 'value' must be a bool, int or float, but got {type(value).__name__}.")
    if x.dtype == mstype.bool_:
        return bool(value)
    return int(value) if mstype.is_integral(x.dtype) else float(value)


def masked_fill(input_x, mask, value):
    """input_x with `value` (a number or 0-D tensor) where mask is True; mask broadcasts.

    >>> import mindseed as ms
    >>> x = ms.Tensor([1.0, 2.0, 3.0])
    >>> ms.ops.masked_fill(x, x > 1, 0.0)
    Tensor(shape=[3], dtype=Float32, value= [ 1.00000000e+00  0.00000000e+00  0.00000000e+00])
    """
    _check_tensor("MaskedFill", "input_x", input_x)
    _check_mask("MaskedFill", mask)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"For 'MaskedFill', the 'value' must be a 0-D Tensor or a number, but got shape "
                             f"{value.shape}.")
        value = cast(value, input_x.dtype)
    elif isinstance(value, (numbers.Number, np.number, np.bool_)):
        value = _scalar_like(input_x, value, "MaskedFill")
    else:
        raise TypeError(f"For 'MaskedFill', the 'value' must be a number or a Tensor, but got {type(value).__name__}.")
    return P.where_p(mask, value, input_x)


def masked_select(input, mask):
    """The elements of input where mask (broadcast) is True, as a 1-D tensor."""
    _check_tensor("MaskedSelect", "input", input)
    _check_mask("MaskedSelect", mask)
    return A.masked_select_p(input, mask)


def masked_scatter(input, mask, source):
    """input with the True positions of mask filled, in order, from the elements of source."""
    _check_tensor("MaskedScatter", "input", input)
    _check_mask("MaskedScatter", mask)
    _check_tensor("MaskedScatter", "source", source)
    return A.masked_scatter_p(input, mask, source)


# ---------------------------------------------------------------- index ops
def _index_1d(op, x, axis, index):
    _check_tensor(op, "x", x)
    _check_int_tensor(op, "index", index)
    if index.ndim > 1:
        raise ValueError(f"For '{op}', the 'index' must be 0-D or 1-D, but got shape {index.shape}.")
    ax = _axis(op, axis, x.ndim, scalar_ok=False)
    if index.ndim == 0:
        index = P.reshape_p(index, shape=(1,))
    return ax, index


def index_fill(x, axis, index, value):
    """x with `value` written at positions `index` along `axis`."""
    ax, index = _index_1d("IndexFill", x, axis, index)
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"For 'IndexFill', the 'value' must be a 0-D Tensor or a number, but got shape "
                             f"{value.shape}.")
        value = cast(value, x.dtype)
    else:
        value = _scalar_like(x, value, "IndexFill")
    return A.index_fill_p(x, index, value, axis=ax)


def _index_add(op, x, index, y, ax):
    ax, index = _index_1d(op, x, ax, index)
    _check_tensor(op, "y", y)
    want = x.shape[:ax] + (index.shape[0],) + x.shape[ax + 1:]
    if y.shape != want:
        raise ValueError(f"For '{op}', the 'y' shape {y.shape} must be {want}.")
    return A.index_add_p, index, ax


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """x[..., indices[i], ...] += y[..., i, ...] along `axis`, updating x in place (MindSpore's IndexAdd).

    Returns:
        Tensor: x after the update.
    """
    prim, indices, ax = _index_add("IndexAdd", x, indices, y, axis)
    return _inplace(x, lambda old: prim(old, indices, y, axis=ax), y)


def inplace_index_add(var, indices, updates, axis):
    """Same as index_add (in place on var)."""
    return index_add(var, indices, updates, axis)


def index_select(input, axis, index):
    """The slices of input at `index` (1-D) along `axis`."""
    _check_tensor("index_select", "input", input)
    _check_int_tensor("index_select", "index", index)
    if index.ndim > 1:
        raise ValueError(f"For 'index_select', the 'index' must be 0-D or 1-D, but got shape {index.shape}.")
    ax = _axis("index_select", axis, input.ndim, scalar_ok=False)
    return A.gather_p(input, P.reshape_p(index, shape=(-1,)) if index.ndim == 0 else index, axis=ax, batch_dims=0)


def _gather_check(x, indices, axis, batch_dims):
    _check_tensor("Gather", "input_params", x)
    _check_int_tensor("Gather", "input_indices", indices)
    ax = _axis("Gather", axis, x.ndim, scalar_ok=False)
    b = _int("Gather", "batch_dims", batch_dims)
    if b < 0:
        b += indices.ndim
    if not 0 <= b <= min(ax, indices.ndim) or x.shape[:b] != indices.shape[:b]:
        raise ValueError(f"For 'Gather', the 'batch_dims' {batch_dims} must be at most 'axis' {axis} and the first "
                         f"batch_dims dimensions of 'input_params' {x.shape} and 'input_indices' {indices.shape} "
                         f"must match.")
    return ax, b


def gather(input_params, input_indices, axis, batch_dims=0):
    """Slices of input_params at input_indices along `axis`: the output shape is
    params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:] (MindSpore's Gather).

    Raises:
        TypeError: input_indices is not an int tensor.
        ValueError: axis or batch_dims out of range; an index out of [-n, n) (raised at run time).

    >>> import mindseed as ms
    >>> ms.ops.gather(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([2, 0]), 0)
    Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00  1.00000000e+00])
    """
    ax, b = _gather_check(input_params, input_indices, axis, batch_dims)
    return A.gather_p(input_params, input_indices, axis=ax, batch_dims=b)


def gather_elements(input, dim, index):
    """out[i][j] = input[index[i][j]][j] (dim 0) etc.: torch.gather semantics.

    Raises:
        ValueError: index rank differs from input's, or its size exceeds input's off `dim`.
    """
    _check_tensor("GatherD", "input", input)
    _check_int_tensor("GatherD", "index", index)
    d = _axis("GatherD", dim, input.ndim)
    if index.ndim != input.ndim or any(i > s for k, (i, s) in enumerate(zip(index.shape, input.shape)) if k != d):
        raise ValueError(f"For 'GatherD', the 'index' shape {index.shape} does not fit the 'input' shape "
                         f"{input.shape} along dim {d}.")
    return A.gather_d_p(input, index, dim=d)


def gather_d(x, dim, index):
    """Same as gather_elements."""
    return gather_elements(x, dim, index)


def _nd_check(op, x, indices, name="input_x"):
    _check_tensor(op, name, x)
    _check_int_tensor(op, "indices", indices)
    if indices.ndim < 1 or indices.shape[-1] > x.ndim:
        raise ValueError(f"For '{op}', the last dimension of 'indices' {indices.shape} must be at most the rank "
                         f"{x.ndim} of '{name}'.")


def gather_nd(input_x, indices):
    """input_x[indices[..., 0], indices[..., 1], ...]: out shape indices.shape[:-1] + x.shape[k:]."""
    _nd_check("GatherNd", input_x, indices)
    return A.gather_nd_p(input_x, indices)


def take(input, index):
    """The elements of the flattened input at `index` (any shape)."""
    _check_tensor("take", "input", input)
    _check_int_tensor("take", "index", index)
    return A.gather_p(P.reshape_p(input, shape=(-1,)), index, axis=0, batch_dims=0)


# ---------------------------------------------------------------- elementwise scatter
def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """input_x with updates written (reduction 'none') or added ('add') at indices along `axis`."""
    _check_tensor("TensorScatterElements", "input_x", input_x)
    _check_int_tensor("TensorScatterElements", "indices", indices)
    _check_tensor("TensorScatterElements", "updates", updates)
    if reduction not in ("none", "add"):
        raise ValueError(f"For 'TensorScatterElements', the 'reduction' must be 'none' or 'add', but got "
                         f"'{reduction}'.")
    ax = _axis("TensorScatterElements", axis, input_x.ndim)
    if indices.shape != updates.shape or indices.ndim != input_x.ndim:
        raise ValueError(f"For 'TensorScatterElements', 'indices' {indices.shape} and 'updates' {updates.shape} "
                         f"must have the same shape and the rank of 'input_x' {input_x.shape}.")
    return A.scatter_elements_p(input_x, indices, cast(updates, input_x.dtype), axis=ax, reduction=reduction)


def scatter(input, axis, index, src):
    """input with src (a tensor, or a number for every slot) written at index along `axis`."""
    if not isinstance(src, Tensor):
        _check_tensor("Scatter", "index", index)
        src = P.fill_p(shape=index.shape, value=src, dtype=input.dtype.name)
    return tensor_scatter_elements(input, index, src, axis, "none")


# ---------------------------------------------------------------- nd scatter
_ND_PRIMS = {
    "update": A.tensor_scatter_update_p, "add": A.tensor_scatter_add_p, "sub": A.tensor_scatter_sub_p,
    "max": A.tensor_scatter_max_p, "min": A.tensor_scatter_min_p, "mul": A.tensor_scatter_mul_p,
    "div": A.tensor_scatter_div_p,
}
_ND_NAMES = {k: "TensorScatter" + k.capitalize() for k in _ND_PRIMS}


def _tensor_scatter(op, input_x, indices, updates, prim=None):
    _scatter_checks(op, input_x, indices, updates)
    return (prim or _ND_PRIMS[op])(input_x, indices, cast(updates, input_x.dtype))


def _scatter_checks(op, input_x, indices, updates):
    name = _ND_NAMES[op]
    _nd_check(name, input_x, indices)
    if indices.dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"For primitive[{name}], the input[indices type] supports types: Int32, Int64. But got "
                        f"{indices.dtype}.")
    _check_tensor(name, "updates", updates)
    k = indices.shape[-1]
    want = indices.shape[:-1] + input_x.shape[k:]
    if updates.shape != want:
        raise ValueError(f"For '{name}', the 'updates' shape {updates.shape} must be indices.shape[:-1] + "
                         f"input_x.shape[indices.shape[-1]:] = {want}.")


def tensor_scatter_update(input_x, indices, updates):
    """A copy of input_x with input_x[indices[i]] = updates[i].

    >>> import mindseed as ms
    >>> ms.ops.tensor_scatter_update(ms.ops.zeros((3,)), ms.Tensor([[1]]), ms.Tensor([5.0]))
    Tensor(shape=[3], dtype=Float32, value= [ 0.00000000e+00  5.00000000e+00  0.00000000e+00])
    """
    _nd_rank("TensorScatterUpdate", indices, ref=False)
    return _tensor_scatter("update", input_x, indices, updates)


def tensor_scatter_add(input_x, indices, updates):
    """A copy of input_x with updates added at indices (repeats accumulate)."""
    _nd_rank("TensorScatterAdd", indices, ref=False)
    return _tensor_scatter("add", input_x, indices, updates)


def tensor_scatter_sub(input_x, indices, updates):
    """A copy of input_x with updates subtracted at indices."""
    _nd_rank("TensorScatterSub", indices, ref=False)
    return _tensor_scatter("sub", input_x, indices, updates)


def tensor_scatter_max(input_x, indices, updates):
    """A copy of input_x with max(input_x[idx], updates) at indices."""
    _nd_rank("TensorScatterMax", indices, ref=False)
    return _tensor_scatter("max", input_x, indices, updates)


def tensor_scatter_min(input_x, indices, updates):
    """A copy of input_x with min(input_x[idx], updates) at indices."""
    _nd_rank("TensorScatterMin", indices, ref=False)
    return _tensor_scatter("min", input_x, indices, updates)


def tensor_scatter_mul(input_x, indices, updates):
    """A copy of input_x multiplied by updates at indices."""
    _nd_rank("TensorScatterMul", indices, ref=False)
    return _tensor_scatter("mul", input_x, indices, updates)


def tensor_scatter_div(input_x, indices, updates):
    """A copy of input_x divided by updates at indices (integers: truncated toward zero)."""
    _check_tensor("TensorScatterDiv", "input_x", input_x)
    if input_x.dtype in (mstype.int8, mstype.uint8, mstype.bool_):
        raise TypeError(f"For primitive[TensorScatterDiv], the input argument[input_x] must be a type of "
                        f"{{Tensor[Float16], Tensor[Float32], Tensor[Float64], Tensor[Int16], Tensor[Int32], "
                        f"Tensor[Int64], Tensor[UInt16], Tensor[UInt32], Tensor[UInt64]}}, but got "
                        f"Tensor[{input_x.dtype}].")
    _nd_rank("TensorScatterDiv", indices, ref=False)
    return _tensor_scatter("div", input_x, indices, updates)


def scatter_nd(indices, updates, shape):
    """Zeros of `shape` with updates added at indices (repeats accumulate)."""
    _check_tensor("ScatterNd", "updates", updates)
    if isinstance(indices, Tensor) and indices.ndim == 0:      # MindSpore's kernel-time check: a RuntimeError
        raise RuntimeError("For 'ScatterNd', the input 'indices' must not be a scalar.")
    shape = _ints("ScatterNd", "shape", shape)
    if any(s <= 0 for s in shape):
        raise ValueError(f"For 'ScatterNd', the 'shape' elements must be positive, but got {shape}.")
    zeros = P.fill_p(shape=shape, value=0, dtype=updates.dtype.name)
    return _tensor_scatter("add", zeros, indices, updates)


def _nd_rank(name, indices, ref):
    """The ND scatters take indices of rank 2 or more (the last dimension indexes input_x)."""
    if isinstance(indices, Tensor) and indices.ndim < 2:
        if ref:
            raise ValueError(f"For primitive[{name}], the dimension of 'indices' must be greater than or equal to 2 , "
                             f"but got {indices.ndim}.")
        raise ValueError(f"For {name}, the dimension of 'indices' cannot be less than 2,  but got {indices.ndim}")


def _ref_index_range(op, name, input_x, indices):
    """MindSpore's Scatter* kernels refuse an index outside [0, dim) (a negative one too), before writing anything;
    each family in its own words."""
    depth = indices.shape[-1] if indices.ndim else 1
    if indices.dtype not in (mstype.int32, mstype.int64) or depth > input_x.ndim:
        return                      # the argument checks that follow word these
    rows = indices.asnumpy().reshape(-1, depth)
    lead = np.array(input_x.shape[:depth])
    bad = ((rows < 0) | (rows >= lead)).any(axis=1)
    if not bad.any():
        return
    i = int(np.flatnonzero(bad)[0])
    if not name.startswith("ScatterNd"):
        raise RuntimeError(f"For '{name}', the value of indices should be in [0, {input_x.shape[0]}), but got "
                           f"'{rows[i, 0]}' in indices.")
    if op == "update":
        if (rows < 0).any():
            raise RuntimeError(f"The int value({rows[rows < 0][0]}) is less than 0.")
        raise ValueError(f"For '{name}', indices out of range for input_x. Please check the indices which is "
                         f"[const vector]{{{', '.join(map(str, rows[i].tolist()))}}}")
    raise RuntimeError(f"For '{name}', the {i * depth}-th value of 'indices'[{', '.join(map(str, rows[i].tolist()))}]"
                       f" is out of range[{', '.join(map(str, lead.tolist()))}].")


def _ref_nd(op, input_x, indices, updates, name, prim=None):
    """MindSpore's Scatter*: update a Parameter (or Tensor) in place and return it. The updates are cast to its
    dtype; one that would need the Parameter itself converted (a wider or float type) is MindSpore's TypeError."""
    if isinstance(input_x, Tensor) and isinstance(updates, Tensor) and \
            mstype.promote_types(input_x.dtype, updates.dtype) != input_x.dtype:
        raise TypeError(f"Data type conversion is not supported for a 'Parameter', nor for the input tensor of an "
                        f"in-place operator, the argument[x]'s data type of primitive[{name}] is {input_x.dtype}, "
                        f"which cannot be converted to data type {mstype.promote_types(input_x.dtype, updates.dtype)}"
                        f" automatically.")
    if _state.tracing is None and isinstance(input_x, Tensor) and isinstance(indices, Tensor):
        _ref_index_range(op, name, input_x, indices)
    mutate = None
    if op in ("update", "add", "sub") and prim is None and isinstance(input_x, Tensor):
        _scatter_checks(op, input_x, indices, updates)
        mutate = lambda raw: K.tensor_scatter_(raw, indices._data, updates._data, op)    # noqa: E731
    return _inplace(input_x, lambda old: _tensor_scatter(op, old, indices, updates, prim), updates, mutate=mutate)


def _scatter_nd_ref(op, doc, locking=False):
    """MindSpore's ScatterNd<Op> function: `_ref_nd(op, ...)` under its own name."""
    name = "ScatterNd" + op.capitalize()

    def scatter(input_x, indices, updates, use_locking=locking):
        _nd_rank(name, indices, ref=True)
        return _ref_nd(op, input_x, indices, updates, name)
    scatter.__name__ = scatter.__qualname__ = f"scatter_nd_{op}"
    scatter.__doc__ = doc
    return scatter


scatter_nd_add = _scatter_nd_ref("add", "input_x[indices] += updates, in place.")
scatter_nd_sub = _scatter_nd_ref("sub", "input_x[indices] -= updates, in place.")
scatter_nd_mul = _scatter_nd_ref("mul", "input_x[indices] *= updates, in place.")
scatter_nd_div = _scatter_nd_ref("div", "input_x[indices] /= updates, in place.")
scatter_nd_max = _scatter_nd_ref("max", "input_x[indices] = max(input_x[indices], updates), in place.")
scatter_nd_min = _scatter_nd_ref("min", "input_x[indices] = min(input_x[indices], updates), in place.")
scatter_nd_update = _scatter_nd_ref("update", "input_x[indices] = updates, in place.", locking=True)


_ROW_PRIMS = {"max": A.scatter_max_p, "min": A.scatter_min_p}    # their own gradient (see _prims/array.py)


def _ref_rows(op, input_x, indices, updates):
    """Scatter* along the first axis: indices of any shape name rows of input_x."""
    name = _ND_NAMES[op].replace("Tensor", "")
    _check_int_tensor(name, "indices", indices)
    return _ref_nd(op, input_x, P.reshape_p(indices, shape=indices.shape + (1,)), updates, name,
                   _ROW_PRIMS.get(op))


def scatter_add(input_x, indices, updates):
    """input_x[indices[i]] += updates[i] along the first axis, in place; returns input_x."""
    return _ref_rows("add", input_x, indices, updates)


def scatter_sub(input_x, indices, updates):
    """input_x[indices[i]] -= updates[i] along the first axis, in place."""
    return _ref_rows("sub", input_x, indices, updates)


def scatter_mul(input_x, indices, updates):
    """input_x[indices[i]] *= updates[i] along the first axis, in place."""
    return _ref_rows("mul", input_x, indices, updates)


def scatter_div(input_x, indices, updates):
    """input_x[indices[i]] /= updates[i] along the first axis, in place."""
    return _ref_rows("div", input_x, indices, updates)


def scatter_max(input_x, indices, updates):
    """input_x[indices[i]] = max(., updates[i]) along the first axis, in place."""
    return _ref_rows("max", input_x, indices, updates)


def scatter_min(input_x, indices, updates):
    """input_x[indices[i]] = min(., updates[i]) along the first axis, in place."""
    return _ref_rows("min", input_x, indices, updates)


def scatter_update(input_x, indices, updates):
    """input_x[indices[i]] = updates[i] along the first axis, in place."""
    return _ref_rows("update", input_x, indices, updates)


def put_(input, index, source, accumulate=False):
    """input.flatten()[index] = source (+= with accumulate), in place; returns input."""
    _check_tensor("put_", "input", input)
    _check_int_tensor("put_", "index", index)
    _check_tensor("put_", "source", source)
    if index.size != source.size:
        raise ValueError(f"For 'put_', 'index' and 'source' must have the same number of elements, but got "
                         f"{index.size} and {source.size}.")
    idx = P.reshape_p(index, shape=(-1, 1))
    src = P.reshape_p(source, shape=(-1,))

    def fn(old):
        flat = P.reshape_p(old, shape=(-1,))
        return P.reshape_p(_tensor_scatter("add" if accumulate else "update", flat, idx, src), shape=old.shape)
    return _inplace(input, fn, source)


def _rows_index(op, x, indices):
    if isinstance(indices, int):
        indices = (indices,)
    if isinstance(indices, (tuple, list)):
        indices = Tensor(list(indices), mstype.int64)
    _check_int_tensor(op, "indices", indices)
    return P.reshape_p(indices, shape=(-1, 1))


# NOTE: despite their names, MindSpore's InplaceUpdate/InplaceAdd/InplaceSub (and ops.inplace_update/add/sub,
# Tensor.inplace_update) return a new tensor and leave `x` as it was.
def inplace_update(x, v, indices):
    """x with rows `indices` replaced by v (a new tensor)."""
    return _tensor_scatter("update", x, _rows_index("InplaceUpdate", x, indices), v)


def inplace_add(x, v, indices):
    """x with v added to rows `indices` (a new tensor)."""
    return _tensor_scatter("add", x, _rows_index("InplaceAdd", x, indices), v)


def inplace_sub(x, v, indices):
    """x with v subtracted from rows `indices` (a new tensor)."""
    return _tensor_scatter("sub", x, _rows_index("InplaceSub", x, indices), v)


# ---------------------------------------------------------------- nonzero and unique
def nonzero(input, *, as_tuple=False):
    """Indices of the non-zero elements: an (N, ndim) Int64 tensor, or a tuple of ndim 1-D tensors."""
    _check_tensor("NonZero", "input", input)
    idx = A.nonzero_p(input)
    if not as_tuple:
        return idx
    if input.ndim == 0:
        return (P.reshape_p(idx, shape=(-1,)),)
    return tuple(A.unstack_p(idx, axis=1))


def argwhere(input):
    """Indices of the non-zero elements as an (N, ndim) Int64 tensor."""
    _check_tensor("Argwhere", "input", input)
    return A.nonzero_p(input)


def unique(input):
    """The distinct elements in order of first appearance, and for each input element its position in them.

    >>> import mindseed as ms
    >>> out, idx = ms.ops.unique(ms.Tensor([3, 1, 3, 2]))
    >>> out, idx
    (Tensor(shape=[3], dtype=Int64, value= [3 1 2]), Tensor(shape=[4], dtype=Int64, value= [0 1 0 2]))
    """
    _check_tensor("Unique", "input", input)
    out, idx = A.unique_p(input)
    return out, P.reshape_p(idx, shape=input.shape)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Consecutive repeats collapsed; optionally the inverse indices and the run lengths."""
    _check_tensor("UniqueConsecutive", "input", input)
    if dim is not None:
        dim = _axis("UniqueConsecutive", dim, input.ndim)
    out, inv, counts = A.unique_consecutive_p(input, dim=dim)
    res = (out,) + ((inv,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return res[0] if len(res) == 1 else res


def unique_with_pad(x, pad_num):
    """unique of a 1-D tensor padded with pad_num to x's length, and the inverse indices.

    pad_num is an int, or a float when x is a float tensor."""
    _check_tensor("UniqueWithPad", "x", x)
    if x.ndim != 1:
        raise ValueError(f"For 'UniqueWithPad', the 'x' must be 1-D, but got shape {x.shape}.")
    if mstype.is_float(x.dtype) and isinstance(pad_num, float):
        return tuple(A.unique_with_pad_p(x, pad_num=pad_num))
    return tuple(A.unique_with_pad_p(x, pad_num=_int("UniqueWithPad", "pad_num", pad_num)))


# ---------------------------------------------------------------- sorting
def sort(input_x, axis=-1, descending=False):
    """Sorted values along `axis` and their original positions (Int32).

    >>> import mindseed as ms
    >>> ms.ops.sort(ms.Tensor([3.0, 1.0, 2.0]))[1]
    Tensor(shape=[3], dtype=Int32, value= [1 2 0])
    """
    _check_tensor("Sort", "input_x", input_x)
    if input_x.dtype == mstype.bool_ or mstype.is_complex(input_x.dtype):
        raise TypeError(f"For 'Sort', the 'input_x' must be a real number tensor, but got {input_x.dtype}.")
    ax = _axis("Sort", axis, input_x.ndim)
    return tuple(A.sort_p(input_x, axis=ax, descending=bool(descending), stable=True))


def argsort(input, axis=-1, descending=False):
    """Positions that sort input along `axis` (Int32)."""
    return sort(input, axis, descending)[1]


def msort(input):
    """input sorted along its first dimension."""
    return sort(input, 0)[0]


def topk(input, k, dim=None, largest=True, sorted=True):
    """The k largest (or smallest) elements along `dim` (default: last) and their positions (Int32).

    Raises:
        ValueError: k is not in (0, size of `dim`] (MindSpore's TopK takes no k of 0).
    """
    return _topk(input, k, dim, largest, sorted, allow_zero=False)


def _topk(input, k, dim=None, largest=True, sorted=True, allow_zero=True):
    """`topk`; with `allow_zero` (mint's form) k may be 0, giving empty results."""
    _check_tensor("TopK", "input", input)
    k = _int("TopK", "k", k)
    d = input.ndim - 1 if dim is None else _axis("TopK", dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if not (0 if allow_zero else 1) <= k <= n:
        raise ValueError(f"For primitive[TopK], the k must be in {'[' if allow_zero else '('}0,{n}], but got {k}.")
    return tuple(A.topk_p(input, k=k, dim=max(d, 0), largest=bool(largest), sorted=bool(sorted)))


def top_k(input_x, k, sorted=True):
    """The k largest elements along the last dimension and their positions."""
    return topk(input_x, k, None, True, sorted)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """Positions where `values` would be inserted into the sorted last dimension of `sorted_sequence`."""
    _check_tensor("SearchSorted", "sorted_sequence", sorted_sequence)
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"For 'SearchSorted', the 'side' must be 'left' or 'right', but got '{side}'.")
        if right and side == "left":
            raise ValueError("For 'SearchSorted', 'right=True' contradicts side='left'.")
        right = side == "right"
    if isinstance(values, Tensor):
        if sorted_sequence.ndim > 1 and sorted_sequence.shape[:-1] != values.shape[:-1]:
            raise ValueError(f"For 'SearchSorted', the leading dimensions of 'sorted_sequence' "
                             f"{sorted_sequence.shape} and 'values' {values.shape} must match.")
        if values.dtype != sorted_sequence.dtype:
            values = cast(values, sorted_sequence.dtype)
    elif not isinstance(values, numbers.Number):
        raise TypeError(f"For 'SearchSorted', the 'values' must be a Tensor or a number, but got "
                        f"{type(values).__name__}.")
    return A.search_sorted_p(sorted_sequence, values, sorter, out_int32=bool(out_int32), right=bool(right))


def bucketize(input, boundaries, *, right=False):
    """For each element, the index of the bucket of the sorted `boundaries` (list of numbers) it falls in (Int32)."""
    _check_tensor("Bucketize", "input", input)
    if not isinstance(boundaries, (list, tuple)) or not all(
            isinstance(b, numbers.Real) and not isinstance(b, bool) for b in boundaries):
        raise TypeError(f"For 'Bucketize', the 'boundaries' must be a list of numbers, but got "
                        f"{boundaries if isinstance(boundaries, (list, tuple)) else type(boundaries).__name__}.")
    return A.bucketize_p(input, boundaries=[float(b) for b in boundaries], right=bool(right))


def bincount(input, weights=None, minlength=0):
    """Counts of each value 0..max(input) of a 1-D non-negative tensor (weighted sums with `weights`), Float32
    unless the weights are float; as MindSpore, a float or bool input counts its elements equal to each bin index
    (other values count nowhere)."""
    _check_tensor("Bincount", "input", input)
    if mstype.is_complex(input.dtype):
        raise TypeError(f"For 'Bincount', the 'input' must have a real number dtype, but got {input.dtype}.")
    if input.ndim != 1:
        raise ValueError(f"For 'Bincount', the 'input' must be 1-D, but got shape {input.shape}.")
    minlength = _non_negative_int("Bincount", "minlength", minlength)
    if weights is not None:
        _check_tensor("Bincount", "weights", weights)
        if weights.shape != input.shape:
            raise ValueError(f"For 'Bincount', 'weights' {weights.shape} must have the shape of 'input' "
                             f"{input.shape}.")
        if not mstype.is_float(weights.dtype):
            weights = cast(weights, mstype.float32)
    if input.dtype not in (mstype.int32, mstype.int64) or (input.size and int(input.asnumpy().min()) < 0):
        input, weights, length = _bins_of_values(input, weights, minlength)
        return A.bincount_p(input, weights, minlength=length)[:length]
    out = A.bincount_p(input, weights, minlength=minlength)
    return out if weights is not None else cast(out, mstype.float32)


def _bins_of_values(input, weights, minlength):
    """An input that is not Int32/Int64 or holds negatives as Int64 bin indices, the elements that are no bin index
    weighted 0, and the length MindSpore gives (its bins run to max(input) + 1, truncated, or minlength)."""
    x = input.asnumpy().astype(np.float64)
    whole = (x == np.floor(x)) & (x >= 0)
    if x.size:
        minlength = max(minlength, int(x.max() + 1))
    idx = Tensor(np.where(whole, x, 0).astype(np.int64))
    if weights is None:
        weights = Tensor(whole.astype(np.float32))
    else:
        weights = where(Tensor(whole), weights, P.zeros_like_p(weights))
    return idx, weights, minlength


def histc(input, bins=100, min=0.0, max=0.0):  # noqa: A002 -- MindSpore's argument names
    """Histogram of `bins` equal-width bins over [min, max] (the data's range when both are 0)."""
    _check_tensor("Histogram", "input", input)
    if mstype.is_complex(input.dtype):
        raise TypeError(f"For 'Histogram', the 'input' must have a real number dtype, but got {input.dtype}.")
    bins = _int("Histogram", "bins", bins)
    if bins <= 0:
        raise ValueError(f"For 'Histogram', the 'bins' must be positive, but got {bins}.")
    if min > max:
        raise ValueError(f"For 'Histogram', 'min' {min} must not exceed 'max' {max}.")
    return A.histc_p(input, bins=bins, min=float(min), max=float(max))

