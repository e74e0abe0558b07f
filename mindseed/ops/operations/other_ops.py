"""mindspore.ops.operations.other_ops: Assign, Depend and StopGradient, by MindSpore's module layout (the same
classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Assign, BoundingBoxDecode, BoundingBoxEncode, CheckValid, ConfusionMatrix, Depend, IOU, MoveTo, Partial, PyFunc,
    StopGradient)

__all__ = [
    "Assign", "BoundingBoxDecode", "BoundingBoxEncode", "CheckValid", "ConfusionMatrix", "Depend", "IOU", "MoveTo",
    "Partial", "PyFunc", "StopGradient"]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import Primitive, PrimitiveWithCheck, PrimitiveWithInfer  # noqa: E402,F401
from mindseed.ops.operations import (  # noqa: E402,F401
    Identity, Load, PyExecute, Reusing, SampleDistortedBoundingBoxV2, UpdateState)
__all__ += ["Load", "PyExecute", "Reusing", "SampleDistortedBoundingBoxV2", "UpdateState"]
