"""mindspore.scipy.optimize.linear_sum_assignment: the LinearSumAssignment primitive with MindSpore's argument
order (cost matrix, maximize, dimension limit)."""
import sys

from mindseed.common.tensor import Tensor
from mindseed.scipy.ops import LinearSumAssignment

__all__ = ["linear_sum_assignment"]

def linear_sum_assignment(cost_matrix, maximize, dimension_limit=None):
    """Solve the linear sum assignment problem of the 2-D `cost_matrix` (a maximum weight matching when `maximize`);
    `dimension_limit` (a 0-D int64 Tensor; default ``Tensor(sys.maxsize)``, made at the call so that importing
    the module makes no Tensor) limits the columns used. Returns (row_idx, col_idx), padded with -1."""
    if dimension_limit is None:
        dimension_limit = Tensor(sys.maxsize)
    return LinearSumAssignment()(cost_matrix, dimension_limit, maximize)
