"""Callback, RunContext and the callback list Model drives during training and evaluation."""
from contextlib import ExitStack

import numpy as np

from mindseed.common.tensor import Tensor

__all__ = ["Callback", "RunContext"]

CUR_NET = None      # the network being trained, for code that saves it (MindSpore's `set_cur_net`)


def set_cur_net(net):
    """Record the network being trained (MindSpore's private hook, called by training loops)."""
    global CUR_NET
    CUR_NET = net

_HOOKS = ("on_train_begin", "on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin", "on_train_step_end",
          "on_train_end", "on_eval_begin", "on_eval_epoch_begin", "on_eval_epoch_end", "on_eval_step_begin",
          "on_eval_step_end", "on_eval_end", "begin", "epoch_begin", "epoch_end", "step_begin", "step_end", "end")


class Callback:
    """Base class of training/evaluation callbacks: override the hooks you need.

    The `on_train_*` and `on_eval_*` hooks default to the old names (`begin`, `epoch_begin`,
    `epoch_end`, `step_begin`, `step_end`, `end`), so callbacks written either way work. Each hook
    gets a `RunContext`; `run_context.original_args()` holds the training state (cb_params).

    >>> from mindseed.train import Callback
    >>> class StopAtStep(Callback):
    ...     def on_train_step_end(self, run_context):
    ...         if run_context.original_args().cur_step_num >= 10:
    ...             run_context.request_stop()
    """

    def __enter__(self):
        return self

    def __exit__(self, *err):
        pass

    def begin(self, run_context):
        """Called once before training or evaluation (old name)."""

    def epoch_begin(self, run_context):
        """Called before each epoch (old name)."""

    def epoch_end(self, run_context):
        """Called after each epoch (old name)."""

    def step_begin(self, run_context):
        """Called before each step (old name)."""

    def step_end(self, run_context):
        """Called after each step (old name)."""

    def end(self, run_context):
        """Called once after training or evaluation (old name)."""

    def on_train_begin(self, run_context):
        """Called once before training."""
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        """Called before each training epoch."""
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        """Called after each training epoch (after the validation of `fit`)."""
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        """Called before each training step."""
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        """Called after each training step; `net_outputs` holds the step's output."""
        self.step_end(run_context)

    def on_train_end(self, run_context):
        """Called once after training."""
        self.end(run_context)

    def on_eval_begin(self, run_context):
        """Called once before evaluation."""
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        """Called before the evaluation pass."""
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        """Called after the evaluation pass."""
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        """Called before each evaluation step."""
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        """Called after each evaluation step."""
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        """Called once after evaluation; `metrics` holds the results."""
        self.end(run_context)


def _forward(name):
    def hook(self, run_context):
        for cb in self._callbacks:
            getattr(cb, name)(run_context)
    hook.__name__ = name
    hook.__doc__ = f"Call `{name}` of every callback in order."
    return hook


class _CallbackManager(Callback):
    """A list of callbacks called in order; entering it enters every callback's context."""

    def __init__(self, callbacks):
        self._callbacks, self._stack = [], None
        if isinstance(callbacks, Callback):
            self._callbacks.append(callbacks)
        elif isinstance(callbacks, list):
            for cb in callbacks:
                if not isinstance(cb, Callback):
                    raise TypeError("When the 'callbacks' is a list, the elements in 'callbacks' must be Callback "
                                    "functions.")
                self._callbacks.append(cb)
        elif callbacks is not None:
            raise TypeError("The 'callbacks' is not a Callback or a list of Callback.")

    def __enter__(self):
        if self._stack is None:
            callbacks, self._stack = [], ExitStack().__enter__()
            for cb in self._callbacks:
                target = self._stack.enter_context(cb)
                callbacks.append(target if isinstance(target, Callback) else cb)
            self._callbacks = callbacks
        return self

    def __exit__(self, *err):
        return self._stack.__exit__(*err)


for _name in _HOOKS:
    setattr(_CallbackManager, _name, _forward(_name))


class InternalCallbackParam(dict):
    """cb_params: a dict whose keys are also attributes (train_network, cur_epoch_num, net_outputs, ...)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"'cb_params' has no attribute '{key}'.") from None

    def __setattr__(self, key, value):
        self[key] = value


class RunContext:
    """What a callback hook receives: `original_args()` (the cb_params) and `request_stop()`.

    Args:
        original_args (dict): the training state shared with the callbacks.

    Raises:
        TypeError: `original_args` is not a dict.
    """

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError(f"The argument 'original_args' of RunContext should be dict type, but got "
                            f"{type(original_args)}.")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        """The cb_params: train_network, epoch_num, batch_num, cur_epoch_num, cur_step_num, net_outputs, ..."""
        return self._original_args

    def request_stop(self):
        """Stop training (after the current step) or evaluation."""
        self._stop_requested = True

    def get_stop_requested(self):
        """Whether a stop was requested."""
        return self._stop_requested


def _handle_loss(loss):
    """A step output as a float loss: the first Tensor of a tuple, or the mean of a Tensor."""
    if isinstance(loss, (tuple, list)):
        if loss and isinstance(loss[0], Tensor):
            loss = loss[0]
    if isinstance(loss, Tensor):
        loss = float(np.mean(_numpy(loss)))
    return loss


def _numpy(t):
    if t.dtype.name == "BFloat16":
        from mindseed.common import dtype as mstype  # noqa: PLC0415
        t = t.astype(mstype.float32)
    return t.asnumpy()


def _make_directory(path):
    """Create `path` (and parents) if missing; the absolute path."""
    import os  # noqa: PLC0415
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"The input path must be a non-empty string, but got {path!r}.")
    path = os.path.realpath(path)
    os.makedirs(path, exist_ok=True)
    return path
