"""mindspore.ops.operations.inner_ops: inner primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Randperm)

__all__ = [
    "Randperm"]
