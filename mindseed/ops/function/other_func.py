"""mindspore.ops.function.other_func (with parameter_func's names): depend, partial, Parameter assignment and
print_ (same objects as `mindspore.ops`)."""
from mindseed.ops.functional._core import stop_gradient  # noqa: F401
from mindseed.ops.functional._misc import assign, assign_add, assign_sub, depend, partial, print_  # noqa: F401

__all__ = ["assign", "assign_add", "assign_sub", "depend", "partial", "print_", "stop_gradient"]
