"""Dynamic-length sequences: `mutable(seq, dynamic_len=True)`.

MindSpore's graph keeps such a sequence's length as a run-time value, so every element must have the same type
(ints, floats, tensors of one dtype, tuples), and what the sequence gives is a variable: slices, concatenations
and `range` with a variable bound are dynamic-length sequences, an item, `len`, `count` and `index` are variable
scalars (`F.isconstant` is False, `F.is_sequence_shape_unknown` is True). Here the tracer knows the values; these
classes carry the marks and MindSpore's type checks (SequenceAdd, ListAppend, list_setitem), inside a trace only:
outside one they are Python's tuple and list.
"""
from mindseed._utils import _state
from mindseed.common import dtype as mstype
from mindseed.common._mutable import _List, _Mutable, _Tuple, variable
from mindseed.common.tensor import Tensor

__all__ = ["dynamic_sequence", "DynamicSequence", "abstract_of", "is_variable", "list_setitem", "same_element"]


def abstract_of(v):
    """MindSpore's abstract of a value, as its messages print it."""
    if isinstance(v, Tensor):
        return f"AbstractTensor(shape: {tuple(v.shape)}, element: AbstractScalar(Type: {v.dtype}))"
    if isinstance(v, bool):
        return f"AbstractScalar(Type: Bool, Value: {v})"
    if isinstance(v, int):
        return f"AbstractScalar(Type: Int64, Value: {v})"
    if isinstance(v, float):
        return f"AbstractScalar(Type: Float32, Value: {int(v) if v.is_integer() else v})"
    if isinstance(v, str):
        return f"AbstractScalar(Type: String, Value: {v})"
    if isinstance(v, (tuple, list)):
        kind = "AbstractTuple" if isinstance(v, tuple) else "AbstractList"
        return f"{kind}{{element: [{', '.join(abstract_of(e) for e in v)}]}}"
    return f"AbstractScalar(Type: {type(v).__name__})"


def _kind(v):
    for cls in (Tensor, bool, int, float, str, tuple, list):
        if isinstance(v, cls):
            return cls.__name__
    return type(v).__name__


def _element_type(v):
    """What must agree between the elements of a dynamic-length sequence: the kind, a tensor's dtype and shape,
    a sequence's element types."""
    if isinstance(v, Tensor):
        return ("Tensor", v.dtype, tuple(v.shape))
    if isinstance(v, (tuple, list)):
        return (_kind(v), tuple(_element_type(e) for e in v))
    return _kind(v)


def same_element(a, b):
    return _element_type(a) == _element_type(b)


def dynamic_sequence(seq):
    """`mutable(seq, dynamic_len=True)`."""
    if not isinstance(seq, (tuple, list)):
        shown = abstract_of(seq) if isinstance(seq, Tensor) else f"{type(seq).__name__} {seq!r}"
        raise TypeError(f"For 'mutable', when the variable_len is True, the first input should be list or tuple, "
                        f"but got: {shown}")
    for i, v in enumerate(seq[1:], 1):
        if _kind(v) != _kind(seq[0]):
            raise ValueError(f"In graph mode, the element type of dynamic length array must be the same.The element "
                             f"type do not match, can not convert to dynamic length sequence. The 0th element type "
                             f"is: {_kind(seq[0])}. The {i}th element type is: {_kind(v)}")
        if isinstance(v, Tensor) and v.dtype != seq[0].dtype:
            raise TypeError(f"In graph mode, the element shape of dynamic length array must be the same.The element "
                            f"do not match, can not convert to dynamic length sequence. The 0th element is: "
                            f"{abstract_of(seq[0])}. The {i}th element is: {abstract_of(v)}")
    return (_DynTuple if isinstance(seq, tuple) else _DynList)(seq)


def is_variable(x):
    """Whether a value is a variable of the graph being traced: a traced tensor or a mutable value."""
    b = _state.tracing
    if b is None:
        return False
    return isinstance(x, _Mutable) or isinstance(x, Tensor) and b.is_traced(x)


def _tracing():
    return _state.tracing is not None


def _check_add(a, b):
    if a and b and not same_element(a[0], b[0]):
        raise TypeError(f"For primitive SequenceAdd, the element of first input abstract '{abstract_of(a[0])}' is not "
                        f"same with the element of second input abstract '{abstract_of(b[0])}'.")


def _item(v):
    return variable(v) if isinstance(v, (bool, int, float)) else v


class DynamicSequence:
    """The operations of a dynamic-length sequence in a trace (mixed into `_DynTuple` and `_DynList`)."""
    __slots__ = ()
    _dynamic_len = True
    _plain = tuple

    def _like(self, items):
        return type(self)(items) if _tracing() else self._plain(items)

    def __add__(self, other):
        if not isinstance(other, (tuple, list)) or not _tracing():
            return self._plain.__add__(self, other)
        _check_add(self, other)
        return self._like(self._plain.__add__(self, self._plain(other)))

    def __radd__(self, other):
        if not isinstance(other, (tuple, list)) or not _tracing():
            return NotImplemented
        _check_add(other, self)
        return self._like(self._plain(other) + self._plain(self))

    def __mul__(self, times):
        # repeated, the sequence keeps its unknown length (MindSpore's SequenceMul of a dynamic-length sequence)
        out = self._plain.__mul__(self, _index(times))
        return self._like(out) if isinstance(out, self._plain) else out

    __rmul__ = __mul__

    def __getitem__(self, index):
        if isinstance(index, slice):
            index = slice(*(_index(v) for v in (index.start, index.stop, index.step)))
            return self._like(self._plain.__getitem__(self, index))
        out = self._plain.__getitem__(self, _index(index))
        return _item(out) if _tracing() else out

    def count(self, value):
        return variable(self._plain.count(self, value))

    def index(self, value, *bounds):
        return variable(self._plain.index(self, value, *bounds))


def _index(v):
    """A bound or index given as a tensor (`a[Tensor([0]):Tensor([2])]`) as the int it holds."""
    if isinstance(v, Tensor):
        if v.size != 1 or not mstype.is_integral(v.dtype):
            raise TypeError(f"For 'SequenceSlice', the index must be an int scalar, but got {abstract_of(v)}.")
        return int(v.item())
    return v


class _DynTuple(DynamicSequence, _Tuple):
    __slots__ = ()
    _plain = tuple


class _DynList(DynamicSequence, _List):
    __slots__ = ()
    _plain = list

    def __setitem__(self, index, value):
        if _tracing() and self and not isinstance(index, slice) and \
                not same_element(list.__getitem__(self, 0), value):
            raise TypeError(f"For list_setitem, when the queue is dynamic length, the element within dynamic length "
                            f"sequence abstract '{abstract_of(list.__getitem__(self, 0))}' is not same with the target "
                            f"element abstract '{abstract_of(value)}'.")
        list.__setitem__(self, _index(index), value)

    def append(self, value):
        if _tracing() and self:
            first = list.__getitem__(self, 0)
            if isinstance(value, (tuple, list)):
                raise TypeError(f"The prim 'ListAppend', the input_data must be list and target must be scalar or "
                                f"tensor, but got {abstract_of(value)}.")
            if not same_element(first, value):
                raise TypeError(f"For ListAppend, the mutable list existing item abstract '{abstract_of(first)}' is "
                                f"not same with the new added item abstract '{abstract_of(value)}'")
        list.append(self, value)

    def __iadd__(self, other):
        if _tracing() and isinstance(other, (tuple, list)):
            _check_add(self, other)
        list.extend(self, other)
        return self


def list_setitem(seq, index, value):
    """`seq[index] = value` on a list in a trace, with MindSpore's rules for variables: an item set at a variable
    index makes every item a variable (the items must share one type, the value's too); a slice with a variable
    bound, or a dynamic-length list or value, makes a dynamic-length list (of one element type)."""
    if isinstance(index, slice):
        bounds = (index.start, index.stop, index.step)
        variable_bound = any(is_variable(b) for b in bounds)
        if not (variable_bound or isinstance(seq, DynamicSequence) or isinstance(value, DynamicSequence)):
            seq[index] = value
            return seq
        if variable_bound and seq and value and not isinstance(seq, DynamicSequence) and \
                not same_element(seq[0], value[0]):
            raise TypeError(f"For SequenceSliceSetItem, the element within origin sequence abstract "
                            f"'{abstract_of(seq[0])}' is not same with the element within target sequence abstract "
                            f"'{abstract_of(value[0])}'.")
        out = list(seq)
        out[slice(*(_index(b) for b in bounds))] = value
        return dynamic_sequence(out)
    if isinstance(seq, DynamicSequence) or not is_variable(index):
        seq[index] = value
        return seq
    for i, v in enumerate(seq[1:], 1):
        if not same_element(seq[0], v):
            raise TypeError(f"For list_setitem, when the index is variable and the queue is constant length, the "
                            f"sequence[0] item abstract '{abstract_of(seq[0])}' is not same with the sequence[{i}] "
                            f"item abstract '{abstract_of(v)}'.")
    if seq and not same_element(seq[0], value):
        raise TypeError(f"For list_setitem, when the index is variable and the queue is constant length, the element "
                        f"within constant length sequence abstract '{abstract_of(seq[0])}' is not same with the "
                        f"target element abstract '{abstract_of(value)}'.")
    seq[_index(index)] = value
    seq[:] = [_item(v) for v in seq]
    return seq
