"""The parallel optimizer with optimizers reading norms or means over a whole parameter (Lamb, LARS, AdaFactor):
on the ranks' slices each partial reduction is all-reduced over the ranks holding the parameter's other pieces;
parameters and state after each step equal the single-process optimizer's (float64, 1e-12) at levels 1-3 on
meshes (2), (4), (2, 2), and the collectives are those the layouts predict."""
import numpy as np
import pytest

import mindseed as ms
from _mlp import MLP
from mindseed import Tensor, nn
from mindseed.parallel._layout import assemble
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._train import simulate
from mindseed.parallel._world import SimulatedWorld, sent_bytes
from mindseed.parallel._zero import ShardedOptimizer


RNG = np.random.default_rng(3)
BATCHES = [(Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 6)))) for _ in range(3)]
OPTIMIZERS = {
    "Lamb": lambda ps: nn.Lamb(ps, learning_rate=0.05, weight_decay=0.01),
    "LARS": lambda ps: nn.LARS(nn.Momentum(ps, learning_rate=0.1, momentum=0.9, weight_decay=0.01),
                               coefficient=0.5),
    "LARS-clip": lambda ps: nn.LARS(nn.Momentum(ps, learning_rate=0.1, momentum=0.9), coefficient=0.5,
                                    use_clip=True),
    "AdaFactor": lambda ps: nn.AdaFactor(ps, weight_decay=0.01),
    "AdaFactor-lr": lambda ps: nn.AdaFactor(ps, learning_rate=0.01, relative_step=False, beta1=0.0,
                                            scale_parameter=False),
}
# name: (devices, strategies, dataset strategy)
CASES = {
    "data-2": (2, dict(mm1=((2, 1), (1, 1))), (2, 1)),
    "data-4": (4, dict(mm1=((4, 1), (1, 1))), (4, 1)),
    "data-x-tensor-2x2": (4, dict(mm1=((2, 1), (1, 2)), add=((2, 2), (2,)), mm2=((2, 2), (2, 1))), (2, 1)),
}


def _steps(case, opt_name, level):
    n, strategies, data = CASES[case]
    net, ref = MLP(**strategies), MLP()
    opt = OPTIMIZERS[opt_name](net.trainable_params())
    ref_opt = OPTIMIZERS[opt_name](ref.trainable_params())
    world = SimulatedWorld(n)
    sharded, logs = None, []
    for x, y in BATCHES:
        program = record(ms.value_and_grad(net, None, net.trainable_params()), x, y)
        ex = execute(program, world, [(x, data), (y, data)])
        sharded = ShardedOptimizer(opt, ex, level=level) if sharded is None else sharded
        sharded.execution = ex
        start = len(world.log)
        new = sharded.step(program.result[1])
        logs.append(world.log[start:])
        if level == "level3":
            new = sharded.gather_parameters()
        _, grads = ms.value_and_grad(ref, None, ref.trainable_params())(x, y)
        ref_opt(grads)
        for p, shards in zip(net.trainable_params(), new):
            np.testing.assert_allclose(assemble(shards, ex.layout_of(p)), p.asnumpy(), rtol=0, atol=0)
    return net, ref, opt, ref_opt, sharded, logs


@pytest.mark.parametrize("level", ["level1", "level2", "level3"])
@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_norm_reading_optimizers_on_slices_match_one_process(case, opt_name, level):
    net, ref, opt, ref_opt, sharded, _ = _steps(case, opt_name, level)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    ours = {q.name: q for _, q in opt.parameters_and_names()}
    theirs = dict(ref_opt.parameters_and_names())
    assert set(ours) == {q.name for q in theirs.values()}
    for q in theirs.values():
        np.testing.assert_allclose(ours[q.name].asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
    # the parameters really moved (a step of zeros would match too)
    assert all(np.abs(p.asnumpy() - q.asnumpy()).max() > 1e-3 for p, q in zip(net.trainable_params(),
                                                                                MLP().trainable_params()))


def _all_reduces(log):
    return [(rec.group_size, rec.input_bytes, rec.sent_bytes) for rec in log if rec.kind == "AllReduce"]


def _ar(n, nbytes):
    return (n, nbytes, sent_bytes("AllReduce", n, nbytes))


@pytest.mark.parametrize("case", ["data-2", "data-4"])
def test_lamb_and_lars_all_reduce_two_sums_of_squares_per_parameter(case):
    n = CASES[case][0]
    for name in ("Lamb", "LARS"):
        _, _, _, _, _, logs = _steps(case, name, "level1")
        for log in logs:
            # per parameter (w1, b1, w2, each cut over the n data-parallel ranks): ||w||^2 and ||update||^2 (Lamb)
            # or ||w||^2 and ||g||^2 (LARS), one float64 each over the n ranks; besides, one ReduceScatter per
            # gradient and one AllGather per weight
            assert _all_reduces(log) == [_ar(n, 8)] * 6
            assert [r.kind for r in log].count("ReduceScatter") == 3
            assert [r.kind for r in log].count("AllGather") == 3


def test_adafactor_all_reduces_its_means_over_the_sliced_dims():
    _, _, _, _, sharded, logs = _steps("data-4", "AdaFactor", "level1")
    # w1 (4, 8) and w2 (8, 6) cut along dim 0 over 4 ranks: RMS(w), the column means (one row of sums), the mean
    # of the row moments and RMS(update); the row means (over the uncut dim 1) need none; b1 (8,): the two RMS
    matrix = lambda cols: [_ar(4, 8), _ar(4, 8 * cols), _ar(4, 8), _ar(4, 8)]  # noqa: E731
    for log in logs:
        assert _all_reduces(log) == matrix(8) + [_ar(4, 8)] * 2 + matrix(6)
    # the row moments are cut as the parameter without its last dim, the column moments whole on every rank
    opt = sharded.optimizer
    rows, cols = opt.exp_avg_sq_row[0], opt.exp_avg_sq_col[0]
    assert sharded.held[id(rows)].local_shape == (1,) and sharded.held[id(cols)].local_shape == (8,)
    assert [s.shape for s in sharded.slices[id(rows)]] == [(1,)] * 4


def test_adafactor_under_tensor_parallel_reduces_each_mean_over_its_own_axes():
    _, _, _, _, sharded, logs = _steps("data-x-tensor-2x2", "AdaFactor", "level1")
    # w1 (4, 8) cut by dp on dim 0 and mp on dim 1: RMS over both (4 ranks), the row means over mp, the column
    # means over dp, the row moments' mean over dp; b1 (8,) cut by mp and dp; w2 (8, 6): dim 0 by mp and dp
    w1 = [_ar(4, 8), _ar(2, 8 * 2), _ar(2, 8 * 4), _ar(2, 8), _ar(4, 8)]
    b1 = [_ar(4, 8)] * 2
    w2 = [_ar(4, 8), _ar(4, 8 * 6), _ar(4, 8), _ar(4, 8)]
    for log in logs:
        assert _all_reduces(log) == w1 + b1 + w2


@pytest.mark.parametrize(("case", "level"), [("data-4", "level2"), ("data-x-tensor-2x2", "level3")])
@pytest.mark.parametrize("opt_name", ["Lamb", "AdaFactor"])
def test_train_one_step_cell_with_a_norm_reading_optimizer_matches_one_process(case, level, opt_name):
    n, strategies, data = CASES[case]
    config = {"optimizer_level": level, "parallel_optimizer_threshold": 0}
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel", dataset_strategy=(data, data),
                                 enable_parallel_optimizer=True, parallel_optimizer_config=config)
    try:
        net = MLP(**strategies)
        step = nn.TrainOneStepCell(net, OPTIMIZERS[opt_name](net.trainable_params()))
        with simulate(n) as run:
            losses = [float(step(x, y).asnumpy()) for x, y in BATCHES]
        assert run.sharded_optimizer(step).level == level
    finally:
        ms.reset_auto_parallel_context()
    ref = MLP()
    ref_step = nn.TrainOneStepCell(ref, OPTIMIZERS[opt_name](ref.trainable_params()))
    np.testing.assert_allclose(losses, [float(ref_step(x, y).asnumpy()) for x, y in BATCHES], rtol=0, atol=1e-12)
    for p, q in zip(net.trainable_params(), ref.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=0, atol=1e-12)
