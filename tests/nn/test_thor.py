"""THOR: the factors the THOR layers record, the preconditioned update, the conversions and the refresh schedule.

References are numpy (float64) from the same inputs and output gradients: a loss sum(out * R) makes the gradient
of a layer's output exactly R. The update follows MindSpore's CPU/GPU ThorGpu:
g' = s (G B^2 / ls^2 + sqrt(lambda s_g) I)^-1 g (A + sqrt(lambda s_a) I)^-1, then Momentum.
"""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn, ops
from _graph import graph_mode

RNG = np.random.RandomState(3)


class DotLoss(nn.Cell):
    """sum(out * r): the gradient of `out` is r."""

    def construct(self, out, r):
        return (out * r).sum()


def _t(a, dtype=np.float32):
    return ms.Tensor(np.asarray(a, dtype))


def _im2col(x, k, stride, pads):
    """(N * H_out * W_out, C * k * k) patches of x padded by (top, bottom, left, right)."""
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    n, c, h, w = x.shape
    rows = []
    for b in range(n):
        for i in range(0, h - k + 1, stride):
            for j in range(0, w - k + 1, stride):
                rows.append(x[b, :, i:i + k, j:j + k].reshape(-1))
    return np.array(rows, np.float64)


def _record(cell, x, r):
    """Run cell forward and backward with output gradient r (records A and G); returns the output."""
    out = cell(x)
    ms.grad(lambda inp: (cell(inp) * r).sum())(x)
    return out


# ---------------------------------------------------------------- the recorded factors
def test_dense_thor_factors_are_input_and_output_gradient_covariances():
    x, r = RNG.randn(4, 5), RNG.randn(4, 3)
    cell = nn.DenseThor(5, 3, activation="relu")
    out = _record(cell, _t(x), _t(r))
    w, b = cell.weight.asnumpy(), cell.bias.asnumpy()
    np.testing.assert_allclose(out.asnumpy(), np.maximum(x @ w.T + b, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cell.matrix_a.asnumpy(), x.T @ x / 4, rtol=1e-5, atol=1e-6)
    dout = r * (x @ w.T + b > 0)          # through the relu to the matmul output
    np.testing.assert_allclose(cell.matrix_g.asnumpy(), dout.T @ dout / 4, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pad_mode,padding,stride,pads", [
    ("pad", 1, 1, (1, 1, 1, 1)),
    ("same", 0, 2, (0, 1, 0, 1)),         # 'same' with stride 2 on 6x6: the extra row/column goes below/right
    ("valid", 0, 1, (0, 0, 0, 0)),
])
def test_conv2d_thor_factors_from_im2col_patches(pad_mode, padding, stride, pads):
    x = RNG.randn(2, 2, 6, 6)
    cell = nn.Conv2dThor(2, 3, 3, stride=stride, pad_mode=pad_mode, padding=padding, has_bias=True,
                         bias_init="normal")
    ref = nn.Conv2d(2, 3, 3, stride=stride, pad_mode=pad_mode, padding=padding, has_bias=True,
                    weight_init=ms.Tensor(cell.weight.asnumpy()), bias_init=ms.Tensor(cell.bias.asnumpy()))
    expected = ref(_t(x)).asnumpy()
    r = RNG.randn(*expected.shape)
    out = _record(cell, _t(x), _t(r))
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-5)
    patches = _im2col(x, 3, stride, pads)
    m = patches.shape[0]
    assert m == 2 * expected.shape[2] * expected.shape[3]
    np.testing.assert_allclose(cell.matrix_a_cov.asnumpy(), patches.T @ patches / m, rtol=1e-5, atol=1e-5)
    d = r.transpose(0, 2, 3, 1).reshape(-1, 3)
    np.testing.assert_allclose(cell.matrix_g_cov.asnumpy(), d.T @ d / m, rtol=1e-5, atol=1e-5)
    assert cell.a_normalizer.asnumpy().tolist() == [m] and cell.g_normalizer.asnumpy().tolist() == [m]


@pytest.mark.parametrize("make", [lambda: nn.EmbeddingThor(6, 3),
                                  lambda: nn.EmbeddingLookupThor(6, 3, target="DEVICE", sparse=False)])
def test_embedding_thor_factors_are_id_counts_and_gradient_covariance(make):
    ids = np.array([[1, 2, 1], [5, 1, 0]])
    r = RNG.randn(2, 3, 3)
    cell = make()
    out = _record(cell, ms.Tensor(ids, ms.int32), _t(r))
    np.testing.assert_allclose(out.asnumpy(), cell.embedding_table.asnumpy()[ids], rtol=1e-6)
    np.testing.assert_array_equal(cell.matrix_a.asnumpy(), np.bincount(ids.ravel(), minlength=6))
    d = r.reshape(-1, 3)
    np.testing.assert_allclose(cell.matrix_g.asnumpy(), d.T @ d / 6, rtol=1e-5, atol=1e-6)


def test_thor_layers_record_nothing_when_the_flag_is_off_and_cpu_lookup_never_records():
    cell = nn.DenseThor(3, 2)
    cell.add_flags_recursive(thor=False)
    assert cell.thor is False
    _record(cell, _t(RNG.randn(4, 3)), _t(RNG.randn(4, 2)))
    np.testing.assert_array_equal(cell.matrix_a.asnumpy(), np.eye(3))
    np.testing.assert_array_equal(cell.matrix_g.asnumpy(), np.eye(2))
    lookup = nn.EmbeddingLookupThor(6, 3)             # target 'CPU': MindSpore's host lookup records nothing
    _record(lookup, ms.Tensor([[1, 2]], ms.int32), _t(RNG.randn(1, 2, 3)))
    np.testing.assert_array_equal(lookup.matrix_a.asnumpy(), np.zeros(6))


# ---------------------------------------------------------------- the preconditioned update
def _inv(m):
    return np.linalg.inv(m)


def _step(cell, opt, x, r):
    step = nn.TrainOneStepCell(nn.WithLossCell(cell, DotLoss()), opt)
    return step(x, r)


def test_thor_dense_update_is_the_damped_kronecker_inverse_times_the_gradient():
    lr, damping, batch, ls = 0.1, [0.05, 0.02, 0.3], 4, 2.0
    net = nn.SequentialCell([nn.Dense(5, 3)])
    opt = nn.thor(net, ms.Tensor(lr), ms.Tensor(damping), 0.9, loss_scale=ls, batch_size=batch, frequency=2)
    cell = net[0]
    assert isinstance(cell, nn.DenseThor)
    w0, b0 = cell.weight.asnumpy().astype(np.float64), cell.bias.asnumpy().astype(np.float64)
    x1, r1 = RNG.randn(batch, 5), RNG.randn(batch, 3)
    _step(net, opt, _t(x1), _t(r1 * ls))                 # the gradients carry the loss scale
    a = x1.T @ x1 / batch
    g = (r1 * ls).T @ (r1 * ls) / batch
    a_inv = _inv(a + np.sqrt(damping[0]) * np.eye(5))
    g_inv = _inv(g * batch ** 2 / ls ** 2 + np.sqrt(damping[0]) * np.eye(3))
    v_w = g_inv @ (r1.T @ x1) @ a_inv
    v_b = r1.sum(0)
    np.testing.assert_allclose(opt.matrix_a[0].asnumpy(), a_inv, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(opt.matrix_g[0].asnumpy(), g_inv, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(cell.weight.asnumpy(), w0 - lr * v_w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(cell.bias.asnumpy(), b0 - lr * v_b, rtol=1e-5, atol=1e-6)

    # a step between refreshes: no recording, the kept inverses precondition the new gradient
    w1 = cell.weight.asnumpy().astype(np.float64)
    net.add_flags_recursive(thor=False)
    opt.add_flags_recursive(thor=False)
    x2, r2 = RNG.randn(batch, 5), RNG.randn(batch, 3)
    _step(net, opt, _t(x2), _t(r2 * ls))
    np.testing.assert_allclose(cell.matrix_a.asnumpy(), a, rtol=1e-5, atol=1e-6)
    v_w = 0.9 * v_w + g_inv @ (r2.T @ x2) @ a_inv
    np.testing.assert_allclose(cell.weight.asnumpy(), w1 - lr * v_w, rtol=1e-4, atol=1e-5)
    assert opt.cov_step.asnumpy().tolist() == [2]

    # a refresh uses the damping of its step (the third value)
    net.add_flags_recursive(thor=True)
    opt.add_flags_recursive(thor=True)
    x3, r3 = RNG.randn(batch, 5), RNG.randn(batch, 3)
    _step(net, opt, _t(x3), _t(r3 * ls))
    a3 = x3.T @ x3 / batch
    np.testing.assert_allclose(opt.matrix_a[0].asnumpy(), _inv(a3 + np.sqrt(0.3) * np.eye(5)), rtol=1e-4,
                               atol=1e-5)


def test_thor_conv_update_scales_damping_and_result_by_the_positions_per_image():
    lr, lam, batch = 0.05, 0.04, 2
    net = nn.SequentialCell([nn.Conv2d(2, 3, 3, pad_mode="valid", has_bias=False)])
    opt = nn.thor(net, ms.Tensor(lr), [lam] * 4, 0.0, batch_size=batch, frequency=5)
    cell = net[0]
    w0 = cell.weight.asnumpy().astype(np.float64)
    x, r = RNG.randn(batch, 2, 5, 5), RNG.randn(batch, 3, 3, 3)
    _step(net, opt, _t(x), _t(r))
    patches = _im2col(x, 3, 1, (0, 0, 0, 0))
    m = patches.shape[0]                                  # N * H_out * W_out = 18
    s = batch / m                                         # 1 / (H_out * W_out)
    d = r.transpose(0, 2, 3, 1).reshape(-1, 3)
    a_inv = _inv(patches.T @ patches / m + np.sqrt(lam * s) * np.eye(18)) * np.sqrt(s)
    g_inv = _inv(d.T @ d / m * batch ** 2 + np.sqrt(lam * s) * np.eye(3)) * np.sqrt(s)
    grad = d.T @ patches                                  # dL/dW as (out, in * k * k)
    v = g_inv @ grad @ a_inv
    np.testing.assert_allclose(cell.weight.asnumpy(), w0 - lr * v.reshape(w0.shape), rtol=1e-4, atol=1e-5)


def test_thor_embedding_and_layernorm_updates_are_diagonal_where_mindspore_makes_them_so():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(5, 3)
            self.norm = nn.LayerNorm((3,))

        def construct(self, ids):
            return self.norm(self.emb(ids))

    lr, lam, batch = 0.1, 0.09, 2
    net = Net()
    opt = nn.thor(net, ms.Tensor(lr), [lam], 0.0, batch_size=batch)
    assert isinstance(net.emb, nn.EmbeddingThor)
    table0 = net.emb.embedding_table.asnumpy().astype(np.float64)
    gamma0 = net.norm.gamma.asnumpy().astype(np.float64)
    ids = ms.Tensor([[0, 2], [2, 4]], ms.int32)
    r = _t(RNG.randn(2, 2, 3))
    grads = ms.grad(lambda i: (net(i) * r).sum(), None, opt.parameters)(ids)
    emb_out = net.emb(ids)
    dout = ms.grad(lambda e: (net.norm(e) * r).sum())(emb_out).asnumpy().reshape(-1, 3).astype(np.float64)
    opt(grads)
    count = np.bincount([0, 2, 2, 4], minlength=5)
    g_inv = _inv(dout.T @ dout / 4 * batch ** 2 + np.sqrt(lam) * np.eye(3))
    g_table = grads[0].asnumpy().astype(np.float64)
    v = (1.0 / (count / batch + np.sqrt(lam)))[:, None] * g_table @ g_inv
    np.testing.assert_allclose(net.emb.embedding_table.asnumpy(), table0 - lr * v, rtol=1e-4, atol=5e-5)
    g_gamma = grads[1].asnumpy().astype(np.float64)
    np.testing.assert_allclose(net.norm.gamma.asnumpy(), gamma0 - lr * g_gamma / (g_gamma ** 2 / batch + np.sqrt(lam)),
                               rtol=1e-5, atol=1e-6)


def test_thor_weight_decay_follows_decay_filter_and_clipping_bounds_each_gradient():
    lr, wd = 0.1, 0.01
    net = nn.SequentialCell([nn.Dense(4, 2)])
    opt = nn.thor(net, ms.Tensor(lr), [0.1], 0.0, weight_decay=wd, batch_size=3,
                  decay_filter=lambda p: "bias" not in p.name, enable_clip_grad=True)
    cell = net[0]
    w0, b0 = cell.weight.asnumpy().astype(np.float64), cell.bias.asnumpy().astype(np.float64)
    x, r = RNG.randn(3, 4) * 10, RNG.randn(3, 2) * 10
    _step(net, opt, _t(x), _t(r))
    a_inv = _inv(x.T @ x / 3 + np.sqrt(0.1) * np.eye(4))
    g_inv = _inv(r.T @ r / 3 * 9 + np.sqrt(0.1) * np.eye(2))
    v_w = g_inv @ (r.T @ x) @ a_inv + wd * w0
    v_b = r.sum(0)
    v_w, v_b = v_w / max(np.linalg.norm(v_w), 1.0), v_b / max(np.linalg.norm(v_b), 1.0)
    np.testing.assert_allclose(cell.weight.asnumpy(), w0 - lr * v_w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(cell.bias.asnumpy(), b0 - lr * v_b, rtol=1e-5, atol=1e-6)


def _train_toggling(batches):
    """Four THOR steps with the flag on, off, on, off: (loss, G of the layer, weight) after each."""
    ms.set_seed(4)
    net = nn.SequentialCell([nn.Dense(5, 3)])
    opt = nn.thor(net, ms.Tensor(0.1), [0.05] * 4, 0.9, batch_size=4, frequency=2)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    out = []
    for i, (x, y) in enumerate(batches):
        step.add_flags_recursive(thor=i % 2 == 0)
        loss = step(_t(x), _t(y))
        out.append((float(loss.asnumpy()), net[0].matrix_g.asnumpy().copy(), net[0].weight.asnumpy().copy()))
    return out


def test_thor_graph_mode_matches_pynative_and_compiles_per_flag():
    batches = [(RNG.randn(4, 5), RNG.randn(4, 3)) for _ in range(4)]
    eager = _train_toggling(batches)
    with graph_mode():
        graph = _train_toggling(batches)
    for (le, ge, we), (lg, gg, wg) in zip(eager, graph):
        assert abs(le - lg) < 1e-5
        np.testing.assert_allclose(gg, ge, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(wg, we, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(graph[1][1], graph[0][1])      # thor=False: the compiled step records nothing


# ---------------------------------------------------------------- conversions and the Model
class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="pad", padding=1, has_bias=True)
        self.body = nn.SequentialCell([nn.Flatten(), nn.Dense(64, 8, activation="relu")])
        self.frozen = nn.Dense(8, 8)
        self.frozen.weight.requires_grad = False
        self.head = nn.Dense(8, 3)

    def construct(self, x):
        return self.head(self.frozen(self.body(self.conv(x))))


def test_convert_to_thor_net_keeps_parameters_outputs_and_names():
    net = Small()
    x = _t(RNG.randn(2, 1, 4, 4))
    before = net(x).asnumpy()
    params = {p.name: p for p in net.get_parameters()}
    ms.ConvertNetUtils().convert_to_thor_net(net)
    assert isinstance(net.conv, nn.Conv2dThor) and isinstance(net.body[1], nn.DenseThor)
    assert isinstance(net.head, nn.DenseThor) and type(net.frozen) is nn.Dense      # frozen weight: kept
    assert net.body[1].activation_flag
    np.testing.assert_allclose(net(x).asnumpy(), before, rtol=1e-5, atol=1e-6)
    after = {p.name: p for p in net.trainable_params()}
    assert all(after[name] is p for name, p in params.items() if p.requires_grad)
    assert {"conv.matrix_a", "conv.a_normalizer", "body.1.matrix_g", "head.matrix_a"} <= {
        p.name for p in net.untrainable_params()}
    assert ms.train.ConvertNetUtils is ms.ConvertNetUtils
    assert ms.train.train_thor.ConvertModelUtils is ms.ConvertModelUtils


def test_thor_model_refreshes_the_factors_every_frequency_steps():
    ms.set_seed(2)
    net = Small()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.thor(net, ms.Tensor(np.full(8, 0.01, np.float32)), ms.Tensor(np.full(8, 0.1, np.float32)), 0.9,
                  batch_size=2, frequency=3)
    model = ms.Model(net, loss_fn=loss, optimizer=opt)
    model = ms.ConvertModelUtils.convert_to_thor_model(model, network=net, loss_fn=loss, optimizer=opt)
    assert type(model).__name__ == "ModelThor"
    data = ms.dataset.NumpySlicesDataset((RNG.randn(14, 1, 4, 4).astype(np.float32),
                                          RNG.randint(0, 3, 14).astype(np.int32)), ["x", "y"], shuffle=False)
    seen = []

    class Watch(ms.train.Callback):
        def on_train_step_end(self, run_context):
            seen.append((net.head.matrix_a.asnumpy().copy(), opt.matrix_a[0].asnumpy().copy()))

    model.train(1, data.batch(2), callbacks=[Watch()])
    assert len(seen) == 7 and opt.cov_step.asnumpy().tolist() == [7]
    changed = [i for i in range(1, 7) if not np.array_equal(seen[i][0], seen[i - 1][0])]
    assert changed == [3, 6]                                          # steps 1, 4, 7 refresh
    assert [i for i in range(1, 7) if not np.array_equal(seen[i][1], seen[i - 1][1])] == [3, 6]
    momentum_model = ms.Model(net, loss_fn=loss, optimizer=nn.Momentum(net.trainable_params(), 0.1, 0.9))
    assert ms.ConvertModelUtils.convert_to_thor_model(momentum_model, net, loss,
                                                      nn.Momentum(net.trainable_params(), 0.1, 0.9)) is momentum_model


# ---------------------------------------------------------------- bad arguments
@pytest.mark.parametrize("kwargs,err,match", [
    ({"learning_rate": 0.1}, TypeError, "learning rate"),
    ({"momentum": 1}, TypeError, "momentum"),
    ({"momentum": -0.5}, ValueError, "momentum"),
    ({"frequency": 1}, ValueError, "frequency"),
    ({"frequency": 2.0}, TypeError, "frequency"),
    ({"damping": "0.1"}, TypeError, "damping"),
    ({"damping": [0.1, -0.2]}, ValueError, "damping"),
    ({"loss_scale": 0.0}, ValueError, "loss_scale"),
    ({"batch_size": 0}, ValueError, "batch_size"),
    ({"split_indices": [1, "a"]}, TypeError, "split_indices"),
    ({"use_nesterov": 1}, TypeError, "use_nesterov"),
    ({"decay_filter": 3}, TypeError, "decay_filter"),
    ({"weight_decay": -1.0}, ValueError, "weight_decay"),
    ({"weight_decay": nn.ExponentialDecayLR(0.1, 0.9, 4)}, TypeError, "For 'ThorGpu', the type of 'weight_decay'"),
])
def test_thor_bad_arguments(kwargs, err, match):
    args = {"learning_rate": ms.Tensor(0.1), "damping": [0.1], "momentum": 0.9}
    args.update(kwargs)
    with pytest.raises(err, match=match):
        nn.thor(nn.SequentialCell([nn.Dense(2, 2)]), **args)


def test_thor_errors_name_the_problem():
    net = nn.SequentialCell([nn.Dense(2, 2)])
    opt = nn.thor(net, ms.Tensor(0.1), [0.1], 0.9, split_indices=[0])
    assert opt.split_indices == [0]
    grads = tuple(ops.zeros_like(p) for p in opt.parameters)
    opt(grads)
    with pytest.raises(ValueError, match="'damping' has 1 values"):
        opt(grads)
    with pytest.raises(ValueError, match="number of gradients"):
        opt(grads[:1])
    with pytest.raises(TypeError, match="'net' must be a Cell"):
        ms.ConvertNetUtils().convert_to_thor_net([1])
    with pytest.raises(ValueError, match="'group'"):
        nn.Conv2dThor(2, 2, 3, group=2)
    with pytest.raises(TypeError, match="THOR"):
        from mindseed.train.train_thor import ModelThor
        ModelThor(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
