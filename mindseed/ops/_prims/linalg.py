"""Linear-algebra primitives and their gradients (real inputs), written in mindseed ops.

Matrix products are composites of MatMul (core); this module declares what needs a kernel of its own:
einsum, inverse, determinants, Cholesky, solves, SVD, QR, eig, matrix exponential, pseudo-inverse,
cross product and vector norms.
"""
from mindseed._backend.kernels import linalg as K
from mindseed.ops._prims.array import diag_embed_p, diagonal_p, tril_p, triu_p
from mindseed.ops._prims.core import (add_p, broadcast_to_p, cast_p, concat_p, div_p, equal_p, getitem_p, matmul_p,
                                      mul_p, neg_p, ones_like_p, pow_p, reduce_sum_p, reshape_p, sign_p, sub_p,
                                      transpose_p, where_p, zeros_like_p)
from mindseed.ops._registry import Prim


def _mT(x):
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return transpose_p(x, perm=perm)


def _bcast_matrix(v, like):
    """A per-matrix value (batch shape) as (..., 1, 1) for broadcasting against matrices."""
    return reshape_p(v, shape=v.shape + (1, 1))


# ---------------------------------------------------------------- einsum
einsum_p = Prim("Einsum", K.einsum)


@einsum_p.def_bprop(takes_needs=True)
def _einsum_bprop(*args, equation, needs):
    *xs, out, dout = args
    lhs, rhs = equation.split("->")
    subs = lhs.split(",")
    grads = []
    for i, x in enumerate(xs):
        if not needs[i]:
            grads.append(None)
            continue
        others = [s for j, s in enumerate(subs) if j != i]
        avail = set(rhs).union(*others) if others else set(rhs)
        kept = "".join(c for c in subs[i] if c in avail)
        eq = ",".join([rhs] + others) + "->" + kept
        g = einsum_p(dout, *[xs[j] for j in range(len(xs)) if j != i], equation=eq)
        if len(kept) != len(subs[i]):
            # letters summed away in the forward pass come back as broadcast dimensions
            shape = []
            it = iter(g.shape)
            for c, _d in zip(subs[i], x.shape):
                shape.append(next(it) if c in avail else 1)
            g = reshape_p(g, shape=tuple(shape))
            g = broadcast_to_p(g, shape=tuple(d if c not in avail else s for c, d, s in zip(subs[i], x.shape, shape)))
        grads.append(g)
    return tuple(grads)


# ---------------------------------------------------------------- inverse and determinants
inverse_p = Prim("MatrixInverse", K.inverse)


@inverse_p.def_bprop
def _inverse_bprop(x, out, dout):
    out_t = _mT(out)
    return (neg_p(matmul_p(matmul_p(out_t, dout), out_t)),)


det_p = Prim("MatrixDeterminant", K.det)


@det_p.def_bprop
def _det_bprop(x, out, dout):
    return (mul_p(_bcast_matrix(mul_p(dout, out), x), _mT(inverse_p(x))),)


slogdet_p = Prim("LogMatrixDeterminant", K.slogdet, multi_output=True)


@slogdet_p.def_bprop
def _slogdet_bprop(x, out, dout):
    return (mul_p(_bcast_matrix(dout[1], x), _mT(inverse_p(x))),)


# ---------------------------------------------------------------- Cholesky and solves
cholesky_p = Prim("Cholesky", K.cholesky)


@cholesky_p.def_bprop
def _cholesky_bprop(x, out, dout):
    # Murray (2016): dA = sym(L^-T Phi(L^T dL) L^-1), Phi = lower triangle with the diagonal halved
    lt = _mT(out)
    p = matmul_p(lt, dout)
    p = sub_p(tril_p(p, diagonal=0), mul_p(diag_embed_p(diagonal_p(p, offset=0, dim1=-2, dim2=-1), offset=0,
                                                         dim1=-2, dim2=-1), 0.5))
    y = solve_triangular_p(lt, p, upper=True, unitriangular=False)
    s = _mT(solve_triangular_p(lt, _mT(y), upper=True, unitriangular=False))
    return (mul_p(add_p(s, _mT(s)), 0.5),)


solve_p = Prim("MatrixSolve", K.solve)


@solve_p.def_bprop(takes_needs=True)
def _solve_bprop(a, b, out, dout, needs):
    db = solve_p(_mT(a), dout)
    return (neg_p(matmul_p(db, _mT(out))) if needs[0] else None), db


solve_triangular_p = Prim("MatrixTriangularSolve", K.solve_triangular)


@solve_triangular_p.def_bprop(takes_needs=True)
def _solve_triangular_bprop(a, b, out, dout, needs, upper, unitriangular=False):
    db = solve_triangular_p(_mT(a), dout, upper=not upper, unitriangular=unitriangular)
    if not needs[0]:
        return None, db
    da = neg_p(matmul_p(db, _mT(out)))
    if upper:
        da = triu_p(da, diagonal=1 if unitriangular else 0)
    else:
        da = tril_p(da, diagonal=-1 if unitriangular else 0)
    return da, db


# ---------------------------------------------------------------- SVD, QR, eig
svd_p = Prim("Svd", K.svd, multi_output=True)


@svd_p.def_bprop
def _svd_bprop(x, out, dout, full_matrices=False):
    # PyTorch's svd_backward (real case), on the thin factors; MindSpore returns (s, u, v) with v = V, not V^H
    s, u, v = out
    gs, gu, gv = dout
    m, n = x.shape[-2], x.shape[-1]
    k = s.shape[-1]
    if full_matrices and m != n:
        u, gu = getitem_p(u, index=(Ellipsis, slice(0, k))), getitem_p(gu, index=(Ellipsis, slice(0, k)))
        v, gv = getitem_p(v, index=(Ellipsis, slice(0, k))), getitem_p(gv, index=(Ellipsis, slice(0, k)))
    ut, vt = _mT(u), _mT(v)
    uhgu, vhgv = matmul_p(ut, gu), matmul_p(vt, gv)
    skew_u, skew_v = sub_p(uhgu, _mT(uhgu)), sub_p(vhgv, _mT(vhgv))
    s_row = reshape_p(s, shape=s.shape[:-1] + (1, k))
    s_col = reshape_p(s, shape=s.shape[:-1] + (k, 1))
    s2_row, s2_col = mul_p(s_row, s_row), mul_p(s_col, s_col)
    e = sub_p(s2_row, s2_col)  # E_ij = s_j^2 - s_i^2, 1 on the diagonal
    e = add_p(e, diag_embed_p(ones_like_p(s), offset=0, dim1=-2, dim2=-1))
    ga = div_p(add_p(mul_p(skew_u, s_row), mul_p(s_col, skew_v)), e)
    ga = add_p(ga, diag_embed_p(gs, offset=0, dim1=-2, dim2=-1))
    if m > k:
        ga = matmul_p(u, ga)
        gu_sinv = div_p(gu, s_row)
        ga = add_p(ga, sub_p(gu_sinv, matmul_p(u, matmul_p(ut, gu_sinv))))
        return (matmul_p(ga, vt),)
    if n > k:
        ga = matmul_p(ga, vt)
        gv_sinv = div_p(gv, s_row)
        ga = add_p(ga, sub_p(_mT(gv_sinv), matmul_p(matmul_p(_mT(gv_sinv), v), vt)))
        return (matmul_p(u, ga),)
    return (matmul_p(u, matmul_p(ga, vt)),)


qr_p = Prim("Qr", K.qr, multi_output=True)


@qr_p.def_bprop
def _qr_bprop(x, out, dout, mode="reduced"):
    q, r = out
    gq, gr = dout
    m, n = x.shape[-2], x.shape[-1]
    if m >= n:
        if mode == "complete" and m > n:
            raise ValueError("For 'Qr', the gradient of mode='complete' with more rows than columns is not defined.")
        return (_qr_square_bprop(q, r, gq, gr),)
    # wide input: A = Q [R1 R2] with A1 = Q R1 square and R2 = Q^T A2
    r1 = getitem_p(r, index=(Ellipsis, slice(0, m)))
    gr1, gr2 = getitem_p(gr, index=(Ellipsis, slice(0, m))), getitem_p(gr, index=(Ellipsis, slice(m, n)))
    a2 = getitem_p(x, index=(Ellipsis, slice(m, n)))
    ga1 = _qr_square_bprop(q, r1, add_p(gq, matmul_p(a2, _mT(gr2))), gr1)
    return (concat_p(ga1, matmul_p(q, gr2), axis=x.ndim - 1),)


def _qr_square_bprop(q, r, gq, gr):
    # gA = (gQ + Q (tril(Z - Z^T, -1) - Z)) R^-T,  Z = Q^T gQ - gR R^T
    z = sub_p(matmul_p(_mT(q), gq), matmul_p(gr, _mT(r)))
    g = add_p(gq, matmul_p(q, sub_p(tril_p(sub_p(z, _mT(z)), diagonal=-1), z)))
    return _mT(solve_triangular_p(r, _mT(g), upper=True, unitriangular=False))


eig_p = Prim("Eig", K.eig, multi_output=True)  # complex results: no gradient
eigvals_p = Prim("Eigvals", K.eigvals)
eigh_p = Prim("Eigh", K.eigh, multi_output=True)


@eigh_p.def_bprop
def _eigh_bprop(a, out, dout, lower=True):
    # A = V diag(w) V^T: G = V (diag(gw) + (V^T gV) / (w_j - w_i) off the diagonal) V^T. Only one triangle of `a` is
    # read, so each of its off-diagonal entries stands for both (i, j) and (j, i): it gets G_ij + G_ji
    w, v = out
    gw, gv = dout
    vt = _mT(v)
    k = w.shape[-1]
    gap = sub_p(reshape_p(w, shape=w.shape[:-1] + (1, k)), reshape_p(w, shape=w.shape[:-1] + (k, 1)))
    gap = add_p(gap, diag_embed_p(ones_like_p(w), offset=0, dim1=-2, dim2=-1))
    inner = div_p(matmul_p(vt, gv), gap)
    inner = sub_p(inner, diag_embed_p(diagonal_p(inner, offset=0, dim1=-2, dim2=-1), offset=0, dim1=-2, dim2=-1))
    g = matmul_p(v, matmul_p(add_p(inner, diag_embed_p(gw, offset=0, dim1=-2, dim2=-1)), vt))
    both = add_p(g, _mT(g))
    off = tril_p(both, diagonal=-1) if lower else triu_p(both, diagonal=1)
    return (add_p(off, diag_embed_p(diagonal_p(g, offset=0, dim1=-2, dim2=-1), offset=0, dim1=-2, dim2=-1)),)

# ---------------------------------------------------------------- matrix functions
matrix_exp_p = Prim("MatrixExp", K.matrix_exp)


@matrix_exp_p.def_bprop
def _matrix_exp_bprop(x, out, dout):
    # the Frechet derivative: exp([[A^T, G], [0, A^T]]) holds the gradient in its upper-right block
    n = x.shape[-1]
    at = _mT(x)
    top = concat_p(at, dout, axis=x.ndim - 1)
    bottom = concat_p(zeros_like_p(at), at, axis=x.ndim - 1)
    big = matrix_exp_p(concat_p(top, bottom, axis=x.ndim - 2))
    return (getitem_p(big, index=(Ellipsis, slice(0, n), slice(n, 2 * n))),)


pinv_p = Prim("Pinv", K.pinv)


@pinv_p.def_bprop
def _pinv_bprop(x, out, dout, atol=None, rtol=None, hermitian=False):
    # Golub & Pereyra: gA = -X^T G X^T + (I - A X) G^T X X^T + X^T X G^T (I - X A), X = pinv(A)
    xt, gt = _mT(out), _mT(dout)
    term1 = neg_p(matmul_p(matmul_p(xt, dout), xt))
    ax, xa = matmul_p(x, out), matmul_p(out, x)
    gtx = matmul_p(gt, out)
    term2 = sub_p(matmul_p(gtx, xt), matmul_p(ax, matmul_p(gtx, xt)))
    xtx = matmul_p(xt, out)
    term3 = sub_p(matmul_p(xtx, gt), matmul_p(matmul_p(xtx, gt), xa))
    return (add_p(add_p(term1, term2), term3),)


cross_p = Prim("Cross", K.cross)


@cross_p.def_bprop
def _cross_bprop(x, y, out, dout, dim=-1):
    return cross_p(y, dout, dim=dim), cross_p(dout, x, dim=dim)


adjoint_p = Prim("Adjoint", K.adjoint)


@adjoint_p.def_bprop
def _adjoint_bprop(x, out, dout):
    return (adjoint_p(dout),)


# ---------------------------------------------------------------- norms
vector_norm_p = Prim("LpNorm", K.vector_norm)


@vector_norm_p.def_bprop
def _vector_norm_bprop(x, out, dout, ord=2.0, axis=None, keepdims=False):  # noqa: A002
    if not keepdims and out.shape != ():
        kept = list(x.shape)
        for a in ((axis,) if isinstance(axis, int) else axis):
            kept[a % x.ndim] = 1
        out, dout = reshape_p(out, shape=tuple(kept)), reshape_p(dout, shape=tuple(kept))
    elif not keepdims:
        kept = (1,) * x.ndim
        out, dout = reshape_p(out, shape=kept), reshape_p(dout, shape=kept)
    sgn = sign_p(x)
    if ord == 0:
        return (zeros_like_p(x),)
    if ord == 1:
        return (mul_p(sgn, dout),)
    zero = zeros_like_p(out)
    safe = where_p(equal_p(out, zero), add_p(zero, 1.0), out)
    if ord in (float("inf"), float("-inf")):
        hit = cast_p(equal_p(mul_p(x, sgn), out), dtype=x.dtype.name)
        count = reduce_sum_p(hit, axis=tuple(range(x.ndim)) if axis is None else axis, keep_dims=True)
        return (mul_p(mul_p(sgn, hit), div_p(dout, count)),)
    if ord == 2:
        scale = where_p(equal_p(out, zero), zero, div_p(dout, safe))
        return (mul_p(x, scale),)
    absx = mul_p(x, sgn)
    scale = where_p(equal_p(out, zero), zero, div_p(dout, pow_p(safe, ord - 1)))
    return (mul_p(mul_p(sgn, pow_p(absx, ord - 1)), scale),)


# ---------------------------------------------------------------- QR / LU helpers (no gradient)
geqrf_p = Prim("Geqrf", K.geqrf, multi_output=True)
orgqr_p = Prim("Orgqr", K.orgqr)
ormqr_p = Prim("Ormqr", K.ormqr)
lu_solve_p = Prim("LuSolve", K.lu_solve)
lu_unpack_p = Prim("LuUnpack", K.lu_unpack, multi_output=True)


# ---------------------------------------------------------------- LU (scipy's conventions: 0-based pivots)
lu_p = Prim("LU", K.lu_factor, multi_output=True)
lu_solve_pivots_p = Prim("LuSolvePivots", K.lu_solve_pivots)
lstsq_p = Prim("LstsqV2", K.lstsq, multi_output=True)


@lstsq_p.def_bprop
def _lstsq_bprop(a, b, out, dout, driver="gelsy"):
    # the solution is pinv(A) B (minimum norm): gB = pinv(A)^T gX, gA = the pinv gradient of gX B^T; the residuals,
    # rank and singular values carry no gradient
    gx = dout[0]
    p = pinv_p(a)
    return _pinv_bprop(a, p, matmul_p(gx, _mT(b)))[0], matmul_p(_mT(p), gx)
