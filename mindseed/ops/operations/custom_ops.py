"""mindspore.ops.operations.custom_ops: Custom, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Custom)

__all__ = [
    "Custom"]
