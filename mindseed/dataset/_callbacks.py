"""The dataset pipeline's callbacks (`mindspore.dataset.DSCallback`, `WaitedDSCallback`) and how map runs them.

A map's callbacks see the pipeline's epochs and the rows that pass through that map: `ds_begin` once before the
first epoch (epoch 0, step 0), `ds_epoch_begin` / `ds_epoch_end` around each epoch of the iterator (repeats inside
an epoch belong to it), `ds_step_begin` / `ds_step_end` around every `step_size`-th row of the epoch. Only an
iterator's run calls them (not get_dataset_size, output_shapes, ...).
"""
import os
import threading

from mindseed.dataset import _validate as V
from mindseed.dataset import config as _cfg
from mindseed.dataset._engine import reraise_worker
from mindseed.train.callback._callback import Callback

__all__ = ["DSCallback", "WaitedDSCallback", "check_callbacks", "CallbackRun"]


class DSCallback:
    """Callbacks of a map operation: override ds_begin / ds_epoch_begin / ds_epoch_end / ds_step_begin /
    ds_step_end; each gets a run context with cur_epoch_num, cur_step_num_in_epoch and cur_step_num."""

    def __init__(self, step_size=1):
        V.check_pos_int32(step_size, "step_size")
        self.step_size = step_size

    def ds_begin(self, ds_run_context):
        """Called once, before the pipeline starts."""

    def ds_epoch_begin(self, ds_run_context):
        """Called before a new epoch starts."""

    def ds_epoch_end(self, ds_run_context):
        """Called after an epoch ends."""

    def ds_step_begin(self, ds_run_context):
        """Called before every `step_size`-th row."""

    def ds_step_end(self, ds_run_context):
        """Called after every `step_size`-th row."""

    def _hooks(self):
        """{event: bound method} of the methods this class overrides (MindSpore's create_runtime_obj)."""
        cls = type(self)
        hooks = {name: getattr(self, "ds_" + name) for name in ("begin", "epoch_begin", "epoch_end", "step_begin",
                                                                "step_end")
                 if getattr(cls, "ds_" + name) is not getattr(DSCallback, "ds_" + name)}
        return _at_least_one(hooks)


def _at_least_one(hooks):
    if not hooks:
        raise AttributeError("Inheriting Callback class without overriding any methods, check the usage of user "
                             "defined Callback.")
    return hooks


class WaitedDSCallback(Callback, DSCallback):
    """A dataset callback synchronised with training: also passed to `Model.train` as a training callback, it makes
    the pipeline's step (epoch) wait until the training's previous step (epoch) has ended, then calls
    `sync_step_begin` (`sync_epoch_begin`) with both run contexts."""

    def __init__(self, step_size=1):
        super().__init__()
        V.check_pos_int32(step_size, "step_size")
        self.step_size = step_size
        self.step_event = threading.Event()
        self.step_run_context = None
        self.epoch_event = threading.Event()
        self.epoch_run_context = None
        self.training_ended = False

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        """Called before a dataset epoch starts, after the previous training epoch ended."""

    def sync_step_begin(self, train_run_context, ds_run_context):
        """Called before a dataset step starts, after the previous training step ended."""

    def epoch_end(self, run_context):
        """Training side: releases the wait of ds_epoch_begin."""
        self.epoch_run_context = run_context
        self.epoch_event.set()

    def ds_epoch_begin(self, ds_run_context):
        """Waits for the training epoch to end (from the second epoch on), then calls sync_epoch_begin."""
        if ds_run_context.cur_epoch_num > 1:
            if not self.training_ended:
                timeout = _cfg.get_callback_timeout()
                success = self.epoch_event.wait(timeout=timeout)
                self.epoch_event.clear()
                if not success:
                    raise RuntimeError(f"ds_epoch_begin timed out after {timeout} second(s).")
            self.sync_epoch_begin(self.epoch_run_context, ds_run_context)

    def step_end(self, run_context):
        """Training side: releases the wait of ds_step_begin."""
        self.step_run_context = run_context
        self.step_event.set()

    def ds_step_begin(self, ds_run_context):
        """Waits for the training step to end (after the first step), then calls sync_step_begin."""
        if ds_run_context.cur_step_num > self.step_size:
            if not self.training_ended:
                timeout = _cfg.get_callback_timeout()
                success = self.step_event.wait(timeout=timeout)
                self.step_event.clear()
                if not success:
                    raise RuntimeError(f"ds_step_begin timed out after {timeout} second(s).")
            self.sync_step_begin(self.step_run_context, ds_run_context)

    def end(self, run_context):
        """Training side: the training ended; nothing waits any more."""
        self.epoch_end(run_context)
        self.step_end(run_context)
        self.training_ended = True

    def _hooks(self):
        cls = type(self)
        hooks = {}
        if cls.sync_step_begin is not WaitedDSCallback.sync_step_begin:
            hooks["step_begin"] = self.ds_step_begin
        if cls.sync_epoch_begin is not WaitedDSCallback.sync_epoch_begin:
            hooks["epoch_begin"] = self.ds_epoch_begin
        return _at_least_one(hooks)


def check_callbacks(callbacks):
    """map's `callbacks` argument as a list, checked as MindSpore checks it."""
    if callbacks is None:
        return []
    if isinstance(callbacks, (list, tuple)):
        V.type_check_list(callbacks, (DSCallback,), "callbacks")
    else:
        V.type_check(callbacks, (DSCallback,), "callbacks")
    if os.environ.get("MS_INDEPENDENT_DATASET", "").lower() == "true":
        raise RuntimeError("Dataset Callbacks is not supported in Dataset Independent mode.")
    return list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]


class _RunContext:
    """What a DSCallback learns about the pipeline's progress."""

    def __init__(self, epoch, step_in_epoch, step):
        self.cur_epoch_num = epoch
        self.cur_step_num_in_epoch = step_in_epoch
        self.cur_step_num = step


class CallbackRun:
    """The callbacks of one map node during one iterator's run: epoch events from the iterator, step events from
    the rows passing through the map."""

    def __init__(self, callbacks):
        self.hooks = [(cb.step_size, cb._hooks()) for cb in callbacks]
        self.run = None
        self.steps = 0

    @staticmethod
    def _fire(hook, ctx):
        """Run a callback method; its exception comes as the pipeline's error for user code (with traceback)."""
        try:
            hook(ctx)
        except Exception as e:  # noqa: BLE001
            raise reraise_worker(e) from None

    def _call(self, event, ctx):
        for _, hooks in self.hooks:
            if event in hooks:
                self._fire(hooks[event], ctx)

    def epoch_begin(self, epoch):
        if epoch == 1:
            self._call("begin", _RunContext(0, 0, 0))
        self.run = _RunContext(epoch, 0, self.steps)
        self._call("epoch_begin", self.run)

    def epoch_end(self):
        if self.run is not None:
            self.steps = self.run.cur_step_num
            self._call("epoch_end", self.run)
            self.run = None

    def rows(self, rows):
        """`rows` with the step events around each."""
        for row in rows:
            run = self.run
            if run is None:  # rows drawn outside an epoch of the iterator
                yield row
                continue
            run.cur_step_num_in_epoch += 1
            run.cur_step_num += 1
            due = [hooks for size, hooks in self.hooks if (run.cur_step_num_in_epoch - 1) % size == 0]
            for hooks in due:
                if "step_begin" in hooks:
                    self._fire(hooks["step_begin"], run)
            yield row
            for hooks in due:
                if "step_end" in hooks:
                    self._fire(hooks["step_end"], run)
