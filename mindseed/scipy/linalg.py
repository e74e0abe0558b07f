"""mindspore.scipy.linalg: SciPy's linear-algebra functions on Tensors (triangular and Cholesky solves, Cholesky,
eigh, LU, inverse, determinant, block diagonal, least squares), differentiable where their primitives are."""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops._prims import linalg as L
from mindseed.scipy._checks import REAL, check_solve, check_square, check_tensor, check_type

__all__ = ["block_diag", "inv", "cho_factor", "cholesky", "cho_solve", "eigh", "lu_factor", "lu", "lu_solve",
           "solve_triangular", "det", "lstsq"]

_TRANS = {"N": 0, "T": 1, "C": 2, 0: 0, 1: 1, 2: 2}


def _mT(x):
    return F.swapaxes(x, -1, -2)


def _as_float(*xs):
    """Integer inputs computed in float64, as MindSpore's scipy does."""
    return tuple(F.cast(x, mstype.float64) if x.dtype in (mstype.int32, mstype.int64) else x for x in xs)


def _flags(func, **flags):
    for name, value in flags.items():
        check_type(func, value, bool, name)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, debug=None,
                     check_finite=True):
    """x solving a x = b (`trans` 0 / 'N'), a^T x = b (1 / 'T') or a^H x = b (2 / 'C') for triangular `a`, read from
    its lower (`lower`) or upper triangle; `unit_diagonal` takes the diagonal as ones.

    >>> import numpy as np, mindseed as ms
    >>> from mindseed.scipy.linalg import solve_triangular
    >>> solve_triangular(ms.Tensor(np.array([[2.0, 0.0], [1.0, 1.0]])), ms.Tensor(np.array([2.0, 3.0])), lower=True)
    Tensor(shape=[2], dtype=Float64, value= [ 1.00000000e+00  2.00000000e+00])
    """
    mode = _TRANS.get(trans) if isinstance(trans, (str, int)) and not isinstance(trans, bool) else None
    if mode is None:
        raise ValueError("For SolveTriangular, Augment[trans] must be one of [1, 2, 3,'N', 'T', 'C'].")
    _flags("solve_triangular", lower=lower, unit_diagonal=unit_diagonal)
    for name, x in (("a", a), ("b", b)):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'SolveTriangular', the '{name}' must be a Tensor, but got {type(x).__name__}.")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"For 'SolveTriangular', the 'a' must be a batch of square matrices, but got {a.shape}.")
    vector = b.ndim == a.ndim - 1
    if b.ndim not in (a.ndim, a.ndim - 1) or (b.shape[-1] if vector else b.shape[-2]) != a.shape[-1] or \
            tuple(b.shape[:a.ndim - 2]) != tuple(a.shape[:-2]):
        raise ValueError(f"For 'SolveTriangular', the 'a' {a.shape} and 'b' {b.shape} do not match for a solve: "
                         f"'b' must have the batch dims of 'a' and {a.shape[-1]} rows.")
    a, b = _as_float(a, b)
    if vector:
        b = F.expand_dims(b, -1)
    upper = not lower
    if mode:
        a = F.conj(_mT(a)) if mode == 2 and mstype.is_complex(a.dtype) else _mT(a)
        upper = lower
    x = L.solve_triangular_p(a, b, upper=upper, unitriangular=unit_diagonal)
    return F.squeeze(x, -1) if vector else x


def block_diag(*arrs):
    """The matrices `arrs` (0-, 1- or 2-D each) along the diagonal of one matrix, zeros elsewhere."""
    if not arrs:
        return F.zeros((1, 0), mstype.float32)
    if any(a.ndim > 2 for a in arrs):
        raise ValueError("Arguments to mindspore.scipy.linalg.block_diag must have at most 2 dimensions.")
    mats = [F.reshape(a, (1, -1)) if a.ndim < 2 else a for a in arrs]
    cols = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        rows.append(F.pad(m, (left, cols - left - m.shape[1])))
        left += m.shape[1]
    return F.concat(rows, 0)


def inv(a, overwrite_a=False, check_finite=True):
    """The inverse of the square matrix `a` (integers in float64)."""
    _flags("inv", overwrite_a=overwrite_a, check_finite=check_finite)
    check_square("inv", check_tensor("inv", a))
    return L.inverse_p(*_as_float(a))


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of the symmetric positive-definite `a`: upper U (a = U^T U), or lower L with `lower`."""
    _flags("cholesky", lower=lower, overwrite_a=overwrite_a, check_finite=check_finite)
    check_square("cholesky", check_tensor("cholesky", a))
    c = L.cholesky_p(*_as_float(a))
    return c if lower else _mT(c)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower): the Cholesky factor of `a` (as `cholesky`) and the flag, the input of `cho_solve`."""
    _flags("cho_factor", lower=lower, overwrite_a=overwrite_a, check_finite=check_finite)
    check_square("cho_factor", check_tensor("cho_factor", a))
    c = L.cholesky_p(*_as_float(a))
    return (c if lower else _mT(c)), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x solving a x = b from `cho_factor(a)`'s (c, lower)."""
    c, lower = c_and_lower
    _flags("cho_solve", lower=lower, overwrite_b=overwrite_b, check_finite=check_finite)
    check_tensor("cho_solve", c, "c")
    check_tensor("cho_solve", b, "b")
    check_solve("cho_solve", c, b, "c", "b")
    c, b = _as_float(c, b)
    first, second = ("N", "T") if lower else ("T", "N")
    y = solve_triangular(c, b, first, lower=lower)
    return solve_triangular(c, y, second, lower=lower)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, turbo=True, eigvals=None,
         type=1, check_finite=True):  # noqa: A002 -- SciPy's argument name
    """(w, v): the eigenvalues (ascending) and eigenvectors of the symmetric / Hermitian `a`, read from its lower
    (`lower`) or upper triangle; only `w` with `eigvals_only`. The generalized problem (`b`) and `eigvals` are not
    supported, as in MindSpore."""
    func = "eigh"
    _flags(func, lower=lower, eigvals_only=eigvals_only, overwrite_a=overwrite_a, overwrite_b=overwrite_b,
           turbo=turbo, check_finite=check_finite)
    check_type(func, type, int, "type")
    check_tensor(func, a, dtypes=REAL + (mstype.complex64, mstype.complex128))
    check_square(func, a)
    for name, value in (("b", b), ("eigvals", eigvals)):
        if value is not None:
            raise ValueError(f"For '{func}', the '{name}' must be None (not supported yet), but got {value!r}.")
    w, v = L.eigh_p(*_as_float(a), lower=lower)
    return w if eigvals_only else (w, v)


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv): L (unit lower, below the diagonal) and U packed in one matrix, and the 0-based row pivots
    (row i was swapped with row piv[i]), the input of `lu_solve`."""
    _flags("lu_factor", overwrite_a=overwrite_a, check_finite=check_finite)
    check_square("lu_factor", check_tensor("lu_factor", a))
    m_lu, piv, _ = L.lu_p(*_as_float(a))
    return m_lu, piv


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """(p, l, u) with a = p l u (p a permutation, l unit lower, u upper); (p l, u) with `permute_l`."""
    _flags("lu", permute_l=permute_l, overwrite_a=overwrite_a, check_finite=check_finite)
    check_tensor("lu", a)
    if a.ndim != 2:
        raise ValueError(f"For 'lu', the dimension of 'a' must be 2, but got {a.ndim}.")
    m, n = a.shape
    if m > n:
        raise ValueError("last two dimensions of LU decomposition must be row less or equal to col.")
    (a,) = _as_float(a)
    m_lu, _, p = L.lu_p(a)
    k = min(m, n)
    low = F.tril(m_lu, -1)[..., :k] + F.eye(m, k, a.dtype)
    up = F.triu(m_lu)[:k, :]
    p = F.cast(p, a.dtype)
    return (F.matmul(p, low), up) if permute_l else (p, low, up)


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """x solving a x = b (`trans` 0) or a^T x = b (1, 2) from `lu_factor(a)`'s (lu, piv)."""
    func = "lu_solve"
    m_lu, piv = lu_and_piv
    _flags(func, overwrite_b=overwrite_b, check_finite=check_finite)
    check_tensor(func, m_lu, "lu_matrix")
    check_tensor(func, b, "b")
    check_tensor(func, piv, "pivot", (mstype.int32,))
    check_solve(func, m_lu, b, "lu_matrix", "b")
    if piv.ndim != 1 or piv.shape[0] != m_lu.shape[0]:
        raise ValueError(f"For '{func}', the 'pivot' must be 1-D with {m_lu.shape[0]} entries, but got {piv.shape}.")
    if trans not in (0, 1, 2):
        raise ValueError(f"For '{func}', the 'trans' must be 0, 1 or 2, but got {trans!r}.")
    m_lu, b = _as_float(m_lu, b)
    vector = b.ndim == 1
    x = L.lu_solve_pivots_p(F.expand_dims(b, -1) if vector else b, m_lu, piv, adjoint=trans != 0)
    return F.squeeze(x, -1) if vector else x


def det(a, overwrite_a=False, check_finite=True):
    """The determinant of the square matrix `a` (integers in float64)."""
    _flags("det", overwrite_a=overwrite_a, check_finite=check_finite)
    check_square("det", check_tensor("det", a))
    return L.det_p(*_as_float(a))



def lstsq(A, B, rcond=None, driver=None):  # noqa: N803 -- SciPy's argument names
    """(x, residuals, rank, s): the least-squares solution of A x = B with LAPACK's `driver` ('gelsy' by default,
    'gelsd', 'gelss' or 'gels'), the squared residual norms (when A is tall and of full rank), the effective rank and
    the singular values (empty where the driver does not compute them). Differentiable in the solution.

    Raises:
        TypeError: `A` or `B` not a float Tensor.
        ValueError: an unknown driver, or shapes that do not agree.
    """
    driver = "gelsy" if driver is None else driver
    if driver not in ("gelsy", "gelsd", "gelss", "gels"):
        raise ValueError(f"For 'lstsq', the 'driver' must be one of ['gelsy', 'gelsd', 'gelss', 'gels'], but got "
                         f"{driver!r}.")
    for name, x in (("A", A), ("B", B)):
        check_tensor("lstsq", x, name, (mstype.float32, mstype.float64, mstype.complex64, mstype.complex128))
    if A.ndim < 2 or B.ndim < 1 or A.shape[-2] != (B.shape[-2] if B.ndim >= 2 else B.shape[-1]):
        raise ValueError(f"For 'lstsq', the 'A' (..., m, n) and 'B' (..., m, k) must agree, but got {A.shape} and "
                         f"{B.shape}.")
    vector = B.ndim == 1
    x, res, rank, s = L.lstsq_p(A, F.expand_dims(B, -1) if vector else B, driver=driver)
    return (F.squeeze(x, -1) if vector else x), res, rank, s
