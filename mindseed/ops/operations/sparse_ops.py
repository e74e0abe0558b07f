"""mindspore.ops.operations.sparse_ops: sparse-tensor primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    SparseSlice, SparseTensorDenseAdd, SparseTensorDenseMatmul, SparseToDense)

__all__ = [
    "SparseSlice", "SparseTensorDenseAdd", "SparseTensorDenseMatmul", "SparseToDense"]
