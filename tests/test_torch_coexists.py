"""mindseed keeps to itself: after importing and running it, torch code in the same process trains as it would
alone, with torch's grad and inference modes as the user set them (the only test that uses torch's autograd)."""
import numpy as np
import torch

import mindseed as ms
from mindseed import nn, ops


def _run_mindseed():
    """Ops, a gradient, optimizer steps (PyNative and compiled) and a compiled function; returns the losses."""
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    grad_fn = ms.value_and_grad(lambda x: (net(x) ** 2).mean(), None, opt.parameters)

    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 6)
    losses = [float(step(x).asnumpy()) for _ in range(2)]
    losses += [float(ms.jit(step)(x).asnumpy()) for _ in range(2)]
    y = ops.matmul(x, x.T).sum() + ms.grad(lambda t: (t * t).sum())(x).sum()
    return losses, float(y.asnumpy())


def _torch_grad():
    """d/dw of sum(tanh(a @ w) ** 2) by torch's autograd, and the same by hand in float64."""
    rng = np.random.default_rng(0)
    a, w0 = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    w = torch.tensor(w0, requires_grad=True)
    loss = (torch.tanh(torch.tensor(a) @ w) ** 2).sum()
    loss.backward()
    t = np.tanh(a @ w0)
    return w.grad.numpy(), a.T @ (2 * t * (1 - t * t))


def test_torch_autograd_works_after_mindseed_ran():
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    losses, _ = _run_mindseed()
    assert losses[1] < losses[0] and losses[3] < losses[2]
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    got, want = _torch_grad()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    with torch.enable_grad():
        got, _ = _torch_grad()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_torch_modes_stay_as_the_user_set_them():
    base, y = _run_mindseed()
    with torch.no_grad():
        assert _run_mindseed() == (base, y)
        assert not torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    assert torch.is_grad_enabled()
    with torch.inference_mode():
        assert _run_mindseed() == (base, y)
        assert torch.is_inference_mode_enabled()
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()


def test_mindseed_values_do_not_depend_on_torch_grad_mode():
    # a mindseed tensor never requires grad in torch's sense, so torch's grad mode records nothing for it
    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    with torch.enable_grad():
        g = ms.grad(lambda t: (ops.sin(t) * t).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), np.cos([1.0, 2.0, 3.0]) * [1, 2, 3] + np.sin([1.0, 2.0, 3.0]),
                               rtol=1e-6)
