"""mindspore.ops.function.math_func: elementwise, comparison, reduction and matrix-product ops (same objects as
`mindspore.ops`). `F` is `mindspore.ops.functional`, as in MindSpore's module."""
from mindseed._utils import _lazy
from mindseed.ops import functional as F  # noqa: F401
from mindseed.ops.function._rows import generated
from mindseed.ops.functional import _math
from mindseed.ops.functional._core import (add, div, divide, eq, equal, exp, ge, greater, greater_equal,  # noqa: F401
                                           gt, le, less, less_equal, log, lt, matmul, maximum, minimum, mul,
                                           multiply, ne, neg, negative, not_equal, pow, sign, sub, subtract, sum,
                                           true_divide)
from mindseed.ops.functional._linalg import (addbmm, addmm, addmv, addr, baddbmm, batch_dot, bmm,  # noqa: F401
                                             cholesky, cholesky_inverse, cholesky_solve, cov, cross, det, dist,
                                             dot, einsum, ger, inner, inverse, kron, logdet, lu_solve, lu_unpack,
                                             matrix_determinant, matrix_exp, matrix_power, mm, mv, norm, orgqr,
                                             outer, renorm, slogdet, tensor_dot, vander, vecdot)

# the math family's names that `ops` takes from it (a name another family also defines is that family's there)
_family = [_n for _n in _math.__all__ if getattr(F, _n) is getattr(_math, _n)]
globals().update({_n: getattr(_math, _n) for _n in _family})
_rows = generated("math")   # the math functions generated from the primitive rows
globals().update(_rows)
_family += sorted(_n for _n in _rows if _n not in _family)

__all__ = _family + [
    "add", "div", "divide", "eq", "equal", "exp", "ge", "greater", "greater_equal", "gt", "le", "less", "less_equal",
    "log", "lt", "matmul", "maximum", "minimum", "mul", "multiply", "ne", "neg", "negative", "not_equal", "pow",
    "sign", "sub", "subtract", "sum", "true_divide",
    "addbmm", "addmm", "addmv", "addr", "baddbmm", "batch_dot", "bmm", "cholesky", "cholesky_inverse",
    "cholesky_solve", "cov", "cross", "det", "dist", "dot", "einsum", "ger", "inner", "inverse", "kron", "logdet",
    "lu_solve", "lu_unpack", "matrix_determinant", "matrix_exp", "matrix_power", "mm", "mv", "norm", "orgqr", "outer",
    "renorm", "slogdet", "tensor_dot", "vander", "vecdot"]

# MindSpore's `_ext` norms, the functions behind mint.norm / mint.linalg.vector_norm / matrix_norm (mint imports
# ops, so they are looked up when first asked for)
_MINT_NAMES = {"norm_ext": ("mindseed.mint", "norm"), "vector_norm_ext": ("mindseed.mint.linalg", "vector_norm"),
               "matrix_norm_ext": ("mindseed.mint.linalg", "matrix_norm")}


def __getattr__(name):
    if name in _MINT_NAMES:
        import importlib  # noqa: PLC0415
        module, attr = _MINT_NAMES[name]
        return getattr(importlib.import_module(module), attr)
    return _lazy.missing(__name__, name)     # the aliases of mint's functions come with the deferred part


def __dir__():
    return _lazy.listing(__name__)
