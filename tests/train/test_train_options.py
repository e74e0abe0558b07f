"""cb_params as MindSpore documents them, Model's amp/loss-scale/boost options, time-based checkpoint policies."""
import os

import numpy as np
import pytest

import mindseed as ms
import mindseed.amp as amp
from mindseed import nn
from mindseed.train import Accuracy, Callback, CheckpointConfig, Model, ModelCheckpoint
from mindseed.train.callback import _checkpoint as ckpt_mod

from _train_helpers import VALID, BlobNet, _data

# RunContext's table in MindSpore's docs: what original_args() holds in train and in eval
TRAIN_FIELDS = {"train_network", "epoch_num", "train_dataset", "loss_fn", "optimizer", "parallel_mode",
                "device_number", "train_dataset_element", "last_save_ckpt_step", "latest_ckpt_file",
                "cur_epoch_num", "mode", "batch_num", "list_callback", "network", "cur_step_num",
                "dataset_sink_mode", "net_outputs"}
EVAL_FIELDS = {"eval_network", "valid_dataset", "metrics", "mode", "batch_num", "list_callback", "network",
               "cur_step_num", "dataset_sink_mode", "net_outputs"}


class _Fields(Callback):
    def __init__(self):
        super().__init__()
        self.seen = {}

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        self.seen.setdefault("train", (set(cb), cb.cur_epoch_num, cb.cur_step_num, cb.mode,
                                       cb.train_dataset_element, cb.net_outputs, cb.list_callback))

    def on_eval_end(self, run_context):
        cb = run_context.original_args()
        self.seen["eval"] = (set(cb), cb.mode, cb.cur_step_num, cb.batch_num, dict(cb.metrics))


def _plain_model(**kw):
    net = BlobNet()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, opt, loss, Model(net, loss, opt, metrics={"acc": Accuracy()}, **kw)


def test_cb_params_hold_the_documented_fields():
    net, opt, loss, model = _plain_model()
    rec = _Fields()
    model.train(1, _data(), callbacks=[rec])
    keys, epoch, step, mode, element, out, cbs = rec.seen["train"]
    assert TRAIN_FIELDS <= keys
    assert (epoch, step, mode) == (1, 1, "train")
    assert len(element) == 2 and element[0].shape == (10, 2)
    assert out.shape == () and cbs == [rec]
    acc = model.eval(_data(VALID), callbacks=[rec])
    keys, mode, step, batch_num, metrics = rec.seen["eval"]
    assert EVAL_FIELDS <= keys
    assert (mode, step, batch_num) == ("eval", 3, 3) and metrics == acc


@pytest.mark.parametrize("level", ["O1", "O2", "O3"])
def test_model_amp_level_with_loss_scale_manager(level):
    net, opt, loss, model = _plain_model(amp_level=level, boost_level="O1", keep_batchnorm_fp32=False,
                                         loss_scale_manager=amp.DynamicLossScaleManager(2.0 ** 10, 2, 3))
    # boost_level O1 with an update cell: MindSpore's build_train_network takes BoostTrainOneStepWithLossScaleCell
    assert type(model.train_network).__name__ == "BoostTrainOneStepWithLossScaleCell"
    outs = []

    class Keep(Callback):
        def on_train_step_end(self, run_context):
            outs.append(run_context.original_args().net_outputs)

    model.train(2, _data(), callbacks=[Keep()])
    assert len(outs) == 12
    losses = [float(o[0].asnumpy()) for o in outs]
    assert all(np.isfinite(losses)) and losses[-1] < losses[0]
    assert all(o[0].dtype == ms.float32 for o in outs)
    # the scale grows by 2 every 3 overflow-free steps: the update cell and the manager agree
    assert float(outs[-1][2].asnumpy()) == 2.0 ** 10 * 2 ** 4
    assert all(p.dtype == ms.float32 for p in net.trainable_params())
    assert isinstance(model.eval(_data(VALID))["acc"], float)


def test_model_overflow_skips_the_step_and_the_manager_follows():
    manager = amp.FixedLossScaleManager(2.0 ** 30, drop_overflow_update=True)
    net, opt, loss, model = _plain_model(amp_level="O2", loss_scale_manager=manager)
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    overflow = []

    class Keep(Callback):
        def on_train_step_end(self, run_context):
            overflow.append(bool(run_context.original_args().net_outputs[1].asnumpy()))

    model.train(1, _data(), callbacks=[Keep()])
    assert overflow == [True] * 6  # 2**30 times a float16 loss overflows: every update is dropped
    assert all(np.array_equal(b, p.asnumpy()) for b, p in zip(before, net.trainable_params()))
    with pytest.raises(ValueError, match="boost_level"):
        _plain_model(amp_level="O2", boost_level="O7")


def test_model_amp_without_optimizer_is_rejected():
    with pytest.raises(ValueError, match="optimizer"):
        Model(BlobNet(), nn.CrossEntropyLoss(), loss_scale_manager=amp.FixedLossScaleManager())


class _Clock:
    """A fake time.time(): each call returns the current fake second; tests move it forward."""

    def __init__(self):
        self.now = 1_000_000.0

    def time(self):
        return self.now


class _Tick(Callback):
    """Advance the fake clock before each step; give the newest checkpoint the fake time as its mtime."""

    def __init__(self, clock, ckpt, seconds_per_step):
        super().__init__()
        self.clock, self.ckpt, self.dt = clock, ckpt, seconds_per_step
        self.stamped = set()

    def on_train_step_begin(self, run_context):
        self.clock.now += self.dt

    def on_train_step_end(self, run_context):
        path = self.ckpt.latest_ckpt_file_name
        if path and path not in self.stamped and os.path.exists(path):
            os.utime(path, (self.clock.now, self.clock.now))
            self.stamped.add(path)


def test_save_checkpoint_seconds(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(ckpt_mod, "time", clock)
    cfg = CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=25, keep_checkpoint_max=0,
                           keep_checkpoint_per_n_minutes=0)
    assert cfg.save_checkpoint_steps == 0 and cfg.keep_checkpoint_max == 1
    cfg = CheckpointConfig(save_checkpoint_steps=None, save_checkpoint_seconds=25, keep_checkpoint_max=10)
    _, _, _, model = _plain_model()
    cb = ModelCheckpoint("sec", str(tmp_path), cfg)
    # 10 s per step: a save once more than 25 s have passed, i.e. every 3rd step, plus the last step
    model.train(2, _data(), callbacks=[_Tick(clock, cb, 10.0), cb])
    assert sorted(os.listdir(tmp_path)) == ["sec-1_3.ckpt", "sec-1_6.ckpt", "sec-2_3.ckpt", "sec-2_6.ckpt"]


def test_keep_checkpoint_per_n_minutes(tmp_path, monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(ckpt_mod, "time", clock)
    cfg = CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=0, keep_checkpoint_per_n_minutes=1)
    assert cfg.keep_checkpoint_max == 0 and cfg.keep_checkpoint_per_n_minutes == 1
    _, _, _, model = _plain_model()
    cb = ModelCheckpoint("min", str(tmp_path), cfg)
    # a step every 25 s, a file every step: of the files of the last minute only the oldest stays
    model.train(2, _data(), callbacks=[cb, _Tick(clock, cb, 25.0)])
    names = sorted(os.listdir(tmp_path), key=lambda f: os.path.getmtime(tmp_path / f))
    assert names == ["min-1_1.ckpt", "min-1_3.ckpt", "min-1_5.ckpt", "min-2_1.ckpt", "min-2_3.ckpt", "min-2_5.ckpt",
                     "min-2_6.ckpt"]
    cfg = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=3, keep_checkpoint_per_n_minutes=1)
    assert cfg.keep_checkpoint_per_n_minutes is None  # keep_checkpoint_max wins


def _run_in_mode(mode):
    ms.set_context(mode=mode)
    try:
        net, _, _, model = _plain_model()
        losses = []

        class Keep(Callback):
            def on_train_step_end(self, run_context):
                losses.append(float(run_context.original_args().net_outputs.asnumpy()))

        model.fit(2, _data(), _data(VALID), callbacks=[Keep()])
        return losses, model.eval(_data(VALID)), model.predict(ms.Tensor(VALID[0][:5])).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_model_in_graph_mode_matches_pynative():
    eager, graph = _run_in_mode(ms.PYNATIVE_MODE), _run_in_mode(ms.GRAPH_MODE)
    np.testing.assert_allclose(graph[0], eager[0], rtol=1e-6, atol=1e-7)
    assert len(graph[0]) == 12 and graph[1] == eager[1]
    np.testing.assert_allclose(graph[2], eager[2], rtol=1e-6, atol=1e-7)


class _Losses(Callback):
    def __init__(self, stop_at=None):
        super().__init__()
        self.stop_at, self.losses = stop_at, []

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        self.losses.append(float(cb.net_outputs.asnumpy()))
        if self.stop_at is not None and cb.cur_step_num >= self.stop_at:
            run_context.request_stop()


def _adam_model(seed):
    net = BlobNet(seed)
    opt = nn.Adam(net.trainable_params(), learning_rate=0.05)
    return opt, Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt)


def test_resume_adam_model_from_checkpoint_matches_uninterrupted_run(tmp_path):
    _, full = _adam_model(5)
    reference = _Losses()
    full.train(5, _data(), callbacks=[reference])

    opt_a, first = _adam_model(5)
    ckpt = ModelCheckpoint("adam", str(tmp_path), CheckpointConfig(save_checkpoint_steps=6, keep_checkpoint_max=1))
    stopped = _Losses(stop_at=18)
    first.train(5, _data(), callbacks=[stopped, ckpt])
    assert stopped.losses == reference.losses[:18]
    assert os.listdir(tmp_path) == ["adam-3_6.ckpt"]

    opt_b, second = _adam_model(77)  # other weights and fresh Adam moments: all must come from the file
    state = ms.train.load_checkpoint(ckpt.latest_ckpt_file_name)
    assert {"moment1.l1.weight", "moment2.l2.bias", "beta1_power", "global_step"} <= set(state)
    assert ms.train.load_param_into_net(second.train_network, state) == ([], [])
    for a, b in zip(opt_a.moment2, opt_b.moment2):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    resumed = _Losses()
    second.train(5, _data(), callbacks=[resumed], initial_epoch=3)
    np.testing.assert_array_equal(resumed.losses, reference.losses[18:])
