"""mindspore.ops.operations.linalg_ops: matrix decomposition primitives, by MindSpore's module layout (the same
classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Geqrf, Svd)

__all__ = [
    "Geqrf", "Svd"]
