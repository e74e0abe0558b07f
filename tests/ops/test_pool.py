"""Pooling ops: values vs direct-loop numpy, gradients vs finite differences, bad input."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops.functional import _pool as FP
from _conv_ref import adaptive, pool, same_pads
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests, positive

X4 = (2, 2, 5, 5)


def _lp(x, p, kernel, stride, ceil_mode=False):
    nd = len(kernel)
    avg = pool(x ** p, kernel, stride, (0,) * (2 * nd), ceil_mode=ceil_mode, kind="avg")
    return (avg * np.prod(kernel)) ** (1.0 / p)


def _fractional_ref(x, samples, kernel, out_size):
    """torch/MindSpore fractional max pooling windows from the per-plane samples u: start_i = floor((i + u) * a) -
    floor(u * a) with a = (in - k) / (out - 1), and the last window flush with the end."""
    n, c = x.shape[:2]
    out = np.zeros((n, c) + tuple(out_size))

    def starts(u, size, k, o):
        alpha = (size - k) / (o - 1)
        return [int((i + u) * alpha) - int(u * alpha) for i in range(o - 1)] + [size - k]

    for b in range(n):
        for ch in range(c):
            # samples are (w, h) ordered
            hs_all = starts(samples[b, ch, 1], x.shape[2], kernel[0], out_size[0])
            ws_all = starts(samples[b, ch, 0], x.shape[3], kernel[1], out_size[1])
            for i, hs in enumerate(hs_all):
                for j, ws in enumerate(ws_all):
                    out[b, ch, i, j] = x[b, ch, hs:hs + kernel[0], ws:ws + kernel[1]].max()
    return out


def _unpool_indices(r, n, c, oh, ow, k):
    """For each k x k window of an (oh * k, ow * k) plane one flat position in it, as max pooling returns."""
    di, dj = r.randint(0, k, (2, n, c, oh, ow))
    rows = np.arange(oh)[:, None] * k + di
    cols = np.arange(ow)[None, :] * k + dj
    return rows * (ow * k) + cols


_UNPOOL_IDX = _unpool_indices(np.random.RandomState(5), 2, 2, 2, 3, 2)


def _np_unpool(y):
    out = np.zeros(y.shape[:2] + (4 * 6,), y.dtype)
    np.put_along_axis(out, _UNPOOL_IDX.reshape(2, 2, -1), y.reshape(2, 2, -1), axis=2)
    return out.reshape(y.shape[:2] + (4, 6))


SPECS = [
    # kernel 2, stride 2, no padding: the fast strided-maximum kernel (odd sizes drop the last row/column)
    OpSpec("max_pool2d_2x2_fast", lambda x: ops.max_pool2d(x, 2, 2), lambda x: pool(x, (2, 2), (2, 2), (0,) * 4)[0],
           shapes=[(2, 3, 6, 4)], grad2=True),
    OpSpec("max_pool2d_2x2_fast_odd", lambda x: ops.max_pool2d(x, 2), lambda x: pool(x, (2, 2), (2, 2), (0,) * 4)[0],
           shapes=[(2, 2, 5, 7)], grad2=True),
    OpSpec("MaxPool2d_cell_2x2_unbatched", lambda x: ms.nn.MaxPool2d(2, 2)(x),
           lambda x: pool(x[None], (2, 2), (2, 2), (0,) * 4)[0][0], shapes=[(3, 4, 6)]),
    OpSpec("max_pool2d", lambda x: ops.max_pool2d(x, 3, 2, 1), lambda x: pool(x, (3, 3), (2, 2), (1,) * 4)[0],
           shapes=[X4], grad2=True),
    OpSpec("max_pool2d_indices_ceil_dilation", lambda x: ops.max_pool2d(x, 2, 2, 1, 2, True, True),
           lambda x: pool(x, (2, 2), (2, 2), (1,) * 4, (2, 2), True), shapes=[(2, 2, 6, 5)]),
    OpSpec("max_pool3d", lambda x: ops.max_pool3d(x, (1, 2, 2), 1, return_indices=True),
           lambda x: pool(x, (1, 2, 2), (1, 1, 1), (0,) * 6), shapes=[(1, 2, 2, 3, 3)]),
    OpSpec("max_pool_same_private", lambda x: FP._max_pool_nd(x, (3, 2), (2, 2), "same"),
           lambda x: pool(x, (3, 2), (2, 2), same_pads((5, 6), (3, 2), (2, 2), (1, 1)))[0], shapes=[(2, 2, 5, 6)],
           grad2=True),
    OpSpec("max_pool1d_private_unbatched", lambda x: FP._max_pool_nd(x, (2,), (2,), "same"),
           lambda x: pool(x[None], (2,), (2,), same_pads((5,), (2,), (2,), (1,)))[0][0], shapes=[(3, 5)]),
    OpSpec("MaxPool_class_same", lambda x: ops.MaxPool(3, 2, "same")(x),
           lambda x: pool(x, (3, 3), (2, 2), same_pads((5, 5), (3, 3), (2, 2), (1, 1)))[0], shapes=[X4]),
    OpSpec("avg_pool2d", lambda x: ops.avg_pool2d(x, 3, 2, 1), lambda x: pool(x, (3, 3), (2, 2), (1,) * 4, kind="avg"),
           shapes=[X4], grad2=True),
    OpSpec("avg_pool2d_ceil_exclude_pad", lambda x: ops.avg_pool2d(x, 3, 2, 1, True, False),
           lambda x: pool(x, (3, 3), (2, 2), (1,) * 4, None, True, "avg", False), shapes=[(2, 2, 6, 5)], grad2=True),
    OpSpec("avg_pool2d_asym_exclude_pad", lambda x: ops.avg_pool2d(x, 3, 2, (0, 1, 1, 0), count_include_pad=False),
           lambda x: pool(x, (3, 3), (2, 2), (0, 1, 1, 0), kind="avg", count_include_pad=False), shapes=[X4],
           grad2=True),
    OpSpec("avg_pool2d_divisor", lambda x: ops.avg_pool2d(x, 2, 1, 1, divisor_override=3),
           lambda x: pool(x, (2, 2), (1, 1), (1,) * 4, kind="avg", divisor_override=3), shapes=[(1, 2, 3, 3)]),
    OpSpec("avg_pool1d", lambda x: ops.avg_pool1d(x, 3, 2, 1, True, False),
           lambda x: pool(x, (3,), (2,), (1, 1), None, True, "avg", False), shapes=[(2, 2, 8)]),
    OpSpec("avg_pool3d", lambda x: ops.avg_pool3d(x, 2, (1, 2, 2), (0, 1, 1, 0, 0, 1)),
           lambda x: pool(x, (2, 2, 2), (1, 2, 2), (0, 1, 1, 0, 0, 1), kind="avg"), shapes=[(1, 2, 2, 3, 4)]),
    OpSpec("AvgPool_class_same_excludes_pad", lambda x: ops.AvgPool(3, 2, "same")(x),
           lambda x: pool(x, (3, 3), (2, 2), same_pads((5, 5), (3, 3), (2, 2), (1, 1)), kind="avg",
                          count_include_pad=False), shapes=[X4], grad2=True),
    OpSpec("AvgPool3D_same_counts_pad", lambda x: ops.AvgPool3D(2, 2, "same")(x),
           lambda x: pool(x, (2, 2, 2), (2, 2, 2), same_pads((1, 3, 3), (2, 2, 2), (2, 2, 2), (1, 1, 1)), kind="avg"),
           shapes=[(1, 2, 1, 3, 3)]),
    OpSpec("adaptive_avg_pool2d", lambda x: ops.adaptive_avg_pool2d(x, (3, None)),
           lambda x: adaptive(x, (3, 5)), shapes=[(2, 2, 5, 5)], grad2=True),
    OpSpec("adaptive_avg_pool1d", lambda x: ops.adaptive_avg_pool1d(x, 3), lambda x: adaptive(x, (3,)),
           shapes=[(2, 2, 6)]),
    OpSpec("adaptive_avg_pool3d_unbatched", lambda x: ops.adaptive_avg_pool3d(x, (1, 2, 3)),
           lambda x: adaptive(x[None], (1, 2, 3))[0], shapes=[(2, 2, 3, 5)]),
    OpSpec("adaptive_max_pool2d", lambda x: ops.adaptive_max_pool2d(x, (2, 3), True),
           lambda x: adaptive(x, (2, 3), "max"), shapes=[(2, 2, 5, 5)], grad2=True),
    OpSpec("adaptive_max_pool3d", lambda x: ops.adaptive_max_pool3d(x, (1, 2, 2), True)[0],
           lambda x: adaptive(x, (1, 2, 2), "max")[0], shapes=[(1, 2, 2, 3, 3)]),
    OpSpec("adaptive_max_pool1d", lambda x: ops.adaptive_max_pool1d(x, 2), lambda x: adaptive(x, (2,), "max")[0],
           shapes=[(2, 2, 6)]),
    OpSpec("lp_pool2d", lambda x: ops.lp_pool2d(x, 2, 2, 1), lambda x: _lp(x, 2.0, (2, 2), (1, 1)), shapes=[X4],
           gen=positive),
    OpSpec("lp_pool1d_ceil", lambda x: ops.lp_pool1d(x, 3, 2, 2, True), lambda x: _lp(x, 3.0, (2,), (2,), True),
           shapes=[(2, 2, 7)], gen=positive),
    OpSpec("fractional_max_pool2d", lambda x, u: ops.fractional_max_pool2d(x, 2, (3, 4), _random_samples=u),
           lambda x, u: _fractional_ref(x, u, (2, 2), (3, 4)), shapes=[(2, 2, 5, 6), (2, 2, 2)],
           gen=[None, lambda r, s: r.uniform(0, 1, s)], grad_inputs=(0,)),
    # unpooling scatters y to constant argmax positions; its gradient gathers at them
    OpSpec("max_unpool2d", lambda y: ops.max_unpool2d(y, ms.Tensor(_UNPOOL_IDX), 2), _np_unpool, shapes=[(2, 2, 2, 3)],
           grad2=True),
]

test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def test_max_unpool2d_inverts_max_pool2d():
    rng = np.random.RandomState(0)
    x = ms.Tensor(rng.standard_normal((2, 2, 4, 6)))
    y, idx = ops.max_pool2d(x, 2, return_indices=True)
    up = ops.max_unpool2d(y, idx, 2).asnumpy()
    want = np.zeros((2, 2, 4, 6))
    ref_y, ref_idx = pool(x.asnumpy(), (2, 2), (2, 2), (0,) * 4)
    np.put_along_axis(want.reshape(2, 2, -1), ref_idx.reshape(2, 2, -1), ref_y.reshape(2, 2, -1), axis=2)
    np.testing.assert_allclose(up, want)
    # the gradient of unpooling gathers at the indices
    g = ms.grad(lambda t: (ops.max_unpool2d(t, idx, 2) * ms.Tensor(np.arange(96.0).reshape(2, 2, 4, 6))).sum())(y)
    np.testing.assert_allclose(g.asnumpy().reshape(2, 2, -1),
                               np.take_along_axis(np.arange(96.0).reshape(2, 2, 24), ref_idx.reshape(2, 2, -1), 2))


def test_max_unpool_output_size_and_1d():
    y, idx = ops.max_pool2d(ms.Tensor(np.arange(16.0).reshape(1, 1, 4, 4)), 2, return_indices=True)
    assert ops.max_unpool2d(y, idx, 2, output_size=(5, 5)).shape == (1, 1, 5, 5)
    y1 = ms.Tensor(np.array([[[3.0, 5.0]]]))
    i1 = ms.Tensor(np.array([[[1, 2]]], np.int64))
    np.testing.assert_allclose(ops.max_unpool1d(y1, i1, 2).asnumpy(), [[[0, 3, 5, 0]]])


def test_max_pool_with_argmax_v1_counts_channels():
    x = ms.Tensor(np.arange(2 * 9, dtype=np.float32).reshape(1, 2, 3, 3))
    arg = ops.MaxPoolWithArgmax(2, 1)(x)[1]
    assert arg.dtype == ms.int32
    np.testing.assert_array_equal(arg.asnumpy()[0, 1], [[13, 14], [16, 17]])  # 9 + flat index in the plane


def test_max_pool_gradient_routes_to_argmax():
    x = ms.Tensor(np.array([[[[1.0, 5.0, 2.0], [0.0, 3.0, 4.0], [6.0, 1.0, 0.0]]]]))
    g = ms.grad(lambda t: FP._max_pool_nd(t, (2, 2), (1, 1)).sum())(x)
    np.testing.assert_allclose(g.asnumpy()[0, 0], [[0, 2, 0], [0, 0, 1], [1, 0, 0]])


def test_fractional_max_pool_draws_samples():
    ms.set_seed(3)
    x = ms.Tensor(np.random.RandomState(0).standard_normal((1, 2, 7, 7)).astype(np.float32))
    out, idx = ops.fractional_max_pool2d(x, 2, output_ratio=0.5, return_indices=True)
    assert out.shape == (1, 2, 3, 3) and idx.dtype == ms.int64
    np.testing.assert_allclose(out.asnumpy().reshape(1, 2, -1),
                               np.take_along_axis(x.asnumpy().reshape(1, 2, -1), idx.asnumpy().reshape(1, 2, -1), 2))


@pytest.mark.parametrize("fmt_in", [False, True])
def test_maxpool_class_nhwc(fmt_in):
    x = np.random.RandomState(2).standard_normal((1, 4, 4, 2)).astype(np.float32)
    got = ops.MaxPool(2, 2, data_format="NHWC")(ms.Tensor(x)).asnumpy()
    want = pool(x.transpose(0, 3, 1, 2), (2, 2), (2, 2), (0,) * 4)[0].transpose(0, 2, 3, 1)
    np.testing.assert_allclose(got, want)


_X = ms.Tensor(np.ones((1, 2, 4, 4), np.float32))
ERRORS = [
    ErrorSpec("max_pool2d_rank", lambda: ops.max_pool2d(ops.ones((2, 4, 4)), 2), ValueError, "4D"),
    ErrorSpec("max_pool2d_kernel_too_big", lambda: ops.max_pool2d(_X, 5), ValueError, "kernel size"),
    ErrorSpec("max_pool2d_kernel_zero", lambda: ops.max_pool2d(_X, 0), ValueError, "'kernel_size'"),
    ErrorSpec("max_pool2d_int_input", lambda: ops.max_pool2d(ops.ones((1, 1, 4, 4), ms.int32), 2), TypeError,
              "float"),
    ErrorSpec("avg_pool2d_negative_padding", lambda: ops.avg_pool2d(_X, 2, 1, -1), ValueError, "'padding'"),
    ErrorSpec("avg_pool2d_ceil_type", lambda: ops.avg_pool2d(_X, 2, ceil_mode=1), TypeError, "ceil_mode"),
    ErrorSpec("avg_pool1d_kernel_type", lambda: ops.avg_pool1d(ops.ones((1, 2, 4)), (2,)), TypeError, "kernel_size"),
    ErrorSpec("MaxPool_pad_mode", lambda: ops.MaxPool(2, 2, "pad"), ValueError, "pad_mode"),
    ErrorSpec("pool_private_pad_mode", lambda: FP._max_pool_nd(_X, (2, 2), (2, 2), "full"), ValueError, "pad_mode"),
    ErrorSpec("adaptive_avg_pool1d_divisible", lambda: ops.adaptive_avg_pool1d(ops.ones((1, 2, 5)), 2), ValueError,
              "divisible"),
    ErrorSpec("adaptive_avg_pool2d_size", lambda: ops.adaptive_avg_pool2d(_X, (2, 2, 2)), ValueError, "output_size"),
    ErrorSpec("adaptive_max_pool2d_rank", lambda: ops.adaptive_max_pool2d(ops.ones((4, 4)), 2), ValueError, "3D"),
    ErrorSpec("lp_pool_norm_zero", lambda: ops.lp_pool2d(_X, 0, 2), ValueError, "norm_type"),
    ErrorSpec("max_unpool_shapes", lambda: ops.max_unpool2d(_X, ops.zeros((1, 2, 2, 2), ms.int64), 2), ValueError,
              "must be equal"),
    ErrorSpec("max_unpool_output_size", lambda: ops.max_unpool2d(_X, ops.zeros((1, 2, 4, 4), ms.int64), 2,
                                                                 output_size=(20, 20)), ValueError, "output_size"),
    ErrorSpec("fractional_both_sizes", lambda: ops.fractional_max_pool2d(_X, 2, (2, 2), 0.5), ValueError,
              "exactly one"),
]
test_bad_input = make_error_tests(ERRORS)


def test_max_pool_2x2_fast_path_matches_indexed_kernel_on_ties():
    """The fast 2x2 kernel routes the gradient to the first maximum of a window, like the argmax kernel."""
    x = np.zeros((2, 2, 4, 6), np.float32)
    x[0, 0, :2, :2] = 1.0                      # all four tied
    x[0, 1, 0, 1] = x[0, 1, 1, 0] = 3.0        # two tied, not the first cell
    x[1, :, 2:, 4:] = np.array([[0.5, 2.0], [2.0, 2.0]])
    t = ms.Tensor(x)
    fast = ms.grad(lambda a: (ops.max_pool2d(a, 2, 2) * ms.Tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3)))
                   .sum())(t)
    slow = ms.grad(lambda a: (ops.max_pool2d(a, 2, 2, return_indices=True)[0]
                              * ms.Tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))).sum())(t)
    np.testing.assert_array_equal(fast.asnumpy(), slow.asnumpy())
    assert ops.max_pool2d(t, 2, 2).shape == (2, 2, 2, 3)


@pytest.mark.parametrize("shape", [(3, 4, 8, 10), (2, 3, 7, 9)])
def test_max_pool_2x2_fast_gradient_on_every_tie_pattern(shape):
    """Values 0..2 give every pattern of tied maxima in a window (and odd sizes a dropped last row/column): the
    fast kernel's gradient equals the argmax kernel's, value for value."""
    rng = np.random.default_rng(7)
    x = ms.Tensor(rng.integers(0, 3, shape).astype(np.float32))
    w = ms.Tensor(rng.standard_normal((shape[0], shape[1], shape[2] // 2, shape[3] // 2)).astype(np.float32))
    fast = ms.grad(lambda a: (ops.max_pool2d(a, 2, 2) * w).sum())(x)
    slow = ms.grad(lambda a: (ops.max_pool2d(a, 2, 2, return_indices=True)[0] * w).sum())(x)
    np.testing.assert_array_equal(fast.asnumpy(), slow.asnumpy())


def test_adaptive_max_pool3d_takes_integer_input():
    x = np.arange(2 * 4 * 4 * 4, dtype=np.int32).reshape(2, 4, 4, 4) * 3 - 50
    out, idx = ops.adaptive_max_pool3d(ms.Tensor(x), (2, 2, 2), True)
    assert out.dtype == ms.int32 and idx.dtype == ms.int32
    want = x.reshape(2, 2, 2, 2, 2, 2, 2).max(axis=(2, 4, 6))
    np.testing.assert_array_equal(out.asnumpy(), want)
    with pytest.raises(RuntimeError, match="adaptive_max_pool3d.*empty"):
        ops.adaptive_max_pool3d(ms.Tensor(np.zeros((0, 3, 3, 4), np.int32)), (1, 1, 2))
