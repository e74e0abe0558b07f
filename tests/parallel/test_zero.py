"""The parallel optimizer (ZeRO-1) on simulated meshes: the optimizer state cut over the data-parallel ranks, the
gradients reduce-scattered, the parameters all-gathered; parameters and state after each step equal the
single-process optimizer's (float64, 1e-12)."""
import numpy as np
import pytest

import mindseed as ms
from _mlp import MLP
from mindseed import Tensor, nn
from mindseed.parallel._layout import DeviceMesh, TensorLayout, assemble, optimizer_shard
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld
from mindseed.parallel._zero import ShardedOptimizer


RNG = np.random.default_rng(0)
BATCHES = [(Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 6)))) for _ in range(3)]
OPTIMIZERS = {
    "Adam": lambda ps: nn.Adam(ps, learning_rate=0.01),
    "AdamWeightDecay": lambda ps: nn.AdamWeightDecay(ps, learning_rate=0.01, weight_decay=0.1),
    "Momentum": lambda ps: nn.Momentum(ps, learning_rate=0.1, momentum=0.9),
}
# name: (devices, strategies, dataset strategy, shard size, expected state pieces per parameter)
CASES = {
    "data-4": (4, dict(mm1=((4, 1), (1, 1))), (4, 1), -1, 4),
    "data-4-shard-2": (4, dict(mm1=((4, 1), (1, 1))), (4, 1), 2, 2),
    "data-x-tensor-2x2": (4, dict(mm1=((2, 1), (1, 2)), add=((2, 2), (2,)), mm2=((2, 2), (2, 1))), (2, 1), -1, 4),
    "data-2": (2, dict(mm1=((2, 1), (1, 1))), (2, 1), -1, 2),
}


def _steps(case, opt_name):
    n, strategies, data, size, _ = CASES[case]
    net, ref = MLP(**strategies), MLP()
    opt = OPTIMIZERS[opt_name](net.trainable_params())
    ref_opt = OPTIMIZERS[opt_name](ref.trainable_params())
    world = SimulatedWorld(n)
    sharded = None
    for x, y in BATCHES:
        program = record(ms.value_and_grad(net, None, net.trainable_params()), x, y)
        ex = execute(program, world, [(x, data), (y, data)])
        sharded = ShardedOptimizer(opt, ex, size) if sharded is None else sharded
        sharded.execution = ex
        start = len(world.log)
        new = sharded.step(program.result[1])
        if sharded.level == "level3":  # the ranks keep slices: the weights are gathered for the next step
            assert [len(s) for s in new] == [n] * len(new)
            new = sharded.gather_parameters()
        _, grads = ms.value_and_grad(ref, None, ref.trainable_params())(x, y)
        ref_opt(grads)
        for p, shards in zip(net.trainable_params(), new):
            layout = ex.layout_of(p)
            np.testing.assert_allclose(assemble(shards, layout), p.asnumpy(), rtol=0, atol=0)
    return net, ref, opt, ref_opt, sharded, world.log[start:]


@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_sharded_optimizer_matches_one_process(case, opt_name):
    net, ref, opt, ref_opt, sharded, _ = _steps(case, opt_name)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    ours = {q.name: q for _, q in opt.parameters_and_names()}
    for _, q in ref_opt.parameters_and_names():
        np.testing.assert_allclose(ours[q.name].asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_state_is_cut_and_gradients_are_reduce_scattered(case):
    n, _, _, size, pieces = CASES[case]
    _, _, opt, _, sharded, log = _steps(case, "Adam")
    whole = sum(q.asnumpy().nbytes for qs in sharded.states.values() for q in qs)
    for r in range(n):
        assert sharded.state_bytes(r) == whole // pieces
    kinds = [rec.kind for rec in log]
    # a gradient is reduce-scattered over its shard group; with fewer shards than data-parallel ranks the groups'
    # pieces are then all-reduced across the groups
    assert kinds.count("ReduceScatter") == 3 and kinds.count("AllGather") == 3
    assert kinds.count("AllReduce") == (0 if size == -1 else 3)
    assert set(sharded.rank_state(0)) == {"moment1.w1", "moment1.b1", "moment1.w2", "moment2.w1", "moment2.b1",
                                          "moment2.w2"}


def test_optimizer_shard_layout_follows_mindspores_rule():
    # (dp=2, mp=2) with w cut by mp on dim 1: the state is cut by dp on dim 0
    layout = TensorLayout(DeviceMesh((2, 2), ("dp", "mp")), (4, 8), ((), (1,)))
    opt = optimizer_shard(layout)
    assert opt.dims == ((0,), (1,)) and opt.local_shape == (2, 4)
    # 8 repeated ranks, shard size 2: the innermost factor 2 of the axis cuts dim 0
    opt = optimizer_shard(TensorLayout(DeviceMesh((8,)), (4,)), 2)
    assert opt.mesh.shape == (4, 2) and opt.dims == ((1,),)
    # nothing repeated, or dim 0 not divisible: left whole
    assert optimizer_shard(TensorLayout(DeviceMesh((2,)), (4,), ((0,),))) is None
    assert optimizer_shard(TensorLayout(DeviceMesh((4,)), (3, 2))) is None


def test_sharded_optimizer_rejects_optimizers_it_does_not_know():
    net = MLP(mm1=((2, 1), (1, 1)))
    x, y = BATCHES[0]
    program = record(ms.value_and_grad(net, None, net.trainable_params()), x, y)
    ex = execute(program, SimulatedWorld(2), [(x, (2, 1)), (y, (2, 1))])
    with pytest.raises(TypeError, match="must be one of SGD, Momentum, Adam.*but got RMSProp"):
        ShardedOptimizer(nn.RMSProp(net.trainable_params(), learning_rate=0.1), ex)
    with pytest.raises(ValueError, match="'optimizer_weight_shard_size' must be -1 or a positive int"):
        ShardedOptimizer(nn.Adam(net.trainable_params()), ex, 0)


@pytest.mark.parametrize("case", ["data-4", "data-4-shard-2", "data-x-tensor-2x2"])
def test_a_zero_checkpoint_transforms_to_whole_parameters_and_state(case, tmp_path):
    n = CASES[case][0]
    _, ref, _, ref_opt, sharded, _ = _steps(case, "Adam")
    sharded.save_strategy(str(tmp_path / "zero.ckpt"))
    rec = ms.build_searched_strategy(str(tmp_path / "zero.ckpt"))["moment1.w2"]
    assert rec.opt_weight_shard_size == (2 if case == "data-4-shard-2" else n // (1 if "tensor" not in case else 2))
    for r in range(n):
        (tmp_path / "src" / f"rank_{r}").mkdir(parents=True)
        ms.save_checkpoint(sharded.rank_checkpoint(r), str(tmp_path / "src" / f"rank_{r}" / "zero.ckpt"))
    ms.transform_checkpoints(str(tmp_path / "src"), str(tmp_path / "whole"), "whole", str(tmp_path / "zero.ckpt"))
    got = ms.load_checkpoint(str(tmp_path / "whole" / "rank_0" / "whole0.ckpt"))
    expected = {q.name: q.asnumpy() for _, q in ref_opt.parameters_and_names() if q.name.startswith("moment")}
    expected.update({p.name: p.asnumpy() for p in ref.trainable_params()})
    for name, value in expected.items():
        np.testing.assert_allclose(got[name].asnumpy(), value, rtol=0, atol=1e-12)


@pytest.mark.parametrize("level", ["level2", "level3"])
@pytest.mark.parametrize("case", ["data-2", "data-4", "data-x-tensor-2x2"])
def test_zero_2_and_3_match_one_process_and_keep_slices(case, level):
    n, _, _, _, pieces = CASES[case]
    ms.set_auto_parallel_context(enable_parallel_optimizer=True, parallel_optimizer_config={"optimizer_level": level})
    try:
        net, ref, opt, ref_opt, sharded, log = _steps(case, "Adam")
    finally:
        ms.reset_auto_parallel_context()
    assert sharded.level == level
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    ours = {q.name: q for _, q in opt.parameters_and_names()}
    for _, q in ref_opt.parameters_and_names():
        np.testing.assert_allclose(ours[q.name].asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    whole = sum(p.asnumpy().nbytes for p in net.trainable_params())
    held = sum(int(np.prod(sharded.execution.layout_of(p).local_shape)) * 8 for p in net.trainable_params())
    for r in range(n):
        mem = sharded.memory(r)
        assert mem["state"] == 2 * whole // pieces          # Adam's two moments, in slices at every level
        assert mem["grads"] == whole // pieces              # level2 and level3: gradients in slices
        assert mem["params"] == (whole // pieces if level == "level3" else held)
    # every gradient reduce-scattered, every weight all-gathered once per step, nothing all-reduced
    kinds = [rec.kind for rec in log]
    assert kinds.count("ReduceScatter") == 3 and kinds.count("AllGather") == 3 and "AllReduce" not in kinds


def test_zero_1_keeps_whole_gradients_and_the_level_is_checked():
    _, _, _, _, sharded, _ = _steps("data-4", "Adam")
    assert sharded.level == "level1"
    whole = sum(p.asnumpy().nbytes for p in sharded.params)
    assert sharded.memory(0) == {"params": whole, "grads": whole, "state": 2 * whole // 4}
    with pytest.raises(ValueError, match="'optimizer_level' must be one of level1, level2, level3, but got 'level4'"):
        ShardedOptimizer(sharded.optimizer, sharded.execution, level="level4")
