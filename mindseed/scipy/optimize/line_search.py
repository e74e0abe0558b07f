"""An inexact line search satisfying the strong Wolfe conditions (Wright and Nocedal, 'Numerical Optimization',
1999, algorithms 3.5 and 3.6: bracketing, then zooming by cubic, quadratic or bisection steps), counting function
and gradient evaluations as MindSpore does."""
from typing import NamedTuple

import numpy as np

from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.scipy.optimize._common import boolean, default_jac, to_scalar

__all__ = ["line_search"]

_ZOOM_MAXITER = 10      # SciPy's (JAX takes 30)


class _LineSearchResults(NamedTuple):
    """failed: the strong Wolfe conditions were not met; nit, k: iterations; nfev, ngev: evaluations; a_k: the step;
    f_k, g_k: the function and its gradient there; status: 0 passed, 1 the zoom failed, 3 maximum iterations."""
    failed: bool
    nit: int
    nfev: int
    ngev: int
    k: int
    a_k: float
    f_k: float
    g_k: Tensor
    status: int


def _scalar(value, dtype):
    return Tensor(np.array(value, mstype.dtype_to_nptype(dtype)))


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """The minimiser of the cubic through (a, fa), (b, fb) and (c, fc) with slope fpa at a. Its 2x2 system is
    solved in float32 whatever the inputs' dtype, as MindSpore's default-dtype matrices do."""
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    rows = F.stack([F.stack([dc ** 2, -db ** 2]), F.stack([-dc ** 3, db ** 3])])
    rhs = F.stack([fb - fa - fpa * db, fc - fa - fpa * dc])
    coef = F.matmul(F.cast(rows, mstype.float32), F.cast(rhs, mstype.float32)) / denom
    a2, b2 = coef[0], coef[1]
    radical = b2 * b2 - 3. * a2 * fpa
    return a + (-b2 + F.sqrt(radical)) / (3. * a2)


def _quadmin(a, fa, fpa, b, fb):
    """The minimiser of the parabola through (a, fa) and (b, fb) with slope fpa at a."""
    db = b - a
    b2 = (fb - fa - fpa * db) / (db ** 2)
    return a - fpa / (2. * b2)


def _finite_between(x, low, high):
    return boolean(F.isfinite(x)) and boolean(x > low) and boolean(x < high)


def _zoom(fn, low, high, phi_0, g_0, dphi_0, c1, c2):
    """Algorithm 3.6 between the points `low` and `high` (each (a, phi, dphi)). Returns the point found (a, phi,
    dphi, g), whether it failed and the evaluations made. As MindSpore's zoom does, a point that moves `high`
    back to `low` takes the low point the zoom started from."""
    a_low, phi_low, dphi_low = low
    a_high, phi_high, dphi_high = high
    start_low = low
    a_rec, phi_rec = (a_low + a_high) / 2., (phi_low + phi_high) / 2.
    star = (F.ones_like(a_low), phi_low, dphi_low, g_0)
    done, j, evals = False, 0, 0
    while not done and j < _ZOOM_MAXITER:
        dalpha = a_high - a_low
        lo, hi = F.minimum(a_low, a_high), F.maximum(a_low, a_high)
        a_cubic = _cubicmin(a_low, phi_low, dphi_low, a_high, phi_high, a_rec, phi_rec)
        use_cubic = j > 0 and _finite_between(a_cubic, lo + 0.2 * dalpha, hi - 0.2 * dalpha)
        a_quad = _quadmin(a_low, phi_low, dphi_low, a_high, phi_high)
        use_quad = not use_cubic and _finite_between(a_quad, lo + 0.1 * dalpha, hi - 0.1 * dalpha)
        a_j = a_cubic if use_cubic else a_quad if use_quad else (a_low + a_high) / 2.0
        phi_j, g_j, dphi_j = fn(a_j)
        evals += 1
        if boolean(phi_j > phi_0 + c1 * a_j * dphi_0) or boolean(phi_j >= phi_low):
            a_rec, phi_rec = a_high, phi_high
            a_high, phi_high, dphi_high = a_j, phi_j, dphi_j
        elif boolean(F.abs(dphi_j) <= -c2 * dphi_0):
            done, star = True, (a_j, phi_j, dphi_j, g_j)
        else:
            if boolean(dphi_j * (a_high - a_low) >= 0.):
                a_high, phi_high, dphi_high = start_low
            a_rec, phi_rec = a_low, phi_low
            a_low, phi_low, dphi_low = a_j, phi_j, dphi_j
        j += 1
    return star, j == _ZOOM_MAXITER, evals


def search(func, jac, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9, maxiter=20):
    """Algorithm 3.5 from `xk` along `pk`: the state MindSpore's LineSearch cell returns (a dict)."""
    dtype = xk.dtype

    def fval_and_grad(alpha):
        x = xk + alpha * pk
        g = jac(x)
        return func(x), g, _dot(g, pk)

    zero, one = _scalar(0., dtype), _scalar(1., dtype)
    if old_fval is None or gfk is None:
        nfev = ngev = 1
        phi_0, g_0, dphi_0 = fval_and_grad(zero)
    else:
        nfev = ngev = 0
        phi_0, g_0 = old_fval, gfk
        dphi_0 = _dot(g_0, pk)
    start = one
    if old_old_fval is not None:
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        if boolean(F.isfinite(candidate)):
            start = F.minimum(candidate, one)

    done = failed = False
    i = 1
    a_prev, phi_prev, dphi_prev = zero, phi_0, dphi_0
    star = (zero, phi_0, dphi_0, g_0)
    while not done and i <= maxiter:
        a_i = a_prev * 2.0 if i > 1 else start
        phi_i, g_i, dphi_i = fval_and_grad(a_i)
        nfev, ngev = nfev + 1, ngev + 1
        if boolean(phi_i > phi_0 + c1 * a_i * dphi_0) or (boolean(phi_i >= phi_prev) and i > 1):
            star, failed, evals = _zoom(fval_and_grad, (a_prev, phi_prev, dphi_prev), (a_i, phi_i, dphi_i),
                                        phi_0, g_0, dphi_0, c1, c2)
            done, nfev, ngev = True, nfev + evals, ngev + evals
        elif boolean(F.abs(dphi_i) <= -c2 * dphi_0):
            done, star = True, (a_i, phi_i, dphi_i, g_i)
        elif boolean(dphi_i >= 0.):
            star, failed, evals = _zoom(fval_and_grad, (a_i, phi_i, dphi_i), (a_prev, phi_prev, dphi_prev),
                                        phi_0, g_0, dphi_0, c1, c2)
            done, nfev, ngev = True, nfev + evals, ngev + evals
        i += 1
        a_prev, phi_prev, dphi_prev = a_i, phi_i, dphi_i
    status = 1 if failed else 3 if i > maxiter else 0
    a_star = star[0]
    if dtype != mstype.float64 and boolean(F.abs(a_star) < 1e-8):
        a_star = F.sign(a_star) * 1e-8
    return dict(done=done, failed=failed, i=i, nfev=nfev, ngev=ngev, a_star=a_star, phi_star=star[1],
                dphi_star=star[2], g_star=star[3], status=status)


def _dot(a, b):
    return F.reduce_sum(a * b)


def line_search(f, xk, pk, jac=None, gfk=None, old_fval=None, old_old_fval=None, c1=1e-4, c2=0.9, maxiter=20):
    """Inexact line search from `xk` along the descent direction `pk` satisfying the strong Wolfe conditions with
    constants `c1` and `c2`, in at most `maxiter` bracketing steps. `jac` defaults to the gradient of `f`; `gfk` and
    `old_fval` (the gradient and value at `xk`) save their evaluation. Returns `_LineSearchResults`."""
    state = search(f, default_jac(f) if jac is None else jac, xk, pk, old_fval, old_old_fval, gfk, c1, c2, maxiter)
    return _LineSearchResults(failed=state["failed"] or not state["done"], nit=state["i"] - 1, nfev=state["nfev"],
                              ngev=state["ngev"], k=state["i"], a_k=to_scalar(state["a_star"]),
                              f_k=to_scalar(state["phi_star"]), g_k=state["g_star"], status=state["status"])
