"""The Lite runtime's Python API (mindspore_lite) on MindIR files from MindSpore and from mindseed."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import mindseed as ms
from mindseed import lite as mslite

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "mindir")


@pytest.fixture(scope="module")
def expected():
    with np.load(os.path.join(FIXTURES, "expected.npz"), allow_pickle=False) as f:
        return dict(f)


def _model(path, threads=1):
    context = mslite.Context()
    context.target = ["cpu"]
    context.cpu.thread_num = threads
    model = mslite.Model()
    model.build_from_file(path, mslite.ModelType.MINDIR, context)
    return model


@pytest.mark.parametrize("name", ["lenet", "resnet", "gpt", "control"])
def test_predict_mindspore_file(expected, name):
    model = _model(os.path.join(FIXTURES, name + ".mindir"))
    inputs = model.get_inputs()
    x = expected[name + "_x"]
    assert inputs[0].shape == list(x.shape) and mslite.DataType[inputs[0].dtype.name] is inputs[0].dtype
    inputs[0].set_data_from_numpy(x)
    outs = model.predict(inputs)
    np.testing.assert_allclose(outs[0].get_data_to_numpy(), expected[name + "_y0"], rtol=1e-5, atol=1e-5)
    # a second call runs the compiled graph's generated code (the first ran while it was traced)
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), expected[name + "_y0"], rtol=1e-5,
                               atol=1e-5)


def test_resize_batch_of_a_model_without_baked_shapes(tmp_path):
    net = ms.nn.SequentialCell([ms.nn.Dense(4, 3), ms.nn.ReLU()])
    ms.export(net, ms.Tensor(np.ones((2, 4), np.float32)), file_name=str(tmp_path / "d"))
    model = _model(str(tmp_path / "d.mindir"))
    inputs = model.get_inputs()
    model.resize(inputs, [[5, 4]])
    assert inputs[0].shape == [5, 4]
    x = np.random.RandomState(0).randn(5, 4).astype(np.float32)
    inputs[0].set_data_from_numpy(x)
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), net(ms.Tensor(x)).asnumpy(),
                               rtol=1e-6)


def test_parallel_runner_serves_threads(expected):
    runner = mslite.ModelParallelRunner()
    runner.build_from_file(os.path.join(FIXTURES, "mlp.mindir"), mslite.RunnerConfig(workers_num=2))
    x, want = expected["mlp_x"], expected["mlp_y0"]
    results = []

    def work():
        inputs = runner.get_inputs()
        inputs[0].set_data_from_numpy(x)
        results.append(runner.predict(inputs)[0].get_data_to_numpy())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    for r in results:
        np.testing.assert_allclose(r, want, rtol=1e-5, atol=1e-5)


def test_lite_errors(tmp_path, expected):
    model = mslite.Model()
    with pytest.raises(RuntimeError, match="build the model first"):
        model.get_inputs()
    with pytest.raises(RuntimeError, match="does not exist"):
        model.build_from_file(str(tmp_path / "none.mindir"), mslite.ModelType.MINDIR)
    (tmp_path / "junk.mindir").write_bytes(b"junk")
    with pytest.raises(ValueError, match="junk.mindir"):
        model.build_from_file(str(tmp_path / "junk.mindir"), mslite.ModelType.MINDIR)
    with pytest.raises(ValueError, match="'target'"):
        mslite.Context().target = ["tpu"]
    model = _model(os.path.join(FIXTURES, "mlp.mindir"))
    inputs = model.get_inputs()
    with pytest.raises(RuntimeError, match="dtype FLOAT32"):
        inputs[0].set_data_from_numpy(np.ones((5, 6), np.float64))
    with pytest.raises(RuntimeError, match=r"shape \[5, 6\]"):
        inputs[0].set_data_from_numpy(np.ones((2, 2), np.float32))


def test_importable_as_mindspore_lite():
    code = ("import mindseed.compat as c; c.install(); import mindspore_lite as m; "
            "print(m.Model.__module__, m.ModelType.MINDIR.name)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.stdout.split() == ["mindseed.lite._model", "MINDIR"], out.stderr
