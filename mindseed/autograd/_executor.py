"""`mindspore.common.api._pynative_executor` (placed there by `mindseed._registration`): the PyNative executor's
switches that tools call directly.

* `set_enable_grad(False)` is MindSpore's no-grad switch: operations run meanwhile are not recorded for
  differentiation (a gradient sees them as constants) and a new `grad`/`value_and_grad` raises RuntimeError;
  `set_enable_grad(True)` records again. `enable_grad()` reads it.
* `grad_flag()` (and `requires_grad()`): whether a gradient transform is recording (its function is running).
* `sync()` waits for the device's queued work; `set_async_for_graph(flag)` is MindSpore's choice of launching graphs
  asynchronously (mindseed launches them in order on the device's queue either way, so results never differ;
  `sync()` is the point where they are sure to be done, as in MindSpore).
* `set_grad_flag(flag)`, `new_graph(obj, *args)`, `end_graph(obj, out, *args)`, `grad(obj, grad_op, weights,
  grad_position, *args)`: the top-cell protocol `GradOperation` follows in PyNative, for code that drives it itself
  (`autograd/_top_cell.py`): the forward is recorded once and differentiated at `grad`.
"""
import contextlib

from mindseed import _backend as B
from mindseed._utils import _state
from mindseed.autograd import _top_cell

__all__ = ["_PyNativeExecutor", "_pynative_executor", "_no_grad"]


def _check_bool(api, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '_pynative_executor.{api}', the argument must be a bool, but got "
                        f"{type(value).__name__}.")


class _PyNativeExecutor:
    """MindSpore's PyNative executor object (see the module docstring)."""

    def __init__(self):
        self._async_for_graph = False
        self._grad_flag = False

    @staticmethod
    def sync():
        """Wait until every operation launched so far has finished."""
        B.synchronize()

    def set_async_for_graph(self, flag):
        """Whether graphs are launched without waiting for them (see the module docstring)."""
        _check_bool("set_async_for_graph", flag)
        self._async_for_graph = flag

    @staticmethod
    def set_enable_grad(flag):
        """Turn recording for differentiation on (True) or off (False); as MindSpore's binding, a number is taken
        as its truth value."""
        _state.grad_enabled = bool(flag)

    @staticmethod
    def enable_grad():
        """Whether operations are recorded for differentiation (`set_enable_grad`)."""
        return _state.grad_enabled

    @staticmethod
    def grad_flag():
        """Whether a gradient transform is recording: a function being differentiated is running."""
        return _state.grad_enabled and any(not getattr(t, "records_all", False) for t in _state.tapes)

    requires_grad = grad_flag

    def set_grad_flag(self, flag):
        """Whether the next top cell (`new_graph` ... `end_graph`) is recorded for a gradient."""
        self._grad_flag = bool(flag)

    def new_graph(self, obj, *args, **kwargs):
        """Start recording the forward of `obj` (only with the grad flag set, as in MindSpore)."""
        if self._grad_flag:
            _top_cell.new_graph(obj, *args, **kwargs)

    @staticmethod
    def end_graph(obj, output, *args, **kwargs):
        """Stop recording the forward of `obj`, whose output is `output`."""
        _top_cell.end_graph(obj, output, *args, **kwargs)

    @staticmethod
    def grad(obj, grad_op, weights, grad_position, *args):
        """The gradients of the recorded forward of `obj`, as `grad_op` (a `GradOperation`) asks for them."""
        return _top_cell.grad(obj, grad_op, weights, grad_position, *args)


_pynative_executor = _PyNativeExecutor()


class _no_grad(contextlib.ContextDecorator):  # noqa: N801 (MindSpore's name)
    """`mindspore._no_grad()`: a context manager (or decorator) in which operations are not recorded for
    differentiation (`set_enable_grad(False)`); the previous state comes back on exit.

    >>> import mindseed as ms
    >>> w = ms.Parameter(ms.Tensor(3.0), name="w")
    >>> def f(x):
    ...     with ms._no_grad():
    ...         c = x * w
    ...     return c * x
    >>> ms.grad(f)(ms.Tensor(2.0))     # c is a constant: d(c x)/dx = c = 6
    Tensor(shape=[], dtype=Float32, value= 6)
    """

    def __init__(self):
        self.prev_state = False

    def __enter__(self):
        self.prev_state = _pynative_executor.enable_grad()
        _pynative_executor.set_enable_grad(False)

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pynative_executor.set_enable_grad(self.prev_state)
        return False
