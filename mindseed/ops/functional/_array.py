"""Functional ops, array family (shapes, indexing, creation) and the array Tensor methods.

The functions live in three sub-family modules; this module re-exports them and declares the Tensor
methods, whose signatures follow MindSpore's Tensor (several accept both the older `axis` spelling and
the newer torch-like one, as MindSpore's overloaded methods do).
"""
import builtins

import numpy as np

from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops._prims import array as A
from mindseed.ops._prims import core as P
from mindseed.ops.functional import _array_blocks as _B
from mindseed.ops.functional import _array_create as _C
from mindseed.ops.functional import _array_index as _I
from mindseed.ops.functional import _array_shape as _S
from mindseed.ops.functional._array_blocks import *  # noqa: F401,F403
from mindseed.ops.functional._array_create import *  # noqa: F401,F403
from mindseed.ops.functional._array_index import *  # noqa: F401,F403
from mindseed.ops.functional._array_shape import *  # noqa: F401,F403
from mindseed.ops.functional._core import _axis, _check_tensor, _dtype_arg, broadcast_to, cast, full_ext, stack, where

__all__ = _S.__all__ + _I.__all__ + _C.__all__ + _B.__all__
_slice = builtins.slice  # NOTE: the star imports above bring MindSpore's ops.slice / ops.range into this module


def _varargs(args):
    """m(1, 2) and m((1, 2)) both mean (1, 2)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Tensor)):
        return args[0]
    return args


# ---------------------------------------------------------------- shape methods
def _flatten(self, *args, order="C", start_dim=0, end_dim=-1):
    if args and isinstance(args[0], str):
        order, args = args[0], args[1:]
    if args:
        start_dim = args[0]
        if len(args) > 1:
            end_dim = args[1]
    return _S.flatten(self, order, start_dim=start_dim, end_dim=end_dim)


def _squeeze(self, *args, axis=None, dim=None):
    """By position, as MindSpore's `axis=` or as the mint spelling `dim=`."""
    axis = dim if axis is None else axis
    if args:
        if axis is not None:
            raise TypeError(f"For 'Tensor.squeeze', the axis is given twice: {args} and {axis}.")
        axis = args[0] if len(args) == 1 else args
    return _S.squeeze(self) if axis is None else _S.squeeze(self, axis)


def _repeat(self, *repeats, axis=None, **named):
    if named:
        # `x.repeat(repeats=...)`: MindSpore's graph mode takes the keyword, its PyNative Tensor method does not
        if set(named) != {"repeats"} or repeats or _state.tracing is None:
            raise TypeError(f"tensor_repeat() got an unexpected keyword argument '{next(iter(named))}'")
        repeats = (named["repeats"],)
    if axis is not None:  # MindSpore 1.x / numpy spelling: repeat each element along axis
        return _S.repeat_interleave(self, repeats[0] if len(repeats) == 1 else list(repeats), axis)
    reps = _varargs(repeats)
    return _S.tile(self, tuple(reps) if not isinstance(reps, Tensor) else tuple(reps.asnumpy().tolist()))


def _tile(self, *dims):
    reps = _varargs(dims)
    return _S.tile(self, tuple(reps))


def _expand(self, *size):
    return broadcast_to(self, _varargs(size))


def _split(self, split_size_or_sections=None, axis=0, *, dim=None, split_size=None):
    """Tensor.split(split_size_or_sections, axis) or, as the pyboost overload spells it, (split_size, dim)."""
    sizes = split_size if split_size is not None else split_size_or_sections
    if sizes is None:
        raise TypeError("For 'Tensor.split', the 'split_size' (or 'split_size_or_sections') is required.")
    return _S.split(self, sizes, axis if dim is None else dim)


def _chunk(self, chunks, axis=0, *, dim=None):
    return _S.chunk(self, chunks, axis if dim is None else dim)


def _repeat_interleave(self, repeats, dim=None, *, axis=None, output_size=None):
    return _S.repeat_interleave(self, repeats, dim if axis is None else axis)


def _select(self, dim, index):
    """Tensor.select: (dim, index) takes one index of a dimension; (condition, y) with a bool Tensor condition is
    MindSpore's older form, where(condition, self, y) (y a Tensor, or an int for an Int32 / a float for a Float32
    tensor)."""
    if isinstance(dim, Tensor):
        return _select_where(self, dim, index)
    if isinstance(index, Tensor) and (index.ndim != 0 or not mstype.is_integral(index.dtype)):
        raise TypeError(f"Failed calling select with \"select({type(dim).__name__}, Tensor)\". The valid calling "
                        f"should be: \"Tensor.select(dim=<int>, index=<int>)\" or \"Tensor.select(condition=<Tensor>, "
                        f"y=<Tensor, int, float>)\".")
    ax = _axis("select", dim, self.ndim)
    n = self.shape[ax]
    i = _S._int("select", "index", index)
    if not -n <= i < n:
        raise IndexError(f"For 'select', the 'index' {i} is out of range for dimension {ax} of size {n}.")
    return P.getitem_p(self, index=(_slice(None),) * ax + (i,))


def _select_where(self, condition, y):
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        want, kind = (mstype.int32, "int") if isinstance(y, int) else (mstype.float32, "float")
        if self.dtype != want:
            raise TypeError(f"For 'Tensor.select', if the argument 'y' is {kind}, then the tensor type should be "
                            f"{'int32' if kind == 'int' else 'float32'} but got {self.dtype}")
        y = full_ext(self.shape, y, dtype=want)
    elif not isinstance(y, Tensor):
        raise TypeError(f"For 'Tensor.select', the argument 'y' must be a Tensor, int or float, but got "
                        f"{type(y).__name__}.")
    return _I.select(condition, self, y)


def _resize(self, *new_shape):
    """numpy-style resize in place: the flattened data truncated or zero-padded to the new shape."""
    shape = tuple(_varargs(new_shape))
    n = 1
    for s in shape:
        n *= s

    def fn(old):
        flat = P.reshape_p(old, shape=(-1,))
        if n <= flat.shape[0]:
            flat = P.getitem_p(flat, index=_slice(0, n))
        else:
            flat = P.concat_p(flat, P.fill_p(shape=(n - flat.shape[0],), value=0, dtype=old.dtype.name), axis=0)
        return P.reshape_p(flat, shape=shape)
    return _I._inplace(self, fn)


# ---------------------------------------------------------------- indexing methods
def _bind(method, names, args, kwargs, required):
    """The arguments of an overloaded Tensor method as {name: value}; `required` lists the names that must be
    given ("a|b": either spelling). Too many positional arguments or a missing one is a TypeError naming them."""
    if len(args) > len(names):
        raise TypeError(f"For 'Tensor.{method}', at most {len(names)} positional arguments ({', '.join(names)}) are "
                        f"accepted, but got {len(args)}.")
    params = dict(zip(names, args))
    params.update(kwargs)
    for req in required:
        if not any(n in params for n in req.split("|")):
            spelled = " or ".join(f"'{n}'" for n in req.split("|"))
            raise TypeError(f"For 'Tensor.{method}', the argument {spelled} is required, but it was not given.")
    return params


def _gather(self, *args, **kwargs):
    """Tensor.gather(input_indices, axis, batch_dims=0) or the torch-like Tensor.gather(dim, index)."""
    if "dim" in kwargs or "index" in kwargs or (args and isinstance(args[0], int) and len(args) >= 2
                                                 and isinstance(args[1], Tensor)):
        params = _bind("gather", ("dim", "index"), args, kwargs, ("dim", "index"))
        return _I.gather_elements(self, params["dim"], params["index"])
    params = _bind("gather", ("input_indices", "axis", "batch_dims"), args, kwargs, ("input_indices",))
    return _I.gather(self, params["input_indices"], params.get("axis", 0), params.get("batch_dims", 0))


def _index_add(self, *args, **kwargs):
    """Tensor.index_add(indices, y, axis, ...) (in place, MindSpore's) or index_add(dim, index, source, alpha=1)."""
    if args and isinstance(args[0], int) or "dim" in kwargs:
        params = _bind("index_add", ("dim", "index", "source"), args, kwargs, ("dim", "index", "source"))
        return _index_add_torch(self, params["dim"], params["index"], params["source"], params.get("alpha", 1))
    params = _bind("index_add", ("indices", "y", "axis", "use_lock", "check_index_bound"), args, kwargs,
                   ("indices", "y", "axis"))
    return _I.index_add(self, params["indices"], params["y"], params["axis"])


def _index_select(self, *args, **kwargs):
    """Tensor.index_select(axis, index), the axis also spelled `dim` (one of the two, not both)."""
    params = _bind("index_select", ("axis", "index"), args, kwargs, ("axis|dim", "index"))
    unknown = set(params) - {"axis", "dim", "index"}
    if unknown or ("axis" in params and "dim" in params):
        raise TypeError(f"For 'Tensor.index_select', the valid calls are index_select(dim=<int>, index=<Tensor>) "
                        f"and index_select(axis=<int>, index=<Tensor>), but got the arguments {sorted(params)}.")
    return _I.index_select(self, params.get("axis", params.get("dim")), params["index"])


def _index_add_torch(self, dim, index, source, alpha=1):
    prim, index, ax = _I._index_add("IndexAdd", self, index, source, dim)
    if alpha != 1:
        source = P.mul_p(source, alpha)
    return prim(self, index, source, axis=ax)


def _index_add_(self, dim, index, source, *, alpha=1):
    return _I._inplace(self, lambda old: _index_add_torch(old, dim, index, source, alpha), source)


def _scatter(self, *args, **kwargs):
    params = _bind("scatter", ("axis", "index", "src"), args, kwargs, ("axis|dim", "index", "src|value"))
    axis = params.get("axis", params.get("dim"))
    src = params.get("src", params.get("value"))
    reduce = params.get("reduce")
    if reduce in ("add",):
        if not isinstance(src, Tensor):
            src = P.fill_p(shape=params["index"].shape, value=src, dtype=self.dtype.name)
        return _I.tensor_scatter_elements(self, params["index"], src, axis, "add")
    return _I.scatter(self, axis, params["index"], src)


def _scatter_add(self, *args, **kwargs):
    """Tensor.scatter_add(dim, index, src) (elementwise add) or MindSpore's scatter_add(indices, updates)."""
    if (args and isinstance(args[0], int)) or "dim" in kwargs:
        params = _bind("scatter_add", ("dim", "index", "src"), args, kwargs, ("dim", "index", "src"))
        return _I.tensor_scatter_elements(self, params["index"], params["src"], params["dim"], "add")
    params = _bind("scatter_add", ("indices", "updates"), args, kwargs, ("indices", "updates"))
    return _I.tensor_scatter_add(self, params["indices"], params["updates"])


def _inplace_method(fn):
    def method(self, *args, **kwargs):
        others = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
        return _I._inplace(self, lambda old: fn(old, *args, **kwargs), *others)
    method.__name__ = fn.__name__ + "_"
    return method


def _index_fill_dim_first(self, dim, index, value):
    return _I.index_fill(self, dim, index, value)


def _sort(self, axis=-1, descending=False, *, dim=None, stable=False):
    return _I.sort(self, axis if dim is None else dim, descending)


def _argsort(self, axis=-1, descending=False, *, dim=None, stable=False):
    return _I.argsort(self, axis if dim is None else dim, descending)


def _topk(self, k, dim=-1, largest=True, sorted=True):
    return _I.topk(self, k, dim, largest, sorted)


def _searchsorted(self, v, side="left", sorter=None):
    return _I.searchsorted(self, v, out_int32=True, side=side, sorter=sorter)


def _unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        dim = _axis("unique", dim, self.ndim)
    out, inv, counts = A.unique_sorted_p(self, dim=dim)
    res = (out,) + ((inv,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return res[0] if len(res) == 1 else res


def _take(self, indices, axis=None, mode="clip"):
    """numpy's take: out-of-range indices clipped ('clip'), wrapped ('wrap') or an error ('raise')."""
    if mode not in ("clip", "wrap", "raise"):
        raise ValueError(f"For 'take', the 'mode' must be 'clip', 'wrap' or 'raise', but got '{mode}'.")
    x = P.reshape_p(self, shape=(-1,)) if axis is None else self
    ax = 0 if axis is None else _axis("take", axis, self.ndim)
    if not isinstance(indices, Tensor):
        if indices is None:
            raise TypeError("For 'take', the 'indices' must be a Tensor, an int or a sequence of ints, but got "
                            "NoneType.")
        indices = Tensor(indices, mstype.int64)
    n = x.shape[ax]
    if mode == "clip":
        indices = P.maximum_p(P.minimum_p(indices, n - 1), 0)
    elif mode == "wrap":
        indices = _wrap(indices, n)
    return _I.gather(x, indices, ax)


def _wrap(indices, n):
    # indices are constants of the call (never differentiated): numpy's mod is the simplest exact wrap
    return Tensor(np.mod(indices.asnumpy(), n), indices.dtype)


def _where(self, condition, y):
    return where(condition, self, y)


def _masked_fill_(self, mask, value):
    return _I._inplace(self, lambda old: _I.masked_fill(old, mask, value), value)


def _fill_diagonal(self, fill_value, wrap=False):
    if self.ndim < 2:
        raise ValueError(f"For 'fill_diagonal', the input must have at least 2 dimensions, but got {self.ndim}.")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise ValueError(f"For 'fill_diagonal', all dimensions of a tensor with more than 2 must be equal, but got "
                         f"{self.shape}.")
    return A.fill_diagonal_p(self, value=_I._scalar_like(self, fill_value, "fill_diagonal"), wrap=bool(wrap))


def _index_put(self, indices, values, accumulate=False):
    """self[indices] = values (+= with accumulate) for a tuple of 1-D int index tensors."""
    if not isinstance(indices, (tuple, list)) or not indices:
        raise TypeError("For 'index_put', the 'indices' must be a non-empty tuple or list of Tensors.")
    idx = P.stack_p(*[cast(i, mstype.int64) for i in indices], axis=-1)
    n = idx.shape[0]
    vals = values if values.shape == (n,) + self.shape[len(indices):] else \
        broadcast_to(values, (n,) + self.shape[len(indices):])
    return _I._tensor_scatter("add" if accumulate else "update", self, idx, vals)


def _index_copy(self, dim, index, tensor):
    ax = _axis("index_copy", dim, self.ndim)
    idx = P.reshape_p(index, shape=(-1, 1))
    moved = _S.movedim(self, ax, 0)
    out = _I._tensor_scatter("update", moved, idx, _S.movedim(tensor, ax, 0))
    return _S.movedim(out, 0, ax)


def _choose(self, choices, mode="clip"):
    """out[i] = choices[self[i]][i] (numpy's choose), indices clipped or wrapped by `mode`."""
    if not isinstance(choices, (tuple, list)) or not choices:
        raise TypeError(f"For 'choose', the 'choices' must be a non-empty tuple or list of Tensors, but got "
                        f"{type(choices).__name__}.")
    cs = _S.broadcast_tensors(*[c if isinstance(c, Tensor) else Tensor(c) for c in choices])
    st = stack(cs, 0)
    n = st.shape[0]
    idx = cast(self, mstype.int64)
    if mode == "clip":
        idx = P.maximum_p(P.minimum_p(idx, n - 1), 0)
    elif mode == "wrap":
        idx = _wrap(idx, n)
    idx = broadcast_to(P.reshape_p(idx, shape=(1,) + idx.shape), (1,) + st.shape[1:])
    return P.reshape_p(A.gather_d_p(st, idx, dim=0), shape=st.shape[1:])


def _itemset(self, *args):
    if len(args) == 1:
        index, value = 0, args[0]
        if self.size != 1:
            raise ValueError("For 'itemset', a value alone needs a tensor of one element.")
    elif len(args) == 2:
        index, value = args
    else:
        raise TypeError(f"For 'itemset', the arguments must be (value) or (index, value), but got {len(args)} "
                        f"arguments.")
    flat_index = index if isinstance(index, int) else int(sum(i * s for i, s in zip(index, _strides(self.shape))))

    # a new tensor: MindSpore's itemset leaves `self` as it is (unlike numpy's)
    flat = P.reshape_p(self, shape=(-1,))
    return P.reshape_p(P.setitem_p(flat, _I._scalar_like(self, value), index=flat_index), shape=self.shape)


def _strides(shape):
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= s
    return out[::-1]


def _fill_(self, value):
    if isinstance(value, Tensor):
        return _I._inplace(self, lambda old: A.copy_to_p(old, cast(value, old.dtype)), value)
    return _I._inplace(self, lambda old: P.fill_p(shape=old.shape, value=_I._scalar_like(old, value, "fill_"),
                                                  dtype=old.dtype.name))


def _copy_(self, src, non_blocking=False):
    if not isinstance(src, Tensor):
        src = Tensor(src)
    return _I._inplace(self, lambda old: A.copy_to_p(old, broadcast_to(src, old.shape)), src)


def _new_full(self, size, fill_value, *, dtype=None):
    return full_ext(tuple(_varargs((size,))), fill_value, dtype=dtype or self.dtype)


def _new_size(self, args, size, dtype):
    """The shape and dtype of `new_zeros` / `new_ones` / `new_empty`: MindSpore's `(size, dtype=None)` (size an int
    or a tuple, positional or keyword), and also the sizes as separate ints."""
    if args and isinstance(args[-1], mstype.Type):
        args, dtype = args[:-1], args[-1]
    if size is not None:
        args = (size,) + args
    shape = _varargs(args)
    return ((shape,) if isinstance(shape, int) else tuple(shape)), (dtype or self.dtype)


def _new_zeros(self, *args, size=None, dtype=None):
    shape, dtype = _new_size(self, args, size, dtype)
    return full_ext(shape, 0, dtype=dtype)


def _new_ones(self, *args, size=None, dtype=None):
    shape, dtype = _new_size(self, args, size, dtype)
    return full_ext(shape, 1, dtype=dtype)


def _new_empty(self, *args, size=None, dtype=None, device=None):
    shape, dtype = _new_size(self, args, size, dtype)
    return _C.empty(shape, dtype=dtype)


def _trace_method(self, offset=0, axis1=0, axis2=1, dtype=None):
    _C._check_matrix("Trace", self)
    a1, a2 = _axis("Trace", axis1, self.ndim), _axis("Trace", axis2, self.ndim)
    if dtype is None and mstype.is_integral(self.dtype) and self.dtype != mstype.bool_:
        dtype = mstype.int64        # Tensor.trace sums integers as Tensor.sum does
    return _C._trace(self, _S._int("Trace", "offset", offset), a1, a2,
                     None if dtype is None else _dtype_arg("Trace", dtype))


def _nonzero(self, *, as_tuple=False):
    return _I.nonzero(self, as_tuple=as_tuple)


def _kthvalue(self, k, dim=-1, keepdim=False):
    """The k-th smallest element along dim and its position."""
    _check_tensor("kthvalue", "input", self)
    d = _axis("kthvalue", dim, self.ndim)
    values, idx = _I.topk(self, k, d, largest=False, sorted=True)
    sel = (_slice(None),) * d + (_slice(k - 1, k),)
    v, i = P.getitem_p(values, index=sel), P.getitem_p(idx, index=sel)
    if not keepdim:
        v, i = _S.squeeze(v, d), _S.squeeze(i, d)
    return v, cast(i, mstype.int64)


def _unsqueeze(self, dim=None, *, axis=None):
    # Tensor.unsqueeze(dim) also takes the older keyword `axis`
    if (dim is None) == (axis is None):
        raise TypeError("For 'Tensor.unsqueeze', exactly one of 'dim' and 'axis' must be given.")
    return _S.unsqueeze(self, axis if dim is None else dim)


TENSOR_METHODS = {
    # shapes and movement
    "expand_dims": _S.expand_dims, "unsqueeze": _unsqueeze, "squeeze": _squeeze, "flatten": _flatten,
    "ravel": _S.ravel, "tile": _tile, "repeat": _repeat, "repeat_interleave": _repeat_interleave,
    "flip": _S.flip, "fliplr": _S.fliplr, "flipud": _S.flipud, "reverse": _S.reverse, "roll": _S.roll,
    "rot90": _S.rot90, "narrow": lambda self, dim, start, length: _S.narrow(self, dim, start, length),
    "split": _split, "chunk": _chunk, "tensor_split": _S.tensor_split,
    "hsplit": _S.hsplit, "vsplit": _S.vsplit, "dsplit": _S.dsplit, "unbind": _S.unbind, "movedim": _S.movedim,
    "moveaxis": _S.moveaxis, "swapaxes": _S.swapaxes, "swapdims": _S.swapdims, "t": _S.t, "expand": _expand,
    "view_as": _S.view_as, "reshape_as": _S.view_as, "resize": _resize, "select": _select,
    "reverse_sequence": lambda self, seq_lengths, seq_dim=0, batch_dim=0: _S.reverse_sequence(
        self, seq_lengths, seq_dim, batch_dim),
    "slice_scatter": _S.slice_scatter, "select_scatter": _S.select_scatter,
    # indexing
    "masked_fill": _I.masked_fill, "masked_fill_": _masked_fill_, "masked_select": _I.masked_select,
    "masked_scatter": _I.masked_scatter, "masked_scatter_": _inplace_method(_I.masked_scatter),
    "index_fill": _I.index_fill, "index_fill_": _inplace_method(_index_fill_dim_first), "index_add": _index_add,
    "index_add_": _index_add_, "index_select": _index_select, "index_put": _index_put,
    "index_put_": _inplace_method(_index_put), "index_copy_": _inplace_method(_index_copy),
    "gather": _gather, "gather_elements": _I.gather_elements, "gather_nd": _I.gather_nd, "take": _take,
    "scatter": _scatter, "scatter_": _inplace_method(_scatter), "scatter_add": _scatter_add,
    "scatter_add_": _inplace_method(_scatter_add), "scatter_sub": _I.tensor_scatter_sub,
    "scatter_mul": _I.tensor_scatter_mul, "scatter_div": _I.tensor_scatter_div, "scatter_max": _I.tensor_scatter_max,
    "scatter_min": _I.tensor_scatter_min, "inplace_update": _I.inplace_update, "put_": _I.put_, "choose": _choose,
    "itemset": _itemset, "where": _where, "nonzero": _nonzero, "argwhere": _I.argwhere, "unique": _unique,
    "unique_consecutive": _I.unique_consecutive, "unique_with_pad": _I.unique_with_pad,
    "sort": _sort, "argsort": _argsort, "msort": _I.msort, "topk": _topk, "top_k": _I.top_k,
    "kthvalue": _kthvalue, "searchsorted": _searchsorted, "bincount": _I.bincount, "histc": _I.histc,
    # triangles, diagonals, filling
    "tril": _C.tril, "triu": _C.triu, "diag": _C.diag, "diagflat": _C.diagflat,
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: _C.diagonal(self, offset, axis1, axis2),
    "diagonal_scatter": _C.diagonal_scatter, "trace": _trace_method, "fill_diagonal": _fill_diagonal,
    "fill_diagonal_": _inplace_method(_fill_diagonal), "fill": _C.fills, "fills": _C.fills, "fill_": _fill_,
    "zero_": _C.zero_, "copy_": _copy_, "new_zeros": _new_zeros, "new_ones": _new_ones, "new_full": _new_full,
    "new_empty": _new_empty, "clone": lambda self: A.copy_to_p(self, self), "type_as": _C.type_as,
    "copy": lambda self: A.copy_to_p(self, self),
    "ndimension": lambda self: self.ndim,
}
