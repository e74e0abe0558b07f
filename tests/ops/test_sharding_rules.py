"""The sharding rules primitives declare: the factor of every dim, what a cut contraction leaves."""
import pytest

from mindseed.ops import _registry
from mindseed.ops import _sharding as S
from mindseed.ops._infer import Abstract


def _t(*shape):
    return Abstract(tuple(shape), "Float64")


def _rule(name, *args, **attrs):
    prim = _registry.get(name)
    return prim.sharding(*args, **attrs)


@pytest.mark.parametrize("attrs, x, y, ins, out", [
    ({}, (8, 4), (4, 6), (("m", "k"), ("k", "n")), ("m", "n")),
    ({"transpose_a": True}, (4, 8), (4, 6), (("k", "m"), ("k", "n")), ("m", "n")),
    ({"transpose_b": True}, (8, 4), (6, 4), (("m", "k"), ("n", "k")), ("m", "n")),
    ({}, (2, 1, 8, 4), (3, 4, 6), (("b0", None, "m", "k"), ("b1", "k", "n")), ("b0", "b1", "m", "n")),
    ({}, (4,), (4, 6), (("k",), ("k", "n")), ("n",)),
])
def test_matmul_factors(attrs, x, y, ins, out):
    rule = _rule("MatMul", _t(*x), _t(*y), **attrs)
    assert rule.ins == ins and rule.outs == (out,)
    assert rule.contracted(0) == ({"k"}, set())


def test_elementwise_broadcasts_and_skips_numbers():
    rule = _rule("Add", _t(4, 1, 6), _t(5, 6))
    assert rule.ins == (("e0", None, "e2"), ("e1", "e2")) and rule.outs == (("e0", "e1", "e2"),)
    rule = _rule("Div", _t(3, 2), 2.0)
    assert rule.ins == (("e0", "e1"), None)


def test_reductions_leave_partial_sums_or_means():
    total = _rule("ReduceSum", _t(4, 6), axis=(1,), keep_dims=True)
    assert total.outs == (("r0", None),) and total.contracted(0) == ({"r1"}, set())
    mean = _rule("ReduceMean", _t(4, 6), axis=None, keep_dims=False)
    assert mean.outs == ((),) and mean.contracted(0) == (set(), {"r0", "r1"})


def test_softmax_and_layer_norm_keep_their_axes_whole():
    assert _rule("Softmax", _t(4, 6), axis=-1).whole == {"e1"}
    rule = _rule("LayerNorm", _t(2, 3, 8), _t(8), _t(8), normalized_shape=(8,), eps=1e-5)
    assert rule.whole == {"n0"} and rule.outs[1] == ("b0", "b1", None)
    grad = _rule("LayerNormGrad", _t(2, 3, 8), _t(2, 3, 8), _t(8), _t(2, 3, 1), _t(2, 3, 1), normalized_shape=(8,),
                 eps=1e-5)
    # dx keeps the batch dims; dw and db sum over them
    assert grad.contracted(0) == (set(), set()) and grad.contracted(1) == ({"b0", "b1"}, set())


@pytest.mark.parametrize("src, shape, ins, out", [
    ((4, 6, 8), (24, 8), ("g0", None, "g2"), ("g0", "g2")),
    ((24, 8), (4, 6, 8), ("g0", "g1"), ("g0", None, "g1")),
    ((4, 1, 6), (-1,), ("g0", None, None), ("g0",)),
    ((6, 4), (4, 6), ("g0", None), ("g0", None)),
])
def test_reshape_cuts_only_the_major_dim_of_each_run(src, shape, ins, out):
    rule = _rule("Reshape", _t(*src), shape=shape)
    assert rule.ins == (ins,) and rule.outs == (out,)
    assert rule.localize({"shape": shape}, [(2, 3)]) == {"shape": (2, 3)}


def test_transpose_and_broadcast_to():
    assert _rule("Transpose", _t(2, 3, 4), perm=(2, 0, 1)).outs == (("t2", "t0", "t1"),)
    rule = _rule("BroadcastTo", _t(1, 6), shape=(4, 5, 6))
    assert rule.ins == ((None, "e2"),) and rule.outs == ((None, None, "e2"),)


def test_contracted_factors_without_a_sum_are_whole():
    rule = S.ShardingRule(((("a", "b")),), (("a",),))
    assert rule.whole == {"b"}
