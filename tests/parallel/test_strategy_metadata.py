"""`mindspore.parallel.strategy`: the layouts of a network's parameters recorded online by sharded runs on simulated
worlds (tensor parallel, the parallel optimizer's slices, pipeline stages), per rank and for this rank; None for a
network with nothing recorded, before `enable_save_strategy_online` and after `clear_strategy_metadata`."""
import numpy as np
import pytest

import mindseed as ms
from _mlp import MLP
from _pipeline_model import Net, WithLoss
from mindseed import Tensor, nn
from mindseed.parallel import strategy
from mindseed.parallel._train import simulate
from mindseed.parallel.auto_parallel import AutoParallel
from mindseed.parallel.nn import Pipeline

RNG = np.random.default_rng(4)
X, Y = Tensor(RNG.standard_normal((8, 4))), Tensor(RNG.standard_normal((8, 6)))
TENSOR_2X2 = dict(mm1=((2, 1), (1, 2)), add=((2, 2), (2,)), mm2=((2, 2), (2, 1)))


@pytest.fixture(autouse=True)
def _online():
    strategy.clear_strategy_metadata()
    strategy._state["online"] = False
    yield
    strategy.clear_strategy_metadata()
    strategy._state["online"] = False
    ms.reset_auto_parallel_context()


def _step(net, network=None):
    step = nn.TrainOneStepCell(network or net, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    with simulate(4):
        step(X, Y)
    return step


def _summary(info):
    return {rank: {name: (lay.to_dict()["device_matrix"], lay.to_dict()["tensor_map"], dtype, shape,
                          lay.to_dict()["rank_list"]) for name, (lay, dtype, shape) in params.items()}
            for rank, params in info.items()}


def test_nothing_is_recorded_before_recording_is_enabled():
    net = MLP(**TENSOR_2X2)
    ms.set_auto_parallel_context(parallel_mode="semi_auto_parallel")
    step = _step(net)
    assert strategy.get_strategy_metadata(step) is None and strategy.get_current_strategy_metadata(net) is None


def test_tensor_parallel_layouts_per_rank():
    strategy.enable_save_strategy_online()
    net = MLP(**TENSOR_2X2)
    step = _step(net, AutoParallel(net))
    every = strategy.get_strategy_metadata(step)
    w1 = ((2, 2), (-1, 0), "Float64", (4, 8), [0, 1, 2, 3])       # columns over the second (model) axis
    b1 = ((2, 2), (0,), "Float64", (8,), [0, 1, 2, 3])
    w2 = ((2, 2), (0, -1), "Float64", (8, 6), [0, 1, 2, 3])       # rows over the model axis
    assert _summary(every) == {r: {"w1": w1, "b1": b1, "w2": w2} for r in range(4)}
    assert _summary(strategy.get_strategy_metadata(step, rank_id=2)) == {2: {"w1": w1, "b1": b1, "w2": w2}}
    # the network itself (a cell of the trained one) and this rank's view
    assert _summary(strategy.get_current_strategy_metadata(net)) == {0: {"w1": w1, "b1": b1, "w2": w2}}
    strategy.clear_strategy_metadata()
    assert strategy.get_strategy_metadata(step) is None and strategy.get_current_strategy_metadata(net) is None


def test_the_parallel_optimizer_s_slices_are_recorded():
    strategy.enable_save_strategy_online()
    net = MLP(**TENSOR_2X2)
    parallel_net = AutoParallel(net)
    parallel_net.hsdp(threshold=0)
    step = _step(net, parallel_net)
    info = _summary(strategy.get_current_strategy_metadata(step))[0]
    # each weight's rows also cut over the data-parallel axis the optimizer shards its state over
    assert info["w1"][:2] == ((2, 2), (1, 0)) and info["w2"][:2] == ((2, 2), ((0, 1), -1))
    assert info["b1"][:2] == ((2, 2), ((0, 1),))


def test_pipeline_stages_hold_their_own_parameters():
    strategy.enable_save_strategy_online()
    cell = Pipeline(WithLoss(Net((4, 6, 6, 6))), 4,
                    stage_config={"net.layers.0": 0, "net.layers.1": 1, "net.layers.2": 1})
    parallel_net = AutoParallel(cell)
    parallel_net.pipeline(stages=2)
    step = _step(cell, parallel_net)
    info = strategy.get_strategy_metadata(step)
    assert sorted(info[0]) == sorted(info[1]) == ["net.layers.0.b", "net.layers.0.w"]
    assert sorted(info[2]) == sorted(info[3]) == ["net.layers.1.b", "net.layers.1.w", "net.layers.2.b",
                                                  "net.layers.2.w"]
    lay = info[3]["net.layers.1.w"][0].to_dict()
    assert lay["rank_list"] == [2, 3] and lay["device_matrix"] == (2,)


def test_the_checks():
    with pytest.raises(TypeError, match="For 'get_strategy_metadata', the argument 'network' must be a Cell"):
        strategy.get_strategy_metadata("net")
    with pytest.raises(TypeError, match="'rank_id' must be an int or None, but got str"):
        strategy.get_strategy_metadata(MLP(), rank_id="0")
    with pytest.raises(TypeError, match="For 'get_current_strategy_metadata', the argument 'network' must be a Cell"):
        strategy.get_current_strategy_metadata(None)
