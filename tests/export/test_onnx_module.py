"""mindspore.onnx.export: named inputs and outputs, dynamic axes, weights as inputs; the model runs in onnxruntime
and gives the network's values."""
import numpy as np
import onnx
import pytest

import mindseed as ms
from mindseed import nn
from tests.export._onnx_models import onnxruntime_outputs


def _net():
    ms.set_seed(0)
    return nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])


def _signature(path):
    g = onnx.load(path).graph
    dims = [(i.name, [d.dim_value or d.dim_param for d in i.type.tensor_type.shape.dim]) for i in g.input]
    return dims, [o.name for o in g.output], [i.name for i in g.initializer]


def test_names_and_dynamic_axes(tmp_path):
    net = _net()
    x = ms.Tensor(np.ones((2, 3), np.float32))
    ms.onnx.export(net, x, file_name=str(tmp_path / "m"), input_names=["inp"], output_names=["out"],
                   dynamic_axes={"inp": {0: "batch"}})
    path = str(tmp_path / "m.onnx")
    inputs, outputs, inits = _signature(path)
    assert inputs == [("inp", ["batch", 3])] and outputs == ["out"] and inits == ["0.weight", "0.bias", "2.weight",
                                                                                  "2.bias"]
    x5 = np.arange(15, dtype=np.float32).reshape(5, 3) / 7
    np.testing.assert_allclose(onnxruntime_outputs(path, {"inp": x5})[0], net(ms.Tensor(x5)).asnumpy(), atol=1e-6)


def test_weights_as_inputs(tmp_path):
    net = _net()
    x = np.ones((2, 3), np.float32)
    ms.onnx.export(net, ms.Tensor(x), file_name=str(tmp_path / "a.onnx"), export_params=False)
    ms.onnx.export(net, ms.Tensor(x), file_name=str(tmp_path / "b.onnx"), keep_initializers_as_inputs=True)
    a, b = _signature(str(tmp_path / "a.onnx")), _signature(str(tmp_path / "b.onnx"))
    assert [n for n, _ in a[0]] == [n for n, _ in b[0]] == ["x", "0.weight", "0.bias", "2.weight", "2.bias"]
    assert a[2] == [] and b[2] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    feeds = {"x": x, **{name: p.asnumpy() for name, p in net.parameters_and_names()}}
    np.testing.assert_allclose(onnxruntime_outputs(str(tmp_path / "a.onnx"), feeds)[0],
                               net(ms.Tensor(x)).asnumpy(), atol=1e-6)


def test_bad_arguments(tmp_path):
    x = ms.Tensor(np.ones((1, 3), np.float32))
    with pytest.raises(ValueError, match="The parameter 'net' must be isinstance of"):
        ms.onnx.export(3, x, file_name=str(tmp_path / "z"))
    with pytest.raises(ValueError, match="The parameter 'input_names' must be isinstance of <class 'list'>"):
        ms.onnx.export(_net(), x, file_name=str(tmp_path / "z"), input_names="x")
    with pytest.raises(ValueError, match="'dynamic_axes' names the input 'y'"):
        ms.onnx.export(_net(), x, file_name=str(tmp_path / "z"), dynamic_axes={"y": {0: "b"}})
    assert not list(tmp_path.iterdir())
