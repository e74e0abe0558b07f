"""The generated Primitive classes with mint's signatures (`ops.auto_generate.AddExt`, `SumExt`, `StackExt`, ...)
and the fused operators model code builds layers from (GroupedMatmul, MoeFinalizeRouting, FusedAddTopKDiv,
QuantV2, DynamicQuantExt, QuantBatchMatmul, FlashAttentionScore), against numpy."""
import numpy as np
import pytest

import mindseed as ms
from mindseed.ops import auto_generate as A
from mindseed.ops.operations import nn_ops

RNG = np.random.default_rng(0)


def _t(a):
    return ms.Tensor(a)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_ext_arithmetic_and_reductions():
    x, y = _f32(3, 4), _f32(3, 4)
    np.testing.assert_allclose(A.AddExt()(_t(x), _t(y), 2).asnumpy(), x + 2 * y, rtol=1e-6)
    np.testing.assert_allclose(A.SubExt()(_t(x), _t(y), 0.5).asnumpy(), x - 0.5 * y, rtol=1e-6)
    s = A.SumExt()(_t(x), 1, True, ms.float64)
    assert s.dtype == ms.float64 and s.shape == (3, 1)
    np.testing.assert_allclose(s.asnumpy(), x.astype(np.float64).sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(A.MeanExt()(_t(x)).asnumpy(), x.mean(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(A.CumsumExt()(_t(x), 0).asnumpy(), x.cumsum(0), rtol=1e-6)
    np.testing.assert_allclose(A.Muls()(_t(x), 3.0).asnumpy(), 3 * x, rtol=1e-6)
    np.testing.assert_allclose(A.FmodScalar()(_t(x), 0.7).asnumpy(), np.fmod(x, 0.7), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(A.Outer()(_t(x[0]), _t(y[1])).asnumpy(), np.outer(x[0], y[1]), rtol=1e-6)
    np.testing.assert_allclose(A.SiLU()(_t(x)).asnumpy(), x / (1 + np.exp(-x)), rtol=1e-5)
    z = A.ZerosLikeExt()(_t(x), ms.int32)
    assert z.dtype == ms.int32 and not z.asnumpy().any()


def test_ext_shape_ops():
    x = _f32(4, 6)
    parts = A.SplitWithSize()(_t(x), [1, 5], 1)
    np.testing.assert_array_equal(parts[1].asnumpy(), x[:, 1:])
    chunks = A.Chunk()(_t(x), 2, 0)
    np.testing.assert_array_equal(chunks[1].asnumpy(), x[2:])
    np.testing.assert_array_equal(A.StackExt(1)([_t(x), _t(x)]).asnumpy(), np.stack([x, x], 1))
    idx = np.array([3, 0], np.int64)
    np.testing.assert_array_equal(A.IndexSelect()(_t(x), 0, _t(idx)).asnumpy(), x[idx])
    vals, order = A.SortExt()(_t(x), 1, True)
    np.testing.assert_array_equal(vals.asnumpy(), -np.sort(-x, 1))
    np.testing.assert_array_equal(order.asnumpy(), np.argsort(-x, 1, kind="stable"))
    top, where = A.TopkExt()(_t(x), 2, 0)
    np.testing.assert_array_equal(top.asnumpy(), -np.sort(-x, 0)[:2])
    np.testing.assert_array_equal(A.BatchMatMulExt()(_t(_f32(2, 3, 4)), _t(np.ones((2, 4, 1), np.float32))).shape,
                                  (2, 3, 1))
    hot = A.OneHotExt(-1)(_t(np.array([0, 2], np.int64)), 3, _t(np.float32(5)), _t(np.float32(-1)))
    np.testing.assert_array_equal(hot.asnumpy(), [[5, -1, -1], [-1, -1, 5]])


@pytest.mark.parametrize("reduce, combine", [("none", lambda a, b: b), ("add", np.add), ("multiply", np.multiply)])
def test_scatter(reduce, combine):
    x = _f32(2, 3)
    index = np.array([[2, 0], [1, 2]], np.int64)
    src = _f32(2, 2)
    want = x.copy()
    for i in range(2):
        for j in range(2):
            want[i, index[i, j]] = combine(want[i, index[i, j]], src[i, j])
    np.testing.assert_allclose(A.Scatter()(_t(x), 1, _t(index), _t(src), reduce).asnumpy(), want, rtol=1e-6)
    with pytest.raises(ValueError, match="Scatter"):
        A.Scatter()(_t(x), 1, _t(index), _t(src), "max")


@pytest.mark.parametrize("reduce, combine", [("none", lambda a, b: b), ("add", np.add), ("multiply", np.multiply)])
def test_scatter_value_writes_one_number(reduce, combine):
    x = _f32(3, 4)
    index = np.array([[1, 3], [0, 0], [2, 1]], np.int64)
    want = x.copy()
    for i in range(3):
        for j in sorted(set(index[i].tolist())):
            for _ in range(list(index[i]).count(j) if reduce != "none" else 1):
                want[i, j] = combine(want[i, j], np.float32(2.5))
    got = A.ScatterValue()(_t(x), 1, _t(index), 2.5, reduce)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    assert got.dtype == ms.float32


def test_swiglu_and_its_gradient():
    x = _f32(3, 8)
    a, b = x[:, :4], x[:, 4:]
    sig = 1 / (1 + np.exp(-a))
    np.testing.assert_allclose(A.Swiglu()(_t(x), -1).asnumpy(), a * sig * b, rtol=1e-5)
    dout = _f32(3, 4)
    grad = A.SwigluGrad()(_t(dout), _t(x), -1).asnumpy()
    # float64 central differences of sum(dout * swiglu(x))
    x64, eps, fd = x.astype(np.float64), 1e-6, np.zeros_like(x, np.float64)

    def f(v):
        p, q = v[:, :4], v[:, 4:]
        return (dout * p / (1 + np.exp(-p)) * q).sum()
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x64)
        d[i] = eps
        fd[i] = (f(x64 + d) - f(x64 - d)) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-4, atol=1e-5)
    auto = ms.grad(lambda v: (A.Swiglu()(v, -1) * _t(dout)).sum())(_t(x))
    np.testing.assert_allclose(auto.asnumpy(), fd, rtol=1e-4, atol=1e-5)


def test_grouped_matmul():
    xs, ws, bs = [_f32(2, 3), _f32(4, 5)], [_f32(3, 2), _f32(5, 3)], [_f32(2), _f32(3)]
    outs = A.GroupedMatmul()([_t(v) for v in xs], [_t(v) for v in ws], [_t(v) for v in bs])
    for o, x, w, b in zip(outs, xs, ws, bs):
        np.testing.assert_allclose(o.asnumpy(), x @ w + b, rtol=1e-5, atol=1e-6)
    # one (M, K) input split by the running ends of its groups, one weight per expert
    x, w = _f32(6, 4), _f32(3, 4, 2)
    ends = np.array([1, 1, 6], np.int64)
    (out,) = A.GroupedMatmul(split_item=3, group_type=0)([_t(x)], [_t(w)], group_list=_t(ends))
    want = np.concatenate([x[:1] @ w[0], x[1:1] @ w[1], x[1:] @ w[2]])
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    wt = np.ascontiguousarray(np.swapaxes(w, 1, 2))
    (out_t,) = A.GroupedMatmul(3, 0, False, True)([_t(x)], [_t(wt)], group_list=_t(ends))
    np.testing.assert_allclose(out_t.asnumpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="group_list"):
        A.GroupedMatmul(3, 0)([_t(x)], [_t(w)], group_list=_t(ends[:2]))


def test_grouped_matmul_v4_takes_counts_or_ends_at_the_call():
    """GroupedMatmulV4 (mindformers' inference experts): the options are call arguments; group_list_type 1 gives the
    rows of each group (MoeInitRoutingV2's counts), 0 their running ends."""
    x, w = _f32(6, 4), _f32(3, 4, 2)
    want = np.concatenate([x[:1] @ w[0], x[1:1] @ w[1], x[1:] @ w[2]])
    gmm = A.GroupedMatmulV4()
    (by_counts,) = gmm([_t(x)], [_t(w)], None, None, None, None, None, None, _t(np.array([1, 0, 5], np.int64)),
                       split_item=3, group_type=0, group_list_type=1)
    (by_ends,) = gmm([_t(x)], [_t(w)], group_list=_t(np.array([1, 1, 6], np.int64)), split_item=3, group_type=0)
    for got in (by_counts, by_ends):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    (half,) = gmm([_t(x)], [_t(w)], group_list=[1, 0, 5], split_item=3, group_type=0, group_list_type=1,
                  output_dtype=ms.float16)
    assert half.dtype == ms.float16
    with pytest.raises(ValueError, match="For 'GroupedMatmulV4', 'group_list_type' must be 0"):
        gmm([_t(x)], [_t(w)], group_list=[1, 0, 5], split_item=3, group_type=0, group_list_type=2)
    with pytest.raises(ValueError, match="For 'GroupedMatmulV4', the quantised inputs and the fused activation"):
        gmm([_t(x)], [_t(w)], group_list=[1, 0, 5], split_item=3, group_type=0, act_type=1)


def test_grouped_matmul_by_group_list_compiles_and_differentiates():
    """In a compiled graph the rows' groups come from `group_list`'s values at run time (no data-dependent shape):
    the same product, rows past the last end zero, gradients those of the per-group products."""
    x, w, b = _f32(7, 4), _f32(3, 4, 2), _f32(3, 2)
    ends = np.array([2, 2, 5], np.int64)
    groups = [(0, 2, 0), (2, 5, 2)]                     # (first row, end, group) of the non-empty groups
    want = np.zeros((7, 2), np.float32)
    for s, e, g in groups:
        want[s:e] = x[s:e] @ w[g] + b[g]

    def f(x_, w_, b_, ends_):
        return A.GroupedMatmul(3, 0)([x_], [w_], [b_], group_list=ends_)[0]

    eager = f(_t(x), _t(w), _t(b), _t(ends))
    np.testing.assert_allclose(eager.asnumpy(), want, rtol=1e-5, atol=1e-6)
    compiled = ms.jit(f)(_t(x), _t(w), _t(b), _t(ends))
    np.testing.assert_allclose(compiled.asnumpy(), want, rtol=1e-5, atol=1e-6)
    dout = _f32(7, 2)
    loss = ms.jit(lambda *a: (f(*a) * _t(dout)).sum())
    dx, dw, db = ms.grad(loss, grad_position=(0, 1, 2))(_t(x), _t(w), _t(b), _t(ends))
    want_dx, want_dw, want_db = np.zeros_like(x), np.zeros_like(w), np.zeros_like(b)
    for s, e, g in groups:
        want_dx[s:e] = dout[s:e] @ w[g].T
        want_dw[g] = x[s:e].T @ dout[s:e]
        want_db[g] = dout[s:e].sum(0)
    for got, ref in ((dx, want_dx), (dw, want_dw), (db, want_db)):
        np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-5)


def test_moe_finalize_routing():
    n, k, h, e = 3, 2, 4, 3
    expanded_x, x1, x2, bias = _f32(n * k, h), _f32(n, h), _f32(n, h), _f32(e, h)
    scales = RNG.random((n, k)).astype(np.float32)
    row_idx = RNG.permutation(n * k).astype(np.int32)
    expert = RNG.integers(0, e, (n, k)).astype(np.int32)
    want = x1 + x2
    for i in range(n):
        for j in range(k):
            want[i] += scales[i, j] * (expanded_x[row_idx[i + j * n]] + bias[expert[i, j]])
    got = A.MoeFinalizeRouting()(_t(expanded_x), _t(x1), _t(x2), _t(bias), _t(scales), _t(row_idx), _t(expert))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_fused_add_topk_div():
    tokens, experts, groups, group_topk, n, k = 4, 8, 4, 2, 2, 3
    x, bias = _f32(tokens, experts), _f32(experts) * 0.1
    weights, idx = A.FusedAddTopKDiv()(_t(x), _t(bias), groups, group_topk, n, k, 0, True, 2.5)
    assert idx.dtype == ms.int32 and weights.dtype == ms.float32
    scores = 1 / (1 + np.exp(-x.astype(np.float64)))
    choice = scores + bias
    for t in range(tokens):
        g = choice[t].reshape(groups, -1)
        gscore = np.sort(g, 1)[:, -n:].sum(1)
        keep = np.argsort(-gscore, kind="stable")[:group_topk]
        masked = np.full(experts, -np.inf)
        for grp in keep:
            masked[grp * 2:(grp + 1) * 2] = choice[t, grp * 2:(grp + 1) * 2]
        chosen = np.argsort(-masked, kind="stable")[:k]
        np.testing.assert_array_equal(idx.asnumpy()[t], chosen)
        w = scores[t, chosen]
        np.testing.assert_allclose(weights.asnumpy()[t], w / w.sum() * 2.5, rtol=1e-5)


def test_quantisation_ops():
    # MindSpore's documented example of QuantV2: saturated to int8
    q = A.QuantV2()(_t(np.array([100.0, 150.0], np.float32)), _t(np.array([80.0, 40.0], np.float32)),
                    _t(np.array([0.0, 2.0], np.float32)), False, "ROUND", ms.int8)
    assert q.dtype == ms.int8 and q.asnumpy().tolist() == [127, 127]
    x = np.array([[0.5, -1.0, 0.25], [2.0, 1.0, -0.5]], np.float32)
    q = A.QuantV2()(_t(x), _t(np.full(3, 10.0, np.float32)), _t(np.zeros(3, np.float32)))
    np.testing.assert_array_equal(q.asnumpy(), np.clip(np.round(x * 10), -128, 127))
    # per-tensor: one scale and offset of shape (1,) for every channel (Golden Stick's A8W8 activations)
    q = A.QuantV2()(_t(x), _t(np.array([100.0], np.float32)), _t(np.array([-3.0], np.float32)))
    np.testing.assert_array_equal(q.asnumpy(), np.clip(np.round(x * 100 - 3), -128, 127))
    # an int8 offset: Ascend's internal kernel, whose scale is the step (x divided by it)
    step, zp = np.array([0.01, 0.02, 0.005], np.float32), np.array([-3, 0, 5], np.int8)
    q = A.QuantV2()(_t(x), _t(step), _t(zp))
    np.testing.assert_array_equal(q.asnumpy(), np.clip(np.round(x / step + zp), -128, 127))
    with pytest.raises(ValueError, match="QuantV2.*'scale' must be 1 or that of x"):
        A.QuantV2()(_t(x), _t(np.ones(2, np.float32)), _t(np.zeros(3, np.float32)))
    y, scale = A.DynamicQuantExt()(_t(x))
    np.testing.assert_allclose(scale.asnumpy(), np.abs(x).max(1) / 127, rtol=1e-6)
    np.testing.assert_array_equal(y.asnumpy(), np.round(x / (np.abs(x).max(1, keepdims=True) / 127)))
    a = RNG.integers(-128, 128, (3, 5)).astype(np.int8)
    b = RNG.integers(-128, 128, (5, 2)).astype(np.int8)
    col_scale, bias = np.array([0.01, 0.02], np.float32), np.array([3, -4], np.int32)
    out = A.QuantBatchMatmul(dtype=ms.float32)(_t(a), _t(b), _t(col_scale), None, _t(bias))
    want = (a.astype(np.int64) @ b.astype(np.int64) + bias) * col_scale.astype(np.float64)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    # an int64 scale is Ascend's packed form (Golden Stick's A8W8 cells): the float32 whose bits are its low 32 bits
    packed_values = np.array([0.01, -2.5e-4], np.float32)
    packed = np.frombuffer(packed_values.tobytes(), np.uint32).astype(np.int64)
    assert packed.tolist() == [1008981770, 3112374895]
    out = A.QuantBatchMatmul(dtype=ms.float32)(_t(a), _t(b), _t(packed), None, _t(bias))
    want = (a.astype(np.int64) @ b.astype(np.int64) + bias) * packed_values.astype(np.float64)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    tiny = np.frombuffer(np.array([1e-40, 0.0, np.inf], np.float32).tobytes(), np.uint32).astype(np.int64)
    ones = np.ones((1, 3), np.int8)
    out = A.QuantBatchMatmul(dtype=ms.float32)(_t(ones[:, :1]), _t(ones), _t(tiny)).asnumpy()
    np.testing.assert_array_equal(out, np.array([[1e-40, 0.0, np.inf]], np.float32))


def _attention_reference(q, k, v, scale, mask):
    s = scale * q @ np.swapaxes(k, -1, -2)
    s = np.where(mask, -np.inf, s)
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    return (e / e.sum(-1, keepdims=True)) @ v, m, e.sum(-1, keepdims=True)


def test_flash_attention_score_outputs_and_statistics():
    b, n, s, d = 2, 2, 4, 8
    q, k, v = _f32(b, n, s, d), _f32(b, n, s, d), _f32(b, n, s, d)
    causal = np.triu(np.ones((s, s), bool), 1)
    fa = nn_ops.FlashAttentionScore(head_num=n, scale_value=d ** -0.5, input_layout="BNSD")
    row_max, row_sum, soft_out, out = fa(_t(q), _t(k), _t(v), None, None, None, _t(causal.astype(np.uint8)))
    want, m, total = _attention_reference(q.astype(np.float64), k, v, d ** -0.5, causal)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert row_max.shape == (b, n, s, 8) and row_sum.shape == (b, n, s, 8) and soft_out.shape == (1,)
    np.testing.assert_allclose(row_max.asnumpy(), np.broadcast_to(m, (b, n, s, 8)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(row_sum.asnumpy(), np.broadcast_to(total, (b, n, s, 8)), rtol=1e-5)
    # the BSH layout of the same heads gives the same output, and gradients flow through it
    to_bsh = lambda t: np.ascontiguousarray(t.transpose(0, 2, 1, 3).reshape(b, s, n * d))  # noqa: E731
    fa_bsh = A.FlashAttentionScore(n, 1.0, d ** -0.5, 65536, 0, 0, "BSH", 2)
    out_bsh = fa_bsh(_t(to_bsh(q)), _t(to_bsh(k)), _t(to_bsh(v)))[3]
    np.testing.assert_allclose(out_bsh.asnumpy(), to_bsh(want), rtol=1e-5, atol=1e-6)
    g = ms.grad(lambda x: fa_bsh(x, _t(to_bsh(k)), _t(to_bsh(v)))[3].sum())(_t(to_bsh(q)))
    assert g.shape == (b, s, n * d) and np.isfinite(g.asnumpy()).all() and np.abs(g.asnumpy()).sum() > 0
    with pytest.raises(ValueError, match="sparse_mode"):
        A.FlashAttentionScore(n, sparse_mode=4)(_t(q), _t(k), _t(v))


def test_generated_array_prims_of_gpt_models():
    x = _f32(4, 6)
    a = A.Arange()(1, 10, 3, ms.float32)
    assert a.dtype == ms.float32
    np.testing.assert_array_equal(a.asnumpy(), np.arange(1, 10, 3, dtype=np.float32))
    np.testing.assert_array_equal(A.ClampScalar()(_t(x), -0.5, 0.5).asnumpy(), np.clip(x, -0.5, 0.5))
    np.testing.assert_array_equal(A.ClampScalar()(_t(x), None, 0.0).asnumpy(), np.minimum(x, 0.0))
    np.testing.assert_array_equal(A.TrilExt()(_t(x), -1).asnumpy(), np.tril(x, -1))
    r = A.RepeatInterleaveTensor()(_t(x), _t(np.array([2, 0, 1, 3], np.int64)), 0)
    np.testing.assert_array_equal(r.asnumpy(), np.repeat(x, [2, 0, 1, 3], axis=0))
    np.testing.assert_array_equal(A.SliceExt()(_t(x), 1, 1, 6, 2).asnumpy(), x[:, 1:6:2])
    np.testing.assert_array_equal(A.SliceExt()(_t(x), -2, 2, 100, 1).asnumpy(), x[2:])
    with pytest.raises(ValueError, match="SliceExt.*'step'"):
        A.SliceExt()(_t(x), 0, 0, 4, 0)
    g = ms.grad(lambda z: (A.SliceExt()(z, 1, 0, 6, 3) * 2).sum())(_t(x)).asnumpy()
    np.testing.assert_array_equal(g, np.where(np.arange(6) % 3 == 0, 2.0, 0.0)[None].repeat(4, 0))
    target = _t(np.zeros((4, 6), np.float32))
    out = A.InplaceCopy()(target, _t(x[0]))  # broadcast into the target, which is returned
    assert out is target
    np.testing.assert_array_equal(target.asnumpy(), np.broadcast_to(x[0], (4, 6)))


def test_weight_quant_batch_matmul_dequantizes_the_int8_weight():
    """x @ ((w + offset) * scale) + bias: per tensor, per output channel (either weight layout), per group of
    rows; with quant_scale the product is quantized to int8."""
    x = _f32(3, 6)
    w = RNG.integers(-128, 128, (6, 4)).astype(np.int8)
    scale, offset, bias = np.array([0.01, 0.02, 0.03, 0.04], np.float32), _f32(4), _f32(4)
    want = x @ ((w.astype(np.float32) + offset) * scale) + bias
    out = A.WeightQuantBatchMatmul()(_t(x), _t(w), _t(scale), _t(offset), None, None, _t(bias))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-5)
    # the weight stored transposed, (out, in), with the same per-channel vectors (Golden Stick's layout)
    out = A.WeightQuantBatchMatmul(False, True)(_t(x), _t(np.ascontiguousarray(w.T)), _t(scale), _t(offset),
                                                None, None, _t(bias))
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-5)
    per_tensor = A.WeightQuantBatchMatmul()(_t(x), _t(w), _t(np.array([0.05], np.float32)))
    np.testing.assert_allclose(per_tensor.asnumpy(), x @ (w * np.float32(0.05)), rtol=1e-5, atol=1e-5)
    # groups of 2 rows of the reduced dimension, each with its own scale per output column
    group_scale = np.abs(_f32(3, 4)) + 0.01
    grouped = A.WeightQuantBatchMatmul(antiquant_group_size=2)(_t(x), _t(w), _t(group_scale))
    np.testing.assert_allclose(grouped.asnumpy(), x @ (w * np.repeat(group_scale, 2, 0)), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="2 groups of 2 do not cover the 6 rows"):
        A.WeightQuantBatchMatmul(antiquant_group_size=2)(_t(x), _t(w), _t(group_scale[:2]))
    xt = np.ascontiguousarray(x.T)
    quantized = A.WeightQuantBatchMatmul(True)(_t(xt), _t(w), _t(scale), None, _t(np.float32(4.0)),
                                               _t(np.float32(1.0)))
    assert quantized.dtype == ms.int8
    np.testing.assert_array_equal(quantized.asnumpy(), np.clip(np.round(x @ (w * scale) * 4 + 1), -128, 127))


def test_weight_quant_batch_matmul_unpacks_a_qint4x2_weight():
    """A qint4x2 weight (Golden Stick's AWQ): each byte holds two 4-bit values, the low bits first, so a (k, n/2)
    weight is (k, n), and transposed (n, k/2) is (n, k)."""
    w4 = RNG.integers(-8, 8, (6, 4)).astype(np.int8)
    packed = ((w4[:, 0::2] & 0x0F) | (w4[:, 1::2] << 4)).astype(np.int8)       # Golden Stick's packing
    x = _f32(3, 6)
    scale = np.abs(_f32(4)) + 0.01
    want = x @ (w4 * scale)
    out = A.WeightQuantBatchMatmul()(_t(x), ms.Tensor(packed, ms.qint4x2), _t(scale))
    assert out.shape == (3, 4)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-5)
    wt = np.ascontiguousarray(w4.T)
    packed_t = ((wt[:, 0::2] & 0x0F) | (wt[:, 1::2] << 4)).astype(np.int8)
    out = A.WeightQuantBatchMatmul(False, True)(_t(x), ms.Tensor(packed_t, ms.qint4x2), _t(scale))
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-5)


def test_dequant_scales_the_int32_accumulator():
    """_inner_ops.Dequant: x * deq_scale (twice with sqrt_mode, ReLU with relu_flag) as float16; a uint64 scale
    holds a float32's bits (Golden Stick's DequantCell)."""
    from mindseed.ops.operations._inner_ops import Dequant
    x = np.array([[100, 150], [-3, 8]], np.int32)
    s = np.array([0.5, -0.25], np.float32)
    bits = np.frombuffer(s.tobytes(), np.uint32).astype(np.uint64)
    out = Dequant()(_t(x), _t(bits))
    assert out.dtype == ms.float16
    np.testing.assert_array_equal(out.asnumpy(), [[50.0, -37.5], [-1.5, -2.0]])
    np.testing.assert_array_equal(Dequant(True, True)(_t(x), _t(s.astype(np.float16))).asnumpy(),
                                  [[25.0, 9.375], [0.0, 0.5]])
    with pytest.raises(TypeError, match="For 'Dequant', the 'x' should be Int32"):
        Dequant()(_t(x.astype(np.float32)), _t(bits))
    with pytest.raises(TypeError, match="the 'deq_scale' should be one of \\[Float16, UInt64\\]"):
        Dequant()(_t(x), _t(s))
    with pytest.raises(TypeError, match="the 'sqrt_mode' must be bool"):
        Dequant(1)


def test_primitive_attr_dict_holds_the_shard_strategy():
    m = ms.ops.MatMul(transpose_b=True)
    assert "in_strategy" not in m.get_attr_dict()
    m.shard(((1, 1), (1, 1)))
    attrs = m.get_attr_dict()
    assert attrs["in_strategy"] == ((1, 1), (1, 1))
    attrs["in_strategy"] = None                          # a copy
    assert m.get_attr_dict()["in_strategy"] == ((1, 1), (1, 1))


def test_view_operators_of_auto_generate():
    x = _f32(2, 3, 4)
    np.testing.assert_array_equal(A.BroadcastToView()(_t(x[0, 0]), (2, 4)).asnumpy(), np.broadcast_to(x[0, 0], (2, 4)))
    assert A.ExpandDimsView()(_t(x), 1).shape == (2, 1, 3, 4)
    np.testing.assert_array_equal(A.NarrowView()(_t(x), 2, 1, 2).asnumpy(), x[:, :, 1:3])
    np.testing.assert_array_equal(A.SelectExtView()(_t(x), 1, 2).asnumpy(), x[:, 2])
    parts = A.SplitTensorView()(_t(x), 2, 2)
    assert len(parts) == 2 and np.array_equal(parts[1].asnumpy(), x[:, :, 2:])
    parts = A.SplitWithSizeView()(_t(x), (1, 3), -1)
    assert [p.shape for p in parts] == [(2, 3, 1), (2, 3, 3)]
    assert [p.shape for p in A.ChunkView()(_t(x), 3, 1)] == [(2, 1, 4)] * 3
    np.testing.assert_array_equal(A.UnstackExtView()(_t(x), 1)[2].asnumpy(), x[:, 2])
    np.testing.assert_array_equal(A.DiagonalView()(_t(x), 1, 1, 2).asnumpy(), np.diagonal(x, 1, 1, 2))
    np.testing.assert_array_equal(A.SliceExtView()(_t(x), 2, 0, 4, 2).asnumpy(), x[:, :, 0:4:2])
    assert not hasattr(ms.ops, "NarrowView")     # as in MindSpore: auto_generate only


def test_grouped_matmul_function_of_auto_generate():
    x, w = _f32(6, 3), _f32(2, 3, 4)
    out = A.grouped_matmul([_t(x)], [_t(w)], group_list=ms.Tensor(np.array([2, 6], np.int64)), split_item=3,
                           group_type=0)
    want = np.concatenate([x[:2] @ w[0], x[2:] @ w[1]])
    np.testing.assert_allclose(out[0].asnumpy(), want, rtol=1e-5)
    a, b = A.grouped_matmul([_t(x), _t(x[:2])], [_t(w[0]), _t(w[1])])
    np.testing.assert_allclose(b.asnumpy(), x[:2] @ w[1], rtol=1e-5)
    assert a.shape == (6, 4)
