"""mindspore.ops.operations.debug_ops: Print, summaries, gradient hooks and Assert, by MindSpore's module layout
(the same classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Assert, HistogramSummary, HookBackward, ImageSummary, InsertGradientOf, Print, ScalarSummary, TensorDump,
    TensorSummary)

__all__ = [
    "Assert", "HistogramSummary", "HookBackward", "ImageSummary", "InsertGradientOf", "Print", "ScalarSummary",
    "TensorDump", "TensorSummary"]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import Primitive, PrimitiveWithInfer  # noqa: E402,F401
from mindseed.common.parameter import Parameter  # noqa: E402,F401
from mindseed.common.tensor import Tensor  # noqa: E402,F401
