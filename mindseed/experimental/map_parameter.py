"""MapParameter: a Parameter holding a hash table from integer keys to value tensors of one shape (an embedding
whose rows exist only for the keys seen), MindSpore's `mindspore.experimental.MapParameter`.

The table lives on the host (a dict of numpy rows): `get` looks rows up (a missing key gets the default value, and
keeps it unless `insert_default_value=False`), `put` inserts or updates, `erase` removes; `export_data` hands the
table out as arrays (all of it, or what changed since the last incremental export) and `import_data` loads it.
"""
import numbers
import sys

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.initializer import initializer
from mindseed.common.parameter import Parameter
from mindseed.common.tensor import Tensor

__all__ = ["MapParameter"]

_UNCHANGED, _MODIFIED, _ERASED = 0, 1, 2


class MapParameter(Parameter):
    """A Parameter that maps integer keys to value tensors of shape `value_shape`.

    Args:
        key_dtype (mindspore.dtype): the keys' integer dtype. Default: int32.
        value_dtype (mindspore.dtype): the values' dtype. Default: float32.
        value_shape (Union[tuple, list, int]): the shape of one value. Default: 1.
        key_tensor (Tensor): keys to start with (with `value_tensor`).
        value_tensor (Tensor): their values, of shape ``key_tensor.shape + value_shape``.
        default_value (Union[numbers.Number, str]): the value of a key not in the table: a number or an
            initializer's name (``'zeros'``, ``'ones'``, ``'normal'``, ...). Default: ``'normal'``.
        permit_filter_value (numbers.Number): kept for MindSpore's API. Default: 1.
        evict_filter_value (numbers.Number): kept for MindSpore's API. Default: ``sys.maxsize``.
        name (str): the parameter's name. Default: None.
        requires_grad (bool): whether it is trained. Default: True.

    Raises:
        ValueError: `key_dtype`, `value_dtype` or `value_shape` disagree with `key_tensor` / `value_tensor`.
        TypeError: `key_dtype` is not an integer dtype.

    >>> import numpy as np
    >>> import mindseed as ms
    >>> from mindseed.experimental import MapParameter
    >>> m = MapParameter(key_dtype=ms.int32, value_dtype=ms.float32, value_shape=(2,), default_value="zeros")
    >>> _ = m.put(ms.Tensor([1, 2], ms.int32), ms.Tensor(np.array([[1.0, 1.0], [2.0, 2.0]], np.float32)))
    >>> m.get(ms.Tensor([2, 7], ms.int32)).asnumpy().tolist()
    [[2.0, 2.0], [0.0, 0.0]]
    """

    def __new__(cls, key_dtype=None, value_dtype=None, value_shape=None, key_tensor=None, value_tensor=None,
                default_value="normal", permit_filter_value=1, evict_filter_value=sys.maxsize, **kwargs):
        if isinstance(value_shape, numbers.Number):
            value_shape = (value_shape,)
        _check_args(key_tensor, key_dtype, value_tensor, value_dtype, value_shape)
        obj = object.__new__(cls)
        obj.key_dtype = key_tensor.dtype if key_tensor is not None else key_dtype or mstype.int32
        obj.value_dtype = value_tensor.dtype if value_tensor is not None else value_dtype or mstype.float32
        obj.value_shape = tuple(value_tensor.shape[1:] if key_tensor is not None and value_tensor is not None
                                else value_tensor.shape if value_tensor is not None
                                else value_shape if value_shape is not None else (1,))
        if not mstype.is_integral(obj.key_dtype) or obj.key_dtype == mstype.bool_:
            raise TypeError(f"For 'MapParameter', the 'key_dtype' must be an integer dtype, but got {obj.key_dtype}.")
        obj.default_value = default_value
        obj.permit_filter_value = permit_filter_value
        obj.evict_filter_value = evict_filter_value
        obj.key_tensor, obj.value_tensor = key_tensor, value_tensor
        return obj

    def __init__(self, name=None, requires_grad=True, **kwargs):
        np_dtype = mstype.dtype_to_nptype(self.value_dtype)
        super().__init__(Tensor(np.zeros(self.value_shape, np_dtype)), name=name, requires_grad=requires_grad)
        self._table = {}        # key -> its value row (numpy)
        self._status = {}       # key -> modified / erased since the last incremental export
        if self.key_tensor is not None and self.value_tensor is not None:
            self.put(self.key_tensor, self.value_tensor)

    # ------------------------------------------------------------ the table
    def _keys(self, key_tensor):
        keys = key_tensor.asnumpy() if isinstance(key_tensor, Tensor) else np.asarray(key_tensor)
        if keys.dtype.kind not in "iu":
            raise TypeError(f"For 'MapParameter', the keys must be integers, but got {keys.dtype}.")
        return keys

    def _default_row(self):
        value = self.default_value
        if isinstance(value, numbers.Number) and not isinstance(value, bool):
            return np.full(self.value_shape, value, mstype.dtype_to_nptype(self.value_dtype))
        return initializer(value, self.value_shape, self.value_dtype).asnumpy()

    def get(self, key_tensor, insert_default_value=True):
        """The values of the keys (shape ``key_tensor.shape + value_shape``); a key not in the table gets the
        default value, which it keeps when `insert_default_value`."""
        keys = self._keys(key_tensor)
        rows = []
        for k in keys.reshape(-1).tolist():
            row = self._table.get(k)
            if row is None:
                row = self._default_row()
                if insert_default_value:
                    self._table[k] = row
                    self._status[k] = _MODIFIED
            rows.append(row)
        nptype = mstype.dtype_to_nptype(self.value_dtype)
        out = np.stack(rows) if rows else np.zeros((0,) + self.value_shape, nptype)
        return Tensor(out.reshape(keys.shape + self.value_shape).astype(nptype, copy=False))

    def put(self, key_tensor, value_tensor):
        """Insert or update the rows of the keys; returns the MapParameter."""
        keys = self._keys(key_tensor)
        values = value_tensor.asnumpy() if isinstance(value_tensor, Tensor) else np.asarray(value_tensor)
        want = keys.shape + self.value_shape
        if values.shape != want:
            raise ValueError(f"For 'MapParameter.put', the 'value_tensor' shape must be {want} (the keys' shape and "
                             f"value_shape), but got {values.shape}.")
        values = values.astype(mstype.dtype_to_nptype(self.value_dtype), copy=False).reshape((-1,) + self.value_shape)
        for k, row in zip(keys.reshape(-1).tolist(), values):
            self._table[k] = row.copy()
            self._status[k] = _MODIFIED
        return self

    def erase(self, key_tensor):
        """Remove the rows of the keys (absent keys are ignored); returns the MapParameter."""
        for k in self._keys(key_tensor).reshape(-1).tolist():
            if self._table.pop(k, None) is not None:
                self._status[k] = _ERASED
        return self

    def __getitem__(self, key_tensor):
        return self.get(key_tensor, True)

    def __setitem__(self, key_tensor, value_tensor):
        self.put(key_tensor, value_tensor)

    def get_keys(self):
        """Every key in the table, as a Tensor."""
        return Tensor(np.array(list(self._table), mstype.dtype_to_nptype(self.key_dtype)))

    def get_values(self):
        """Every value in the table (in the order of `get_keys`), as a Tensor."""
        nptype = mstype.dtype_to_nptype(self.value_dtype)
        rows = list(self._table.values())
        return Tensor(np.stack(rows) if rows else np.zeros((0,) + self.value_shape, nptype))

    def get_data(self):
        """(keys, values) of the table."""
        return self.get_keys(), self.get_values()

    def export_data(self, incremental=False):
        """The table as numpy arrays (keys, values, statuses: 0 unchanged, 1 modified, 2 erased); with
        `incremental` only the keys changed since the last incremental export, whose changes are then cleared."""
        keys = [k for k in self._status] if incremental else list(self._table)
        nk, nv = mstype.dtype_to_nptype(self.key_dtype), mstype.dtype_to_nptype(self.value_dtype)
        zero = np.zeros(self.value_shape, nv)
        values = [self._table.get(k, zero) for k in keys]
        statuses = [self._status.get(k, _UNCHANGED) for k in keys]
        if incremental:
            self._status.clear()
        return (np.array(keys, nk), np.stack(values).astype(nv, copy=False) if values else
                np.zeros((0,) + self.value_shape, nv), np.array(statuses, np.int32))

    def import_data(self, data):
        """Load (keys, values[, statuses]) as `export_data` gives them: erased keys are removed, others put."""
        if not isinstance(data, (tuple, list)) or len(data) not in (2, 3):
            raise TypeError(f"For 'MapParameter.import_data', the data must be a tuple (keys, values[, statuses]), "
                            f"but got {type(data).__name__}.")
        keys, values = np.asarray(data[0]), np.asarray(data[1])
        statuses = np.asarray(data[2]) if len(data) == 3 else np.zeros(keys.shape, np.int32)
        keep = statuses != _ERASED
        if keep.any():
            self.put(keys[keep], values[keep])
        if (~keep).any():
            self.erase(keys[~keep])

    def clone(self, init="same"):
        """A new MapParameter of the same keys' and values' types and shape, with an empty table; `init` other than
        ``'same'`` is its default value."""
        return MapParameter(key_dtype=self.key_dtype, value_dtype=self.value_dtype, value_shape=self.value_shape,
                            default_value=self.default_value if init == "same" else init,
                            permit_filter_value=self.permit_filter_value, evict_filter_value=self.evict_filter_value,
                            name=self.name, requires_grad=self.requires_grad)

    def __str__(self):
        return (f"MapParameter(MapTensor(key_dtype={self.key_dtype}, value_dtype={self.value_dtype}, value_shape="
                f"{list(self.value_shape)}, default_value={self.default_value}, permit_filter="
                f"{self.permit_filter_value}, evict_filter={self.evict_filter_value}))")

    __repr__ = __str__


def _check_args(key_tensor, key_dtype, value_tensor, value_dtype, value_shape):
    if key_dtype is not None and key_tensor is not None and key_dtype != key_tensor.dtype:
        raise ValueError("When initializing a MapParameter, 'key_dtype' and 'key_tensor.dtype' should be set the "
                         "same.")
    if value_dtype is not None and value_tensor is not None and value_dtype != value_tensor.dtype:
        raise ValueError("When initializing a MapParameter, 'value_dtype' and 'value_tensor.dtype' should be set the "
                         "same.")
    if value_shape is not None and value_tensor is not None and tuple(value_shape) != tuple(value_tensor.shape) \
            and (key_tensor is None or tuple(value_shape) != tuple(value_tensor.shape[key_tensor.ndim:])):
        raise ValueError("When initializing a map_parameter, 'value_shape' and 'value_tensor.shape' should be set the "
                         "same.")
