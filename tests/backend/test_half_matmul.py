"""float16 matrix products on the CPU: computed in float32 and rounded once to float16, as MindSpore's CPU kernels do
(torch's own CPU float16 products are an order of magnitude slower)."""
import time

import numpy as np

import mindseed as ms
from mindseed import nn, ops


def _ulp_close(got, a, b):
    """Within one float16 step of the exact product of the float16 operands."""
    exact = a.astype(np.float64) @ b.astype(np.float64)
    step = np.spacing(np.abs(exact).astype(np.float16)).astype(np.float64)
    assert got.dtype == np.float16
    assert np.all(np.abs(got.astype(np.float64) - exact) <= step), np.abs(got.astype(np.float64) - exact).max()


def test_float16_matmul_bmm_and_dense_round_the_float32_product():
    rng = np.random.RandomState(0)
    a = rng.randn(3, 16, 300).astype(np.float16)
    b = rng.randn(3, 300, 8).astype(np.float16)
    _ulp_close(ops.matmul(ms.Tensor(a), ms.Tensor(b)).asnumpy(), a, b)
    _ulp_close(ops.BatchMatMul()(ms.Tensor(a), ms.Tensor(b)).asnumpy(), a, b)
    _ulp_close(ops.MatMul(transpose_b=True)(ms.Tensor(a[0]), ms.Tensor(b[0].T.copy())).asnumpy(), a[0], b[0])
    dense = nn.Dense(300, 8, weight_init=ms.Tensor(b[1].T.copy()), bias_init="zeros", dtype=ms.float16)
    _ulp_close(dense(ms.Tensor(a[1])).asnumpy(), a[1], b[1])
    # 3001 ones: a float16 running sum would stop at 2048; the float32 one reaches 3001, rounded to 3000
    ones = ms.Tensor(np.ones((1, 3001), np.float16))
    assert ops.matmul(ones, ones.T).asnumpy().tolist() == [[3000.0]]


def _best(fn, runs=3):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn().asnumpy()
        times.append(time.perf_counter() - start)
    return min(times)


def test_float16_matmul_costs_about_what_float32_costs():
    rng = np.random.RandomState(1)
    x32 = rng.randn(8, 128, 512).astype(np.float32)
    y32 = rng.randn(8, 512, 128).astype(np.float32)
    x16, y16 = ms.Tensor(x32.astype(np.float16)), ms.Tensor(y32.astype(np.float16))
    x32, y32 = ms.Tensor(x32), ms.Tensor(y32)
    t32 = _best(lambda: ops.matmul(x32, y32))
    t16 = _best(lambda: ops.matmul(x16, y16))
    # torch's float16 CPU kernel takes 10-15 times the float32 one; widened it is the float32 one plus two casts
    assert t16 < 4 * t32 + 0.01, (t16, t32)


def test_float16_conv2d_and_its_gradients_equal_the_float32_ones_rounded():
    rng = np.random.RandomState(2)
    x = rng.randn(2, 8, 12, 12).astype(np.float16)
    w = (rng.randn(16, 8, 3, 3) / 8).astype(np.float16)
    conv16 = nn.Conv2d(8, 16, 3, pad_mode="pad", padding=1, weight_init=ms.Tensor(w), dtype=ms.float16)
    conv32 = nn.Conv2d(8, 16, 3, pad_mode="pad", padding=1, weight_init=ms.Tensor(w.astype(np.float32)))
    out16, out32 = conv16(ms.Tensor(x)).asnumpy(), conv32(ms.Tensor(x.astype(np.float32))).asnumpy()
    assert out16.dtype == np.float16
    np.testing.assert_array_equal(out16, out32.astype(np.float16))
    g16 = ms.grad(conv16, grad_position=0, weights=conv16.trainable_params())(ms.Tensor(x))
    g32 = ms.grad(conv32, grad_position=0, weights=conv32.trainable_params())(ms.Tensor(x.astype(np.float32)))
    np.testing.assert_array_equal(g16[0].asnumpy(), g32[0].asnumpy().astype(np.float16))
    np.testing.assert_array_equal(g16[1][0].asnumpy(), g32[1][0].asnumpy().astype(np.float16))
    x16 = ms.Tensor(rng.randn(4, 32, 32, 32).astype(np.float16))
    w16 = ms.Tensor(rng.randn(64, 32, 3, 3).astype(np.float16))
    t32 = _best(lambda: ops.conv2d(x16.astype(ms.float32), w16.astype(ms.float32), padding=1, pad_mode="pad"))
    t16 = _best(lambda: ops.conv2d(x16, w16, padding=1, pad_mode="pad"))
    assert t16 < 4 * t32 + 0.01, (t16, t32)
