"""MindSpore's `ops._utils.arg_dtype_cast`: the sequence conversion primitives its operator definitions use."""
from mindseed.ops.operations._base import Primitive

__all__ = ["IsDimUnKnown", "TupleToList", "ListToTuple", "is_sequence_shape_unknown", "tuple_to_list",
           "list_to_tuple"]


class IsDimUnKnown(Primitive):
    """Whether a sequence shape has an unknown rank: shapes here are always known, so False."""

    def __init__(self):
        super().__init__("IsDimUnKnown")

    def __call__(self, data):
        return False


class TupleToList(Primitive):
    """Convert a tuple to a list with the same elements: `TupleToList()((1, 2))` is `[1, 2]`."""

    def __init__(self):
        super().__init__("TupleToList")

    def __call__(self, input):  # noqa: A002 -- MindSpore's name
        return list(input)


class ListToTuple(Primitive):
    """Convert a list to a tuple with the same elements: `ListToTuple()([1, 2])` is `(1, 2)`."""

    def __init__(self):
        super().__init__("ListToTuple")

    def __call__(self, input):  # noqa: A002 -- MindSpore's name
        return tuple(input)


is_sequence_shape_unknown = IsDimUnKnown()
tuple_to_list = TupleToList()
list_to_tuple = ListToTuple()
