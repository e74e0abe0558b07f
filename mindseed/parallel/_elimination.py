"""Exact minimisation of a sum of cost tables over a graph of choices, by elimination (the strategy search's solver,
`_search`).

The strategy search's cost is a sum of factors: each operator's own cost (its strategy: a node) and, per input it
reads from another operator, the redistribution between the producer's strategy and its own (an edge; a factor over
the operator and all its producers when its cuts follow its inputs'). MindSpore's dynamic programming
(the papers' edge/node elimination) contracts such a graph: a node with one edge in and one out merges into an
edge (node elimination), parallel edges between two operators add up (edge elimination), and a node hanging off one
other folds into it (contract / merge elimination). Each is a case of eliminating one variable: combine the factors
holding it and keep, for every choice of its neighbours, its best choice. Eliminating every variable in turn (the
one whose neighbours span the smallest table first) is exact on any DAG, not only on chains and the graphs the
named eliminations reduce, at a cost exponential only in the width of the order found.

With a per-rank memory limit, each operator's choice also holds memory (a node term), and a plan whose total exceeds
the limit is ruled out: the tables then hold, per choice of the neighbours, the Pareto front of (seconds, bytes)
instead of one minimum (MindSpore keeps a list of costs per strategy pair and selects within the memory capacity).

`solve(domains, factors, memory=None, limit=None)` returns (seconds, picks) of the cheapest plan within the limit, or
None when none fits. The fronts can grow large on big graphs: past a work budget the solver takes the cheapest
fitting plan among the minima of seconds + lam * bytes (a Lagrangian relaxation, bisecting lam), exact only on the
front's lower convex hull.
"""
import itertools

import numpy as np

__all__ = ["solve", "elimination_order"]


def elimination_order(domains, scopes):
    """Variables in the order they are eliminated: each time the one whose neighbours (the variables sharing a
    factor with it) span the smallest table."""
    neighbours = [set() for _ in domains]
    for scope in scopes:
        for v in scope:
            neighbours[v].update(scope)
    for v, n in enumerate(neighbours):
        n.discard(v)
    left, order = set(range(len(domains))), []
    while left:
        v = min(left, key=lambda u: (int(np.prod([domains[w] for w in neighbours[u]], dtype=np.float64)), u))
        order.append(v)
        left.discard(v)
        for w in neighbours[v]:
            neighbours[w].update(neighbours[v] - {w})
            neighbours[w].discard(v)
    return order


def _aligned(scope, table, to):
    """`table` (axes in `scope` order) broadcast against the axes of `to`."""
    perm = sorted(range(len(scope)), key=lambda k: to.index(scope[k]))
    t = np.transpose(table, perm)
    shape = [1] * len(to)
    for k in perm:
        shape[to.index(scope[k])] = table.shape[k]
    return t.reshape(shape)


def _solve_min(domains, factors):
    """The minimum of the sum of `factors` ((scope, numpy table) pairs) and its picks."""
    factors = [(tuple(s), np.asarray(t, dtype=np.float64)) for s, t in factors]
    kept = []   # (variable, scope of the rest, argmin table over the rest)
    for v in elimination_order(domains, [s for s, _ in factors]):
        mine = [f for f in factors if v in f[0]]
        factors = [f for f in factors if v not in f[0]]
        rest = tuple(sorted({u for s, _ in mine for u in s} - {v}))
        scope = rest + (v,)
        total = np.zeros([domains[u] for u in scope])
        for s, t in mine:
            total = total + _aligned(s, t, scope)
        kept.append((v, rest, np.argmin(total, axis=-1)))
        factors.append((rest, np.min(total, axis=-1)))
    best = float(sum(float(t) for _, t in factors))
    if not np.isfinite(best):
        return None
    picks = [0] * len(domains)
    for v, rest, arg in reversed(kept):
        picks[v] = int(arg[tuple(picks[u] for u in rest)])
    return best, picks


def _front(points, limit):
    """The Pareto front of (seconds, bytes, picks) points within `limit` bytes: by seconds, each using less memory
    than every cheaper one."""
    out = []
    for p in sorted(points, key=lambda p: (p[0], p[1])):
        if p[1] <= limit and np.isfinite(p[0]) and (not out or p[1] < out[-1][1]):
            out.append(p)
    return out


class _OverBudget(Exception):
    """The Pareto fronts grew past the work budget (`solve`'s `budget`)."""


def _solve_front(domains, factors, memory, limit, budget=None):
    """`_solve_min` with each variable's choice holding `memory[v][choice]` bytes and the total held within
    `limit`: Pareto fronts of (seconds, bytes, picks) per choice of the neighbours. Raises `_OverBudget` past
    `budget` points combined."""
    work = [0]

    def front_of(points):
        work[0] += len(points)
        if budget is not None and work[0] > budget:
            raise _OverBudget
        return _front(points, limit)

    tables = []
    for scope, t in factors:
        t = np.asarray(t, dtype=np.float64)
        tables.append((tuple(scope), {idx: [(float(t[idx]), 0, ())] for idx in np.ndindex(*t.shape)}))
    for v, mem in enumerate(memory):
        tables.append(((v,), {(c,): [(0.0, int(mem[c]), ())] for c in range(domains[v])}))
    for v in elimination_order(domains, [s for s, _ in tables]):
        mine = [f for f in tables if v in f[0]]
        tables = [f for f in tables if v not in f[0]]
        rest = tuple(sorted({u for s, _ in mine for u in s} - {v}))
        out = {}
        for idx in itertools.product(*(range(domains[u]) for u in rest)):
            at = dict(zip(rest, idx))
            points = []
            for c in range(domains[v]):
                at[v] = c
                front = [(0.0, 0, ((v, c),))]
                for s, t in mine:
                    got = t[tuple(at[u] for u in s)]
                    front = front_of([(a[0] + b[0], a[1] + b[1], a[2] + b[2]) for a in front for b in got])
                    if not front:
                        break
                points += front
            out[idx] = front_of(points)
        tables.append((rest, out))
    front = [(0.0, 0, ())]
    for _, t in tables:
        front = _front([(a[0] + b[0], a[1] + b[1], a[2] + b[2]) for a in front for b in t[()]], limit)
    if not front:
        return None
    seconds, _, chosen = front[0]
    picks = [0] * len(domains)
    for v, c in chosen:
        picks[v] = c
    return seconds, picks


def _solve_lagrange(domains, factors, memory, limit):
    """The cheapest plan within `limit` among those minimising seconds + lam * bytes for some lam >= 0: the least lam
    whose minimum fits, found by bisection (the plans on the lower convex hull of the Pareto front; not always the
    cheapest plan that fits)."""
    def at(lam):
        got = _solve_min(domains, list(factors) + [((v,), lam * np.asarray(m, dtype=np.float64))
                                                    for v, m in enumerate(memory)])
        if got is None:   # every plan forbidden
            return np.inf, np.inf, None
        picks = got[1]
        held = sum(memory[v][c] for v, c in enumerate(picks))
        seconds = sum(float(t[tuple(picks[u] for u in s)]) for s, t in factors)
        return seconds, held, picks

    hi = 1.0
    while at(hi)[1] > limit:
        hi *= 16.0
        if hi > 1e30:
            return None
    lo = 0.0
    best = at(hi)
    for _ in range(40):   # to lam within 1 % (each step: one elimination)
        mid = (lo + hi) / 2 if lo else hi / 16.0
        got = at(mid)
        if got[1] <= limit:
            hi, best = mid, got
        else:
            lo = mid
        if lo and hi - lo <= 1e-2 * hi:
            break
    return best[0], best[2]


def solve(domains, factors, memory=None, limit=None, budget=200_000):
    """The cheapest choice of every variable.

    Args:
        domains (list[int]): the number of choices of each variable.
        factors (list): (scope, table) pairs: `table` (a numpy array, one axis per variable of the tuple `scope`)
            gives the seconds of each combination of their choices (inf: not allowed).
        memory (list): per variable, the bytes each of its choices holds (a sequence). Default: none counted.
        limit (float): the most bytes a plan may hold (the sum over the variables). Default: no limit.
        budget (int): the most (seconds, bytes) points the Pareto fronts may combine when the limit binds; past it
            the plan is the cheapest fitting one on the lower convex hull of the Pareto front (`_solve_lagrange`:
            minimum of seconds + lam * bytes, bisecting lam), which may cost more than the cheapest that fits.

    Returns:
        (seconds, picks) of the cheapest plan within the limit (`picks[v]`: the choice of variable v), or None when
        no plan is allowed.
    """
    if memory is None or limit is None:
        return _solve_min(domains, factors)
    best = _solve_min(domains, factors)
    if best is None:
        return None
    if sum(memory[v][c] for v, c in enumerate(best[1])) <= limit:   # the limit does not bind
        return best
    if sum(min(m) for m in memory) > limit:
        return None
    try:
        return _solve_front(domains, factors, memory, limit, budget)
    except _OverBudget:
        return _solve_lagrange(domains, factors, memory, limit)
