"""mindspore.mint.linalg: norms, inverse and QR with torch-style signatures."""
from mindseed import ops as _ops
from mindseed.mint._compile import compile_table as _compile_table, reexport as _reexport

_FUNCTIONS = _reexport(_ops, "norm")
_FUNCTIONS.update(_compile_table("""
inv(input) -> _ops.inverse(input)  # Inverse of square matrices.
matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None) -> _ops.matrix_norm(A, ord, dim, keepdim,
    dtype=dtype)  # Matrix norm over the two dimensions `dim`.
vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None) -> _ops.vector_norm(x, ord, dim, keepdim,
    dtype=dtype)  # Vector norm over `dim` (all elements when None).
qr(A, mode='reduced') -> _ops.qr(A, mode)  # QR decomposition (Q, R).
""", {"_ops": _ops}, __name__))
globals().update(_FUNCTIONS)
__all__ = sorted(_FUNCTIONS)
