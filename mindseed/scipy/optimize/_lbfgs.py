"""Limited-memory BFGS: the two-loop recursion over the last `history_size` steps."""
import numpy as np

from mindseed.ops import functional as F
from mindseed.scipy.optimize._bfgs import descend
from mindseed.scipy.optimize._common import boolean, default_jac


def minimize_lbfgs(func, x0, jac=None, history_size=20, maxiter=None, norm=np.inf, gtol=1e-5,
                   line_search_maxiter=10):
    """Minimise `func` from `x0` by LBFGS. A step whose curvature y.s is at most 1e-10 is not remembered and the
    next direction is the plain gradient."""
    steps, diffs = [], []        # (s_k, rho * s_k) and (y_k, rho * y_k), oldest first, at most history_size

    def direction(st):
        return -1 * st.setdefault("search_vector", st["g_k"])

    def update(st, s_k, y_k):
        q = st["g_k"]
        y_s = F.reduce_sum(y_k * s_k)
        if boolean(y_s <= 1e-10):
            st["search_vector"] = q
            return
        rho = 1. / y_s
        steps.append((s_k, rho * s_k))
        diffs.append((y_k, rho * y_k))
        del steps[:-history_size], diffs[:-history_size]
        alphas = []
        for (_, alpha_rate), (y, _) in zip(reversed(steps), reversed(diffs)):
            alpha = F.reduce_sum(alpha_rate * q)
            q = q - alpha * y
            alphas.append(alpha)
        r = y_s / F.reduce_sum(y_k * y_k) * q
        for (s, _), (_, beta_rate), alpha in zip(steps, diffs, reversed(alphas)):
            r = r + alpha * s - F.reduce_sum(beta_rate * r) * s
        st["search_vector"] = r

    return descend(func, default_jac(func) if jac is None else jac, x0, direction, update, maxiter, norm, gtol,
                   line_search_maxiter)
