"""mindspore.ops.operations.spectral_ops: window-function primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    BartlettWindow, BlackmanWindow)

__all__ = [
    "BartlettWindow", "BlackmanWindow"]
