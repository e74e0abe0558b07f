"""mindseed.scipy: linalg functions against numpy, their gradients against finite differences, the ops (Eig, LU,
LinearSumAssignment) and ops_wrapper."""
import itertools

import numpy as np
import pytest

import mindseed as ms
from mindseed.scipy import linalg, ops_wrapper
from mindseed.scipy.ops import Eig, LinearSumAssignment, LU
from mindseed.ops.operations.linalg_ops import Eigh
from _graph import graph_mode
from _harness import central_difference as _fd

RS = np.random.RandomState(0)
T = lambda a: ms.Tensor(np.asarray(a))  # noqa: E731


def _spd(n):
    m = RS.rand(n, n)
    return m @ m.T + n * np.eye(n)


@pytest.mark.parametrize("trans, lower, unit", list(itertools.product(["N", "T", "C", 1], [True, False],
                                                                      [True, False])))
def test_solve_triangular_matches_numpy(trans, lower, unit):
    a = RS.rand(4, 4) + np.eye(4)
    b = RS.rand(4, 2)
    tri = np.tril(a) if lower else np.triu(a)
    if unit:
        np.fill_diagonal(tri, 1.0)
    m = tri if trans == "N" else tri.T
    np.testing.assert_allclose(linalg.solve_triangular(T(a), T(b), trans, lower, unit).asnumpy(),
                               np.linalg.solve(m, b), rtol=1e-10)
    np.testing.assert_allclose(linalg.solve_triangular(T(a), T(b[:, 0]), trans, lower, unit).asnumpy(),
                               np.linalg.solve(m, b[:, 0]), rtol=1e-10)


def test_solve_triangular_gradient_reads_one_triangle():
    a, b = RS.rand(3, 3) + np.eye(3), RS.rand(3, 2)
    f = lambda x, y: linalg.solve_triangular(x, y, "T", True).sum()  # noqa: E731
    ga, gb = ms.grad(f, grad_position=(0, 1))(T(a), T(b))
    num = lambda x: np.linalg.solve(np.tril(x).T, b).sum()  # noqa: E731
    np.testing.assert_allclose(ga.asnumpy(), _fd(num, a), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(gb.asnumpy(), _fd(lambda y: np.linalg.solve(np.tril(a).T, y).sum(), b), rtol=1e-5)


def test_solve_triangular_errors():
    with pytest.raises(ValueError, match="Augment\\[trans\\]"):
        linalg.solve_triangular(T(np.eye(2)), T(np.ones(2)), "X")
    with pytest.raises(ValueError, match="do not match"):
        linalg.solve_triangular(T(np.ones((3, 4, 5, 5))), T(np.ones((5, 10))))
    with pytest.raises(ValueError, match="square"):
        linalg.solve_triangular(T(np.ones((4, 5))), T(np.ones(4)))


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_cho_factor_cho_solve(lower):
    a, b = _spd(4), RS.rand(4, 2)
    low = np.linalg.cholesky(a)
    c, flag = linalg.cho_factor(T(a), lower)
    assert flag is lower
    np.testing.assert_allclose(c.asnumpy(), low if lower else low.T, rtol=1e-10)
    np.testing.assert_allclose(linalg.cholesky(T(a), lower).asnumpy(), low if lower else low.T, rtol=1e-10)
    np.testing.assert_allclose(linalg.cho_solve((c, lower), T(b)).asnumpy(), np.linalg.solve(a, b), rtol=1e-8)
    with graph_mode():
        x = ms.jit(lambda cc, bb: linalg.cho_solve((cc, lower), bb))(c, T(b))
    np.testing.assert_allclose(x.asnumpy(), np.linalg.solve(a, b), rtol=1e-8)


def test_eigh_values_vectors_and_gradient():
    a = _spd(4)
    w, v = linalg.eigh(T(a))
    np.testing.assert_allclose(w.asnumpy(), np.linalg.eigvalsh(a), rtol=1e-10)
    np.testing.assert_allclose(a @ v.asnumpy(), v.asnumpy() * w.asnumpy(), atol=1e-9)
    assert linalg.eigh(T(a), eigvals_only=True).shape == (4,)
    m = RS.rand(4, 4)           # not symmetric: only the upper triangle is read
    g = ms.grad(lambda x: Eigh(True, False)(x)[0].sum() + (Eigh(True, False)(x)[1] ** 2).sum())(T(m))
    num = _fd(lambda x: np.linalg.eigvalsh(np.triu(x) + np.triu(x, 1).T).sum() + 4.0, m)
    np.testing.assert_allclose(g.asnumpy(), num, atol=1e-6)


def test_lu_family_det_inv_block_diag():
    a, b = RS.rand(4, 4) + np.eye(4), RS.rand(4)
    p, low, up = linalg.lu(T(a))
    np.testing.assert_allclose(p.asnumpy() @ low.asnumpy() @ up.asnumpy(), a, rtol=1e-10)
    assert np.allclose(np.triu(low.asnumpy(), 1), 0) and np.allclose(np.diag(low.asnumpy()), 1)
    lu_piv = linalg.lu_factor(T(a))
    assert lu_piv[1].dtype == ms.int32
    np.testing.assert_allclose(linalg.lu_solve(lu_piv, T(b)).asnumpy(), np.linalg.solve(a, b), rtol=1e-8)
    np.testing.assert_allclose(linalg.lu_solve(lu_piv, T(b), trans=1).asnumpy(), np.linalg.solve(a.T, b), rtol=1e-8)
    packed, piv, perm = LU()(T(a))
    np.testing.assert_allclose(packed.asnumpy(), lu_piv[0].asnumpy())
    assert perm.dtype == ms.int32
    np.testing.assert_allclose(linalg.det(T(a)).asnumpy(), np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(linalg.inv(T(np.array([[2, 0], [0, 4]], np.int32))).asnumpy(), [[0.5, 0], [0, 0.25]])
    out = linalg.block_diag(T(np.ones((1, 2))), T(np.array([3.0])), T(2 * np.ones((2, 1))))
    np.testing.assert_array_equal(out.asnumpy(), [[1, 1, 0, 0], [0, 0, 3, 0], [0, 0, 0, 2], [0, 0, 0, 2]])


def test_eig_and_its_errors():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    w, v = Eig(True)(T(a))
    assert w.dtype == ms.complex64
    np.testing.assert_allclose(a @ v.asnumpy(), v.asnumpy() * w.asnumpy(), atol=1e-5)
    np.testing.assert_allclose(np.sort(Eig(False)(T(a))[0].asnumpy().real), np.sort(np.linalg.eigvals(a).real),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="should be at lease 2"):
        Eig(True)(T(np.ones(3, np.float32)))


def test_linear_sum_assignment_with_a_dimension_limit():
    c = T(np.array([[2, 3, 3], [3, 2, 3], [3, 3, 2]], np.float32))
    rows, cols = LinearSumAssignment()(c, ms.Tensor(2), False)
    assert rows.asnumpy().tolist() == [0, 1, -1] and cols.asnumpy().tolist() == [0, 1, -1]
    rows, cols = LinearSumAssignment()(c, ms.Tensor(3), True)
    assert cols.asnumpy().tolist() == [2, 0, 1]          # among equal totals, SciPy's choice
    tall = T(np.array([[4, 1, 3], [2, 0, 5], [1, 1, 1], [0, 9, 9]], np.float32))
    rows, cols = LinearSumAssignment()(tall, ms.Tensor(3), False)
    assert rows.asnumpy().tolist() == [1, 2, 3] and cols.asnumpy().tolist() == [1, 2, 0]
    with pytest.raises(RuntimeError, match="dimension_limit must <="):
        LinearSumAssignment()(c, ms.Tensor(4), False)


def test_matrix_set_diag():
    x = T(np.zeros((3, 3), np.float32))
    out = ops_wrapper.matrix_set_diag(x, T(np.array([1.0, 2.0, 3.0], np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), np.diag([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="input k"):
        ops_wrapper.matrix_set_diag(x, T(np.ones(3, np.float32)), k=1.5)

