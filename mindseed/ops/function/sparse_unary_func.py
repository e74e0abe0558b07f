"""mindspore.ops.function.sparse_unary_func: the elementwise functions of COOTensor / CSRTensor values
(`coo_sin`, `csr_exp`, ...; the same objects as `mindspore.ops`)."""
from mindseed.ops.functional import _sparse

globals().update(_sparse._GENERATED)
__all__ = sorted(_sparse._GENERATED)
