"""mindspore.shard / ops.reshard on simulated meshes (the partitioner follows the given layouts and the sharded
run gives the single-process numbers), parameter_redundancy (parameter_broadcast's groups), PipelineGradReducer and
the one-device behaviour of these APIs. Real 2-process runs of parameter_broadcast and
sync_pipeline_shared_parameters are in tests/communication/test_msrun.py."""
import re

import numpy as np
import pytest

import mindseed as ms
from mindseed import Parameter, Tensor, nn, ops
from mindseed.parallel import Layout
from mindseed.common._parallel import PARAMETER_PLANS
from mindseed.parallel._layout import assemble
from mindseed.parallel import _spmd
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld
from mindseed.parallel.parameter_broadcast import parameter_redundancy

RNG = np.random.default_rng(3)
X = Tensor(RNG.standard_normal((8, 4)))


class Dense2(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(RNG.standard_normal((4, 6))), name="w")
        self.v = Parameter(Tensor(RNG.standard_normal((6, 2))), name="v")

    def construct(self, x):
        return ops.matmul(ops.relu(ops.matmul(x, self.w)), self.v)


@pytest.fixture(autouse=True)
def _clear_plans():
    yield
    PARAMETER_PLANS.clear()


def _check(program, ex):
    out = program.result
    v = ex.value(out)
    np.testing.assert_allclose(assemble(v.shards, v.layout), out.asnumpy(), rtol=0, atol=1e-12)
    return v.layout


def test_shard_on_one_device_is_the_function():
    net = Dense2()
    sharded = ms.shard(net, in_strategy=((2, 1),))
    np.testing.assert_array_equal(sharded(X).asnumpy(), net(X).asnumpy())
    assert ms.parallel.shard is ms.shard


def test_shard_places_inputs_outputs_and_parameters():
    net = Dense2()
    sharded = ms.shard(net, in_strategy=((2, 1),), out_strategy=((2, 2),), parameter_plan={"v": (1, 2)})

    def loss(x):
        return (sharded(x) ** 2).sum()

    program = record(ms.value_and_grad(loss, None, net.trainable_params()), X)
    ex = execute(program, SimulatedWorld(4))
    names = [c.prim.name for c in program.calls]
    assert names.count("Reshard") >= 2
    assert re.search(r"=2\b.*: \[\(\w+\), -\]\)$", str(ex.layout_of(X)))  # the input cut in 2 along the batch
    assert re.search(r": \[-, \(\w+\)\]\)$", str(ex.layout_of(net.v)))      # the planned parameter: its columns
    loss_value, grads = program.result
    got = ex.value(loss_value)
    np.testing.assert_allclose(assemble(got.shards, got.layout), loss_value.asnumpy(), rtol=0, atol=1e-12)
    for p, g in zip(net.trainable_params(), grads):
        layout = ex.layout_of(p)
        np.testing.assert_allclose(assemble(ex.value(g, layout).shards, layout), g.asnumpy(), rtol=0, atol=1e-12)


def test_reshard_gives_the_layout():
    layout = Layout((2, 2), ("dp", "mp"))

    def fn(x):
        return ops.reshard(ops.relu(x), layout("dp", "mp")) * 2

    program = record(fn, X)
    got = _check(program, execute(program, SimulatedWorld(4)))
    assert str(got).endswith("[(dp), (mp)])")
    assert ops.reshard(X, layout("dp", "mp")) is X                 # one device, no parallel run


@pytest.mark.parametrize("call, kind, message", [
    (lambda: ms.shard(Dense2(), [(2, 1)]), TypeError, "the 'in_strategy' should be a tuple"),
    (lambda: ms.shard(Dense2(), ((2, 1.0),)), TypeError, "The tuple strategy for each dimension should be tuple(int)"),
    (lambda: ms.shard(Dense2(), ((2, 1), Layout((2,), ("dp",))("dp", "None"))), TypeError,
     "the strategy can only pass in consistent type"),
    (lambda: ms.shard(Dense2(), ((2, 1),), out_strategy=[(2, 1)]), TypeError, "'out_strategy' should be None or tuple"),
    (lambda: ms.shard(lambda x: x, ((2, 1),), parameter_plan={"w": (2, 1)}), TypeError,
     "If parameter_plan is set, type of fn must be mindspore.nn.Cell"),
    (lambda: ms.shard(Dense2(), ((2, 1),), parameter_plan={"w": (3, 1)}), ValueError,
     "The param_shape[0]: 4 cannot be divisible by param_strategy[0]: 3."),
    (lambda: ms.shard(Dense2(), ((2, 1),), parameter_plan={"w": (2,)}), ValueError,
     "the length of param_strategy: 1, is not equal to param_shape len: 2."),
    (lambda: Dense2().shard(((2, 1),), device=1), TypeError, "the 'device' should be a string, but got int"),
    (lambda: Dense2().shard(((2, 1),), level="0"), TypeError, "the 'level' should be an integer, but got str"),
    (lambda: Dense2().shard([(2, 1)]), TypeError, "the 'in_strategy' should be a tuple"),
    (lambda: Dense2().shard(((2, 1),), parameter_plan={"w": (3, 1)}), ValueError,
     "The param_shape[0]: 4 cannot be divisible by param_strategy[0]: 3."),
    (lambda: ms.shard(Dense2(), ((2, 1),), parameter_plan=[("w", (2, 1))]), TypeError,
     "the 'parameter_plan' should be a dict or None"),
])
def test_shard_errors(call, kind, message):
    with pytest.raises(kind) as info:
        call()
    assert message in str(info.value)


def test_parameter_plan_skips_unknown_and_already_set_parameters():
    # MindSpore warns and ignores the setting: a name the network does not have, a parameter planned before
    net = Dense2()
    ms.shard(net, ((2, 1),), parameter_plan={"nope": (2, 1), "w": (2, 1)})
    net.shard(((2, 1),), parameter_plan={"w": (1, 2)})
    assert [(p.name, s) for p, s in _spmd.planned_parameters().values()] == [("w", (2, 1))]


def test_parameter_redundancy_groups():
    # MindSpore's documented example: 16 ranks as (4, 4), a weight cut by the last device axis
    layout = {"p1": [[4, 4], [-1, -1]], "p2": [[4, 4], [0, -1]], "p3": [[4, 4], [-1, 1]], "p4": [[2, 2, 2], [2, 0]]}
    got = parameter_redundancy(layout)
    assert got["p1"] == (tuple(range(16)),)
    assert got["p2"] == ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15))
    assert got["p3"] == ((0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11), (12, 13, 14, 15))
    assert got["p4"] == ((0, 2), (4, 6), (1, 3), (5, 7))        # MindSpore 2.10's order: by axis 2, then axis 0
    assert parameter_redundancy({"p": [[2], [-1]]}, initial_rank=4)["p"] == ((4, 5),)


def test_parameter_broadcast_and_sync_on_one_device():
    net = Dense2()
    before = net.w.asnumpy().copy()
    ms.parameter_broadcast(net, {"w": [[1], [-1, -1]]})            # a world of one: nothing to do
    ms.sync_pipeline_shared_parameters(net)                         # one pipeline stage: nothing to do
    np.testing.assert_array_equal(net.w.asnumpy(), before)
    with pytest.raises(TypeError, match="the argument 'net' should be a Cell"):
        ms.sync_pipeline_shared_parameters(lambda x: x)


def test_pipeline_grad_reducer():
    net = Dense2()
    reducer = nn.PipelineGradReducer(net.trainable_params(), scale_sense=2.0, opt_shard=False)
    grads = (Tensor(np.full((4, 6), 6.0)), Tensor(np.full((6, 2), 2.0)))
    reducer.accu_grads[0].set_data(Tensor(np.full((4, 6), 4.0)))    # a gradient accumulated outside the step
    got = reducer(grads)
    np.testing.assert_allclose(got[0].asnumpy(), np.full((4, 6), 5.0))
    np.testing.assert_allclose(got[1].asnumpy(), np.full((6, 2), 1.0))
    assert all(float(np.abs(a.asnumpy()).max()) == 0.0 for a in reducer.accu_grads)   # zeroed for the next step
    assert [p.name for p in reducer.accu_grads] == ["accu_grads.w", "accu_grads.v"]
    sharded = nn.PipelineGradReducer(net.trainable_params(), scale_sense=2.0, opt_shard=True)
    sharded.accu_grads[0].set_data(Tensor(np.full((4, 6), 4.0)))
    np.testing.assert_allclose(sharded(grads)[0].asnumpy(), np.full((4, 6), 3.0))
    with pytest.raises(TypeError, match="the 'parameters' must be Parameters"):
        nn.PipelineGradReducer([X])


def test_adasum_conditions():
    opt = nn.Momentum(Dense2().trainable_params(), 0.1, 0.9)
    with pytest.raises(RuntimeError, match="Stand alone mode is not supported to apply adasum."):
        nn.AdaSumByGradWrapCell(opt)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=8)
    try:
        with pytest.raises(RuntimeError, match="The device_num must be at least 16 and must be the power of 2"):
            nn.AdaSumByDeltaWeightWrapCell(opt)
        ms.set_auto_parallel_context(pipeline_stages=2)
        with pytest.raises(RuntimeError, match="the pipeline parallel is not supported with applying adasum"):
            nn.AdaSumByGradWrapCell(opt)
    finally:
        ms.reset_auto_parallel_context()
