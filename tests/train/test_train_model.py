"""Model.train / eval / fit / predict with callbacks, checkpoints and resuming."""
import contextlib
import io
import os

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed.train import Accuracy, CheckpointConfig, EarlyStopping, LossMonitor, Model, ModelCheckpoint, Loss

from _train_helpers import VALID, BlobNet, Recorder, _data, _model


def test_train_callback_order_stop_and_cb_params():
    _, opt, model = _model()
    rec = Recorder(stop_at=8)
    model.train(10, _data(), callbacks=[rec])
    assert rec.events == [("train_begin", 10, 6), ("epoch_begin", 1), ("epoch_end", 1), ("epoch_begin", 2),
                          ("epoch_end", 2), ("train_end",)]
    assert len(rec.losses) == 8
    assert int(opt.global_step.asnumpy()[0]) == 8


def test_loss_monitor_prints_like_mindspore():
    _, _, model = _model()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.train(2, _data(), callbacks=[LossMonitor(3)])
    lines = buf.getvalue().splitlines()
    assert [ln.split(", loss is ")[0] for ln in lines] == ["epoch: 1 step: 3", "epoch: 1 step: 6", "epoch: 2 step: 3",
                                                         "epoch: 2 step: 6"]
    float(lines[0].split("loss is ")[1])  # the full float repr of the loss


def test_fit_with_validation_checkpoint_and_early_stopping(tmp_path):
    net, opt, model = _model()
    rec = Recorder()
    stopper = EarlyStopping(monitor="accuracy", mode="max", patience=2, min_delta=1.0, verbose=True)
    ckpt = ModelCheckpoint(prefix="blob", directory=str(tmp_path), config=CheckpointConfig(save_checkpoint_steps=6,
                                                                                          keep_checkpoint_max=2))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.fit(6, _data(), _data(VALID), callbacks=[stopper, ckpt, rec, LossMonitor(6)])
    out = buf.getvalue()
    assert "Epoch 00003: early stopping" in out  # best at epoch 1, then two epochs without improvement
    assert out.count("Eval result: epoch") == 3
    assert stopper.stopped_epoch == 3
    assert ("eval_begin", "eval") in rec.events
    assert set(rec.eval_results[0]) == {"accuracy", "loss", "eval_loss"}
    assert sorted(os.listdir(tmp_path)) == ["blob-2_6.ckpt", "blob-3_6.ckpt"]
    state = ms.train.load_checkpoint(ckpt.latest_ckpt_file_name)
    np.testing.assert_array_equal(state["l2.bias"].asnumpy(), net.l2.bias.asnumpy())
    assert int(state["global_step"].asnumpy()[0]) == 18
    metrics = model.eval(_data(VALID))
    assert metrics["accuracy"] == rec.eval_results[-1]["accuracy"]
    assert isinstance(metrics["loss"], float)


def _run_losses(model, epochs, **kw):
    rec = Recorder()
    model.train(epochs, _data(), callbacks=[rec] + kw.pop("callbacks", []), **kw)
    return rec.losses


def test_resume_from_checkpoint_matches_uninterrupted_run(tmp_path):
    _, _, full = _model()
    reference = _run_losses(full, 4)

    _, opt_a, first = _model()
    ckpt = ModelCheckpoint(prefix="run", directory=str(tmp_path), config=CheckpointConfig(save_checkpoint_steps=1))
    rec = Recorder(stop_at=12)
    first.train(4, _data(), callbacks=[rec, ckpt])
    assert rec.losses == reference[:12]
    assert os.path.basename(ckpt.latest_ckpt_file_name) == "run-2_6.ckpt"

    net_b, opt_b, second = _model(seed=99)  # different initial weights: everything must come from the file
    param_not_load, _ = ms.train.load_param_into_net(second.train_network,
                                                     ms.train.load_checkpoint(ckpt.latest_ckpt_file_name))
    assert param_not_load == []
    np.testing.assert_array_equal(opt_b.moments[0].asnumpy(), opt_a.moments[0].asnumpy())
    resumed = _run_losses(second, 4, initial_epoch=2)
    np.testing.assert_array_equal(resumed, reference[12:])


def test_sink_mode_on_cpu_runs_whole_epochs_as_mindspore():
    # MindSpore on a CPU trains without the sink: all 6 steps of each epoch, but callbacks see batch_num=sink_size
    assert ms.get_context("device_target") == "CPU"
    _, opt, model = _model()
    rec = Recorder()
    model.train(3, _data(), callbacks=[rec], dataset_sink_mode=True, sink_size=4)
    assert len(rec.losses) == 18 and ("train_begin", 3, 4) in rec.events
    assert int(opt.global_step.asnumpy()[0]) == 18
    _, _, model = _model()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.train(2, _data(), callbacks=[LossMonitor()], dataset_sink_mode=True, sink_size=4)
    # LossMonitor numbers the steps (cur_step_num - 1) % batch_num + 1: MindSpore 2.10's CPU output
    assert [ln.split(", loss is ")[0] for ln in buf.getvalue().splitlines()] == [
        "epoch: 1 step: 1", "epoch: 1 step: 2", "epoch: 1 step: 3", "epoch: 1 step: 4", "epoch: 1 step: 1",
        "epoch: 1 step: 2", "epoch: 2 step: 3", "epoch: 2 step: 4", "epoch: 2 step: 1", "epoch: 2 step: 2",
        "epoch: 2 step: 3", "epoch: 2 step: 4"]


def test_model_argument_errors():
    net = BlobNet()
    with pytest.raises(ValueError, match="kwargs"):
        Model(net, bad=1)
    with pytest.raises(ValueError, match="eval_network"):
        Model(net, metrics={"acc"})
    with pytest.raises(ValueError, match="optimizer"):
        Model(net, amp_level="O2")
    _, _, model = _model()
    with pytest.raises(ValueError, match="initial_epoch"):
        model.train(1, _data(), initial_epoch=1)
    with pytest.raises(TypeError, match="Callback"):
        model.train(1, _data(), callbacks=[object()])
    with pytest.raises(ValueError, match="sink_size"):
        model.train(1, _data(), dataset_sink_mode=True, sink_size=-2)
    with pytest.raises(ValueError, match="metrics"):
        Model(net).eval(_data())


def test_predict_runs_in_inference_mode():
    net = BlobNet()
    model = Model(net)
    out = model.predict(ms.Tensor(VALID[0][:4]))
    assert out.shape == (4, 3) and not net.training
    np.testing.assert_allclose(out.asnumpy(), net(ms.Tensor(VALID[0][:4])).asnumpy())
    with pytest.raises(ValueError, match="empty"):
        model.predict(ms.Tensor(np.zeros((0, 2), np.float32)))


def test_model_builds_train_and_eval_networks():
    net = BlobNet()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    model = Model(net, nn.CrossEntropyLoss(), opt, metrics={"accuracy": Accuracy(), "loss": Loss()})
    assert type(model.train_network).__name__ == "TrainOneStepCell"
    _, _, reference = _model()
    ref_losses = _run_losses(reference, 2)
    np.testing.assert_allclose(_run_losses(model, 2), ref_losses, rtol=1e-6, atol=1e-7)
    assert set(model.eval(_data(VALID))) == {"accuracy", "loss"}
    state_keys = set(p.name for p in model.train_network.get_parameters())
    assert {"l1.weight", "learning_rate", "global_step"} <= state_keys
