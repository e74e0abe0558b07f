"""merge_index_grads: summed gradients of basic-index reads of one tensor are built in one buffer."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def _prims(fn):
    (graph,) = fn.graphs()
    return [n.prim.name for n in graph.nodes]


def _qkv(x):
    q, k, v = x[0], x[1], x[2]
    return (ops.tanh(q * k) * v).sum()


def _qkv_np_grad(x):
    q, k, v = x
    t = np.tanh(q * k)
    dqk = (1 - t * t) * v
    return np.stack([dqk * k, dqk * q, t])


def test_qkv_split_gradient_is_one_node_and_right():
    x = np.random.default_rng(0).standard_normal((3, 4, 5))
    g = ms.jit(ms.grad(_qkv))
    got = g(ms.Tensor(x.astype(np.float32))).asnumpy()
    np.testing.assert_allclose(got, _qkv_np_grad(x), rtol=1e-5, atol=1e-6)
    names = _prims(g)
    assert names.count("IndexAddGradN") == 1 and "IndexAddGrad" not in names


@pytest.mark.parametrize("read", [
    lambda x: x[0:2] * x[1:3],                     # overlapping slices: the overlap gets both terms
    lambda x: x[..., 1] * x[:, None, 0] * x[2],     # ellipsis, None and ints mixed
    lambda x: x[[0, 0]] * x[0:2],                   # an advanced index does not merge, the sum is still right
])
def test_mixed_and_overlapping_reads_match_pynative(read):
    x = ms.Tensor(np.random.default_rng(1).standard_normal((3, 3)).astype(np.float32))
    f = lambda x: read(x).sum()  # noqa: E731
    want = ms.grad(f)(x).asnumpy()
    got = ms.jit(ms.grad(f))(x).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_second_order_through_the_merged_node_matches_finite_differences():
    rng = np.random.default_rng(2)
    x0 = rng.standard_normal((3, 2, 3))
    c = rng.standard_normal((3, 2, 3))

    def h(x):          # <grad _qkv (x), c>: differentiating it differentiates IndexAddGradN
        return (ms.grad(_qkv)(x) * ms.Tensor(c)).sum()
    got = ms.jit(ms.grad(h))(ms.Tensor(x0)).asnumpy()

    def h_np(x):
        return float((_qkv_np_grad(x) * c).sum())
    fd = np.zeros_like(x0)
    eps = 1e-6
    for i in np.ndindex(*x0.shape):
        e = np.zeros_like(x0)
        e[i] = eps
        fd[i] = (h_np(x0 + e) - h_np(x0 - e)) / (2 * eps)
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-7)


def test_merged_primitive_bprop_reads_each_view():
    from mindseed.ops._prims.core import index_add_grad_n_p
    rng = np.random.default_rng(3)
    c = rng.standard_normal((3, 4))
    d1, d2 = (ms.Tensor(rng.standard_normal(4)) for _ in range(2))
    d3 = ms.Tensor(rng.standard_normal((2, 4)))
    indices = (0, 2, slice(0, 2))

    def f(a, b, e):
        return (index_add_grad_n_p(a, b, e, shape=(3, 4), indices=indices) * ms.Tensor(c)).sum()
    out = index_add_grad_n_p(d1, d2, d3, shape=(3, 4), indices=indices).asnumpy()
    want = np.zeros((3, 4))
    want[0] += d1.asnumpy()
    want[2] += d2.asnumpy()
    want[0:2] += d3.asnumpy()
    np.testing.assert_allclose(out, want, rtol=1e-12)
    ga, gb, ge = ms.grad(f, (0, 1, 2))(d1, d2, d3)
    np.testing.assert_allclose(ga.asnumpy(), c[0], rtol=1e-12)
    np.testing.assert_allclose(gb.asnumpy(), c[2], rtol=1e-12)
    np.testing.assert_allclose(ge.asnumpy(), c[0:2], rtol=1e-12)


@pytest.mark.parametrize("indices", [(0, 1, 2), (2, 0, 1), (-3, 1, (2,)), (0, 1, 1)])
def test_merged_primitive_when_int_reads_tile_the_first_axis(indices):
    # a permutation of the first axis is stacked (no fill); a repeated index (axis 2 unread) takes the buffer path
    from mindseed._backend.kernels import core as K
    from mindseed.ops._prims.core import index_add_grad_n_p
    rng = np.random.default_rng(4)
    ds = [rng.standard_normal((4, 5)).astype(np.float32) for _ in indices]
    out = index_add_grad_n_p(*(ms.Tensor(d) for d in ds), shape=(3, 4, 5), indices=indices).asnumpy()
    want = np.zeros((3, 4, 5), np.float32)
    for d, i in zip(ds, indices):
        want[i] += d
    np.testing.assert_array_equal(out, want)
    tiles = K._first_axis_cover([ms.Tensor(d)._data for d in ds], (3, 4, 5), indices)
    assert (tiles is None) == (indices == (0, 1, 1))


def _attention_split(x, w):
    # a transformer's qkv split: (B, T, 3C) -> (3, B, H, T, D), one slice each for q, k, v
    qkv = ops.matmul(x, w).reshape(2, 5, 3, 2, 4).transpose(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    y = ops.tanh(ops.matmul(q, k.swapaxes(-1, -2))) @ v
    return (y * y).sum()


def test_qkv_gradient_is_laid_out_for_the_transpose_after_it():
    # the merged gradient is read through the inverse permutation: its buffer is allocated in that order, so the
    # Transpose gives a contiguous tensor and the Reshape back to (B, T, 3C) needs no copy; values unchanged
    from mindseed._backend.kernels import core as K
    rng = np.random.default_rng(5)
    x = ms.Tensor(rng.standard_normal((2, 5, 8)).astype(np.float32))
    w = ms.Tensor((rng.standard_normal((8, 24)) * 0.3).astype(np.float32))
    g = ms.jit(ms.grad(_attention_split, (0, 1)))
    got = g(x, w)
    want = ms.grad(_attention_split, (0, 1))(x, w)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)
    (graph,) = g.graphs()
    (node,) = [n for n in graph.nodes if n.prim.name == "IndexAddGradN"]
    assert node.attrs["order"] == (1, 3, 0, 2, 4)
    ds = [ms.Tensor(rng.standard_normal((2, 2, 5, 4)).astype(np.float32))._data for _ in range(3)]
    out = K.index_add_grad_n(*ds, shape=(3, 2, 2, 5, 4), indices=(0, 1, 2), order=(1, 3, 0, 2, 4))
    assert out.permute(1, 3, 0, 2, 4).is_contiguous()
    np.testing.assert_array_equal(out.numpy(), np.stack([d.numpy() for d in ds]))
    mixed = K.index_add_grad_n(ds[0], ds[1], ds[2], shape=(3, 2, 2, 5, 4), indices=(0, 0, 2), order=(1, 3, 0, 2, 4))
    want_mixed = np.zeros((3, 2, 2, 5, 4), np.float32)
    want_mixed[0] = ds[0].numpy() + ds[1].numpy()
    want_mixed[2] = ds[2].numpy()
    np.testing.assert_array_equal(mixed.numpy(), want_mixed)
