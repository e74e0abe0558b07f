"""mindseed.scipy.fft (orthonormal DCT-II and its inverse) against the DCT's definition, and scipy.linalg.lstsq
against numpy with its gradient against finite differences."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.scipy.fft import dct, dctn, idct, idctn
from mindseed.scipy.linalg import lstsq
from _graph import graph_mode
from _harness import central_difference as _fd

RS = np.random.RandomState(0)


def _dct_np(x, axis=-1):
    """The orthonormal DCT-II by its definition."""
    x = np.moveaxis(x, axis, -1)
    n = x.shape[-1]
    k, j = np.arange(n)[:, None], np.arange(n)[None, :]
    c = np.cos(np.pi * k * (2 * j + 1) / (2 * n)) * np.where(k == 0, np.sqrt(1 / n), np.sqrt(2 / n))
    return np.moveaxis(x @ c.T, -1, axis)


def test_dct_idct_along_an_axis_with_n():
    x = RS.randn(3, 5)
    np.testing.assert_allclose(dct(ms.Tensor(x)).asnumpy(), _dct_np(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dct(ms.Tensor(x), axis=0).asnumpy(), _dct_np(x, 0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dct(ms.Tensor(x), n=3).asnumpy(), _dct_np(x[:, :3]), rtol=1e-10, atol=1e-12)
    padded = np.concatenate([x, np.zeros((3, 2))], 1)
    np.testing.assert_allclose(dct(ms.Tensor(x), n=7).asnumpy(), _dct_np(padded), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(idct(dct(ms.Tensor(x))).asnumpy(), x, atol=1e-12)
    assert dct(ms.Tensor(np.arange(4, dtype=np.int32))).dtype == ms.float32


def test_dctn_idctn_and_gradient():
    x = RS.randn(3, 4)
    np.testing.assert_allclose(dctn(ms.Tensor(x)).asnumpy(), _dct_np(_dct_np(x, 0), 1), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(idctn(dctn(ms.Tensor(x), axes=(1,)), axes=(1,)).asnumpy(), x, atol=1e-12)
    w = RS.randn(3, 4)
    g = ms.grad(lambda t: (dct(t) * ms.Tensor(w)).sum())(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), _fd(lambda t: (_dct_np(t) * w).sum(), x), rtol=1e-6, atol=1e-9)
    with graph_mode():
        out = ms.jit(lambda t: idct(t, 2, 4, -1, "ortho"))(ms.Tensor(x))
    np.testing.assert_allclose(dct(out).asnumpy(), x, atol=1e-12)


def test_dct_errors():
    with pytest.raises(ValueError, match="Only dct type II"):
        dct(ms.Tensor(np.ones(3)), type=3)
    with pytest.raises(ValueError, match="'norm' must be 'ortho'"):
        dct(ms.Tensor(np.ones(3)), norm="forward")
    with pytest.raises(TypeError, match="'x' data type"):
        dct(ms.Tensor(np.ones(3, bool)))


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss", "gels"])
def test_lstsq_outputs_per_driver(driver):
    a, b = RS.randn(5, 3), RS.randn(5, 2)
    x, res, rank, s = lstsq(ms.Tensor(a), ms.Tensor(b), driver=driver)
    want, want_res, want_rank, want_s = np.linalg.lstsq(a, b, rcond=None)
    np.testing.assert_allclose(x.asnumpy(), want, rtol=1e-8)
    if driver in ("gelsd", "gelss"):
        np.testing.assert_allclose(res.asnumpy(), want_res, rtol=1e-8)
        np.testing.assert_allclose(s.asnumpy(), want_s, rtol=1e-8)
    if driver != "gels":
        assert int(rank.asnumpy()) == want_rank
    with pytest.raises(ValueError, match="'driver' must be one of"):
        lstsq(ms.Tensor(a), ms.Tensor(b), driver="x")


def test_lstsq_gradient_matches_finite_differences():
    a, b = RS.randn(4, 3), RS.randn(4, 2)
    ga, gb = ms.grad(lambda p, q: lstsq(p, q)[0].sum(), grad_position=(0, 1))(ms.Tensor(a), ms.Tensor(b))
    f = lambda p, q: np.linalg.lstsq(p, q, rcond=None)[0].sum()  # noqa: E731
    np.testing.assert_allclose(ga.asnumpy(), _fd(lambda p: f(p, b), a), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(gb.asnumpy(), _fd(lambda q: f(a, q), b), rtol=1e-5, atol=1e-8)
