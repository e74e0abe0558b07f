"""TraceV2Grad and LstsqV2Grad, reached as MindSpore's generated operator instances (`ops.auto_generate.<name>_op`):
the trace gradient against a numpy diagonal, the least-squares gradient against float64 finite differences of
pinv(A) @ B."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops import auto_generate


def _trace_grad_ref(shape, dout, offset, axis1, axis2):
    ref = np.zeros(shape)
    a1, a2 = axis1 % len(shape), axis2 % len(shape)
    moved = np.moveaxis(ref, (a1, a2), (-2, -1))
    for i in range(moved.shape[-2]):
        j = i + offset
        if 0 <= j < moved.shape[-1]:
            moved[..., i, j] = dout
    return ref


@pytest.mark.parametrize("shape,offset,axis1,axis2", [((5, 4, 2), 0, 0, 1), ((6, 5, 5), -1, 0, 1),
                                                      ((2, 3, 6, 8), 2, 2, 0), ((3, 4), 1, 1, 0)])
def test_tracev2_grad(shape, offset, axis1, axis2):
    rest = [d for i, d in enumerate(shape) if i not in (axis1 % len(shape), axis2 % len(shape))]
    dout = np.asarray(np.random.randn(*rest), np.float32)
    out = auto_generate.tracev2_grad_op(ms.Tensor(dout), ms.Tensor(shape), offset, axis1, axis2)
    np.testing.assert_allclose(out.asnumpy(), _trace_grad_ref(shape, dout, offset, axis1, axis2), rtol=1e-6)
    assert auto_generate.tracev2_grad_op is auto_generate.gen_ops_prim.tracev2_grad_op
    graph = ms.jit(lambda d: auto_generate.tracev2_grad_op(d, shape, offset, axis1, axis2))(ms.Tensor(dout))
    np.testing.assert_allclose(graph.asnumpy(), out.asnumpy())


def test_tracev2_grad_bad_dout():
    with pytest.raises(ValueError, match="TraceV2Grad"):
        auto_generate.tracev2_grad_op(ms.Tensor(np.ones(3, np.float32)), (5, 4, 2), 0, 0, 1)


def _lstsq_grads_fd(g, a, b, eps=1e-6):
    """float64 central differences of sum(g * pinv(A) @ B) in A and B."""
    f = lambda a_, b_: float(np.sum(g * (np.linalg.pinv(a_) @ b_)))  # noqa: E731
    grads = []
    for which in (0, 1):
        x = (a, b)[which]
        d = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            hi, lo = x.copy(), x.copy()
            hi[idx] += eps
            lo[idx] -= eps
            args_hi = (hi, b) if which == 0 else (a, hi)
            args_lo = (lo, b) if which == 0 else (a, lo)
            d[idx] = (f(*args_hi) - f(*args_lo)) / (2 * eps)
        grads.append(d)
    return grads


@pytest.mark.parametrize("m,n,k", [(4, 2, 3), (2, 5, 3), (5, 5, 2)])
def test_lstsq_v2_grad_matches_finite_differences(m, n, k):
    rng = np.random.default_rng(m * 10 + n)
    a, b, g = rng.standard_normal((m, n)), rng.standard_normal((m, k)), rng.standard_normal((n, k))
    g_a, g_b = auto_generate.lstsq_v2_grad_op(ms.Tensor(g), ms.Tensor(a), ms.Tensor(b))
    ref_a, ref_b = _lstsq_grads_fd(g, a, b)
    np.testing.assert_allclose(g_a.asnumpy(), ref_a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g_b.asnumpy(), ref_b, rtol=1e-5, atol=1e-6)


def test_lstsq_v2_grad_batched():
    rng = np.random.default_rng(0)
    a, b, g = rng.standard_normal((2, 3, 6)), rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 6, 4))
    g_a, g_b = ops.auto_generate.LstsqV2Grad()(ms.Tensor(g), ms.Tensor(a), ms.Tensor(b))
    for i in range(2):
        ref_a, ref_b = _lstsq_grads_fd(g[i], a[i], b[i])
        np.testing.assert_allclose(g_a.asnumpy()[i], ref_a, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g_b.asnumpy()[i], ref_b, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="LstsqV2Grad"):
        ops.auto_generate.LstsqV2Grad()(ms.Tensor(g[0]), ms.Tensor(a), ms.Tensor(b))


def test_unknown_op_instance_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_thing_op"):
        auto_generate.no_such_thing_op  # noqa: B018
