"""mindspore.mint.special: special functions with torch-style signatures."""
from mindseed import ops as _ops
from mindseed.mint._compile import compile_table as _compile_table, reexport as _reexport
from mindseed.mint.nn import functional as _F

_FUNCTIONS = _reexport(_ops, "erfc exp2 expm1 log1p sinc")
_FUNCTIONS.update(_compile_table("""
log_softmax(input, dim=None, *, dtype=None) -> _F.log_softmax(input, dim, dtype=dtype)  # log(softmax(input)) along
    `dim`.
round(input) -> _ops.round(input)  # Rounded to the nearest integer (half to even).
""", {"_ops": _ops, "_F": _F}, __name__))
globals().update(_FUNCTIONS)
__all__ = sorted(_FUNCTIONS)
