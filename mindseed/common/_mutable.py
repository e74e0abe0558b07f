"""`ms.mutable`: arguments marked as run-time values, which do not key the compile cache.

A mutable tuple/list/dict of tensors is keyed by its structure only; a mutable bool, int or float becomes a
scalar input of the graph (`_ScalarLeaf`), so calls with other values reuse the compiled graph.

Inside a traced function a mutable value stays a *variable* of MindSpore's graph: arithmetic on mutable scalars
gives mutable scalars, and a dynamic-length sequence (`mutable(seq, True)`, `_DynTuple` / `_DynList`) keeps its
elements of one type and gives dynamic-length sequences and variable scalars from its operations (see
_dynamic_seq.py). Outside a trace they compute as Python's own values.
"""
from mindseed._utils import _state
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
    if dynamic_len:
        from mindseed.common._dynamic_seq import dynamic_sequence  # noqa: PLC0415 -- it builds on this module
        return dynamic_sequence(input_data)
    if _is_dynamic(input_data):
        raise RuntimeError("For 'mutable', can not convert a dynamic length sequence to constant length.")
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
    raise TypeError(f"For 'mutable', the 'input_data' should be one of (bool, int, float, Tensor, tuple, list, dict) "
                    f"or their nested structures with no self-reference, but got {type(input_data).__name__}: "
                    f"{input_data}.")


def _repeated(seq, times):
    """A mutable sequence repeated in a trace stays variable (MindSpore's SequenceMul of a variable sequence)."""
    out = type(seq).__mro__[1].__mul__(seq, times)
    return type(seq)(out) if _state.tracing is not None and isinstance(out, (tuple, list)) else out


class _Tuple(tuple, _Mutable):
    __mul__ = __rmul__ = _repeated


class _List(list, _Mutable):
    __mul__ = __rmul__ = _repeated


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


_MUTABLE_SCALARS = (_Int, _Float, _Bool)


def variable(value):
    """Inside a trace, a Python scalar computed from variables: a variable itself (mutable); else `value`."""
    if _state.tracing is None:
        return value
    if isinstance(value, bool):
        return _Bool(value)
    if isinstance(value, int):
        return value if isinstance(value, _Mutable) else _Int(value)
    if isinstance(value, float):
        return value if isinstance(value, _Mutable) else _Float(value)
    return value


def _is_dynamic(x):
    return getattr(x, "_dynamic_len", False)


def _tainting(base, name):
    """The arithmetic method `name` of a mutable scalar: Python's (a bool's operands as bools), the result a
    variable inside a trace."""
    op = getattr(base, name)

    def method(self, *args):
        out = op(bool(self) if base is bool else self, *args)
        return out if out is NotImplemented else variable(out)
    method.__name__ = name
    return method


_LOGICAL = ("__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__")
_ARITHMETIC = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
               "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__neg__", "__pos__",
               "__abs__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__", "__invert__") + _LOGICAL
for _cls, _base in ((_Int, int), (_Float, float), (_Bool, int)):
    for _name in _ARITHMETIC:
        if hasattr(_base, _name):
            setattr(_cls, _name, _tainting(bool if _cls is _Bool and _name in _LOGICAL else _base, _name))


_PLAIN = {_Tuple: tuple, _List: list}


class _ScalarLeaf(Tensor):
    """The graph input standing for a mutable scalar argument (marked a Python scalar of the graph)."""
    __slots__ = ()

    def __init__(self, value):
        super().__init__(bool(value) if isinstance(value, bool) else value,
                         mstype.bool_ if isinstance(value, bool) else mstype.float32 if isinstance(value, float)
                         else mstype.int64)
