"""Optimizers are built on the optimizer primitives (ops/_prims/optim.py), the ones the class API calls.

* Layering: no module of nn/optim or experimental/optim reaches the backend (imports `_backend` or reads
  `Tensor._data`); the update math lives in the primitives' kernels only.
* Each optimizer's step equals the update of its primitive on the same inputs: the class-API primitive
  (`ops.ApplyMomentum`, `ops.Adam`, ...) where MindSpore has one, the registered primitive otherwise, run
  by hand on copies of the parameters and state, with the hyper-parameters the optimizer holds.
"""
import ast
import math
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from mindseed.experimental import optim
from mindseed.nn.optim._base import OptimizerBase
from mindseed.ops._prims import optim as P
from mindseed.ops._registry import registry

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "mindseed")
RNG = np.random.RandomState(7)
W0 = RNG.randn(4, 16).astype(np.float32)
B0 = RNG.randn(16).astype(np.float32)
GRADS = [(RNG.randn(4, 16).astype(np.float32), RNG.randn(16).astype(np.float32)) for _ in range(3)]
STEPS = len(GRADS)


def _sources(*packages):
    for pkg in packages:
        for dirpath, _, files in os.walk(os.path.join(ROOT, *pkg.split("/"))):
            for f in sorted(files):
                if f.endswith(".py"):
                    yield os.path.relpath(os.path.join(dirpath, f), ROOT), os.path.join(dirpath, f)


def test_optimizers_do_not_reach_the_backend():
    bad = []
    for rel, path in _sources("nn/optim", "experimental/optim"):
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            if any("_backend" in n.split(".") for n in names):
                bad.append(f"{rel}:{node.lineno} imports the backend")
            if isinstance(node, ast.Attribute) and node.attr == "_data":
                bad.append(f"{rel}:{node.lineno} reads ._data")
    assert not bad, "\n".join(bad)


def test_one_base_class_and_state_updates_are_primitives():
    assert issubclass(nn.Optimizer, OptimizerBase) and issubclass(optim.Optimizer, OptimizerBase)
    assert not issubclass(optim.Optimizer, nn.Optimizer)     # as in MindSpore: two public APIs, one base
    for name in ("ApplyMomentum", "SGD", "Adam", "ApplyAdamWithAmsgradV2", "AdamWeightDecay", "ApplyAdagrad",
                 "ApplyAdagradV2", "ApplyAdadelta", "ApplyAdaMax", "ApplyRMSProp", "ApplyCenteredRMSProp",
                 "ApplyProximalAdagrad", "ApplyFtrl", "ApplyGradientDescent", "Lamb", "ASGD", "Rprop", "AdaFactor",
                 "AdamW", "Adamax", "RMSprop", "NAdam", "RAdam"):
        prim = registry[name]
        assert isinstance(prim, P.OptimPrim) and prim.side_effect, name
    assert not registry["LARSUpdate"].side_effect and registry["LARSUpdate"].fresh


# ---------------------------------------------------------------- step == primitive update
def _params():
    return [ms.Parameter(ms.Tensor(W0.copy()), name="w"), ms.Parameter(ms.Tensor(B0.copy()), name="gamma")]


def _state(init, name):
    """Reference state tensors, one per parameter, filled with `init` (0-d ones for a name starting with '_')."""
    return [ms.Parameter(ms.Tensor(np.full(() if name.startswith("_") else s, init, np.float32)), name=f"{name}{i}")
            for i, s in enumerate((W0.shape, B0.shape))]


def _f32(x):
    return float(np.float32(x))


class Ref:
    """The reference run: copies of the parameters and the state, updated by calling primitives directly."""

    def __init__(self, **state):
        self.w = _params()
        self.s = {k: _state(v, k) for k, v in state.items()}

    def each(self, fn, grads):
        for i, g in enumerate(grads):
            fn(self.w[i], {k: v[i] for k, v in self.s.items()}, ms.Tensor(g), i)


def _nn_cases():
    lr32 = ms.Tensor(0.1, ms.float32)
    cases = {}

    def momentum(nesterov):
        def run(opt, ref, grads, step):
            ref.each(lambda w, s, g, i: ops.ApplyMomentum(use_nesterov=nesterov)(w, s["m"], lr32, g, opt.momentum),
                     grads)
        return (lambda p: nn.Momentum(p, 0.1, 0.9, use_nesterov=nesterov)), (lambda: Ref(m=0.0)), run
    cases["Momentum"] = momentum(False)
    cases["Momentum-nesterov"] = momentum(True)

    def sgd(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: ops.SGD(dampening=0.1)(w, g, lr32, s["a"], opt.momentum, s["st"]), grads)
    cases["SGD"] = (lambda p: nn.SGD(p, 0.1, momentum=0.9, dampening=0.1)), (lambda: Ref(a=0.0, st=1.0)), sgd

    def adam(prim_of, amsgrad=False):
        def run(opt, ref, grads, step):
            def one(w, s, g, i):
                if amsgrad:
                    ops.ApplyAdamWithAmsgradV2()(w, s["m"], s["v"], s["vh"], opt.beta1_power, opt.beta2_power,
                                                 ms.Tensor(0.01, ms.float32), opt.beta1, opt.beta2, opt.eps, g)
                else:
                    ops.Adam()(w, s["m"], s["v"], opt.beta1_power, opt.beta2_power, ms.Tensor(0.01, ms.float32),
                               opt.beta1, opt.beta2, opt.eps, g)
            ref.each(one, grads)
        return (lambda p: prim_of(p)), (lambda: Ref(m=0.0, v=0.0, vh=0.0)), run
    cases["Adam"] = adam(lambda p: nn.Adam(p, 0.01))
    cases["Adam-amsgrad"] = adam(lambda p: nn.Adam(p, 0.01, use_amsgrad=True), amsgrad=True)
    cases["LazyAdam"] = adam(lambda p: nn.LazyAdam(p, 0.01))
    cases["AdamOffload"] = adam(lambda p: nn.AdamOffload(p, 0.01))

    def adamwd(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: ops.AdamWeightDecay()(w, s["m"], s["v"], ms.Tensor(0.01, ms.float32), opt.beta1,
                                                          opt.beta2, opt.eps, 0.1 if i == 0 else 0.0, g), grads)
    cases["AdamWeightDecay"] = (lambda p: nn.AdamWeightDecay(p, 0.01, weight_decay=0.1)), \
        (lambda: Ref(m=0.0, v=0.0)), adamwd

    def adagrad(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: ops.ApplyAdagrad()(w, s["a"], lr32, g), grads)
    cases["Adagrad"] = (lambda p: nn.Adagrad(p, accum=0.1, learning_rate=0.1)), (lambda: Ref(a=0.1)), adagrad

    def adadelta(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: ops.ApplyAdadelta()(w, s["a"], s["u"], ms.Tensor(1.0, ms.float32), opt.rho,
                                                        opt.epsilon, g), grads)
    cases["Adadelta"] = (lambda p: nn.Adadelta(p)), (lambda: Ref(a=0.0, u=0.0)), adadelta

    def adamax(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: ops.ApplyAdaMax()(w, s["m"], s["v"], opt.beta1_power, ms.Tensor(0.01, ms.float32),
                                                      opt.beta1, opt.beta2, opt.eps, g), grads)
    cases["AdaMax"] = (lambda p: nn.AdaMax(p, learning_rate=0.01)), (lambda: Ref(m=0.0, v=0.0)), adamax

    def rmsprop(centered):
        def run(opt, ref, grads, step):
            lr = ms.Tensor(0.01, ms.float32)
            if centered:
                ref.each(lambda w, s, g, i: ops.ApplyCenteredRMSProp()(w, s["mg"], s["ms"], s["mom"], g, lr, opt.decay,
                                                                       opt.momentum, opt.epsilon), grads)
            else:
                ref.each(lambda w, s, g, i: ops.ApplyRMSProp()(w, s["ms"], s["mom"], lr, g, opt.decay, opt.momentum,
                                                               opt.epsilon), grads)
        return (lambda p: nn.RMSProp(p, learning_rate=0.01, momentum=0.5, centered=centered)), \
            (lambda: Ref(mg=0.0, ms=1.0, mom=0.0)), run
    cases["RMSProp"] = rmsprop(False)
    cases["RMSProp-centered"] = rmsprop(True)

    def proximal(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: ops.ApplyProximalAdagrad()(w, s["a"], lr32, opt.l1, opt.l2, g), grads)
    cases["ProximalAdagrad"] = (lambda p: nn.ProximalAdagrad(p, learning_rate=0.1, l1=0.01, l2=0.02)), \
        (lambda: Ref(a=0.1)), proximal

    def ftrl(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: ops.ApplyFtrl()(w, s["a"], s["lin"], g, lr32, opt.l1, opt.l2, opt.lr_power),
                 grads)
    cases["FTRL"] = (lambda p: nn.FTRL(p, learning_rate=0.1, l1=0.01, l2=0.02)), (lambda: Ref(a=0.1, lin=0.0)), ftrl

    def lars(opt, ref, grads, step):
        def one(w, s, g, i):
            norms = ops.SquareSumAll()(w, g)
            wd = 0.01 if i == 0 else 0.0        # 'gamma' is not decayed
            g2 = ops.LARSUpdate(epsilon=opt.epsilon, hyperpara=opt.coefficient)(w, g, norms[0], norms[1], wd, 0.0)
            ops.ApplyMomentum()(w, s["m"], lr32, g2, opt.opt.momentum)
        ref.each(one, grads)
    cases["LARS"] = (lambda p: nn.LARS(nn.Momentum(p, 0.1, 0.9, weight_decay=0.01), lars_filter=lambda x: True)), \
        (lambda: Ref(m=0.0)), lars

    # rules MindSpore writes as composites: the registered primitive of the same name
    def lamb(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: P.lamb_p(w, s["m"], s["v"], g, ms.Tensor(0.01, ms.float32), opt.beta1, opt.beta2,
                                             opt.eps, 0.1 if i == 0 else 0.0, step + 1), grads)
    cases["Lamb"] = (lambda p: nn.Lamb(p, 0.01, weight_decay=0.1)), (lambda: Ref(m=0.0, v=0.0)), lamb

    def asgd(opt, ref, grads, step):
        def one(w, s, g, i):
            if step == 0:
                P.assign_value_p(s["_eta"], _f32(0.1))
            P.asgd_p(w, g, s["ax"], s["_eta"], s["_mu"], 0.01)
            P.assign_value_p(s["_eta"], _f32(0.1) / (1. + 0.01 * _f32(0.1) * (step + 1)) ** 0.75)
            P.assign_value_p(s["_mu"], 1. / max(1., step + 1 - 1.0))
        ref.each(one, grads)
    cases["ASGD"] = (lambda p: nn.ASGD(p, learning_rate=0.1, lambd=0.01, t0=1.0)), \
        (lambda: Ref(ax=0.0, _eta=0.0, _mu=1.0)), asgd

    def rprop(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: P.rprop_p(w, g, s["prev"], s["size"], _f32(0.1), step == 0, 0.5, 1.2, 1e-6, 50.),
                 grads)
    cases["Rprop"] = (lambda p: nn.Rprop(p, learning_rate=0.1)), (lambda: Ref(prev=0.0, size=0.0)), rprop
    return cases


NN_CASES = _nn_cases()


@pytest.mark.parametrize("name", sorted(NN_CASES))
def test_nn_optimizer_step_is_its_primitive(name):
    build, make_ref, run = NN_CASES[name]
    p = _params()
    opt = build(p)
    ref = make_ref()
    for step, grads in enumerate(GRADS):
        opt(tuple(ms.Tensor(g) for g in grads))
        run(opt, ref, grads, step)
        for mine, theirs in zip(p, ref.w):
            np.testing.assert_array_equal(mine.asnumpy(), theirs.asnumpy(), err_msg=f"{name} step {step}")


def test_adafactor_step_is_its_primitive():
    p = _params()
    opt = nn.AdaFactor(p, learning_rate=0.01, relative_step=False, scale_parameter=False, weight_decay=0.1)
    w = _params()
    exp_avg = _state(0.0, "m")
    def zeros(*sizes):
        return [ms.Parameter(ms.Tensor(np.zeros(n, np.float32)), f"s{n}_{i}") for i, n in enumerate(sizes)]
    rows, cols, full = zeros(4, 1), zeros(16, 1), zeros(1, 16)     # factored for the matrix, full for the vector
    for step, grads in enumerate(GRADS):
        opt(tuple(ms.Tensor(g) for g in grads))
        beta2t = 1.0 - (step + 1.0) ** -0.8
        for i, g in enumerate(grads):
            P.adafactor_p(w[i], ms.Tensor(g), exp_avg[i], rows[i], cols[i], full[i], _f32(0.01), 1e-30, 1e-3, 1.0,
                          _f32(0.9), beta2t, 0.1, scale_parameter=False, use_first_moment=True)
        for mine, theirs in zip(p, w):
            np.testing.assert_array_equal(mine.asnumpy(), theirs.asnumpy())


# ---------------------------------------------------------------- experimental.optim
def _exp_cases():
    cases = {}

    def sgd(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: ops.SGD(dampening=0.1, weight_decay=0.01)(w, g, _f32(0.1), s["a"], 0.9, s["st"]),
                 grads)
    cases["SGD"] = (lambda p: optim.SGD(p, 0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)), \
        (lambda: Ref(a=0.0, st=1.0)), sgd

    def adam(opt, ref, grads, step):
        t = step + 1
        ref.each(lambda w, s, g, i: ops.Adam()(w, s["m"], s["v"], _f32(0.9) ** t, _f32(0.999) ** t, _f32(0.01), 0.9,
                                               0.999, 1e-8, g), grads)
    cases["Adam"] = (lambda p: optim.Adam(p, 0.01)), (lambda: Ref(m=0.0, v=0.0)), adam

    def adadelta(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: ops.ApplyAdadelta()(w, s["a"], s["u"], _f32(1.0), 0.9, 1e-6, g), grads)
    cases["Adadelta"] = (lambda p: optim.Adadelta(p)), (lambda: Ref(a=0.0, u=0.0)), adadelta

    def adagrad(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: ops.ApplyAdagradV2(1e-10)(w, s["a"], _f32(0.1), g), grads)
    cases["Adagrad"] = (lambda p: optim.Adagrad(p, lr=0.1, initial_accumulator_value=0.1)), \
        (lambda: Ref(a=0.1)), adagrad

    def adamw(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: P.adamw_p(w, s["m"], s["v"], s["vm"], g, step + 1, _f32(0.01), 0.9, 0.999, 0.1,
                                              1e-8, amsgrad=True), grads)
    cases["AdamW"] = (lambda p: optim.AdamW(p, 0.01, weight_decay=0.1, amsgrad=True)), \
        (lambda: Ref(m=0.0, v=0.0, vm=0.0)), adamw

    def adamax(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: P.adamax_p(w, s["m"], s["u"], g, step + 1, _f32(0.01), 0.9, 0.999, 1e-8), grads)
    cases["Adamax"] = (lambda p: optim.Adamax(p, lr=0.01)), (lambda: Ref(m=0.0, u=0.0)), adamax

    def rmsprop(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: P.rmsprop_p(w, s["ms"], s["mg"], s["mom"], g, _f32(0.01), 0.99, 1e-8, 0.5,
                                                centered=True), grads)
    cases["RMSprop"] = (lambda p: optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True)), \
        (lambda: Ref(ms=0.0, mg=0.0, mom=0.0)), rmsprop

    def nadam(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: P.nadam_p(w, s["m"], s["v"], s["_mu"], g, step + 1, _f32(0.01), 0.9, 0.999, 1e-8,
                                              4e-3), grads)
    cases["NAdam"] = (lambda p: optim.NAdam(p, lr=0.01)), (lambda: Ref(m=0.0, v=0.0, _mu=1.0)), nadam

    def radam(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: P.radam_p(w, s["m"], s["v"], g, step + 1, _f32(0.01), 0.9, 0.999, 1e-8), grads)
    cases["RAdam"] = (lambda p: optim.RAdam(p, lr=0.01)), (lambda: Ref(m=0.0, v=0.0)), radam

    def rprop(opt, ref, grads, step):
        ref.each(lambda w, s, g, i: P.rprop_p(w, g, s["prev"], s["size"], _f32(0.01), step == 0, _f32(0.5),
                                              _f32(1.2), 1e-6, 50), grads)
    cases["Rprop"] = (lambda p: optim.Rprop(p, lr=0.01)), (lambda: Ref(prev=0.0, size=0.0)), rprop

    def asgd(opt, ref, grads, step):
        def one(w, s, g, i):
            if step == 0:
                P.assign_value_p(s["_eta"], _f32(0.1))
            P.asgd_p(w, g, s["ax"], s["_eta"], s["_mu"], 0.01)
            P.assign_value_p(s["_eta"], _f32(0.1) / (1. + 0.01 * _f32(0.1) * (step + 1)) ** 0.75)
            P.assign_value_p(s["_mu"], 1. / max(1., step + 1 - 1.0))
        ref.each(one, grads)
    cases["ASGD"] = (lambda p: optim.ASGD(p, lr=0.1, lambd=0.01, t0=1.0)), \
        (lambda: Ref(ax=0.0, _eta=0.0, _mu=1.0)), asgd
    return cases


EXP_CASES = _exp_cases()


@pytest.mark.parametrize("name", sorted(EXP_CASES))
def test_experimental_optimizer_step_is_its_primitive(name):
    build, make_ref, run = EXP_CASES[name]
    p = _params()
    opt = build(p)
    ref = make_ref()
    for step, grads in enumerate(GRADS):
        assert opt(tuple(ms.Tensor(g) for g in grads)) is True
        run(opt, ref, grads, step)
        for mine, theirs in zip(p, ref.w):
            np.testing.assert_array_equal(mine.asnumpy(), theirs.asnumpy(), err_msg=f"{name} step {step}")


def test_every_public_optimizer_has_a_primitive_case():
    # thor: a function that builds ThorGpu, whose step ends in ApplyMomentum (its numbers: tests/nn/test_thor.py)
    # OptTFTWrapper: a wrapper around another optimizer's step (its numbers: tests/train/test_fault_flops.py)
    # AdaSumBy*WrapCell: wrappers of a data-parallel optimizer step (tests/parallel/test_shard_api.py)
    nn_names = {n.split("-")[0] for n in NN_CASES} | {"AdaFactor", "thor", "OptTFTWrapper", "AdaSumByGradWrapCell",
                                                      "AdaSumByDeltaWeightWrapCell"}
    assert set(nn.optim.__all__) - {"Optimizer"} == nn_names
    assert set(optim.__all__) - {"Optimizer"} == set(EXP_CASES)


# ---------------------------------------------------------------- the primitives themselves
def test_optim_prim_updates_a_list_in_one_call_and_matches_numpy():
    ws = _params()
    ms_ = [ms.Parameter(ms.Tensor(np.zeros_like(a)), name=f"m{i}") for i, a in enumerate((W0, B0))]
    g = [ms.Tensor(GRADS[0][0]), ms.Tensor(GRADS[0][1])]
    out = P.apply_momentum_p(ws, ms_, 0.1, g, 0.9)
    assert out is ws
    for w, w0, gg in zip(ws, (W0, B0), GRADS[0]):
        np.testing.assert_allclose(w.asnumpy(), w0.astype(np.float64) - 0.1 * gg, rtol=1e-6)
    dec = P.apply_decay_p(g, ws, 0.5)
    for d, gg, w in zip(dec, GRADS[0], ws):
        np.testing.assert_allclose(d.asnumpy(), gg + 0.5 * w.asnumpy(), rtol=1e-6)
    c = P.grad_centralization_p(g[0]).asnumpy()
    np.testing.assert_allclose(c, GRADS[0][0] - GRADS[0][0].mean(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_optim_prim_error_names_the_primitive():
    w, a = _params(), [ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="bad")]
    with pytest.raises(ValueError, match=r"For 'ApplyMomentum', the inputs \(\[\(4, 16\) Float32"):
        P.apply_momentum_p(w[:1], a, 0.1, [ms.Tensor(GRADS[0][0])], 0.9)


def test_class_api_primitive_in_graph_mode_updates_at_every_call():
    w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    acc = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="acc")
    prim = ops.ApplyMomentum()

    @ms.jit
    def step(g):
        prim(w, acc, 0.5, g, 0.9)
        return w * 1.0

    ref_w, ref_a = np.array([1.0, 2.0]), np.zeros(2)
    for _ in range(3):
        out = step(ms.Tensor(np.array([1.0, -1.0], np.float32)))
        ref_a = 0.9 * ref_a + np.array([1.0, -1.0])
        ref_w = ref_w - 0.5 * ref_a
        np.testing.assert_allclose(out.asnumpy(), ref_w, rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-6)


def test_lars_update_in_graph_mode_is_computed_at_every_call():
    upd = ops.LARSUpdate()

    @ms.jit
    def f(wt, g):
        return upd(wt, g, (wt * wt).sum(), (g * g).sum(), 0.0, 0.1)

    for scale in (1.0, 3.0):
        wt, g = np.array([3.0, 4.0], np.float32), np.array([0.6, 0.8], np.float32) * scale
        out = f(ms.Tensor(wt), ms.Tensor(g)).asnumpy()
        coeff = 0.001 * 5.0 / (math.sqrt((g * g).sum()) + 1e-5)
        np.testing.assert_allclose(out, g * coeff, rtol=1e-5)
