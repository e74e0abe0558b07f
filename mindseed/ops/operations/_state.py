"""Class API of the state ops: Assign, AssignAdd, AssignSub (Parameter updates), Depend, Print."""
from mindseed.ops.functional import _misc as F
from mindseed.ops.operations._core import _simple

__all__ = ["Assign", "AssignAdd", "AssignSub", "Depend", "Print"]

Assign = _simple("Assign", F.assign, """variable <- value; returns the variable (a Parameter update, repeated at every
    call of a graph).

    >>> import mindseed as ms
    >>> p = ms.Parameter(ms.Tensor([1.0]), name="p")
    >>> float(ms.ops.Assign()(p, ms.Tensor([2.0]))[0])
    2.0
    """)
AssignAdd = _simple("AssignAdd", F.assign_add, "variable <- variable + value; returns the variable.")
AssignSub = _simple("AssignSub", F.assign_sub, "variable <- variable - value; returns the variable.")
Depend = _simple("Depend", F.depend, "`value`, ordered after `expr` (graphs keep side effects in program order).")
Print = _simple("Print", F.print_, "Print strings and Tensors (with shape and dtype), one per line; in a graph at "
                                   "every call.")
