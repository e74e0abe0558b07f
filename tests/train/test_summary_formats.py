"""SummaryRecord / SummaryCollector in MindSpore's summary format (default) and TensorBoard's (on request)."""
import io
import os
import re

import numpy as np
import pytest
from _train_helpers import VALID, _data, _model
from PIL import Image

import mindseed as ms
from mindseed.train import SummaryCollector, SummaryRecord
from mindseed.train.summary import _event_file as E

RNG = np.random.default_rng(0)
HIST = np.concatenate([np.arange(20, dtype=np.float32), [np.nan, np.inf, -np.inf, np.inf]]).astype(np.float32)
IMAGES = RNG.random((3, 1, 5, 4)).astype(np.float32)  # grey, in [0, 1]: scaled by 255
TENSOR = np.arange(6, dtype=np.int32).reshape(2, 3)


def _write(tmp_path, **kw):
    with SummaryRecord(str(tmp_path), **kw) as rec:
        for step in (1, 2):
            rec.add_value("scalar", "loss", ms.Tensor(np.float32(1.0 / step)))
            rec.add_value("histogram", "w", ms.Tensor(HIST * step))
            rec.add_value("image", "img", ms.Tensor(IMAGES))
            rec.add_value("tensor", "t", ms.Tensor(TENSOR * step))
            rec.add_value("text", "note", f"step {step}")
            rec.record(step)
        return rec.log_dir


def _expected_canvas():
    u8 = (IMAGES * 255).astype(np.uint8)[:, 0]  # MindSpore: [0, 1] times 255, grey repeated into RGB
    canvas = np.concatenate(list(u8), axis=1)  # 3 images on one row (up to 8 a row)
    return np.repeat(canvas[:, :, None], 3, axis=2)


def _expected_buckets(values):
    finite = values[np.isfinite(values)].astype(np.float64)
    bins = finite.size // 10 + 1  # MindSpore's rule for 11..880 values
    counts, edges = np.histogram(finite, np.linspace(finite.min(), finite.max(), bins + 1))
    return [(edges[i], edges[i + 1] - edges[i], int(counts[i])) for i in range(bins)]


def test_mindspore_format_is_default_and_reads_back(tmp_path, monkeypatch):
    monkeypatch.delenv("MINDSEED_SUMMARY_FORMAT", raising=False)
    path = _write(tmp_path)
    assert re.fullmatch(r"events\.out\.events\.summary\.\d+\.0\.[^/]+_MS", os.path.basename(path))
    events = E.read_events(open(path, "rb").read())
    assert events[0]["version"] == "MindSpore.Event:1" and "values" not in events[0]
    assert [e["step"] for e in events[1:]] == [1, 2]
    for step, ev in zip((1, 2), events[1:]):
        v = ev["values"]
        assert v["loss"] == ("scalar", np.float32(1.0 / step))
        kind, h = v["w"]
        assert kind == "histogram"
        vals = HIST * step
        finite = vals[np.isfinite(vals)]
        assert (h["count"], h["nan"], h["pos_inf"], h["neg_inf"]) == (24, 1, 2, 1)
        assert (h["min"], h["max"], h["sum"]) == (0.0, 19.0 * step, float(finite.sum()))
        np.testing.assert_allclose(h["buckets"], _expected_buckets(vals), rtol=1e-12)
        kind, img = v["img"]
        assert kind == "image" and (img["height"], img["width"], img["colorspace"]) == (5, 12, 3)
        np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(img["png"]))), _expected_canvas())
        kind, t = v["t"]
        assert kind == "tensor" and t["dims"] == [2, 3] and t["dtype"] == 4  # DT_INT32
        np.testing.assert_array_equal(t["values"], TENSOR * step)
        kind, note = v["note"]
        assert kind == "tensor" and (note["dims"], note["dtype"], note["raw"]) == ([0], 13, f"step {step}".encode())
        assert note["values"].shape == (0,)  # float_data reshapes to dims, as MindInsight's reader does


def test_mindspore_format_crc_is_checked(tmp_path):
    raw = bytearray(open(_write(tmp_path, format="mindspore"), "rb").read())
    assert len(E.read_records(bytes(raw))) == 3
    with pytest.raises(ValueError, match="truncated"):
        E.read_events(bytes(raw[:-2]))
    raw[30] ^= 0xFF  # inside the first record's data
    with pytest.raises(ValueError, match="bad data CRC at offset 0"):
        E.read_events(bytes(raw))


def test_tensorboard_format_reads_back_with_event_accumulator(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator as ea_mod
    from tensorboard.util import tensor_util
    path = _write(tmp_path, format="tensorboard")
    assert re.fullmatch(r"events\.out\.tfevents\.\d+\.[^/]+\.\d+_MS", os.path.basename(path))
    acc = ea_mod.EventAccumulator(str(tmp_path), size_guidance={"tensors": 0, "images": 0, "histograms": 0,
                                                                "scalars": 0})
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("loss")] == [(1, 1.0), (2, 0.5)]
    for step, ev in zip((1, 2), acc.Histograms("w")):
        h, vals = ev.histogram_value, HIST * step
        finite = vals[np.isfinite(vals)]
        assert (h.min, h.max, h.num, h.sum) == (0.0, 19.0 * step, 20.0, float(finite.sum()))
        assert h.sum_squares == float(np.dot(finite.astype(np.float64), finite))
        expected = _expected_buckets(vals)
        assert list(h.bucket) == [c for _, _, c in expected]
        np.testing.assert_allclose(h.bucket_limit, [left + width for left, width, _ in expected], rtol=1e-12)
    img = acc.Images("img")[1]
    assert (img.width, img.height) == (12, 5)
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(img.encoded_image_string))), _expected_canvas())
    np.testing.assert_array_equal(tensor_util.make_ndarray(acc.Tensors("t")[1].tensor_proto), TENSOR * 2)
    assert tensor_util.make_ndarray(acc.Tensors("note")[0].tensor_proto) == b"step 1"


def test_format_from_environment_and_bad_values(tmp_path, monkeypatch):
    monkeypatch.setenv("MINDSEED_SUMMARY_FORMAT", "tensorboard")
    with SummaryRecord(str(tmp_path / "env")) as rec:
        assert rec.format == "tensorboard" and ".tfevents." in rec.log_dir
    with SummaryRecord(str(tmp_path / "arg"), format="mindspore") as rec:  # the argument wins
        assert ".summary." in rec.log_dir
    monkeypatch.setenv("MINDSEED_SUMMARY_FORMAT", "protobuf")
    with pytest.raises(ValueError, match="MINDSEED_SUMMARY_FORMAT"):
        SummaryRecord(str(tmp_path / "bad"))
    with pytest.raises(ValueError, match="'SummaryCollector', the 'format'"):
        SummaryCollector(str(tmp_path / "bad"), format="tb")


def test_summary_collector_writes_mindspore_format(tmp_path, monkeypatch):
    monkeypatch.delenv("MINDSEED_SUMMARY_FORMAT", raising=False)
    _, _, model = _model()
    model.fit(2, _data(), _data(VALID), callbacks=[SummaryCollector(str(tmp_path), collect_freq=2)])
    name, lineage = sorted(os.listdir(tmp_path))
    assert ".out.events.summary." in name and lineage == name[:-len("_MS")] + "_lineage"
    events = E.read_events(open(tmp_path / name, "rb").read())
    loss_steps = [e["step"] for e in events if "loss/auto" in e.get("values", {})]
    assert loss_steps == [1, 2, 4, 6, 8, 10, 12]
    kinds = {tag: kind for e in events for tag, (kind, _) in e.get("values", {}).items()}
    assert kinds == {"loss/auto": "scalar", "l1.weight/auto": "histogram", "l1.bias/auto": "histogram",
                     "l2.weight/auto": "histogram", "l2.bias/auto": "histogram"}   # lineage is not in the summary


def test_image_canvas_rows_and_linear_scaling_as_mindspore(tmp_path):
    imgs = RNG.integers(0, 256, (9, 3, 2, 3)).astype(np.uint8)  # 9 images: a row of 8, then one
    with SummaryRecord(str(tmp_path)) as rec:
        rec.add_value("image", "img", ms.Tensor(imgs))
        rec.record(1)
        path = rec.log_dir
    _, img = E.read_events(open(path, "rb").read())[1]["values"]["img"]
    canvas = np.zeros((3, 4, 24))
    for i in range(9):
        y, x = divmod(i, 8)
        canvas[:, 2 * y:2 * y + 2, 3 * x:3 * x + 3] = imgs[i]
    lo, hi = canvas.min(), canvas.max()  # the empty slots count: lo is 0
    expected = ((canvas.astype(np.float32) - lo) * (255 / (hi - lo + 1))).astype(np.uint8).transpose(1, 2, 0)
    assert (img["height"], img["width"]) == (4, 24)
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(img["png"]))), expected)


def test_values_summary_ops_left_before_a_record_opened_are_dropped(tmp_path):
    ms.ops.HistogramSummary()("stale", ms.Tensor(np.arange(4, dtype=np.float32)))
    with SummaryRecord(str(tmp_path)) as rec:
        ms.ops.ScalarSummary()("loss", ms.Tensor(np.float32(0.25)))
        rec.record(1)
        path = rec.log_dir
    events = E.read_events(open(path, "rb").read())
    assert [sorted(e["values"]) for e in events[1:]] == [["loss"]]
    assert events[1]["values"]["loss"] == ("scalar", np.float32(0.25))


def _graph_nodes(graph):
    """(op_type, scope, full_name) of each NodeProto and the names of the ParameterProtos of a GraphProto."""
    from mindseed.train import _wire as W
    nodes, params = [], []
    for field, _, span in W.fields(graph):
        if field in (1, 3):
            items = {f: graph[v[0]:v[1]].decode() for f, wt, v in W.fields(graph, *span) if wt == W.LEN}
            if field == 1:
                nodes.append((items[3], items[4], items[8]))
            else:
                params.append(items[1])
    return nodes, params


def test_record_writes_the_graph_a_network_compiled_in_graph_mode(tmp_path):
    """SummaryRecord(network=net) writes net's GRAPH_MODE graph as a graph event (Event.graph_def, an anf_ir
    GraphProto) with its first record, once; a network that compiled nothing (PyNative) has none."""
    from mindseed.train import _wire as W
    net = ms.nn.Dense(3, 2)
    assert net.get_func_graph_proto() is None
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net(ms.Tensor(np.ones((4, 3), np.float32)))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    model = net.get_func_graph_proto()
    (graph_span,) = [v for f, _, v in W.fields(model) if f == 4]
    nodes, params = _graph_nodes(model[graph_span[0]:graph_span[1]])
    assert nodes == [("Dense", "Default", "Default/Dense-op0")]
    assert params == ["inputs0", "weight", "bias"]
    with SummaryRecord(str(tmp_path), network=net) as rec:
        rec.record(1)
        rec.record(2)
        path = rec.log_dir
        with pytest.raises(ValueError, match="not a serialized ModelProto"):
            rec.add_value("graph", "g", b"\x07")
        with pytest.raises(TypeError, match="bytes of a ModelProto"):
            rec.add_value("graph", "g", 3)
    graphs = [data for data in E.read_records(open(path, "rb").read())
              if any(f == 4 for f, _, _ in W.fields(data))]
    assert len(graphs) == 1
    (span,) = [v for f, _, v in W.fields(graphs[0]) if f == 4]
    assert graphs[0][span[0]:span[1]] == model[graph_span[0]:graph_span[1]]
