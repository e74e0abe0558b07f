"""mindspore.ops.operations._sequence_ops: sequence (tuple/list) primitives, by MindSpore's module layout (the same
classes as `mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    ListToTensor, TensorToList, TensorToScalar, TensorToTuple, TupleToTensor)

__all__ = [
    "ListToTensor", "TensorToList", "TensorToScalar", "TensorToTuple", "TupleToTensor"]
