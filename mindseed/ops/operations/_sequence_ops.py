"""mindspore.ops.operations._sequence_ops: sequence (tuple/list) primitives, by MindSpore's module layout (the same
classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    ListToTensor, TensorToList, TensorToScalar, TensorToTuple, TupleToTensor)

__all__ = [
    "ListToTensor", "TensorToList", "TensorToScalar", "TensorToTuple", "TupleToTensor"]

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import Primitive, PrimitiveWithCheck  # noqa: E402,F401
from mindseed.common.tensor import Tensor  # noqa: E402,F401
