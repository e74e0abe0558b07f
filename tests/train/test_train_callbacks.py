"""Callbacks: monitors, checkpoint policy, plateau callbacks, backup/exit, summaries read by TensorBoard."""
import contextlib
import io
import os
import re
import signal

import numpy as np
import pytest

import mindseed as ms
from mindseed import nn
from mindseed.train import (BackupAndRestore, Callback, CheckpointConfig, History, LambdaCallback,
                            LearningRateScheduler, ModelCheckpoint, OnRequestExit, ProgressBar, ReduceLROnPlateau,
                            RunContext, SummaryCollector, SummaryRecord, TimeMonitor)

from _train_helpers import VALID, Recorder, _data, _model


def _train(model, epochs, callbacks, **kw):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.train(epochs, _data(), callbacks=callbacks, **kw)
    return buf.getvalue()


def test_run_context_and_base_callback_defaults():
    with pytest.raises(TypeError, match="dict"):
        RunContext([1])
    ctx = RunContext({"a": 1})
    assert not ctx.get_stop_requested()
    ctx.request_stop()
    assert ctx.get_stop_requested() and ctx.original_args() == {"a": 1}
    calls = []

    class Old(Callback):
        def begin(self, run_context):
            calls.append("begin")

        def step_end(self, run_context):
            calls.append("step_end")

    cb = Old()
    cb.on_train_begin(ctx)
    cb.on_eval_step_end(ctx)
    assert calls == ["begin", "step_end"]


def test_time_monitor_line_format():
    _, _, model = _model()
    out = _train(model, 2, [TimeMonitor()])
    lines = out.splitlines()
    assert len(lines) == 2
    assert all(re.fullmatch(r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms", ln) for ln in lines)


def test_history_and_lambda_callback():
    _, _, model = _model()
    hist = History()
    seen = []
    lam = LambdaCallback(on_train_epoch_end=lambda rc: seen.append(rc.original_args().cur_epoch_num))
    model.fit(2, _data(), _data(VALID), callbacks=[hist, lam])
    assert hist.epoch == {"epoch": [1, 2]} and seen == [1, 2]
    assert len(hist.history["net_output"]) == 2 and len(hist.history["accuracy"]) == 2


def test_learning_rate_scheduler():
    _, opt, model = _model(lr=0.1)
    lrs = []

    def schedule(lr, step):
        lrs.append(lr)
        return lr * 0.5 if step % 3 == 0 else lr

    model.train(1, _data(), callbacks=[LearningRateScheduler(schedule)])
    assert lrs[:4] == pytest.approx([0.1, 0.1, 0.1, 0.05])
    assert float(opt.learning_rate.asnumpy()) == pytest.approx(0.025)


def test_reduce_lr_on_plateau_sequence():
    _, opt, model = _model(lr=0.2)
    lrs = []

    class LrLog(Callback):
        def on_train_epoch_end(self, run_context):
            lrs.append(float(run_context.original_args().optimizer.learning_rate.asnumpy()))

    plateau = ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=100.0, min_lr=0.03, verbose=True)
    out = _train(model, 5, [plateau, LrLog()])
    # the callbacks run in order: LrLog sees the rate after the plateau callback changed it
    assert lrs == pytest.approx([0.2, 0.1, 0.05, 0.03, 0.03])
    assert "Epoch 00002: ReduceLROnPlateau reducing learning rate to 0.1." in out
    with pytest.raises(ValueError, match="factor"):
        ReduceLROnPlateau(factor=1.5)


def test_checkpoint_config_validation_and_append_info(tmp_path):
    with pytest.raises(ValueError, match="can't be all None or 0"):
        CheckpointConfig(0, 0, 0, 0)
    with pytest.raises(TypeError, match="saved_network"):
        CheckpointConfig(saved_network=1)
    with pytest.raises(ValueError, match="append_info"):
        CheckpointConfig(append_info=["bad"])
    cfg = CheckpointConfig(save_checkpoint_steps=3, keep_checkpoint_max=10,
                           append_info=["epoch_num", "step_num", {"note": "x", "lr0": 0.1}])
    assert cfg.get_checkpoint_policy()["save_checkpoint_steps"] == 3
    assert cfg.save_checkpoint_seconds is None and cfg.keep_checkpoint_per_n_minutes is None
    _, _, model = _model()
    cb = ModelCheckpoint("app", str(tmp_path), cfg)
    model.train(2, _data(), callbacks=[cb])
    assert sorted(os.listdir(tmp_path)) == ["app-1_3.ckpt", "app-1_6.ckpt", "app-2_3.ckpt", "app-2_6.ckpt"]
    state = ms.train.load_checkpoint(str(tmp_path / "app-2_3.ckpt"))
    assert int(state["epoch_num"].asnumpy()) == 2 and int(state["step_num"].asnumpy()) == 9
    assert state["note"] == "x"


def test_checkpoint_prefix_is_renamed_when_files_exist(tmp_path):
    _, _, model = _model()
    model.train(1, _data(), callbacks=[ModelCheckpoint("p", str(tmp_path), CheckpointConfig(6))])
    second = ModelCheckpoint("p", str(tmp_path), CheckpointConfig(6))
    _, _, model2 = _model()
    model2.train(1, _data(), callbacks=[second])
    assert sorted(os.listdir(tmp_path)) == ["p-1_6.ckpt", "p_1-1_6.ckpt"]


def test_checkpoint_flushes_cached_parameters_before_saving(tmp_path):
    """MindSpore's ModelCheckpoint asks parameters marked `cache_enable` to flush before each save; with none marked
    it stops looking (subclasses such as mindformers' CheckpointMonitor call both from their own `_save_ckpt`)."""
    net, _, model = _model()
    flushed = []

    class Watching(ModelCheckpoint):
        def _flush_from_cache(self, cb_params):
            flushed.append([p.name for p in cb_params.train_network.get_parameters() if p.cache_enable])
            super()._flush_from_cache(cb_params)

    cb = Watching("c", str(tmp_path), CheckpointConfig(save_checkpoint_steps=3))
    assert cb._need_flush_from_cache
    model.train(1, _data(), callbacks=[cb])
    assert flushed == [[]] and not cb._need_flush_from_cache
    weight = net.trainable_params()[0]
    weight.cache_enable = True
    assert weight.clone().cache_enable and weight.param_info.clone().cache_enable
    with pytest.raises(TypeError, match="cache_enable"):
        weight.cache_enable = 1
    flushed.clear()
    cb = Watching("d", str(tmp_path), CheckpointConfig(save_checkpoint_steps=3))
    model.train(1, _data(), callbacks=[cb])
    assert flushed and all(names == [weight.name] for names in flushed) and cb._need_flush_from_cache
    assert "d-1_6.ckpt" in os.listdir(tmp_path)


def test_exception_save_writes_breakpoint(tmp_path):
    _, _, model = _model()

    class Boom(Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 4:
                raise RuntimeError("boom")

    cb = ModelCheckpoint("ex", str(tmp_path), CheckpointConfig(save_checkpoint_steps=100, exception_save=True))
    with pytest.raises(RuntimeError, match="boom"):
        model.train(1, _data(), callbacks=[cb, Boom()])
    assert "ex-1_4_breakpoint.ckpt" in os.listdir(tmp_path)


def test_backup_and_restore(tmp_path):
    _, _, reference = _model()
    rec_ref = Recorder()
    reference.train(2, _data(), callbacks=[rec_ref])
    _, _, first = _model()
    first.train(1, _data(), callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False)])
    assert os.path.exists(tmp_path / "backup.ckpt")
    _, _, resumed = _model(seed=42)  # other weights: the backup must replace them (optimizer state included)
    rec = Recorder()
    resumed.train(2, _data(), callbacks=[BackupAndRestore(str(tmp_path)), rec], initial_epoch=1)
    np.testing.assert_array_equal(rec.losses, rec_ref.losses[6:])
    assert not os.path.exists(tmp_path / "backup.ckpt")  # deleted at the end by default


def test_on_request_exit_saves_and_stops(tmp_path):
    net, _, model = _model()

    class SendSignal(Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 3:
                os.kill(os.getpid(), signal.SIGUSR1)

    rec = Recorder()
    model.train(3, _data(), callbacks=[SendSignal(), OnRequestExit(save_mindir=False, directory=str(tmp_path),
                                                                   sig=signal.SIGUSR1), rec])
    assert len(rec.losses) == 3
    saved = ms.train.load_checkpoint(str(tmp_path / "rank_0" / "Net_train.ckpt"))
    np.testing.assert_array_equal(saved["l1.weight"].asnumpy(), net.l1.weight.asnumpy())
    assert int(saved["step_num"].asnumpy()) == 3
    with pytest.raises(ValueError, match="SIGKILL"):
        OnRequestExit(sig=signal.SIGKILL)


def test_summary_record_is_read_by_tensorboard(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator as ea_mod
    from tensorboard.util import tensor_util
    with SummaryRecord(str(tmp_path), format="tensorboard") as rec:
        for step in range(1, 4):
            rec.add_value("scalar", "loss", ms.Tensor(np.float32(1.0 / step)))
            rec.add_value("histogram", "w", ms.Tensor(np.arange(20, dtype=np.float32) * step))
            rec.add_value("image", "img", ms.Tensor(np.random.rand(2, 3, 5, 4).astype(np.float32)))
            rec.add_value("text", "note", f"step {step}")
            rec.add_value("tensor", "t", ms.Tensor(np.eye(2, dtype=np.float32) * step))
            rec.record(step)
        path = rec.log_dir
    assert "tfevents" in os.path.basename(path)
    acc = ea_mod.EventAccumulator(str(tmp_path), size_guidance={"tensors": 0, "images": 0, "histograms": 0,
                                                                "scalars": 0})
    acc.Reload()
    tags = acc.Tags()
    assert tags["scalars"] == ["loss"] and tags["histograms"] == ["w"] and tags["images"] == ["img"]
    assert sorted(tags["tensors"]) == ["note", "t"]
    assert [(e.step, round(e.value, 6)) for e in acc.Scalars("loss")] == [(1, 1.0), (2, 0.5), (3, 0.333333)]
    h = acc.Histograms("w")[2].histogram_value
    assert (h.min, h.max, h.num, h.sum) == (0.0, 57.0, 20.0, float(np.arange(20).sum() * 3))
    assert sum(h.bucket) == 20
    img = acc.Images("img")[0]
    assert (img.width, img.height) == (8, 5)  # two 5x4 images side by side
    assert tensor_util.make_ndarray(acc.Tensors("note")[1].tensor_proto) == b"step 2"
    np.testing.assert_array_equal(tensor_util.make_ndarray(acc.Tensors("t")[2].tensor_proto), np.eye(2) * 3)


def test_summary_record_errors_and_truncated_file(tmp_path):
    from mindseed.train.summary import _event_file as E
    with SummaryRecord(str(tmp_path)) as rec:
        with pytest.raises(ValueError, match="plugin"):
            rec.add_value("audio", "a", ms.Tensor(1.0))
        with pytest.raises(TypeError, match="Tensor"):
            rec.add_value("scalar", "a", 1.0)
        with pytest.raises(ValueError, match="one element"):
            rec.add_value("scalar", "a", ms.Tensor([1.0, 2.0]))
        rec.add_value("scalar", "a", ms.Tensor(1.0))
        rec.record(1)
        path = rec.log_dir
    raw = open(path, "rb").read()
    assert len(E.read_records(raw)) == 2
    with pytest.raises(ValueError, match="truncated|CRC"):
        E.read_records(raw[:-3])
    assert E.crc32c(b"123456789") == 0xE3069283  # the standard CRC-32C check value
    with pytest.raises(TypeError, match="'network' must be None or Cell"):
        SummaryRecord(str(tmp_path), network=1)
    dense = nn.Dense(2, 2)
    open_before = SummaryRecord.count
    with SummaryRecord(str(tmp_path / "net"), network=dense) as rec:
        assert rec.network is dense and SummaryRecord.count == open_before + 1
    assert SummaryRecord.count == open_before


def test_summary_collector_records_loss_histograms_and_lineage(tmp_path):
    from tensorboard.backend.event_processing import event_accumulator as ea_mod
    _, _, model = _model()
    collector = SummaryCollector(str(tmp_path), collect_freq=2, format="tensorboard")
    model.fit(2, _data(), _data(VALID), callbacks=[collector])
    acc = ea_mod.EventAccumulator(str(tmp_path), size_guidance={"tensors": 0, "scalars": 0, "histograms": 0})
    acc.Reload()
    steps = [e.step for e in acc.Scalars("loss/auto")]
    assert steps == [1, 2, 4, 6, 8, 10, 12]
    assert "l1.weight/auto" in acc.Tags()["histograms"]
    from mindseed.train import lineage_pb2
    from mindseed.train.summary import _event_file as E
    (lineage,) = [n for n in os.listdir(tmp_path) if n.endswith("_lineage")]   # lineage: MindSpore's file, any format
    events = [lineage_pb2.LineageEvent.FromString(r) for r in E.read_records(open(tmp_path / lineage, "rb").read())]
    assert [e.WhichOneof("what") for e in events] == ["dataset_graph", "train_lineage"]
    assert events[1].train_lineage.hyper_parameters.epoch == 2
    with pytest.raises(ValueError, match="collect_freq"):
        SummaryCollector(str(tmp_path), collect_freq=0)
    with pytest.raises(ValueError, match="unsupported"):
        SummaryCollector(str(tmp_path), collect_specified_data={"nope": True})


def test_progress_bar_shows_epoch_loss_and_throughput():
    _, _, model = _model()
    buf = io.StringIO()
    model.train(2, _data(), callbacks=[ProgressBar(file=buf)])
    text = buf.getvalue()
    assert "Epoch 1/2" in text and "Epoch 2/2" in text
    assert "loss=" in text and "samples/s=" in text and "6/6" in text


def test_callbacks_driven_by_hand_through_the_private_manager():
    # MindSpore's mindspore.train.callback exports _InternalCallbackParam and _CallbackManager for this
    from mindseed.train import EarlyStopping, RunContext
    from mindseed.train.callback import _CallbackManager, _InternalCallbackParam
    cb_params = _InternalCallbackParam()
    run_context = RunContext(cb_params)
    stopped_at = None
    with _CallbackManager([EarlyStopping(monitor="accuracy", patience=2, baseline=0.55)]) as callbacks:
        for epoch, acc in enumerate([0.6, 0.3, 0.5, 0.5], 1):
            callbacks.on_train_epoch_begin(run_context)
            cb_params.eval_results = {"accuracy": acc}
            cb_params.cur_epoch_num = epoch
            callbacks.on_train_epoch_end(run_context)
            if run_context.get_stop_requested():
                stopped_at = epoch
                break
    assert stopped_at == 3 and cb_params.cur_epoch_num == 3
