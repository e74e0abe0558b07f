"""What the optimizers share: scalars out of Tensors, norms, the default gradient and their result records."""
from typing import NamedTuple, Optional

import numpy as np

from mindseed.autograd.grad import GradOperation
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F


def to_scalar(value):
    """A 0-D Tensor as a Python scalar; Python scalars and shaped Tensors as they are."""
    if isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, Tensor):
        return value if value.shape else value.asnumpy().item()
    if isinstance(value, np.generic):
        return value.item()
    raise ValueError(f"{type(value)} are not supported.")


def norm(x, order=None):
    """The infinity norm (order=inf) or the 2-norm of a vector."""
    if order == np.inf:
        return F.reduce_max(F.abs(x))
    return F.sqrt(F.reduce_sum(x ** 2))


def default_jac(func):
    """The gradient of `func` with respect to its first argument (MindSpore's GradOperation())."""
    return GradOperation(get_all=False, get_by_list=False, sens_param=False)(func)


def boolean(value):
    """A condition computed on Tensors or Python values, as a Python bool."""
    return bool(value.asnumpy()) if isinstance(value, Tensor) else bool(value)


class OptimizeResults(NamedTuple):
    """Results of `minimize`: the solution `x`, whether it `success`-fully converged, `status` (0 converged, 1
    maximum iterations, 2 + the line search's status when it failed, -1 undefined), `fun` and `jac` at `x`,
    `hess_inv` (BFGS's inverse Hessian estimate; None for LBFGS) and the counts of function and gradient
    evaluations and of iterations."""
    x: Tensor
    success: bool
    status: int
    fun: float
    jac: Tensor
    hess_inv: Optional[Tensor]
    nfev: int
    njev: int
    nit: int


class GradientOptimizationResults(NamedTuple):
    """The state a BFGS or LBFGS run ends in."""
    converged: bool
    failed: bool
    k: int
    nfev: int
    ngev: int
    nhev: int
    x_k: Tensor
    f_k: float
    g_k: Tensor
    H_k: Tensor
    old_old_fval: float
    status: int
    line_search_status: int
