"""Tensors of strings: MindSpore's dtype String.

`Tensor(np.array(['a', 'bc']))` holds the numpy array of str (or bytes) itself: no kernel computes on strings, so a
string tensor is printed, measured (shape, size, itemsize), converted back with `asnumpy()` and handed through a
dataset pipeline or to a Parameter, as in MindSpore; an operator given one raises TypeError.
"""
import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor

__all__ = ["StringTensor", "is_string_array"]


def is_string_array(data):
    """Whether `data` is a numpy array (or scalar) of str or bytes."""
    return isinstance(data, (np.ndarray, np.str_, np.bytes_)) and np.asarray(data).dtype.kind in "US"


class StringTensor(Tensor):
    """A Tensor of dtype String (made by `Tensor(...)` from a numpy array of str or bytes)."""

    __slots__ = ()

    @property
    def _data(self):
        # what kernels take: none computes on strings
        raise TypeError("For 'Tensor', a Tensor of dtype String holds no numbers: operators do not take it.")

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, internal=False, const_arg=False,
                 device=None):
        data = input_data.asnumpy() if isinstance(input_data, StringTensor) else input_data
        # MindSpore keeps a string array's own dtype, whatever `dtype` asks
        self._strings = np.array(data, copy=True)

    # NOTE: the numpy array (`_strings`) is the storage: its shape, sizes and bytes are the tensor's
    @property
    def shape(self):
        return self._strings.shape

    @property
    def dtype(self):
        return mstype.string

    @property
    def ndim(self):
        return self._strings.ndim

    @property
    def size(self):
        return self._strings.size

    @property
    def itemsize(self):
        return self._strings.itemsize

    @property
    def nbytes(self):
        return self._strings.nbytes

    @property
    def strides(self):
        return self._strings.strides

    def dim(self):
        return self._strings.ndim

    def numel(self):
        return self._strings.size

    def nelement(self):
        return self._strings.size

    def is_contiguous(self):
        return True

    def contiguous(self):
        return self

    def asnumpy(self):
        return self._strings.copy()

    def numpy(self):
        return self._strings.copy()

    def tolist(self):
        return self._strings.tolist()

    def item(self, index=None):
        if index is None and self._strings.size != 1:
            raise ValueError(f"For 'Tensor.item', the tensor must have exactly one element, but got shape "
                             f"{self.shape}.")
        return self._strings.item() if index is None else self._strings[index].item()

    def __array__(self, dtype=None, copy=None):
        return self._strings.copy() if dtype is None else self._strings.astype(dtype)

    def __len__(self):
        if self._strings.ndim == 0:
            raise TypeError("Not support len of a 0-D tensor.")
        return len(self._strings)

    def __copy__(self):
        return StringTensor(self._strings)

    def __deepcopy__(self, memo):
        t = StringTensor(self._strings)
        memo[id(self)] = t
        return t

    def __reduce__(self):
        return (StringTensor, (self._strings,))

    def __repr__(self):
        a = self._strings
        if a.ndim == 0:
            return f"Tensor(shape=[], dtype=String, value= {a.item()!r})"
        text = np.array2string(a, separator=", ", threshold=1000)
        return f"Tensor(shape={list(a.shape)}, dtype=String, value={chr(10) if a.ndim > 1 else ' '}{text})"

    def __str__(self):
        a = self._strings
        return str(a.item()) if a.ndim == 0 else str(a)

    def __format__(self, spec):
        return format(str(self), spec)
