"""Sharding propagation's operator strategies saved to and loaded from JSON (`set_op_strategy_config`,
`AutoParallel.save_operator_strategy_file` / `load_operator_strategy_file`) on a simulated world of 4: the saved
file holds the forward calls' strategies the run used; a network without strategies loading it runs exactly those
(not its own search) and trains as one process (float64, 1e-12); the checks."""
import json

import numpy as np
import pytest

import mindseed as ms
from _mlp import MLP
from mindseed import Tensor, nn
from mindseed.parallel import set_op_strategy_config
from mindseed.parallel._train import simulate
from mindseed.parallel.auto_parallel import AutoParallel

RNG = np.random.default_rng(13)
BATCHES = [(Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 6)))) for _ in range(2)]


@pytest.fixture(autouse=True)
def _context():
    yield
    ms.reset_auto_parallel_context()


def _train(net, configure):
    parallel_net = AutoParallel(net, parallel_mode="sharding_propagation")
    configure(parallel_net)
    step = nn.TrainOneStepCell(parallel_net, nn.SGD(net.trainable_params(), 0.1))
    with simulate(4) as run:
        losses = [float(step(x, y).asnumpy()) for x, y in BATCHES]
    return losses, run


def _forward_strategies(run):
    ex = run.executions[-1]
    return {name: s for name, s in ex.operator_strategies()}


def test_saved_strategies_load_into_a_network_without_strategies(tmp_path):
    path = str(tmp_path / "ops" / "strategy.json")
    losses, run = _train(MLP(mm1=((1, 1), (1, 4))), lambda p: p.save_operator_strategy_file(path))
    with open(path, encoding="utf-8") as f:
        saved = json.load(f)
    ran = _forward_strategies(run)
    assert saved["MatMul-op0"] == [[1, 1], [1, 4]]   # the user's column cut of w1
    assert all(ran[k] == v for k, v in saved.items())
    # the 7 forward calls, the propagated ones too
    assert sorted(saved) == ["Add-op1", "MatMul-op0", "MatMul-op3", "Mul-op5", "ReLU-op2", "ReduceMean-op6", "Sub-op4"]
    assert saved["MatMul-op3"] == [[1, 4], [4, 1]]   # the second product's rows follow the first's columns
    # a network with no strategy runs the file's (its own search would cut the batch: data parallel)
    own_losses, own = _train(MLP(), lambda p: None)
    assert _forward_strategies(own)["MatMul-op0"] != [[1, 1], [1, 4]]
    loaded_losses, loaded = _train(MLP(), lambda p: p.load_operator_strategy_file(path))
    assert {k: v for k, v in _forward_strategies(loaded).items() if k in saved} == saved
    ref = MLP()
    step = nn.TrainOneStepCell(ref, nn.SGD(ref.trainable_params(), 0.1))
    ref_losses = [float(step(x, y).asnumpy()) for x, y in BATCHES]
    for got in (losses, own_losses, loaded_losses):
        np.testing.assert_allclose(got, ref_losses, rtol=0, atol=1e-12)


def test_set_op_strategy_config_through_the_context(tmp_path):
    path = str(tmp_path / "strategy.json")
    ms.set_auto_parallel_context(parallel_mode="auto_parallel", search_mode="sharding_propagation")
    set_op_strategy_config("SAVE", path)
    net = MLP(mm1=((4, 1), (1, 1)))
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
    with simulate(4):
        step(*BATCHES[0])
    with open(path, encoding="utf-8") as f:
        assert json.load(f)["MatMul-op0"] == [[4, 1], [1, 1]]
    set_op_strategy_config("LOAD", path)   # the last call decides: now loaded, not saved
    (tmp_path / "strategy.json").write_text(json.dumps({"Add-op0": [[1, 1], [1]]}))
    with simulate(4), pytest.raises(ValueError, match="'Add-op0' names Add at forward call 0, but the network runs "
                                                      "MatMul there"):
        step(*BATCHES[0])


def test_the_checks(tmp_path):
    with pytest.raises(KeyError, match="File path must be an absolute path"):
        set_op_strategy_config("SAVE", "strategy.json")
    with pytest.raises(KeyError, match="File type must be .json"):
        set_op_strategy_config("SAVE", str(tmp_path / "strategy.txt"))
    with pytest.raises(KeyError, match="Type must be 'SAVE' or 'LOAD'"):
        set_op_strategy_config("KEEP", str(tmp_path / "strategy.json"))
    with pytest.raises(PermissionError, match="Writing to system directory '/etc' is not allowed"):
        set_op_strategy_config("SAVE", "/etc/strategy.json")
    with pytest.raises(PermissionError, match="'/proc'"):
        AutoParallel(MLP()).save_operator_strategy_file("/proc/strategy.json")
    missing = AutoParallel(MLP(), parallel_mode="sharding_propagation")
    missing.load_operator_strategy_file(str(tmp_path / "none.json"))
    with simulate(4), pytest.raises(ValueError, match="none.json does not exist"):
        nn.TrainOneStepCell(missing, nn.SGD(missing.trainable_params(), 0.1))(*BATCHES[0])


def test_operator_names_restart_after_reset_op_id():
    """`_reset_op_id` (MindSpore's restart of its process-wide operator counter): the next compiled network's
    operators are named from op0 again, so two networks compiled after a reset get the same names."""
    from mindseed.parallel._utils import _reset_op_id  # noqa: PLC0415
    _reset_op_id()
    _, first = _train(MLP(mm1=((1, 1), (1, 4))), lambda p: None)
    _reset_op_id()
    _, second = _train(MLP(mm1=((1, 1), (1, 4))), lambda p: None)
    names = sorted(_forward_strategies(first))
    assert names == sorted(_forward_strategies(second)) and "MatMul-op0" in names
    assert _forward_strategies(second)["MatMul-op0"] == [[1, 1], [1, 4]]
