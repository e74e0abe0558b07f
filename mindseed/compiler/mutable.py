"""`ms.mutable`: arguments marked as run-time values, which do not key the compile cache.

A mutable tuple/list/dict of tensors is keyed by its structure only; a mutable int or float becomes a
scalar input of the graph (`_ScalarLeaf`), so calls with other values reuse the compiled graph.
"""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor

__all__ = ["mutable"]


class _Mutable:
    """Marks a non-tensor argument as a run-time value (not part of the compile-cache key)."""
    __slots__ = ()


def mutable(input_data, dynamic_len=False):
    """Mark `input_data` (a Tensor, an int or float, or a tuple/list/dict of Tensors) as variable: it does not key
    the compile cache. A mutable int or float is a scalar input of the graph (int64 / float32; results computed
    from it come back as Python numbers), so calls with other values reuse the compiled graph."""
    if isinstance(input_data, Tensor):
        return input_data
    if isinstance(input_data, (tuple, list, dict)):
        cls = {tuple: _MutableTuple, list: _MutableList, dict: _MutableDict}[type(input_data)]
        return cls(input_data)
    if isinstance(input_data, int) and not isinstance(input_data, bool):
        return _MutableInt(input_data)
    if isinstance(input_data, float):
        return _MutableFloat(input_data)
    raise TypeError(f"For 'mutable', the 'input_data' must be a Tensor, an int or float scalar, or a tuple, list or "
                    f"dict of Tensors, but got {type(input_data).__name__}.")


class _MutableTuple(tuple, _Mutable):
    pass


class _MutableList(list, _Mutable):
    pass


class _MutableDict(dict, _Mutable):
    pass


class _MutableInt(int, _Mutable):
    __slots__ = ()


class _MutableFloat(float, _Mutable):
    __slots__ = ()


_PLAIN = {_MutableTuple: tuple, _MutableList: list}


class _ScalarLeaf(Tensor):
    """The graph input standing for a mutable scalar argument (marked a Python scalar of the graph)."""
    __slots__ = ()

    def __init__(self, value):
        super().__init__(value, mstype.float32 if isinstance(value, float) else mstype.int64)
