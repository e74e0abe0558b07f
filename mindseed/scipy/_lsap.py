"""The linear sum assignment (SciPy's / MindSpore's LinearSumAssignment): the shortest augmenting path algorithm
(Crouse 2016), one row at a time, on host numpy arrays; ties resolve as SciPy's implementation resolves them."""
import numpy as np


def _augment(cost, cur, u, v, path, row4col, col4row):
    """Find the shortest augmenting path from row `cur`: (sink column, min value, rows and columns visited,
    shortest path costs)."""
    nr, nc = cost.shape
    remaining = list(range(nc - 1, -1, -1))
    visited_rows, visited_cols = np.zeros(nr, bool), np.zeros(nc, bool)
    shortest = np.full(nc, np.inf)
    min_val, i, sink = 0.0, cur, -1
    while sink == -1:
        visited_rows[i] = True
        index, lowest = -1, np.inf
        for it, j in enumerate(remaining):
            r = min_val + cost[i, j] - u[i] - v[j]
            if r < shortest[j]:
                path[j], shortest[j] = i, r
            if shortest[j] < lowest or (shortest[j] == lowest and row4col[j] == -1):
                lowest, index = shortest[j], it
        min_val = lowest
        if min_val == np.inf:
            raise ValueError("For 'LinearSumAssignment', the cost matrix is infeasible.")
        j = remaining[index]
        if row4col[j] == -1:
            sink = j
        else:
            i = row4col[j]
        visited_cols[j] = True
        remaining[index] = remaining[-1]
        remaining.pop()
    return sink, min_val, visited_rows, visited_cols, shortest


def linear_sum_assignment(cost, maximize=False):
    """(rows, cols) of the assignment of least (greatest with `maximize`) total cost of a 2-D float array, rows
    ascending, min(shape) pairs."""
    cost = np.asarray(cost, np.float64)
    if np.isnan(cost).any() or (np.isinf(cost) & (cost > 0 if maximize else cost < 0)).any():
        raise ValueError("For 'LinearSumAssignment', the cost matrix contains invalid numeric entries.")
    transpose = cost.shape[1] < cost.shape[0]
    if transpose:
        cost = cost.T
    if maximize:
        cost = -cost
    nr, nc = cost.shape
    u, v = np.zeros(nr), np.zeros(nc)
    path, col4row, row4col = np.full(nc, -1), np.full(nr, -1), np.full(nc, -1)
    for cur in range(nr):
        sink, min_val, rows, cols, shortest = _augment(cost, cur, u, v, path, row4col, col4row)
        u[cur] += min_val
        for i in np.nonzero(rows)[0]:
            if i != cur:
                u[i] += min_val - shortest[col4row[i]]
        v[cols] -= min_val - shortest[cols]
        j = sink
        while True:
            i = path[j]
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == cur:
                break
    if transpose:
        order = np.argsort(col4row)
        return col4row[order], order
    return np.arange(nr), col4row
