"""Attention fusion pass: softmax(q k^T c + mask) v and its gradient become the flash-attention kernels."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def _attention(q, k, v, mask, scale=0.125, div=False):
    s = ops.matmul(q, k.swapaxes(-2, -1))
    s = s / (1 / scale) if div else s * scale
    if mask is not None:
        s = s + mask
    return ops.matmul(ops.softmax(s, axis=-1), v)


def _data(dtype=np.float32, b=2, h=3, t=16, d=8):
    rng = np.random.default_rng(0)
    q, k, v = (ms.Tensor(rng.standard_normal((b, h, t, d)).astype(dtype)) for _ in range(3))
    mask = ms.Tensor(np.triu(np.full((t, t), -1e9, dtype), 1))
    return q, k, v, mask


def _prims(fn):
    (graph,) = fn.graphs()
    return [n.prim.name for n in graph.nodes]


@pytest.mark.parametrize("div", [False, True])
def test_forward_fused_and_equal(div):
    q, k, v, mask = _data()
    f = ms.jit(lambda q, k, v, m: _attention(q, k, v, m, div=div))
    want = _attention(q, k, v, mask, div=div).asnumpy()
    f(q, k, v, mask)
    got = f(q, k, v, mask).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    names = _prims(f)
    assert "FlashAttention" in names and "Softmax" not in names


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-10)])
def test_gradient_fused_and_equal(dtype, tol):
    q, k, v, mask = _data(dtype)
    w = ms.Tensor(np.linspace(-1, 1, 8).astype(dtype))

    def loss(q, k, v, m):
        return (ops.tanh(_attention(q, k, v, m)) * w).sum()

    grad = ms.value_and_grad(loss, grad_position=(0, 1, 2))
    want_l, want_g = grad(q, k, v, mask)
    step = ms.jit(lambda q, k, v, m: grad(q, k, v, m))
    step(q, k, v, mask)
    got_l, got_g = step(q, k, v, mask)
    np.testing.assert_allclose(got_l.asnumpy(), want_l.asnumpy(), rtol=tol, atol=tol)
    for g, w_ in zip(got_g, want_g):
        np.testing.assert_allclose(g.asnumpy(), w_.asnumpy(), rtol=tol * 10, atol=tol * 10)
    names = _prims(step)
    assert "FlashAttentionGrad" in names and "SoftmaxGrad" not in names and "Softmax" not in names


def test_gradient_against_finite_differences():
    q, k, v, mask = _data(np.float64, b=1, h=1, t=5, d=3)
    step = ms.jit(ms.grad(lambda q, k, v, m: _attention(q, k, v, m).sum() ** 2, grad_position=0))
    dq = step(q, k, v, mask).asnumpy()
    qn, eps = q.asnumpy(), 1e-6
    f = lambda x: float(_attention(ms.Tensor(x), k, v, mask).sum().asnumpy()) ** 2  # noqa: E731
    fd = np.zeros_like(qn)
    for idx in np.ndindex(qn.shape):
        e = np.zeros_like(qn)
        e[idx] = eps
        fd[idx] = (f(qn + e) - f(qn - e)) / (2 * eps)
    np.testing.assert_allclose(dq, fd, rtol=1e-6, atol=1e-7)
    assert "FlashAttentionGrad" in _prims(step)


def test_mask_needing_gradient_stays_unfused():
    q, k, v, mask = _data()
    grad = ms.grad(lambda q, m: _attention(q, k, v, m).sum(), grad_position=(0, 1))
    step = ms.jit(lambda q, m: grad(q, m))
    want = grad(q, mask)
    step(q, mask)
    got = step(q, mask)
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w_.asnumpy(), rtol=1e-5, atol=1e-6)
    assert "FlashAttention" not in _prims(step)


def test_softmax_output_used_elsewhere_stays_unfused():
    q, k, v, mask = _data()

    def f(q, k, v, m):
        a = ops.softmax(ops.matmul(q, k.swapaxes(-2, -1)) * 0.5 + m, axis=-1)
        return ops.matmul(a, v), a.sum()

    jf = ms.jit(f)
    jf(q, k, v, mask)
    got = jf(q, k, v, mask)
    want = f(q, k, v, mask)
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w_.asnumpy(), rtol=1e-5, atol=1e-5)
    assert "FlashAttention" not in _prims(jf)


def _grads_of(fn, *args):
    return ms.value_and_grad(lambda q, k, v: (ops.tanh(fn(q, k, v)) * 0.5).sum(), grad_position=(0, 1, 2))(*args)


@pytest.mark.parametrize("shapes,mask_shape,fused", [
    (((2, 3, 4, 8), (1, 3, 5, 8), (1, 3, 5, 8)), None, False),        # k, v broadcast over the batch
    (((1, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)), None, False),        # q broadcasts
    (((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)), None, False),        # v has another head size
    (((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)), (3, 4, 5), False),   # a 3-D mask
    (((1, 3, 4, 8), (1, 3, 5, 8), (1, 3, 5, 8)), (2, 1, 4, 5), False),  # the mask widens the batch
    (((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)), (2, 1, 1, 5), True),   # a mask broadcasting up: fused
    (((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)), (4, 1), True),
])
def test_shapes_the_kernel_cannot_take_stay_unfused_and_equal(shapes, mask_shape, fused):
    rng = np.random.default_rng(1)
    q, k, v = (ms.Tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes)
    mask = None if mask_shape is None else ms.Tensor(rng.standard_normal(mask_shape).astype(np.float32))

    def fn(q, k, v):
        return _attention(q, k, v, mask)
    step = ms.jit(lambda q, k, v: _grads_of(fn, q, k, v))
    step(q, k, v)
    (got_l, got_g), (want_l, want_g) = step(q, k, v), _grads_of(fn, q, k, v)
    np.testing.assert_allclose(got_l.asnumpy(), want_l.asnumpy(), rtol=1e-5, atol=1e-5)
    for g, w in zip(got_g, want_g):
        assert g.shape == w.shape
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-4, atol=1e-5)
    assert ("FlashAttention" in _prims(step)) == fused


def test_a_mask_hiding_a_whole_row_gives_nan_as_softmax_does():
    q, k, v, _ = _data(t=4)
    m = np.zeros((4, 4), np.float32)
    m[1] = -np.inf
    mask = ms.Tensor(m)

    def fn(q, k, v):
        return _attention(q, k, v, mask)
    step = ms.jit(lambda q, k, v: (fn(q, k, v), _grads_of(fn, q, k, v)[1]))
    step(q, k, v)
    got_o, got_g = step(q, k, v)
    assert "FlashAttention" in _prims(step)
    want_o, want_g = fn(q, k, v), _grads_of(fn, q, k, v)[1]
    np.testing.assert_array_equal(np.isnan(got_o.asnumpy()), np.isnan(want_o.asnumpy()))
    assert np.isnan(got_o.asnumpy()[:, :, 1]).all()
    np.testing.assert_allclose(got_o.asnumpy(), want_o.asnumpy(), rtol=1e-5, atol=1e-6)
    for g, w in zip(got_g, want_g):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-4, atol=1e-5)   # NaN where PyNative's is
