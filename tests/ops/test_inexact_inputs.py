"""The transcendental functions take floating or complex tensors only, as MindSpore's CPU kernels do (an int32 sin
is a TypeError there); sqrt and reciprocal still turn integers into Float32."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

X = np.array([0.25, 0.5, 0.75], np.float32)
INEXACT_ONLY = [("sin", "Sin", np.sin), ("cos", "Cos", np.cos), ("tan", "Tan", np.tan), ("asin", "Asin", np.arcsin),
                ("acos", "ACos", np.arccos), ("atan", "Atan", np.arctan), ("sinh", "Sinh", np.sinh),
                ("cosh", "Cosh", np.cosh), ("tanh", "Tanh", np.tanh), ("asinh", "Asinh", np.arcsinh),
                ("atanh", "Atanh", np.arctanh), ("exp", "Exp", np.exp), ("log", "Log", np.log),
                ("log1p", "Log1p", np.log1p), ("expm1", "Expm1", np.expm1), ("rsqrt", "Rsqrt", lambda a: a ** -0.5),
                ("sigmoid", "Sigmoid", lambda a: 1 / (1 + np.exp(-a))), ("log2", None, np.log2),
                ("log10", None, np.log10)]


@pytest.mark.parametrize("name, cls, ref", INEXACT_ONLY)
def test_floating_inputs_compute(name, cls, ref):
    out = getattr(ops, name)(ms.Tensor(X))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), ref(X.astype(np.float64)), rtol=1e-5)
    if cls is not None:
        np.testing.assert_allclose(getattr(ops, cls)()(ms.Tensor(X)).asnumpy(), out.asnumpy())


@pytest.mark.parametrize("name, cls, ref", INEXACT_ONLY)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.bool_])
def test_integer_and_bool_inputs_are_refused(name, cls, ref, dtype):
    x = ms.Tensor(np.array([1, 0, 1]).astype(dtype))
    pattern = rf"Unsupported data type! For '{cls or ''}.*must be a Tensor of a floating-point or complex type"
    with pytest.raises(TypeError, match=pattern):
        getattr(ops, name)(x)
    with pytest.raises(TypeError, match=pattern):
        getattr(x, name)()
    if cls is not None:
        with pytest.raises(TypeError, match=pattern):
            getattr(ops, cls)()(x)


def test_complex_inputs_and_graph_mode():
    z = np.array([0.5 + 1j, -0.25 - 0.5j], np.complex64)
    np.testing.assert_allclose(ops.sin(ms.Tensor(z)).asnumpy(), np.sin(z), rtol=1e-5)
    np.testing.assert_allclose(ops.exp(ms.Tensor(z)).asnumpy(), np.exp(z), rtol=1e-5)
    with pytest.raises(TypeError, match="For 'Sin'"):
        ms.jit(lambda a: ops.sin(a))(ms.Tensor(np.array([1, 2], np.int32)))


def test_sqrt_and_reciprocal_of_integers_give_float32():
    x = ms.Tensor(np.array([1, 4], np.int32))
    assert ops.sqrt(x).dtype == ms.float32 and ops.reciprocal(x).dtype == ms.float32
    np.testing.assert_allclose(ops.sqrt(x).asnumpy(), [1.0, 2.0])
    np.testing.assert_allclose(ops.reciprocal(x).asnumpy(), [1.0, 0.25])
