"""A step recorded abstractly and run with its leaves' shards given (`execute(..., shards=)`): what a process
holding only its slices runs (tests/communication/test_parallel_processes.py runs it on gloo processes). Also the
pieces of `_sliced`: slice initialization, the stand-ins, lazily made optimizer state."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import Tensor, nn
from mindseed.common.initializer import Normal, initializer
from mindseed.parallel import _sliced
from mindseed.parallel._layout import TensorLayout, shard_array
from mindseed.parallel._spmd import execute, record
from mindseed.parallel._world import SimulatedWorld

from _mlp import MLP, lazy_mlp

RNG = np.random.default_rng(3)
X, Y = RNG.standard_normal((8, 4)), RNG.standard_normal((8, 6))
PLANS = {  # ranks, operator strategies, dataset strategy
    "data_2": (2, dict(mm1=((2, 1), (1, 1))), (2, 1)),
    "column_row_4": (4, dict(mm1=((1, 1), (1, 4)), add=((1, 4), (4,)), mm2=((1, 4), (4, 1))), None),
    "data_x_tensor_4": (4, dict(mm1=((2, 1), (1, 2)), add=((2, 2), (2,)), mm2=((2, 2), (2, 1))), (2, 1)),
}


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_an_abstract_recording_with_given_shards_equals_the_whole_run(name):
    n, strategies, data = PLANS[name]
    net = MLP(**strategies)
    params = net.trainable_params()
    grad_fn = ms.value_and_grad(net, None, params)
    x, y = Tensor(X), Tensor(Y)
    loss, grads = grad_fn(x, y)
    whole = execute(record(grad_fn, x, y), SimulatedWorld(n), [(x, data), (y, data)] if data else None)
    layouts = {p.name: whole.layout_of(p) for p in params}
    # the leaves: data-less stand-ins of the global shapes; their shards given
    sliced = {id(p): (p, tuple(p.shape), layouts[p.name]) for p in params}
    xs, ys = _sliced.stand_in(X.shape, x.dtype), _sliced.stand_in(Y.shape, y.dtype)
    with _sliced.standing_whole(sliced):
        assert all(p.shape == whole_p.shape for p, whole_p in zip(params, net.trainable_params()))
        program = record(grad_fn, xs, ys, abstract=True)
    given = [(p, layouts[p.name]) for p in params]
    shards = [(p, shard_array(p.asnumpy(), layouts[p.name])) for p in params]
    for t, a in ((xs, X), (ys, Y)):  # full batch: whole on every rank
        layout = TensorLayout.from_strategy(a.shape, data or (1, 1), n)
        given.append((t, layout))
        shards.append((t, shard_array(a, layout)))
    world = SimulatedWorld(n)
    ex = execute(program, world, given, shards=shards)
    # the same collectives as the run recorded on whole tensors
    assert [r.kind for r in world.log] == [r.kind for r in whole.world.log] != []
    got_loss, got_grads = program.result
    _close(ex.whole(got_loss), loss.asnumpy())
    for p, g, want in zip(params, got_grads, grads):
        _close(ex.whole(g, layouts[p.name]), want.asnumpy())


def test_given_shards_are_checked():
    net = MLP()
    x = Tensor(X)
    program = record(lambda a: net.mm1(a, net.w1), x)
    layout = TensorLayout.from_strategy((8, 4), (2, 1), 2)
    with pytest.raises(ValueError, match="holds no data"):
        execute(record(lambda a: net.mm1(a, net.w1), _sliced.stand_in((8, 4), x.dtype), abstract=True),
                SimulatedWorld(2))
    with pytest.raises(ValueError, match="without its layout"):
        execute(program, SimulatedWorld(2), shards=[(x, np.split(X, 2))])
    with pytest.raises(ValueError, match="one entry per rank"):
        execute(program, SimulatedWorld(2), [(x, layout)], shards=[(x, [X[:4]])])
    with pytest.raises(ValueError, match=r"local shape \(4, 4\)"):
        execute(program, SimulatedWorld(2), [(x, layout)], shards=[(x, [X, X])])
    ex = execute(program, SimulatedWorld(2), [(x, layout)], shards=[(x, [X[:4], X[4:] * 0])])
    out = ex.whole(program.result)
    _close(out[:4], X[:4] @ net.w1.asnumpy())
    _close(out[4:], 0)   # the given shards are what the ranks compute from, not the tensor's own data


def test_slice_initialization():
    net = lazy_mlp()
    reference = lazy_mlp()
    reference.init_parameters_data()
    layout = TensorLayout.from_strategy((4, 8), (1, 2), 4)   # columns in halves, two ranks per half
    for rank in range(4):
        w = lazy_mlp().w1
        got = _sliced.init_slice(w, layout, rank)
        assert w.sliced and not w.has_init and w.shape == (4, 4)
        _close(got, shard_array(reference.w1.asnumpy(), layout)[rank])
    b_layout = TensorLayout.from_strategy((8,), (4,), 4)
    _sliced.init_slice(net.b1, b_layout, 3)            # zeros: only the slice is made
    assert net.b1.shape == (2,) and not net.b1.asnumpy().any()
    whole = ms.Parameter(Tensor(np.arange(8.0)), name="m")   # a state made whole: its slice kept
    _close(_sliced.init_slice(whole, b_layout, 1), [2.0, 3.0])
    assert _sliced.held_bytes([net.b1, whole]) == 2 * 8 * 2


def test_optimizer_state_made_under_no_init_parameters_waits_too():
    with nn.utils.no_init_parameters():
        w = ms.Parameter(initializer(Normal(), [2, 3], ms.float64), name="w")
        opt = nn.Momentum([w], learning_rate=0.1, momentum=0.9)
        same = w.clone()
    states, others = _sliced.optimizer_states(opt)
    assert [q.name for q in states[id(w)]] == ["moments.w"] and states[id(w)][0].has_init
    assert same.has_init and same.shape == (2, 3)
    assert {q.name for q in others} == {"global_step", "learning_rate", "momentum"}
    assert not states[id(w)][0].init_data().asnumpy().any()
    ones = w.clone("ones")       # outside no_init_parameters: made now
    assert not ones.has_init and ones.asnumpy().tolist() == [[1.0] * 3] * 2
    assert _sliced.waiting_or_sliced([w], {}) and not _sliced.waiting_or_sliced([ones], {})
