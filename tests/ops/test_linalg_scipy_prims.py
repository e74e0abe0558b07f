"""Op-table rows of the linear-algebra primitives under mindseed.scipy (Eigh, LU, LuSolvePivots, LstsqV2): values
against numpy / SciPy's conventions, gradients against finite differences, graph against PyNative."""
import numpy as np

from mindseed.scipy import linalg
from mindseed.scipy.ops import LU
from _harness import OpSpec, make_tests


def _spd_gen(rng, shape):
    m = rng.rand(*shape)
    return m @ m.T + shape[-1] * np.eye(shape[-1])


def _well_gen(rng, shape):
    return rng.rand(*shape) + shape[-1] * np.eye(shape[-1])


def _lu_packed_np(a):
    """Doolittle LU with partial pivoting, L (unit, below the diagonal) and U packed (LAPACK's getrf)."""
    a = a.copy()
    n = a.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        a[[k, p]] = a[[p, k]]
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a


SPECS = [
    OpSpec("eigh_values", lambda a: linalg.eigh(a, eigvals_only=True), np.linalg.eigvalsh, shapes=[(4, 4)],
           gen=_spd_gen, dtypes=("float64",), grad_rtol=1e-3),
    OpSpec("lu_packed", lambda a: LU()(a)[0], _lu_packed_np, shapes=[(4, 4)], gen=_well_gen, dtypes=("float64",),
           grad=False),
    OpSpec("lu_solve", lambda a, b: linalg.lu_solve(linalg.lu_factor(a), b), np.linalg.solve,
           shapes=[(4, 4), (4, 2)], gen=[_well_gen, None], dtypes=("float64",), grad=False),
    OpSpec("lstsq_solution", lambda a, b: linalg.lstsq(a, b)[0], lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0],
           shapes=[(5, 3), (5, 2)], dtypes=("float64",), grad_rtol=1e-3),
]
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)
