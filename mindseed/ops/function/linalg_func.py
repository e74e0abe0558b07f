"""mindspore.ops.function.linalg_func: decompositions, solvers and norms (same objects as `mindspore.ops`)."""
from mindseed.ops.functional._linalg import (adjoint, cond, eig, eigvals, geqrf, log_matrix_determinant,  # noqa: F401
                                             lstsq, matrix_norm, matrix_solve, ormqr, pinv, qr, svd, vector_norm)

__all__ = ["adjoint", "cond", "eig", "eigvals", "geqrf", "log_matrix_determinant", "lstsq", "matrix_norm",
           "matrix_solve", "ormqr", "pinv", "qr", "svd", "vector_norm"]
