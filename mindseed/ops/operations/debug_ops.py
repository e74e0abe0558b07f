"""mindspore.ops.operations.debug_ops: Print, summaries, gradient hooks and Assert, by MindSpore's module layout
(the same classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    Assert, HistogramSummary, HookBackward, ImageSummary, InsertGradientOf, Print, ScalarSummary, TensorDump,
    TensorSummary)

__all__ = [
    "Assert", "HistogramSummary", "HookBackward", "ImageSummary", "InsertGradientOf", "Print", "ScalarSummary",
    "TensorDump", "TensorSummary"]
