"""Tensor gradient hooks and saved-tensor hooks on the PyNative tape, against closed forms."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import ops
from mindseed._utils import _state


def test_register_hook_scales_an_intermediate_gradient():
    def f(x, y):
        z = x * y
        z.register_hook(lambda g: g * 2)
        return z * y
    dx, dy = ms.grad(f, grad_position=(0, 1))(ms.Tensor(1.0), ms.Tensor(2.0))
    # d(x y^2): dz = y, hooked to 2y; dx = 2y*y = 8, dy = 2y*x + z = 4 + 2 = 6 (the direct use of y is not hooked)
    assert dx.asnumpy() == 8.0 and dy.asnumpy() == 6.0


def test_hook_sees_the_complete_gradient_of_a_tensor_used_twice():
    seen = []

    def f(x):
        z = ops.exp(x)
        z.register_hook(lambda g: seen.append(g.asnumpy().copy()))
        return (z * z).sum() + (3 * z).sum()
    x = np.array([0.5, -1.0], np.float32)
    g = ms.grad(f)(ms.Tensor(x))
    z = np.exp(x)
    np.testing.assert_allclose(seen[0], 2 * z + 3, rtol=1e-6)     # one call, with both uses summed
    np.testing.assert_allclose(g.asnumpy(), (2 * z + 3) * z, rtol=1e-6)


def test_hooks_on_inputs_and_parameters_chain_in_order_and_remove():
    w = ms.Parameter(ms.Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    h1 = w.register_hook(lambda g: g + 1)
    h2 = w.register_hook(lambda g: g * 10)
    assert list(w.hooks().values())[0] is not None and len(w.hooks()) == 2

    def loss(x):
        return (w * x).sum()
    x = ms.Tensor(np.array([3.0, 4.0], np.float32))
    grad_fn = ms.grad(loss, grad_position=None, weights=[w])
    np.testing.assert_allclose(grad_fn(x)[0].asnumpy(), (np.array([3.0, 4.0]) + 1) * 10)
    h1.remove()
    np.testing.assert_allclose(grad_fn(x)[0].asnumpy(), np.array([30.0, 40.0]))
    ms.Tensor.remove_hook(h2.handle_id)
    assert len(w.hooks()) == 0
    np.testing.assert_allclose(grad_fn(x)[0].asnumpy(), np.array([3.0, 4.0]))


def test_hook_on_multi_output_and_bad_hooks():
    def f(x):
        a, b = ops.split(x, 2)
        b.register_hook(lambda g: -g)
        return (a * 2).sum() + (b * 5).sum()
    g = ms.grad(f)(ms.Tensor(np.ones(4, np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [2, 2, -5, -5])
    with pytest.raises(TypeError, match="register_hook"):
        ms.Tensor(1.0).register_hook(3)

    def bad(x):
        z = x * 1
        z.register_hook(lambda g: "no")
        return z
    with pytest.raises(TypeError, match="must return a Tensor"):
        ms.grad(bad)(ms.Tensor(1.0))


def test_hook_entries_go_with_their_tensor():
    t = ms.Tensor(1.0)
    t.register_hook(lambda g: g)
    assert id(t) in _state.tensor_grad_hooks
    key = id(t)
    del t
    assert key not in _state.tensor_grad_hooks


def test_saved_tensors_hooks_pack_forward_unpack_backward():
    log = []

    def pack(t):
        log.append(("pack", float(t.asnumpy()[0])))
        return t + 1

    def unpack(t):
        log.append(("unpack", float(t.asnumpy()[0])))
        return t

    def f(x, y):
        with ms.saved_tensors_hooks(pack, unpack):
            out = x * y
        log.append("forward end")
        return out
    x, y = ops.ones(2, dtype=ms.float32), ops.ones(2, dtype=ms.float32)
    out, (dx, dy) = ms.value_and_grad(f, grad_position=(0, 1))(x, y)
    assert log == [("pack", 1.0), ("pack", 1.0), "forward end", ("unpack", 2.0), ("unpack", 2.0)]
    np.testing.assert_allclose(out.asnumpy(), [1, 1])
    # Mul's bprop computes with the unpacked (x + 1, y + 1)
    np.testing.assert_allclose(dx.asnumpy(), [2, 2])
    np.testing.assert_allclose(dy.asnumpy(), [2, 2])
    assert _state.saved_tensors_hooks == []


def test_register_saved_tensors_hooks_decorator_and_identity_hooks():
    @ms.register_saved_tensors_hooks(lambda t: t * 3, lambda t: t / 3)
    def f(x):
        return (ops.sin(x) * x).sum()
    x = np.array([0.3, 1.2], np.float32)
    g = ms.grad(f)(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), np.cos(x) * x + np.sin(x), rtol=1e-5)
    with pytest.raises(TypeError, match="pack_hook"):
        ms.saved_tensors_hooks(None, lambda t: t)


def test_hook_on_a_differentiated_input_runs_on_its_gradient():
    # MindSpore 2.10: a hook registered on the input passed to grad sees its complete gradient and replaces it
    seen = []
    x = ms.Tensor(np.array([1.0, -2.0, 3.0], np.float32))

    def hook(g):
        seen.append(g.asnumpy().tolist())
        return g * 2

    handle = x.register_hook(hook)
    g = ms.grad(lambda a: (a * a).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [4.0, -8.0, 12.0])
    assert seen == [[2.0, -4.0, 6.0]]
    handle.remove()
    np.testing.assert_allclose(ms.grad(lambda a: (a * a).sum())(x).asnumpy(), [2.0, -4.0, 6.0])
    assert len(seen) == 1
