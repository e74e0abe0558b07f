"""mindspore.scipy.optimize: `minimize` (BFGS, LBFGS and the augmented-Lagrangian LAGRANGE method), the strong-Wolfe
`line_search` and `linear_sum_assignment`, with MindSpore's arguments, results and iteration counts."""
from mindseed.scipy.optimize.line_search import line_search
from mindseed.scipy.optimize.linear_sum_assignment import linear_sum_assignment
from mindseed.scipy.optimize.minimize import minimize

__all__ = ["minimize", "line_search", "linear_sum_assignment"]
