"""The MindSpore private names MindArmour 2.0.0 and mindspore-xai 1.8.1 import, with MindSpore's behaviour
(docs/compat-private-names.md); the packages themselves run in tests/ecosystem."""

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed.ops import functional as F


def test_train_amp_is_the_module_with_the_build_steps():
    from mindseed.train import amp
    from mindseed.train.amp import _add_loss_network, _config_level, _do_keep_batchnorm_fp32
    import mindseed.train as train
    assert train.amp is amp and amp.build_train_network is ms.amp.build_train_network
    assert set(_config_level) == {"O0", "O1", "O2", "O3", "auto"}
    assert isinstance(_config_level["O2"]["loss_scale_manager"], ms.amp.DynamicLossScaleManager)
    assert _config_level["O3"] == {"keep_batchnorm_fp32": False, "cast_model_type": ms.float16,
                                   "loss_scale_manager": None}
    net = nn.SequentialCell([nn.Dense(3, 4), nn.BatchNorm1d(4)])
    net.to_float(ms.float16)
    _do_keep_batchnorm_fp32(net)             # MindSpore's one-argument form: BatchNorm back in float32
    x = ms.Tensor(np.random.default_rng(0).random((5, 3), dtype=np.float32))
    assert net(x).dtype == ms.float16 and type(net[1]).__name__ == "_OutputTo16"
    y = ms.Tensor(np.zeros((5, 4), np.float32))
    low = _add_loss_network(net, nn.MSELoss(), ms.float16)
    assert low(x, y).dtype == ms.float32 and type(low) is not nn.WithLossCell
    assert type(_add_loss_network(nn.Dense(3, 4), nn.MSELoss(), ms.float32)) is nn.WithLossCell
    with pytest.raises(TypeError, match="loss_fn"):
        _add_loss_network(net, "mse", ms.float32)


def test_grad_overflow_flags_each_gradient():
    from mindseed.nn.wrap.loss_scale import _grad_overflow
    grads = (ms.Tensor(np.ones(3, np.float32)), ms.Tensor(np.array([1.0, np.inf], np.float32)),
             ms.Tensor(np.array([np.nan], np.float32)))
    flags = ms.ops.HyperMap()(F.partial(_grad_overflow), grads)
    assert [f.asnumpy().tolist() for f in flags] == [[0.0], [1.0], [1.0]]
    row = ms.RowTensor(ms.Tensor([0], ms.int32), ms.Tensor(np.array([[np.inf, 1.0]], np.float32)), (2, 2))
    assert _grad_overflow(row).asnumpy().tolist() == [1.0]


def test_virtual_dataset_cell_passes_the_inputs_to_the_backbone():
    from mindseed.nn.wrap.cell_wrapper import _VirtualDatasetCell
    loss = nn.WithLossCell(nn.Dense(3, 2), nn.MSELoss())
    cell = _VirtualDatasetCell(loss)
    x = ms.Tensor(np.random.default_rng(1).random((4, 3), dtype=np.float32))
    y = ms.Tensor(np.zeros((4, 2), np.float32))
    assert float(cell(x, y).asnumpy()) == pytest.approx(float(loss(x, y).asnumpy()))
    assert [p.name for p in cell.trainable_params()] == [p.name for p in loss.trainable_params()]


def test_summary_tensor_data_is_handed_over_once():
    from mindseed.train.summary.summary_record import _get_summary_tensor_data
    _get_summary_tensor_data()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 2)
            self.summary = ms.ops.TensorSummary()

        def construct(self, x):
            y = self.dense(x)
            self.summary("dense", y)
            return y

    net = Net()
    x = ms.Tensor(np.random.default_rng(2).random((4, 3), dtype=np.float32))
    out = net(x)
    data = _get_summary_tensor_data()
    assert list(data) == ["dense[:Tensor]"]
    np.testing.assert_allclose(data["dense[:Tensor]"].asnumpy(), out.asnumpy())
    assert _get_summary_tensor_data() == {}


def test_record_summary_tensor_data_keeps_the_values_of_a_duplicated_tag():
    from mindseed.train.summary.summary_record import _get_summary_tensor_data, _record_summary_tensor_data
    _get_summary_tensor_data()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.summary = ms.ops.TensorSummary()

        def construct(self, x, y):
            x = x + y
            self.summary("data", x)
            self.summary("data", x)
            return x

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Net()(ms.Tensor([1.0]), ms.Tensor([2.0]))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert _record_summary_tensor_data() is None
    data = _get_summary_tensor_data()
    assert list(data) == ["data[:Tensor]"] and data["data[:Tensor]"].asnumpy().tolist() == out.asnumpy().tolist()


def test_summary_ops_record_at_every_run_of_a_compiled_graph():
    # MindArmour's out-of-distribution detector calls `Model.predict` on inputs of one shape again and again: the
    # cached graph records each run's values, as MindSpore's graph does
    from mindseed.train.summary.summary_record import _get_summary_tensor_data
    _get_summary_tensor_data()

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 2)
            self.summary = ms.ops.TensorSummary()
            self.scalar = ms.ops.ScalarSummary()

        def construct(self, x):
            y = self.dense(x)
            self.summary("dense", y)
            self.scalar("total", y.sum())
            return y * 2

    net = Net()
    fn = ms.jit(net.construct)
    rng = np.random.default_rng(3)
    for shape in ((4, 3), (5, 3), (5, 3), (4, 3)):
        x = rng.random(shape, dtype=np.float32)
        out = fn(ms.Tensor(x)).asnumpy()
        data = _get_summary_tensor_data()
        assert sorted(data) == ["dense[:Tensor]", "total[:Scalar]"]
        np.testing.assert_allclose(data["dense[:Tensor]"].asnumpy(), out / 2, rtol=1e-6)
        assert float(data["total[:Scalar]"].asnumpy()) == pytest.approx(out.sum() / 2, rel=1e-5)


def test_npu_float_status_primitives_in_math_ops():
    from mindseed.ops.operations.math_ops import NPUAllocFloatStatus, NPUClearFloatStatus, NPUGetFloatStatus
    status = NPUAllocFloatStatus()()
    np.testing.assert_array_equal(status.asnumpy(), np.zeros(8, np.float32))
    NPUClearFloatStatus()(status)
    np.testing.assert_array_equal(NPUGetFloatStatus()(status).asnumpy(), np.zeros(8, np.float32))
    assert ms.ops.NPUGetFloatStatus is NPUGetFloatStatus


def test_dataset_engine_and_py_transforms_util():
    import mindseed.dataset as ds
    from mindseed.dataset import engine
    from mindseed.dataset.vision.py_transforms_util import hwc_to_chw, is_numpy
    assert engine.Dataset is ds.Dataset and engine.NumpySlicesDataset is ds.NumpySlicesDataset
    assert set(engine.__all__) == set(ds.__all__)
    img = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    np.testing.assert_array_equal(hwc_to_chw(img), img.transpose(2, 0, 1))
    np.testing.assert_array_equal(hwc_to_chw(img[..., 0]), img[..., 0])
    assert is_numpy(img) and not is_numpy([1])
    with pytest.raises(TypeError, match="NumPy array"):
        hwc_to_chw([[1]])
    with pytest.raises(TypeError, match="dimension should be 2 or 3"):
        hwc_to_chw(np.zeros((1, 2, 3, 4)))


def test_train_utils_check_value_type():
    from mindseed.train._utils import check_value_type
    check_value_type("n", 3, int)
    check_value_type("x", ms.Tensor(1.0), (ms.Tensor, int))
    check_value_type("flag", True, [bool])
    with pytest.raises(TypeError, match=r"For `n` the type should be a valid type of \['int'\], but got bool"):
        check_value_type("n", True, int)
    with pytest.raises(TypeError, match=r"\['Tensor', 'int'\], but got str"):
        check_value_type("x", "a", (ms.Tensor, int))
