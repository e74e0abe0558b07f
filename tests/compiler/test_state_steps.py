"""Training-step machinery that updates state with its own kernels runs at every call of a compiled step, as in
PyNative: loss-scaled steps (TrainOneStepWithLossScaleCell with a fixed or dynamic scale, amp's
DynamicLossScaler + all_finite in ms.jit), the experimental optimizers, the class-API optimizer primitives,
a dynamic learning-rate list read through get_lr, and Parameter updates of a trace abandoned for the
interpreter (JIT fallback), which must not be applied twice."""
import warnings

import numpy as np
import pytest

import mindseed as ms
from mindseed import amp, nn, ops
from mindseed.experimental import optim as xoptim

X = ms.Tensor(np.ones((1, 1), np.float32))
Y = ms.Tensor(np.zeros((1, 1), np.float32))


def _in_mode(mode, fn):
    ms.set_context(mode=mode)
    try:
        return fn()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _dense():
    return nn.Dense(1, 1, weight_init="ones", bias_init="zeros")


@pytest.mark.parametrize("dynamic", [False, True])
def test_loss_scaled_step_in_graph_mode_matches_pynative(dynamic):
    def run():
        net = _dense()
        sense = nn.DynamicLossScaleUpdateCell(2.0 ** 10, 2, 1) if dynamic else ms.Tensor(1024.0, ms.float32)
        step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(),
                                                                                          0.1), sense)
        out = []
        for x in (1.0, 1.0, 1e30, 1.0):       # the third step overflows: skipped, the scale shrinks
            loss, overflow, scale = step(ms.Tensor(np.full((1, 1), x, np.float32)), Y)
            out.append((bool(overflow.asnumpy()), float(scale.asnumpy()), float(net.weight.asnumpy()[0, 0])))
        return out
    ref = _in_mode(ms.PYNATIVE_MODE, run)
    assert [o for o, _, _ in ref] == [False, False, True, False]
    assert ref[0][2] == pytest.approx(0.8) and ref[1][2] == pytest.approx(0.68) and ref[2][2] == ref[1][2]
    if dynamic:
        assert [s for _, s, _ in ref] == [2048.0, 4096.0, 2048.0, 4096.0]
    assert _in_mode(ms.GRAPH_MODE, run) == ref


def test_amp_dynamic_loss_scaler_and_all_finite_in_jit_match_pynative():
    def run(jit):
        net = _dense()
        opt = nn.SGD(net.trainable_params(), 0.1)
        scaler = amp.DynamicLossScaler(1024.0, 2, 1)
        grad_fn = ms.value_and_grad(lambda x, y: scaler.scale(nn.MSELoss()(net(x), y)), None, opt.parameters)

        def step(x, y):
            _, grads = grad_fn(x, y)
            ok = amp.all_finite(grads)
            if ok:
                opt(scaler.unscale(grads))
            scaler.adjust(ok)
            return ok
        step = ms.jit(step) if jit else step
        out = []
        for x in (1.0, 1.0, 1e30, 1.0):
            ok = step(ms.Tensor(np.full((1, 1), x, np.float32)), Y)
            out.append((bool(ok.asnumpy()), float(net.weight.asnumpy()[0, 0]), float(scaler.scale_value.asnumpy())))
        return out
    ref = run(False)
    assert [o for o, _, _ in ref] == [True, True, False, True] and ref[2][1] == ref[1][1]
    assert run(True) == ref


@pytest.mark.parametrize("opt_cls", [xoptim.SGD, xoptim.Adam, xoptim.AdamW])
def test_experimental_optimizers_update_at_every_compiled_call(opt_cls):
    def run(jit):
        net = _dense()
        opt = opt_cls(net.trainable_params(), lr=0.1)
        grad_fn = ms.value_and_grad(lambda x, y: ((net(x) - y) ** 2).mean(), None, opt.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss
        step = ms.jit(step) if jit else step
        return [float(step(X, Y).asnumpy()) for _ in range(4)], float(net.weight.asnumpy()[0, 0])
    ref = run(False)
    assert ref[0][3] < ref[0][2] < ref[0][1]
    got = run(True)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-6)
    assert got[1] == pytest.approx(ref[1], rel=1e-6)

    def cell_steps():
        net = _dense()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt_cls(net.trainable_params(), lr=0.1))
        return [float(step(X, Y).asnumpy()) for _ in range(4)]
    np.testing.assert_allclose(_in_mode(ms.GRAPH_MODE, cell_steps), ref[0], rtol=1e-6)


class _PrimStep(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")
        self.a = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="a")
        self.gd = ops.ApplyGradientDescent()
        self.mom = ops.ApplyMomentum()

    def construct(self, g):
        self.gd(self.w, 0.5, g)
        self.mom(self.w, self.a, 0.1, g, 0.9)
        return self.w + 0


def test_optimizer_primitives_update_at_every_compiled_call():
    def run():
        cell = _PrimStep()
        return [cell(ms.Tensor(np.ones(2, np.float32))).asnumpy().tolist() for _ in range(3)]
    ref = _in_mode(ms.PYNATIVE_MODE, run)
    assert ref[0] == pytest.approx([0.4, 0.4]) and ref[1][0] < ref[0][0] - 0.5
    assert _in_mode(ms.GRAPH_MODE, run) == ref


def test_dynamic_learning_rate_list_read_in_jit():
    def run(jit):
        net = _dense()
        opt = nn.SGD(net.trainable_params(), [0.1, 0.05, 0.01, 0.001])
        grad_fn = ms.value_and_grad(lambda x, y: ((net(x) - y) ** 2).mean(), None, opt.parameters)

        def step(x, y):
            _, grads = grad_fn(x, y)
            lr = opt.get_lr()
            opt(grads)
            return lr
        step = ms.jit(step) if jit else step
        return [float(step(X, Y).asnumpy()) for _ in range(4)], float(net.weight.asnumpy()[0, 0])
    ref = run(False)
    assert ref[0] == pytest.approx([0.1, 0.05, 0.01, 0.001])
    assert run(True) == ref


def test_updates_of_an_abandoned_trace_are_not_applied_twice():
    p = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)), name="p")
    one = ms.Tensor(np.ones(1, np.float32))

    @ms.jit
    def f(x):
        ops.assign_add(p, one)
        p.add_(one)
        return x * x.sum().item()     # .item() of a graph value: the function falls back to the interpreter

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = []
        for _ in range(3):
            f(ms.Tensor(np.ones(2, np.float32)))
            got.append(float(p.asnumpy()[0]))
    assert got == [2.0, 4.0, 6.0]


def test_steps_under_tensor_conditions_run_only_when_reached(capsys):
    # an optimizer step, an optimizer primitive or a Print in an untaken branch or a loop body: the tracing
    # call must not run them for real (only the graph does, as often as it gets there)
    q = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="q")
    v = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="v")
    acc = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="acc")
    opt = nn.SGD([q], 1.0)
    mom = ops.ApplyMomentum()
    ones = ms.Tensor(np.ones(2, np.float32))

    @ms.jit
    def every_other(i):
        if i % 2 == 1:
            opt((ones,))
        else:
            ops.Print()("even step")
        if i > 100:
            mom(v, acc, 1.0, ones, 0.9)
        return i

    got = []
    for i in (0, 0, 1, 2, 3):
        every_other(ms.Tensor(i, ms.int32))
        got.append(float(q.asnumpy()[0]))
    assert got == [0.0, 0.0, -1.0, -1.0, -2.0]
    np.testing.assert_array_equal(v.asnumpy(), [0.0, 0.0])
    assert capsys.readouterr().out.count("even step") == 3

    w = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="w")
    opt_w = nn.SGD([w], 1.0)

    @ms.jit
    def three_steps(k):
        while k < 3:
            opt_w((ones,))
            k = k + 1
        return k

    three_steps(ms.Tensor(0, ms.int32))
    np.testing.assert_array_equal(w.asnumpy(), [-3.0, -3.0])


def test_optimizer_applied_to_a_parameter_tuple_of_accumulated_gradients_in_jit():
    net = _dense()
    opt = nn.SGD(net.trainable_params(), 0.1)
    acc = opt.parameters.clone(prefix="acc", init="ones")

    @ms.jit
    def step():
        return opt(acc)

    for _ in range(3):
        step()
    assert float(net.bias.asnumpy()[0]) == pytest.approx(-0.3)
    assert float(net.weight.asnumpy()[0, 0]) == pytest.approx(0.7)


class _ReadAroundStep(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="w")
        self.opt = nn.Momentum([self.w], [1.0, 0.5, 0.25, 0.125], 0.9)

    def construct(self, g):
        before = self.w * 2
        lr0 = self.opt.get_lr()
        self.opt((g,))
        after = self.w * 2
        return before, after, self.w * 1, after - before, lr0, self.opt.get_lr()


def test_reads_after_an_optimizer_step_in_the_same_graph_see_its_update():
    """An optimizer step is one opaque node that gives back the Parameters it updates: w read after it is the
    new value (not merged with the read before), w * 1 returned stays a snapshot, get_lr() after it has moved."""
    g = ms.Tensor(-np.ones(3, np.float32))
    eager, graph = _ReadAroundStep(), _ReadAroundStep()
    got = _in_mode(ms.GRAPH_MODE, lambda: [[o.asnumpy().copy() for o in graph(g)] for _ in range(3)])
    want = [[o.asnumpy().copy() for o in eager(g)] for _ in range(3)]
    for gs, ws in zip(got, want):
        for a, b in zip(gs, ws):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    assert want[1][1][0] != want[1][0][0]


def test_several_steps_in_one_compiled_call_each_use_the_updated_weights():
    def run(compiled):
        w = ms.Parameter(ms.Tensor(np.array([[0.5, -0.3]], np.float32)), name="w")
        opt = nn.SGD([w], 0.1)
        x = ms.Tensor(np.array([[1.0, 2.0]], np.float32))
        grad_fn = ms.value_and_grad(lambda x: ((ops.matmul(x, w.T) - 1.0) ** 2).sum(), None, opt.parameters)

        def steps(x):
            losses = []
            for _ in range(3):
                loss, grads = grad_fn(x)
                opt(grads)
                losses.append(loss)
            return tuple(losses)
        fn = ms.jit(steps) if compiled else steps
        return [float(v.asnumpy()) for _ in range(2) for v in fn(x)]
    np.testing.assert_allclose(run(True), run(False), rtol=1e-6)


def _grad_scale(scale, grad):
    return grad * ops.cast(ops.Reciprocal()(scale), ops.dtype(grad))


class _OwnLossScaleStep(nn.TrainOneStepWithLossScaleCell):
    """MindSpore's documented subclass pattern (the model-zoo BERT/GPT cells): its own construct."""

    def construct(self, x, y):
        weights = self.weights
        loss = self.network(x, y)
        scaling_sens = self.scale_sense
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        sens = ops.ones_like(loss) * ops.cast(scaling_sens, ops.dtype(loss))
        grads = self.grad(self.network, weights)(x, y, sens)
        grads = self.hyper_map(ops.partial(_grad_scale, scaling_sens), grads)
        grads = ops.clip_by_global_norm(grads, 1.0)
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            loss = ops.depend(loss, self.optimizer(grads))
        return loss, cond, scaling_sens


def test_a_loss_scale_cell_subclass_with_its_own_construct_skips_overflowing_steps_in_graph_mode():
    def run(mode):
        def go():
            net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
            step = _OwnLossScaleStep(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                                     nn.DynamicLossScaleUpdateCell(2.0 ** 8, 2, 1000))
            y = ms.Tensor(np.zeros((1, 1), np.float32))
            res = []
            for i in range(4):
                x = np.array([[1.0, 2.0]], np.float32)
                if i == 2:
                    x[0, 0] = np.inf
                _, cond, scale = step(ms.Tensor(x), y)
                res.append((bool(cond.asnumpy()), float(scale.asnumpy())))
            return res, net.weight.asnumpy()
        return _in_mode(mode, go)
    (g, wg), (p, wp) = run(ms.GRAPH_MODE), run(ms.PYNATIVE_MODE)
    assert g == p == [(False, 256.0), (False, 256.0), (True, 128.0), (False, 128.0)]
    np.testing.assert_allclose(wg, wp, rtol=1e-6)
    assert np.isfinite(wg).all()
