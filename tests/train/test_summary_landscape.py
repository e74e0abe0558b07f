"""SummaryCollector(collect_landscape=...) + SummaryLandscape: the loss landscapes of a trained linear regression,
each loss checked against numpy at its parameters (final + a v + b w)."""
import json
import os

import numpy as np
import pytest

import mindseed as ms
import mindseed.dataset as ds
from mindseed import nn
from mindseed.train import Loss, Model
from mindseed.train.summary import _event_file as E

RS = np.random.RandomState(0)
X = RS.standard_normal((32, 3)).astype(np.float32)
Y = (X @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)


def _dataset():
    return ds.NumpySlicesDataset({"x": X, "y": Y}, shuffle=False).batch(8)


def _np_loss(weight, bias):
    return float(np.mean((X @ weight.T + bias - Y) ** 2))


def _callback_fn():
    net = nn.Dense(3, 1)
    metrics = {"Loss": Loss()}
    return Model(net, nn.MSELoss(), metrics=metrics), net, _dataset(), metrics


def _train(summary_dir, landscape):
    ms.set_seed(1)
    net = nn.Dense(3, 1)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
    collector = ms.SummaryCollector(str(summary_dir), collect_freq=1,
                                    collect_specified_data={"collect_landscape": landscape})
    model.train(2, _dataset(), callbacks=[collector], dataset_sink_mode=False)


def _landscapes(summary_dir):
    files = sorted(f for f in os.listdir(summary_dir) if f.endswith("_MS"))
    found = {}
    for name in files:
        for ev in E.read_events(open(os.path.join(summary_dir, name), "rb").read()):
            for tag, (kind, value) in ev.get("values", {}).items():
                if kind == "landscape":
                    found[tag] = value
    return found


def _final(summary_dir, step):
    params = ms.load_checkpoint(os.path.join(summary_dir, "ckpt_dir", f"Dense_{step}_step.ckpt"))
    return params["weight"].asnumpy(), params["bias"].asnumpy()


def test_collector_saves_interval_checkpoints_and_metadata(tmp_path):
    _train(tmp_path, {"landscape_size": 3, "unit": "step", "num_samples": 32, "intervals": [[2, 3, 4, 5]],
                      "create_landscape": {"train": True, "result": True}})
    meta = json.load(open(tmp_path / "ckpt_dir" / "train_metadata.json"))
    assert meta["epoch_group"] == {"0": [2, 3, 4, 5]} and meta["step_per_epoch"] == 4
    assert sorted(meta["model_params_file_map"]) == ["2", "3", "4", "5"]
    assert sorted(os.listdir(tmp_path / "ckpt_dir")) == ["Dense_2_step.ckpt", "Dense_3_step.ckpt",
                                                         "Dense_4_step.ckpt", "Dense_5_step.ckpt",
                                                         "train_metadata.json"]


def test_landscapes_losses_equal_numpy(tmp_path):
    _train(tmp_path, {"landscape_size": 5, "unit": "step", "num_samples": 32, "intervals": [[2, 3, 4, 5]],
                      "create_landscape": {"train": True, "result": True}})
    np.random.seed(5)
    # a directory of its own: a summary file is named by the second it was opened in, as MindSpore's
    ms.SummaryLandscape(str(tmp_path)).gen_landscapes_with_multi_process(_callback_fn, device_ids=[0],
                                                                         output=str(tmp_path / "landscapes"))
    found = _landscapes(tmp_path / "landscapes")
    assert sorted(found) == ["landscape_[2, 5]", "landscape_[5]"]
    weight, bias = _final(tmp_path, 5)
    final_loss = _np_loss(weight, bias)

    pca = found["landscape_[2, 5]"]
    assert pca["metadata"] == {"decomposition": "PCA", "unit": "step", "step_per_epoch": 4}
    assert pca["intervals"] == [2, 3, 4, 5] and pca["landscape"]["z"].shape == (5, 5)
    path = pca["loss_path"]
    assert path["x"][-1] == 0 and path["y"][-1] == 0           # the last checkpoint is the origin
    np.testing.assert_allclose(path["z"][-1], final_loss, rtol=1e-5)
    np.testing.assert_allclose(pca["convergence_point"]["z"], [final_loss], rtol=1e-5)
    x_axis = pca["landscape"]["x"]
    span = path["x"].max() - path["x"].min()
    np.testing.assert_allclose([x_axis[0], x_axis[-1]], [path["x"].min() - 0.2 * span, path["x"].max() + 0.2 * span],
                               rtol=1e-5, atol=1e-6)

    # the random landscape: directions drawn from numpy's generator, scaled to each parameter's norm
    rnd = found["landscape_[5]"]
    assert rnd["metadata"]["decomposition"] == "Random"
    np.random.seed(5)
    for _ in range(2):      # the network `_callback_fn` builds first: each initializer takes a seed from numpy
        np.random.randint(low=1, high=1 << 63, dtype=np.int64)
    v, w = np.random.normal(size=4), np.random.normal(size=4)
    dirs = []
    for d in (v, w):
        dw, db = d[:3].reshape(1, 3).astype(np.float32), d[3:].astype(np.float32)
        dirs.append((dw * np.linalg.norm(weight) / np.linalg.norm(dw), db * np.linalg.norm(bias) / np.linalg.norm(db)))
    axis = np.linspace(-1, 1, 5)
    np.testing.assert_allclose(rnd["landscape"]["x"], axis, rtol=1e-6)
    want = [[_np_loss(weight + a * dirs[0][0] + b * dirs[1][0], bias + a * dirs[0][1] + b * dirs[1][1])
             for a in axis] for b in axis]
    np.testing.assert_allclose(rnd["landscape"]["z"], want, rtol=1e-4)
    np.testing.assert_allclose(rnd["convergence_point"]["z"], [final_loss], rtol=1e-5)


@pytest.mark.parametrize("landscape, err, match", [
    ({"landscape_size": 2, "intervals": [[1, 2, 3]]}, ValueError, "between 3 and 256"),
    ({"unit": "hour", "intervals": [[1, 2, 3]]}, ValueError, "step or epoch"),
    ({"intervals": [[1, 2]]}, ValueError, "less than three"),
    ({"intervals": [[1, 2, "3"]]}, TypeError, "should be int"),
    ({"create_landscape": {"train": True}, "intervals": [[1, 2, 3]]}, ValueError, "train and result"),
    ({"colour": 1, "intervals": [[1, 2, 3]]}, ValueError, "key of collect landscape"),
])
def test_collect_landscape_bad_input(tmp_path, landscape, err, match):
    with pytest.raises(err, match=match):
        ms.SummaryCollector(str(tmp_path), collect_specified_data={"collect_landscape": landscape})


def test_summary_landscape_needs_metadata_and_good_device_ids(tmp_path):
    landscape = ms.SummaryLandscape(str(tmp_path))
    with pytest.raises(FileNotFoundError, match="train_metadata.json"):
        landscape.gen_landscapes_with_multi_process(_callback_fn, device_ids=[0])
    with pytest.raises(ValueError, match="between 0 and 7"):
        landscape.gen_landscapes_with_multi_process(_callback_fn, device_ids=[8])
    landscape.clean_ckpt()
    assert not os.path.exists(tmp_path / "ckpt_dir")
