"""export_split_mindir: the per-rank models of a row-parallel split, run together on gloo processes, give the
whole model's outputs; each file holds its rank's share of the weights."""
import os
import sys

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from _workers import clean_env, free_port, run  # noqa: E402


class _Mlp(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 12, activation="relu")
        self.fc2 = nn.Dense(12, 6)      # 12 divides by 2 and 4 (split); fc3's 6 not by 4 (replicated)
        self.fc3 = nn.Dense(6, 3)

    def construct(self, x):
        return self.fc3(ops_tanh(self.fc2(self.fc1(x))))


def ops_tanh(x):
    return ms.ops.tanh(x)


@pytest.fixture
def exported(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    net = _Mlp()
    x = np.random.RandomState(0).uniform(-1, 1, (5, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    ms.export(net, ms.Tensor(x), file_name=str(tmp_path / "net"), file_format="MINDIR")
    return net, x


def _weights(path):
    return {p.name.rsplit(":", 1)[-1]: np.frombuffer(p.raw_data, np.float32).reshape(tuple(p.dims))
            for p in ms.load_mindir(path).graph.parameter}


@pytest.mark.parametrize("device_num", [2, 4])
def test_split_files_hold_each_ranks_share(exported, tmp_path, device_num):
    net, x = exported
    graph = ms.export_split_mindir("net.mindir", device_num=device_num, rank_id=0)
    np.testing.assert_allclose(nn.GraphCell(graph)(ms.Tensor(x)).asnumpy(), net(ms.Tensor(x)).asnumpy(), rtol=1e-6)
    whole = _weights(str(tmp_path / "net.mindir"))
    for rank in range(device_num):
        part = _weights(str(tmp_path / f"split_net{rank}.mindir"))
        assert sorted(part) == sorted(whole)
        for name, w in whole.items():
            split = w.ndim == 2 and w.shape[1] % device_num == 0
            k = w.shape[1] // device_num if split else None
            want = w[:, rank * k:(rank + 1) * k] if split else w
            np.testing.assert_array_equal(part[name], want, err_msg=name)
    assert sorted(f for f in os.listdir(tmp_path) if f.startswith("split_net")) == \
        [f"split_net{r}.mindir" for r in range(device_num)]


def test_split_models_on_two_processes_equal_the_whole_model(exported, tmp_path):
    net, x = exported
    ms.export_split_mindir("net.mindir", device_num=2, rank_id=0)
    env = clean_env(MS_WORKER_NUM="2", MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(free_port()),
                    MS_TOPO_TIMEOUT="60")
    run(tmp_path, [(f"w{r}", [os.path.join(HERE, "_split_worker.py"), str(tmp_path / f"out{r}.npy")],
                    dict(env, MS_NODE_ID=str(r))) for r in range(2)])
    want = net(ms.Tensor(x)).asnumpy()
    for r in range(2):
        np.testing.assert_allclose(np.load(tmp_path / f"out{r}.npy"), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs, match", [
    ({"file_name": 3}, "must be string"),
    ({"file_name": "net.onnx"}, "should end with '.mindir'"),
    ({"file_name": "missing.mindir"}, "does not exist"),
    ({"device_num": 0}, "'device_num' must be a positive int"),
    ({"rank_id": 2}, "'rank_id' must be an int in \\[0, 2\\)"),
])
def test_export_split_mindir_bad_input(exported, kwargs, match):
    args = {"file_name": "net.mindir", "device_num": 2, "rank_id": 0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ms.export_split_mindir(**args)


def test_export_split_mindir_corrupt_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.mindir").write_bytes(b"\x08\x01garbage")
    with pytest.raises(RuntimeError, match="Export and split MindIR failed"):
        ms.export_split_mindir("bad.mindir", device_num=2)
