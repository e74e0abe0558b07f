"""mindspore.scipy.optimize: BFGS / LBFGS / LAGRANGE minimisation and the strong-Wolfe line search, with the
iteration counts and values real MindSpore 2.10 gives (hard-coded here)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor
from mindseed.scipy.optimize import line_search, linear_sum_assignment, minimize


def _himmelblau(p):
    x, y = p
    return (x ** 2 + y - 11.) ** 2 + (x + y ** 2 - 7.) ** 2


def _rosen(x):
    return ((1 - x[:-1]) ** 2).sum() + (100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


@pytest.mark.parametrize("method, nfev, nit", [("BFGS", 18, 10), ("LBFGS", 21, 12)])
def test_minimize_finds_himmelblaus_minimum_in_mindsporess_evaluations(method, nfev, nit):
    res = minimize(_himmelblau, Tensor(np.zeros(2, np.float32)), method=method, options=dict(maxiter=None, gtol=1e-6))
    np.testing.assert_allclose(res.x.asnumpy(), [3.0, 2.0], atol=1e-6)
    assert res.x.dtype == ms.float32
    assert (res.success, res.status, res.fun, res.nfev, res.njev, res.nit) == (True, 0, 0.0, nfev, nfev, nit)
    assert isinstance(res.success, bool) and isinstance(res.fun, float) and isinstance(res.nit, int)
    if method == "BFGS":
        np.testing.assert_allclose(res.hess_inv.asnumpy(), [[0.01622297, -0.00969367], [-0.00969367, 0.03488413]],
                                   rtol=1e-5)
    else:
        assert res.hess_inv is None


def test_bfgs_in_float64_follows_mindspores_path():
    res = minimize(_rosen, Tensor(np.array([-1.2, 1.0, 0.5])), method="BFGS", options=dict(gtol=1e-8))
    np.testing.assert_allclose(res.x.asnumpy(), [1.0, 1.0, 1.0], atol=1e-9)
    assert (res.success, res.status, res.nfev, res.nit) == (True, 0, 63, 46)
    assert res.fun < 1e-18
    stopped = minimize(_rosen, Tensor(np.array([-1.2, 1.0, 0.5])), method="BFGS",
                       options=dict(maxiter=5, line_search_maxiter=2))
    np.testing.assert_allclose(stopped.x.asnumpy(), [-0.69405694, 0.49395318, 0.23101788], rtol=1e-7)
    assert (stopped.success, stopped.status, stopped.nfev, stopped.nit) == (False, 1, 15, 5)
    np.testing.assert_allclose(stopped.fun, 3.1577164268837388, rtol=1e-8)


def test_lbfgs_history_size_and_maxiter():
    res = minimize(_rosen, Tensor(np.array([-1.2, 1.0, 0.5])), method="LBFGS",
                   options=dict(gtol=1e-8, history_size=3, maxiter=7))
    np.testing.assert_allclose(res.x.asnumpy(), [-0.84173176, 0.70232433, 0.50136323], rtol=1e-7)
    assert (res.success, res.status, res.nfev, res.nit) == (False, 1, 13, 7)
    np.testing.assert_allclose(res.fun, 3.4909829434932846, rtol=1e-8)
    full = minimize(_rosen, Tensor(np.array([-1.2, 1.0, 0.5])), method="LBFGS", options=dict(gtol=1e-8))
    np.testing.assert_allclose(full.x.asnumpy(), [1.0, 1.0, 1.0], atol=1e-7)
    assert full.success and full.nit == 54


def test_minimize_passes_args_and_takes_a_jacobian():
    a = Tensor(np.array([1.0, 2.0, 3.0], np.float32))

    def f(x, a, b):
        return ((x - a) ** 2).sum() * b

    res = minimize(f, Tensor(np.zeros(3, np.float32)), args=(a, 2.0), method="BFGS")
    np.testing.assert_allclose(res.x.asnumpy(), [1.0, 2.0, 3.0], atol=1e-5)
    calls = []

    def jac(x):         # MindSpore calls jac with x alone (the args go to func only)
        calls.append(1)
        return 4.0 * (x - a)

    with_jac = minimize(f, Tensor(np.zeros(3, np.float32)), args=(a, 2.0), method="LBFGS", jac=jac)
    np.testing.assert_allclose(with_jac.x.asnumpy(), [1.0, 2.0, 3.0], atol=1e-5)
    assert len(calls) == with_jac.njev


def test_minimize_errors():
    x0 = Tensor(np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="You must specify a solver."):
        minimize(_himmelblau, x0)
    with pytest.raises(ValueError, match="Method CG not recognized"):
        minimize(_himmelblau, x0, method="CG")
    with pytest.raises(TypeError, match="must be a tuple, got \\[1\\]"):
        minimize(_himmelblau, x0, method="BFGS", args=[1])
    with pytest.raises(TypeError, match="'constraint' must be of type function"):
        minimize(_himmelblau, x0, method="LAGRANGE", constraints=[1.0])
    with pytest.raises(ValueError, match="The len of tol must be same as the len of constraints"):
        minimize(_himmelblau, x0, method="LAGRANGE", constraints=[lambda x: x[0]], tol=[1.0, 2.0])


def test_line_search_results_as_mindspore_reports_them():
    r = line_search(lambda x: x[0] ** 2 - x[1] ** 3, Tensor(np.ones(2, np.float32)),
                    Tensor(np.array([-1.0, -1.0], np.float32)))
    assert (r.failed, r.nit, r.nfev, r.ngev, r.k, r.a_k, r.f_k, r.status) == (True, 1, 12, 12, 2, 1.0, 0.0, 1)
    np.testing.assert_array_equal(r.g_k.asnumpy(), [2.0, -3.0])
    x1, p = Tensor(np.array([-1.2, 1.0, 0.5])), Tensor(np.array([1.0, 0.2, -0.3]))
    r = line_search(_rosen, x1, p)
    assert (r.failed, r.nit, r.nfev, r.k, r.status) == (False, 1, 3, 2, 0)
    np.testing.assert_allclose(r.a_k, 0.2020802377414561, rtol=1e-12)
    np.testing.assert_allclose(r.f_k, 45.54841125774479, rtol=1e-12)
    np.testing.assert_allclose(r.g_k.asnumpy(), [13.7959504, 276.627577, -128.617925], rtol=1e-8)
    assert line_search(_rosen, x1, p, maxiter=1).status == 3      # the step is found in the last iteration


def test_lagrange_keeps_the_best_point_meeting_the_constraints():
    def func(x):
        return ((x - 2.0) ** 2).sum()

    def constraint(x):          # x0 + x1 <= 1: the constrained minimum is (0.5, 0.5), where func is 4.5
        return x[0] + x[1] - 1.0

    res = minimize(func, Tensor(np.zeros(2, np.float32)), method="LAGRANGE", constraints=[constraint], tol=[0.01],
                   options=dict(rounds=5, steps=200, learning_rate=0.05))
    assert res.succeeded is True
    assert res.loss_value[0] < 0.01
    np.testing.assert_allclose(res.loss_value[0], res.best_value.sum() - 1.0, rtol=1e-5)
    np.testing.assert_allclose(res.best_value, [0.5, 0.5], atol=0.03)
    assert 4.5 <= res.object_value < 4.7
    np.testing.assert_allclose(res.object_value, ((res.best_value - 2.0) ** 2).sum(), rtol=1e-5)
    # bounds: x = (upper - lower) * sigmoid(p) + lower stays in [0, 0.4]; the best is at the upper bound
    bounded = minimize(lambda x, s: ((x - 2.0) ** 2).sum(), Tensor(np.zeros(2, np.float32)), method="LAGRANGE",
                       constraints=[lambda x, s: s - 1.0],
                       options=dict(rounds=2, steps=100, lower=np.array([0., 0.], np.float32),
                                    upper=np.array([0.4, 0.4], np.float32), coincide_fun=lambda x: x.sum(),
                                    learning_rate=0.1))
    assert bounded.succeeded is True
    assert np.all(bounded.best_value <= 0.4) and np.all(bounded.best_value > 0.35)


def test_linear_sum_assignment_takes_mindspores_argument_order():
    cost = Tensor(np.array([[2, 3, 3], [3, 2, 3], [3, 3, 2]])).astype(ms.float64)
    rows, cols = linear_sum_assignment(cost, False, Tensor(2))
    np.testing.assert_array_equal(rows.asnumpy(), [0, 1, -1])
    np.testing.assert_array_equal(cols.asnumpy(), [0, 1, -1])
    rows, cols = linear_sum_assignment(cost, False)
    np.testing.assert_array_equal(cols.asnumpy(), [0, 1, 2])
