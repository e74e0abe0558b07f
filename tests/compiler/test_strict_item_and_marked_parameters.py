"""Two MindSpore graph-mode rules that code written for it relies on (mindnlp's static-cache decoding under
`jit_syntax_level='STRICT'`):

* under STRICT syntax a user's `t.item()` of a value computed inside the graph is a scalar of the graph (MindSpore's
  TensorToScalar), not a graph break: the function compiles whole and each call reads the current value;
* a Tensor whose class defines `__parameter__` (mindnlp's Parameter is such a Tensor subclass) is a Parameter to
  MindSpore's graph compiler: an in-place update of it inside a graph is written back at every call.
Expected values are MindSpore 2.10's for the same code."""
import warnings

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

STRICT = ms.JitConfig(jit_syntax_level="STRICT")


def _count_and_double(x):
    n = (x != 0).sum().item()
    return x * 2, n


def _shift_by_count(x):
    n = (x != 0).sum().item()
    return x + n


def test_item_under_strict_is_a_scalar_of_the_graph():
    f = ms.jit(_count_and_double, jit_config=STRICT)
    g = ms.jit(_shift_by_count, jit_config=STRICT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no fallback
        doubled, n = f(ms.Tensor(np.array([0.0, 1.0, 2.0], np.float32)))
        np.testing.assert_array_equal(doubled.asnumpy(), [0.0, 2.0, 4.0])
        assert n == 2 and isinstance(n, int)       # handed back as a Python int, as MindSpore does
        _, n = f(ms.Tensor(np.array([3.0, 0.0, 0.0], np.float32)))
        assert n == 1                               # read at each call, not fixed when compiled
        np.testing.assert_array_equal(g(ms.Tensor(np.array([0.0, 1.0, 2.0], np.float32))).asnumpy(), [2.0, 3.0, 4.0])
        np.testing.assert_array_equal(g(ms.Tensor(np.array([5.0, 5.0, 5.0], np.float32))).asnumpy(), [8.0, 8.0, 8.0])
    assert len(f.graphs()) == 1 and len(g.graphs()) == 1
    with pytest.raises(ValueError, match="exactly one element"):
        ms.jit(lambda x: x.item(), jit_config=STRICT)(ms.Tensor(np.ones(2, np.float32)))


def test_item_without_strict_still_falls_back_with_the_same_values():
    f = ms.jit(_shift_by_count)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(f(ms.Tensor(np.array([0.0, 1.0, 2.0], np.float32))).asnumpy(), [2.0, 3.0, 4.0])
    assert any("fallback" in str(x.message) for x in w)


class _MarkedParameter(ms.Tensor):
    """A Tensor that marks itself a Parameter the way mindnlp's does."""

    def __parameter__(self):
        """MindSpore's marker."""


class _Cache:
    def __init__(self, cls):
        self.rows = [cls(np.zeros((2, 4), np.float32))]

    def update(self, position, value):
        return ops.index_add(self.rows[0], position, value, 1)


def _write(cache, position, value):
    return cache.update(position, value).sum()


@pytest.mark.parametrize("jit_config", [STRICT, None])
def test_a_tensor_marked_as_a_parameter_is_updated_in_place_by_each_call(jit_config):
    f = ms.jit(_write, jit_config=jit_config)
    cache = _Cache(_MarkedParameter)
    ones = ms.Tensor(np.ones((2, 1), np.float32))
    sums = [float(f(cache, ms.Tensor([i], ms.int32), ones).asnumpy()) for i in range(3)]
    assert sums == [2.0, 4.0, 6.0]
    np.testing.assert_array_equal(cache.rows[0].asnumpy(), [[1.0, 1.0, 1.0, 0.0]] * 2)
    assert len(f.graphs()) == 1
