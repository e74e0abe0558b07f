"""ops.operations._inner_ops primitives: ConvertToDynamic passes values and gradients through."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.ops.operations import _inner_ops as inner
from _graph import graph_mode


class _Square(nn.Cell):
    def __init__(self):
        super().__init__()
        self.convert = inner.ConvertToDynamic(is_dynamic_rank=True).add_prim_attr("primitive_target", "CPU")

    def construct(self, x):
        y = self.convert(x)
        return y * y


@pytest.mark.parametrize("graph", [False, True])
def test_convert_to_dynamic_is_the_identity_for_values_and_gradients(graph):
    x = ms.Tensor(np.array([[1.0, -2.0, 3.0]], np.float32))
    net = _Square()
    grad = ops.GradOperation(get_all=True)(net)
    if graph:
        with graph_mode():
            out, (dx,) = net(x), grad(x)
    else:
        out, (dx,) = net(x), grad(x)
    np.testing.assert_array_equal(out.asnumpy(), [[1.0, 4.0, 9.0]])
    np.testing.assert_array_equal(dx.asnumpy(), [[2.0, -4.0, 6.0]])
    assert inner.ConvertToDynamic().attrs["is_dynamic_rank"] is False


def test_convert_to_dynamic_checks_its_arguments():
    with pytest.raises(TypeError, match="'is_dynamic_rank' must be bool"):
        inner.ConvertToDynamic(1)
    with pytest.raises(TypeError, match="'input' must be a Tensor"):
        inner.ConvertToDynamic()([1.0])


def test_clip_by_norm_primitive_scales_to_the_norm_in_float32():
    x = np.array([[3.0, 4.0]], np.float16)
    out = inner.ClipByNorm()(ms.Tensor(x), ms.Tensor(np.array([1.0], np.float16)))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), [[0.6, 0.8]], rtol=1e-6)
    small = np.array([[0.3, 0.4], [0.03, 0.04]], np.float32)      # norms below clip_norm: unchanged
    np.testing.assert_allclose(inner.ClipByNorm(1)(ms.Tensor(small), ms.Tensor(np.array([1.0], np.float32)))
                               .asnumpy(), small, rtol=1e-6)
    with pytest.raises(TypeError, match=r"input argument\[x\] must be a type of \{Float16, Float32\}"):
        inner.ClipByNorm()(ms.Tensor(x.astype(np.float64)), ms.Tensor(np.array([1.0], np.float32)))
    with pytest.raises(TypeError, match="'axis' must be None, an int"):
        inner.ClipByNorm(1.5)


def test_add_v2_adds_tensors_of_one_shape():
    from mindseed.ops.operations.math_ops import AddV2
    out = AddV2()(ms.Tensor(np.array([1, 2, 3], np.int32)), ms.Tensor(np.array([4.0, 5.0, 6.5], np.float32)))
    assert out.dtype == ms.float32 and out.asnumpy().tolist() == [5.0, 7.0, 9.5]
    with pytest.raises(ValueError, match=r"the input_shape: \[2, 3\] must be equal to \[3\]"):
        AddV2()(ops.ones((2, 3)), ops.ones(3))


@pytest.mark.parametrize("graph", [False, True])
def test_tensor_copy_slices_values_and_gradients(graph):
    x = np.zeros((4, 3), np.float32)
    v = np.full((2, 3), 5.0, np.float32)
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    op = inner.TensorCopySlices()

    def loss(a, b):
        return (op(a, b, (1,), (3,), (1,)) * ms.Tensor(w)).sum()

    want = x.copy()
    want[1:3] = v
    fwd = (lambda a, b: op(a, b, (1,), (3,), (1,)))  # noqa: E731
    if graph:
        with graph_mode():
            out = ms.jit(fwd)(ms.Tensor(x), ms.Tensor(v))
    else:
        out = fwd(ms.Tensor(x), ms.Tensor(v))
    np.testing.assert_array_equal(out.asnumpy(), want)
    gx, gv = ms.grad(loss, (0, 1))(ms.Tensor(x), ms.Tensor(v))
    mask = np.ones_like(w)
    mask[1:3] = 0
    np.testing.assert_array_equal(gx.asnumpy(), w * mask)
    np.testing.assert_array_equal(gv.asnumpy(), w[1:3])
    # broadcast value into a strided 2-D slice; x itself unchanged
    x2 = ms.Tensor(np.zeros((10, 10), np.float32))
    out = op(x2, ms.Tensor(np.ones(5, np.float32)), (9, 0), (10, 10), (1, 2))
    assert out.asnumpy()[9, ::2].tolist() == [1.0] * 5 and out.asnumpy().sum() == 5 and x2.asnumpy().sum() == 0
    with pytest.raises(ValueError, match="one length"):
        op(x2, ms.Tensor(1.0), (0,), (1, 1), (1,))


def test_is_sub_class():
    sub = inner.IsSubClass()
    assert sub(ms.int32, ms.int32) and sub(ms.int32, ms.number) and sub(ms.bool_, ms.number)
    assert not sub(ms.int32, ms.float32) and not sub(ms.number, ms.int32) and not sub(ms.tensor_type, ms.number)
    with pytest.raises(TypeError, match="For 'IsSubClass', the type of 'sub_type' should be 'Type', but got type "
                                        "'NoneType'"):
        sub(None, ms.number)
    with pytest.raises(TypeError, match="the type of 'type_' should be 'Type'"):
        sub(ms.int32, 1)


def test_anti_quant():
    x = np.array([50, 20, -3], np.int8)
    out = inner.AntiQuant()(ms.Tensor(x), 2.0, 1.0)
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy(), (x + 1.0) * 2.0)
    out = inner.AntiQuant(True, ms.float32)(ms.Tensor(x), ms.Tensor([2.0, 1.0, 0.5], ms.float32),
                                            offset=ms.Tensor([1.0], ms.float32))
    np.testing.assert_allclose(out.asnumpy(), (x + 1.0) * np.array([4.0, 1.0, 0.25]))
    with pytest.raises(TypeError, match="'x' must be a Tensor of int8"):
        inner.AntiQuant()(ms.Tensor(x.astype(np.float32)), 2.0, 1.0)
    with pytest.raises(TypeError, match="'sqrt_mode' must be bool"):
        inner.AntiQuant(sqrt_mode=1)

    @ms.jit
    def by_keyword(a, scale, offset):
        return inner.AntiQuant()(x=a, scale=scale, offset=offset)

    with pytest.raises(TypeError, match="But got input argument"):
        by_keyword(ms.Tensor(x), 1.0, 2.0)


def test_mixed_precision_cast_class():
    x = ms.Tensor(np.ones([2, 3], dtype=np.float32))
    out = inner.MixedPrecisionCast()(ms.float16, (x, ms.Tensor([1]), {"a": x}))
    assert (out[0].dtype, out[1].dtype, out[2]["a"].dtype) == (ms.float16, ms.int64, ms.float16)
    np.testing.assert_array_equal(out[0].asnumpy(), np.ones((2, 3), np.float16))
    with pytest.raises(TypeError):          # MindSpore: the constructor takes no argument
        inner.MixedPrecisionCast(ms.float16, x)
