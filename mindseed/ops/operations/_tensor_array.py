"""`mindspore.ops.operations._tensor_array`: MindSpore's (up to 2.2) TensorArray primitives, a growable array of
same-shaped Tensors on the host behind an int64 handle (mindspore-rl's `utils.TensorArray` is built on them).

`TensorArray(dtype, element_shape, dynamic_size, size, name)()` creates the array (the same handle at every call of
one instance); `TensorArrayWrite()(handle, index, value)` sets an element (a dynamic array grows, a fixed one holds
`size`); `TensorArrayRead`, `TensorArrayGather`, `TensorArrayStack`, `TensorArraySize` read it; `TensorArrayClear`
empties it and `TensorArrayClose` frees it. In a compiled graph each is one node that runs at every call.
"""
import numpy as np

from mindseed import _checkparam as validator
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops.operations._base import Primitive

__all__ = ["TensorArray", "TensorArrayWrite", "TensorArrayRead", "TensorArrayClose", "TensorArrayClear",
           "TensorArrayStack", "TensorArraySize", "TensorArrayGather"]

_arrays = {}
_next = [0]


class _Array:
    def __init__(self, dtype, shape, dynamic_size, size):
        self.dtype, self.shape, self.dynamic_size, self.size = dtype, tuple(shape), dynamic_size, size
        self.values = []

    def write(self, name, index, value):
        if not isinstance(value, Tensor):       # a Python number: a scalar of the array's type
            value = Tensor(np.asarray(value, mstype.dtype_to_nptype(self.dtype)))
        if value.dtype != self.dtype or tuple(value.shape) != self.shape:
            raise ValueError(f"For '{name}', the value must be a Tensor[{self.dtype}] of shape {self.shape}, but got "
                             f"a Tensor[{value.dtype}] of shape {value.shape}.")
        if index < 0 or (not self.dynamic_size and index >= self.size):
            raise IndexError(f"For '{name}', the index {index} is out of range for a TensorArray of "
                             f"{'dynamic size' if self.dynamic_size else 'size ' + str(self.size)}.")
        zero = np.zeros(self.shape, mstype.dtype_to_nptype(self.dtype))
        self.values.extend(zero for _ in range(index + 1 - len(self.values)))
        self.values[index] = value.asnumpy()

    def read(self, name, index):
        if not 0 <= index < len(self.values):
            raise IndexError(f"For '{name}', the index {index} is out of range [0, {len(self.values)}).")
        return self.values[index]


def _index(name, value):
    return int(np.asarray(value.asnumpy() if isinstance(value, Tensor) else value).reshape(-1)[0])


def _array(name, handle):
    key = _index(name, handle)
    if key not in _arrays:
        raise RuntimeError(f"For '{name}', no TensorArray has the handle {key} (not created, or closed).")
    return _arrays[key]


def _run(fn, args, outputs):
    return _state.opaque_call(fn, tuple(args), outputs=outputs)


class _Typed(Primitive):
    def __init__(self, dtype, element_shape):
        super().__init__(type(self).__name__)
        if dtype not in mstype.number_type + (mstype.bool_,):
            raise TypeError(f"For '{self.name}', the 'dtype' must be a number type or bool, but got {dtype}.")
        validator.check_value_type("element_shape", element_shape, [tuple, list], self.name)
        self.dtype, self.element_shape = dtype, tuple(element_shape)
        self.attrs.update(dtype=dtype, element_shape=self.element_shape)


class TensorArray(_Typed):
    r"""Creates a TensorArray of `dtype` elements of `element_shape`; the call returns its handle (int64 scalar).

    Args: dtype, element_shape (tuple[int]), dynamic_size (bool, default True), size (int, default 0: the fixed
    size when not dynamic), name (str)."""

    def __init__(self, dtype, element_shape, dynamic_size=True, size=0, name="TA"):
        super().__init__(dtype, element_shape)
        self.dynamic_size = validator.check_value_type("dynamic_size", dynamic_size, [bool], self.name)
        self.size = validator.check_int(size, 0, validator.GE, "size", self.name)
        validator.check_value_type("name", name, [str], self.name)
        self.attrs.update(dynamic_size=dynamic_size, size=size, name=name)
        self._made = None

    def __call__(self):
        if self._made is None:
            self._made = _next[0]
            _next[0] += 1
            _arrays[self._made] = _Array(self.dtype, self.element_shape, self.dynamic_size, self.size)
        return Tensor(self._made, mstype.int64)


class TensorArrayWrite(Primitive):
    r"""Writes `value` at `index` of the TensorArray `handle`: `(handle, index, value)`; `value` is a Tensor or a
    Python number (taken as a scalar of the array's dtype, as MindSpore's `write_op.write(handle, 0, 1)` example)."""

    def __call__(self, handle, index, value):
        if not isinstance(value, (Tensor, bool, int, float)):
            raise TypeError(f"For '{self.name}', the 'value' must be a Tensor or a Python number, but got "
                            f"{type(value).__name__}.")
        _run(lambda h, i, v: _array(self.name, h).write(self.name, _index(self.name, i), v),
             (handle, index, value), False)
        return Tensor(0, mstype.int64)


class TensorArrayRead(_Typed):
    r"""The element at `index` of the TensorArray `handle`: `(handle, index)`. Args: dtype, element_shape."""

    def __call__(self, handle, index):
        return _run(lambda h, i: Tensor(_array(self.name, h).read(self.name, _index(self.name, i)), self.dtype),
                    (handle, index), True)


class TensorArrayGather(_Typed):
    r"""The elements at `indices` of the TensorArray `handle`, stacked: `(handle, indices)`."""

    def __call__(self, handle, indices):

        def gather(h, idx):
            arr = _array(self.name, h)
            rows = [arr.read(self.name, int(i)) for i in np.ravel(idx.asnumpy() if isinstance(idx, Tensor) else idx)]
            return Tensor(np.stack(rows), self.dtype)
        return _run(gather, (handle, indices), True)


class TensorArrayStack(_Typed):
    r"""All elements of the TensorArray `handle` stacked along a new first dim. Args: dtype, element_shape,
    dynamic_size, size."""

    def __init__(self, dtype, element_shape, dynamic_size, size):
        super().__init__(dtype, element_shape)
        self.attrs.update(dynamic_size=dynamic_size, size=size)

    def __call__(self, handle):

        def stack(h):
            arr = _array(self.name, h)
            if not arr.values:
                raise RuntimeError(f"For '{self.name}', the TensorArray is empty.")
            return Tensor(np.stack(arr.values), self.dtype)
        return _run(stack, (handle,), True)


class TensorArraySize(Primitive):
    r"""The number of elements of the TensorArray `handle` (int64 scalar)."""

    def __call__(self, handle):
        return _run(lambda h: Tensor(len(_array(self.name, h).values), mstype.int64), (handle,), True)


class TensorArrayClear(Primitive):
    r"""Empties the TensorArray `handle` (it stays usable)."""

    def __call__(self, handle):
        _run(lambda h: _array(self.name, h).values.clear(), (handle,), False)
        return Tensor(0, mstype.int64)


class TensorArrayClose(Primitive):
    r"""Frees the TensorArray `handle`."""

    def __call__(self, handle):
        def close(h):
            _array(self.name, h)
            del _arrays[_index(self.name, h)]
        _run(close, (handle,), False)
        return Tensor(0, mstype.int64)
