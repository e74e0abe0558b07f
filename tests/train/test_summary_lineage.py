"""MindSpore's lineage: SummaryRecord's lineage plugins and the `_lineage` file SummaryCollector writes.

The expected values are what MindSpore 2.10's SummaryCollector wrote for the same run (a linear net on 16 MNIST-format
images, Momentum lr 0.01, 2 epochs of 4 batches, then an evaluation), recorded here as literals.
"""
import json
import os
import struct

import numpy as np
import pytest

import mindseed as ms
import mindseed.dataset as ds
from mindseed import nn
from mindseed.dataset import transforms, vision
from mindseed.train import (Accuracy, CheckpointConfig, Model, ModelCheckpoint, SummaryCollector, SummaryRecord,
                            lineage_pb2)
from mindseed.train.summary import _event_file as E


def _lineage_events(directory):
    """{file name: [LineageEvent]} of the lineage files in `directory`, CRCs checked."""
    out = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith("_lineage"):
            with open(os.path.join(directory, name), "rb") as f:
                out[name] = [lineage_pb2.LineageEvent.FromString(r) for r in E.read_records(f.read())]
    return out


def _write_mnist(directory, n=16):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    labels = (np.arange(n) % 10).astype(np.uint8)
    os.makedirs(directory)
    for prefix in ("train", "t10k"):
        with open(os.path.join(directory, f"{prefix}-images-idx3-ubyte"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        with open(os.path.join(directory, f"{prefix}-labels-idx1-ubyte"), "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())


def _mnist(directory, usage):
    d = ds.MnistDataset(directory, usage=usage, shuffle=False)
    d = d.map([vision.Rescale(1 / 255.0, 0.0), vision.HWC2CHW()], input_columns="image")
    return d.map(transforms.TypeCast(ms.int32), input_columns="label").batch(4)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(784, 10, weight_init="zeros", bias_init="zeros")

    def construct(self, x):
        return self.fc(self.flatten(x))


@pytest.fixture(scope="module")
def mnist_run(tmp_path_factory):
    """Train 2 epochs with a ModelCheckpoint and a SummaryCollector, then evaluate with another collector."""
    root = tmp_path_factory.mktemp("lineage")
    data_dir = str(root / "mnist")
    _write_mnist(data_dir)
    net = Net()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9), metrics={"acc": Accuracy()})
    summary = str(root / "summary")
    ckpt = ModelCheckpoint(prefix="lin", directory=str(root / "ckpt"), config=CheckpointConfig(save_checkpoint_steps=4))
    custom = {"version": "v1", "n": 3, "ratio": 0.5}
    collector = SummaryCollector(summary, 2, custom_lineage_data=custom)
    model.train(2, _mnist(data_dir, "train"), callbacks=[ckpt, collector])
    result = model.eval(_mnist(data_dir, "test"), callbacks=[SummaryCollector(summary, collect_freq=2)])
    return {"root": root, "data_dir": data_dir, "summary": summary, "acc": result["acc"],
            # the train run's file first (in the same second the eval file's name sorts before it)
            "events": sorted(_lineage_events(summary).values(), key=lambda evs: evs[-1].HasField("evaluation_lineage"))}


def test_train_lineage_fields_are_mindspores(mnist_run):
    train_events, _ = mnist_run["events"]
    assert [e.WhichOneof("what") for e in train_events] == ["dataset_graph", "user_defined_info", "train_lineage"]
    assert all(not e.HasField("step") and e.wall_time > 0 for e in train_events)
    train = train_events[2].train_lineage
    hyper = train.hyper_parameters
    assert (hyper.optimizer, hyper.loss_function, hyper.epoch, hyper.parallel_mode, hyper.device_num,
            hyper.batch_size) == ("Momentum", "SoftmaxCrossEntropyWithLogits", 2, "stand_alone", 1, 4)
    assert hyper.learning_rate == np.float32(0.01)
    assert (train.train_dataset.train_dataset_path, train.train_dataset.train_dataset_size) == \
        (mnist_run["data_dir"], 16)
    assert train.algorithm.network == "Net"
    np.testing.assert_allclose(train.algorithm.loss, 1.4894891, rtol=1e-5)   # MindSpore's final loss
    ckpt = os.path.realpath(os.path.join(mnist_run["root"], "ckpt", "lin-2_4.ckpt"))
    assert json.loads(train.model.path) == {"ckpt": ckpt}
    assert train.model.size == os.path.getsize(ckpt)
    user = train_events[1].user_defined_info
    assert [dict(u.map_str) for u in user.user_info] == [{"version": "v1"}, {}, {}]
    assert [dict(u.map_int32) for u in user.user_info] == [{}, {"n": 3}, {}]
    assert [dict(u.map_double) for u in user.user_info] == [{}, {}, {"ratio": 0.5}]


def test_eval_lineage_and_dataset_graph(mnist_run):
    _, eval_events = mnist_run["events"]
    (event,) = eval_events
    assert mnist_run["acc"] == 0.75
    evaluation = event.evaluation_lineage
    assert json.loads(evaluation.metric) == {"acc": 0.75}
    assert (evaluation.valid_dataset.valid_dataset_path, evaluation.valid_dataset.valid_dataset_size) == \
        (mnist_run["data_dir"], 16)
    graph = mnist_run["events"][0][0].dataset_graph
    assert graph.parameter.mapStr["op_type"] == "Batch"
    assert (graph.parameter.mapInt["batch_size"], graph.parameter.mapBool["drop_remainder"]) == (4, False)
    label_map = graph.children[0]
    assert label_map.parameter.mapStr["op_type"] == "Map"
    assert list(label_map.parameter.mapStrList["input_columns"].strValue) == ['"label"']
    assert [op.operationParam.mapStr["tensor_op_name"] for op in label_map.operations] == ["TypeCast"]
    image_map = label_map.children[0]
    rescale = image_map.operations[0].operationParam.mapStr
    assert rescale["tensor_op_name"] == "Rescale"
    np.testing.assert_allclose(json.loads(rescale["tensor_op_params"])["rescale"], 1 / 255, rtol=1e-7)
    source = image_map.children[0].parameter.mapStr
    assert (source["op_type"], source["dataset_dir"], source["usage"]) == ("MnistDataset", mnist_run["data_dir"],
                                                                           "train")


def test_lineage_file_is_named_as_mindspores_and_made_on_demand(tmp_path):
    with SummaryRecord(str(tmp_path), file_prefix="run") as rec:
        rec.add_value("scalar", "x", ms.Tensor(1.0))
        rec.record(1)
        summary_name = os.path.basename(rec.log_dir)
    assert os.listdir(tmp_path) == [summary_name]           # no lineage written: no lineage file
    with SummaryRecord(str(tmp_path / "tb"), file_prefix="run", format="tensorboard") as rec:
        message = lineage_pb2.EvaluationLineage(metric='{"acc": 1.0}')
        rec.add_value("eval_lineage", "eval_lineage", message)
        rec.record(3)
        lineage_path = rec.lineage_path
    stem = os.path.basename(lineage_path)
    assert stem.startswith("run.out.events.summary.") and stem.endswith("_lineage")
    (events,) = _lineage_events(tmp_path / "tb").values()
    assert [e.evaluation_lineage for e in events] == [message]
    assert not events[0].HasField("step")


def test_lineage_plugins_check_their_message(tmp_path):
    with SummaryRecord(str(tmp_path)) as rec:
        for plugin, expected in (("train_lineage", "TrainLineage"), ("eval_lineage", "EvaluationLineage"),
                                 ("dataset_graph", "DatasetGraph"), ("custom_lineage_data", "UserDefinedInfo")):
            with pytest.raises(TypeError, match=f"Plugin '{plugin}' expects a {expected} value."):
                rec.add_value(plugin, plugin, lineage_pb2.StrList())
        with pytest.raises(ValueError, match="expect value is one of .*'train_lineage'"):
            rec.add_value("lineage", "x", lineage_pb2.TrainLineage())


def test_custom_lineage_data_checks_and_hyper_config(tmp_path, monkeypatch):
    for bad, message in (({1: 2}, r"For `custom_lineage_data -> 1` the type should be a valid type of \['str'\]"),
                         ({"a": [1]}, "the value of custom_lineage_data -> a"),
                         ({"a": True}, "but got bool"), ([1], r"\['dict', 'NoneType'\], but got list")):
        with pytest.raises(TypeError, match=message):
            SummaryCollector(str(tmp_path), custom_lineage_data=bad)
    monkeypatch.setenv("MINDINSIGHT_HYPER_CONFIG", json.dumps({"custom_lineage_data": {"lr": 0.1, "tag": "x"}}))
    collector = SummaryCollector(str(tmp_path), custom_lineage_data={"tag": "mine"})
    assert collector._custom_lineage_data == {"lr": 0.1, "tag": "mine"}    # the user's value wins
