"""ONNX export: the model passes onnx.checker (full check) and onnxruntime's outputs equal mindseed's within 1e-5
(LeNet, a ResNet block, an MLP, a net with a tensor-dependent if and while); dynamic batch is a symbolic dim."""
import numpy as np
import pytest

import mindseed as ms
from mindseed import nn

from export import _nets

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

NAMES = ["lenet", "resblock", "mlp", "control", "resnet", "gpt"]


@pytest.fixture(scope="module")
def nets():
    return _nets.build(ms)


def _export(tmp_path, net, x, name, **kwargs):
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / name), file_format="ONNX", **kwargs)
    path = str(tmp_path / (name + ".onnx"))
    return path, ort.InferenceSession(path, providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("name", NAMES)
def test_onnxruntime_matches_mindseed(tmp_path, nets, name):
    net, x = nets[name]
    path, session = _export(tmp_path, net, x, name)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    assert [(o.domain, o.version) for o in model.opset_import] == [("", 11)]
    got = session.run(None, {"x": x})
    ref = _nets.outputs(net(ms.Tensor(x)))
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


def test_weights_are_initializers_named_as_the_checkpoint(tmp_path, nets):
    net, x = nets["resblock"]
    path, _ = _export(tmp_path, net, x, "r")
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}
    for name, p in net.parameters_and_names():
        np.testing.assert_array_equal(inits[name], p.asnumpy())


def test_control_flow_is_if_and_loop(tmp_path, nets):
    net, x = nets["control"]
    path, session = _export(tmp_path, net, x, "c")
    ops = [n.op_type for n in onnx.load(path).graph.node]
    assert "If" in ops and "Loop" in ops
    for sample in (np.full((3, 4), 0.5, np.float32), np.full((3, 4), -3.0, np.float32),
                   np.full((3, 4), 30.0, np.float32)):
        np.testing.assert_allclose(session.run(None, {"x": sample})[0], net(ms.Tensor(sample)).asnumpy(), rtol=1e-5,
                                   atol=1e-5)


@pytest.mark.parametrize("name", ["lenet", "mlp", "resblock"])
def test_dynamic_batch_is_a_symbolic_dim(tmp_path, nets, name):
    net, x = nets[name]
    path, session = _export(tmp_path, net, x, name, dynamic_batch=True)
    graph = onnx.load(path).graph
    assert graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    for batch in (1, 7):
        sample = np.random.RandomState(batch).randn(batch, *x.shape[1:]).astype(np.float32)
        got = session.run(None, {"x": sample})
        for g, r in zip(got, _nets.outputs(net(ms.Tensor(sample)))):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


def test_operator_without_onnx_form_is_named(tmp_path):
    class Sorts(nn.Cell):
        def construct(self, v):
            return ms.ops.sort(v)[0]

    with pytest.raises(ValueError, match="operator 'Sort'.*has no ONNX form"):
        ms.export(Sorts(), ms.Tensor(np.ones((2, 3), np.float32)), file_name=str(tmp_path / "s"), file_format="ONNX")


def _batches(x):
    """Inputs of other batch sizes built from x's rows (one row; the rows, reversed, and one more)."""
    return [x[:1], np.concatenate([x, x[::-1], x[:1]])]


@pytest.mark.parametrize("name", ["lenet", "mlp", "control", "gpt"])
def test_placeholder_with_dynamic_batch_exports_symbolic_dims(tmp_path, nets, name):
    """Tensor(shape=[None, ...]) as the example input: the batch dim is symbolic, and the sizes the network computes
    from it (the GPT's reshapes to (b, t, 3, h, c // h)) are computed at run time."""
    net, x = nets[name]
    placeholder = ms.Tensor(shape=[None, *x.shape[1:]], dtype=ms.Tensor(x).dtype)
    ms.export(net, placeholder, file_name=str(tmp_path / name), file_format="ONNX")
    path = str(tmp_path / (name + ".onnx"))
    assert onnx.load(path).graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for sample in _batches(x):
        got = session.run(None, {"x": sample})
        for g, r in zip(got, _nets.outputs(net(ms.Tensor(sample)))):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


def test_micro_batch_slices_export_as_slices(tmp_path):
    # nn.GradAccumulationCell's micro-batches are MicroBatchSlice calls (Getitem's values): ONNX Slices
    net = nn.GradAccumulationCell(nn.Dense(3, 2), 2)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    path, session = _export(tmp_path, net, x, "micro")
    onnx.checker.check_model(onnx.load(path), full_check=True)
    np.testing.assert_allclose(session.run(None, {"x": x})[0], net(ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-5)


class _Greedy(nn.Cell):
    """A greedy policy (mindspore-rl's GreedyPolicy: the argmax of a Q network, int32), and the argmin over all
    elements and the argmax keeping the reduced dim."""

    def __init__(self):
        super().__init__()
        self.q = nn.Dense(4, 3, weight_init="normal")
        self.argmax = ms.ops.Argmax(output_type=ms.int32)

    def construct(self, x):
        q = self.q(x)
        return self.argmax(q), ms.ops.argmin(q), ms.ops.argmax(q, dim=0, keepdim=True)


def test_argmax_and_argmin_as_onnx(tmp_path):
    net = _Greedy()
    x = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    path, session = _export(tmp_path, net, x, "greedy")
    onnx.checker.check_model(onnx.load(path), full_check=True)
    got = session.run(None, {"x": x})
    q = net.q(ms.Tensor(x)).asnumpy()
    want = [np.argmax(q, -1), np.argmin(q), np.argmax(q, 0)[None]]
    for g, w, r in zip(got, want, net(ms.Tensor(x))):
        assert g.dtype == r.asnumpy().dtype and g.shape == r.shape
        np.testing.assert_array_equal(g, w)
