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


def test_cache_keys_numpy_arguments_by_value_and_containers_by_type():
    x = t([1.0, 2.0, 3.0])
    f = ms.jit(lambda x, a: x + ms.Tensor(a))
    for v in ([1.0, 2.0, 3.0], [5.0, 5.0, 5.0], [7.0, 7.0, 7.0]):
        a = np.array(v, np.float32)
        np.testing.assert_array_equal(f(x, a).asnumpy(), x.asnumpy() + a)
        del a               # the next array may get the same id
    a = np.array([1.0, 1.0, 1.0], np.float32)
    f(x, a)
    a += 1                  # changed in place: a new constant
    np.testing.assert_array_equal(f(x, a).asnumpy(), x.asnumpy() + 2)

    g = ms.jit(lambda s: (s[0:2], s, type(s) == tuple, isinstance(s, list)))
    out = g(ms.mutable([1, 2, 3]))
    assert out == ([1, 2], [1, 2, 3], False, True) and type(out[0]) is list
    out = g(ms.mutable((1, 2, 3)))
    assert out == ((1, 2), (1, 2, 3), True, False) and type(out[0]) is tuple


class _Opaque:
    """An unhashable argument: a constant of the graph, keyed by identity."""
    __hash__ = None

    def __init__(self, v):
        self.v = v


def test_cache_key_of_an_unhashable_object_keeps_it_alive():
    f = ms.jit(lambda x, o: x * o.v)
    x = t([1.0])
    for v in (2.0, 3.0, 4.0):
        o = _Opaque(v)
        assert f(x, o).asnumpy()[0] == v
        del o
