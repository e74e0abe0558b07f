"""The embedding-cache update (UpdateCache) and the fused optimizer updates (FusedAdaFactor[WithGlobalNorm],
FusedCastAdamWeightDecay, SparseApplyFtrlV2): the Parameters they write, against numpy references and values
MindSpore 2.10 CPU gave."""
import json
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed.ops.operations import _embedding_cache_ops, inner_ops, nn_ops

T = ms.Tensor
R = np.random.RandomState(0)


def _param(a, name):
    return ms.Parameter(T(np.asarray(a)), name=name)


def test_update_cache_writes_the_rows_in_range_and_returns_a_placeholder():
    x = _param(np.array([[2, 3, 4, 5], [6, 7, 8, 9], [11, 12, 13, 14], [1, 2, 3, 4], [5, 6, 7, 8]], np.int32), "x")
    update = np.array([[0, 0, 0, 0], [23, 34, 56, 78], [44, 55, 66, 77]], np.int32)
    out = _embedding_cache_ops.UpdateCache()(x, T(np.array([[-1, 3, 4]], np.int32)), T(update), 9999)
    want = np.array([[2, 3, 4, 5], [6, 7, 8, 9], [11, 12, 13, 14], [23, 34, 56, 78], [44, 55, 66, 77]])
    np.testing.assert_array_equal(x.asnumpy(), want)
    assert out.shape == (1,) and out.asnumpy().tolist() == [0]
    # an index at or past max_num is skipped too
    x = _param(np.zeros((4, 2), np.float32), "x")
    ops.UpdateCache()(x, T(np.array([1, 3], np.int32)), T(np.ones((2, 2), np.float32)), 3)
    np.testing.assert_array_equal(x.asnumpy(), [[0, 0], [1, 1], [0, 0], [0, 0]])


def test_update_cache_in_graph_mode_writes_the_parameter():
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.x = _param(np.zeros((3, 2), np.float32), "x")
            self.op = ops.UpdateCache()

        def construct(self, indices, update):
            return self.op(self.x, indices, update, 10)

    net = Net()
    ms.jit(net.construct)(T(np.array([2], np.int32)), T(np.array([[5.0, 6.0]], np.float32)))
    np.testing.assert_array_equal(net.x.asnumpy(), [[0, 0], [0, 0], [5, 6]])


def _adafactor_ref(p, g, ea, row, col, sq, lr, eps1, eps2, clip, beta1, beta2, wd, scale, first):
    lr_t = lr * max(eps2, np.sqrt((p * p).mean())) if scale else lr
    upd = g * g + eps1
    if g.ndim >= 2:
        row = beta2 * row + (1 - beta2) * upd.mean(-1)
        col = beta2 * col + (1 - beta2) * upd.mean(-2)
        u = g / np.sqrt(row / row.mean(-1, keepdims=True))[..., None] / np.sqrt(col)[..., None, :]
    else:
        sq = beta2 * sq + (1 - beta2) * upd
        u = g / np.sqrt(sq)
    u = u / max(np.sqrt((u * u).mean()) / clip, 1.0) * lr_t
    if first:
        ea = beta1 * ea + (1 - beta1) * u
        u = ea
    if wd:
        p = p - wd * lr_t * p
    return p - u, ea, row, col, sq


@pytest.mark.parametrize("flags", [(False, False, False), (True, True, True), (True, False, True)])
@pytest.mark.parametrize("shape", [(2, 3, 2), (5,)])
@pytest.mark.parametrize("global_norm", [None, 10.0, 0.5])
def test_fused_ada_factor(flags, shape, global_norm):
    g, p0 = R.standard_normal(shape), R.standard_normal(shape)
    state = [np.full(shape, 0.1), np.full(shape[:-1], 0.3), np.full(shape[:-2] + shape[-1:], 0.4), np.full(shape, 0.2)]
    param, ea, row, col, sq = (_param(a, n) for a, n in zip([p0] + state, "p e r c s".split()))
    args = [(1e-30, 1e-3), 1.0, 0.9, 0.8, 1e-2, 0.03, T(g), param, ea, row, col, sq]
    if global_norm is None:
        out = inner_ops.FusedAdaFactor(*flags)(*args)
    else:
        out = ops.FusedAdaFactorWithGlobalNorm(*flags)(*args, global_norm)
        g = g / global_norm
    want = _adafactor_ref(p0, g, *state, 0.03, 1e-30, 1e-3, 1.0, 0.9, 0.8, 1e-2 if flags[2] else 0.0, flags[0],
                          flags[1])
    for got, w in zip((param, ea, row, col, sq), want):
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-10, atol=1e-12)
    assert out.shape == shape and not out.asnumpy().any()     # MindSpore's output is a placeholder


def test_fused_ada_factor_matches_mindspore_on_its_own_example():
    param = _param(np.ones((2, 3, 2), np.float32), "p")
    state = [_param(np.zeros(s, np.float32), n) for s, n in (((2, 3, 2), "e"), ((2, 3), "r"), ((2, 2), "c"),
                                                              ((2, 3, 2), "s"))]
    ops.FusedAdaFactor()((1e-30, 1e-3), 1.0, 0.9, 0.8, 1e-2, 0.03, T(np.ones((2, 3, 2), np.float32)), param, *state)
    np.testing.assert_allclose(param.asnumpy(), 0.97, atol=1e-6)


@pytest.mark.parametrize("var_dtype", [np.float16, np.float32])
def test_fused_cast_adam_weight_decay(var_dtype):
    v0, g = R.standard_normal((4, 3)).astype(var_dtype), R.standard_normal((4, 3)).astype(np.float16)
    var, m, v = _param(v0, "w"), _param(np.full((4, 3), 0.1, np.float32), "m"), _param(np.full((4, 3), 0.2,
                                                                                               np.float32), "v")
    out = ops.FusedCastAdamWeightDecay()(var, m, v, 0.01, 0.9, 0.999, 1e-8, 0.1, T(g), 2.0)
    gs = g.astype(np.float32) / 2.0
    mn, vn = 0.9 * 0.1 + 0.1 * gs, 0.999 * 0.2 + 0.001 * gs * gs
    w = v0.astype(np.float32)
    want = (w - 0.01 * (mn / (np.sqrt(vn) + 1e-8) + 0.1 * w)).astype(var_dtype)
    np.testing.assert_allclose(m.asnumpy(), mn, rtol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), vn, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), want, rtol=1e-3 if var_dtype == np.float16 else 1e-6)
    assert var.dtype == (ms.float16 if var_dtype == np.float16 else ms.float32) and out[0] is var


def test_sparse_apply_ftrl_v2_against_numpy():
    # MindSpore's SparseApply* kernels take float16 / float32 only
    v0, a0, l0, g = (R.standard_normal((4, 3)).astype(np.float32), np.full((4, 3), 0.5, np.float32),
                     R.standard_normal((4, 3)).astype(np.float32), R.standard_normal((3, 3)).astype(np.float32))
    var, acc, lin = _param(v0, "v"), _param(a0, "a"), _param(l0, "l")
    idx = np.array([2, 0, 2])
    out = nn_ops.SparseApplyFtrlV2(0.01, 0.1, 0.2, 0.3, -0.5)(var, acc, lin, T(g), T(idx, ms.int32))
    gs = np.zeros((4, 3))
    np.add.at(gs, idx, g)
    rows = [0, 2]
    w, a, li, gr = v0[rows], a0[rows], l0[rows], gs[rows]
    na = a + gr * gr
    li = li + gr + 2 * 0.3 * w - (np.sqrt(na) - np.sqrt(a)) / 0.01 * w
    quad = np.sqrt(na) / 0.01 + 2 * 0.2
    wn = np.where(np.abs(li) > 0.1, (np.sign(li) * 0.1 - li) / quad, 0.0)
    np.testing.assert_allclose(var.asnumpy()[rows], wn, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lin.asnumpy()[rows], li, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(acc.asnumpy()[rows], na, rtol=1e-5)
    np.testing.assert_array_equal(var.asnumpy()[[1, 3]], v0[[1, 3]])
    # Tensors of the updated Parameters' values (MindSpore's outputs)
    assert type(out[0]) is ms.Tensor
    np.testing.assert_array_equal(out[0].asnumpy(), var.asnumpy())
    np.testing.assert_array_equal(out[2].asnumpy(), lin.asnumpy())


def test_sparse_apply_ftrl_float16_state_is_computed_in_float32():
    state = [_param(np.ones((3, 3, 3), np.float16), n) for n in "val"]
    ops.SparseApplyFtrl(lr=0.001, l1=0.0, l2=0.0, lr_power=-0.5)(*state, T(np.ones((3, 3, 3), np.float16)),
                                                                   T([0, 1, 2], ms.int32))
    np.testing.assert_array_equal(state[0].asnumpy(), np.float16(0.2915))    # MindSpore's value


@pytest.mark.parametrize("make_call, exc, match", [
    (lambda s: ops.SparseApplyFtrlV2(0.01, 0.1, 0.2, 0.3, -0.5)(*s, T(np.ones((2, 2), np.float32)),
                                                                T(np.array([0, 1], np.float32))),
     TypeError, "'indices' must be a Tensor of int32 or int64"),
    (lambda s: ops.FusedSparseLazyAdam()(*s, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, [T(np.ones((2, 2), np.float32))],
                                          T(np.array([0, 1], np.int32))), TypeError, "'grad' must be a Tensor"),
    (lambda s: ops.UpdateCache()(s[0], T(np.array([0.0])), T(np.ones((1, 2), np.float32)), 3), TypeError,
     "indices"),
    (lambda s: ops.FusedAdaFactor(enable_first_moment=1), TypeError, "enable_first_moment"),
    (lambda s: ops.FusedCastAdamWeightDecay()(_param(np.ones((3, 2), np.float64), "w"), s[1], s[2], 0.1, 0.9, 0.99,
                                              1e-8, 0.0, T(np.ones((3, 2), np.float16)), 1.0), TypeError, "'var'"),
])
def test_bad_input(make_call, exc, match):
    state = [_param(np.ones((3, 2), np.float32), n) for n in "abc"]
    with pytest.raises(exc, match=match):
        make_call(state)


_MAP_CACHE_CASES = json.load(open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                               "fixtures", "embedding_cache", "map_cache_idx.json")))


@pytest.mark.parametrize("case", _MAP_CACHE_CASES, ids=lambda c: f"{c['args'][5]}-{len(c['args'][1])}")
def test_map_cache_idx_equals_mindspore_cpu_kernel(case):
    hashmap, indices, step, emb_max_num, offset, dtype = case["args"]
    h = ms.Parameter(T(np.array(hashmap, dtype)), name="h")
    s = ms.Parameter(T(np.array([step], dtype)), name="s")
    if "error" in case:
        with pytest.raises(RuntimeError, match="hashmap is full, delete old key failed"):
            ops.MapCacheIdx()(h, T(np.array(indices, dtype)), s, emb_max_num, offset)
        return
    outs = ops.MapCacheIdx()(h, T(np.array(indices, dtype)), s, emb_max_num, offset)
    for got, want in zip(outs, case["out"]):
        assert got.dtype == h.dtype
        np.testing.assert_array_equal(got.asnumpy(), np.array(want, dtype).reshape(got.shape))
    np.testing.assert_array_equal(h.asnumpy(), np.array(case["hashmap"]))
    np.testing.assert_array_equal(s.asnumpy(), np.array(case["step"]))


def test_map_cache_idx_bad_input():
    idx = T(np.array([1], np.int32))
    with pytest.raises(ValueError, match="MapCacheIdx.*dimension of hashmap"):
        ops.MapCacheIdx()(T(np.zeros(4, np.int32)), idx, T(np.array([0], np.int32)), 5, 0)
    with pytest.raises(TypeError, match="MapCacheIdx.*same dtype"):
        ops.MapCacheIdx()(T(np.zeros((4, 4), np.int64)), idx, T(np.array([0], np.int32)), 5, 0)
    with pytest.raises(TypeError, match="MapCacheIdx.*hashmap"):
        ops.MapCacheIdx()(T(np.zeros((4, 4), np.float32)), idx, T(np.array([0], np.int32)), 5, 0)
