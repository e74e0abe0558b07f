"""MsDispatchMode: a context manager (or decorator) through which every operator call inside it passes."""
import contextlib

from mindseed._utils import _state

__all__ = ["MsDispatchMode"]


class OpFunc:
    """One operator call handed to `MsDispatchMode.__ms_dispatch__`: `name` is the operator's, and calling it with
    the tensor arguments runs the operator (its attributes are kept)."""

    __slots__ = ("prim", "attrs")

    def __init__(self, prim, attrs):
        self.prim, self.attrs = prim, attrs

    @property
    def name(self):
        return self.prim.name

    def __call__(self, *args):
        return self.prim(*args, **self.attrs)

    def __repr__(self):
        return f"OpFunc({self.name})"


class _Dispatcher:
    """The entry of the dispatcher's hook stack (`_state.profiling`) for one active mode: the primitive call goes to
    the mode's `__ms_dispatch__`, with every mode off while it runs (what it calls is the operator itself, not
    dispatched again by this or an outer mode)."""

    def __init__(self, mode):
        self.mode = mode

    def run_op(self, prim, args, attrs):
        stack = _state.profiling
        before = list(stack)
        stack[:] = [e for e in before if not isinstance(e, _Dispatcher)]
        try:
            return self.mode.__ms_dispatch__(OpFunc(prim, attrs), args, None)
        finally:
            stack[:] = before

    def run_cell(self, cell, call):
        return call()

    def run_graph(self, name, call):
        return call()

    def kernel(self, op_type, name, t0, t1):
        return None


class MsDispatchMode(contextlib.ContextDecorator):
    """Inside the context every PyNative operator call first goes to `__ms_dispatch__(func, args, kwargs)`, whose
    result is the call's result: `func.name` is the operator's name and `func(*args)` runs it. Subclasses override
    `__ms_dispatch__` to log, profile or change inputs and outputs. Modes nest: the innermost handles each call,
    and the operators it runs itself are not dispatched again. Also usable as a decorator.

    Raises:
        TypeError: the subclass's `__ms_dispatch__` does not take `(func, args, kwargs)`.

    >>> import mindseed as ms
    >>> class Twice(ms.MsDispatchMode):
    ...     def __ms_dispatch__(self, func, args, kwargs=None):
    ...         return func(*args) * 2
    >>> with Twice():
    ...     y = ms.Tensor([1.0, 2.0]) + ms.Tensor([3.0, 4.0])
    >>> y.asnumpy().tolist()
    [8.0, 12.0]
    """

    def __enter__(self):
        self._dispatchers = getattr(self, "_dispatchers", [])
        entry = _Dispatcher(self)
        self._dispatchers.append(entry)
        _state.profiling.append(entry)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        entry = self._dispatchers.pop()
        if entry in _state.profiling:
            _state.profiling.remove(entry)
        return False

    def __ms_dispatch__(self, func, args, kwargs=None):
        """Run the operator `func` on `args` and return its result (override to change that)."""
        return func(*args)
