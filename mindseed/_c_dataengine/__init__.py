"""The dataset engine's tensor types as MindSpore's `mindspore._c_dataengine` shows them to Python: `DataType`,
`TensorShape` and `Tensor` (a numpy array, shared when contiguous)."""
import numpy as np

_NAMES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32",
          "float64", "string", "bytes", "python")


class DataType:
    """An element type by name ("int64", "float32", "string", ...); a name it does not know is "unknown"."""

    def __init__(self, name):
        name = str(name)
        self._name = name if name in _NAMES else "unknown"

    @classmethod
    def _of(cls, dtype):
        kind = dtype.kind
        return cls("string" if kind == "U" else "bytes" if kind == "S" else "python" if kind == "O" else dtype.name)

    def is_python(self):
        return self._name == "python"

    def __eq__(self, other):
        return isinstance(other, DataType) and other._name == self._name

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._name)

    def __str__(self):
        return self._name


class TensorShape:
    """A shape; -1 marks an unknown dimension."""

    def __init__(self, dims):
        self._dims = [int(d) for d in dims]

    def as_list(self):
        return list(self._dims)

    def is_known(self):
        return all(d >= 0 for d in self._dims)

    def __str__(self):
        return "<" + ",".join(str(d) for d in self._dims) + ">"


class Tensor:
    """A dataset tensor around a numpy array: the array itself when C-contiguous, else a contiguous copy;
    `np.array(t, copy=False)` and `as_array()` give that buffer."""

    def __init__(self, array):
        self._array = np.ascontiguousarray(array)

    def as_array(self):
        return self._array

    def shape(self):
        return TensorShape(self._array.shape)

    def type(self):
        return DataType._of(self._array.dtype)

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and np.dtype(dtype) != self._array.dtype:
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            return self._array.astype(dtype)
        return self._array.copy() if copy else self._array

    def __str__(self):
        return f"Tensor (shape: {self.shape()}, Type: {self.type()})\n{self._array}"
