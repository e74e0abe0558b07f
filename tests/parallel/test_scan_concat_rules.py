"""Sharding rules of Concat, Stack, SplitV, Unstack, the non-sum reductions (ReduceMax/Min/Prod/All/Any), the
scans (CumSum, CumProd, Cummax, Cummin), Argmax/Argmin(WithValue) and LogSoftmax: the rules' factors, and a
network using them all on simulated meshes equal to the single-process run (float64, 1e-12), no call on whole
tensors, and rows cut by the data-parallel strategy staying local (no gather) through every one of them."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops
from mindseed.ops import _sharding as S
from mindseed.parallel._layout import TensorLayout, assemble
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld

RNG = np.random.default_rng(7)


class _A:
    def __init__(self, shape):
        self.shape = tuple(shape)


def test_rules_name_the_joined_and_scanned_axes():
    r = S.concat(_A((4, 3)), _A((4, 5)), axis=1)
    assert r.ins == (("j0", None), ("j0", None)) and r.outs == (("j0", None),)
    r = S.stack(_A((4, 3)), _A((4, 3)), axis=-1)
    assert r.outs == (("j0", "j1", None),)
    r = S.split(_A((4, 6)), sizes=(2, 4), axis=0)
    assert r.outs == ((None, "j1"), (None, "j1"))
    r = S.unstack(_A((4, 3)), axis=1)
    assert r.outs == (("j0",),) * 3 and r.whole == {"j1"}
    r = S.scan(_A((4, 3)), axis=-1)
    assert r.outs == (("c0", "c1"),) and r.whole == {"c1"}
    r = S.reduction_whole(_A((4, 3, 2)), axis=(0, 2), keep_dims=True)
    assert r.outs == ((None, "r1", None),) and r.whole == {"r0", "r2"} and not r.sums
    r = S.arg_with_value(_A((4, 3)), axis=0)
    assert r.outs == (("r1",), ("r1",)) and r.whole == {"r0"}


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(RNG.standard_normal((6, 8))), name="w")
        self.mm = ops.MatMul()

    def construct(self, x):
        h = self.mm(x, self.w)
        c = ops.concat((h, ops.tanh(h)), 1)
        s = ops.stack((h, ops.sin(h)), 1)
        a, b = ops.split(h, (3, 5), 1)
        u0, u1 = ops.unstack(s, 1)
        m = ops.ReduceMax(keep_dims=True)(c, 1) + ops.ReduceMin(keep_dims=True)(b, 1)
        p = ops.ReduceProd(keep_dims=True)(ops.sigmoid(a) + 0.5, 1)
        cs = ops.cumsum(u0 * u1, 1)
        cp = ops.cumprod(ops.sigmoid(h) + 0.5, 1)
        cmx, _ = ops.cummax(h, 1)
        _, v = ops.ArgMaxWithValue(axis=1, keep_dims=True)(h)
        idx = ops.Argmax(axis=1)(h)
        ls = ops.log_softmax(c, 1)
        flag = ops.cast(ops.ReduceAll(keep_dims=True)(h > -100.0, 1), ms.float64) + \
            ops.cast(ops.ReduceAny(keep_dims=True)(h > 100.0, 1), ms.float64)
        y = m * p + cs[:, :5] * 0.1 + a.mean() + cp[:, :5] + cmx[:, :5] + v + ls[:, :5] * flag
        return ops.reduce_mean(y * y) + ops.cast(idx, ms.float64).mean() * 1e-3


@pytest.mark.parametrize("mesh", [(2, 1), (4, 1), (2, 2), (2, 4), (8, 1)])
def test_network_matches_one_process(mesh):
    dp, mp = mesh
    net = _Net()
    x = Tensor(RNG.standard_normal((16, 6)))
    net.mm.shard(((dp, 1), (1, mp)))
    program = record(ms.value_and_grad(net, None, net.trainable_params()), x)
    loss, grads = program.result
    world = SimulatedWorld(dp * mp)
    ex = execute(program, world, [(x, (dp, 1))])
    assert [c.prim.name for c in ex.whole_calls] == []
    value = ex.value(loss, TensorLayout.replicated(ex.value(loss).layout.mesh, ()))
    np.testing.assert_allclose(value.shards[0], loss.asnumpy(), rtol=0, atol=1e-12)
    layout = ex.layout_of(net.w)
    np.testing.assert_allclose(assemble(ex.value(grads[0], layout).shards, layout), grads[0].asnumpy(), rtol=0,
                               atol=1e-12)
    if mp == 1:
        # rows stay cut through every op: only sums (the mean, a.sum(), the gradient of w) are reduced
        assert {r.kind for r in world.log} == {"AllReduce"}


def test_cutting_a_scanned_axis_is_rejected():
    x = Tensor(np.ones((4, 4)))
    program = record(lambda t: ops.CumSum().shard(((1, 2),))(t, 1), x)
    with pytest.raises(RuntimeError, match=r"For 'CumSum', the in_strategy \(\(1, 2\)\) cuts dim 1 of input 0"):
        execute(program, SimulatedWorld(2))


def test_a_column_cut_input_is_gathered_for_the_joined_axis():
    x = Tensor(RNG.standard_normal((4, 6)))
    w = Tensor(RNG.standard_normal((6, 4)))
    program = record(lambda t, v: ops.concat((ops.MatMul().shard(((1, 1), (1, 2)))(t, v), t), 1), x, w)
    world = SimulatedWorld(2)
    ex = execute(program, world)
    out = ex.value(program.outputs[0])
    np.testing.assert_allclose(assemble(out.shards, out.layout), program.outputs[0].asnumpy(), rtol=0, atol=1e-12)
    assert [r.kind for r in world.log] == ["AllGather"] and ex.whole_calls == []
