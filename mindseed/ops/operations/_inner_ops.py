"""mindspore.ops.operations._inner_ops: inner primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Cast, Cummin)

__all__ = [
    "Cast", "Cummin"]
