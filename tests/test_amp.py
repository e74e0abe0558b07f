"""mindspore.amp: mixed-precision levels (float16 and bfloat16), loss scalers, managers, build_train_network."""
import numpy as np
import pytest

import mindseed as ms
import mindseed.amp as amp
from mindseed import nn, ops

LOW = [ms.float16, ms.bfloat16]


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(6, 8)
        self.bn = nn.BatchNorm1d(8)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.bn(self.fc(x))))


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 6 * 6, 3)

    def construct(self, x):
        return self.fc(self.flatten(self.relu(self.bn(self.conv(x)))))


def _x(*shape):
    return ms.Tensor(np.random.RandomState(0).randn(*shape).astype(np.float32))


def _record_input_dtypes(net, names):
    seen = {}
    for name, cell in net.cells_and_names():
        parts = [part for part in name.split(".") if part != "_backbone"]
        short = parts[-1] if parts else ""
        if short in names and not type(cell).__name__.startswith("_Output"):
            cell.register_forward_pre_hook(lambda c, args, _n=short: seen.__setitem__(_n, args[0].dtype))
    return seen


@pytest.mark.parametrize("dtype", LOW)
def test_o2_low_precision_except_batchnorm(dtype):
    net = amp.auto_mixed_precision(Net(), "O2", dtype)
    assert type(net).__name__ == "_OutputTo32"
    assert type(net._backbone.bn).__name__ == "_OutputTo16"
    seen = _record_input_dtypes(net, {"fc", "bn", "fc2"})
    net.set_train()
    out = net(_x(4, 6))
    assert out.dtype == ms.float32
    assert seen == {"fc": dtype, "bn": ms.float32, "fc2": dtype}
    assert all(p.dtype == ms.float32 for p in net.get_parameters())
    assert [p.name for p in net.trainable_params()] == ["fc.weight", "fc.bias", "bn.gamma", "bn.beta", "fc2.weight",
                                                        "fc2.bias"]
    assert net._amp_level == "O2"


@pytest.mark.parametrize("dtype", LOW)
def test_o3_everything_low_precision(dtype):
    net = amp.auto_mixed_precision(Net(), "O3", dtype)
    seen = _record_input_dtypes(net, {"fc", "bn", "fc2"})
    assert net(_x(4, 6)).dtype == ms.float32
    assert seen == {"fc": dtype, "bn": dtype, "fc2": dtype}


@pytest.mark.parametrize("dtype", LOW)
def test_o1_white_list_cells_only(dtype):
    net = amp.auto_mixed_precision(Net(), "O1", dtype)
    assert isinstance(net, Net) and type(net).__name__ == "NetOpt"  # MindSpore's names of rewritten cells
    assert [type(c).__name__ for c in net.cells()] == ["DenseOpt", "BatchNorm1dOpt", "ReLUOpt", "DenseOpt_1"]
    seen = _record_input_dtypes(net, {"fc", "bn", "fc2"})
    inner = {}
    net.bn.register_forward_hook(lambda c, args, out: inner.__setitem__("bn_out", out.dtype))
    assert net(_x(4, 6)).dtype == ms.float32
    assert seen == {"fc": dtype, "bn": ms.float32, "fc2": dtype}
    assert inner["bn_out"] == ms.float32


def test_o1_casts_white_list_primitive_instances():
    class MatNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.matmul = ops.MatMul()
            self.w = ms.Parameter(ms.Tensor(np.ones((3, 2), np.float32)), name="w")

        def construct(self, x):
            return self.matmul(x, ops.cast(self.w, x.dtype) if x.dtype != self.w.dtype else self.w)

    net = amp.auto_mixed_precision(MatNet(), "O1", ms.bfloat16)
    out = net(ms.Tensor(np.full((1, 3), 1.0 + 2 ** -12, np.float32)))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), [[3.0, 3.0]])  # 1 + 2^-12 rounds to 1 in bfloat16


@pytest.mark.parametrize("dtype", LOW)
def test_auto_level_per_primitive(dtype):
    class F(nn.Cell):
        def construct(self, x, w):
            y = ops.matmul(x, w)   # white list: low precision
            return y, ops.exp(y)   # black list: float32

    net = amp.auto_mixed_precision(F(), "auto", dtype)
    y, e = net(_x(2, 3), _x(3, 4))
    assert y.dtype == dtype and e.dtype == ms.float32
    grads = ms.grad(lambda x: net(x, _x(3, 4))[1].sum())(_x(2, 3))
    assert grads.dtype == ms.float32 and grads.shape == (2, 3)
    f = amp.auto_mixed_precision(lambda a, b: ops.matmul(a, b), "auto", dtype)
    assert f(_x(2, 3), _x(3, 4)).dtype == dtype
    assert ops.matmul(_x(2, 3), _x(3, 4)).dtype == ms.float32  # the strategy ends with the call


@pytest.mark.parametrize("dtype", LOW)
def test_auto_level_dense_multiplies_in_low_precision_and_adds_the_bias_in_float32(dtype):
    dense = nn.Dense(3, 2)
    x = ms.Tensor(np.array([[1.0001, 2.0, 3.0]], np.float32))
    out = amp.auto_mixed_precision(dense, "auto", dtype)(x)
    assert out.dtype == ms.float32
    low = ops.matmul(x.astype(dtype), dense.weight.astype(dtype).T)
    np.testing.assert_array_equal(out.asnumpy(), low.astype(ms.float32).asnumpy() + dense.bias.asnumpy())
    no_bias = amp.auto_mixed_precision(nn.Dense(3, 2, has_bias=False), "auto", dtype)(x)
    assert no_bias.dtype == dtype


@pytest.mark.parametrize("dtype", LOW)
def test_gradients_reach_float32_parameters(dtype):
    net = amp.auto_mixed_precision(Net(), "O2", dtype)
    net.set_train()
    loss, grads = ms.value_and_grad(lambda x: net(x).sum(), None, net.trainable_params())(_x(4, 6))
    assert loss.dtype == ms.float32
    assert all(g.dtype == ms.float32 for g in grads)
    assert all(np.isfinite(g.asnumpy()).all() for g in grads)


def test_bfloat16_o2_training_decreases_the_loss():
    ms.set_seed(1)
    rng = np.random.RandomState(0)
    x = ms.Tensor(rng.randn(16, 1, 8, 8).astype(np.float32))
    y = ms.Tensor(rng.randint(0, 3, 16).astype(np.int32))
    net = amp.auto_mixed_precision(ConvNet(), "O2", ms.bfloat16)
    loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    step = nn.TrainOneStepCell(loss_net, nn.Momentum(net.trainable_params(), 0.05, 0.9)).set_train()
    losses = [float(step(x, y)) for _ in range(15)]
    assert losses[-1] < 0.5 * losses[0]
    assert all(p.dtype == ms.float32 for p in net.trainable_params())


def test_build_train_network_levels():
    net = Net()
    step = amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.1), nn.MSELoss(), level="O0")
    assert type(step).__name__ == "TrainOneStepCell"
    net = Net()
    step = amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.1), nn.MSELoss(), level="O2")
    assert type(step).__name__ == "TrainOneStepWithLossScaleCell"
    assert float(step.scale_sense) == 2.0 ** 24
    assert type(net.bn).__name__ == "_OutputTo16"
    net = Net()
    manager = amp.FixedLossScaleManager(128.0, drop_overflow_update=False)
    step = amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.1), nn.MSELoss(), level="O3",
                                   cast_model_type=ms.bfloat16, loss_scale_manager=manager)
    assert type(step).__name__ == "TrainOneStepCell" and step.sens == 128.0
    loss = step(_x(4, 6), _x(4, 3))
    assert loss.dtype == ms.float32 and np.isfinite(float(loss))
    with pytest.raises(ValueError, match="Unsupported arg 'foo'"):
        amp.build_train_network(Net(), nn.SGD(Net().trainable_params()), level="O2", foo=1)
    with pytest.raises(ValueError, match="'level' must be in"):
        amp.build_train_network(Net(), nn.SGD(Net().trainable_params()), level="O4")
    with pytest.raises(TypeError, match=r"'optimizer' should be one of '\['Optimizer', 'FreezeOpt'"):
        amp.build_train_network(Net(), None)


def test_float16_loss_scaling_skips_overflowing_steps():
    ms.set_seed(2)
    net = Net()
    step = amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.01), nn.MSELoss(), level="O2")
    step.set_train()
    x, y = _x(4, 6), _x(4, 3)
    scales, overflows = [], []
    for _ in range(12):
        before = [p.asnumpy().copy() for p in net.trainable_params()]
        _, overflow, scale = step(x, y)
        overflows.append(bool(overflow))
        scales.append(float(scale))
        changed = any(not np.array_equal(b, p.asnumpy()) for b, p in zip(before, net.trainable_params()))
        assert changed != bool(overflow)
    assert overflows[0] and not overflows[-1]  # 2**24 overflows float16; the scale halves until it fits
    assert scales[0] == 2.0 ** 23 and scales[-1] < 2.0 ** 23


def test_to_float_casts_inputs_and_trainable_parameters():
    dense = nn.Dense(3, 2)
    assert dense.to_float(ms.bfloat16) is dense
    out = dense(_x(2, 3))
    assert out.dtype == ms.bfloat16 and dense.weight.dtype == ms.float32
    grads = ms.grad(lambda x: dense(x).astype(ms.float32).sum(), None, dense.trainable_params())(_x(2, 3))
    assert [g.dtype for g in grads] == [ms.float32, ms.float32]
    np.testing.assert_allclose(grads[1].asnumpy(), [2.0, 2.0])



def test_to_float_casts_frozen_parameters_but_not_batchnorm_statistics():
    # MindSpore casts every float input of an op (a frozen weight too) but those the op writes (moving statistics)
    net = nn.SequentialCell(nn.Dense(3, 2), nn.BatchNorm1d(2))
    net[0].weight.set_data(ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 5))
    net[0].bias.set_data(ms.Tensor(np.zeros(2, np.float32)))
    net[0].weight.requires_grad = False
    net.to_float(ms.float16).set_train(True)
    y = net(ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3) / 7))
    assert y.dtype == ms.float16
    np.testing.assert_allclose(y.asnumpy(), [[-1.342, -1.342], [-0.447, -0.447], [0.4465, 0.447], [1.342, 1.342]],
                               atol=2e-3)
    assert net[1].moving_mean.dtype == ms.float32 and net[0].weight.dtype == ms.float32
    # the moving mean after one step: momentum 0.9 from zeros, of the batch mean of x @ W.T
    batch_mean = (np.arange(12).reshape(4, 3) / 7 @ (np.arange(6).reshape(2, 3) / 5).T).mean(0)
    np.testing.assert_allclose(net[1].moving_mean.asnumpy(), 0.1 * batch_mean, rtol=2e-3)

def test_custom_mixed_precision():
    net = amp.custom_mixed_precision(Net(), black_list=[nn.BatchNorm1d], dtype=ms.bfloat16)
    seen = _record_input_dtypes(net, {"fc", "bn"})
    assert net(_x(4, 6)).dtype == ms.float32
    assert seen == {"fc": ms.bfloat16, "bn": ms.float32}
    net = amp.custom_mixed_precision(Net(), white_list=[nn.Dense])
    seen = _record_input_dtypes(net, {"fc", "bn"})
    assert net(_x(4, 6)).dtype == ms.float32 and seen == {"fc": ms.float16, "bn": ms.float32}
    with pytest.raises(ValueError, match="one of white_list and black_list must be provided"):
        amp.custom_mixed_precision(Net())
    with pytest.raises(ValueError, match="cannot be provided at the same time"):
        amp.custom_mixed_precision(Net(), white_list=[nn.Dense], black_list=[nn.BatchNorm1d])
    with pytest.raises(TypeError, match="The element in black_list should be a class"):
        amp.custom_mixed_precision(Net(), black_list=["BatchNorm1d"])


def test_level_and_dtype_errors():
    with pytest.raises(ValueError, match="The dtype should be one of"):
        amp.auto_mixed_precision(Net(), "O2", ms.float32)
    with pytest.raises(ValueError, match="The amp level O5 is not supported"):
        amp.auto_mixed_precision(Net(), "O5")
    with pytest.raises(TypeError, match="the network type should be Cell"):
        amp.auto_mixed_precision(lambda x: x, "O2")
    with pytest.raises(TypeError, match="For amp_level 'O0', the network type should be Cell"):
        amp.auto_mixed_precision(lambda x: x, "O0")


# what mindspore.amp.get_white_list() / get_black_list() of MindSpore 2.10 return (class names, in order)
MS_WHITE = ["Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose", "Conv3dTranspose", "Dense", "LSTMCell",
            "RNNCell", "GRUCell", "Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose", "Conv2DBackpropInput",
            "MatMul", "BatchMatMul", "PReLU", "ReLU", "Ger"]
MS_BLACK = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm"]


def test_white_and_black_lists():
    white, black = amp.get_white_list(), amp.get_black_list()
    assert [c.__name__ for c in white] == MS_WHITE and [c.__name__ for c in black] == MS_BLACK
    assert white[:7] == [nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Conv1dTranspose, nn.Conv2dTranspose, nn.Conv3dTranspose,
                         nn.Dense]
    assert ops.MatMul in white and ops.ReLU in white and ops.Conv2D in white
    assert black == [nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.LayerNorm]
    white.clear()
    assert amp.get_white_list()


def test_static_and_dynamic_loss_scalers():
    s = amp.StaticLossScaler(1024)
    scaled = s.scale((ms.Tensor([1.0, 2.0]), ms.Tensor([3.0], ms.float16)))
    np.testing.assert_array_equal(scaled[0].asnumpy(), [1024.0, 2048.0])
    assert scaled[1].dtype == ms.float16
    np.testing.assert_array_equal(s.unscale(scaled)[0].asnumpy(), [1.0, 2.0])
    assert s.adjust(ms.Tensor(True)) is False
    d = amp.DynamicLossScaler(1024, 2, 3)
    got = []
    for finite in (True, True, True, False, True):
        d.adjust(ms.Tensor(finite))
        got.append((float(d.scale_value), int(d.counter)))
    assert got == [(1024.0, 1), (1024.0, 2), (2048.0, 0), (1024.0, 0), (1024.0, 1)]
    with pytest.raises(ValueError, match="'scale_value' must be > 1"):
        amp.StaticLossScaler(0.5)
    with pytest.raises(ValueError, match="'scale_window' must be int and must > 0"):
        amp.DynamicLossScaler(2, 2, 0)


def test_user_loss_scaler_with_the_grad_scale_maps():
    from mindseed.amp import LossScaler, _grad_scale_map, _grad_unscale_map

    class MyLossScaler(LossScaler):
        def __init__(self, scale_value):
            self.scale_value = ms.Parameter(ms.Tensor(scale_value, dtype=ms.float32), name="scale_value")
            self.scale_factor = 2

        def scale(self, inputs):
            return _grad_scale_map(self.scale_value, inputs)

        def unscale(self, inputs):
            return _grad_unscale_map(self.scale_value, inputs)

        def adjust(self, grads_finite):
            ops.assign(self.scale_value, ops.select(grads_finite, self.scale_value * self.scale_factor,
                                                    self.scale_value))
            return True

    s = MyLossScaler(1024)
    scaled = s.scale((ms.Tensor([1.0, 2.0]), ms.Tensor([3.0], ms.float16)))
    np.testing.assert_array_equal(scaled[0].asnumpy(), [1024.0, 2048.0])
    assert scaled[1].dtype == ms.float16 and float(scaled[1].asnumpy()[0]) == 3072.0
    np.testing.assert_array_equal(s.unscale(scaled)[0].asnumpy(), [1.0, 2.0])
    assert s.adjust(ms.Tensor(True)) is True and float(s.scale_value.asnumpy()) == 2048.0


def test_all_finite():
    assert bool(amp.all_finite((ms.Tensor([1.0]), ms.Tensor([2.0]))))
    assert not bool(amp.all_finite([ms.Tensor([1.0]), ms.Tensor([np.nan])]))
    assert not bool(amp.all_finite(ms.Tensor([-np.inf])))


def test_loss_scale_managers():
    assert ms.DynamicLossScaleManager is amp.DynamicLossScaleManager and ms.train.FixedLossScaleManager is \
        amp.FixedLossScaleManager and ms.build_train_network is amp.build_train_network
    m = amp.DynamicLossScaleManager(1024, 2, 2)
    seq = []
    for overflow in (False, False, True, False, False):
        m.update_loss_scale(overflow)
        seq.append(m.get_loss_scale())
    assert seq == [1024, 2048, 1024.0, 1024.0, 2048.0]
    assert m.get_drop_overflow_update() is True
    cell = m.get_update_cell()
    assert isinstance(cell, nn.DynamicLossScaleUpdateCell) and cell.get_loss_scale() == 2048.0
    f = amp.FixedLossScaleManager(256.0)
    assert f.get_loss_scale() == 256.0 and isinstance(f.get_update_cell(), nn.FixedLossScaleUpdateCell)
    assert amp.FixedLossScaleManager(256.0, False).get_update_cell() is None
    with pytest.raises(ValueError, match="'loss_scale' must be >= 1"):
        amp.FixedLossScaleManager(0.5)
    with pytest.raises(ValueError, match="'init_loss_scale' must be > 1"):
        amp.DynamicLossScaleManager(0.5)


def test_auto_level_casts_are_compiled_in_graph_mode():
    # the 'auto' scope wraps the converted construct (GRAPH_MODE) and the function (ms.jit): the same casts,
    # dtypes, values and gradients as PyNative
    x = ms.Tensor(np.array([[1.0001, 2.0, 3.0]], np.float32))

    def run(mode):
        ms.set_context(mode=mode)
        try:
            ms.set_seed(0)
            net = amp.auto_mixed_precision(nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)), "auto")
            out = net(x)
            loss, grads = ms.value_and_grad(lambda x: net(x).astype(ms.float32).sum(), None,
                                            net.trainable_params())(x)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        return out, loss, grads
    ref_out, ref_loss, ref_grads = run(ms.PYNATIVE_MODE)
    out, loss, grads = run(ms.GRAPH_MODE)
    assert ref_out.dtype == out.dtype == ms.float32      # Dense's bias add promotes (MindSpore)
    np.testing.assert_array_equal(out.asnumpy(), ref_out.asnumpy())
    assert float(loss) == float(ref_loss)
    for g, r in zip(grads, ref_grads):
        assert g.dtype == r.dtype
        np.testing.assert_array_equal(g.asnumpy(), r.asnumpy())

    w = ms.Tensor(np.ones((3, 2), np.float32))
    f = amp.auto_mixed_precision(lambda x, w: ops.matmul(x, w), "auto")
    assert f(x, w).dtype == ms.jit(f)(x, w).dtype == ms.float16


# ---------------------------------------------------------------- the cast policy: scoped, no class changes
def _classes(obj):
    """type() of obj, its cells, the primitives they hold and every registered primitive."""
    from mindseed.ops._registry import registry
    seen = {f"prim {name}": type(p) for name, p in registry.items()}
    if isinstance(obj, nn.Cell):
        for name, cell in obj.cells_and_names():
            seen[f"cell {name}"] = type(cell)
            for attr, value in cell.__dict__.items():
                if isinstance(value, ops.Primitive):
                    seen[f"attr {name}.{attr}"] = type(value)
    return seen


class MatNet(nn.Cell):
    """A white-list primitive instance (O1), functional white- and black-list ops ('auto') and a Dense cell."""

    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()
        self.w = ms.Parameter(ms.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)), name="w")
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        y = self.matmul(x, ops.cast(self.w, x.dtype))
        return self.fc(ops.exp(y.astype(ms.float32) * 0.1))


@pytest.mark.parametrize("level", ["O1", "O2", "O3", "auto"])
def test_no_class_of_a_cell_or_primitive_changes(level):
    net = MatNet()
    before = _classes(net)
    during = []
    net.fc.register_forward_pre_hook(lambda cell, args: during.append(_classes(net)))
    mixed = amp.auto_mixed_precision(net, level, ms.bfloat16)
    out = mixed(_x(2, 3))
    assert out.dtype == ms.float32
    assert _classes(net) == before and during == [before]       # after the call and while the network runs
    if level == "O1":
        # MindSpore's rewrite hands back a new network of <Class>Opt cells, sharing the Parameters
        assert mixed is not net and type(mixed).__name__ == "MatNetOpt" and type(mixed.fc).__name__ == "DenseOpt"
        assert [id(p) for p in mixed.trainable_params()] == [id(p) for p in net.trainable_params()]
        assert type(mixed.matmul) is not ops.MatMul and type(net.matmul) is ops.MatMul
        x = np.random.RandomState(1).uniform(-1, 1, (2, 3)).astype(np.float32)
        np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), _reference_matnet(net, x), rtol=1e-5, atol=1e-6)
        seq = nn.SequentialCell(nn.Dense(3, 4), nn.ReLU())
        seq_o1 = amp.auto_mixed_precision(seq, "O1", ms.bfloat16)
        assert [type(c).__name__ for c in seq_o1.cells()] == ["DenseOpt", "ReLUOpt"] and seq_o1[0] is not seq[0]
        assert seq_o1(ms.Tensor(x)).dtype == ms.float32 and seq(ms.Tensor(x)).dtype == ms.float32
        assert seq_o1[0]._cast_dtype == ms.bfloat16 and seq[0]._cast_dtype is None


def _reference_matnet(net, x):
    w = net.w.asnumpy().astype(np.float64)
    y = np.exp(x.astype(np.float64) @ w * 0.1)
    return y @ net.fc.weight.asnumpy().astype(np.float64).T + net.fc.bias.asnumpy()


@pytest.mark.parametrize("level", ["O1", "auto"])
def test_a_network_without_amp_is_not_affected_by_one_with_amp(level):
    # two networks in one process, one mixed-precision: the other computes in float32 before, between and after
    # the mixed one's calls, also when it is called from inside the mixed network's run
    ms.set_seed(3)
    plain, mixed = MatNet(), amp.auto_mixed_precision(MatNet(), level, ms.bfloat16)
    x = np.random.RandomState(5).uniform(-1, 1, (2, 3)).astype(np.float32)
    ref = _reference_matnet(plain, x)
    inner = []
    mixed.fc.register_forward_pre_hook(lambda cell, args: inner.append(plain(ms.Tensor(x))))
    for _ in range(2):
        out = plain(ms.Tensor(x))
        assert out.dtype == ms.float32
        np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-5, atol=1e-6)
        low = mixed(ms.Tensor(x))
        assert low.dtype == ms.float32
        err = np.abs(low.asnumpy() - _reference_matnet(mixed, x)).max()
        assert 1e-5 < err < 5e-2                # computed in bfloat16: close, and not float32's value
    assert len(inner) == 2
    for got in inner:
        # called inside the mixed network's run, the plain network still computes in float32 (O1 casts belong to
        # the rewritten cells); under 'auto' it inherits the innermost active policy, as MindSpore's amp strategy
        if level == "O1":
            np.testing.assert_allclose(got.asnumpy(), ref, rtol=1e-5, atol=1e-6)
        else:
            assert got.dtype == ms.float32 and np.abs(got.asnumpy() - ref).max() > 1e-5
    from mindseed.ops._registry import cast_policies
    assert cast_policies == []


def test_the_policy_is_restored_when_the_network_raises():
    from mindseed.ops._registry import cast_policies

    class Bad(nn.Cell):
        def construct(self, x):
            y = ops.matmul(x, x)
            raise ValueError(f"bad {y.dtype}")

    net = amp.auto_mixed_precision(Bad(), "auto", ms.bfloat16)
    with pytest.raises(ValueError, match="bad BFloat16"):
        net(_x(2, 2))
    assert cast_policies == []
    assert ops.matmul(_x(2, 2), _x(2, 2)).dtype == ms.float32


@pytest.mark.parametrize("level", ["O1", "O2", "O3", "auto"])
def test_graph_mode_amp_network_matches_pynative(level):
    x = ms.Tensor(np.random.RandomState(2).uniform(-1, 1, (4, 3)).astype(np.float32))

    def run(mode, jit=False):
        ms.set_context(mode=mode)
        try:
            ms.set_seed(7)
            net = amp.auto_mixed_precision(MatNet(), level, ms.float16)
            call = ms.jit(net) if jit else net
            out = call(x)
            grads = ms.grad(lambda x: call(x).sum(), None, net.trainable_params())(x)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        return out, grads

    ref_out, ref_grads = run(ms.PYNATIVE_MODE)
    for out, grads in (run(ms.GRAPH_MODE), run(ms.PYNATIVE_MODE, jit=True)):
        assert out.dtype == ref_out.dtype == ms.float32
        np.testing.assert_array_equal(out.asnumpy(), ref_out.asnumpy())
        assert len(grads) == len(ref_grads) == 3
        for g, r in zip(grads, ref_grads):
            assert g.dtype == r.dtype == ms.float32
            np.testing.assert_array_equal(g.asnumpy(), r.asnumpy())
