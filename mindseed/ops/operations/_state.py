"""Class API of the state ops: Assign, AssignAdd, AssignSub (Parameter updates), Depend, Print."""
from mindseed.ops.functional import _misc as F
from mindseed.ops.operations._base import Primitive

__all__ = ["Assign", "AssignAdd", "AssignSub", "Depend", "Print"]


class Assign(Primitive):
    """variable <- value; returns the variable (a Parameter update, repeated at every call of a graph).

    >>> import mindseed as ms
    >>> p = ms.Parameter(ms.Tensor([1.0]), name="p")
    >>> float(ms.ops.Assign()(p, ms.Tensor([2.0]))[0])
    2.0
    """

    def __init__(self):
        super().__init__("Assign")

    def __call__(self, variable, value):
        return F.assign(variable, value)


class AssignAdd(Primitive):
    """variable <- variable + value; returns the variable."""

    def __init__(self):
        super().__init__("AssignAdd")

    def __call__(self, variable, value):
        return F.assign_add(variable, value)


class AssignSub(Primitive):
    """variable <- variable - value; returns the variable."""

    def __init__(self):
        super().__init__("AssignSub")

    def __call__(self, variable, value):
        return F.assign_sub(variable, value)


class Depend(Primitive):
    """`value`, ordered after `expr` (graphs keep side effects in program order already)."""

    def __init__(self):
        super().__init__("Depend")

    def __call__(self, value, expr):
        return F.depend(value, expr)


class Print(Primitive):
    """Print strings and Tensors (with shape and dtype), one per line; in a graph at every call."""

    def __init__(self):
        super().__init__("Print")

    def __call__(self, *input_x):
        return F.print_(*input_x)
