"""mindspore.ops.operations.debug_ops: Print, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Print)

__all__ = [
    "Print"]
