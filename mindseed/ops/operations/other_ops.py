"""mindspore.ops.operations.other_ops: Assign, Depend and StopGradient, by MindSpore's module layout (the same
classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Assign, BoundingBoxDecode, BoundingBoxEncode, CheckValid, ConfusionMatrix, Depend, IOU, MoveTo, Partial, PyFunc,
    StopGradient)

__all__ = [
    "Assign", "BoundingBoxDecode", "BoundingBoxEncode", "CheckValid", "ConfusionMatrix", "Depend", "IOU", "MoveTo",
    "Partial", "PyFunc", "StopGradient"]
