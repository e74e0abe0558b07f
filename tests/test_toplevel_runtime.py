"""Top-level runtime names: Symbol constraints, enable_dynamic, set_dump, ms_memory_recycle, flops_collection,
memory_replay, DeviceCtx, the MindIO settings, Tensor pickling state and __req__."""
import json
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn


class _Abs(nn.Cell):
    def construct(self, x):
        return ms.ops.abs(x) * 2


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_symbol_args_checked():
    assert ms.Symbol(max=32, divisor=8).to_dict() == {"max": 32, "divisor": 8}
    with pytest.raises(ValueError, match="'min' value should be positive"):
        ms.Symbol(min=0)
    with pytest.raises(ValueError, match=r"'remainder' value should be in the range '\[0, 4\)'"):
        ms.Symbol(divisor=4, remainder=4)
    with pytest.raises(TypeError, match="'max' must be int"):
        ms.Symbol(max=1.5)
    with pytest.raises(TypeError, match="'unique' must be bool"):
        ms.Symbol(unique=1)


def test_symbol_dims_checked_per_call(graph_mode):
    net = _Abs()
    s1, s2 = ms.Symbol(divisor=8, remainder=1), ms.Symbol(max=32, unique=True)
    net.set_inputs(ms.Tensor(shape=(None, s1, s2, s2), dtype=ms.float32))
    x = np.random.randn(1, 9, 4, 4).astype(np.float32)
    np.testing.assert_allclose(net(ms.Tensor(x)).asnumpy(), np.abs(x) * 2, rtol=1e-6)
    y = np.random.randn(2, 17, 5, 5).astype(np.float32)
    np.testing.assert_allclose(net(ms.Tensor(y)).asnumpy(), np.abs(y) * 2, rtol=1e-6)
    with pytest.raises(ValueError, match=r"2th shape value of 1th actual input args must match the 'divisor'.*'10'"):
        net(ms.Tensor(np.ones((1, 10, 4, 4), np.float32)))
    with pytest.raises(ValueError, match="4th shape value .* is a unique symbol.*previous value is 4.*current value "
                                         "is 5"):
        net(ms.Tensor(np.ones((1, 9, 4, 5), np.float32)))
    with pytest.raises(ValueError, match="3th shape value .* less than or equal to the 'max' value '32'.*'40'"):
        net(ms.Tensor(np.ones((1, 9, 40, 40), np.float32)))


def test_enable_dynamic_compiles_once_for_all_sizes():
    @ms.enable_dynamic(y=ms.Tensor(shape=[None, 3], dtype=ms.float32))
    @ms.jit
    def f(x, y):
        return x + 1, y * 2

    x = ms.Tensor(np.ones(2, np.float32))
    for n in (2, 5, 7):
        y = np.random.rand(n, 3).astype(np.float32)
        np.testing.assert_allclose(f(x, ms.Tensor(y))[1].asnumpy(), y * 2, rtol=1e-6)
    assert f.traces <= 3 and len(f.cache) == 1     # one graph for every n
    with pytest.raises(ValueError, match="the shape of 2th input must be the same as expected, but got expected: 3, "
                                         "and input: 4"):
        f(x, ms.Tensor(np.ones((2, 4), np.float32)))


def test_enable_dynamic_bad_input():
    with pytest.raises(ValueError, match="cannot be empty"):
        ms.enable_dynamic()
    with pytest.raises(TypeError, match="only supports Tensor"):
        ms.enable_dynamic(x=3)
    with pytest.raises(TypeError, match="at least have one None"):
        ms.enable_dynamic(x=ms.Tensor(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match="decrocated by ms.jit"):
        ms.enable_dynamic(x=ms.Tensor(shape=[None], dtype=ms.float32))(lambda x: x)
    with pytest.raises(ValueError, match="exceeds the number of function arguments"):
        ms.enable_dynamic(x=ms.Tensor(shape=[None], dtype=ms.float32),
                          y=ms.Tensor(shape=[None], dtype=ms.float32))(ms.jit(lambda x: x))


def test_set_dump_writes_marked_cells(tmp_path, monkeypatch):
    cfg = tmp_path / "dump.json"
    cfg.write_text(json.dumps({"common_dump_settings": {"dump_mode": 2, "path": str(tmp_path / "out"),
                                                        "net_name": "Net", "input_output": 0}}))
    monkeypatch.setenv("MINDSPORE_DUMP_CONFIG", str(cfg))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a, self.b = _Abs(), _Abs()

        def construct(self, x):
            return self.b(self.a(x))

    net = Net()
    ms.set_dump(net.a)
    x = np.array([-1.0, 2.0], np.float32)
    net(ms.Tensor(x))
    folder = tmp_path / "out" / "rank_0" / "Net" / "0" / "0"
    files = sorted(os.listdir(folder))
    assert files == ["_Abs.Default.input.0.npy", "_Abs.Default.output.0.npy"]
    np.testing.assert_allclose(np.load(folder / files[1]), np.abs(x) * 2)
    ms.set_dump(net.a, False)
    net(ms.Tensor(x))
    assert not (tmp_path / "out" / "rank_0" / "Net" / "0" / "1").exists()
    prim = ms.ops.Add()
    ms.set_dump(prim)
    assert prim.attrs["dump"] == "true"
    with pytest.raises(ValueError, match="must be an instance of Cell or Primitive"):
        ms.set_dump(3)
    with pytest.raises(ValueError, match="must be bool"):
        ms.set_dump(net, 1)


def test_set_dump_of_a_cell_switches_its_marked_primitives():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu, self.add = ms.ops.ReLU(), ms.ops.Add()

        def construct(self, x):
            return self.add(self.relu(x), x)

    net = Net()
    ms.set_dump(net.relu)
    assert net.relu.attrs.get("dump") == "true"
    ms.set_dump(net, False)
    assert net.relu.attrs.get("dump") == "false" and "dump" not in net.add.attrs
    ms.set_dump(net)
    assert net.relu.attrs.get("dump") == "true"


def test_flops_collection_and_memory_recycle(graph_mode):
    net = nn.Dense(10, 5)
    x = ms.Tensor(np.random.rand(32, 10).astype(np.float32))
    net.set_train(False)
    net(x)
    model, hardware, shard_model, shard_hardware, dynamic = ms.flops_collection("predict")
    assert (model, hardware, shard_model, shard_hardware, dynamic) == (2 * 32 * 10 * 5,) * 4 + (False,)
    ms.ms_memory_recycle()
    assert not net.__dict__["_ms_compiled"].cache
    np.testing.assert_allclose(net(x).asnumpy(), x.asnumpy() @ net.weight.asnumpy().T + net.bias.asnumpy(),
                               rtol=1e-5, atol=1e-6)
    assert len(net.__dict__["_ms_compiled"].cache) == 1    # compiled again


def test_flops_counts_conv_and_grad(graph_mode):
    conv = nn.Conv2d(3, 4, 3, pad_mode="valid", has_bias=False)
    x = ms.Tensor(np.random.rand(2, 3, 8, 8).astype(np.float32))

    weights = conv.trainable_params()       # outside the graph: MindSpore refuses Cell.trainable_params inside

    @ms.jit
    def step(x):
        return ms.value_and_grad(lambda x: conv(x).sum(), grad_position=None, weights=weights)(x)

    step(x)
    model, _, _, _, _ = ms.flops_collection("jit")
    forward = 2 * (2 * 4 * 6 * 6) * (3 * 3 * 3)
    assert model == 2 * forward        # the forward and the weight gradient (no input gradient is asked for)


def test_memory_replay(tmp_path):
    path = tmp_path / "memory_block.csv"
    path.write_text("start_time_stamp,end_time_stamp,size,type\n0,5,100,a\n1,3,50,b\n3,6,70,c\n6,7,10,d\n")
    assert ms.memory_replay(str(path)) == 170      # 100 + 70 at t=3 (50 freed at 3 first)
    assert ms.runtime.memory_replay is ms.memory_replay and ms.runtime.memory_replay(str(path)) == 170
    with pytest.raises(FileNotFoundError):
        ms.memory_replay(str(tmp_path / "none.csv"))
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="must have the columns"):
        ms.memory_replay(str(tmp_path / "bad.csv"))


def test_device_ctx():
    before = ms.get_current_device()
    with ms.DeviceCtx("CPU") as ctx:
        assert ms.get_current_device() == "CPU" and ctx.device_id is None
    assert ms.get_current_device() == before
    with pytest.raises(ValueError, match="must be one of"):
        with ms.DeviceCtx("TPU"):
            pass
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        with ms.DeviceCtx("CPU", -1):
            pass


def test_mindio_settings():
    from mindseed import _toplevel_runtime as T
    ms.set_mindio_server_info(8)
    assert T.mindio_server_info["memfs.data_block_pool_capacity_in_gb"] == "8"
    ms.set_mindio_server_info()
    with pytest.raises(ValueError, match="positive"):
        ms.set_mindio_server_info(0)
    with pytest.raises(TypeError, match="must be str"):
        ms.mindio_preload(3)
    assert ms.mindio_preload("x.ckpt") is False      # MindIO is not installed here


def test_tensor_state_and_req():
    t = ms.Tensor(np.arange(3, dtype=np.float32))
    state = t.__getstate__()
    np.testing.assert_array_equal(state["value"][0], [0, 1, 2])
    u = ms.Tensor(0)
    u.__setstate__(state)
    assert u.dtype == ms.float32 and u.tolist() == [0.0, 1.0, 2.0]
    u.__setstate__((np.array([5], np.int32),))
    assert u.dtype == ms.int32 and u.tolist() == [5]
    with pytest.raises(TypeError, match="Tensor.__setstate__"):
        u.__setstate__(3)
    assert t.__req__(1.0).tolist() == [False, True, False]
