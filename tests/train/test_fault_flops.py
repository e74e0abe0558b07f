"""FlopsUtilizationCollector (FLOPs of the compiled step, MFU/HFU lines), TrainFaultTolerance with nn.OptTFTWrapper
(the last whole step's weights saved when a step fails, nothing when the update was cut)."""
import os

import numpy as np
import pytest

import mindseed as ms
import mindseed.dataset as ds
from mindseed import nn


def _data(n=8, batch=2, features=10, classes=5):
    rng = np.random.default_rng(0)
    return ds.NumpySlicesDataset({"x": rng.random((n, features), np.float32),
                                  "y": rng.integers(0, classes, n).astype(np.int32)}, shuffle=False).batch(batch)


def _model(net, opt):
    return ms.train.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt)


def test_flops_collector_graph_mode(capsys):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        data = _data(64, 32)
        net = nn.Dense(10, 5)
        cb = ms.train.FlopsUtilizationCollector(data.get_dataset_size(), computility=10e6)
        _model(net, nn.Momentum(net.trainable_params(), 0.01, 0.9)).train(2, data, callbacks=[cb])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    # MindSpore's documented figure: x @ W^T (2*32*10*5) and the weight gradient (the same again)
    assert cb.full_model_flops == cb.full_hardware_flops == 6400.0
    out = capsys.readouterr().out
    assert "Full model flops is 6400.0, Full hardware flops is 6400.0" in out
    lines = [ln for ln in out.splitlines() if ln.startswith("Train per step time:")]
    assert len(lines) == 2 and all(" mfu:" in ln and " hfu:" in ln for ln in lines)
    ms_per_step = float(lines[0].split(":")[1].split("ms")[0])
    mfu = float(lines[0].split("mfu:")[1].split("%")[0])
    # mfu is printed floored to 2 decimals from the unrounded step time, which is printed rounded
    assert mfu == pytest.approx(1000 * 6400 / 10e6 / ms_per_step * 100, rel=2e-3, abs=0.011)


def test_flops_collector_refuses_pynative_and_bad_args():
    net = nn.Dense(10, 5)
    cb = ms.train.FlopsUtilizationCollector(4)
    with pytest.raises(ValueError, match="only support graph mode"):
        _model(net, nn.SGD(net.trainable_params(), 0.1)).train(1, _data(), callbacks=[cb])
    with pytest.raises(TypeError, match="'data_size' must be a positive int"):
        ms.train.FlopsUtilizationCollector(0)
    with pytest.raises(TypeError, match="'full_flops' must be bool"):
        ms.train.FlopsUtilizationCollector(1, full_flops=1)


class _FailAt(ms.train.Callback):
    def __init__(self, step):
        self.step = step

    def on_train_step_begin(self, run_context):
        if run_context.original_args().cur_step_num == self.step:
            raise RuntimeError("device fault")


class _StopAfter(ms.train.Callback):
    def __init__(self, step):
        self.step = step

    def on_train_step_end(self, run_context):
        if run_context.original_args().cur_step_num == self.step:
            run_context.request_stop()


def test_fault_tolerance_saves_last_whole_step(tmp_path, monkeypatch):
    monkeypatch.setenv("MS_ENABLE_TFT", "{TTP:1}")
    net = nn.Dense(10, 5)
    opt = nn.OptTFTWrapper(nn.SGD(net.trainable_params(), 0.1))
    cb = ms.train.TrainFaultTolerance(str(tmp_path))
    with pytest.raises(RuntimeError, match="device fault"):
        _model(net, opt).train(1, _data(), callbacks=[cb, _FailAt(4)])
    assert os.listdir(tmp_path) == ["ttp_saved_checkpoints-step_3"]
    saved = ms.load_checkpoint(cb.saved_path)
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())
    assert int(saved["step_num"].asnumpy()) == 3 and int(saved["epoch_num"].asnumpy()) == 1


def test_fault_tolerance_matches_training_three_steps(tmp_path, monkeypatch):
    """The saved weights are exactly those of an uninterrupted 3-step run."""
    monkeypatch.setenv("MS_ENABLE_TFT", "{UCE:1}")
    ms.set_seed(1)
    ref = nn.Dense(10, 5)
    init = {p.name: p.asnumpy().copy() for p in ref.trainable_params()}
    _model(ref, nn.SGD(ref.trainable_params(), 0.1)).train(1, _data(8), callbacks=[_StopAfter(3)])
    net = nn.Dense(10, 5)
    for p in net.trainable_params():
        p.set_data(ms.Tensor(init[p.name]))
    cb = ms.train.TrainFaultTolerance(str(tmp_path))
    with pytest.raises(RuntimeError):
        _model(net, nn.OptTFTWrapper(nn.SGD(net.trainable_params(), 0.1))).train(1, _data(8), callbacks=[
            cb, _FailAt(4)])
    saved = ms.load_checkpoint(cb.saved_path)
    np.testing.assert_allclose(saved["weight"].asnumpy(), ref.weight.asnumpy(), rtol=1e-6)


class _BreaksMidUpdate(nn.SGD):
    def construct(self, gradients):
        if self.global_step.asnumpy()[0] >= 2:
            self.parameters[0].set_data(self.parameters[0] * 0)
            raise RuntimeError("fault inside the update")
        return super().construct(gradients)


def test_fault_tolerance_skips_half_updated_weights(tmp_path, monkeypatch):
    monkeypatch.setenv("MS_ENABLE_TFT", "{ARF:1}")
    net = nn.Dense(10, 5)
    opt = nn.OptTFTWrapper(_BreaksMidUpdate(net.trainable_params(), 0.1))
    saved = []
    cb = ms.train.TrainFaultTolerance(ckpt_save_fn=lambda params, append: saved.append(append))
    with pytest.raises(RuntimeError, match="inside the update"):
        _model(net, opt).train(1, _data(), callbacks=[cb])
    assert int(opt.tft_updating.asnumpy()[0]) == 1 and not saved


def test_fault_tolerance_checks(monkeypatch):
    monkeypatch.delenv("MS_ENABLE_TFT", raising=False)
    net = nn.Dense(2, 2)
    with pytest.raises(ValueError, match="MS_ENABLE_TFT"):
        nn.OptTFTWrapper(nn.SGD(net.trainable_params(), 0.1))
    with pytest.raises(TypeError, match="must be Optimizer type"):
        nn.OptTFTWrapper(net)
    with pytest.raises(ValueError, match="ckpt_save_fn"):
        ms.train.TrainFaultTolerance()
    cb = ms.train.TrainFaultTolerance(ckpt_save_fn=lambda *a: None)
    with pytest.raises(ValueError, match="wrapped in nn.OptTFTWrapper"):
        _model(net, nn.SGD(net.trainable_params(), 0.1)).train(1, _data(4, 2, 2, 2), callbacks=[cb])
