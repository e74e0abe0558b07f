"""Backward kernels of ops.auto_generate built from vector-Jacobian products (GridSampler*Grad,
ResizeNearestNeighbor*Grad) and LayerNorm's first and second-order gradients, against numpy and finite
differences."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops import auto_generate as A
from _harness import central_difference as _fd

RS = np.random.RandomState(0)


def _ln_stats(x):
    m = x.mean(-1, keepdims=True)
    return m, ((x - m) ** 2).mean(-1, keepdims=True)


def _ln_np(x, g, b):
    m, v = _ln_stats(x)
    return g * (x - m) / np.sqrt(v + 1e-12) + b


def test_layer_norm_grad_matches_finite_differences():
    x, dy, g = RS.randn(3, 5), RS.randn(3, 5), RS.randn(5)
    m, v = _ln_stats(x)
    dx, dg, db = A.LayerNormGrad(1, 1)(*(ms.Tensor(a, ms.float64) for a in (x, dy, v, m, g)))
    np.testing.assert_allclose(dx.asnumpy(), _fd(lambda t: (_ln_np(t, g, 0) * dy).sum(), x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dg.asnumpy(), _fd(lambda t: (_ln_np(x, t, 0) * dy).sum(), g), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(db.asnumpy(), dy.sum(0), rtol=1e-12)


def _ln_grad_given_stats(x, dy, v, m, g, axes):
    """MindSpore's kernel formula: gradients through the variance and mean as given (not those of x)."""
    n = np.prod([x.shape[a] for a in axes])
    rstd = 1 / np.sqrt(v + 1e-12)
    a, c = dy * g, x - m
    dvar = (a * c).sum(axes, keepdims=True) * -0.5 * rstd ** 3
    dmean = a.sum(axes, keepdims=True) * -rstd + dvar * (-2 * c).sum(axes, keepdims=True) / n
    return a * rstd + dvar * 2 * c / n + dmean / n


def test_layer_norm_grad_with_given_statistics_and_params_axis_zero():
    x, dy, g = RS.rand(3, 4), RS.rand(3, 4), RS.rand(3, 4)
    m, v = RS.rand(1, 1), RS.rand(1, 1)
    dx, dg, db = A.LayerNormGrad(0, 0)(*(ms.Tensor(a, ms.float64) for a in (x, dy, v, m, g)))
    np.testing.assert_allclose(dx.asnumpy(), _ln_grad_given_stats(x, dy, v, m, g, (0, 1)), rtol=1e-10)
    np.testing.assert_allclose(dg.asnumpy(), dy * (x - m) / np.sqrt(v + 1e-12), rtol=1e-10)
    np.testing.assert_allclose(db.asnumpy(), dy, rtol=1e-12)
    # batched by vmap: one (3, 4) problem per row of the leading axis
    xs, dys, gs = RS.rand(2, 3, 4), RS.rand(2, 3, 4), RS.rand(2, 3, 4)
    ms_, vs = RS.rand(2, 1, 1), RS.rand(2, 1, 1)
    out = ms.vmap(A.LayerNormGrad(0, 0), in_axes=0)(*(ms.Tensor(a, ms.float64) for a in (xs, dys, vs, ms_, gs)))
    want = np.stack([_ln_grad_given_stats(xs[i], dys[i], vs[i], ms_[i], gs[i], (0, 1)) for i in range(2)])
    np.testing.assert_allclose(out[0].asnumpy(), want, rtol=1e-10)
    np.testing.assert_allclose(out[2].asnumpy(), dys, rtol=1e-12)


def test_layer_norm_grad_grad_is_the_derivative_of_layer_norm_grad():
    x, dy, g = RS.randn(2, 4), RS.randn(2, 4), RS.randn(4)
    ddx, ddg, ddb = RS.randn(2, 4), RS.randn(4), RS.randn(4)
    T = lambda a: ms.Tensor(a, ms.float64)  # noqa: E731

    def weighted(xv, dyv, gv):
        m, v = _ln_stats(xv)
        dx, dg, db = A.LayerNormGrad(1, 1)(T(xv), T(dyv), T(v), T(m), T(gv))
        return (dx.asnumpy() * ddx).sum() + (dg.asnumpy() * ddg).sum() + (db.asnumpy() * ddb).sum()
    m, v = _ln_stats(x)
    sx, sdy, sg = A.LayerNormGradGrad(1, 1)(T(x), T(dy), T(v), T(m), T(g), T(ddx), T(ddg), T(ddb))
    np.testing.assert_allclose(sx.asnumpy(), _fd(lambda t: weighted(t, dy, g), x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sdy.asnumpy(), _fd(lambda t: weighted(x, t, g), dy), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sg.asnumpy(), _fd(lambda t: weighted(x, dy, t), g), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("align, half", [(False, False), (True, False), (False, True)])
def test_resize_nearest_neighbor_grad_sums_into_sources(align, half):
    grads = RS.randn(1, 2, 5, 7)
    out = A.ResizeNearestNeighborV2Grad(align, half)(ms.Tensor(grads, ms.float64), (3, 4)).asnumpy()
    # the forward map: which source pixel each output pixel reads
    x = np.arange(12, dtype=np.float64).reshape(1, 1, 3, 4)
    fwd = ops.ResizeNearestNeighborV2(align, half)(ms.Tensor(x), ms.Tensor([5, 7], ms.int32)).asnumpy()
    want = np.zeros((1, 2, 12))
    for i in range(5):
        for j in range(7):
            want[:, :, int(fwd[0, 0, i, j])] += grads[:, :, i, j]
    np.testing.assert_allclose(out, want.reshape(1, 2, 3, 4), rtol=1e-12)
    same = A.ResizeNearestNeighborGrad(align, half)(ms.Tensor(grads, ms.float64), (3, 4)).asnumpy()
    np.testing.assert_allclose(same, out)


@pytest.mark.parametrize("cls, nd", [(A.GridSampler2DGrad, 2), (A.GridSampler3DGrad, 3)])
def test_grid_sampler_grad_matches_finite_differences(cls, nd):
    x = RS.randn(1, 2, *(3,) * nd)
    grid = RS.uniform(-0.9, 0.9, (1,) + (2,) * nd + (nd,))
    dout = RS.randn(1, 2, *(2,) * nd)

    def f(xv, gv):
        y = ops.grid_sample(ms.Tensor(xv), ms.Tensor(gv), "bilinear", "zeros", True).asnumpy()
        return (y * dout).sum()
    dx, dgrid = cls("bilinear", "zeros", True)(ms.Tensor(dout), ms.Tensor(x), ms.Tensor(grid))
    np.testing.assert_allclose(dx.asnumpy(), _fd(lambda t: f(t, grid), x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dgrid.asnumpy(), _fd(lambda t: f(x, t), grid), rtol=1e-4, atol=1e-6)


def test_grad_ops_name_bad_input():
    with pytest.raises(ValueError, match="GridSampler2DGrad.*'grad' must have the forward output's shape"):
        A.GridSampler2DGrad()(ops.ones((1, 1, 3, 3)), ops.ones((1, 1, 2, 2)), ops.ones((1, 2, 2, 2)))
    with pytest.raises(ValueError, match="GridSampler2DGrad.*'padding_mode'"):
        A.GridSampler2DGrad(padding_mode="wrap")
    with pytest.raises(ValueError, match="ResizeNearestNeighborGrad.*'size' must be two positive ints"):
        A.ResizeNearestNeighborGrad()(ops.ones((1, 1, 2, 2)), (0, 2))
    with pytest.raises(TypeError, match="LayerNormGrad.*'dy' must be a float Tensor"):
        A.LayerNormGrad()(ops.ones((2, 3)), 1, ops.ones((2, 1)), ops.ones((2, 1)), ops.ones((3,)))
    with pytest.raises(ValueError, match="LayerNormGrad.*'dy' must have the shape"):
        A.LayerNormGrad()(ops.ones((2, 3)), ops.ones((3, 2)), ops.ones((2, 1)), ops.ones((2, 1)), ops.ones((3,)))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_cdist_grad_is_the_vjp_of_cdist(p):
    from mindseed.ops import auto_generate as gen
    rng = np.random.default_rng(0)
    a = ms.Tensor(rng.standard_normal((2, 3, 4)).astype(np.float32))
    b = ms.Tensor(rng.standard_normal((2, 5, 4)).astype(np.float32))
    g = ms.Tensor(rng.standard_normal((2, 3, 5)).astype(np.float32))
    ref = ms.vjp(lambda x: ms.ops.cdist(x, b, p), a)[1](g)[0]
    out = gen.CdistGrad(p)(g, a, b, ms.ops.cdist(a, b, p))
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), atol=1e-5)


def test_cdist_grad_uses_the_given_distances_and_checks_shapes():
    from mindseed.ops import auto_generate as gen
    x1 = ms.Tensor(np.array([[[1.0, 1.0], [2.0, 2.0]]], np.float32))
    x2 = ms.Tensor(np.array([[[3.0, 3.0], [3.0, 3.0]]], np.float32))
    g = ms.Tensor(np.array([[[1.0, 1.0], [2.0, 2.0]]], np.float32))
    out = gen.CdistGrad(3.0)(g, x1, x2, ms.Tensor(np.full((1, 2, 2), 3.0, np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [[[-8 / 9, -8 / 9], [-4 / 9, -4 / 9]]], rtol=1e-6)
    with pytest.raises(ValueError, match="CdistGrad"):
        gen.CdistGrad(3.0)(g, x1, x2, ms.Tensor(np.ones((1, 2, 3), np.float32)))


def test_resize_nearest_neighbor_grad_sums_integer_gradients():
    dy = np.array([[[[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]]], np.int32)
    out = A.ResizeNearestNeighborGrad(align_corners=False)(ms.Tensor(dy), (2, 2))
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[[[4, 0], [0, 4]]]]


def test_roi_align_grad_is_the_vjp_of_roi_align():
    rois = ms.Tensor(np.array([[0, 0.5, 0.5, 4.5, 3.5]], np.float64))
    x = RS.randn(1, 2, 6, 6)
    dy = RS.randn(1, 2, 2, 2)
    roi_align = ops.ROIAlign(2, 2, 1.0, 2)
    got = A.ROIAlignGrad(2, 2, 1.0, 2)(ms.Tensor(dy), rois, (1, 2, 6, 6)).asnumpy()
    want = _fd(lambda t: (roi_align(ms.Tensor(t), rois).asnumpy() * dy).sum(), x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-8)


def test_deformable_offsets_grad_matches_finite_differences():
    fwd = ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (2, 2))
    x = RS.randn(1, 1, 3, 3)
    off = RS.rand(1, 12, 2, 2) * 0.3
    dout = RS.randn(*fwd(ms.Tensor(x), ms.Tensor(off)).shape)
    dx, doff = A.DeformableOffsetsGrad((1, 1, 1, 1), (0, 0, 0, 0), (2, 2))(ms.Tensor(dout), ms.Tensor(x),
                                                                            ms.Tensor(off))
    loss = lambda a, b: (fwd(ms.Tensor(a), ms.Tensor(b)).asnumpy() * dout).sum()  # noqa: E731
    np.testing.assert_allclose(dx.asnumpy(), _fd(lambda a: loss(a, off), x), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(doff.asnumpy(), _fd(lambda b: loss(x, b), off), rtol=1e-4, atol=1e-6)
