"""`ms.mutable`: arguments marked as run-time values, which do not key the compile cache.

A mutable tuple/list/dict of tensors is keyed by its structure only; a mutable bool, int or float becomes a
scalar input of the graph (`_ScalarLeaf`), so calls with other values reuse the compiled graph.
"""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor

__all__ = ["mutable"]


class _Mutable:
    """Marks a non-tensor argument as a run-time value (not part of the compile-cache key). The concrete classes
    carry MindSpore's names: type(mutable(2)).__name__ is '_Int'."""
    __slots__ = ()


def mutable(input_data, dynamic_len=False):
    """Mark `input_data` (a Tensor, an int or float, or a tuple/list/dict of Tensors) as variable: it does not key
    the compile cache. A mutable int or float is a scalar input of the graph (int64 / float32; results computed
    from it come back as Python numbers), so calls with other values reuse the compiled graph."""
    if isinstance(input_data, Tensor):
        return input_data
    if isinstance(input_data, (tuple, list, dict)):
        # by isinstance: a sequence marked already (mutable(mutable(x), True)) is marked again
        cls = _Tuple if isinstance(input_data, tuple) else _List if isinstance(input_data, list) \
            else _Dict
        return cls(input_data)
    if isinstance(input_data, bool):
        return _Bool(input_data)
    if isinstance(input_data, int):
        return _Int(input_data)
    if isinstance(input_data, float):
        return _Float(input_data)
    raise TypeError(f"For 'mutable', the 'input_data' must be a Tensor, a bool, int or float scalar, or a tuple, list "
                    f"or dict of Tensors, but got {type(input_data).__name__}.")


class _Tuple(tuple, _Mutable):
    pass


class _List(list, _Mutable):
    pass


class _Dict(dict, _Mutable):
    pass


class _Int(int, _Mutable):
    __slots__ = ()


class _Float(float, _Mutable):
    __slots__ = ()


class _Bool(int, _Mutable):
    """A mutable bool: Python's bool cannot be subclassed, so an int that reports bool as its class (isinstance,
    type checks of user code) and prints and combines as a bool."""
    __slots__ = ()

    @property
    def __class__(self):
        return bool

    def __repr__(self):
        return repr(bool(self))

    __str__ = __repr__

    def __and__(self, other):
        return bool(self) & other

    def __or__(self, other):
        return bool(self) | other

    def __xor__(self, other):
        return bool(self) ^ other

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__


_MUTABLE_SCALARS = (_Int, _Float, _Bool)


_PLAIN = {_Tuple: tuple, _List: list}


class _ScalarLeaf(Tensor):
    """The graph input standing for a mutable scalar argument (marked a Python scalar of the graph)."""
    __slots__ = ()

    def __init__(self, value):
        super().__init__(bool(value) if isinstance(value, bool) else value,
                         mstype.bool_ if isinstance(value, bool) else mstype.float32 if isinstance(value, float)
                         else mstype.int64)
