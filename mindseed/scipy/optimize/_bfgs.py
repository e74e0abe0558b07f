"""BFGS (Wright and Nocedal, 'Numerical Optimization', 1999, algorithm 6.1) with the strong-Wolfe line search."""
import numpy as np

from mindseed.ops import functional as F
from mindseed.scipy.optimize.line_search import search
from mindseed.scipy.optimize._common import GradientOptimizationResults, boolean, default_jac, norm, to_scalar


def descend(func, jac, x0, direction, update, maxiter, order, gtol, line_search_maxiter, h_0=None):
    """The loop BFGS and LBFGS share: search along `direction(state)`, step, stop when the gradient's `order`-norm
    is below `gtol`, else `update(state, s_k, y_k)` the direction's memory. Returns the final state's results."""
    if maxiter is None:
        maxiter = x0.size * 200
    f_0, g_0 = func(x0), jac(x0)
    st = dict(converged=boolean(norm(g_0, np.inf) < gtol), failed=False, k=0, nfev=1, ngev=1, x_k=x0, f_k=f_0,
              g_k=g_0, H_k=h_0, old_old_fval=f_0 + norm(g_0) / 2, line_search_status=0)
    while st["k"] < maxiter:
        p_k = direction(st)
        res = search(func, jac, st["x_k"], p_k, old_fval=st["f_k"], old_old_fval=st["old_old_fval"],
                        gfk=st["g_k"], maxiter=line_search_maxiter)
        st["nfev"] += res["nfev"]
        st["ngev"] += res["ngev"]
        st["failed"] = res["failed"] or not res["done"]
        st["line_search_status"] = res["status"]
        if st["failed"]:
            break
        s_k = res["a_star"] * p_k
        y_k = res["g_star"] - st["g_k"]
        st.update(old_old_fval=st["f_k"], converged=boolean(norm(res["g_star"], order) < gtol), x_k=st["x_k"] + s_k,
                  f_k=res["phi_star"], g_k=res["g_star"])
        if st["converged"]:
            break
        update(st, s_k, y_k)
        st["k"] += 1
    status = 0 if st["converged"] else 1 if st["k"] == maxiter else 2 + st["line_search_status"] if st["failed"] \
        else -1
    return GradientOptimizationResults(
        converged=st["converged"], failed=st["failed"], k=st["k"], nfev=st["nfev"], ngev=st["ngev"], nhev=0,
        x_k=st["x_k"], f_k=to_scalar(st["f_k"]), g_k=st["g_k"], H_k=st["H_k"],
        old_old_fval=to_scalar(st["old_old_fval"]), status=status, line_search_status=st["line_search_status"])


def minimize_bfgs(func, x0, jac=None, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """Minimise `func` from `x0` by BFGS, keeping the inverse Hessian estimate H_k."""
    identity = F.eye(x0.shape[0], x0.shape[0], x0.dtype)

    def direction(st):
        return -1 * F.matmul(st["H_k"], st["g_k"])

    def update(st, s_k, y_k):
        rho = 1. / F.reduce_sum(y_k * s_k)
        s_col, y_col = F.expand_dims(s_k, 1), F.expand_dims(y_k, 1)
        left = identity - rho * (s_col * F.expand_dims(y_k, 0))
        right = identity - rho * (y_col * F.expand_dims(s_k, 0))
        st["H_k"] = F.matmul(F.matmul(left, st["H_k"]), right) + rho * (s_col * F.expand_dims(s_k, 0))

    return descend(func, default_jac(func) if jac is None else jac, x0, direction, update, maxiter, norm, gtol,
                   line_search_maxiter, h_0=identity)
