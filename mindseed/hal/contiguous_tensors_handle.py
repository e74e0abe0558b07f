"""mindspore.hal.contiguous_tensors_handle: tensors moved into one contiguous block of memory, sliced by element
or by tensor.

`combine_tensor_list_contiguous([a, b, c])` copies the tensors one after another into a single buffer and makes
each of them a view of its part (so the handle and the tensors share memory). On the CPU there is no alignment
padding: each tensor takes exactly its bytes.
"""
from mindseed import _backend as B
from mindseed._backend.kernels import core as K
from mindseed.common.dtype import type_size_in_bytes
from mindseed.common.tensor import Tensor

__all__ = ["combine_tensor_list_contiguous", "ContiguousTensorsHandle"]


def combine_tensor_list_contiguous(tensor_list, enable_mem_align=True):
    """A ContiguousTensorsHandle of `tensor_list` (a list or tuple of Tensors of one dtype)."""
    return ContiguousTensorsHandle(tensor_list, enable_mem_align)


class ContiguousTensorsHandle:
    """The tensors of `tensor_list` in one contiguous buffer: `handle[i]`, `handle[start:end]` slice it by element
    (of the first tensor's dtype), `slice_by_tensor_index(start, end)` by tensor."""

    def __init__(self, tensor_list, enable_mem_align=True):
        if not isinstance(tensor_list, (list, tuple)) or not all(isinstance(t, Tensor) for t in tensor_list):
            raise TypeError("input list must be [Tensor, ...].")
        if not isinstance(enable_mem_align, bool):
            raise TypeError("enable_mem_align must be bool.")
        self.tensor_list = tuple(tensor_list)
        if not self.tensor_list:
            raise ValueError("For 'ContiguousTensorsHandle', 'tensor_list' must hold at least one Tensor.")
        dtype = self.tensor_list[0].dtype
        for t in self.tensor_list:
            if t.dtype != dtype:
                raise TypeError(f"For 'ContiguousTensorsHandle', every Tensor must have the dtype of the first, "
                                f"{dtype}, but got {t.dtype}.")
        self._flat = K.concat(*[K.reshape(K.contiguous(t._data), (-1,)) for t in self.tensor_list])
        self._offsets = [0]
        for t in self.tensor_list:      # each tensor becomes a view of its part of the buffer
            size = B.numel(t._data)
            t._data = K.reshape(K.getitem(self._flat, slice(self._offsets[-1], self._offsets[-1] + size)),
                                tuple(t.shape))
            self._offsets.append(self._offsets[-1] + size)
        item = type_size_in_bytes(dtype)
        self.before_padding_sizes = [(b - a) * item for a, b in zip(self._offsets, self._offsets[1:])]
        self.after_padding_sizes = list(self.before_padding_sizes)
        self.total_padding_size = sum(self.after_padding_sizes)
        self.handle_shape = self.total_padding_size / item
        self.enable_mem_align = enable_mem_align

    def _range(self, start, end):
        return Tensor._from_raw(K.getitem(self._flat, slice(start, end)))

    def __getitem__(self, item):
        if isinstance(item, slice):
            start = 0 if item.start is None else item.start
            end = int(self.handle_shape) if item.stop is None else item.stop
            if not isinstance(start, int) or not isinstance(end, int):
                raise TypeError("slice input error.")
            if start < 0 or end > self.handle_shape or start >= end:
                raise ValueError("slice input error.")
            return self._range(start, end)
        if not isinstance(item, int) or isinstance(item, bool):
            raise TypeError("slice input must be 1.index -> int.2.[start: end: step] -> [int: int: int].")
        if item < 0 or item >= self.handle_shape:
            raise ValueError("slice input is out of tensor_list size.")
        return self._range(item, item + 1)

    def __str__(self):
        lines = [f"Handle total size: {self.total_padding_size}"]
        lines += [f"Tensor[{i}]: {t.asnumpy()}" for i, t in enumerate(self.tensor_list)]
        return "\n".join(lines) + "\n"

    def slice_by_tensor_index(self, start=None, end=None):
        """Tensors start..end-1 (all by default; `start` alone: that one tensor), flattened one after another."""
        index_start = 0 if start is None else start
        index_end = end if end is not None else (index_start + 1 if start is not None else len(self.tensor_list))
        if not isinstance(index_start, int) or not isinstance(index_end, int):
            raise TypeError("slice input error.")
        if index_start < 0 or index_end > len(self.tensor_list) or index_start >= index_end:
            raise ValueError("slice input error.")
        return self._range(self._offsets[index_start], self._offsets[index_end])
