"""Linear-algebra ops: values vs numpy, gradients vs finite differences (decompositions included), bad input."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests


def well_conditioned(r, s):
    """Random square matrices dominated by their diagonal (invertible, positive determinant)."""
    n = s[-1]
    return r.standard_normal(s) * 0.3 + np.eye(n) * 2.0


def _spd(a):
    return a @ np.swapaxes(a, -1, -2) + 2.0 * np.eye(a.shape[-1])


def _ms_spd(a):
    return ops.matmul(a, ops.swapaxes(a, -1, -2)) + ms.Tensor(2.0 * np.eye(a.shape[-1]), a.dtype)


def _np_expm(a):
    out, term = np.eye(a.shape[-1]), np.eye(a.shape[-1])
    for k in range(1, 40):
        term = term @ a / k
        out = out + term
    return out


def _np_cov(x, correction=1):
    return np.cov(x, ddof=correction)


def _lu_pivots(r, s):
    """LAPACK-style 1-based pivots: row i was swapped with row piv[i] - 1 >= i."""
    return np.array([r.randint(i + 1, s[0] + 1) for i in range(s[0])], np.int32)


def _np_lu_unpack(d, piv):
    n = d.shape[-1]
    perm = np.eye(n)
    for i, p in enumerate(piv):
        perm[[i, p - 1]] = perm[[p - 1, i]]
    return perm.T, np.tril(d, -1) + np.eye(n), np.triu(d)


def _np_plu(d, piv):
    p, lo, up = _np_lu_unpack(d, piv)
    return p @ lo @ up


def _eig_parts(w, v=None, a=None):
    parts = [ops.sort(ops.real(w))[0], ops.sort(ops.imag(w))[0]]
    if v is not None:
        ac = ops.Complex()(a, ops.zeros_like(a))
        parts.append(ops.abs(ops.matmul(ac, v) - v * w.reshape(1, -1)))
    return parts


def _np_eig_parts(a):
    w = np.linalg.eigvals(a)
    return [np.sort(w.real), np.sort(w.imag), np.zeros(a.shape)]


SQ = (3, 3)
SPECS = [
    # ---------------------------------------------------------- products
    OpSpec("mm", ops.mm, np.matmul, shapes=[(2, 3), (3, 4)]),
    OpSpec("bmm", ops.bmm, np.matmul, shapes=[(2, 2, 3), (2, 3, 4)], grad2=True),
    OpSpec("mv", ops.mv, np.matmul, shapes=[(2, 3), (3,)]),
    OpSpec("dot", ops.dot, np.dot, shapes=[(2, 3, 4), (5, 4, 2)]),
    OpSpec("inner", ops.inner, np.inner, shapes=[(2, 3), (4, 3)]),
    OpSpec("outer", ops.outer, np.outer, shapes=[(3,), (4,)]),
    OpSpec("ger", ops.ger, np.outer, shapes=[(2,), (3,)]),
    OpSpec("vecdot", lambda x, y: ops.vecdot(x, y, axis=-1), lambda x, y: (x * y).sum(-1), shapes=[(2, 3), (3,)]),
    OpSpec("tensor_dot_int", lambda a, b: ops.tensor_dot(a, b, 2), lambda a, b: np.tensordot(a, b, 2),
           shapes=[(2, 3, 4), (3, 4, 5)]),
    OpSpec("tensor_dot_axes", lambda a, b: ops.tensor_dot(a, b, ((0, 2), (2, 1))),
           lambda a, b: np.tensordot(a, b, ((0, 2), (2, 1))), shapes=[(2, 3, 4), (5, 4, 2)], grad2=True),
    OpSpec("batch_dot", lambda a, b: ops.batch_dot(a, b), lambda a, b: np.einsum("bij,bjk->bik", a, b),
           shapes=[(2, 3, 4), (2, 4, 5)]),
    OpSpec("batch_dot_2d", ops.batch_dot, lambda a, b: (a * b).sum(1, keepdims=True), shapes=[(2, 3), (2, 3)]),
    OpSpec("batch_dot_axes", lambda a, b: ops.batch_dot(a, b, (1, 1)), lambda a, b: np.einsum("bij,bik->bjk", a, b),
           shapes=[(2, 3, 4), (2, 3, 2)]),
    OpSpec("addmm", lambda i, a, b: ops.addmm(i, a, b, beta=0.5, alpha=2.0), lambda i, a, b: 0.5 * i + 2 * a @ b,
           shapes=[(2, 4), (2, 3), (3, 4)]),
    OpSpec("addmv", lambda i, a, v: ops.addmv(i, a, v, alpha=3.0), lambda i, a, v: i + 3 * a @ v,
           shapes=[(2,), (2, 3), (3,)]),
    OpSpec("addr", lambda i, a, b: ops.addr(i, a, b, beta=2.0), lambda i, a, b: 2 * i + np.outer(a, b),
           shapes=[(2, 3), (2,), (3,)]),
    OpSpec("baddbmm", lambda i, a, b: ops.baddbmm(i, a, b, 0.5, 1.5), lambda i, a, b: 0.5 * i + 1.5 * a @ b,
           shapes=[(2, 2, 4), (2, 2, 3), (2, 3, 4)]),
    OpSpec("addbmm", lambda i, a, b: ops.addbmm(i, a, b), lambda i, a, b: i + (a @ b).sum(0),
           shapes=[(2, 4), (3, 2, 3), (3, 3, 4)]),
    OpSpec("cross", ops.cross, lambda a, b: np.cross(a, b, axis=0), shapes=[(3, 2), (3, 2)], grad2=True),
    OpSpec("cross_dim", lambda a, b: ops.cross(a, b, -1), np.cross, shapes=[(2, 3), (2, 3)]),
    OpSpec("kron", ops.kron, np.kron, shapes=[(2, 3), (3, 2)]),
    OpSpec("kron_rank_mismatch", ops.kron, np.kron, shapes=[(2, 1, 2), (3, 2)]),
    OpSpec("vander", lambda x: ops.vander(x, 4), lambda x: np.vander(x, 4), shapes=[(3,)]),
    OpSpec("cov", ops.cov, _np_cov, shapes=[(3, 5)], grad2=True),
    OpSpec("cov_weights", lambda x: ops.cov(x, correction=0, fweights=ms.Tensor([1, 2, 1, 3]),
                                            aweights=ms.Tensor([0.5, 1.0, 2.0, 1.0])),
           lambda x: np.cov(x, ddof=0, fweights=[1, 2, 1, 3], aweights=[0.5, 1.0, 2.0, 1.0]), shapes=[(2, 4)]),
    OpSpec("adjoint", ops.adjoint, lambda x: np.swapaxes(x, -1, -2), shapes=[(2, 3, 4)]),
    # ---------------------------------------------------------- einsum
    OpSpec("einsum_matmul", lambda a, b: ops.einsum("ij,jk->ik", a, b), lambda a, b: a @ b,
           shapes=[(2, 3), (3, 4)], grad2=True),
    OpSpec("einsum_implicit", lambda a, b: ops.einsum("ij,jk", a, b), lambda a, b: a @ b, shapes=[(2, 3), (3, 4)]),
    OpSpec("einsum_diag", lambda a: ops.einsum("ii->i", a), np.diagonal, shapes=[SQ]),
    OpSpec("einsum_trace", lambda a: ops.einsum("ii", a), np.trace, shapes=[SQ]),
    OpSpec("einsum_sum_out", lambda a, b: ops.einsum("ijk,k->i", a, b), lambda a, b: np.einsum("ijk,k->i", a, b),
           shapes=[(2, 3, 4), (4,)], grad2=True),
    OpSpec("einsum_ellipsis", lambda a, b: ops.einsum("...ij,...jk->...ik", a, b), np.matmul,
           shapes=[(2, 2, 3), (2, 3, 4)]),
    OpSpec("einsum_outer_transpose", lambda a, b: ops.einsum("i,j->ji", a, b), lambda a, b: np.outer(b, a),
           shapes=[(2,), (3,)]),
    OpSpec("einsum_three", lambda a, b, c: ops.einsum("ij,jk,kl->il", a, b, c), lambda a, b, c: a @ b @ c,
           shapes=[(2, 3), (3, 4), (4, 2)]),
    # ---------------------------------------------------------- inverse, determinants, powers
    OpSpec("inverse", ops.inverse, np.linalg.inv, shapes=[SQ], gen=well_conditioned, grad2=True),
    OpSpec("inverse_batch", ops.inverse, np.linalg.inv, shapes=[(2, 3, 3)], gen=well_conditioned),
    OpSpec("det", ops.det, np.linalg.det, shapes=[SQ], gen=well_conditioned, grad2=True),
    OpSpec("det_batch", ops.det, np.linalg.det, shapes=[(2, 3, 3)], gen=well_conditioned),
    OpSpec("slogdet", ops.slogdet, lambda a: list(np.linalg.slogdet(a)), shapes=[SQ], gen=well_conditioned),
    OpSpec("logdet", ops.logdet, lambda a: np.log(np.linalg.det(a)), shapes=[SQ], gen=well_conditioned),
    OpSpec("matrix_power_3", lambda a: ops.matrix_power(a, 3), lambda a: np.linalg.matrix_power(a, 3), shapes=[SQ]),
    OpSpec("matrix_power_neg", lambda a: ops.matrix_power(a, -2), lambda a: np.linalg.matrix_power(a, -2),
           shapes=[SQ], gen=well_conditioned),
    OpSpec("matrix_power_0", lambda a: ops.matrix_power(a, 0), lambda a: np.eye(3), shapes=[SQ], grad=False),
    OpSpec("matrix_exp", ops.matrix_exp, _np_expm, shapes=[SQ], gen=lambda r, s: r.standard_normal(s) * 0.5,
           grad2=True),
    OpSpec("pinv", ops.pinv, np.linalg.pinv, shapes=[(4, 3)]),
    OpSpec("pinv_wide", ops.pinv, np.linalg.pinv, shapes=[(2, 4)]),
    OpSpec("matrix_solve", ops.matrix_solve, np.linalg.solve, shapes=[SQ, (3, 2)], gen=[well_conditioned, None],
           grad2=True),
    OpSpec("matrix_solve_adjoint", lambda a, b: ops.matrix_solve(a, b, True), lambda a, b: np.linalg.solve(a.T, b),
           shapes=[SQ, (3, 2)], gen=[well_conditioned, None]),
    OpSpec("lstsq_tall", ops.lstsq, lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], shapes=[(5, 3), (5, 2)]),
    OpSpec("lstsq_wide", ops.lstsq, lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], shapes=[(2, 4), (2, 3)]),
    OpSpec("triangular_solve", lambda b, a: b.triangular_solve(ops.triu(a))[0],
           lambda b, a: np.linalg.solve(np.triu(a), b), shapes=[(3, 2), SQ], gen=[None, well_conditioned],
           grad2=True),
    OpSpec("triangular_solve_lower_t", lambda b, a: b.triangular_solve(ops.tril(a), False, True)[0],
           lambda b, a: np.linalg.solve(np.tril(a).T, b), shapes=[(3, 2), SQ], gen=[None, well_conditioned]),
    # ---------------------------------------------------------- Cholesky
    OpSpec("cholesky", lambda a: ops.cholesky(_ms_spd(a)), lambda a: np.linalg.cholesky(_spd(a)), shapes=[SQ],
           grad2=True),
    OpSpec("cholesky_upper", lambda a: ops.cholesky(_ms_spd(a), True),
           lambda a: np.swapaxes(np.linalg.cholesky(_spd(a)), -1, -2), shapes=[(2, 3, 3)]),
    OpSpec("cholesky_solve", lambda b, a: ops.cholesky_solve(b, ops.cholesky(_ms_spd(a))),
           lambda b, a: np.linalg.solve(_spd(a), b), shapes=[(3, 2), SQ]),
    OpSpec("cholesky_solve_upper", lambda b, a: ops.cholesky_solve(b, ops.cholesky(_ms_spd(a), True), True),
           lambda b, a: np.linalg.solve(_spd(a), b), shapes=[(3, 2), SQ]),
    OpSpec("cholesky_inverse", lambda a: ops.cholesky_inverse(ops.cholesky(_ms_spd(a))),
           lambda a: np.linalg.inv(_spd(a)), shapes=[SQ]),
    # MindSpore's kernel takes the whole matrix as the factor, its other triangle included
    OpSpec("cholesky_inverse_whole_factor", lambda a: ops.cholesky_inverse(_ms_spd(a), True),
           lambda a: np.linalg.inv(_spd(a).T @ _spd(a)), shapes=[SQ]),
    OpSpec("cholesky_inverse_whole_lower", lambda a: ops.cholesky_inverse(_ms_spd(a)),
           lambda a: np.linalg.inv(_spd(a) @ _spd(a).T), shapes=[SQ]),
    # ---------------------------------------------------------- SVD, QR
    OpSpec("svd_values", lambda a: ops.svd(a, compute_uv=False), lambda a: np.linalg.svd(a, compute_uv=False),
           shapes=[(4, 3)], grad2=True),
    OpSpec("svd_projectors_tall", lambda a: [p @ p.T for p in ops.svd(a)[1:]],
           lambda a: [u @ u.T for u in (np.linalg.svd(a, full_matrices=False)[0],
                                        np.linalg.svd(a, full_matrices=False)[2].T)], shapes=[(4, 3)]),
    OpSpec("svd_projectors_wide", lambda a: [p @ p.T for p in ops.svd(a)[1:]],
           lambda a: [u @ u.T for u in (np.linalg.svd(a, full_matrices=False)[0],
                                        np.linalg.svd(a, full_matrices=False)[2].T)], shapes=[(2, 4)]),
    OpSpec("svd_reconstruct", lambda a: _svd_rebuild(*ops.svd(a)), lambda a: a, shapes=[SQ]),
    OpSpec("qr_square", lambda a: ops.qr(a), lambda a: list(np.linalg.qr(a)), shapes=[SQ], grad2=True),
    OpSpec("qr_tall", lambda a: ops.qr(a), lambda a: list(np.linalg.qr(a)), shapes=[(4, 3)]),
    OpSpec("qr_wide", lambda a: ops.qr(a), lambda a: list(np.linalg.qr(a)), shapes=[(2, 4)]),
    OpSpec("qr_batch", lambda a: ops.qr(a)[1], lambda a: np.linalg.qr(a)[1], shapes=[(2, 3, 3)]),
    # ---------------------------------------------------------- norms
    OpSpec("norm_default", ops.norm, lambda x: np.linalg.norm(x.reshape(-1)), shapes=[(2, 3, 4)], grad2=True),
    OpSpec("norm_vec_p3", lambda x: ops.norm(x, 3, 1), lambda x: np.linalg.norm(x, 3, 1), grad2=True),
    OpSpec("norm_vec_p1_keep", lambda x: ops.norm(x, 1, 0, True), lambda x: np.linalg.norm(x, 1, 0, True)),
    OpSpec("norm_vec_inf", lambda x: ops.norm(x, float("inf"), 1), lambda x: np.linalg.norm(x, np.inf, 1)),
    OpSpec("norm_vec_neg_inf", lambda x: ops.norm(x, -float("inf"), 1), lambda x: np.linalg.norm(x, -np.inf, 1)),
    OpSpec("norm_mat_fro", lambda x: ops.norm(x, "fro"), lambda x: np.linalg.norm(x, "fro")),
    OpSpec("norm_mat_nuc", lambda x: ops.norm(x, "nuc"), lambda x: np.linalg.norm(x, "nuc")),
    OpSpec("norm_mat_1", lambda x: ops.norm(x, 1), lambda x: np.linalg.norm(x, 1)),
    OpSpec("norm_mat_inf", lambda x: ops.norm(x, float("inf")), lambda x: np.linalg.norm(x, np.inf)),
    OpSpec("norm_mat_2", lambda x: ops.norm(x, 2), lambda x: np.linalg.norm(x, 2)),
    OpSpec("norm_mat_neg2", lambda x: ops.norm(x, -2), lambda x: np.linalg.norm(x, -2)),
    OpSpec("norm_mat_dims", lambda x: ops.norm(x, dim=(2, 0)), lambda x: np.sqrt((x ** 2).sum((0, 2))),
           shapes=[(2, 3, 4)]),
    OpSpec("vector_norm_half", lambda x: ops.vector_norm(x, 0.5), lambda x: np.sum(np.abs(x) ** 0.5) ** 2),
    OpSpec("vector_norm_axes", lambda x: ops.vector_norm(x, 2, (0, 2), True),
           lambda x: np.sqrt((x ** 2).sum((0, 2), keepdims=True)), shapes=[(2, 3, 4)]),
    OpSpec("vector_norm_zero", lambda x: ops.vector_norm(x, 0), lambda x: np.float64(np.count_nonzero(x)),
           grad=False),
    OpSpec("matrix_norm_neg1", lambda x: ops.matrix_norm(x, -1), lambda x: np.linalg.norm(x, -1)),
    OpSpec("matrix_norm_batch_keep", lambda x: ops.matrix_norm(x, "fro", keepdims=True),
           lambda x: np.sqrt((x ** 2).sum((-2, -1), keepdims=True)), shapes=[(2, 3, 4)]),
    OpSpec("dist", lambda a, b: ops.dist(a, b, 3), lambda a, b: np.sum(np.abs(a - b) ** 3) ** (1 / 3),
           shapes=[(2, 3), (2, 3)]),
    OpSpec("cond", ops.cond, np.linalg.cond, shapes=[SQ], gen=well_conditioned),
    OpSpec("renorm", lambda x: ops.renorm(x, 2, 0, 1.5), lambda x: x * np.minimum(
        1.0, 1.5 / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-7)), shapes=[(3, 4)]),
    OpSpec("einsum_ext", lambda a, b: ops.einsum_ext("ij,j->i", a, b), np.matmul, shapes=[(2, 3), (3,)]),
    # the sublist form: each operand followed by its subscripts (ints in [0, 52) or ...), then the output's
    OpSpec("einsum_sublists", lambda a, b: ops.einsum(a, [..., 1], b, [..., 2], [..., 1, 2]),
           lambda a, b: np.einsum("...i,...j->...ij", a, b), shapes=[(4,), (2,)]),
    OpSpec("einsum_ext_sublists_implicit", lambda a, b: ops.einsum_ext(a, [0, 27], b, [27, 51]),
           lambda a, b: a @ b, shapes=[(2, 3), (3, 4)]),
    OpSpec("cond_1", lambda a: ops.cond(a, 1), lambda a: np.linalg.cond(a, 1), shapes=[SQ], gen=well_conditioned),
    # ---------------------------------------------------------- eigenvalues, Householder and LU helpers
    # (declared without a gradient in mindseed/ops/_prims/linalg.py: complex results, or packed factor forms)
    # eigenvalues compared as sorted real and imaginary parts (their order is not specified); A V = V diag(w)
    OpSpec("eig", lambda a: _eig_parts(*ops.eig(a), a), lambda a: _np_eig_parts(a), shapes=[(4, 4)], grad=False),
    OpSpec("eigvals", lambda a: _eig_parts(ops.eigvals(a)), lambda a: _np_eig_parts(a)[:2], shapes=[(5, 5)],
           grad=False),
    OpSpec("geqrf", ops.geqrf, lambda a: [np.linalg.qr(a, "raw")[0].T, np.linalg.qr(a, "raw")[1]], shapes=[(4, 3)],
           grad=False),
    OpSpec("orgqr", lambda a: ops.orgqr(*ops.geqrf(a)), lambda a: np.linalg.qr(a)[0], shapes=[(4, 3)], grad=False),
    OpSpec("ormqr_left_transpose", lambda a, c: ops.ormqr(*ops.geqrf(a), c, True, True),
           lambda a, c: np.linalg.qr(a, "complete")[0].T @ c, shapes=[(4, 3), (4, 2)], grad=False),
    OpSpec("ormqr_right", lambda a, c: ops.ormqr(*ops.geqrf(a), c, False),
           lambda a, c: c @ np.linalg.qr(a, "complete")[0], shapes=[(4, 3), (2, 4)], grad=False),
    OpSpec("lu_unpack", ops.lu_unpack, lambda d, piv: list(_np_lu_unpack(d, piv)), shapes=[(4, 4), (4,)],
           gen=[well_conditioned, _lu_pivots], grad=False),
    OpSpec("lu_solve", ops.lu_solve, lambda b, d, piv: np.linalg.solve(_np_plu(d, piv), b),
           shapes=[(4, 2), (4, 4), (4,)], gen=[None, well_conditioned, _lu_pivots], grad=False),
]


def _svd_rebuild(s, u, v):
    return ops.matmul(u * s, v.T)


test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)

A = ops.ones((2, 3))
S = ms.Tensor(np.eye(3, dtype=np.float32))
ERRORS = [
    ErrorSpec("mm_shapes", lambda: ops.mm(A, A), ValueError, "For 'MatMul', the 'x' shape (2, 3) and 'y' shape"),
    ErrorSpec("bmm_batch", lambda: ops.bmm(ops.ones((2, 2, 3)), ops.ones((3, 3, 4))), ValueError,
              "For 'BatchMatMul'"),
    ErrorSpec("inverse_not_square", lambda: ops.inverse(A), ValueError, "For 'MatrixInverse'"),
    ErrorSpec("inverse_int", lambda: ops.inverse(ms.Tensor([[1, 0], [0, 1]])), TypeError, "For 'MatrixInverse'"),
    ErrorSpec("det_not_square", lambda: ops.det(A), ValueError, "For 'MatrixDeterminant'"),
    ErrorSpec("cholesky_not_pd", lambda: ops.cholesky(ms.Tensor([[1.0, 2.0], [2.0, 1.0]])), ValueError,
              "For 'Cholesky'"),
    ErrorSpec("cross_no_3", lambda: ops.cross(ops.ones((4, 2)), ops.ones((4, 2))), ValueError, "For 'Cross'"),
    ErrorSpec("qr_mode", lambda: ops.qr(S, "r"), ValueError, "For 'Qr'"),
    ErrorSpec("norm_str_vector", lambda: ops.norm(ms.Tensor([1.0, 2.0]), "fro"), TypeError, "For 'norm'"),
    ErrorSpec("norm_ord_3d", lambda: ops.norm(ops.ones((2, 2, 2)), 2), ValueError, "For 'norm'"),
    ErrorSpec("matrix_norm_ord", lambda: ops.matrix_norm(S, 3), ValueError, "For 'matrix_norm'"),
    ErrorSpec("tensor_dot_axes", lambda: ops.tensor_dot(A, A, ((0,), (1,))), ValueError, "For 'tensor_dot'"),
    ErrorSpec("dot_1d", lambda: ops.dot(ms.Tensor([1.0]), ms.Tensor([1.0])), ValueError, "For 'dot'"),
    ErrorSpec("outer_2d", lambda: ops.outer(A, A), ValueError, "For 'Mul'"),  # (6, 1) * (2, 3), as MindSpore's
    ErrorSpec("einsum_operands", lambda: ops.einsum("ij,jk->ik", A), ValueError, "For 'Einsum'"),
    ErrorSpec("einsum_sublist_range", lambda: ops.einsum(A, [0, 52]), ValueError,
              "For Einsum, the number in sublist should be in range [0, 52), but got 52"),
    ErrorSpec("einsum_rank", lambda: ops.einsum("ijk->i", A), ValueError, "For 'Einsum'"),
    ErrorSpec("einsum_sizes", lambda: ops.einsum("ij,ij->i", A, ops.ones((2, 4))), ValueError, "For 'Einsum'"),
    ErrorSpec("matrix_solve_rhs", lambda: ops.matrix_solve(S, ops.ones((2, 1))), ValueError, "For 'MatrixSolve'"),
    ErrorSpec("singular_solve", lambda: ops.matrix_solve(ops.zeros((2, 2)), ops.ones((2, 1))), ValueError,
              "For 'MatrixSolve'"),
    ErrorSpec("vander_2d", lambda: ops.vander(A), ValueError, "For 'vander'"),
    ErrorSpec("matrix_power_type", lambda: ops.matrix_power(S, 1.5), TypeError, "For 'MatrixPower'"),
]
test_bad_input = make_error_tests(ERRORS)


def test_svd_matches_numpy_up_to_signs():
    a = np.random.RandomState(0).standard_normal((4, 3)).astype(np.float32)
    s, u, v = ops.svd(ms.Tensor(a))
    u_np, s_np, vh_np = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(s.asnumpy(), s_np, rtol=1e-5)
    np.testing.assert_allclose(np.abs(u.asnumpy()), np.abs(u_np), atol=1e-5)
    np.testing.assert_allclose(np.abs(v.asnumpy()), np.abs(vh_np.T), atol=1e-5)
    s, u, v = ops.svd(ms.Tensor(a.T), full_matrices=True)
    assert u.shape == (3, 3) and v.shape == (4, 4)


def test_qr_complete_shapes_and_product():
    a = np.random.RandomState(1).standard_normal((4, 2))
    q, r = ops.qr(ms.Tensor(a), "complete")
    assert q.shape == (4, 4) and r.shape == (4, 2)
    np.testing.assert_allclose((q @ r).asnumpy(), a, atol=1e-10)


def test_eig_and_eigvals():
    a = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], np.float32)
    w, v = ops.eig(ms.Tensor(a))
    assert w.dtype == ms.complex64
    np.testing.assert_allclose(np.sort(w.asnumpy().real), np.sort(np.linalg.eigvals(a).real), rtol=1e-5)
    np.testing.assert_allclose(a @ v.asnumpy(), v.asnumpy() * w.asnumpy(), atol=1e-4)
    np.testing.assert_allclose(np.sort_complex(ops.eigvals(ms.Tensor([[0.0, 1.0], [-1.0, 0.0]])).asnumpy()),
                               [-1j, 1j], atol=1e-6)


def test_logdet_negative_determinant_is_nan():
    assert np.isnan(ops.logdet(ms.Tensor([[0.0, 1.0], [1.0, 0.0]])).asnumpy())
    sign, logabs = ops.slogdet(ms.Tensor([[0.0, 1.0], [1.0, 0.0]]))
    assert sign.asnumpy() == -1.0 and abs(logabs.asnumpy()) < 1e-7


def test_householder_helpers():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    h, tau = ops.geqrf(ms.Tensor(a))
    q = ops.orgqr(h, tau)
    np.testing.assert_allclose(np.abs(q.asnumpy()), np.abs(np.linalg.qr(a)[0]), atol=1e-5)
    np.testing.assert_allclose(ops.ormqr(h, tau, ms.Tensor(np.eye(2, dtype=np.float32))).asnumpy(), q.asnumpy(),
                               atol=1e-6)


def test_norm_of_int_tensor_is_float32():
    out = ops.norm(ms.Tensor([3, 4]))
    assert out.dtype == ms.float32 and out.asnumpy() == 5.0
    assert ops.norm(ms.Tensor([3.0, 4.0]), dtype=ms.float64).dtype == ms.float64


def test_tensor_methods():
    a = ms.Tensor(np.array([[4.0, 1.0], [1.0, 3.0]], np.float32))
    np.testing.assert_allclose(a.inverse().asnumpy(), np.linalg.inv(a.asnumpy()), rtol=1e-6)
    np.testing.assert_allclose(a.det().asnumpy(), 11.0, rtol=1e-6)
    np.testing.assert_allclose(a.norm().asnumpy(), np.linalg.norm(a.asnumpy()), rtol=1e-6)
    np.testing.assert_allclose(a.norm(1, 0).asnumpy(), [5.0, 4.0])
    assert a.qr(False)[0].shape == (2, 2) and len(a.svd()) == 3
    np.testing.assert_allclose(ms.Tensor([1.0, 2.0]).dot(ms.Tensor([3.0, 4.0])).asnumpy(), 11.0)
    np.testing.assert_allclose(a.mm(a).asnumpy(), a.asnumpy() @ a.asnumpy())
    b = a.copy()
    b.addmm_(a, a, beta=0.0)
    np.testing.assert_allclose(b.asnumpy(), a.asnumpy() @ a.asnumpy())


def test_class_api():
    a = ms.Tensor(np.array([[4.0, 1.0], [1.0, 3.0]], np.float32))
    np.testing.assert_allclose(ops.MatrixInverse()(a).asnumpy(), np.linalg.inv(a.asnumpy()), rtol=1e-6)
    s, u, v = ops.Svd()(a)
    np.testing.assert_allclose((u * s) @ v.T, a.asnumpy(), atol=1e-5)
    assert ops.Einsum("ij->ji")((a,)).shape == (2, 2)
    np.testing.assert_allclose(ops.Cholesky()(a).asnumpy(), np.linalg.cholesky(a.asnumpy()), rtol=1e-6)
    x = ops.MatrixTriangularSolve(lower=True)(ops.tril(a), ms.Tensor([[1.0], [1.0]]))
    np.testing.assert_allclose(x.asnumpy(), np.linalg.solve(np.tril(a.asnumpy()), [[1.0], [1.0]]), rtol=1e-6)
    np.testing.assert_allclose(ops.LpNorm(axis=1, p=1)(a).asnumpy(), [5.0, 4.0])
    np.testing.assert_allclose(ops.MatrixPower(2)(a).asnumpy(), a.asnumpy() @ a.asnumpy())
    b = ms.Tensor([[1.0], [2.0]])
    want = np.linalg.solve(a.asnumpy().T @ a.asnumpy() + 0.5 * np.eye(2), a.asnumpy().T @ b.asnumpy())
    np.testing.assert_allclose(ops.MatrixSolveLs()(a, b, 0.5).asnumpy(), want, rtol=1e-5)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4)])
def test_qr_grad_matches_finite_differences(shape):
    # QR's factors are unique once diag(R) > 0: check a sign-invariant objective of Q and R
    rng = np.random.RandomState(3)
    a = rng.standard_normal(shape)
    wq, wr = rng.standard_normal((shape[0], min(shape))), rng.standard_normal((min(shape), shape[1]))

    def f(x):
        q, r = ops.qr(x)
        s = ops.sign(ops.diagonal(r))
        return ((q * s) * ms.Tensor(wq)).sum() + ((r * ops.expand_dims(s, 1)) * ms.Tensor(wr)).sum()

    g = ms.grad(f)(ms.Tensor(a)).asnumpy()
    eps, num = 1e-6, np.zeros_like(a)
    for i in np.ndindex(*shape):
        ap, am = a.copy(), a.copy()
        ap[i] += eps
        am[i] -= eps
        num[i] = (float(f(ms.Tensor(ap)).asnumpy()) - float(f(ms.Tensor(am)).asnumpy())) / (2 * eps)
    np.testing.assert_allclose(g, num, atol=1e-5, rtol=1e-4)


def test_tensor_dot_takes_axes_whose_sizes_match_backwards():
    # MindSpore's tensor_dot accepts x2's axes in reverse order of size, then flattens x1's contracted axes (in the
    # order given) against x2's: values MindSpore 2.10 printed
    x = np.arange(6.0).reshape(1, 2, 3).astype(np.float32)
    out = ms.ops.tensor_dot(ms.Tensor(x), ms.Tensor(x), ((1, 0), (0, 1)))
    np.testing.assert_array_equal(out.asnumpy(), [[9, 12, 15], [12, 17, 22], [15, 22, 29]])
    a = np.arange(24.0).reshape(2, 3, 4).astype(np.float32)
    b = np.arange(36.0).reshape(3, 3, 4).astype(np.float32)
    out = ms.ops.tensor_dot(ms.Tensor(a), ms.Tensor(b), ((2, 1), (1, 2)))
    np.testing.assert_array_equal(out.asnumpy(), [[440, 1232, 2024], [1232, 3752, 6272]])
    with pytest.raises(ValueError, match="tensor_dot"):
        ms.ops.tensor_dot(ms.Tensor(a), ms.Tensor(b), ((0, 1), (1, 2)))
