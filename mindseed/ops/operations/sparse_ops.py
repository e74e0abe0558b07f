"""mindspore.ops.operations.sparse_ops: sparse-tensor primitives, by MindSpore's module layout. The
four older ones are also in `mindspore.ops.operations`; the rest, as in MindSpore, only here."""
from mindseed.ops.operations import (  # noqa: F401
    SparseSlice, SparseTensorDenseAdd, SparseTensorDenseMatmul, SparseToDense)
from mindseed.ops.operations._sparse_coo import *  # noqa: F401,F403
from mindseed.ops.operations._sparse_coo import __all__ as _coo
from mindseed.ops.operations._sparse_csr import *  # noqa: F401,F403
from mindseed.ops.operations._sparse_csr import __all__ as _csr

__all__ = ["SparseSlice", "SparseTensorDenseAdd", "SparseTensorDenseMatmul", "SparseToDense"] + _coo + _csr

# more names MindSpore's module holds (its imports and classes), the same objects as in ops.operations
from mindseed.ops.operations._base import Primitive  # noqa: E402,F401
