"""Functional names of the graph machinery and the MoE / ring-attention / fused-attention composites: values
against numpy (MindSpore's documented examples among them), gradients against float64 finite differences, errors."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from _harness import ErrorSpec, OpSpec, make_error_tests, make_tests

T = ms.Tensor


def _softmax_parts(s):
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    return m, e.sum(-1, keepdims=True), e / e.sum(-1, keepdims=True)


def _sfa_ref(q, k, v, heads, scale, causal=False):
    """BSH attention with grouped kv heads, in numpy: (out, max, sum)."""
    b, s, h = q.shape
    d = h // heads
    kv_heads = k.shape[-1] // d
    qh = q.reshape(b, s, heads, d).transpose(0, 2, 1, 3)
    kh = np.repeat(k.reshape(b, -1, kv_heads, d).transpose(0, 2, 1, 3), heads // kv_heads, 1)
    vh = np.repeat(v.reshape(b, -1, kv_heads, d).transpose(0, 2, 1, 3), heads // kv_heads, 1)
    sc = qh @ kh.transpose(0, 1, 3, 2) * scale
    if causal:
        sc = np.where(np.triu(np.ones(sc.shape[-2:], bool), 1), -np.inf, sc)
    m, z, p = _softmax_parts(sc)
    out = (p @ vh).transpose(0, 2, 1, 3).reshape(b, s, h)
    return out, np.tile(m, 8), np.tile(z, 8)


def _sfa(causal=False):
    return lambda q, k, v: ops.speed_fusion_attention(q, k, v, 4, "BSH", scale=0.3,
                                                      sparse_mode=2 if causal else 0)[:3]


def _ring_ref(o1, m1, s1, o2, m2, s2):
    m = np.maximum(m1, m2)
    w1, w2 = s1 * np.exp(m1 - m), s2 * np.exp(m2 - m)
    s = w1 + w2
    seq, batch, hidden = o1.shape
    heads = m1.shape[1]

    def per(a):
        return a[..., 0].transpose(2, 0, 1)[..., None]
    o = (o1.reshape(seq, batch, heads, -1) * per(w1 / s) + o2.reshape(seq, batch, heads, -1) * per(w2 / s))
    return o.reshape(o1.shape), m, s


def _eight(r, s):
    return np.repeat(r.uniform(0.5, 2.0, s[:-1] + (1,)), 8, -1)


_IDX = np.array([[2, 0], [1, 2], [0, 1]], np.int32)     # 3 tokens, top-2 experts


def _permute_ref(x):
    order = np.argsort(_IDX.reshape(-1), kind="stable")
    return x[order // 2]


SPECS = [
    # softmax_max / softmax_sum are float32 (MindSpore's dtype): their values here, the gradient of the output below
    OpSpec("speed_fusion_attention", _sfa(), lambda q, k, v: _sfa_ref(q, k, v, 4, 0.3),
           shapes=[(2, 3, 8), (2, 5, 4), (2, 5, 4)], grad=False),
    OpSpec("speed_fusion_attention-out", lambda *a: _sfa()(*a)[0], lambda q, k, v: _sfa_ref(q, k, v, 4, 0.3)[0],
           shapes=[(2, 3, 8), (2, 5, 4), (2, 5, 4)]),
    OpSpec("speed_fusion_attention-causal", lambda *a: _sfa(True)(*a)[0],
           lambda q, k, v: _sfa_ref(q, k, v, 4, 0.3, True)[0], shapes=[(2, 3, 8), (2, 3, 8), (2, 3, 8)]),
    OpSpec("ring_attention_update", lambda *a: ops.ring_attention_update(*a), _ring_ref,
           shapes=[(3, 2, 8), (2, 2, 3, 8), (2, 2, 3, 8), (3, 2, 8), (2, 2, 3, 8), (2, 2, 3, 8)],
           gen=[None, _eight, _eight, None, _eight, _eight], grad_inputs=(0, 3)),
    OpSpec("moe_token_permute", lambda x: ops.moe_token_permute(x, T(_IDX))[0], _permute_ref, shapes=[(3, 4)]),
    OpSpec("moe_token_unpermute", lambda x, p: ops.moe_token_unpermute(
        x, ops.moe_token_permute(T(np.zeros((3, 1), np.float32)), T(_IDX))[1], p),
        lambda x, p: (x[np.argsort(np.argsort(_IDX.reshape(-1), kind="stable"))].reshape(3, 2, 4)
                      * p[..., None]).sum(1), shapes=[(6, 4), (3, 2)]),
    OpSpec("array_reduce", lambda x: ops.array_reduce(ops.add, x, (1, 4)), lambda x: x.sum((0, 1))[None],
           shapes=[(2, 3, 4)]),
    OpSpec("distribute", lambda x: ops.distribute(x, (2, 3, 4)), lambda x: np.broadcast_to(x, (2, 3, 4)),
           shapes=[(3, 1)]),
]
test_value, test_grad, test_grad2, test_graph = make_tests(SPECS)

test_bad_input = make_error_tests([
    ErrorSpec("moe_token_permute-dtype", lambda: ops.moe_token_permute(T(np.ones((2, 2))), T(np.ones(2))),
              TypeError, "For 'moe_token_permute', the dtype of 'indices' must be int32 or int64"),
    ErrorSpec("moe_token_permute-padded", lambda: ops.moe_token_permute(
        T(np.ones((2, 2))), T(np.zeros(2, np.int32)), padded_mode=True), ValueError, "can only be False"),
    ErrorSpec("moe_token_permute-rows", lambda: ops.moe_token_permute(T(np.ones((2, 2))), T(np.zeros(3, np.int32))),
              RuntimeError, "the first dims of 'tokens'"),
    ErrorSpec("ring_attention_update-layout", lambda: ops.ring_attention_update(*[T(np.ones((1, 1, 8)))] * 6,
                                                                                layout="BSH"),
              ValueError, "the 'layout' must be 'SBH' or 'TND'"),
    ErrorSpec("ring_attention_update-tnd", lambda: ops.ring_attention_update(*[T(np.ones((1, 1, 8)))] * 6,
                                                                             layout="TND"),
              ValueError, "'actual_seq_qlen' is required"),
    ErrorSpec("speed_fusion_attention-layout", lambda: ops.speed_fusion_attention(
        *[T(np.ones((1, 2, 4)))] * 3, 2, "XYZ"), ValueError, "the 'input_layout' must be one of"),
    ErrorSpec("array_reduce-shape", lambda: ops.array_reduce(ops.add, T(np.ones((2, 3))), (2, 2)), ValueError,
              "For 'array_reduce', the shape (2, 3) can not be reduced to (2, 2)"),
    ErrorSpec("is_tensor_bool_cond", lambda: ops.is_tensor_bool_cond(T(np.ones(2))), ValueError,
              "The truth value of an array with more than one element is ambiguous"),
    ErrorSpec("ref_to_embed", lambda: ops.ref_to_embed(T(1.0)), TypeError,
              "For 'RefToEmbed', the 'variable' must be a Parameter"),
    ErrorSpec("J", lambda: ops.J(3), TypeError, "For 'J', the 'fn' must be callable"),
])


def test_moe_token_permute_documented_example():
    tokens = T(np.array([[1, 1, 1], [7, 7, 7], [2, 2, 2], [1, 1, 1], [2, 2, 2], [3, 3, 3]], np.float32))
    out, idx = ops.moe_token_permute(tokens, T(np.array([5, 0, 3, 1, 2, 4], np.int32)))
    np.testing.assert_array_equal(out.asnumpy()[:, 0], [7, 1, 2, 2, 3, 1])
    assert idx.tolist() == [5, 0, 3, 1, 2, 4] and idx.dtype == ms.int32
    np.testing.assert_array_equal(ops.moe_token_unpermute(out, idx).asnumpy(), tokens.asnumpy())
    dropped, idx = ops.moe_token_permute(tokens, T(np.array([5, 0, 3, 1, 2, 4], np.int32)), num_out_tokens=4)
    assert dropped.shape == (4, 3)
    back = ops.moe_token_unpermute(dropped, idx).asnumpy()
    np.testing.assert_array_equal(back[[0, 5]], 0)      # the two dropped tokens (experts 4 and 5)
    np.testing.assert_array_equal(back[[1, 2, 3, 4]], tokens.asnumpy()[[1, 2, 3, 4]])


def test_stop_gradient_in_place():
    x = T(np.array([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], np.float32))
    y = T(np.array([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], np.float32))

    def net(x, y):
        out1 = ops.MatMul()(x, y)
        out2 = ops.MatMul()(x, y)
        ops.stop_gradient_(out2)
        return out1, out2

    # MindSpore's documented result: only out1 contributes
    np.testing.assert_allclose(ms.grad(net)(x, y).asnumpy(), [[1.41, 1.6, 6.6], [1.41, 1.6, 6.6]], rtol=1e-5)
    with pytest.raises(TypeError, match="the 'input' must be a Tensor"):
        ops.stop_gradient_(1.0)


def test_j_transform():
    out, bprop = ops.J(lambda a, b: a * b + a)(T(2.0), T(3.0))
    assert float(out) == 8.0
    da, db = bprop(T(1.0))
    assert float(da) == 4.0 and float(db) == 2.0


def test_keys_and_conditions():
    p, q = ms.Parameter(T(1.0), name="w"), ms.Parameter(T(2.0), name="v")
    env = ops.environ_set(ops.environ_create(), ops.ref_to_embed(p), T(5.0))
    assert float(ops.environ_get(env, ops.ref_to_embed(p), T(0.0))) == 5.0
    assert float(ops.environ_get(env, ops.ref_to_embed(q), T(0.0))) == 0.0
    assert ops.embed(p) == ops.ref_to_embed(p) and ops.embed(p) != ops.embed(q)
    assert ops.is_tensor_bool_cond(T([True])) and ops.is_tensor_bool_cond(T(1.0)) and not ops.is_tensor_bool_cond(1)


def test_vm_impl_and_prim_arg_register():
    @ops.vm_impl_registry.register("Type")
    def vm_impl_dtype(self):
        return lambda x: type(x)

    assert ops.get_vm_impl_fn("Type")(1.0) is float
    assert ops.get_vm_impl_fn("NoSuchPrim") is None
    np.testing.assert_array_equal(ops.get_vm_impl_fn(ops.Mul())(np.array([2.0]), np.array([3.0])), [6.0])

    class MatMul2(ops.PrimitiveWithCheck):
        @ops.prim_arg_register
        def __init__(self, transpose_a=False, transpose_b=False):
            self.init_prim_io_names(inputs=["x1", "x2"], outputs=["output"])

    m = MatMul2(transpose_b=True)
    assert m.name == "MatMul2" and m.attrs["transpose_a"] is False and m.attrs["transpose_b"] is True


def test_vm_impl_registry_module_typing_ids_and_load():
    """The modules MindSpore's test helpers import: ops.vm_impl_registry (the same registry as ops'), the TypeId
    numbers of _c_expression.typing, P.Load and auto_generate.OnesLikeExt."""
    import mindseed as ms  # noqa: PLC0415
    from mindseed._c_expression import typing  # noqa: PLC0415
    from mindseed.ops.auto_generate import OnesLikeExt  # noqa: PLC0415
    from mindseed.ops.operations import Load  # noqa: PLC0415
    from mindseed.ops.vm_impl_registry import get_vm_impl_fn, vm_impl_registry  # noqa: PLC0415

    assert vm_impl_registry is ops.vm_impl_registry and get_vm_impl_fn is ops.get_vm_impl_fn

    @vm_impl_registry.register(ops.Neg)
    def vm_impl_neg(self):
        return lambda x: -x
    assert get_vm_impl_fn(ops.Neg())(3) == -3
    # MindSpore's numbers (type_id.h); the generic Int and Float ids map to their default widths
    assert [typing.type_to_type_id(t) for t in (ms.bool_, ms.int8, ms.int32, ms.uint8, ms.float16, ms.float32,
                                                  ms.bfloat16, ms.complex64)] == [30, 32, 34, 37, 42, 43, 45, 51]
    assert typing.type_id_to_type(31) == ms.int32 and typing.type_id_to_type(41) == ms.float32
    assert typing.type_id_to_type(44) == ms.float64 and typing.str_to_type("Int64") == ms.int64
    with pytest.raises(TypeError, match="For 'type_id_to_type', not support the type: 36"):
        typing.type_id_to_type(36)
    p = ms.Parameter(ms.Tensor([1.0, 2.0]), name="p")
    value = Load()(p, None)
    p.set_data(ms.Tensor([5.0, 5.0]))
    np.testing.assert_array_equal(value.asnumpy(), [1.0, 2.0])
    ones = OnesLikeExt()(ms.Tensor([1, 2], ms.int32))
    assert ones.dtype == ms.int32 and ones.asnumpy().tolist() == [1, 1]
