"""mindspore.ops.function.sparse_func: COOTensor / CSRTensor / RowTensor construction, conversion and arithmetic
(the same objects as `mindspore.ops`)."""
from mindseed.ops.functional import _sparse
from mindseed.ops.functional._sparse import *  # noqa: F401,F403

__all__ = [n for n in _sparse.__all__ if n not in _sparse._GENERATED]
