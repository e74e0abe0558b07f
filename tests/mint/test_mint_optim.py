"""mint.optim: each optimizer's steps against a numpy transcription of PyTorch's update rule."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import mint

W0 = np.array([0.5, -1.0, 2.0], np.float32)
GRADS = [np.array([0.1, -0.2, 0.3], np.float32), np.array([-0.4, 0.1, 0.2], np.float32),
         np.array([0.3, 0.3, -0.1], np.float32)]


def _adam_ref(lr, betas, eps, wd, amsgrad, decoupled, maximize=False):
    w = W0.astype(np.float64)
    m = v = vmax = np.zeros(3)
    b1, b2 = betas
    for t, g in enumerate(GRADS, 1):
        g = -g if maximize else g.astype(np.float64)
        if decoupled:
            w = w * (1 - lr * wd)
        else:
            g = g + wd * w
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        denom = np.sqrt(vmax if amsgrad else v) / np.sqrt(1 - b2 ** t) + eps
        w = w - lr / (1 - b1 ** t) * m / denom
    return w


def _sgd_ref(lr, momentum, dampening, wd, nesterov, maximize=False):
    w = W0.astype(np.float64)
    buf = None
    for g in GRADS:
        g = (-g if maximize else g).astype(np.float64) + wd * w
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        w = w - lr * g
    return w


def _run(opt_cls, **kwargs):
    w = ms.Parameter(ms.Tensor(W0.copy()), name="w")
    opt = opt_cls([w], **kwargs)
    for g in GRADS:
        opt((ms.Tensor(g),))
    return w.asnumpy()


@pytest.mark.parametrize("name, kwargs, ref", [
    ("Adam", {}, lambda: _adam_ref(1e-3, (0.9, 0.999), 1e-8, 0.0, False, False)),
    ("Adam", {"lr": 0.1, "weight_decay": 0.1, "amsgrad": True},
     lambda: _adam_ref(0.1, (0.9, 0.999), 1e-8, 0.1, True, False)),
    ("AdamW", {"lr": 0.1}, lambda: _adam_ref(0.1, (0.9, 0.999), 1e-8, 0.01, False, True)),
    ("AdamW", {"lr": 0.05, "betas": (0.8, 0.99), "weight_decay": 0.5, "maximize": True},
     lambda: _adam_ref(0.05, (0.8, 0.99), 1e-8, 0.5, False, True, maximize=True)),
    ("FusedAdamW", {"lr": 0.1, "amsgrad": True}, lambda: _adam_ref(0.1, (0.9, 0.999), 1e-8, 0.01, True, True)),
    ("SGD", {"lr": 0.1}, lambda: _sgd_ref(0.1, 0, 0, 0, False)),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01},
     lambda: _sgd_ref(0.1, 0.9, 0.1, 0.01, False)),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}, lambda: _sgd_ref(0.1, 0.9, 0, 0, True)),
])
def test_steps_match_the_update_rule(name, kwargs, ref):
    np.testing.assert_allclose(_run(getattr(mint.optim, name), **kwargs), ref(), rtol=1e-5, atol=1e-6)


def test_classes_live_in_their_modules_with_torch_defaults():
    import inspect
    from mindseed.mint.optim import adam, adamw, fused_adamw, sgd
    assert mint.optim.Adam is adam.Adam and mint.optim.AdamW is adamw.AdamW
    assert mint.optim.FusedAdamW is fused_adamw.FusedAdamW and mint.optim.SGD is sgd.SGD
    assert mint.optim.Adam.__module__ == "mindseed.mint.optim.adam"
    assert issubclass(mint.optim.FusedAdamW, mint.optim.AdamW)
    defaults = {k: p.default for k, p in inspect.signature(mint.optim.AdamW).parameters.items()}
    assert defaults["lr"] == 1e-3 and defaults["weight_decay"] == 1e-2 and defaults["betas"] == (0.9, 0.999)
    assert inspect.signature(mint.optim.Adam).parameters["weight_decay"].default == 0.0


def test_parameter_groups_have_their_own_learning_rate():
    a = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="a")
    b = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="b")
    opt = mint.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    opt((ms.Tensor(np.ones(2, np.float32)), ms.Tensor(np.ones(2, np.float32))))
    np.testing.assert_allclose(a.asnumpy(), 0.9)
    np.testing.assert_allclose(b.asnumpy(), 0.5)


@pytest.mark.parametrize("call, match", [
    (lambda w: mint.optim.Adam([w], lr=-1.0), "Invalid learning rate"),
    (lambda w: mint.optim.AdamW([w], betas=(1.5, 0.9)), "beta"),
    (lambda w: mint.optim.SGD([w], lr=0.1, momentum=-0.5), "momentum"),
    (lambda w: mint.optim.SGD([w], lr=0.1, nesterov=True), "nesterov"),
])
def test_bad_hyper_parameters(call, match):
    w = ms.Parameter(ms.Tensor(W0.copy()), name="w")
    with pytest.raises(ValueError, match=match):
        call(w)
