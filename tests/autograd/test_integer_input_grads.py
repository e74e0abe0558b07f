"""Gradients of integer inputs, as MindSpore 2.10 gives them (values from real MindSpore, PyNative and @ms.jit).

An integer input is differentiated. A primitive that computes integer operands as floats itself (Sqrt,
Reciprocal, Div of integers) hands back its float gradient; after type promotion (a float operand, Tensor or
Python number) or for an integer result the gradient is cast back to the input's integer dtype (truncated).
"""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

XI = np.array([1, 2, 4], np.int32)
XF = np.array([0.5, 1.5, 2.0], np.float32)

CASES = {
    "sqrt": (lambda a: ops.sqrt(a), ms.float32, [0.5, 0.35355338, 0.25]),
    "reciprocal": (lambda a: ops.reciprocal(a), ms.float32, [-1.0, -0.25, -0.0625]),
    "div_py_int": (lambda a: a / 2, ms.float32, [0.5, 0.5, 0.5]),
    "mul_py_float": (lambda a: a * 2.5, ms.int32, [2, 2, 2]),
    "pow_py_float": (lambda a: ops.pow(a, 0.5), ms.int32, [0, 0, 0]),
    "mean": (lambda a: ops.mean(a), ms.int32, [0, 0, 0]),
    "square": (lambda a: ops.square(a), ms.int32, [2, 4, 8]),
    "sum": (lambda a: a.sum(), ms.int32, [1, 1, 1]),
    "cast": (lambda a: ops.cast(a, ms.float32) * 2.5, ms.int32, [2, 2, 2]),
    "mul_float_tensor": (lambda a: a * ms.Tensor(XF), ms.int32, [0, 1, 2]),
    "div_float_tensor": (lambda a: ops.div(a, ms.Tensor(XF)), ms.int32, [2, 0, 0]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("jit", [False, True])
def test_integer_input_gradient(name, jit):
    fn, dtype, expected = CASES[name]
    g = ms.grad(fn)
    got = (ms.jit(g) if jit else g)(ms.Tensor(XI))
    assert got.dtype == dtype
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6)
