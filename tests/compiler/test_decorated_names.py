"""Graph mode: functions reached through decorators (functools.wraps) run their own source with their own globals.

A wrapper made by `functools.wraps` carries the decorated function in `__wrapped__`; the compiler converts the
wrapper's own code (resolved in the wrapper's module), and the function it calls with the function's.
"""
import contextlib
import functools

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _cell_wrap import run_in_cell
from _graph import graph_mode


def t(a):
    return ms.Tensor(np.asarray(a, dtype=np.float32))


@run_in_cell
def mul_fwd(x, y):
    return ops.mul(x, y)


@run_in_cell
def mul_bwd(x, y):
    return ops.grad(mul_fwd, (0,))(x, y)


@run_in_cell
def mul_bwd_both(x, y):
    return ops.grad(mul_fwd, (0, 1))(x, y)


@run_in_cell
def branchy_fwd(x):
    if x.sum() > 0:
        return ops.exp(x)
    return np.float32(2.0) * x


@run_in_cell
def branchy_bwd(x):
    return ops.grad(branchy_fwd)(x)


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_decorated_function_differentiated_inside_decorated_function(mode):
    x, y = t([1.0, 2.0, 3.0]), t([4.0, 5.0, -6.0])
    with graph_mode() if mode == "graph" else contextlib.nullcontext():
        np.testing.assert_allclose(mul_fwd(x, y).asnumpy(), [4.0, 10.0, -18.0])
        g = mul_bwd(x, y)      # one position: the gradient itself
        np.testing.assert_allclose(g.asnumpy(), [4.0, 5.0, -6.0])
        gx, gy = mul_bwd_both(x, y)
        np.testing.assert_allclose(gx.asnumpy(), [4.0, 5.0, -6.0])
        np.testing.assert_allclose(gy.asnumpy(), [1.0, 2.0, 3.0])


def test_decorated_function_with_control_flow_uses_its_own_globals():
    # `np` and `ops` exist only in this module; the branch on a tensor is converted in the function's source
    with graph_mode():
        pos, neg = t([0.5, 1.0]), t([-1.0, -2.0])
        np.testing.assert_allclose(branchy_fwd(pos).asnumpy(), np.exp([0.5, 1.0]), rtol=1e-6)
        np.testing.assert_allclose(branchy_fwd(neg).asnumpy(), [-2.0, -4.0])
        np.testing.assert_allclose(branchy_bwd(pos).asnumpy(), np.exp([0.5, 1.0]), rtol=1e-6)
        np.testing.assert_allclose(branchy_bwd(neg).asnumpy(), [2.0, 2.0])


def test_jitted_wrapper_converts_the_wrapper_not_the_wrapped():
    # the wrapper adds 1 to what the wrapped function returns: converting the wrapped source instead would drop it
    def add_one(fn):
        @functools.wraps(fn)
        def wrapper(x):
            return fn(x) + 1
        return wrapper

    @add_one
    def double(x):
        return x * 2

    f = ms.jit(double)
    np.testing.assert_allclose(f(t([1.0, 2.0])).asnumpy(), [3.0, 5.0])


def test_default_values_come_from_where_the_function_was_defined():
    # `scale` and `shift` are locals of this test, not globals of the module nor closure variables of f / the lambda
    scale, shift = 3.0, 0.5

    def f(x, k=scale, *, b=shift):
        if x.sum() > 0:
            return x * k + b
        return x - b

    g = ms.jit(f)
    np.testing.assert_allclose(g(t([1.0, 2.0])).asnumpy(), [3.5, 6.5])
    np.testing.assert_allclose(g(t([-1.0, -2.0])).asnumpy(), [-1.5, -2.5])
    np.testing.assert_allclose(g(t([1.0]), 2.0, b=1.0).asnumpy(), [3.0])
    lam = ms.jit(lambda x, k=scale: x * k)
    np.testing.assert_allclose(lam(t([1.0, 2.0])).asnumpy(), [3.0, 6.0])
