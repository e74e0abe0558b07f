"""Kernels of indexing whose index tensors are run-time inputs (graph mode: an index computed in the graph).

`index` is the index with each tensor position replaced by a `Slot(k)`; the k-th index tensor is the k-th
positional input after the indexed tensor (and the value, for setitem).
"""
from mindseed._backend._kernels import core as K

__all__ = ["Slot", "fill_slots", "getitem_dyn", "index_add_grad_dyn", "setitem_dyn", "setitem_zero_dyn", "switch_index"]


class Slot:
    """Where the k-th run-time index tensor goes in an index template."""

    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k

    def __eq__(self, other):
        return isinstance(other, Slot) and other.k == self.k

    def __hash__(self):
        return hash(("Slot", self.k))

    def __repr__(self):
        return f"Slot({self.k})"


def fill_slots(index, idx):
    """The index template with its slots replaced by the index tensors `idx`."""
    if isinstance(index, Slot):
        return idx[index.k]
    if isinstance(index, tuple):
        return tuple(idx[i.k] if isinstance(i, Slot) else i for i in index)
    return index


def getitem_dyn(x, *idx, index):
    return K.getitem(x, fill_slots(index, idx))


def index_add_grad_dyn(dout, *idx, shape, index):
    return K.index_add_grad(dout, shape, fill_slots(index, idx))


def setitem_dyn(x, value, *idx, index):
    return K.setitem(x, value, fill_slots(index, idx))


def setitem_zero_dyn(x, *idx, index):
    return K.setitem_zero(x, fill_slots(index, idx))


def switch_index(index, *, n):
    """The 0-d int index of a sequence of `n` callables picked at run time (MindSpore's switch_layer), a negative one
    counted from the end; out of [-n, n) is MindSpore's IndexError."""
    value = int(index)
    if not -n <= value < n:
        raise IndexError(f"Given index {value} out of range. Please make sure the value of index in [{-n}, {n}), and "
                         f"the type is int32.")
    return index + n if value < 0 else K.identity(index)
