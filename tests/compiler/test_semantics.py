"""Graph mode keeps Python's and MindSpore's semantics: branches that return next to branches that fall through,
the compile cache telling apart arguments that look alike, the types of values carried out of control flow."""
import numpy as np

import mindseed as ms
from _graph import no_fallback


def t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype=dtype))


def _elif_fallthrough(x, n):
    if n == 0:
        return x
    elif n == 1:
        x = x * 2
    else:
        return -x
    return x + 100


def _elif_fallthrough_on_tensor(x):
    if x.sum() > 0:
        return x
    elif x.sum() > -5:
        x = x * 2
    else:
        return -x
    return x + 100


def test_returning_branches_next_to_a_branch_that_falls_through():
    x = t([1.0, 2.0])
    f = ms.jit(_elif_fallthrough)
    for n in (0, 1, 2):
        np.testing.assert_array_equal(no_fallback(f, x, n).asnumpy(), _elif_fallthrough(x, n).asnumpy())
    g = ms.jit(_elif_fallthrough_on_tensor)
    for v in (x, -x, x * -10):
        np.testing.assert_array_equal(no_fallback(g, v).asnumpy(), _elif_fallthrough_on_tensor(v).asnumpy())
