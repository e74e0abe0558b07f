"""MindSpore's generated Primitive classes outside ops.operations: the FFT family (`ops.auto_generate.FFT`,
`FFTShift`, ...) and MaxDim / MinDim."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.ops import auto_generate as P

X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


def test_fft_classes_match_numpy():
    x = ms.Tensor(X)
    np.testing.assert_allclose(P.FFT()(x, None, -1, None).asnumpy(), np.fft.fft(X), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(P.IFFT()(x, 6, 0, "ortho").asnumpy(), np.fft.ifft(X, 6, 0, "ortho"), atol=1e-5)
    np.testing.assert_allclose(P.RFFT2()(x).asnumpy(), np.fft.rfft2(X), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(P.FFTN()(x, None, None, "forward").asnumpy(), np.fft.fftn(X, norm="forward"),
                               atol=1e-5)
    np.testing.assert_array_equal(P.FFTShift()(x).asnumpy(), np.fft.fftshift(X))
    np.testing.assert_array_equal(P.IFFTShift()(x, 1).asnumpy(), np.fft.ifftshift(X, 1))
    np.testing.assert_allclose(P.FFTFreq()(5, 0.5).asnumpy(), np.fft.fftfreq(5, 0.5), rtol=1e-6)
    np.testing.assert_allclose(P.RFFTFreq()(6).asnumpy(), np.fft.rfftfreq(6), rtol=1e-6)
    assert P.FFT().name == "FFT" and P.fft_shift_op.name == "FFTShift"


def test_max_dim_and_min_dim():
    x = ms.Tensor(np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], np.float32))
    values, indices = P.MaxDim()(x, 1, True)
    np.testing.assert_array_equal(values.asnumpy(), [[5.0], [7.0]])
    np.testing.assert_array_equal(indices.asnumpy(), [[1], [0]])
    values, indices = P.MinDim()(x, 0)
    np.testing.assert_array_equal(values.asnumpy(), [1.0, 0.0, 2.0])
    np.testing.assert_array_equal(indices.asnumpy(), [0, 1, 0])
    with pytest.raises(TypeError, match=r"The valid calling should be: \n\"MaxDim\(\)\(input=<Tensor>, dim=<int>"):
        P.MaxDim()(x, 1.0)
    with pytest.raises(ValueError, match="must be in range"):
        P.MaxDim()(x, 2)
