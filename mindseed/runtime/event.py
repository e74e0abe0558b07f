"""mindspore.runtime.Event: a marker recorded on a stream, for synchronization and timing.

Kernels here run to completion in call order (on a GPU, `record` first waits for the device's queued work), so a
recorded event is complete at once and its time is the wall clock when it was recorded.
"""
import time

from mindseed import _backend as B

__all__ = ["Event"]


class Event:
    """A device event.

    Args:
        enable_timing (bool): whether `elapsed_time` may be asked of it. Default False.
        blocking (bool): whether `synchronize` blocks (it always may here: no work is pending). Default False.

    >>> import mindseed as ms
    >>> start, end = ms.runtime.Event(enable_timing=True), ms.runtime.Event(enable_timing=True)
    >>> start.record(); end.record()
    >>> end.elapsed_time(start) <= 0
    True
    """

    def __init__(self, enable_timing=False, blocking=False):
        for name, value in (("enable_timing", enable_timing), ("blocking", blocking)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'Event', the argument '{name}' must be bool, but got {type(value)}.")
        self.enable_timing, self.blocking = enable_timing, blocking
        self._time = None
        self._stream = None

    def record(self, stream=None):
        """Record the event on `stream` (the current stream by default)."""
        from mindseed.runtime.stream import Stream, current_stream  # noqa: PLC0415 -- stream.py imports Event
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"For 'Event.record', the argument 'stream' should be Stream, but got {type(stream)}.")
        self._stream = stream or current_stream()
        B.synchronize()
        self._time = time.perf_counter()

    def wait(self, stream=None):
        """Make `stream` wait for this event: its work is already complete, so nothing is left to wait for."""
        from mindseed.runtime.stream import Stream  # noqa: PLC0415
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"For 'Event.wait', the argument 'stream' should be Stream, but got {type(stream)}.")

    def synchronize(self):
        """Wait for the work recorded before the event."""
        B.synchronize()

    def query(self):
        """True when the work recorded before the event has finished (always, once recorded or never recorded)."""
        return True

    def elapsed_time(self, end_event):
        """Milliseconds from this event to `end_event`; both must be recorded with `enable_timing=True`."""
        if not isinstance(end_event, Event):
            raise TypeError(f"For 'Event.elapsed_time', the argument 'end_event' should be Event, but got "
                            f"{type(end_event)}.")
        for which, ev in (("this event", self), ("'end_event'", end_event)):
            if not ev.enable_timing:
                raise RuntimeError(f"For 'Event.elapsed_time', {which} was created with enable_timing=False.")
            if ev._time is None:
                raise RuntimeError(f"For 'Event.elapsed_time', {which} has not been recorded.")
        return (end_event._time - self._time) * 1000.0
