"""mindseed from threads other than the importing one: a model made in one thread trains in another."""
import threading

import numpy as np

import mindseed as ms
from mindseed import nn, ops


def _in_thread(fn):
    result, errors = [], []

    def run():
        try:
            result.append(fn())
        except Exception as exc:  # noqa: BLE001 -- reported by the test
            errors.append(exc)
    t = threading.Thread(target=run)
    t.start()
    t.join()
    if errors:
        raise errors[0]
    return result[0]


def _train(net, steps, jit):
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    grad_fn = ms.value_and_grad(lambda x, y: ((net(x) - y) ** 2).mean(), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    if jit:
        step = ms.jit(step)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((8, 4)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((8, 2)).astype(np.float32))
    return [float(step(x, y).asnumpy()) for _ in range(steps)]


def _net():
    ms.set_seed(1)
    return nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2))


def test_a_model_made_here_trains_in_another_thread_as_here():
    for jit in (False, True):
        here = _train(_net(), 3, jit)
        net = _net()                                   # made in this thread, updated in place by the other
        there = _in_thread(lambda net=net, jit=jit: _train(net, 3, jit))
        np.testing.assert_array_equal(there, here)
        assert there[-1] < there[0]


def test_functional_in_place_updates_from_another_thread():
    p = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="p")
    t = ms.Tensor(np.ones(3, np.float32))

    def work():
        ops.assign(p, ms.Tensor(np.full(3, 2.0, np.float32)))    # first op of the thread: an in-place update
        ops.assign_add(p, t)
        return (p + t).asnumpy()
    np.testing.assert_array_equal(_in_thread(work), [4.0, 4.0, 4.0])
    np.testing.assert_array_equal(p.asnumpy(), [3.0, 3.0, 3.0])
    made_there = _in_thread(lambda: ms.Tensor(np.ones(2, np.float32)) * 5)
    q = ms.Parameter(made_there, name="q")
    ops.assign_add(q, ms.Tensor(np.ones(2, np.float32)))          # and back: updated here
    np.testing.assert_array_equal(q.asnumpy(), [6.0, 6.0])


def test_optimizer_primitives_from_another_thread():
    w = ms.Parameter(ms.Tensor(np.array([1.0], np.float32)), name="w")
    a = ms.Parameter(ms.Tensor(np.array([0.0], np.float32)), name="a")
    _in_thread(lambda: ms.ops.ApplyMomentum()(w, a, 0.1, ms.Tensor(np.array([1.0], np.float32)), 0.9))
    np.testing.assert_allclose(w.asnumpy(), [0.9])
    np.testing.assert_allclose(a.asnumpy(), [1.0])
