"""Per-stream core-number limits (MindSpore's Ascend cube/vector core budgets), held on the stream."""
from mindseed.runtime.stream import Stream, _check

__all__ = ["StreamLimitCtx", "set_stream_limit", "get_stream_limit", "reset_stream_limit"]


def check_cores(api, cube_num, vector_num):
    for name, value in (("cube_num", cube_num), ("vector_num", vector_num)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For '{api}', the argument '{name}' must be int, but got {type(value)}.")
        if value < -1 or value == 0:
            raise ValueError(f"For '{api}', the argument '{name}' must be -1 (no limit) or > 0, but got {value}.")


def set_stream_limit(stream, cube_num=-1, vector_num=-1):
    """Limit the cube and vector cores `stream` may use (-1: no limit)."""
    _check(stream, "set_stream_limit")
    check_cores("set_stream_limit", cube_num, vector_num)
    stream.cube_num, stream.vector_num = cube_num, vector_num


def get_stream_limit(stream):
    """(cube_num, vector_num) set for `stream`; (-1, -1) when unlimited."""
    _check(stream, "get_stream_limit")
    return stream.cube_num, stream.vector_num


def reset_stream_limit(stream):
    """Remove the core limits of `stream`."""
    set_stream_limit(stream)


class StreamLimitCtx:
    """Within the `with` block, `stream` has the given core limits; the previous ones come back after."""

    def __init__(self, stream, cube_num=-1, vector_num=-1):
        if not isinstance(stream, Stream):
            raise TypeError(f"For 'StreamLimitCtx', the argument 'stream' should be Stream, but got {type(stream)}.")
        check_cores("StreamLimitCtx", cube_num, vector_num)
        self.stream, self.limit, self._previous = stream, (cube_num, vector_num), None

    def __enter__(self):
        self._previous = get_stream_limit(self.stream)
        set_stream_limit(self.stream, *self.limit)
        return self

    def __exit__(self, *exc):
        set_stream_limit(self.stream, *self._previous)
        return False
