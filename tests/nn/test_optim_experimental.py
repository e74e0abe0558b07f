"""mindspore.experimental.optim: update rules (numpy transcriptions), parameter groups, schedulers driving them."""
import math

import numpy as np
import pytest

import mindseed as ms
from mindseed.experimental import optim
from mindseed.experimental.optim import lr_scheduler as L

RNG = np.random.RandomState(3)
W = RNG.randn(4, 8).astype(np.float32)
B = RNG.randn(8).astype(np.float32)
GW = [RNG.randn(4, 8).astype(np.float32) for _ in range(3)]
GB = [RNG.randn(8).astype(np.float32) for _ in range(3)]


def _params():
    return [ms.Parameter(ms.Tensor(W.copy()), name="w"), ms.Parameter(ms.Tensor(B.copy()), name="b")]


def _run(opt, params):
    out = []
    for s in range(3):
        assert opt((ms.Tensor(GW[s]), ms.Tensor(GB[s]))) is True
        out.append([p.asnumpy().copy() for p in params])
    return out


def _ref(rule, lrs=(0.1, 0.1)):
    ws = [W.astype(np.float64), B.astype(np.float64)]
    st = [{}, {}]
    out = []
    for t in range(1, 4):
        for i, g in enumerate((GW[t - 1], GB[t - 1])):
            ws[i] = rule(i, ws[i], g.astype(np.float64), st[i], lrs[i], t)
        out.append([w.copy() for w in ws])
    return out


def _check(got, ref):
    for a, b in zip(got, ref):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=2e-5, atol=2e-6)


def sgd_rule(mom=0.0, damp=0.0, wd=0.0, nesterov=False, maximize=False):
    def rule(i, w, g, st, lr, t):
        g = -g if maximize else g
        g = g + wd * w
        if mom > 0:
            st["b"] = g if t == 1 else mom * st["b"] + (1 - damp) * g
            g = g + mom * st["b"] if nesterov else st["b"]
        return w - lr * g
    return rule


def adam_rule(b1=0.9, b2=0.999, eps=1e-8, wd=0.0):
    def rule(i, w, g, st, lr, t):
        g = g + wd * w
        m = st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
        v = st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
        return w - lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(v) + eps)
    return rule


def adamw_rule(b1=0.9, b2=0.999, eps=1e-8, wd=0.01, amsgrad=False):
    def rule(i, w, g, st, lr, t):
        w = w * (1 - lr * wd)
        m = st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
        v = st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
        if amsgrad:
            v = st["vmax"] = np.maximum(st.get("vmax", 0.0), v)
        return w - lr / (1 - b1 ** t) * m / (np.sqrt(v) / math.sqrt(1 - b2 ** t) + eps)
    return rule


CASES = [
    ("sgd", lambda p: optim.SGD(p, 0.1), sgd_rule()),
    ("sgd_momentum_wd", lambda p: optim.SGD(p, 0.1, momentum=0.9, dampening=0.2, weight_decay=0.01),
     sgd_rule(0.9, 0.2, 0.01)),
    ("sgd_nesterov_maximize", lambda p: optim.SGD(p, 0.1, momentum=0.8, nesterov=True, maximize=True),
     sgd_rule(0.8, nesterov=True, maximize=True)),
    ("adam", lambda p: optim.Adam(p, 0.1), adam_rule()),
    ("adam_wd", lambda p: optim.Adam(p, 0.1, betas=(0.8, 0.99), weight_decay=0.1), adam_rule(0.8, 0.99, wd=0.1)),
    ("adamw", lambda p: optim.AdamW(p, 0.1), adamw_rule()),
    ("adamw_amsgrad", lambda p: optim.AdamW(p, 0.1, amsgrad=True, weight_decay=0.1), adamw_rule(wd=0.1, amsgrad=True)),
]


@pytest.mark.parametrize("build,rule", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_update_rule_three_steps(build, rule):
    p = _params()
    _check(_run(build(p), p), _ref(rule))


def test_groups_take_defaults_and_own_values():
    p = _params()
    opt = optim.SGD([{"params": [p[0]], "lr": 0.05, "momentum": 0.5}, {"params": p[1], "weight_decay": 0.1}], 0.1)
    assert [sorted(g) for g in opt.param_groups][0] == ["dampening", "grad_centralization", "lr", "maximize",
                                                        "momentum", "nesterov", "params", "weight_decay"]
    assert opt.param_groups[1]["lr"].name == "learning_rate_group_1"
    assert opt.param_groups[0]["momentum"] == 0.5 and opt.param_groups[1]["momentum"] == 0.0

    def rule(i, w, g, st, lr, t):
        return (sgd_rule(0.5) if i == 0 else sgd_rule(0.0, wd=0.1))(i, w, g, st, lr, t)

    _check(_run(opt, p), _ref(rule, lrs=(0.05, 0.1)))


def test_add_param_group_and_repr():
    p = _params()
    opt = optim.Adam([p[0]], lr=0.1)
    opt.add_param_group({"params": [p[1]], "lr": 0.01})
    assert len(opt.param_groups) == 2 and opt.group_start_id == [0, 1, 2]
    text = repr(opt)
    assert text.startswith("Adam (\nParameter Group 0\n") and "Parameter Group 1" in text and "    lr: " in text
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [p[1]]})


def test_state_names():
    p = _params()
    names = {q.name for _, q in optim.AdamW(p).parameters_and_names()} - {"w", "b"}
    assert names == {"exp_avg.w", "exp_avg.b", "exp_avg_sq.w", "exp_avg_sq.b", "max_exp_avg_sq.w",
                     "max_exp_avg_sq.b", "state_step"}
    names = {q.name for _, q in optim.SGD(p, 0.1).parameters_and_names()} - {"w", "b"}
    assert names == {"accum.w", "accum.b", "stat.w", "stat.b"}


def test_scheduler_rates_reach_the_update():
    p = _params()
    opt = optim.SGD(p, lr=0.1)
    sched = L.StepLR(opt, step_size=1, gamma=0.5)
    opt((ms.Tensor(GW[0]), ms.Tensor(GB[0])))
    sched.step()
    opt((ms.Tensor(GW[1]), ms.Tensor(GB[1])))
    expect = W - np.float32(0.1) * GW[0] - np.float32(0.05) * GW[1]
    np.testing.assert_allclose(p[0].asnumpy(), expect, rtol=1e-6, atol=1e-6)
    assert [round(float(x), 6) for x in sched.get_last_lr()] == [0.05]


def test_float_lr_in_group_wins():
    p = _params()
    opt = optim.SGD(p, lr=0.1)
    opt.param_groups[0]["lr"] = 0.0
    opt((ms.Tensor(GW[0]), ms.Tensor(GB[0])))
    np.testing.assert_array_equal(p[0].asnumpy(), W)


@pytest.mark.parametrize("build,exc,msg", [
    (lambda p: optim.SGD(p, -0.1), ValueError, "Invalid learning rate"),
    (lambda p: optim.SGD(p, 0.1, nesterov=True), ValueError, "if 'nesterov' is true"),
    (lambda p: optim.Adam(p, betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0"),
    (lambda p: optim.AdamW(p, eps=-1.0), ValueError, "Invalid epsilon value"),
    (lambda p: optim.Adagrad(p, lr=0.0), ValueError, "the lr must be greater than 0"),
    (lambda p: optim.SGD([{"params": {p[0]}}], 0.1), TypeError, "ordered collections"),
    (lambda p: optim.SGD([1.0], 0.1), TypeError, "can only optimize Parameters"),
    (lambda p: optim.ASGD(p, lambd=1), TypeError, "the type of lambd must be float"),
    (lambda p: optim.SGD(p, ms.Tensor([0.1, 0.2])), ValueError, "should be scalar Tensor"),
])
def test_bad_arguments_raise(build, exc, msg):
    with pytest.raises(exc, match=msg):
        build(_params())


def test_scheduler_rejects_nn_optimizers_and_bad_epochs():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        L.StepLR(ms.nn.SGD(_params()), 1)
    with pytest.raises(ValueError, match="Invalid last_epoch"):
        L.StepLR(optim.SGD(_params(), 0.1), 1, last_epoch=-2)
    with pytest.raises(KeyError, match="initial_lr"):
        L.StepLR(optim.SGD(_params(), 0.1), 1, last_epoch=3)


_SCHEDULERS = {
    "StepLR": lambda o: L.StepLR(o, step_size=2, gamma=0.5),
    "LinearLR": lambda o: L.LinearLR(o, start_factor=0.5, total_iters=3),
    "ExponentialLR": lambda o: L.ExponentialLR(o, gamma=0.8),
    "PolynomialLR": lambda o: L.PolynomialLR(o, total_iters=4, power=2.0),
    "LambdaLR": lambda o: L.LambdaLR(o, lambda e: 0.9 ** e),
    "MultiplicativeLR": lambda o: L.MultiplicativeLR(o, lambda e: 0.9),
    "MultiStepLR": lambda o: L.MultiStepLR(o, milestones=[2, 4, 4], gamma=0.5),
    "ConstantLR": lambda o: L.ConstantLR(o, factor=0.5, total_iters=3),
    "CosineAnnealingLR": lambda o: L.CosineAnnealingLR(o, T_max=3, eta_min=0.01),
    "CyclicLR": lambda o: L.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2"),
}


def _rates_of_steps(make, steps, wrap):
    opt = optim.SGD(_params(), lr=0.1)
    sched = make(opt)

    class Step(ms.nn.Cell):
        def construct(self):
            sched.step()
            return sched.get_last_lr()

    step = wrap(Step())
    return [float(step()[0].asnumpy()) for _ in range(steps)]


@pytest.mark.parametrize("name", sorted(_SCHEDULERS))
def test_scheduler_steps_compile_under_strict(name):
    """A scheduler's step inside a STRICT graph (no Python fallback) gives the PyNative rates, step after step."""
    eager = _rates_of_steps(_SCHEDULERS[name], 7, lambda cell: cell)
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    try:
        graph = _rates_of_steps(_SCHEDULERS[name], 7, lambda cell: cell)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    assert len(set(np.round(eager, 8))) > 1  # the rates do change over the steps


def test_warm_restarts_step_to_an_epoch_under_strict():
    def rates():
        opt = optim.SGD(_params(), lr=0.1)
        sched = L.CosineAnnealingWarmRestarts(opt, 2)

        class Step(ms.nn.Cell):
            def construct(self, epoch):
                sched.step(epoch)
                return sched.get_last_lr()

        step = Step()
        return [float(step(e)[0].asnumpy()) for e in (0.0, 1 / 3, 2 / 3, 1.0, 2.5)]

    eager = rates()
    ms.set_context(mode=ms.GRAPH_MODE, jit_syntax_level=ms.STRICT)
    try:
        graph = rates()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, jit_syntax_level=ms.LAX)
    want = [0.05 * (1 + math.cos(math.pi * (e % 2) / 2)) for e in (0.0, 1 / 3, 2 / 3, 1.0, 2.5)]
    np.testing.assert_allclose(eager, want, rtol=1e-6)
    np.testing.assert_allclose(graph, want, rtol=1e-6)
