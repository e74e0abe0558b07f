"""ops.nsa_compress against a numpy loop over the windows of each segment (float32 sums, output in float16)."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

T = ms.Tensor


def _reference(x, w, block, stride, seq):
    out, begin = [], 0
    for end in seq:
        for start in range(begin, end - block + 1, stride):
            out.append((x[start:start + block].astype(np.float32) * w.astype(np.float32)[:, :, None]).sum(0))
        begin = end
    return np.array(out).astype(x.dtype).reshape(-1, x.shape[1], x.shape[2])


@pytest.mark.parametrize("block, stride, segments", [(64, 16, [80, 96, 80]), (16, 16, [15, 33, 16]),
                                                     (32, 32, [31]), (48, 16, [100])])
def test_nsa_compress_equals_the_window_loop(block, stride, segments):
    rs = np.random.RandomState(block + stride)
    seq = tuple(np.cumsum(segments).tolist())
    x = rs.standard_normal((seq[-1], 3, 32)).astype(np.float16)
    w = rs.standard_normal((block, 3)).astype(np.float16)
    got = ops.nsa_compress(T(x), T(w), block, stride, actual_seq_len=seq)
    want = _reference(x, w, block, stride, seq)
    assert got.shape == want.shape and got.dtype == ms.float16
    np.testing.assert_allclose(got.asnumpy().astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)


def test_nsa_compress_gradient_of_weight_and_input():
    rs = np.random.RandomState(0)
    seq = (40, 72)
    x = rs.standard_normal((72, 2, 16)).astype(np.float16)
    w = rs.standard_normal((16, 2)).astype(np.float16)
    gx, gw = ms.grad(lambda a, b: ops.nsa_compress(a, b, 16, 16, actual_seq_len=seq).astype(ms.float32).sum(),
                     grad_position=(0, 1))(T(x), T(w))
    starts = [0, 16, 40, 56]            # two windows in each segment (40 and 32 tokens)
    want_w = sum(x[s:s + 16].astype(np.float32).sum(-1) for s in starts)
    want_x = np.zeros((72, 2, 16), np.float32)
    for s in starts:
        want_x[s:s + 16] += w.astype(np.float32)[:, :, None]
    np.testing.assert_allclose(gw.asnumpy().astype(np.float32), want_w, rtol=2e-3, atol=2e-2)
    np.testing.assert_allclose(gx.asnumpy().astype(np.float32), want_x, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("kwargs, err, match", [
    ({"input": np.zeros((32, 1, 16), np.float32)}, TypeError, "float16 or bfloat16"),
    ({"weight": np.zeros((16, 1), np.float32)}, TypeError, "same dtype"),
    ({"compress_block_size": 16.0}, TypeError, "'compress_block_size' must be an int"),
    ({"weight": np.zeros((32, 1), np.float16)}, RuntimeError, "'weight' shape"),
    ({"compress_stride": 8}, RuntimeError, "'compress_stride' must be a multiple of 16"),
    ({"input": np.zeros((32, 1, 24), np.float16)}, RuntimeError, "D must be a multiple of 16"),
    ({"actual_seq_len": (20, 10, 32)}, RuntimeError, "non-decreasing"),
    ({"actual_seq_len": (16, 30)}, RuntimeError, "ending at T=32"),
    ({"actual_seq_len": "32"}, TypeError, "tuple or list of int"),
])
def test_nsa_compress_bad_input(kwargs, err, match):
    args = {"input": np.zeros((32, 1, 16), np.float16), "weight": np.zeros((16, 1), np.float16),
            "compress_block_size": 16, "compress_stride": 16, "actual_seq_len": (32,)}
    args.update(kwargs)
    with pytest.raises(err, match=match):
        ops.nsa_compress(T(args["input"]), T(args["weight"]), args["compress_block_size"], args["compress_stride"],
                         actual_seq_len=args["actual_seq_len"])
