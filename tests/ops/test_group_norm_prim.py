"""ops.auto_generate.GroupNorm: the primitive of group normalization, giving (output, mean, rstd), in PyNative and
in a graph (mutable num_groups / eps, keyword arguments in any order)."""

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops


def _reference(x, groups, w, b, eps):
    n = x.shape[0]
    g = x.reshape(n, groups, -1)
    mean = g.mean(-1)
    rstd = 1 / np.sqrt(g.var(-1) + eps)
    y = ((g - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return y * w.reshape(shape) + b.reshape(shape), mean, rstd


def test_group_norm_primitive_outputs_match_numpy():
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    w = np.array([1, 2, 3, 4], np.float32)
    b = np.array([0, 1, 0, 1], np.float32)
    out = ops.auto_generate.GroupNorm()(ms.Tensor(x), 2, ms.Tensor(w), ms.Tensor(b), 1e-5)
    assert isinstance(out, tuple) and len(out) == 3
    for got, want in zip(out, _reference(x, 2, w, b, 1e-5)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)
    # values of MindSpore 2.10's GroupNorm for this input
    np.testing.assert_allclose(out[2].asnumpy(), np.full((2, 2), 0.58553904, np.float32), rtol=1e-6)
    assert not hasattr(ops, "GroupNorm") and not hasattr(ops.operations, "GroupNorm")


def test_group_norm_primitive_in_graph_with_keywords_and_mutable_scalars():
    @ms.jit
    def f(x, num_groups, weight, bias, eps):
        return ops.auto_generate.GroupNorm()(x, weight=weight, bias=bias, num_groups=num_groups, eps=eps)

    x = np.random.default_rng(0).standard_normal((3, 6, 2, 2)).astype(np.float32)
    w = np.linspace(0.5, 1.5, 6).astype(np.float32)
    b = np.linspace(-1, 1, 6).astype(np.float32)
    want = _reference(x, 3, w, b, 1e-5)
    for groups, eps in ((3, 1e-5), (ms.mutable(3), ms.mutable(1e-5))):
        out = f(ms.Tensor(x), groups, ms.Tensor(w), ms.Tensor(b), eps)
        for got, ref in zip(out, want):
            np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-4, atol=1e-4)


def test_group_norm_primitive_argument_errors():
    x = ms.Tensor(np.ones((2, 4, 3), np.float32))
    with pytest.raises(TypeError, match="'num_groups' must be an int"):
        ops.auto_generate.GroupNorm()(x, 2.0)
    with pytest.raises(TypeError, match="'eps' must be a float"):
        ops.auto_generate.GroupNorm()(x, 2, None, None, 1)
    with pytest.raises(ValueError, match="divisible"):
        ops.auto_generate.GroupNorm()(x, 3)
