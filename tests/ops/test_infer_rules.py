"""Shape and dtype rules declared with the primitives (`ops/_infer.py`): each agrees with its kernel, and the
compiler types the nodes its passes create with them instead of running kernels on meta tensors."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import _backend as B
from mindseed import ops
from mindseed.compiler.ir import IF, WHILE, Var
from mindseed.ops import _infer as I
from mindseed.ops._prims import array as A
from mindseed.ops._prims import conv as C
from mindseed.ops._prims import core as P
from mindseed.ops._prims import index_dyn as IDX
from mindseed.ops._prims import math as M
from mindseed.ops._prims import nn as N
from mindseed.ops._prims import nn_norm as NN
from mindseed.ops._prims import random as R
from mindseed.ops._registry import Op, Prim, registry

_RNG = np.random.default_rng(0)


def _t(shape, dtype="float32"):
    if dtype == "bool":
        return ms.Tensor(_RNG.random(shape) > 0.5)
    if dtype.startswith(("int", "uint")):
        return ms.Tensor(_RNG.integers(1, 5, shape).astype(dtype))
    if dtype == "bfloat16":
        return ms.Tensor((_RNG.random(shape) + 0.5).astype("float32")).astype(ms.bfloat16)
    return ms.Tensor((_RNG.random(shape) + 0.5).astype(dtype))


_MIXES = [("float32", "float32"), ("int32", "float16"), ("bool", "int8"), ("uint8", "int8"), ("int64", "bool"),
          ("float16", "float64"), ("bool", "bool"), ("int32", "int64"), ("float16", "bfloat16")]
_BCAST = [((2, 3), (2, 3)), ((4, 1, 3), (5, 1)), ((3,), ()), ((), (2, 2)), ((1, 4), (3, 1))]
_SCALARS = [1, 2.5, True]


def _binary_cases(prim, mixes=_MIXES):
    cases = []
    for (da, db), (sa, sb) in zip(mixes, _BCAST * 2):
        cases.append((prim, (_t(sa, da), _t(sb, db)), {}))
    for s in _SCALARS:     # Python numbers on either side: weakly typed
        cases += [(prim, (_t((2, 3), "int32"), s), {}), (prim, (s, _t((3,), "float16")), {}),
                  (prim, (_t((2,), "bool"), s), {})]
    # a 0-d tensor of a higher category than the dimensioned operand decides the category
    cases += [(prim, (_t((2, 3), "int32"), _t((), "float64")), {}),
              (prim, (_t((3,), "float16"), _t((), "float64")), {})]
    return cases


def _unary_cases(prim, dtypes=("float32", "float16", "float64", "int32", "bool")):
    return [(prim, (_t((2, 3, 1), dt),), {}) for dt in dtypes] + [(prim, (_t((), "float32"),), {})]


def _reduce_cases(prim, dtypes=("float32", "int32", "bool", "float64")):
    cases = []
    for dt in dtypes:
        for axis in (None, (), 0, -1, (0, 2), [1]):
            for keep in (False, True):
                cases.append((prim, (_t((2, 3, 4), dt),), {"axis": axis, "keep_dims": keep}))
    return cases + [(prim, (_t((), "float32"),), {"axis": None, "keep_dims": True})]


def _cases():
    cases = []
    for p in (P.add_p, P.sub_p, P.mul_p, P.div_p, P.maximum_p, P.minimum_p, P.pow_p):
        cases += _binary_cases(p)      # a combination the kernel rejects (bool - bool) is skipped by _check
    cases += [(P.add_relu_p, (_t(sa), _t(sb)), {}) for sa, sb in _BCAST]
    for p in (P.greater_p, P.less_p, P.greater_equal_p, P.less_equal_p, P.equal_p, P.not_equal_p,
              M.logical_and_p, M.logical_or_p, M.logical_xor_p):
        cases += _binary_cases(p)
    for p in (P.identity_p, P.stop_gradient_p, P.neg_p, P.relu_p, P.sign_p, P.zeros_like_p, P.ones_like_p,
              M.abs_p, M.floor_p, M.ceil_p, M.round_p, M.trunc_p, M.frac_p, M.sgn_p, M.inv_p):
        dts = ("float32", "float16", "float64", "int32") if p in (P.neg_p, P.relu_p, M.sgn_p, M.frac_p, P.sign_p,
                                                                  M.inv_p) \
            else ("float32", "float16", "float64", "int32", "bool")
        cases += _unary_cases(p, dts)
    for p in (P.exp_p, P.log_p, M.sin_p, M.cos_p, M.sinh_p, M.cosh_p, M.sinc_p, M.sqrt_p, M.rsqrt_p,
              M.reciprocal_p, M.tan_p, M.asin_p, M.acos_p, M.atan_p, M.tanh_p, M.asinh_p, M.acosh_p, M.atanh_p,
              M.sigmoid_p, M.erf_p, M.erfc_p, M.erfinv_p, M.log1p_p, M.expm1_p, M.log2_p, M.log10_p, M.exp2_p,
              M.digamma_p, M.lgamma_p):
        cases += _unary_cases(p)
    for p in (M.is_nan_p, M.is_finite_p, M.is_inf_p, M.logical_not_p):
        cases += _unary_cases(p)
    for p in (P.relu_inplace_p, P.relu_grad_p, P.relu_grad_inplace_p, P.add_inplace_p, N.softmax_grad_p,
              C.max_pool_2x2_grad_p):
        n = 3 if p is C.max_pool_2x2_grad_p else 2 if p in (P.relu_grad_p, P.relu_grad_inplace_p, P.add_inplace_p,
                                                            N.softmax_grad_p) else 1
        x = _t((2, 3, 4, 6))
        args = (x, P.relu_p(x), _t((2, 3, 2, 3))) if p is C.max_pool_2x2_grad_p else \
            tuple(_t((2, 3, 4, 6)) for _ in range(n))
        cases.append((p, args, {"axis": -1} if p is N.softmax_grad_p else {}))
    acts = [(N.relu6_p, N.relu6_grad_p, {}), (N.hardtanh_p, N.hardtanh_grad_p, {"min_val": -1.0, "max_val": 1.0}),
            (N.leaky_relu_p, N.leaky_relu_grad_p, {"alpha": 0.1}), (N.hshrink_p, N.hshrink_grad_p, {"lambd": 0.5}),
            (N.softshrink_p, N.softshrink_grad_p, {"lambd": 0.5}),
            (N.threshold_p, N.threshold_grad_p, {"thr": 0.5, "value": 0.0}), (N.hsigmoid_p, N.hsigmoid_grad_p, {}),
            (N.hswish_p, N.hswish_grad_p, {}),
            (N.elu_p, N.elu_grad_p, {"alpha": 1.0, "scale": 1.0, "input_scale": 1.0}),
            (N.gelu_p, N.gelu_grad_p, {"approximate": "tanh"}), (N.fast_gelu_p, N.fast_gelu_grad_p, {}),
            (N.silu_p, N.silu_grad_p, {}), (N.mish_p, N.mish_grad_p, {}),
            (N.softplus_p, N.softplus_grad_p, {"beta": 1.0, "threshold": 20.0}), (N.softsign_p, N.softsign_grad_p, {}),
            (N.tanhshrink_p, N.tanhshrink_grad_p, {}), (N.logsigmoid_p, N.logsigmoid_grad_p, {})]
    for fwd, grad, attrs in acts:      # elementwise activations and their gradients (dout, x)
        for shape, dt in (((2, 3), "float32"), ((4,), "float64"), ((), "float16")):
            cases.append((fwd, (_t(shape, dt),), attrs))
            cases.append((grad, (_t(shape, dt), _t(shape, dt)), attrs))
    cases.append((N.softmax_p, (_t((2, 5)),), {"axis": -1}))
    cases.append((N.softmax_p, (_t((2, 5), "float64"),), {"axis": 0}))
    for shape in ((2, 3, 4, 6), (1, 5, 7), (3, 2, 2)):
        cases.append((C.max_pool_2x2_p, (_t(shape),), {}))
    for p in (M.reduce_mean_p, M.reduce_max_p, M.reduce_min_p, P.reduce_sum_p):
        cases += _reduce_cases(p)
    for p in (M.reduce_all_p, M.reduce_any_p):
        cases += _reduce_cases(p, ("bool", "float32"))
    x = _t((2, 3, 4))
    for shape in ((6, 4), (-1,), (4, -1, 2), (24,), (2, 3, 4, 1)):
        cases.append((P.reshape_p, (x,), {"shape": shape}))
    for perm in ((2, 0, 1), (0, 1, 2), (1, 2, 0)):
        cases.append((P.transpose_p, (x,), {"perm": perm}))
    for dt in ("Float16", "Int32", "Bool", "Float64"):
        cases.append((P.cast_p, (x,), {"dtype": dt}))
    for src, shape in (((3, 1), (2, 3, 4)), ((1,), (5,)), ((2, 1), (-1, 3)), ((), (2, 2))):
        cases.append((P.broadcast_to_p, (_t(src, "int32"),), {"shape": shape}))
    for sa, sb, ta, tb in (((2, 3), (3, 4), False, False), ((3,), (3, 4), False, False), ((2, 3), (3,), False, False),
                           ((3,), (3,), False, False), ((5, 2, 3), (3, 4), False, False), ((5, 1, 2, 3), (4, 3, 2),
                                                                                           False, False),
                           ((3, 2), (4, 3), True, True), ((6, 3, 2), (6, 3, 4), True, False)):
        for dt in ("float32", "float64"):
            cases.append((P.matmul_p, (_t(sa, dt), _t(sb, dt)), {"transpose_a": ta, "transpose_b": tb}))
    for shape, value, dt in (((2, 3), 1, "Float32"), ((), 0, "Int32"), ((4,), True, "Bool")):
        cases.append((P.fill_p, (), {"shape": shape, "value": value, "dtype": dt}))
    cases.append((P.concat_p, (_t((2, 3)), _t((4, 3))), {"axis": 0}))
    cases.append((P.concat_p, (_t((2, 3), "int32"), _t((2, 1), "float16")), {"axis": -1}))
    cases.append((P.stack_p, (_t((2, 3)), _t((2, 3)), _t((2, 3))), {"axis": 1}))
    cases.append((P.stack_p, (_t((2, 3), "int32"), _t((2, 3), "int64")), {"axis": -1}))
    cases.append((P.where_p, (_t((2, 1), "bool"), _t((3,), "int32"), _t((2, 3), "float16")), {}))
    cases.append((P.where_p, (_t((2, 3), "bool"), _t((2, 3)), 1.5), {}))
    q, k, v = _t((2, 3, 8, 4)), _t((2, 3, 6, 4)), _t((2, 3, 6, 4))
    mask = ms.Tensor(np.zeros((8, 6), np.float32))
    cases.append((N.flash_attention_p, (q, k, v, mask), {"scale": 0.5}))
    cases.append((N.flash_attention_p, (q, k, v, None), {"scale": 0.5}))
    o, lse = N.flash_attention_p(q, k, v, mask, scale=0.5)
    cases.append((N.flash_attention_grad_p, (_t((2, 3, 8, 4)), q, k, v, o, lse, mask), {"scale": 0.5}))
    cases += _gather_and_norm_cases()
    # the checked index of a switch over 3 cells (a negative one counted from the end)
    cases += [(IDX.switch_index_p, (ms.Tensor(np.array(i, np.int32)),), {"n": 3}) for i in (0, 2, -1)]
    for shape in ((2, 3), (), (0, 4)):     # MindSpore's seeded CPU kernels: the output shape without drawing
        engines = B.KernelEngines(1, 2)
        cases += [(R.std_uniform_real_p, (), {"shape": shape, "engines": engines}),
                  (R.std_standard_normal_p, (), {"shape": shape, "engines": engines}),
                  (R.std_uniform_int_p, (), {"shape": shape, "low": -3, "high": 9, "engines": engines}),
                  (R.std_standard_laplace_p, (), {"shape": shape, "engines": engines})]
    return cases


def _gather_and_norm_cases():
    cases = []
    x, idx = _t((5, 4, 3)), ms.Tensor(np.array([[0, 2], [4, 1], [3, 3]], np.int32))
    for axis in (0, 1, 2):
        cases.append((A.gather_p, (x, ms.Tensor(np.array([[0, 2], [1, 1]], np.int32))), {"axis": axis}))
    cases.append((A.gather_p, (_t((3, 5, 2), "int32"), idx), {"axis": 1, "batch_dims": 1}))
    for axis, shape in ((0, (5, 4, 3)), (1, (3, 5, 2))):
        dout = A.gather_p(_t(shape, "float64"), idx, axis=axis, batch_dims=axis)
        cases.append((A.gather_grad_p, (dout, idx), {"shape": shape, "axis": axis, "batch_dims": axis}))
    for dt, normalized in (("float32", (3,)), ("float64", (4, 3)), ("float16", (3,))):
        x = _t((2, 4, 3), dt)
        w, b = _t(normalized, dt), _t(normalized, dt)
        cases.append((NN.layer_norm_p, (x, w, b), {"normalized_shape": normalized, "eps": 1e-5}))
        _, mean, rstd = NN.layer_norm_p(x, w, b, normalized_shape=normalized, eps=1e-5)
        for weight in (w, None):
            cases.append((NN.layer_norm_grad_p, (_t((2, 4, 3), dt), x, weight, mean, rstd),
                          {"normalized_shape": normalized, "eps": 1e-5}))
    return cases


_CASES = _cases()


def _check(prim, args, attrs):
    try:
        out = prim(*args, **attrs)
    except (TypeError, ValueError, RuntimeError):
        pytest.skip(f"{prim.name} rejects these inputs")
    want = [(tuple(o.shape), o.dtype.name) for o in (out if prim.multi_output else (out,))]
    got = prim.abstract_eval(*args, **attrs)
    got = [(tuple(g.shape), g.dtype) for g in (got if prim.multi_output else (got,))]
    assert got == want, f"{prim.name}{[getattr(a, 'shape', a) for a in args]} {attrs}"


@pytest.mark.parametrize("prim,args,attrs", _CASES, ids=[f"{c[0].name}-{i}" for i, c in enumerate(_CASES)])
def test_rule_matches_kernel(prim, args, attrs):
    _check(prim, args, attrs)


def test_every_rule_is_in_the_table():
    tested = {id(c[0]) for c in _CASES}
    # the user declares Custom's: below; Raise never runs on values it could be compared on (it raises)
    untested = sorted(p.name for p in registry.values() if p.infer is not None and id(p) not in tested
                      and p.name not in ("Custom", "CustomMultiOutput", "Raise"))
    assert not untested, f"primitives with a shape rule but no row in the table: {untested}"


def test_promotion_table_is_the_kernels():
    """Every pair of dtypes, tensor with dims against tensor with dims, 0-d tensor and Python number."""
    names = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
             "complex64", "complex128"]

    def tensor(dt, shape):
        return ms.Tensor(np.ones(shape, dtype="float32")).astype(getattr(ms, dt if dt != "bool" else "bool_"))

    for a in names:
        for b in names:
            for sb in ((3,), ()):
                if sb == () and a in ("float16", "bfloat16") and b.startswith("complex"):
                    continue    # aten's complex32: no mindseed dtype
                x, y = tensor(a, (2, 3)), tensor(b, sb)
                assert P.add_p.abstract_eval(x, y).dtype == P.add_p(x, y).dtype.name, (a, b, sb)
        for s in (True, 2, 0.5, 1j):
            if s == 1j and a in ("float16", "bfloat16"):
                continue        # aten's complex32: no mindseed dtype
            x = tensor(a, (2,))
            assert P.mul_p.abstract_eval(x, s).dtype == P.mul_p(x, s).dtype.name, (a, s)


def test_unknown_dims_follow_the_rule():
    x = Var((None, 3), "Float32")
    y = Var((1, 3), "Int32")
    assert P.add_p.abstract_eval(x, y) == I.Abstract((None, 3), "Float32")
    assert P.reduce_sum_p.abstract_eval(x, axis=1, keep_dims=True) == I.Abstract((None, 1), "Float32")
    assert P.matmul_p.abstract_eval(x, Var((3, None), "Float32")) == I.Abstract((None, None), "Float32")
    assert P.reshape_p.abstract_eval(x, shape=(-1,)) == I.Abstract((None,), "Float32")
    assert C.max_pool_2x2_p.abstract_eval(Var((2, 3, None, 9), "Float16")) == I.Abstract((2, 3, None, 4), "Float16")
    # no rule: the kernel on meta tensors needs every dim, and says so
    assert M.cumsum_p.infer is None
    with pytest.raises(ValueError, match="For 'CumSum'.*needs a shape rule"):
        M.cumsum_p.abstract_eval(x, axis=0)


def test_no_rule_runs_the_kernel_on_meta(monkeypatch):
    calls = []
    meta = B.meta
    monkeypatch.setattr(B, "meta", lambda *a: calls.append(a) or meta(*a))
    x = _t((2, 5))
    assert M.cumsum_p.abstract_eval(x, axis=1) == I.Abstract((2, 5), "Float32") and len(calls) == 1
    assert P.add_p.abstract_eval(x, x) == I.Abstract((2, 5), "Float32") and len(calls) == 1


def test_custom_declares_its_outputs():
    from mindseed.ops._prims.custom import custom_multi_p, custom_p
    x = _t((2, 3))

    def double(a):
        return a * 2
    attrs = {"func": double, "out_shapes": ((2, 3),), "out_dtypes": ("Float32",), "multi": False}
    out = custom_p(x, **attrs)
    assert custom_p.abstract_eval(x, **attrs) == I.Abstract(tuple(out.shape), out.dtype.name)
    attrs = {"func": lambda a: (a, a > 1), "out_shapes": ((2, 3), (2, 3)), "out_dtypes": ("Float32", "Bool"),
             "multi": True}
    outs = custom_multi_p(x, **attrs)
    assert custom_multi_p.abstract_eval(x, **attrs) == tuple(I.Abstract(tuple(o.shape), o.dtype.name) for o in outs)


# ---------------------------------------------------------------- the compiler uses the rules
def _count_meta(monkeypatch):
    calls = []
    meta = B.meta

    def counting(*a):
        calls.append(a)
        return meta(*a)
    monkeypatch.setattr(B, "meta", counting)
    return calls


def _count_rule(monkeypatch, prim):
    used = []
    rule = prim.infer

    def counting(*a, **k):
        used.append(a)
        return rule(*a, **k)
    monkeypatch.setattr(prim, "infer", counting)
    return used


def test_pool_before_relu_types_its_nodes_by_rule(monkeypatch):
    calls = _count_meta(monkeypatch)
    pool_used = _count_rule(monkeypatch, C.max_pool_2x2_p)
    grad_used = _count_rule(monkeypatch, P.relu_grad_p)

    def net(x, w, v):
        c = ops.conv2d(x, w, pad_mode="pad", padding=1)
        return (ops.max_pool2d(ops.relu(c), 2, 2) * v).sum()

    x, w, v = _t((2, 3, 6, 6)), _t((4, 3, 3, 3)), _t((2, 4, 3, 3))
    g = ms.jit(ms.grad(net, (0, 1)))
    g(x, w, v)
    assert pool_used and grad_used and not calls
    (graph,) = g.graphs()
    pool = next(n for n in graph.nodes if n.prim is C.max_pool_2x2_p)
    assert pool.outputs[0].shape == (2, 4, 3, 3) and pool.outputs[0].dtype == "Float32"


def test_attention_fusion_types_its_nodes_by_rule(monkeypatch):
    calls = _count_meta(monkeypatch)
    fwd_used = _count_rule(monkeypatch, N.flash_attention_p)
    bwd_used = _count_rule(monkeypatch, N.flash_attention_grad_p)

    w = _t((4,))

    def loss(q, k, v):
        a = ops.softmax(ops.matmul(q, k.swapaxes(-2, -1)) * 0.5, axis=-1)
        return (ops.tanh(ops.matmul(a, v)) * w).sum()

    q, k, v = _t((2, 3, 8, 4)), _t((2, 3, 6, 4)), _t((2, 3, 6, 4))
    g = ms.jit(ms.grad(loss, (0, 1, 2)))
    got = g(q, k, v)
    want = ms.grad(loss, (0, 1, 2))(q, k, v)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)
    assert fwd_used and bwd_used and not calls
    (graph,) = g.graphs()
    fa = next(n for n in graph.nodes if n.prim is N.flash_attention_p)
    assert [(o.shape, o.dtype) for o in fa.outputs] == [((2, 3, 8, 4), "Float32"), ((2, 3, 8), "Float32")]


# ---------------------------------------------------------------- one interface for every node's operator
def test_control_nodes_and_user_bprops_share_the_interface():
    from mindseed.autograd.custom import _UserBprop
    ub = _UserBprop("Recompute", lambda *a: a, True)
    for op in (IF, WHILE, ub, P.add_p):
        assert isinstance(op, Op)
        for field in Op.__slots__:
            getattr(op, field)      # every property is there: passes read them without defaults
    assert IF.multi_output and not IF.side_effect and not IF.random and IF.inplace is None
    assert P.add_p.inplace is P.add_inplace_p and P.relu_p.inplace is P.relu_inplace_p
    assert isinstance(P.add_p, Prim) and P.matmul_p.heavy and P.matmul_p.fresh and not P.div_p.fresh
