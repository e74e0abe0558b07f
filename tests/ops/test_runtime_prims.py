"""Runtime and inference primitive classes: the overflow status register, GeSwitch/Merge, UpdateState, Reusing,
PyExecute, SelectView, DumpGradient, MapUniform and the paged-KV-cache kernels (ReshapeAndCache,
KVCacheScatterUpdate, PagedAttention,
PagedAttentionMask, ApplyRotaryPosEmb, GroupTopk): values against numpy, gradients against float64 finite
differences, MindSpore's errors for bad input."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests

T = ms.Tensor

# ---------------------------------------------------------------- paged attention: caches, tables, lengths
_BT = np.array([[1, 2], [3, 0]], np.int32)      # sequence 0: blocks 1, 2; sequence 1: blocks 3, 0
_CL = np.array([3, 2], np.int32)                 # tokens in the cache per sequence (block_size 2)


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _paged_ref(q, kc, vc, heads, scale, bias=None):
    batch, dim = _BT.shape[0], kc.shape[-1]
    kv_heads = kc.shape[2]
    qh = q.reshape(batch, -1, heads, dim)
    out = np.zeros_like(qh)
    for b in range(batch):
        n = int(_CL[b])
        k = kc[_BT[b]].reshape(-1, kv_heads, dim)[:n]
        v = vc[_BT[b]].reshape(-1, kv_heads, dim)[:n]
        k, v = np.repeat(k, heads // kv_heads, 1), np.repeat(v, heads // kv_heads, 1)
        s = np.einsum("shd,lhd->hsl", qh[b], k) * scale
        if bias is not None:
            s = s + bias[b][..., :n]
        out[b] = np.einsum("hsl,lhd->shd", _softmax(s), v)
    return out.reshape(q.shape)


_ALIBI = np.random.RandomState(3).standard_normal((2, 2, 1, 4))


def _paged(q, kc, vc):
    return ops.PagedAttention(2, 0.5, 2)(q, kc, vc, T(_BT), T(_CL))


def _paged_gqa(q, kc, vc):
    return ops.PagedAttention(4, 0.3, 2)(q, kc, vc, T(_BT), T(_CL))


def _paged_mask(q, kc, vc):
    return ops.PagedAttentionMask(2, 0.5, 2)(q, kc, vc, T(_BT), T(_CL), None, None, T(_ALIBI, q.dtype))


# ---------------------------------------------------------------- rotary embedding
_POS = np.array([4, 0, 2], np.int32)


def _rot_ref(x, cos, sin, interleaved):
    d = cos.shape[-1]
    h = x.reshape(len(_POS), -1, d)
    c, s = cos[_POS][:, None], sin[_POS][:, None]
    if interleaved:
        r = np.stack((-h[..., 1::2], h[..., 0::2]), -1).reshape(h.shape)
    else:
        r = np.concatenate((-h[..., d // 2:], h[..., :d // 2]), -1)
    return (h * c + r * s).reshape(x.shape)


def _rope(fmt):
    return lambda q, k, cos, sin: ops.ApplyRotaryPosEmb(fmt)(q, k, cos, sin, T(_POS))


def _rope_ref(fmt):
    return lambda q, k, cos, sin: (_rot_ref(q, cos, sin, fmt in (1, 3)), _rot_ref(k, cos, sin, fmt in (1, 3)))


SPECS = [
    OpSpec("SelectView", lambda x: ops.SelectView()(x, 2, 1), lambda x: x[:, 2], shapes=[(3, 4, 2)]),
    OpSpec("SelectView-neg", lambda x: ops.SelectView()(x, -1, 0), lambda x: x[-1], shapes=[(3, 4)]),
    OpSpec("PagedAttention", _paged, lambda q, kc, vc: _paged_ref(q, kc, vc, 2, 0.5),
           shapes=[(2, 1, 6), (4, 2, 2, 3), (4, 2, 2, 3)], graph=False),
    OpSpec("PagedAttention-gqa", _paged_gqa, lambda q, kc, vc: _paged_ref(q, kc, vc, 4, 0.3),
           shapes=[(2, 2, 12), (4, 2, 2, 3), (4, 2, 2, 3)], graph=False),
    OpSpec("PagedAttentionMask", _paged_mask, lambda q, kc, vc: _paged_ref(q, kc, vc, 2, 0.5, _ALIBI),
           shapes=[(2, 1, 6), (4, 2, 2, 3), (4, 2, 2, 3)], graph=False),
    OpSpec("ApplyRotaryPosEmb", _rope(0), _rope_ref(0), shapes=[(3, 8), (3, 4), (6, 4), (6, 4)]),
    OpSpec("ApplyRotaryPosEmb-interleaved", _rope(1), _rope_ref(1), shapes=[(3, 8), (3, 4), (6, 4), (6, 4)]),
]
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)


def _kv_scatter(var, starts, updates, axis, reduce="update"):
    from mindseed.ops.auto_generate import KVCacheScatterUpdate  # noqa: PLC0415 -- MindSpore's generated module
    return KVCacheScatterUpdate()(T(var), T(np.array(starts, np.int64)), T(updates), axis, reduce)


def _bad_slot():
    kc = T(np.zeros((2, 2, 1, 3), np.float32))
    return ops.ReshapeAndCache()(T(np.ones((1, 3), np.float32)), None, kc, None, T(np.array([4], np.int32)))


test_bad_input = make_error_tests([
    ErrorSpec("SelectView-axis", lambda: ops.SelectView()(T(np.ones((2, 3))), 0, 2), ValueError,
              "For 'SelectView', the 'axis' must be in [-2, 2)"),
    ErrorSpec("SelectView-index", lambda: ops.SelectView()(T(np.ones((2, 3))), 3, 1), IndexError,
              "For 'SelectView', the index 3 is out of range"),
    ErrorSpec("MapUniform-float", lambda: ops.MapUniform()(T(np.ones(2, np.float32)), 4, 2), TypeError,
              "For 'MapUniform', the dtype of 'input' must be an int type"),
    ErrorSpec("GeSwitch-pred", lambda: ops.GeSwitch()(T(1.0), T(1.0)), TypeError,
              "For 'GeSwitch', the dtype of 'pred' must be one of"),
    ErrorSpec("GeSwitch-data", lambda: ops.GeSwitch()("a", T(True)), TypeError,
              "For 'GeSwitch', the 'data' must be a Tensor or a number"),
    ErrorSpec("Merge-two", lambda: ops.Merge()((T(1.0), T(2.0))), ValueError,
              "For 'Merge', exactly one input must carry data"),
    ErrorSpec("Merge-list", lambda: ops.Merge()(T(1.0)), TypeError, "For 'Merge', the 'inputs' must be a tuple"),
    ErrorSpec("NPUGetFloatStatus-int", lambda: ops.NPUGetFloatStatus()(T(np.zeros(8, np.int32))), TypeError,
              "For 'NPUGetFloatStatus', the dtype of 'x' must be one of"),
    ErrorSpec("ReshapeAndCache-slot", _bad_slot, ValueError, "For 'ReshapeAndCache', a slot of 'slot_mapping' (4)"),
    ErrorSpec("PagedAttention-heads", lambda: ops.PagedAttention(3, 1.0, 2)(
        T(np.ones((2, 1, 9), np.float32)), T(np.ones((4, 2, 2, 3), np.float32)), T(np.ones((4, 2, 2, 3), np.float32)),
        T(_BT), T(_CL)), ValueError, "For 'PagedAttention', the 'head_num' 3 must be a multiple"),
    ErrorSpec("GroupTopk-groups", lambda: ops.GroupTopk()(T(np.ones((2, 6), np.float32)), None, 4, 2), ValueError,
              "For 'GroupTopk', expert_num >= group_num >= k >= 1"),
    ErrorSpec("ApplyRotaryPosEmb-format", lambda: ops.ApplyRotaryPosEmb(5)(
        T(np.ones((1, 4))), T(np.ones((1, 4))), T(np.ones((1, 4))), T(np.ones((1, 4))), None), ValueError,
        "For 'ApplyRotaryPosEmb', the 'cos_format' must be 0, 1, 2 or 3"),
    ErrorSpec("KVCacheScatterUpdate-axis", lambda: _kv_scatter(np.zeros((2, 4), np.float32), [0],
                                                                np.ones((1, 2), np.float32), 0), ValueError,
              "For 'KVCacheScatterUpdate', the 'axis' must be -1 or -2, but got 0"),
    ErrorSpec("KVCacheScatterUpdate-range", lambda: _kv_scatter(np.zeros((2, 4), np.float32), [3],
                                                                 np.ones((1, 2), np.float32), -1), ValueError,
              "For 'KVCacheScatterUpdate', the 'indices' [3] plus 2 updated positions must lie within the 4"),
    ErrorSpec("KVCacheScatterUpdate-dtype", lambda: _kv_scatter(np.zeros((2, 4), np.float32), [0],
                                                                 np.ones((1, 2), np.float16), -1), ValueError,
              "For 'KVCacheScatterUpdate', the 'updates' must have the rank and dtype of 'var'"),
    ErrorSpec("DumpGradient-io", lambda: ops.DumpGradient()("f.npy", T(1.0), "both"), ValueError,
              "For 'DumpGradient', the 'input_output' must be 'in' or 'out'"),
])


# ---------------------------------------------------------------- the overflow status register
def test_float_status_sees_overflow():
    status = ops.NPUAllocFloatStatus()()
    np.testing.assert_array_equal(status.asnumpy(), np.zeros(8, np.float32))
    ops.NPUClearFloatStatus()(status)
    big = T(np.array([3e38, 1.0], np.float32))
    _ = big * 10
    got = ops.NPUGetFloatStatus()(status)
    assert got.asnumpy().sum() > 0 and status.asnumpy().sum() > 0      # written into the flag too
    ops.NPUClearFloatStatus()(status)
    _ = big * 0.5
    assert ops.NPUGetFloatStatus()(status).asnumpy().sum() == 0
    _ = big * 10                                                          # unwatched after the read
    assert ops.NPUGetFloatStatus()(status).asnumpy().sum() == 0


def test_float_status_in_a_network_as_mindspore_documents():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.alloc, self.get, self.clear = ops.NPUAllocFloatStatus(), ops.NPUGetFloatStatus(), \
                ops.NPUClearFloatStatus()

        def construct(self, x):
            init = self.alloc()
            clear = self.clear(init)
            x = ops.depend(x, clear)
            res = ops.sub(x, ops.neg(x))
            init = ops.depend(init, res)
            status = self.get(init)
            return ops.depend(res, status), status

    res, status = Net()(T(np.full((2, 3), 5, np.float16)))
    np.testing.assert_array_equal(res.asnumpy(), np.full((2, 3), 10, np.float16))
    assert status.asnumpy().sum() == 0
    _, status = Net()(T(np.full((2, 3), 60000, np.float16)))       # 60000 + 60000 overflows float16
    assert status.asnumpy().sum() > 0


# ---------------------------------------------------------------- dataflow and markers
def test_geswitch_merge_route_data():
    x, y = T(10.0), T(5.0)
    false_out, true_out = ops.geswitch(x, ops.less(x, y))
    assert true_out is None and float(false_out) == 10.0
    false_out, true_out = ops.GeSwitch()(y, ops.less(y, x))
    assert false_out is None
    data, index = ops.merge((None, ops.square(true_out)))
    assert float(data) == 25.0 and index.tolist() == [1] and index.dtype == ms.int32


def test_update_state_reusing_pyexecute():
    assert ops.UpdateState()(T(1.0), T(2.0)).item() == 1.0

    def body(i, v):
        return i * v

    assert ops.Reusing()(body) is body and body._ms_compile_hints == {"no_inline": True}
    assert ops.PyExecute()("a * b + 1", ("a", "b"), (3, 4)) == 13
    out = ops.PyExecute()("np.sum(x.asnumpy())", ("x",), (T(np.arange(4.0)),))
    assert out == 6.0
    with pytest.raises(TypeError, match="must be a function"):
        ops.Reusing()(3)


def test_dump_gradient_saves_dout(tmp_path):
    path = str(tmp_path / "x_dout.npy")
    dg = ops.DumpGradient()

    def f(x, y):
        return dg(path, x, "out") * y

    gx, gy = ms.grad(f, grad_position=(0, 1))(T(1.0), T(2.0))
    assert float(gx) == 2.0 and float(gy) == 1.0
    assert np.load(path) == np.float32(2.0)


def test_map_uniform_documented_example():
    out = ops.MapUniform()(T(np.array([0, 1, 2, 3, 4, 5, 6, 7])), 4, 2)
    assert out.tolist() == [0, 4, 1, 5, 2, 6, 3, 7]


def test_reshape_and_cache_writes_slots():
    kc, vc = T(np.zeros((2, 2, 1, 3), np.float32)), T(np.zeros((2, 2, 1, 3), np.float32))
    k = np.arange(9, dtype=np.float32).reshape(3, 3)
    ops.ReshapeAndCache()(T(k), T(k * 10), kc, vc, T(np.array([0, 3, -1], np.int32)))
    want = np.zeros((4, 3), np.float32)
    want[0], want[3] = k[0], k[1]
    np.testing.assert_array_equal(kc.asnumpy().reshape(4, 3), want)
    np.testing.assert_array_equal(vc.asnumpy().reshape(4, 3), want * 10)


def test_reshape_and_cache_in_a_compiled_graph_writes_the_callers_cache_each_call():
    """mindformers' inference graphs take the paged caches as inputs and fill them with ReshapeAndCache: every call
    of the compiled graph (not only the one that compiled it) writes the caller's cache."""
    cache = T(np.zeros((2, 2, 1, 3), np.float32))
    write = ops.ReshapeAndCache()

    @ms.jit
    def step(key, slots, c):
        write(key, None, c, None, slots)
        return key.sum()

    for n, slot in enumerate((2, 0, 3, 2)):       # the last call runs the graph the first one compiled
        step(T(np.full((1, 3), n + 1.0, np.float32)), T(np.array([slot], np.int32)), cache)
    np.testing.assert_array_equal(cache.asnumpy().reshape(4, 3)[:, 0], [2.0, 0.0, 4.0, 3.0])


def test_kv_cache_scatter_update_writes_each_batch_row_at_its_index():
    """var[b, ..., i_b : i_b + n, ...] = updates[b] along axis -2 (a (batch, heads, seq, dim) cache) or -1 (the
    (batch, seq) scale table Golden Stick's int8 cache keeps), in place; rows past the updates' batch untouched."""
    from mindseed.ops.auto_generate import KVCacheScatterUpdate, gen_ops_def
    from mindseed.ops.operations._infer_ops import KVCacheScatterUpdate as infer_class
    assert infer_class is KVCacheScatterUpdate and type(gen_ops_def.kv_cache_scatter_update_op) is KVCacheScatterUpdate
    rng = np.random.default_rng(0)
    var = rng.normal(size=(3, 2, 6, 4)).astype(np.float32)
    upd = rng.normal(size=(2, 2, 3, 4)).astype(np.float32)
    cache = ms.Parameter(T(var), name="cache")
    out = KVCacheScatterUpdate()(cache, T(np.array([1, 3], np.int32)), T(upd), -2, "update")
    want = var.copy()
    want[0, :, 1:4], want[1, :, 3:6] = upd[0], upd[1]
    np.testing.assert_array_equal(cache.asnumpy(), want)
    assert out is cache
    table = T(np.ones((2, 5), np.float32))
    KVCacheScatterUpdate()(table, T(np.array([2], np.int64)), T(np.full((1, 2), 7.0, np.float32)), -1)
    np.testing.assert_array_equal(table.asnumpy(), [[1, 1, 7, 7, 1], [1, 1, 1, 1, 1]])


def test_group_topk_keeps_best_groups():
    rng = np.random.RandomState(0)
    x = rng.rand(3, 8).astype(np.float32)
    for k_inner in (1, 2):
        tok = T(x.copy())
        ops.GroupTopk()(tok, T(np.arange(1024, dtype=np.int32)), 4, 2, k_inner)
        groups = x.reshape(3, 4, 2)
        score = np.sort(groups, -1)[..., ::-1][..., :k_inner].sum(-1)
        keep = np.zeros((3, 4), bool)
        np.put_along_axis(keep, np.argsort(-score, -1)[:, :2], True, -1)
        np.testing.assert_array_equal(tok.asnumpy(), (groups * keep[..., None]).reshape(3, 8))


def test_paged_attention_latent_values_and_a_one_row_mask():
    """Multi-latent attention (mindformers' DeepSeek decode): one cache holds the latent keys, whose first
    `mla_v_dim` channels are the values; the output has that width. A mask of one row (mindformers' (1, 1) zero
    placeholder) serves every sequence."""
    r = np.random.RandomState(4)
    q, kc = r.randn(2, 4, 5), r.randn(4, 2, 1, 5)                 # 2 tokens, 4 heads over one latent head of 5
    got = ops.PagedAttention(4, 0.5, 1, mla_v_dim=3)(T(q), T(kc), T(kc), T(_BT), T(_CL), None, None,
                                                     T(np.zeros((1, 1))))
    assert got.shape == (2, 4, 3)
    for b in range(2):
        k = kc[_BT[b]].reshape(-1, 5)[:_CL[b]]                    # (length, 5), one head shared by the 4
        want = _softmax(q[b] @ k.T * 0.5) @ k[:, :3]
        np.testing.assert_allclose(got.asnumpy()[b], want, rtol=1e-10)
    with pytest.raises(ValueError, match="For 'PagedAttention', the 'mla_v_dim' 6 must not exceed the head dim 5"):
        ops.PagedAttention(4, 0.5, 1, mla_v_dim=6)(T(q), T(kc), T(kc), T(_BT), T(_CL))


def test_rotary_table_rows_from_the_sequence_lengths():
    """`position_ids` holding each sequence's length (as mindformers passes it) picks, from a cos/sin table, the
    rows 0 .. length - 1 of each sequence: packed one after another, or padded to one length."""
    r = np.random.RandomState(5)
    cos, sin = r.randn(8, 4), r.randn(8, 4)
    q, k = r.randn(5, 8), r.randn(5, 4)                           # 5 tokens: 2 query heads, 1 key head of 4
    places = np.array([0, 1, 2, 0, 1])                            # sequences of 3 and 2, packed

    def ref(x, rows):
        h = x.reshape(len(rows), -1, 4)
        rot = np.concatenate((-h[..., 2:], h[..., :2]), -1)
        return (h * cos[rows][:, None] + rot * sin[rows][:, None]).reshape(x.shape)
    got = ops.ApplyRotaryPosEmb(0)(T(q), T(k), T(cos), T(sin), T(np.array([3, 2], np.int32)))
    np.testing.assert_allclose(got[0].asnumpy(), ref(q, places), rtol=1e-12)
    np.testing.assert_allclose(got[1].asnumpy(), ref(k, places), rtol=1e-12)
    q6, k6 = r.randn(6, 8), r.randn(6, 4)                         # two sequences padded to 3 tokens
    got = ops.ApplyRotaryPosEmb(0)(T(q6), T(k6), T(cos), T(sin), T(np.array([3, 1], np.int32)))
    np.testing.assert_allclose(got[0].asnumpy(), ref(q6, np.array([0, 1, 2, 0, 1, 2])), rtol=1e-12)
    with pytest.raises(ValueError, match="For 'ApplyRotaryPosEmb', the 7 tokens of the query cannot be matched"):
        ops.ApplyRotaryPosEmb(0)(T(r.randn(7, 8)), T(r.randn(7, 4)), T(cos), T(sin), T(np.array([3, 2], np.int32)))
