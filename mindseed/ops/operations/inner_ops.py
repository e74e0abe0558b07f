"""mindspore.ops.operations.inner_ops: inner primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    FusedAdaFactor, FusedAdaFactorWithGlobalNorm, FusedCastAdamWeightDecay, FusedWeightScaleApplyMomentum,
    NoRepeatNGram, Randperm)

__all__ = [
    "FusedAdaFactor", "FusedAdaFactorWithGlobalNorm", "FusedCastAdamWeightDecay", "FusedWeightScaleApplyMomentum",
    "NoRepeatNGram", "Randperm"]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import Primitive, PrimitiveWithInfer  # noqa: E402,F401
