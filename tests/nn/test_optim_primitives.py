"""Optimizer primitives of the class API (ops.ApplyMomentum, ops.SGD, ops.Adam, ...): in-place updates."""
import math

import numpy as np
import pytest

import mindseed as ms
from mindseed import ops

G = np.array([0.5, -1.0, 2.0], np.float32)
W = np.array([1.0, 2.0, -3.0], np.float32)


def _p(values, name):
    return ms.Parameter(ms.Tensor(np.array(values, np.float32)), name=name)


def test_apply_momentum_and_nesterov():
    for nesterov in (False, True):
        w, a = _p(W, "w"), _p(np.zeros(3), "a")
        prim = ops.ApplyMomentum(use_nesterov=nesterov)
        ref_w, ref_a = W.astype(np.float64), np.zeros(3)
        for _ in range(2):
            out = prim(w, a, ms.Tensor(0.1, ms.float32), ms.Tensor(G), 0.9)
            ref_a = 0.9 * ref_a + G
            ref_w = ref_w - (0.1 * G + 0.1 * 0.9 * ref_a if nesterov else 0.1 * ref_a)
        # MindSpore returns a Tensor of the updated Parameter's value, not the Parameter
        assert type(out) is ms.Tensor
        np.testing.assert_array_equal(out.asnumpy(), w.asnumpy())
        np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-6)
        np.testing.assert_allclose(a.asnumpy(), ref_a, rtol=1e-6)


def test_sgd_primitive_first_step_seeds_the_buffer():
    w, acc, stat = _p(W, "w"), _p(np.zeros(3), "acc"), _p(np.ones(3), "stat")
    prim = ops.SGD(dampening=0.1, weight_decay=0.01, nesterov=False)
    prim(w, ms.Tensor(G), 0.1, acc, 0.9, stat)
    g1 = G + 0.01 * W
    np.testing.assert_allclose(w.asnumpy(), W - 0.1 * g1, rtol=1e-6)
    np.testing.assert_array_equal(stat.asnumpy(), [0, 0, 0])
    w1 = w.asnumpy().copy()
    prim(w, ms.Tensor(G), 0.1, acc, 0.9, stat)
    g2 = G + 0.01 * w1
    np.testing.assert_allclose(w.asnumpy(), w1 - 0.1 * (0.9 * g1 + 0.9 * g2), rtol=1e-6)


def test_sgd_primitive_seeds_where_stat_is_positive():
    # MindSpore 2.10 CPU (oracle) numbers: stat > 0 seeds accum with the gradient and is zeroed; the other entries
    # take the momentum rule and keep their stat
    w = ms.Tensor(np.array([2, -0.5, 1.7, 4], np.float32))
    accum = ms.Tensor(np.array([0.1, 0.3, -0.2, -0.1], np.float32))
    stat = ms.Tensor(np.array([1.5, -0.3, 0.2, -0.7], np.float32))
    out = ops.SGD(dampening=0.3)(w, ms.Tensor(np.array([1, -1, 0.5, 2], np.float32)), ms.Tensor(0.01, ms.float32),
                                 accum, ms.Tensor(0.1, ms.float32), stat)
    np.testing.assert_allclose(out.asnumpy(), [1.99, -0.4933, 1.695, 3.9861], rtol=1e-6)
    np.testing.assert_allclose(accum.asnumpy(), [1.0, -0.67, 0.5, 1.39], rtol=1e-6)
    np.testing.assert_array_equal(stat.asnumpy(), np.array([0, -0.3, 0, -0.7], np.float32))


def test_adam_and_amsgrad_primitives():
    w, m, v = _p(W, "w"), _p(np.zeros(3), "m"), _p(np.zeros(3), "v")
    var, m_out, v_out = ops.Adam()(w, m, v, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, ms.Tensor(G))
    # Tensors of the updated Parameters' values (MindSpore's outputs), not the Parameters
    for out, p in ((var, w), (m_out, m), (v_out, v)):
        assert type(out) is ms.Tensor
        np.testing.assert_array_equal(out.asnumpy(), p.asnumpy())
    lr_t = 0.01 * math.sqrt(1 - 0.999) / (1 - 0.9)
    np.testing.assert_allclose(w.asnumpy(), W - lr_t * (0.1 * G) / (np.sqrt(0.001 * G * G) + 1e-8), rtol=1e-5)
    w2, m2, v2, vh = _p(W, "w"), _p(np.zeros(3), "m"), _p(np.zeros(3), "v"), _p(np.ones(3), "vh")
    ops.ApplyAdamWithAmsgradV2()(w2, m2, v2, vh, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, ms.Tensor(G))
    np.testing.assert_allclose(w2.asnumpy(), W - lr_t * (0.1 * G) / (1.0 + 1e-8), rtol=1e-5)


def test_adagrad_rmsprop_adadelta_adamax_ftrl_proximal_run():
    w, acc = _p(W, "w"), _p(np.full(3, 0.1), "acc")
    ops.ApplyAdagrad()(w, acc, 0.1, ms.Tensor(G))
    np.testing.assert_allclose(w.asnumpy(), W - 0.1 * G / np.sqrt(0.1 + G * G), rtol=1e-6)
    w, acc = _p(W, "w"), _p(np.zeros(3), "acc")
    ops.ApplyAdagradV2(epsilon=1e-6)(w, acc, 0.1, ms.Tensor(G))
    np.testing.assert_allclose(w.asnumpy(), W - 0.1 * G / (np.abs(G) + 1e-6), rtol=1e-6)
    w, ms_, mom = _p(W, "w"), _p(np.ones(3), "ms"), _p(np.zeros(3), "mom")
    ops.ApplyRMSProp()(w, ms_, mom, 0.01, ms.Tensor(G), 0.9, 0.0, 1e-10)
    np.testing.assert_allclose(w.asnumpy(), W - 0.01 * G / np.sqrt(0.9 + 0.1 * G * G), rtol=1e-6)
    w, mg, ms_, mom = _p(W, "w"), _p(np.zeros(3), "mg"), _p(np.ones(3), "ms"), _p(np.zeros(3), "mom")
    ops.ApplyCenteredRMSProp()(w, mg, ms_, mom, ms.Tensor(G), 0.01, 0.9, 0.0, 1e-10)
    den = np.sqrt(0.9 + 0.1 * G * G - (0.1 * G) ** 2)
    np.testing.assert_allclose(w.asnumpy(), W - 0.01 * G / den, rtol=1e-6)
    w, a, au = _p(W, "w"), _p(np.zeros(3), "a"), _p(np.zeros(3), "au")
    ops.ApplyAdadelta()(w, a, au, 1.0, 0.9, 1e-6, ms.Tensor(G))
    np.testing.assert_allclose(w.asnumpy(), W - np.sqrt(1e-6) / np.sqrt(0.1 * G * G + 1e-6) * G, rtol=1e-5)
    w, m, v = _p(W, "w"), _p(np.zeros(3), "m"), _p(np.zeros(3), "v")
    ops.ApplyAdaMax()(w, m, v, 0.9, 0.01, 0.9, 0.999, 1e-8, ms.Tensor(G))
    np.testing.assert_allclose(w.asnumpy(), W - 0.01 / 0.1 * (0.1 * G) / (np.abs(G) + 1e-8), rtol=1e-5)
    w, acc, lin = _p(W, "w"), _p(np.full(3, 0.1), "acc"), _p(np.zeros(3), "lin")
    ops.ApplyFtrl()(w, acc, lin, ms.Tensor(G), 0.1, 0.0, 0.0, -0.5)
    n = 0.1 + G * G
    z = G - (np.sqrt(n) - np.sqrt(0.1)) / 0.1 * W
    np.testing.assert_allclose(w.asnumpy(), -z / (np.sqrt(n) / 0.1), rtol=1e-5)
    w, acc = _p(W, "w"), _p(np.full(3, 0.1), "acc")
    ops.ApplyProximalAdagrad()(w, acc, 0.1, 0.0, 0.0, ms.Tensor(G))
    np.testing.assert_allclose(w.asnumpy(), W - 0.1 * G / np.sqrt(0.1 + G * G), rtol=1e-6)
    w = _p(W, "w")
    ops.ApplyGradientDescent()(w, 0.5, ms.Tensor(G))
    np.testing.assert_allclose(w.asnumpy(), W - 0.5 * G, rtol=1e-6)


def test_lars_update_matches_mindspore_example():
    weight = ms.Tensor(np.array([[0.5, 0.8, 0.2], [0.6, 0.4, 0.2]], np.float32))
    gradient = ms.Tensor(np.array([[0.4, 0.4, 0.5], [0.2, 0.4, 0.3]], np.float32))
    out = ops.LARSUpdate()(weight, gradient, (weight * weight).sum(), (gradient * gradient).sum(), 0.0, 1.0)
    np.testing.assert_allclose(out.asnumpy(), [[0.0005265, 0.0005265, 0.00065813],
                                               [0.00026325, 0.0005265, 0.00039488]], rtol=1e-4)


def test_optimizer_primitive_argument_errors():
    w = _p(W, "w")
    with pytest.raises(ValueError, match="the shape of 'accumulation' \\(2,\\) must be the same"):
        ops.ApplyMomentum()(w, _p([0.0, 0.0], "a"), 0.1, ms.Tensor(G), 0.9)
    with pytest.raises(TypeError, match="the 'gradient' must be a Tensor or Parameter"):
        ops.ApplyMomentum()(w, _p(np.zeros(3), "a"), 0.1, G, 0.9)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_apply_momentum_fused_path_is_bitwise_the_two_step_rule(monkeypatch, dtype):
    # sizes that are whole vectors go through torch's fused SGD kernel, the others (and float16) through the
    # three _foreach passes; both must give MindSpore's two roundings, accum * momentum + grad, var - lr * accum
    import torch
    from mindseed._backend.kernels import optim as K
    rng = np.random.default_rng(0)
    shapes = [(64, 48), (10,), (33, 5), (16,), (1,)]
    start = [[rng.standard_normal(s).astype(dtype) for s in shapes] for _ in range(2)]
    grads = [[torch.from_numpy(rng.standard_normal(s).astype(dtype)) for s in shapes] for _ in range(3)]

    def run():
        params, accums = ([torch.from_numpy(a.copy()) for a in group] for group in start)
        for g in grads:
            K.apply_momentum_(params, g, accums, 0.01, 0.9)
        return [t.numpy() for t in params + accums]
    calls = []
    fused = K._FUSED_SGD
    monkeypatch.setattr(K, "_FUSED_SGD", lambda p, *a, **kw: (calls.append(len(p)), fused(p, *a, **kw)))
    fast = run()
    assert calls == ([] if dtype == np.float16 else [2, 2, 2])  # (64, 48) and (16,): sizes % 16 == 0
    monkeypatch.setattr(K, "_FUSED_SGD", None)
    ref = run()
    for a, b in zip(fast, ref):
        np.testing.assert_array_equal(a, b)
    p, a = start[0][0].astype(np.float64), start[1][0].astype(np.float64)
    for g in grads:   # and they are the rule (float64 reference, loose)
        a = 0.9 * a + g[0].numpy()
        p = p - 0.01 * a
    half = dtype == np.float16
    np.testing.assert_allclose(fast[0], p, rtol=1e-2 if half else 1e-5, atol=1e-2 if half else 1e-6)


def test_apply_momentum_takes_a_channels_last_gradient_on_the_fused_path(monkeypatch):
    # a convolution's weight gradient from the NHWC kernels is channels-last: same values as a contiguous one
    import torch
    from mindseed._backend.kernels import optim as K
    rng = np.random.default_rng(1)
    shape = (16, 8, 3, 3)
    grads = [torch.from_numpy(rng.standard_normal(shape).astype(np.float32)) for _ in range(3)]

    def run(layout):
        p, a = torch.from_numpy(rng.standard_normal(shape).astype(np.float32)), torch.zeros(shape)
        p0 = p.clone()
        for g in grads:
            K.apply_momentum_([p], [g.contiguous(memory_format=layout)], [a], 0.01, 0.9)
        return p0, p, a
    calls = []
    fused = K._FUSED_SGD
    monkeypatch.setattr(K, "_FUSED_SGD", lambda p, *a, **kw: (calls.append(len(p)), fused(p, *a, **kw)))
    rng = np.random.default_rng(2)
    p0, p_cl, a_cl = run(torch.channels_last)
    assert calls == [1, 1, 1] and grads[0].contiguous(memory_format=torch.channels_last).stride() != grads[0].stride()
    rng = np.random.default_rng(2)
    _, p_c, a_c = run(torch.contiguous_format)
    assert torch.equal(p_cl, p_c) and torch.equal(a_cl, a_c)
    acc, want = np.zeros(shape, np.float32), p0.numpy().copy()
    for g in grads:
        acc = (acc * np.float32(0.9)).astype(np.float32) + g.numpy()
        want = want - np.float32(0.01) * acc
    np.testing.assert_allclose(p_cl.numpy(), want, rtol=1e-6, atol=1e-7)


def test_parameter_takes_its_gradients_channels_last_layout_with_its_state(monkeypatch):
    # a channels-last gradient moves the parameter and its accumulator to channels-last storage (same tensor
    # objects, same values), so the fused kernel then gets dense views and nobody copies per step; an NCHW
    # parameter again (set_data) takes the accumulator back; a view is never moved
    import torch
    from mindseed._backend.kernels import optim as K
    cl = torch.channels_last
    rng = np.random.default_rng(3)
    shape = (16, 8, 3, 3)
    start_p = rng.standard_normal(shape).astype(np.float32)
    gs = [rng.standard_normal(shape).astype(np.float32) for _ in range(4)]
    seen = []
    fused = K._FUSED_SGD
    monkeypatch.setattr(K, "_FUSED_SGD", lambda p, g, a, **kw: (
        seen.append(all(t.is_contiguous() for t in p + g + a)), fused(p, g, a, **kw)))

    def reference(p, a, g):
        a = (a * np.float32(0.9)).astype(np.float32) + g
        return p - np.float32(0.01) * a, a
    p, a = torch.from_numpy(start_p.copy()), torch.zeros(shape)
    p_obj, a_obj = p, a
    want_p, want_a = start_p.copy(), np.zeros(shape, np.float32)
    layouts = [cl, torch.contiguous_format, cl, cl]
    for g, layout in zip(gs, layouts):
        K.apply_momentum_([p], [torch.from_numpy(g).contiguous(memory_format=layout)], [a], 0.01, 0.9)
        want_p, want_a = reference(want_p, want_a, g)
        assert p.is_contiguous(memory_format=cl) and not p.is_contiguous() and a.is_contiguous(memory_format=cl)
        np.testing.assert_allclose(p.numpy(), want_p, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(a.numpy(), want_a, rtol=1e-6, atol=1e-6)
    assert p is p_obj and a is a_obj and seen == [True] * 4
    p = p.contiguous()   # set_data with an NCHW tensor
    K.apply_momentum_([p], [torch.from_numpy(gs[0])], [a], 0.01, 0.9)
    want_p, want_a = reference(want_p, want_a, gs[0])
    assert p.is_contiguous() and a.is_contiguous()
    np.testing.assert_allclose(p.numpy(), want_p, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(a.numpy(), want_a, rtol=1e-6, atol=1e-6)
    base = torch.from_numpy(np.concatenate([start_p, start_p]))
    view = base[:16]
    K.apply_momentum_([view], [torch.from_numpy(gs[0]).contiguous(memory_format=cl)], [torch.zeros(shape)], 0.01, 0.9)
    assert view.is_contiguous() and view.data_ptr() == base.data_ptr()
    np.testing.assert_allclose(base[:16].numpy(), reference(start_p, np.zeros(shape, np.float32), gs[0])[0],
                               rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(base[16:].numpy(), start_p)


def test_channels_last_conv_weight_reads_saves_and_loads_as_its_logical_values(tmp_path):
    # after training steps on NHWC convolutions the weight is stored channels-last; what users see is unchanged
    from mindseed import nn
    ms.set_seed(0)
    net = nn.Conv2d(3, 16, 3)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32))
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    grad_fn = ms.value_and_grad(lambda x: net(x).square().mean(), None, opt.parameters)
    w0 = net.weight.asnumpy().copy()
    for _ in range(2):
        _, grads = grad_fn(x)
        opt(grads)
    assert net.weight._data.is_contiguous(memory_format=__import__("torch").channels_last)
    w = net.weight.asnumpy()
    assert w.shape == (16, 3, 3, 3) and not np.allclose(w, w0)
    np.testing.assert_array_equal(np.frombuffer(np.ascontiguousarray(w).tobytes(), np.float32).reshape(w.shape), w)
    path = str(tmp_path / "w.ckpt")
    ms.save_checkpoint(net, path)
    fresh = nn.Conv2d(3, 16, 3)
    ms.load_param_into_net(fresh, ms.load_checkpoint(path))
    np.testing.assert_array_equal(fresh.weight.asnumpy(), w)
    np.testing.assert_allclose(fresh(x).asnumpy(), net(x).asnumpy(), rtol=1e-6, atol=1e-6)
