"""nn optimizers: the first three updates against numpy transcriptions of MindSpore's update rules.

Each reference below is written from the MindSpore 2.10 sources (nn/optim/*.py and the documented
primitive rules), in float64, independently of the kernels under test.
"""
import math

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn

RNG = np.random.RandomState(7)
W = RNG.randn(3, 16).astype(np.float32)
B = RNG.randn(16).astype(np.float32)
GW = [RNG.randn(3, 16).astype(np.float32) for _ in range(3)]
GB = [RNG.randn(16).astype(np.float32) for _ in range(3)]
GB[1][0] = 0.0
f32 = np.float32


def _params(wname="w", bname="gamma"):
    return [ms.Parameter(ms.Tensor(W.copy()), name=wname), ms.Parameter(ms.Tensor(B.copy()), name=bname)]


def _run(opt, params, steps=3):
    """Params after each step, gradients passed in the optimizer's parameter order."""
    grads = {params[0].name: GW, params[1].name: GB}
    out = []
    for s in range(steps):
        ret = opt(tuple(ms.Tensor(grads[p.name][s]) for p in opt.parameters))
        assert ret
        out.append([p.asnumpy().copy() for p in params])
    return out


def _check(got, ref, rtol=2e-5, atol=2e-6):
    for step, (g_step, r_step) in enumerate(zip(got, ref)):
        for g, r in zip(g_step, r_step):
            np.testing.assert_allclose(g, r, rtol=rtol, atol=atol, err_msg=f"step {step}")


class Ref:
    """A numpy optimizer: `rule(i, w, g, state, lr, t)` updates parameter i given its preprocessed gradient."""

    def __init__(self, rule, lr=0.1, wd=(0.0, 0.0), loss_scale=1.0, decay_in_rule=False):
        self.rule, self.lr, self.wd, self.ls, self.decay_in_rule = rule, lr, wd, loss_scale, decay_in_rule

    def run(self, steps=3):
        ws = [W.astype(np.float64), B.astype(np.float64)]
        grads = [GW, GB]
        states = [{}, {}]
        out = []
        for t in range(steps):
            lrs = self.lr(t) if callable(self.lr) else self.lr
            for i in range(2):
                g = grads[i][t].astype(np.float64)
                if not self.decay_in_rule:
                    g = g + self.wd[i] * self.ls * ws[i]
                    g = g / self.ls
                lr = lrs[i] if isinstance(lrs, (list, tuple)) else lrs
                ws[i] = self.rule(i, ws[i], g, states[i], f32(lr), t + 1)
            out.append([w.copy() for w in ws])
        return out


# ---------------------------------------------------------------- rules (MindSpore's primitives)
def momentum_rule(mom, nesterov=False):
    def rule(i, w, g, st, lr, t):
        a = st.get("a", 0.0) * f32(mom) + g
        st["a"] = a
        return w - (lr * g + lr * f32(mom) * a if nesterov else lr * a)
    return rule


def sgd_rule(mom, damp=0.0, nesterov=False):
    def rule(i, w, g, st, lr, t):
        if mom > 0:
            a = g if t == 1 else st["a"] * f32(mom) + (1 - damp) * g
            st["a"] = a
            g = g + f32(mom) * a if nesterov else a
        return w - lr * g
    return rule


def adam_rule(b1=0.9, b2=0.999, eps=1e-8, nesterov=False, amsgrad=False):
    def rule(i, w, g, st, lr, t):
        m = b1 * st.get("m", 0.0) + (1 - b1) * g
        v = b2 * st.get("v", 0.0) + (1 - b2) * g * g
        st["m"], st["v"] = m, v
        if amsgrad:
            v = st["vhat"] = np.maximum(st.get("vhat", 0.0), v)
        lr_t = lr * math.sqrt(1 - f32(b2) ** t) / (1 - f32(b1) ** t)
        num = b1 * m + (1 - b1) * g if nesterov else m
        return w - lr_t * num / (np.sqrt(v) + eps)
    return rule


def adamwd_rule(wds, b1=0.9, b2=0.999, eps=1e-6):
    def rule(i, w, g, st, lr, t):
        m = st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
        v = st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
        return w - lr * (m / (np.sqrt(v) + eps) + wds[i] * w)
    return rule


def lamb_rule(wds, b1=0.9, b2=0.999, eps=1e-6):
    def rule(i, w, g, st, lr, t):
        m = st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
        v = st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
        r = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps) + wds[i] * w
        wn, rn = np.linalg.norm(w), np.linalg.norm(r)
        ratio = wn / rn if wn > 0 and rn > 0 else 1.0
        return w - lr * ratio * r
    return rule


def adagrad_rule(accum=0.1, update_slots=True):
    def rule(i, w, g, st, lr, t):
        a = st.get("a", accum)
        if update_slots:
            a = a + g * g
        st["a"] = a
        return w - lr * g / np.sqrt(a)
    return rule


def adadelta_rule(rho=0.9, eps=1e-6):
    def rule(i, w, g, st, lr, t):
        a = st["a"] = rho * st.get("a", 0.0) + (1 - rho) * g * g
        u = np.sqrt(st.get("au", 0.0) + eps) / np.sqrt(a + eps) * g
        st["au"] = rho * st.get("au", 0.0) + (1 - rho) * u * u
        return w - lr * u
    return rule


def adamax_rule(b1=0.9, b2=0.999, eps=1e-8):
    def rule(i, w, g, st, lr, t):
        m = st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
        v = st["v"] = np.maximum(b2 * st.get("v", 0.0), np.abs(g))
        return w - lr / (1 - f32(b1) ** t) * m / (v + eps)
    return rule


def rmsprop_rule(decay=0.9, mom=0.0, eps=1e-10, centered=False):
    def rule(i, w, g, st, lr, t):
        ms_ = st["ms"] = decay * st.get("ms", 1.0) + (1 - decay) * g * g
        den = ms_ + eps
        if centered:
            mg = st["mg"] = decay * st.get("mg", 0.0) + (1 - decay) * g
            den = ms_ - mg * mg + eps
        m = st["mom"] = mom * st.get("mom", 0.0) + lr * g / np.sqrt(den)
        return w - m
    return rule


def ftrl_rule(lr_=0.1, l1=0.01, l2=0.02, lr_power=-0.5, accum=0.1):
    def rule(i, w, g, st, lr, t):
        n = st.get("n", accum)
        n2 = n + g * g
        z = st["z"] = st.get("z", 0.0) + g - (n2 ** -lr_power - n ** -lr_power) / lr_ * w
        st["n"] = n2
        quad = n2 ** -lr_power / lr_ + 2 * l2
        return np.where(np.abs(z) > l1, (np.sign(z) * l1 - z) / quad, 0.0)
    return rule


def proximal_rule(l1=0.01, l2=0.02, accum=0.1):
    def rule(i, w, g, st, lr, t):
        a = st["a"] = st.get("a", accum) + g * g
        rate = lr / np.sqrt(a)
        prox = w - rate * g
        return np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0) / (1 + rate * l2)
    return rule


def asgd_rule(lambd=0.01, alpha=0.75, t0=1.0):
    def rule(i, w, g, st, lr, t):
        eta = lr if t == 1 else st["eta"]
        mu = st.get("mu", 1.0)
        w = w * (1 - lambd * eta) - eta * g
        st["ax"] = w.copy() if mu == 1 else st["ax"] + (w - st["ax"]) * mu
        st["eta"] = lr / (1 + lambd * lr * t) ** alpha
        st["mu"] = 1 / max(1, t - t0)
        return w
    return rule


def rprop_rule(etas=(0.5, 1.2), sizes=(1e-6, 50.0)):
    def rule(i, w, g, st, lr, t):
        step = np.full_like(w, lr) if t == 1 else st["step"]
        prev = st.get("prev", np.zeros_like(w))
        s = np.sign(g * prev)
        factor = np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1.0))
        step = st["step"] = np.clip(step * factor, *sizes)
        g = np.where(s < 0, 0.0, g)
        st["prev"] = g
        return w - np.sign(g) * step
    return rule


# ---------------------------------------------------------------- update rules, three steps
CASES = [
    ("momentum", lambda p: nn.Momentum(p, 0.1, 0.9), Ref(momentum_rule(0.9))),
    ("momentum_nesterov_wd", lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=0.01, use_nesterov=True),
     Ref(momentum_rule(0.9, True), wd=(0.01, 0.0))),
    ("momentum_loss_scale", lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=0.01, loss_scale=4.0),
     Ref(momentum_rule(0.9), wd=(0.01, 0.0), loss_scale=4.0)),
    ("momentum_dynamic_list", lambda p: nn.Momentum(p, [0.1, 0.05, 0.02], 0.9),
     Ref(momentum_rule(0.9), lr=lambda t: [0.1, 0.05, 0.02][t])),
    ("momentum_schedule", lambda p: nn.Momentum(p, nn.InverseDecayLR(0.1, 0.5, 1), 0.9),
     Ref(momentum_rule(0.9), lr=lambda t: f32(0.1) / (1 + f32(0.5) * t))),
    ("momentum_groups", lambda p: nn.Momentum([{"params": [p[0]], "lr": 0.2, "weight_decay": 0.1},
                                               {"params": [p[1]], "weight_decay": 0.05}], 0.1, 0.9),
     Ref(momentum_rule(0.9), lr=(0.2, 0.1), wd=(0.1, 0.05))),
    ("momentum_groups_dynamic", lambda p: nn.Momentum([{"params": [p[0]], "lr": [0.3, 0.2, 0.1]},
                                                       {"params": [p[1]]}], 0.1, 0.9),
     Ref(momentum_rule(0.9), lr=lambda t: ([0.3, 0.2, 0.1][t], 0.1))),
    ("sgd", lambda p: nn.SGD(p, 0.1), Ref(sgd_rule(0.0))),
    ("sgd_momentum_dampening_wd", lambda p: nn.SGD(p, 0.1, momentum=0.9, dampening=0.1, weight_decay=0.01),
     Ref(sgd_rule(0.9, 0.1), wd=(0.01, 0.0))),
    ("sgd_nesterov", lambda p: nn.SGD(p, 0.1, momentum=0.9, nesterov=True), Ref(sgd_rule(0.9, 0.0, True))),
    ("adam", lambda p: nn.Adam(p, 0.01), Ref(adam_rule(), lr=0.01)),
    ("adam_nesterov_wd", lambda p: nn.Adam(p, 0.01, use_nesterov=True, weight_decay=0.1),
     Ref(adam_rule(nesterov=True), lr=0.01, wd=(0.1, 0.0))),
    ("adam_amsgrad", lambda p: nn.Adam(p, 0.01, use_amsgrad=True), Ref(adam_rule(amsgrad=True), lr=0.01)),
    ("adam_lazy", lambda p: nn.Adam(p, 0.01, use_lazy=True), Ref(adam_rule(), lr=0.01)),
    ("lazyadam", lambda p: nn.LazyAdam(p, 0.01, beta1=0.8), Ref(adam_rule(b1=0.8), lr=0.01)),
    ("adamoffload", lambda p: nn.AdamOffload(p, 0.01), Ref(adam_rule(), lr=0.01)),
    ("adamweightdecay", lambda p: nn.AdamWeightDecay(p, 0.01, weight_decay=0.1),
     Ref(adamwd_rule((0.1, 0.0)), lr=0.01, decay_in_rule=True)),
    ("adamweightdecay_groups", lambda p: nn.AdamWeightDecay([{"params": [p[0]], "weight_decay": 0.1},
                                                             {"params": [p[1]], "lr": 0.05, "weight_decay": 0.2}],
                                                            0.01),
     Ref(adamwd_rule((0.1, 0.2)), lr=(0.01, 0.05), decay_in_rule=True)),
    ("lamb", lambda p: nn.Lamb(p, 0.01, weight_decay=0.1), Ref(lamb_rule((0.1, 0.0)), lr=0.01, decay_in_rule=True)),
    ("adagrad", lambda p: nn.Adagrad(p, learning_rate=0.1, weight_decay=0.01), Ref(adagrad_rule(), wd=(0.01, 0.0))),
    ("adagrad_no_slots", lambda p: nn.Adagrad(p, learning_rate=0.1, update_slots=False),
     Ref(adagrad_rule(update_slots=False))),
    ("adadelta", lambda p: nn.Adadelta(p, learning_rate=1.0, weight_decay=0.01),
     Ref(adadelta_rule(), lr=1.0, wd=(0.01, 0.0))),
    ("adamax", lambda p: nn.AdaMax(p, learning_rate=0.01), Ref(adamax_rule(), lr=0.01)),
    ("rmsprop", lambda p: nn.RMSProp(p, learning_rate=0.01, momentum=0.5), Ref(rmsprop_rule(mom=0.5), lr=0.01)),
    ("rmsprop_centered", lambda p: nn.RMSProp(p, learning_rate=0.01, momentum=0.5, centered=True),
     Ref(rmsprop_rule(mom=0.5, centered=True), lr=0.01)),
    ("ftrl", lambda p: nn.FTRL(p, learning_rate=0.1, l1=0.01, l2=0.02), Ref(ftrl_rule())),
    ("proximal_adagrad", lambda p: nn.ProximalAdagrad(p, learning_rate=0.1, l1=0.01, l2=0.02),
     Ref(proximal_rule())),
    ("asgd", lambda p: nn.ASGD(p, learning_rate=0.1, lambd=0.01, t0=1.0), Ref(asgd_rule())),
    ("rprop", lambda p: nn.Rprop(p, learning_rate=0.1), Ref(rprop_rule())),
]


@pytest.mark.parametrize("build,ref", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_update_rule_three_steps(build, ref):
    p = _params()
    _check(_run(build(p), p), ref.run())


def test_ftrl_decays_every_parameter():
    # FTRL applies weight decay to all parameters, 'gamma' included
    p = _params()
    _check(_run(nn.FTRL(p, learning_rate=0.1, weight_decay=0.1), p), Ref(ftrl_rule(l1=0.0, l2=0.0),
                                                                       wd=(0.1, 0.1)).run())


def test_order_params_sets_the_gradient_order():
    p = _params()
    opt = nn.Momentum([{"params": [p[0]], "lr": 0.05}, {"params": [p[1]], "weight_decay": 0.2},
                       {"order_params": [p[1], p[0]]}], 0.1, 0.9)
    assert [q.name for q in opt.parameters] == ["gamma", "w"]
    _check(_run(opt, p), Ref(momentum_rule(0.9), lr=(0.05, 0.1), wd=(0.0, 0.2)).run())


def test_lars_scales_the_gradients_of_the_inner_optimizer():
    p = _params("w", "bias")
    opt = nn.LARS(nn.Momentum(p, 0.1, 0.9, weight_decay=0.01), epsilon=1e-5, coefficient=0.01)

    def lars(i, w, g, st, lr, t):
        if i == 1:  # 'bias' is filtered out of LARS and not decayed by the inner optimizer
            return momentum_rule(0.9)(i, w, g, st, lr, t)
        wd = 0.01
        coeff = 0.01 * np.linalg.norm(w) / (np.linalg.norm(g) + wd * np.linalg.norm(w) + 1e-5)
        return momentum_rule(0.9)(i, w, coeff * (g + wd * w), st, lr, t)

    _check(_run(opt, p), Ref(lars, decay_in_rule=True).run())


def test_lars_clip_divides_by_the_learning_rate():
    p = _params("w", "bias")
    opt = nn.LARS(nn.SGD(p, 0.5), coefficient=0.1, use_clip=True, lars_filter=lambda x: True)

    def lars(i, w, g, st, lr, t):
        coeff = 0.1 * np.linalg.norm(w) / (np.linalg.norm(g) + 1e-5)
        return w - lr * min(max(coeff / lr, 0.0), 1.0) * g

    _check(_run(opt, p), Ref(lars, lr=0.5, decay_in_rule=True).run())


def test_adafactor_vector_parameter_rule():
    w = ms.Parameter(ms.Tensor(B.copy()), name="v")
    opt = nn.AdaFactor([w], learning_rate=0.01, relative_step=False, scale_parameter=False, beta1=0.0)
    ref = B.astype(np.float64)
    sq = np.zeros_like(ref)
    for t in range(1, 4):
        g = GB[t - 1].astype(np.float64)
        opt((ms.Tensor(GB[t - 1]),))
        beta2t = 1 - t ** -0.8
        sq = sq * beta2t + (g * g + 1e-30) * (1 - beta2t)
        upd = g / np.sqrt(sq)
        upd = upd / max(np.sqrt(np.mean(upd ** 2)) / 1.0, 1.0) * 0.01
        ref = ref - upd
        np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_dynamic_weight_decay_cell():
    p = _params()
    opt = nn.Momentum(p, 0.1, 0.9, weight_decay=nn.WarmUpLR(0.02, 2))

    def rule(i, w, g, st, lr, t):
        wd = 0.02 * min(t - 1, 2) / 2 if i == 0 else 0.0
        return momentum_rule(0.9)(i, w, g + wd * w, st, lr, t)

    _check(_run(opt, p), Ref(rule).run())


def test_grad_centralization_only_for_flagged_group():
    w = ms.Parameter(ms.Tensor(np.tile(W, (1, 1))), name="w")
    b = ms.Parameter(ms.Tensor(B.copy()), name="b")
    opt = nn.SGD([{"params": [w], "grad_centralization": True}, {"params": [b]}], 0.1)
    g = GW[0]
    opt((ms.Tensor(g), ms.Tensor(GB[0])))
    np.testing.assert_allclose(w.asnumpy(), W - 0.1 * (g - g.mean(axis=1, keepdims=True)), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), B - 0.1 * GB[0], rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- state, names and API
STATE_NAMES = [
    (lambda p: nn.Momentum(p, 0.1, 0.9), {"global_step", "learning_rate", "momentum", "moments.w", "moments.gamma"}),
    (lambda p: nn.SGD(p), {"global_step", "learning_rate", "momentum", "accum.w", "accum.gamma", "stat.w",
                           "stat.gamma"}),
    (lambda p: nn.Adam(p, use_amsgrad=True), {"global_step", "learning_rate", "beta1_power", "beta2_power",
                                              "moment1.w", "moment1.gamma", "moment2.w", "moment2.gamma", "vhat.w",
                                              "vhat.gamma"}),
    (lambda p: nn.AdamWeightDecay(p), {"global_step", "learning_rate", "adam_m.w", "adam_m.gamma", "adam_v.w",
                                       "adam_v.gamma"}),
    (lambda p: nn.Lamb(p, 0.1), {"global_step", "learning_rate", "lamb_m.w", "lamb_m.gamma", "lamb_v.w",
                                 "lamb_v.gamma"}),
    (lambda p: nn.RMSProp(p, centered=True), {"global_step", "learning_rate", "mean_grad.w", "mean_grad.gamma",
                                              "mean_square.w", "mean_square.gamma", "moment.w", "moment.gamma"}),
    (lambda p: nn.ASGD(p), {"global_step", "learning_rate", "mu_w", "mu_gamma", "eta_w", "eta_gamma", "ax_.w",
                            "ax_.gamma"}),
    (lambda p: nn.FTRL(p), {"global_step", "learning_rate", "moments.w", "moments.gamma", "linear.w",
                            "linear.gamma"}),
]


@pytest.mark.parametrize("build,names", STATE_NAMES)
def test_state_parameters_named_as_mindspore(build, names):
    p = _params()
    opt = build(p)
    got = {q.name for _, q in opt.parameters_and_names()} - {"w", "gamma"}
    assert got == names
    assert opt.global_step.shape == (1,) and opt.global_step.dtype == ms.int32


def test_global_step_and_return_value():
    p = _params()
    opt = nn.Adam(p)
    out = opt((ms.Tensor(GW[0]), ms.Tensor(GB[0])))
    assert out == (True, True)
    assert int(opt.global_step.asnumpy()[0]) == 1
    assert float(opt.beta1_power.asnumpy()) == pytest.approx(0.9)


def test_get_lr_and_get_lr_parameter():
    p = _params()
    opt = nn.Momentum(p, 0.1, 0.9)
    assert opt.get_lr() is opt.learning_rate and opt.get_lr().name == "learning_rate"
    assert opt.get_lr_parameter(p[0]) is opt.learning_rate
    opt = nn.Momentum(p, [0.1, 0.2], 0.9)
    assert float(opt.get_lr()) == pytest.approx(0.1)
    opt((ms.Tensor(GW[0]), ms.Tensor(GB[0])))
    assert float(opt.get_lr()) == pytest.approx(0.2)
    assert opt.get_lr_parameter(p[0]).shape == (2,)
    opt = nn.Momentum([{"params": [p[0]], "lr": 0.05}, {"params": [p[1]]}], 0.1, 0.9)
    lrs = opt.get_lr_parameter([p[0], p[1]])
    assert [q.name for q in lrs] == ["learning_rate_group_0", "learning_rate"]
    assert [round(float(x), 6) for x in opt.get_lr()] == [0.05, 0.1]
    with pytest.raises(ValueError, match="is not in optimizer"):
        opt.get_lr_parameter(ms.Parameter(ms.Tensor(1.0), name="zz"))
    with pytest.raises(TypeError, match="must be 'Parameter' or 'list'"):
        opt.get_lr_parameter(1)


def test_dynamic_learning_rate_cell_gathers_in_the_steps_shape():
    """A list learning rate is a schedule Cell whose output is Gather's: shaped as the step index (MindSpore 2.10:
    the 1-element global_step gives a 1-element rate, which get_lr reshapes to a scalar)."""
    p = _params()
    opt = nn.SGD(p, [0.1, 0.2, 0.3])
    cases = [(ms.Tensor([2], ms.int32), (1,), [0.3]), (ms.Tensor(1, ms.int32), (), 0.2),
             (ms.Tensor([[0, 2]], ms.int32), (1, 2), [[0.1, 0.3]]), (opt.global_step, (1,), [0.1])]
    for step, shape, rates in cases:
        r = opt.learning_rate(step)
        assert r.shape == shape and r.dtype == ms.float32
        np.testing.assert_allclose(r.asnumpy(), np.array(rates, np.float32))
    assert opt.get_lr().shape == ()
    assert float(opt.learning_rate(opt.global_step)[0]) == pytest.approx(0.1)
    with pytest.raises(RuntimeError, match="should be in the range \\[0, 3\\), but got 3"):
        opt.learning_rate(ms.Tensor([3], ms.int32))
    with pytest.raises(TypeError, match="'input_indices' must be an integer Tensor"):
        opt.learning_rate(ms.Tensor([1.0], ms.float32))


def test_learning_rate_parameter_changes_take_effect():
    p = _params()
    opt = nn.SGD(p, 0.1)
    opt.learning_rate.set_data(ms.Tensor(0.0, ms.float32))
    opt((ms.Tensor(GW[0]), ms.Tensor(GB[0])))
    np.testing.assert_array_equal(p[0].asnumpy(), W)


def test_dynamic_list_past_its_end_raises():
    p = _params()
    opt = nn.SGD(p, [0.1, 0.01])
    _run(opt, p, steps=2)
    before = p[0].asnumpy().copy()
    with pytest.raises(RuntimeError, match="should be in the range \\[0, 2\\), but got 2"):
        _run(opt, p, steps=1)
    np.testing.assert_array_equal(p[0].asnumpy(), before)


def test_weight_decay_and_gradient_helpers():
    p = _params()
    opt = nn.Momentum(p, 0.1, 0.9, weight_decay=0.1, loss_scale=2.0)
    g = (ms.Tensor(GW[0]), ms.Tensor(GB[0]))
    decayed = opt.decay_weight(g)
    np.testing.assert_allclose(decayed[0].asnumpy(), GW[0] + 0.2 * W, rtol=1e-6)
    np.testing.assert_array_equal(decayed[1].asnumpy(), GB[0])
    np.testing.assert_allclose(opt.scale_grad(g)[0].asnumpy(), GW[0] / 2, rtol=1e-6)
    assert float(opt.get_weight_decay()) == pytest.approx(0.2)
    assert opt.need_scale and opt.exec_weight_decay and opt.decay_flags == (True, False)


def test_steps_leave_the_gradients_untouched():
    p = _params()
    g = ms.Tensor(GW[0].copy())
    nn.Adam(p, weight_decay=0.1, loss_scale=2.0)((g, ms.Tensor(GB[0])))
    np.testing.assert_array_equal(g.asnumpy(), GW[0])


def test_steps_are_not_recorded_by_autodiff():
    w = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    opt = nn.SGD([w], 0.1)

    def loss(x):
        out = (x * 3.0).sum()
        opt((x,))  # the gradient x flows into the update, which must stay off the tape
        return out

    grads = ms.grad(loss, grad_position=0)(ms.Tensor([1.0, 1.0]))
    np.testing.assert_allclose(grads.asnumpy(), [3.0, 3.0])
    np.testing.assert_allclose(w.asnumpy(), [0.9, 1.9], rtol=1e-6)


ERRORS = [
    (lambda p: nn.Momentum(p, -0.1, 0.9), ValueError,
     "For 'Momentum', the 'learning rate' must be float and must >= 0"),
    (lambda p: nn.Momentum(p, 0.1, -0.9), ValueError, "'momentum' must be at least 0.0"),
    (lambda p: nn.Momentum(p, 0.1, 1), TypeError, "For 'Momentum', the type of 'momentum' should be 'float'"),
    (lambda p: nn.Momentum([], 0.1, 0.9), ValueError, "must not be empty"),
    (lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=-1.0), ValueError, "'weight_decay' must be float and must >= 0"),
    (lambda p: nn.Momentum(p, 0.1, 0.9, loss_scale=0.0), ValueError, "'loss_scale' must be float and must > 0"),
    (lambda p: nn.Momentum(p, None, 0.9), TypeError, "'learning_rate' must be int, float, Tensor, Iterable"),
    (lambda p: nn.Adam(p, beta1=1.0), ValueError, "For 'Adam', the 'beta1' must be in range of \\(0.0, 1.0\\)"),
    (lambda p: nn.Adam(p, eps=0.0), ValueError, "For 'Adam', the 'eps' must be float and must > 0"),
    (lambda p: nn.Adam(p, foo=True), KeyError, "invalid keys"),
    (lambda p: nn.Momentum([{"params": p, "foo": 1}], 0.1, 0.9), KeyError, "the key in group params must be one of"),
    (lambda p: nn.Momentum([1], 0.1, 0.9), TypeError, "must be 'Parameter' or 'dict'"),
    (lambda p: nn.SGD(p, nesterov=True), ValueError, "if 'nesterov' is true, 'momentum' must be > 0.0"),
    (lambda p: nn.Momentum(p, ms.Tensor(np.ones((2, 2), np.float32)), 0.9), ValueError,
     "the dimension of it should be 0 or 1, but got 2"),
    (lambda p: nn.FTRL(p, learning_rate=[0.1, 0.2]), ValueError, "dynamic learning rate and group learning rate"),
    (lambda p: nn.Rprop(p, etas=(0.5, 0.9)), ValueError, "etaplus must be greater than 1.0"),
    (lambda p: nn.Momentum([{"params": [p[0]]}, {"params": [p[0]]}], 0.1, 0.9), RuntimeError, "already exists"),
    (lambda p: nn.SGD(p, weight_decay=nn.WarmUpLR(0.1, 2)), TypeError, "dynamic weight decay is currently not"),
]


@pytest.mark.parametrize("build,exc,msg", ERRORS)
def test_bad_arguments_raise(build, exc, msg):
    with pytest.raises(exc, match=msg):
        build(_params())


def test_wrong_number_of_gradients_raises():
    opt = nn.SGD(_params())
    with pytest.raises(ValueError, match="number of gradients 1 must equal the number of parameters 2"):
        opt((ms.Tensor(GW[0]),))


def test_float16_parameters_update_in_their_dtype():
    w = ms.Parameter(ms.Tensor(W.astype(np.float16)), name="w")
    nn.Momentum([w], 0.1, 0.9)((ms.Tensor(GW[0].astype(np.float16)),))
    assert w.dtype == ms.float16
    np.testing.assert_allclose(w.asnumpy().astype(np.float32), W - 0.1 * GW[0], rtol=2e-3, atol=2e-3)


def test_updates_stay_in_the_parameter():
    t = ms.Tensor(np.array([1.0, 2.0], np.float32))
    p1, p2 = ms.Parameter(t, name="a"), ms.Parameter(t, name="b")
    nn.SGD([p1], 0.1)((ms.Tensor([1.0, 1.0]),))
    np.testing.assert_allclose(p1.asnumpy(), [0.9, 1.9], rtol=1e-6)
    np.testing.assert_array_equal(p2.asnumpy(), [1.0, 2.0])
    np.testing.assert_array_equal(t.asnumpy(), [1.0, 2.0])


def test_user_optimizer_maps_with_the_reverse_maps_of_the_base_class():
    # MindSpore's Optimizer gives subclasses map_/hyper_map and their reverse-order twins map_reverse/hyper_map_reverse
    class Sgd(nn.Optimizer):
        def construct(self, gradients):
            lr = self.get_lr()
            return self.map_reverse(lambda p, g: ms.ops.assign(p, p - lr * g), self.parameters, gradients)

    w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    b = ms.Parameter(ms.Tensor(np.array([3.0], np.float32)), name="b")
    opt = Sgd(0.5, [w, b])
    opt((ms.Tensor(np.array([2.0, 4.0], np.float32)), ms.Tensor(np.array([1.0], np.float32))))
    np.testing.assert_allclose(w.asnumpy(), [0.0, 0.0])
    np.testing.assert_allclose(b.asnumpy(), [2.5])
    assert opt.hyper_map_reverse(lambda x: x + 1, ((1, 2), (3,))) == ((2, 3), (4,))


def test_a_list_learning_rate_past_its_last_step_is_gathers_runtime_error():
    """A dynamic learning rate of n values has no rate for step n: MindSpore's Gather kernel fails at launch
    (RuntimeError), in the step and in get_lr."""
    net = nn.Dense(2, 1)
    opt = nn.SGD(net.trainable_params(), learning_rate=[0.5, 0.25])
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    x, t = ms.Tensor(np.ones((1, 2), np.float32)), ms.Tensor(np.zeros((1, 1), np.float32))
    step(x, t)
    assert float(opt.get_lr().asnumpy()) == 0.25
    step(x, t)
    with pytest.raises(RuntimeError, match=r"For 'Gather', the 'input_indices' should be in the range \[0, 2\)"):
        opt.get_lr()
    with pytest.raises(RuntimeError, match="should be in the range"):
        step(x, t)


def test_an_iterable_learning_rate_goes_through_numpy_as_mindspore():
    params = nn.Dense(2, 1).trainable_params()
    opt = nn.SGD(params, learning_rate=(v for v in (0.5, 0.25)))
    assert opt.learning_rate.learning_rate.asnumpy().tolist() == [0.5, 0.25]
    with pytest.raises(ValueError, match="could not convert string to float"):
        nn.SGD(params, learning_rate="fast")
    with pytest.raises(TypeError, match="must be int, float, Tensor, Iterable or LearningRateSchedule"):
        nn.SGD(params, learning_rate=None)
