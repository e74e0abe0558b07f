"""Primitive classes real MindSpore code reaches through ops / ops.operations / ops.auto_generate: sequence
conversions, EmbeddingLookup, the in-place arithmetic classes, Morph, and auto_generate's copy / contiguous."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.ops.auto_generate import contiguous, copy
from mindseed.ops.auto_generate.gen_ops_prim import InplaceAddExt, InplaceDiv, InplaceMul, InplaceSubExt

_TWO = ms.Tensor(2.0)

def test_tensor_sequence_conversions():
    assert ops.TensorToTuple()(ms.Tensor([1, 2, 3])) == (1, 2, 3)
    assert ops.TensorToTuple()(ms.Tensor(4)) == (4,)
    assert ops.TensorToList()(ms.Tensor([1.5, 2.0])) == [1.5, 2.0]
    assert ops.TensorToScalar()(ms.Tensor(7)) == 7
    t = ops.TupleToTensor()((1, 2), ms.int64)
    assert t.dtype == ms.int64 and t.asnumpy().tolist() == [1, 2]
    assert ops.ListToTensor()([0.5, 1.5]).dtype == ms.float32
    assert ops.ScalarToTensor()(3, ms.int32).asnumpy() == 3
    with pytest.raises(ValueError, match="'TensorToTuple'.*1-D"):
        ops.TensorToTuple()(ms.Tensor(np.zeros((2, 2))))
    with pytest.raises(TypeError, match="'TupleToTensor'.*tuple"):
        ops.TupleToTensor()([1, 2])
    with pytest.raises(ValueError, match="'TensorToScalar'"):
        ops.TensorToScalar()(ms.Tensor([1, 2]))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_embedding_lookup_shifts_by_offset_and_zeroes_out_of_range_rows(mode):
    ms.set_context(mode=mode)
    try:
        table = np.arange(8, 16, dtype=np.float32).reshape(4, 2)
        idx = np.array([[5, 2], [8, 4]], dtype=np.int32)
        out = ops.EmbeddingLookup()(ms.Tensor(table), ms.Tensor(idx), 4)
        shifted = idx - 4
        expect = np.where(((shifted >= 0) & (shifted < 4))[..., None], table[np.clip(shifted, 0, 3)], 0)
        np.testing.assert_array_equal(out.asnumpy(), expect)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    # the gradient reaches only the rows looked up
    g = ms.grad(lambda p: ops.EmbeddingLookup()(p, ms.Tensor(np.array([1, 1, 9])), 0).sum())(ms.Tensor(table))
    np.testing.assert_array_equal(g.asnumpy(), [[0, 0], [2, 2], [0, 0], [0, 0]])
    with pytest.raises(TypeError, match="'EmbeddingLookup'.*'input_indices'"):
        ops.EmbeddingLookup()(ms.Tensor(table), ms.Tensor([1.0]), 0)
    assert ops.operations.array_ops.EmbeddingLookup is ops.EmbeddingLookup


def test_inplace_arithmetic_classes_update_their_first_input():
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    assert InplaceAddExt()(x, ms.Tensor([1.0, 1.0]), 2) is x
    np.testing.assert_allclose(x.asnumpy(), [3.0, 4.0])
    InplaceSubExt()(x, 1.0)
    InplaceMul()(x, ms.Tensor([2.0, 0.5]))
    InplaceDiv()(x, 2.0)
    np.testing.assert_allclose(x.asnumpy(), [2.0, 0.75])
    # differentiable: d/dx sum(x * 1 + 3 x) = 4
    g = ms.grad(lambda x: InplaceAddExt()(x * 1, x, 3).sum())(ms.Tensor([1.0, 2.0]))
    np.testing.assert_allclose(g.asnumpy(), [4.0, 4.0])
    with pytest.raises(TypeError, match="'InplaceAddExt'.*'input'"):
        InplaceAddExt()(1.0, x)


class _ZerosPlusTwo(nn.Cell):
    def __init__(self):
        super().__init__()
        self.add = InplaceAddExt()

    def construct(self, x):
        y = ops.zeros_like(x)
        self.add(y, y + 2)
        return y + 1


def test_inplace_add_in_a_graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        assert _ZerosPlusTwo()(ms.Tensor(1)).asnumpy() == 3
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _MorphNet(nn.Cell):
    def __init__(self, bprop=None):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")
        self.scale = ops.Morph(lambda a, k=_TWO: a * k * 5, lambda *s: s[0], lambda *d: d[0], bprop)

    def construct(self, x):
        return self.scale(self.scale(x * self.w), k=ms.Tensor(3.0))


def test_morph_runs_its_function_in_graph_mode_only():
    x = ms.Tensor(np.array([7.0, 8.0, 9.0], np.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _MorphNet()
        (gx,), (gw,) = ops.GradOperation(get_all=True, get_by_list=True)(net, net.trainable_params())(x)
        np.testing.assert_allclose(net(x).asnumpy(), np.array([7.0, 16.0, 27.0]) * 150)
        np.testing.assert_allclose(gx.asnumpy(), [150.0, 300.0, 450.0])
        np.testing.assert_allclose(gw.asnumpy(), [1050.0, 1200.0, 1350.0])
        # a bprop_fn replaces the gradient of the Morph'd function
        net = _MorphNet(bprop=lambda a, out, dout: (dout * 0 + 1,))
        gx = ops.GradOperation()(net)(x)
        np.testing.assert_allclose(gx.asnumpy(), [1.0, 2.0, 3.0])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(RuntimeError, match="Morph is only supported in GRAPH_MODE"):
        _MorphNet()(x)
    with pytest.raises(TypeError, match="'Morph'.*'infer_shape'"):
        ops.Morph(lambda a: a, None, lambda *d: d[0])


def test_auto_generate_copy_and_contiguous():
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = ops.transpose(x, (1, 0))
    c = copy(y)
    assert c is not y
    np.testing.assert_array_equal(c.asnumpy(), x.asnumpy().T)
    assert contiguous(y).is_contiguous()
    np.testing.assert_array_equal(contiguous(y).asnumpy(), x.asnumpy().T)
    g = ms.grad(lambda a: (copy(a) * a).sum())(ms.Tensor([1.0, 2.0]))
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])


def test_conjugate_transpose():
    x = np.array([[1 + 2j, 3j, 2.0], [4.0, -1j, 1 - 1j]], np.complex64)
    out = ops.ConjugateTranspose()(ms.Tensor(x), (1, 0))
    np.testing.assert_array_equal(out.asnumpy(), np.conj(x).T)
    r = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    np.testing.assert_array_equal(ops.ConjugateTranspose()(ms.Tensor(r), (2, 0, 1)).asnumpy(), r.transpose(2, 0, 1))
    assert ops.operations.array_ops.ConjugateTranspose is ops.ConjugateTranspose


def test_apply_adam_with_amsgrad_matches_the_update_rule_and_v2():
    rng = np.random.default_rng(0)
    var0, m0, v0, vh0 = rng.normal(size=4), rng.normal(size=4), rng.uniform(size=4), rng.uniform(size=4)
    g = rng.normal(size=4)
    b1, b2, eps, lr, b1p, b2p = 0.8, 0.95, 1e-6, 0.1, 0.64, 0.9025

    def params():
        return [ms.Parameter(ms.Tensor(a.astype(np.float32)), name=n)
                for a, n in ((var0, "var"), (m0, "m"), (v0, "v"), (vh0, "vhat"))]

    p1 = params()
    ops.operations.ApplyAdamWithAmsgrad(b1, b2, eps)(*p1, b1p, b2p, lr, ms.Tensor(g.astype(np.float32)))
    m = b1 * m0 + (1 - b1) * g
    v = b2 * v0 + (1 - b2) * g * g
    vh = np.maximum(vh0, v)
    var = var0 - lr * np.sqrt(1 - b2p) / (1 - b1p) * m / (np.sqrt(vh) + eps)
    for p, ref in zip(p1, (var, m, v, vh)):
        np.testing.assert_allclose(p.asnumpy(), ref, rtol=1e-5, atol=1e-6)
    p2 = params()
    ops.operations.ApplyAdamWithAmsgradV2()(*p2, b1p, b2p, lr, b1, b2, eps, ms.Tensor(g.astype(np.float32)))
    for a, b in zip(p1, p2):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    with pytest.raises(TypeError, match="'ApplyAdamWithAmsgrad'.*'beta1'"):
        ops.operations.ApplyAdamWithAmsgrad(beta1="0.9")


def test_sequence_and_scalar_to_tensor_of_graph_variables():
    # MindSpore: a tuple of ints gives Int64 by default; in a graph, mutable scalars and dynamic sequences become
    # Tensors (Int64 for ints, Float32 for floats) that change with the arguments without recompiling
    assert ops.TupleToTensor()((1, 2)).dtype == ms.int64 and ops.TupleToTensor()((1, 2.5)).dtype == ms.float32
    assert ops.ScalarToTensor()(3).dtype == ms.float32

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.seq, self.scalar = ops.TupleToTensor(), ops.ScalarToTensor()

        def construct(self, x, y):
            return self.seq(x), self.scalar(y), self.scalar(y, ms.float64)

    net = ms.jit(Net())
    for x, y, dt in (((1, 2, 3), 3, ms.int64), ((4, 5, 6), 7, ms.int64), ((1.5, 2.5), 3.5, ms.float32)):
        seq, scalar, wide = net(ms.mutable(x, True), ms.mutable(y))
        assert isinstance(scalar, ms.Tensor) and scalar.dtype == dt and scalar.asnumpy() == y
        assert seq.dtype == dt and seq.asnumpy().tolist() == list(x)
        assert wide.dtype == ms.float64 and wide.asnumpy() == y
    with pytest.raises(TypeError, match="ScalarToTensor"):
        ops.ScalarToTensor()(ms.Tensor(3))
