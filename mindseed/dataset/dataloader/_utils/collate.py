"""Turning samples into batches (`default_collate`, `collate` with a type -> function map) and single samples into
Tensors (`default_convert`): numpy arrays and numbers become Tensors, mappings and sequences are handled element by
element, strings and bytes stay as they are."""
import copy
import re
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor

__all__ = ["collate", "default_collate", "default_convert"]

_NOT_NUMERIC = re.compile(r"[SaUO]")     # numpy bytes, str and object arrays do not become Tensors


def _rebuild(template, values):
    """A mapping or sequence like `template` (kept as its type where it can be rebuilt) holding `values`."""
    if isinstance(template, Mapping):
        keys = list(template)
        try:
            if isinstance(template, MutableMapping):
                clone = copy.copy(template)
                clone.update(zip(keys, values))
                return clone
            return type(template)(zip(keys, values))
        except TypeError:
            return dict(zip(keys, values))
    try:
        if isinstance(template, MutableSequence):
            clone = copy.copy(template)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(template)(values)
    except TypeError:
        return list(values)


def default_convert(data):
    """One sample as a Tensor where it is numeric: a numpy array (not of str, bytes or objects) or numpy number
    becomes a Tensor, a mapping or sequence is converted element by element (a plain tuple becomes a list), anything
    else is returned as it is."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, (np.number, np.bool_)):
        return Tensor(data)
    if isinstance(data, np.ndarray):
        return data if _NOT_NUMERIC.search(data.dtype.str) else Tensor.from_numpy(data)
    if isinstance(data, Mapping):
        return _rebuild(data, [default_convert(data[k]) for k in data])
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate a list of samples of one type with the function `collate_fn_map` gives for that type (or a base of
    it); mappings are collated key by key, sequences position by position (tuples into lists)."""
    elem = batch[0]
    if collate_fn_map is not None:
        if type(elem) in collate_fn_map:
            return collate_fn_map[type(elem)](batch, collate_fn_map=collate_fn_map)
        for kind, fn in collate_fn_map.items():
            if isinstance(elem, kind):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, Mapping):
        return _rebuild(elem, [collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem])
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(collate(list(s), collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, Sequence):
        if len({len(e) for e in batch}) > 1:
            raise RuntimeError("Each element in list of batch must be of equal size.")
        columns = [collate(list(s), collate_fn_map=collate_fn_map) for s in zip(*batch)]
        return columns if isinstance(elem, tuple) else _rebuild(elem, columns)
    raise TypeError(f"Cannot find the appropriate collate function for type {type(elem)} in collate_fn_map.")


def _tensors(batch, *, collate_fn_map=None):
    return Tensor(np.stack([t.asnumpy() for t in batch], axis=0))


def _arrays(batch, *, collate_fn_map=None):
    if _NOT_NUMERIC.search(batch[0].dtype.str):
        raise TypeError(f"NumPy arrays with dtype {batch[0].dtype} are not supported for collation.")
    return Tensor(np.stack(batch, axis=0))


def _numpy_scalars(batch, *, collate_fn_map=None):
    return Tensor(np.array(batch))


def _floats(batch, *, collate_fn_map=None):
    return Tensor(batch, dtype=mstype.float64)


def _ints(batch, *, collate_fn_map=None):
    return Tensor(batch)


def _unchanged(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: _tensors,
    np.ndarray: _arrays,
    (np.bool_, np.number, np.object_): _numpy_scalars,
    float: _floats,
    int: _ints,
    str: _unchanged,
    bytes: _unchanged,
}


def default_collate(batch):
    """A list of samples as one batch: Tensors, numpy arrays and numbers stacked into a Tensor along a new first
    dimension (Python floats as float64, ints as int64), strings and bytes as a list, mappings and sequences
    collated element by element.

    >>> default_collate([(0, 3.5), (1, 4.5)])
    [Tensor(shape=[2], dtype=Int64, value= [0, 1]), Tensor(shape=[2], dtype=Float64, value= [...])]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
