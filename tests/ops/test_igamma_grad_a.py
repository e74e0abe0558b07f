"""`_grad_ops.IgammaGradA`: d/da of the regularized lower incomplete gamma function, against its series."""
import math

import numpy as np
import pytest

import mindseed as ms
from mindseed.ops.operations._grad_ops import IgammaGradA


def _series(a, x, terms=400):
    """d/da P(a, x) from P = sum_n exp((a+n) ln x - x - lgamma(a+n+1)): each term times (ln x - digamma(a+n+1))."""
    def digamma(z):      # recurrence up to z >= 8, then the asymptotic series
        acc = 0.0
        while z < 8:
            acc -= 1 / z
            z += 1
        return acc + math.log(z) - 1 / (2 * z) - 1 / (12 * z ** 2) + 1 / (120 * z ** 4) - 1 / (252 * z ** 6)
    total = 0.0
    for n in range(terms):
        term = math.exp((a + n) * math.log(x) - x - math.lgamma(a + n + 1))
        total += term * (math.log(x) - digamma(a + n + 1))
    return total


A = np.array([0.5, 1.0, 2.0, 5.0, 3.0, 0.1])
X = np.array([0.3, 1.0, 4.0, 2.0, 10.0, 0.05])


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-7), (np.float32, 1e-5)])
def test_matches_the_series(dtype, rtol):
    got = IgammaGradA()(ms.Tensor(A.astype(dtype)), ms.Tensor(X.astype(dtype)))
    assert got.dtype == (ms.float64 if dtype == np.float64 else ms.float32)
    want = [_series(a, x) for a, x in zip(A, X)]
    np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol)


def test_broadcasts_and_checks_its_inputs():
    got = IgammaGradA()(ms.Tensor(np.array([[1.0], [2.0]], np.float32)), ms.Tensor(np.array([1.0, 3.0], np.float32)))
    assert got.shape == (2, 2)
    np.testing.assert_allclose(got.asnumpy(), [[_series(a, x) for x in (1.0, 3.0)] for a in (1.0, 2.0)], rtol=1e-5)
    with pytest.raises(TypeError, match=r"For primitive\[IgammaGradA\], the input argument\[a\] must be a type of"):
        IgammaGradA()(ms.Tensor(np.array([1], np.int32)), ms.Tensor(np.array([1], np.int32)))
    with pytest.raises(TypeError, match=r"For primitive\[IgammaGradA\], the input type must be same"):
        IgammaGradA()(ms.Tensor(np.array([1.0], np.float32)), ms.Tensor(np.array([1.0], np.float64)))
