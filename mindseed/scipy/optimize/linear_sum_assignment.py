"""mindspore.scipy.optimize.linear_sum_assignment: the LinearSumAssignment primitive with MindSpore's argument
order (cost matrix, maximize, dimension limit)."""
import sys

from mindseed.common.tensor import Tensor
from mindseed.scipy.ops import LinearSumAssignment

__all__ = ["linear_sum_assignment"]

_NO_LIMIT = Tensor(sys.maxsize)


def linear_sum_assignment(cost_matrix, maximize, dimension_limit=_NO_LIMIT):
    """Solve the linear sum assignment problem of the 2-D `cost_matrix` (a maximum weight matching when `maximize`);
    `dimension_limit` (a 0-D int64 Tensor) limits the columns used. Returns (row_idx, col_idx), padded with -1."""
    return LinearSumAssignment()(cost_matrix, dimension_limit, maximize)
