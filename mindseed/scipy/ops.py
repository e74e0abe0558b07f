"""mindspore.scipy.ops: the primitives under mindspore.scipy.linalg (SolveTriangular, LU)."""
import sys

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops._prims import linalg as L
from mindseed.ops.operations._base import Primitive
from mindseed.scipy._lsap import linear_sum_assignment

__all__ = ["SolveTriangular", "LU", "Eig", "LinearSumAssignment"]


class SolveTriangular:
    """`SolveTriangular(lower=False, unit_diagonal=False, trans='N')(a, b)`: `linalg.solve_triangular` with these
    settings."""

    def __init__(self, lower=False, unit_diagonal=False, trans="N"):
        self.lower, self.unit_diagonal, self.trans = lower, unit_diagonal, trans

    def __call__(self, a, b):
        from mindseed.scipy.linalg import solve_triangular  # noqa: PLC0415 -- linalg imports this module
        return solve_triangular(a, b, self.trans, self.lower, self.unit_diagonal)


class Eig(Primitive):
    """`Eig(compute_v=True)(a)`: (w, v), the complex eigenvalues and eigenvectors (columns) of square matrices
    (complex64 for float32 / complex64 input, complex128 otherwise); v is a 0-d zero without `compute_v`.

    Raises:
        TypeError: `compute_v` not a bool, `a` not a float32/float64/complex Tensor.
        ValueError: `a` of rank below 2 or not square.
    """

    _OUT = {mstype.float32: mstype.complex64, mstype.complex64: mstype.complex64,
            mstype.float64: mstype.complex128, mstype.complex128: mstype.complex128}

    def __init__(self, compute_v=True):
        super().__init__("Eig")
        if not isinstance(compute_v, bool):
            raise TypeError(f"For 'Eig', the 'compute_v' must be bool, but got {type(compute_v).__name__}.")
        self.compute_v = compute_v
        self.add_prim_attr("compute_v", compute_v)

    def __call__(self, a):
        if not isinstance(a, Tensor) or a.dtype not in self._OUT:
            got = a.dtype if isinstance(a, Tensor) else type(a).__name__
            raise TypeError(f"For 'Eig', the 'a' must be a Tensor of float32, float64, complex64 or complex128, but "
                            f"got {got}.")
        if a.ndim < 2:
            raise ValueError(f"For Eig, x should be at lease 2, but got a {a.ndim}-D Tensor.")
        if a.shape[-1] != a.shape[-2]:
            raise ValueError(f"For Eig, x must be square matrices, but got shape {a.shape}.")
        w, v = L.eig_p(a)
        out = self._OUT[a.dtype]
        w = w if w.dtype == out else F.cast(w, out)
        if not self.compute_v:
            return w, Tensor(0, out)
        return w, (v if v.dtype == out else F.cast(v, out))


class LU(Primitive):
    """`LU()(x)`: (lu, pivots, permutation) of square matrices: L (unit lower, below the diagonal) and U packed,
    the 0-based row pivots (int32) and the permutation matrix P (int32) with x = P L U."""

    def __init__(self):
        super().__init__("LU")
        self.init_prim_io_names(inputs=["x"], outputs=["lu", "pivots", "permutation"])

    def __call__(self, x):
        return L.lu_p(x)


class LinearSumAssignment(Primitive):
    """`LinearSumAssignment()(cost_matrix, dimension_limit, maximize)`: (row_ind, col_ind), the assignment of rows
    to the first `dimension_limit` columns of least (greatest with `maximize`) total cost, as int64 Tensors of
    min(rows, columns) entries, padded with -1 past the assigned pairs (SciPy's linear_sum_assignment).

    Raises:
        TypeError: `cost_matrix` not a 2-D Tensor.
        RuntimeError: `dimension_limit` larger than the number of columns.
    """

    def __init__(self):
        super().__init__("LinearSumAssignment")
        self.init_prim_io_names(inputs=["cost_matrix", "dimension_limit", "maximize"], outputs=["row_ind", "col_ind"])

    def __call__(self, cost_matrix, dimension_limit, maximize):
        if not isinstance(cost_matrix, Tensor) or cost_matrix.ndim != 2:
            raise TypeError(f"For 'LinearSumAssignment', the 'cost_matrix' must be a 2-D Tensor, but got "
                            f"{getattr(cost_matrix, 'shape', type(cost_matrix).__name__)}.")
        limit = int(dimension_limit.asnumpy()) if isinstance(dimension_limit, Tensor) else int(dimension_limit)
        rows, cols = cost_matrix.shape
        if limit == sys.maxsize:        # the default: no limit
            limit = cols
        if limit > cols:
            raise RuntimeError(f"For 'LinearSumAssignment' input dimension_limit must <= the 2nd dimension's size of "
                               f"the cost_matrix, which is {cols}, but got {limit}.")
        flag = bool(maximize.asnumpy()) if isinstance(maximize, Tensor) else bool(maximize)
        cost = cost_matrix.asnumpy().astype(np.float64)[:, :limit]
        size = min(rows, cols)
        row_ind, col_ind = np.full(size, -1, np.int64), np.full(size, -1, np.int64)
        if cost.size:
            r, c = linear_sum_assignment(cost, flag)
            row_ind[:r.size], col_ind[:c.size] = r, c
        return Tensor(row_ind), Tensor(col_ind)
