"""Gradients of complex inputs follow MindSpore 2.10's rule dx = dout * conj(f'(z)) (real MindSpore's values for a
real loss Re(f(z)).sum(), in PyNative and under @ms.jit)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

Z = np.array([0.5 + 0.3j, -1.0 + 2.0j], np.complex64)
W = ms.Tensor(np.array([1.5 - 0.7j, 0.2 + 0.4j], np.complex64))

EXPECTED = {
    "exp": (ops.exp, [1.5750836 - 0.48723045j, -0.15309188 - 0.33451182j]),
    "log": (ops.log, [1.4705882 + 0.88235295j, -0.2 + 0.4j]),
    "sin": (ops.sin, [0.91737086 + 0.14599481j, 2.032723 - 3.0518978j]),
    "cos": (ops.cos, [-0.501162 + 0.26724172j, 3.1657786 + 1.9596009j]),
    "tanh": (ops.tanh, [0.81062555 + 0.23659176j, -0.30200148 + 0.568103j]),
    "sinh": (ops.sinh, [1.0772623 - 0.15399419j, -0.64214814 + 1.0686073j]),
    "cosh": (ops.cosh, [0.49782133 - 0.33323628j, 0.48905626 - 1.4031192j]),
    "sqrt": (ops.sqrt, [0.63102835 + 0.17478475j, 0.1757888 + 0.28443223j]),
    "rsqrt": (ops.rsqrt, [-0.77376103 - 0.8138262j, 0.14893064 - 0.01342909j]),
    "reciprocal": (ops.reciprocal, [-1.3840828 - 2.5951557j, 0.12 + 0.16j]),
    "sigmoid": (ops.sigmoid, [0.23938583 + 0.01774646j, 0.14088883 - 0.42071828j]),
    "asin": (ops.asin, [1.0432948 - 0.18071301j, 0.38844347 + 0.16089854j]),
    "atan": (ops.atan, [0.8080245 + 0.20897187j, -0.1 - 0.2j]),
    "log1p": (ops.log1p, [0.64102566 + 0.12820514j, 0.5j]),
    "expm1": (ops.expm1, [1.5750836 - 0.48723045j, -0.15309188 - 0.33451182j]),
    "div_x": (lambda a: a / W, [0.54744524 - 0.25547445j, 1.0 + 2.0j]),
    "imag_exp": (lambda a: -1j * ops.exp(a), [0.48723045 + 1.5750836j, 0.33451182 - 0.15309188j]),
    "matmul": (lambda a: ops.matmul(a.reshape(1, 2), W.reshape(2, 1)), [1.5 + 0.7j, 0.2 - 0.4j]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("jit", [False, True])
def test_complex_gradient_is_conjugated(name, jit):
    fn, expected = EXPECTED[name]

    def loss(a):
        return ops.real(fn(a)).sum()

    g = ms.grad(loss)
    got = (ms.jit(g) if jit else g)(ms.Tensor(Z))
    assert got.dtype == ms.complex64
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=2e-5, atol=1e-6)


def test_complex_product_and_quotient_agree_with_finite_differences():
    # d Re(f)/dx + i d Re(f)/dy is conj(f'(z)) for holomorphic f; check a * w and w / a in float64
    z = np.array([0.5 + 0.3j, -1.0 + 2.0j])
    w = np.array([1.5 - 0.7j, 0.2 + 0.4j])
    for f in (lambda a, b: a * b, lambda a, b: b / a):
        g = ms.grad(lambda a, f=f: ops.real(f(a, ms.Tensor(w))).sum())(ms.Tensor(z)).asnumpy()
        eps = 1e-7
        fd = [(np.real(f(z + eps * e, w)).sum() - np.real(f(z - eps * e, w)).sum()) / (2 * eps)
              + 1j * (np.real(f(z + 1j * eps * e, w)).sum() - np.real(f(z - 1j * eps * e, w)).sum()) / (2 * eps)
              for e in np.eye(2)]
        np.testing.assert_allclose(g, fd, rtol=1e-6)


@pytest.mark.parametrize("jit", [False, True])
def test_angle_gradient(jit):
    g = ms.grad(lambda a: ops.angle(a).sum())
    got = (ms.jit(g) if jit else g)(ms.Tensor(Z))
    np.testing.assert_allclose(got.asnumpy(), [-0.88235295 + 1.4705882j, -0.4 - 0.2j], rtol=1e-6)
    np.testing.assert_array_equal(ms.grad(lambda a: ops.angle(a).sum())(ms.Tensor([-1.0, 2.0])).asnumpy(), [0, 0])
