"""Argument forms of earlier MindSpore releases that model zoos still use."""
import numpy as np
import pytest

import mindseed as ms


def _a(*shape):
    return np.random.default_rng(0).random(shape).astype(np.float32)


def test_pad_paddings_pairs_by_keyword_and_position_as_numpy():
    a = _a(2, 3, 4)
    pairs = ((0, 1), (2, 0), (1, 3))
    want = np.pad(a, pairs)
    np.testing.assert_array_equal(ms.ops.pad(ms.Tensor(a), paddings=pairs).asnumpy(), want)
    np.testing.assert_array_equal(ms.ops.pad(ms.Tensor(a), pairs).asnumpy(), want)
    np.testing.assert_array_equal(ms.ops.pad(ms.Tensor(a), (1, 3, 2, 0)).asnumpy(), np.pad(a, ((0, 0), (2, 0), (1, 3))))
    with pytest.raises(TypeError, match="give exactly one of 'padding' and the 1.x form 'paddings'"):
        ms.ops.pad(ms.Tensor(a))
    with pytest.raises(ValueError, match="one \\(before, after\\) pair per input dimension \\(3\\), but got 2"):
        ms.ops.pad(ms.Tensor(a), paddings=((0, 1), (0, 1)))


def test_tensor_squeeze_axis_and_dim_keywords():
    x = ms.Tensor(_a(1, 2, 1, 3))
    assert x.squeeze(axis=2).shape == (1, 2, 3) and x.squeeze(dim=0).shape == (2, 1, 3)
    assert x.squeeze(axis=(0, 2)).shape == (2, 3) and x.squeeze(0, 2).shape == (2, 3) and x.squeeze().shape == (2, 3)
    with pytest.raises(TypeError, match="the axis is given twice"):
        x.squeeze(0, axis=2)


def test_resize_bilinear_takes_its_size_at_construction():
    x = _a(1, 2, 3, 4)
    got = ms.ops.ResizeBilinear((6, 8))(ms.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, ms.ops.ResizeBilinearV2()(ms.Tensor(x), (6, 8)).asnumpy())
    # legacy corners (scale = in / out): exact doubling repeats each source value into the even positions
    np.testing.assert_allclose(got[..., ::2, ::2], x, rtol=1e-6)
    np.testing.assert_allclose(got[..., 1, 1], (x[..., 0, 0] + x[..., 1, 0] + x[..., 0, 1] + x[..., 1, 1]) / 4,
                               rtol=1e-5)


def test_table_primitives_take_their_input_by_keyword():
    x = ms.Tensor(np.array([-1.0, 2.0], np.float32))
    want = np.array([np.exp(-1.0) - 1.0, 2.0], np.float32)
    np.testing.assert_allclose(ms.ops.Elu()(input_x=x).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(ms.ops.Elu()(x).asnumpy(), want, rtol=1e-6)
    with pytest.raises(TypeError, match="Elu"):
        ms.ops.Elu()(x, x)


def test_logsumexp_takes_mindspore_2_2_axis_and_keep_dims_keywords():
    a = _a(2, 3)
    want = np.log(np.exp(a).sum(1))
    np.testing.assert_allclose(ms.ops.logsumexp(ms.Tensor(a), axis=1).asnumpy(), want, rtol=1e-6)
    got = ms.ops.logsumexp(ms.Tensor(a), axis=1, keep_dims=True).asnumpy()
    assert got.shape == (2, 1)
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-6)
    np.testing.assert_allclose(ms.ops.logsumexp(ms.Tensor(a), 1, True).asnumpy()[:, 0], want, rtol=1e-6)
    with pytest.raises(TypeError, match="exactly one of 'dim' and the MindSpore 2.2 form 'axis', but got both"):
        ms.ops.logsumexp(ms.Tensor(a), 1, axis=1)
    with pytest.raises(TypeError, match="but got neither"):
        ms.ops.logsumexp(ms.Tensor(a))
