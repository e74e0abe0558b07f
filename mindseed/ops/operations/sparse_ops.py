"""mindspore.ops.operations.sparse_ops: sparse-tensor primitives, by MindSpore's module layout (the same classes as
`mindspore.ops.operations`)."""
from mindseed.ops.operations import (  # noqa: F401
    SparseSlice, SparseTensorDenseAdd, SparseTensorDenseMatmul, SparseToDense)
from mindseed.ops.operations._sparse_coo import *  # noqa: F401,F403
from mindseed.ops.operations._sparse_coo import __all__ as _coo
from mindseed.ops.operations._sparse_csr import *  # noqa: F401,F403
from mindseed.ops.operations._sparse_csr import __all__ as _csr

__all__ = ["SparseSlice", "SparseTensorDenseAdd", "SparseTensorDenseMatmul", "SparseToDense"] + [
    n for n in _coo + _csr if n != "SparseSegmentMean"]
