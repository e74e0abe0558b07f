"""Errors in MindSpore's phrasing: `For 'Op', the 'arg' ...`."""
import functools
import os


class GraphCallArgumentError(RuntimeError, TypeError):
    """A graph-mode call with a keyword argument the callee does not take: MindSpore's compiler raises a
    RuntimeError ('Got an unexpected keyword argument'); Python's call would raise a TypeError. This is both."""


def op_error(exc_type, op, message):
    return exc_type(f"For '{op}', {message}")


def check_type(op, name, value, types):
    if not isinstance(value, types):
        names = types.__name__ if isinstance(types, type) else ", ".join(t.__name__ for t in types)
        raise TypeError(f"For '{op}', the type of '{name}' must be {names}, but got {type(value).__name__}.")
    return value


def check_int(op, name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{op}', the '{name}' must be int, but got {type(value).__name__}.")
    return value


def check_axis(op, axis, ndim, name="axis"):
    """Normalize one axis into [0, ndim); ndim 0 accepts -1 and 0."""
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"For '{op}', the '{name}' must be int, but got {type(axis).__name__}.")
    n = max(ndim, 1)
    if not -n <= axis < n:
        raise ValueError(f"For '{op}', the '{name}' must be in range [{-n}, {n}), but got {axis}.")
    return axis % n


@functools.lru_cache(maxsize=1)
def _physical_memory():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _memory_not_enough(op):
    return RuntimeError(f"For '{op}', Memory not enough: the allocation for the output failed (Allocate memory "
                        f"failed).")


def host_alloc(op, make, *args, nbytes=None):
    """`make(*args)`, a host (numpy) computation whose output may be too large to allocate: that failure reads as
    MindSpore reports memory exhaustion, a RuntimeError. `nbytes`, the memory the computation needs, when known:
    more than the machine has fails at once (the system would otherwise grant the pages and then run out while
    filling them)."""
    ram = _physical_memory() if nbytes is not None else None
    if ram is not None and nbytes > ram:
        raise _memory_not_enough(op)
    try:
        return make(*args)
    except (MemoryError, ValueError) as exc:
        if not isinstance(exc, MemoryError) and "Maximum allowed" not in str(exc) and "too big" not in str(exc):
            raise
        raise _memory_not_enough(op) from None
