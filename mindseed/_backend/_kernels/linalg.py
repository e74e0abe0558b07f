"""Kernels of the linear-algebra family: decompositions, solves, determinants, norms, einsum."""
import torch


def einsum(*operands, equation):
    return torch.einsum(equation, *operands)


def inverse(x):
    return torch.linalg.inv(x)


def det(x):
    return torch.linalg.det(x)


def slogdet(x):
    sign, logabs = torch.linalg.slogdet(x)
    return sign, logabs


def cholesky(x):
    return torch.linalg.cholesky(x)


def solve(a, b):
    return torch.linalg.solve(a, b)


def solve_triangular(a, b, upper, unitriangular=False):
    return torch.linalg.solve_triangular(a, b, upper=upper, left=True, unitriangular=unitriangular)


def svd(x, full_matrices=False):
    u, s, vh = torch.linalg.svd(x, full_matrices=full_matrices)
    return s, u, vh.mH.contiguous()


def svdvals(x):
    return torch.linalg.svdvals(x)


def qr(x, mode="reduced"):
    q, r = torch.linalg.qr(x, mode=mode)
    return q, r


def eig(x):
    w, v = torch.linalg.eig(x)
    return w, v


def eigvals(x):
    return torch.linalg.eigvals(x)


def eigh(x, lower=True):
    """(eigenvalues ascending, eigenvectors) of the Hermitian matrix read from the lower (or upper) triangle."""
    w, v = torch.linalg.eigh(x, UPLO="L" if lower else "U")
    return w, v


def matrix_exp(x):
    return torch.linalg.matrix_exp(x)


def pinv(x, atol=None, rtol=None, hermitian=False):
    return torch.linalg.pinv(x, atol=atol, rtol=rtol, hermitian=hermitian)


def cross(x, y, dim=-1):
    return torch.linalg.cross(x, y, dim=dim)


def adjoint(x):
    return x.mH.contiguous()


def vector_norm(x, ord=2.0, axis=None, keepdims=False):  # noqa: A002 -- MindSpore's argument name
    return torch.linalg.vector_norm(x, ord, dim=axis, keepdim=keepdims)


def geqrf(x):
    a, tau = torch.geqrf(x)
    return a, tau


def orgqr(x, tau):
    return torch.linalg.householder_product(x, tau)


def ormqr(x, tau, other, left=True, transpose=False):
    return torch.ormqr(x, tau, other, left=left, transpose=transpose)


def lu_solve(b, lu_data, lu_pivots):
    return torch.linalg.lu_solve(lu_data, lu_pivots.to(torch.int32), b)


def lu_unpack(lu_data, lu_pivots, unpack_data=True, unpack_pivots=True):
    # NOTE: torch's kernel reads the pivots without checking them (a wrong shape or value is a SIGSEGV)
    if lu_data.dim() < 2:
        raise ValueError(f"the 'LU_data' must be at least 2-D, but got shape {list(lu_data.shape)}.")
    want = list(lu_data.shape[:-2]) + [min(lu_data.shape[-2:])]
    if list(lu_pivots.shape) != want or lu_pivots.dtype.is_floating_point or lu_pivots.is_complex() \
            or lu_pivots.dtype == torch.bool:
        raise ValueError(f"the 'LU_pivots' must be an integer tensor of shape {want} for 'LU_data' of shape "
                         f"{list(lu_data.shape)}, but got shape {list(lu_pivots.shape)}.")
    if lu_pivots.numel() and (lu_pivots.min() < 1 or lu_pivots.max() > lu_data.shape[-2]):
        raise ValueError(f"the 'LU_pivots' values must be in [1, {lu_data.shape[-2]}] (1-based row numbers).")
    p, lo, up = torch.lu_unpack(lu_data, lu_pivots.to(torch.int32), unpack_data, unpack_pivots)
    return p, lo, up


def lu_factor(x):
    """(LU packed, 0-based row pivots as int32, permutation matrix P with x = P L U): scipy's lu_factor / lu."""
    lu, piv = torch.linalg.lu_factor(x)
    p, _, _ = torch.lu_unpack(lu, piv, unpack_data=False)
    return lu, (piv - 1).to(torch.int32), p.to(torch.int32)


def lu_solve_pivots(b, lu, piv, adjoint=False):
    """x with (P L U) x = b (its transpose with `adjoint`), from lu_factor's packed LU and 0-based pivots."""
    return torch.linalg.lu_solve(lu, piv.to(torch.int32) + 1, b, adjoint=adjoint)


def lstsq(a, b, driver="gelsy"):
    """(solution, residuals, rank, singular values) of the least-squares problem a x = b with LAPACK's `driver`;
    the last three are empty where the driver does not compute them."""
    out = torch.linalg.lstsq(a, b, driver=driver)
    return out.solution, out.residuals, out.rank, out.singular_values
