"""mindspore.runtime streams: ordered queues of device work.

Every mindseed kernel call returns its result, so work on one stream is finished before work on the next begins;
a stream is the label under which work is issued, events are recorded and core limits are set, and waiting one
stream for another never has anything left to wait for. `synchronize` waits for the device's queued work (a GPU's).
"""
import itertools

from mindseed import _backend as B
from mindseed.runtime.event import Event

__all__ = ["Stream", "StreamCtx", "current_stream", "default_stream", "communication_stream", "set_cur_stream",
           "synchronize"]

_ids = itertools.count()


class Stream:
    """A device stream.

    Args:
        priority (int): lower numbers run first when streams compete; recorded. Default 0.

    >>> import mindseed as ms
    >>> s = ms.runtime.Stream()
    >>> with ms.runtime.StreamCtx(s):
    ...     assert ms.runtime.current_stream() == s
    """

    def __init__(self, priority=0, **kwargs):
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError(f"For 'Stream', the argument 'priority' must be int, but got {type(priority)}.")
        self.priority = priority
        self.id = next(_ids)
        self.cube_num = self.vector_num = -1

    def record_event(self, event=None):
        """Record `event` (a new one if None) on this stream; returns it."""
        if event is None:
            event = Event()
        elif not isinstance(event, Event):
            raise TypeError(f"For 'record_event', the argument 'event' should be Event, but got {type(event)}.")
        event.record(self)
        return event

    def wait_event(self, event):
        """Make this stream wait for `event`."""
        if not isinstance(event, Event):
            raise TypeError(f"For 'wait_event', the argument 'event' should be Event, but got {type(event)}.")
        event.wait(self)

    def wait_stream(self, stream):
        """Make this stream wait for the work issued on `stream` so far."""
        if not isinstance(stream, Stream):
            raise TypeError(f"For 'wait_stream', the argument 'stream' should be Stream, but got {type(stream)}.")
        self.wait_event(stream.record_event())

    def synchronize(self):
        """Wait for the work issued on this stream."""
        B.synchronize()

    def query(self):
        """True when the work issued on this stream has finished."""
        return True

    def __eq__(self, other):
        return isinstance(other, Stream) and other.id == self.id

    def __hash__(self):
        return hash(("Stream", self.id))

    def __repr__(self):
        return f"Stream(id={self.id}, priority={self.priority}, device={B.device_target()})"


_default = Stream()
_communication = Stream()
_current = [_default]


def _check(stream, api):
    if not isinstance(stream, Stream):
        raise TypeError(f"For '{api}', the argument 'stream' should be Stream, but got {type(stream)}.")
    return stream


def current_stream():
    """The stream work is issued on now."""
    return _current[0]


def default_stream():
    """The stream work is issued on unless another is selected."""
    return _default


def communication_stream():
    """The stream collective communication is issued on."""
    return _communication


def set_cur_stream(stream):
    """Issue work on `stream` from now on."""
    _current[0] = _check(stream, "set_cur_stream")


def synchronize():
    """Wait until all work issued on this device has finished."""
    B.synchronize()


class StreamCtx:
    """Within the `with` block, work is issued on `ctx_stream` (None: keep the current stream)."""

    def __init__(self, ctx_stream):
        self.stream = None if ctx_stream is None else _check(ctx_stream, "StreamCtx")
        self._previous = None

    def __enter__(self):
        self._previous = _current[0]
        if self.stream is not None:
            _current[0] = self.stream
        return self.stream

    def __exit__(self, *exc):
        _current[0] = self._previous
        return False
