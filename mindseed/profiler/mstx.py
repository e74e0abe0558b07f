"""`mstx`: marks and ranges of the user's own in the profiler's trace (MindSpore's `mindspore.profiler.mstx`)."""
import itertools
from time import perf_counter_ns as _now

from mindseed import log as logger
from mindseed._utils import _state

__all__ = ["Mstx"]

_ids = itertools.count(1)
_open = {}      # range id -> (message, start ns, domain)


def _active():
    for rec in reversed(_state.profiling):
        marks = getattr(rec, "marks", None)
        if marks is not None:
            return marks
    return None


def _check(method, message, domain):
    if not isinstance(message, str) or not message:
        logger.warning(f"For 'mstx.{method}', the parameter 'message' must be a non-empty str, but got {message!r}.")
        return False
    if not isinstance(domain, str) or not domain:
        logger.warning(f"For 'mstx.{method}', the parameter 'domain' must be a non-empty str, but got {domain!r}.")
        return False
    return True


class Mstx:
    """Marks (instants) and ranges the user adds to the trace of a recording profiler (with
    ``_ExperimentalConfig(mstx=True)`` on Ascend; on CPU they are recorded whenever a profiler records). Outside
    a recording profiler they do nothing.

    >>> from mindseed.profiler import mstx
    >>> rid = mstx.range_start("data loading")
    >>> mstx.range_end(rid)
    """

    @staticmethod
    def mark(message: str, stream=None, domain: str = "default") -> None:
        """An instant event named `message`."""
        marks = _active()
        if marks is not None and _check("mark", message, domain):
            t = _now()
            marks.append((message, t, t))

    @staticmethod
    def range_start(message: str, stream=None, domain: str = "default") -> int:
        """Start a range named `message`; returns its id for `range_end` (0 when nothing records)."""
        if _active() is None or not _check("range_start", message, domain):
            return 0
        rid = next(_ids)
        _open[rid] = (message, _now(), domain)
        return rid

    @staticmethod
    def range_end(range_id: int, domain: str = "default") -> None:
        """End the range `range_id` started by `range_start`."""
        started = _open.pop(range_id, None)
        marks = _active()
        if started is not None and marks is not None:
            marks.append((started[0], started[1], _now()))
