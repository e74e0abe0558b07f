"""mindspore.ops.operations.spectral_ops: window-function primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    BartlettWindow, BlackmanWindow)

__all__ = [
    "BartlettWindow", "BlackmanWindow"]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import Primitive  # noqa: E402,F401
