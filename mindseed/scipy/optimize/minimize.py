"""mindspore.scipy.optimize.minimize."""
from mindseed.scipy.optimize._bfgs import minimize_bfgs
from mindseed.scipy.optimize._common import OptimizeResults
from mindseed.scipy.optimize._lagrange import minimize_lagrange
from mindseed.scipy.optimize._lbfgs import minimize_lbfgs

__all__ = ["minimize", "OptimizeResults"]


def _check_lagrange(func, constraints, options, tol):
    if not callable(func):
        raise TypeError(f"'func' must be of type function, but got {type(func)}")
    if "coincide_fun" in options and not callable(options["coincide_fun"]):
        raise TypeError(f"'coincide_fun' must be of type function, but got {type(options['coincide_fun'])}")
    for constraint in constraints:
        if not callable(constraint):
            raise TypeError(f"'constraint' must be of type function, but got {type(constraint)}")
    if tol is not None and len(tol) != len(constraints):
        raise ValueError("The len of tol must be same as the len of constraints")


def minimize(func, x0, args=(), method=None, jac=None, hess=None, hessp=None, bounds=None, constraints=(),
             tol=None, callback=None, options=None):
    """Minimise the scalar function `func(x, *args)` of the 1-D Tensor `x` from `x0` with `method` 'BFGS', 'LBFGS'
    or 'LAGRANGE' (inequality `constraints` c(x) < 0; `tol`: their save tolerances). `jac` defaults to the
    gradient of `func` by automatic differentiation. `options`: maxiter, gtol, norm, line_search_maxiter,
    history_size (LBFGS); save_tol, obj_weight, lower, upper, learning_rate, coincide_fun, rounds, steps, log_sw
    (LAGRANGE). Returns `OptimizeResults` (LAGRANGE: its own results). hess, hessp, bounds and callback are SciPy's
    arguments, which MindSpore accepts and does not use."""
    if method is None:
        raise ValueError("You must specify a solver.")
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to mindspore.scipy.optimize.minimize must be a tuple, got {args}")

    def with_args(x):
        return func(x, *args)

    kind = method.lower()
    if kind in ("bfgs", "lbfgs"):
        solve = minimize_bfgs if kind == "bfgs" else minimize_lbfgs
        res = solve(with_args, x0, jac, **options)
        return OptimizeResults(x=res.x_k, success=res.converged and not res.failed, status=res.status, fun=res.f_k,
                               jac=res.g_k, hess_inv=res.H_k if kind == "bfgs" else None, nfev=res.nfev,
                               njev=res.ngev, nit=res.k)
    if kind == "lagrange":
        _check_lagrange(func, constraints, options, tol)
        return minimize_lagrange(func, x0, constraints, tol, **options)
    raise ValueError(f"Method {method} not recognized")
