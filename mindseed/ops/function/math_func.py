"""mindspore.ops.function.math_func: elementwise, comparison, reduction and matrix-product ops (same objects as
`mindspore.ops`). `F` is `mindspore.ops.functional`, as in MindSpore's module."""
from mindseed.ops import functional as F  # noqa: F401
from mindseed.ops.functional._math import *  # noqa: F401,F403
from mindseed.ops.functional._math import __all__ as _family
from mindseed.ops.functional._core import (add, div, divide, eq, equal, exp, ge, greater, greater_equal,  # noqa: F401
                                           gt, le, less, less_equal, log, lt, matmul, maximum, minimum, mul,
                                           multiply, ne, neg, negative, not_equal, pow, sign, sub, subtract, sum,
                                           true_divide)
from mindseed.ops.functional._linalg import (addbmm, addmm, addmv, addr, baddbmm, batch_dot, bmm,  # noqa: F401
                                             cholesky, cholesky_inverse, cholesky_solve, cov, cross, det, dist,
                                             dot, einsum, ger, inner, inverse, kron, logdet, lu_solve, lu_unpack,
                                             matrix_determinant, matrix_exp, matrix_power, mm, mv, norm, orgqr,
                                             outer, renorm, slogdet, tensor_dot, vander, vecdot)

__all__ = list(_family) + [
    "add", "div", "divide", "eq", "equal", "exp", "ge", "greater", "greater_equal", "gt", "le", "less", "less_equal",
    "log", "lt", "matmul", "maximum", "minimum", "mul", "multiply", "ne", "neg", "negative", "not_equal", "pow",
    "sign", "sub", "subtract", "sum", "true_divide",
    "addbmm", "addmm", "addmv", "addr", "baddbmm", "batch_dot", "bmm", "cholesky", "cholesky_inverse",
    "cholesky_solve", "cov", "cross", "det", "dist", "dot", "einsum", "ger", "inner", "inverse", "kron", "logdet",
    "lu_solve", "lu_unpack", "matrix_determinant", "matrix_exp", "matrix_power", "mm", "mv", "norm", "orgqr", "outer",
    "renorm", "slogdet", "tensor_dot", "vander", "vecdot"]
