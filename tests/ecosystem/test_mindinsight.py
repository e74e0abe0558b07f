"""MindInsight 2.3.1 reads what mindseed's SummaryCollector writes: the lineage, every summary type and the graph.

A small run (zero-initialised linear net on 8x8 grey images, summary ops on its input) writes a summary file and
lineage files; MindInsight, run as a user runs it (a process of its own, with the protobuf it pins), answers through
its lineage manager (`filter_summary_lineage`) and its datavisual `DataLoader`. The values it returns are checked
against the run's known numbers: ln(10) as the first loss, the input batches as images, tensors and histograms.
"""
import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from _eco import require
from PIL import Image

from mindseed import nn, ops
from mindseed.dataset import NumpySlicesDataset
from mindseed.train import Accuracy, Model, SummaryCollector

RNG = np.random.default_rng(3)
IMAGES = RNG.random((16, 1, 8, 8)).astype(np.float32)
LABELS = (np.arange(16) % 10).astype(np.int32)
BATCH = 4

# MindInsight's side: its lineage and datavisual readers, their answers printed as JSON
READER = r"""
import json, sys
from mindinsight.lineagemgr.model import filter_summary_lineage
from mindinsight.datavisual.data_transform.data_loader import DataLoader
base, run = sys.argv[1], sys.argv[2]
lineage = filter_summary_lineage(summary_base_dir=base)
loader = DataLoader(base + "/" + run)
loader.load()
events = loader.get_events_data()
out = {"lineage": lineage, "plugins": {}}
for plugin in ("scalar", "image", "histogram", "tensor"):
    try:
        tags = events.list_tags_by_plugin(plugin)
    except KeyError:
        continue
    for tag in tags:
        for t in events.tensors(tag):
            v = t.value
            if plugin == "scalar":
                v = float(v)
            elif plugin == "image":
                v = {"height": v.height, "width": v.width, "png": v.encoded_image.hex()}
            elif plugin == "histogram":
                v = {"count": v.count, "max": v.max, "min": v.min}
            else:
                v = {"dims": list(v.dims), "values": v.tensor_value.tolist(), "max": v.max, "count": v.count}
            out["plugins"].setdefault(plugin, {}).setdefault(tag, []).append([t.step, v])
print(json.dumps(out, default=str))
"""


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(64, 10, weight_init="zeros", bias_init="zeros")
        self.tensor_summary = ops.TensorSummary()
        self.histogram_summary = ops.HistogramSummary()

    def construct(self, x):
        self.tensor_summary("x0", x[0])
        self.histogram_summary("x", x)
        return self.fc(self.flatten(x))


def _data():
    return NumpySlicesDataset({"image": IMAGES, "label": LABELS}, shuffle=False).batch(BATCH)


@pytest.fixture(scope="module")
def mindinsight(tmp_path_factory):
    """Train 2 epochs (4 steps each) and evaluate, each with a SummaryCollector; MindInsight's answers."""
    where = require("mindinsight")
    base = tmp_path_factory.mktemp("mindinsight")
    net = Net()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9), metrics={"acc": Accuracy()})
    run = str(base / "run")
    model.train(2, _data(), callbacks=[SummaryCollector(run, collect_freq=2, custom_lineage_data={"owner": "ci"})])
    acc = model.eval(_data(), callbacks=[SummaryCollector(run)])["acc"]
    env = dict(os.environ, PYTHONPATH=where)
    env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    proc = subprocess.run([sys.executable, "-c", READER, str(base), "run"], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), acc


def _batch(step):
    """The input batch of a (1-based) training step: 4 steps an epoch, in order."""
    i = (step - 1) % (len(IMAGES) // BATCH)
    return IMAGES[i * BATCH:(i + 1) * BATCH]


def test_lineage_manager_reads_hyper_parameters_metrics_and_dataset_graph(mindinsight):
    answer, acc = mindinsight
    (obj,) = answer["lineage"]["object"]
    assert obj["summary_dir"] == "./run"
    model = obj["model_lineage"]
    assert {k: model[k] for k in ("optimizer", "loss_function", "network", "epoch", "batch_size", "device_num",
                                  "train_dataset_count", "test_dataset_count", "model_size")} == \
        {"optimizer": "Momentum", "loss_function": "SoftmaxCrossEntropyWithLogits", "network": "Net", "epoch": 2,
         "batch_size": 4, "device_num": 1, "train_dataset_count": 16, "test_dataset_count": 16, "model_size": 0}
    np.testing.assert_allclose(model["learning_rate"], 0.1, rtol=1e-6)
    assert np.isfinite(model["loss"]) and model["loss"] > 0
    assert model["metric"] == {"acc": acc} and model["user_defined"] == {"owner": "ci"}
    graph = obj["dataset_graph"]
    assert (graph["op_type"], graph["batch_size"], graph["drop_remainder"]) == ("Batch", 4, False)
    assert graph["children"][0]["op_type"] == "NumpySlicesDataset"
    assert set(answer["lineage"]["customized"]) == {"metric/acc", "user_defined/owner"}


def test_datavisual_reads_scalars_and_images(mindinsight):
    plugins = mindinsight[0]["plugins"]
    (loss,) = plugins["scalar"].values()
    assert [step for step, _ in loss] == [1, 2, 4, 6, 8]
    np.testing.assert_allclose(loss[0][1], np.log(10), rtol=1e-6)  # zero weights: uniform logits over 10 classes
    images = plugins["image"]["input_data/auto/image"]
    assert [step for step, _ in images] == [1, 2, 4, 6, 8]
    for step, img in images:
        canvas = np.concatenate(list((_batch(step)[:, 0] * 255).astype(np.uint8)), axis=1)  # one row, grey as RGB
        assert (img["height"], img["width"]) == (8, 32)
        decoded = np.asarray(Image.open(io.BytesIO(bytes.fromhex(img["png"]))))
        np.testing.assert_array_equal(decoded, np.repeat(canvas[:, :, None], 3, axis=2))


def test_datavisual_reads_tensors_and_histograms(mindinsight):
    plugins = mindinsight[0]["plugins"]
    tensors = plugins["tensor"]["x0/tensor"]
    assert [step for step, _ in tensors] == [1, 2, 4, 6, 8]
    for step, t in tensors:
        assert t["dims"] == [1, 8, 8]
        np.testing.assert_array_equal(np.asarray(t["values"], np.float32), _batch(step)[0])
    hist = plugins["histogram"]
    assert set(hist) == {"x/histogram", "fc.weight/auto/histogram", "fc.bias/auto/histogram"}
    for step, h in hist["x/histogram"]:
        x = _batch(step)
        assert h["count"] == x.size
        np.testing.assert_allclose((h["min"], h["max"]), (x.min(), x.max()), rtol=1e-6)
    assert all(h["count"] == 640 for _, h in hist["fc.weight/auto/histogram"])


# MindInsight's graph view: the graph event's nodes, by scope, as its loader builds them
GRAPH_READER = r"""
import json, sys
from mindinsight.datavisual.data_transform.data_loader import DataLoader
def main():
    loader = DataLoader(sys.argv[1])
    loader.load()
    events = loader.get_events_data()
    try:
        tags = events.list_tags_by_plugin("graph")
    except KeyError:
        tags = []
    out = {"graphs": len(tags)}
    if tags:
        graph = events.tensors(tags[0])[0].value
        nodes = graph._normal_node_map.values()
        out["count"] = graph.normal_node_count
        out["ops"] = sorted((n.name, n.type, n.output_shape) for n in nodes if n.type not in ("Parameter", "Const")
                            and not n.type.endswith("scope"))
        out["params"] = sorted((n.name, n.output_shape) for n in nodes if n.type == "Parameter")
        out["top"] = sorted(n["name"] for n in graph.list_node_by_scope())
        out["lenet"] = sorted(n["name"] for n in
                              graph.list_node_by_scope("Default/network-WithLossCell/_backbone-LeNet5"))
        (conv,) = [n for n in graph.list_node_by_scope("Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d")
                   if n["type"] == "Conv2D"]
        out["conv1"] = {"inputs": sorted(conv["input"]), "outputs": sorted(conv["output"])}
    print(json.dumps(out))
if __name__ == "__main__":
    main()
"""


def _lenet_graph_run(tmp_path, mode):
    """One epoch (2 steps) of the tutorial's LeNet in `mode` with a SummaryCollector collecting the graph; what
    MindInsight's graph loader reads back."""
    import mindseed as ms
    from _lenet_tutorial import LeNet5  # noqa: PLC0415
    where = require("mindinsight")
    run = tmp_path / "run"
    ms.set_context(mode=mode)
    try:
        ms.set_seed(1)
        net = LeNet5()
        images = RNG.random((8, 1, 32, 32)).astype(np.float32)
        data = NumpySlicesDataset({"image": images, "label": LABELS[:8]}, shuffle=False).batch(4)
        model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                      nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9))
        model.train(1, data, callbacks=[SummaryCollector(str(run), collect_freq=1,
                                                         collect_specified_data={"collect_graph": True})])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    env = dict(os.environ, PYTHONPATH=where)
    env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    proc = subprocess.run([sys.executable, "-c", GRAPH_READER, str(run)], env=env, capture_output=True, text=True,
                          timeout=300, check=False, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_graph_of_a_lenet_trained_in_graph_mode(tmp_path):
    """SummaryCollector(collect_specified_data={'collect_graph': True}) in GRAPH_MODE writes the train step's graph
    (forward, gradients, optimizer) as MindSpore does, and MindInsight's graph loader rebuilds it: the operators
    under the scopes MindSpore gives them (Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d, Gradients/...),
    their output shapes, the weights and inputs as parameters, the edges of each operator."""
    import mindseed as ms
    g = _lenet_graph_run(tmp_path, ms.GRAPH_MODE)
    lenet = "Default/network-WithLossCell/_backbone-LeNet5"
    assert g["graphs"] == 1 and g["top"] == ["Default", "Gradients"]
    assert g["lenet"] == [f"{lenet}/{s}" for s in ("conv1-Conv2d", "conv2-Conv2d", "fc1-Dense", "fc2-Dense",
                                                   "fc3-Dense", "flatten-Flatten", "max_pool2d-MaxPool2d", "relu-ReLU")]
    ops = {name: (kind, shape) for name, kind, shape in g["ops"]}
    forward = {name: v for name, v in ops.items() if name.startswith(lenet)}
    assert forward == {
        f"{lenet}/conv1-Conv2d/Conv2D-op0": ("Conv2D", [[4, 6, 28, 28]]),
        f"{lenet}/conv2-Conv2d/Conv2D-op0": ("Conv2D", [[4, 16, 10, 10]]),
        f"{lenet}/max_pool2d-MaxPool2d/MaxPool-op0": ("MaxPool", [[4, 6, 14, 14]]),
        f"{lenet}/max_pool2d-MaxPool2d/MaxPool-op1": ("MaxPool", [[4, 16, 5, 5]]),
        f"{lenet}/relu-ReLU/ReLU-op0": ("ReLU", [[4, 6, 14, 14]]),
        f"{lenet}/relu-ReLU/ReLU-op1": ("ReLU", [[4, 16, 5, 5]]),
        f"{lenet}/relu-ReLU/ReLU-op2": ("ReLU", [[4, 120]]),
        f"{lenet}/relu-ReLU/ReLU-op3": ("ReLU", [[4, 84]]),
        f"{lenet}/flatten-Flatten/Reshape-op0": ("Reshape", [[4, 400]]),
        f"{lenet}/fc1-Dense/Dense-op0": ("Dense", [[4, 120]]),
        f"{lenet}/fc2-Dense/Dense-op0": ("Dense", [[4, 84]]),
        f"{lenet}/fc3-Dense/Dense-op0": ("Dense", [[4, 10]])}
    kinds = [kind for kind, _ in ops.values()]
    assert kinds.count("Conv2DBackpropFilter") == 2 and kinds.count("Conv2DBackpropInput") == 1
    assert kinds.count("MaxPoolGrad") == 2 and kinds.count("ReluGrad") == 4
    assert all(name.startswith("Gradients/") for name, (kind, _) in ops.items() if kind.endswith("Grad"))
    assert len(ops) == 35 and g["count"] == 90
    params = dict((name.rsplit("/", 1)[-1], shape) for name, shape in g["params"])
    assert params["inputs0"] == [[4, 1, 32, 32]] and params["inputs1"] == [[4]]
    assert params["conv1.weight"] == [[6, 1, 5, 5]] and params["fc1.weight"] == [[120, 400]]
    assert f"{lenet}/conv1-Conv2d/inputs0" in g["conv1"]["inputs"]
    assert f"{lenet}/conv1-Conv2d/conv1.weight" in g["conv1"]["inputs"]
    assert f"{lenet}/max_pool2d-MaxPool2d/MaxPool-op0" in g["conv1"]["outputs"]


def test_no_graph_in_pynative_mode(tmp_path):
    """PyNative mode runs no graph: nothing to collect (MindSpore warns and writes none)."""
    import mindseed as ms
    assert _lenet_graph_run(tmp_path, ms.PYNATIVE_MODE) == {"graphs": 0}
