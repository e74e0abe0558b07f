"""mindspore.numpy.fft, around/round, matrix_power and copy against numpy."""
import numpy as onp
import pytest

import mindseed as ms
import mindseed.numpy as mnp

A = onp.arange(8, dtype=onp.float32).reshape(2, 4) * 0.5 - 1


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "fftn", "ifftn",
                                  "rfftn"])
def test_fft_matches_numpy(name):
    got = getattr(mnp.fft, name)(ms.Tensor(A)).asnumpy()
    onp.testing.assert_allclose(got, getattr(onp.fft, name)(A), rtol=1e-5, atol=1e-5)


def test_fft_arguments_and_frequencies():
    onp.testing.assert_allclose(mnp.fft.irfft(ms.Tensor(A), n=6, norm="ortho").asnumpy(),
                                onp.fft.irfft(A, n=6, norm="ortho"), rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(mnp.fft.fft(ms.Tensor(A), n=3, axis=0).asnumpy(), onp.fft.fft(A, n=3, axis=0),
                                rtol=1e-5, atol=1e-6)
    assert mnp.fft.fftfreq(5, 0.5).asnumpy().tolist() == onp.fft.fftfreq(5, 0.5).astype(onp.float32).tolist()
    assert mnp.fft.rfftfreq(4).asnumpy().tolist() == [0.0, 0.25, 0.5]
    assert mnp.fft.fftshift(mnp.arange(5)).asnumpy().tolist() == [3, 4, 0, 1, 2]


def test_around_rounds_half_to_even_in_the_input_dtype():
    assert mnp.around(mnp.array([2.5, 3.5, -2.5])).asnumpy().tolist() == [2.0, 4.0, -2.0]
    onp.testing.assert_allclose(mnp.around(mnp.array([1.255, -0.5, 3.14159]), 2).asnumpy(), [1.26, -0.5, 3.14],
                                rtol=1e-6)
    assert mnp.round is mnp.around and mnp.round(mnp.array([1, 2])).dtype == ms.int32
    with pytest.raises(TypeError, match="decimals must be an integer"):
        mnp.around(mnp.ones(2), 1.5)
    with pytest.raises(ValueError, match="decimals < 0"):
        mnp.around(mnp.ones(2), -1)


def test_matrix_power_and_copy():
    m = onp.array([[1.0, 2.0], [3.0, 4.0]], onp.float32)
    for n in range(6):
        onp.testing.assert_allclose(mnp.matrix_power(ms.Tensor(m), n).asnumpy(), onp.linalg.matrix_power(m, n))
    assert mnp.matrix_power(mnp.ones((3, 2, 2)), 0).shape == (3, 2, 2)
    with pytest.raises(ValueError, match="square"):
        mnp.matrix_power(mnp.ones((2, 3)), 2)
    with pytest.raises(ValueError, match="n < 0"):
        mnp.matrix_power(ms.Tensor(m), -1)
    src = mnp.array([1.0, 2.0])
    dup = mnp.copy(src)
    assert dup is not src and dup.asnumpy().tolist() == [1.0, 2.0] and mnp.copy([3, 4]).dtype == ms.int32
    assert isinstance(mnp.ogrid[0:2, 0:3], list) and mnp.uint == ms.uint32 and "float16" in mnp.numeric_types
