"""`schedule`: which steps a profiler records (MindSpore's `mindspore.profiler.schedule`)."""
from enum import Enum

from mindseed import log as logger

__all__ = ["ProfilerAction", "Schedule"]


class ProfilerAction(Enum):
    """What the profiler does during one step."""

    NONE = 0
    WARM_UP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3

    @staticmethod
    def get_by_value(value):
        """The member with this value, or None."""
        return {action.value: action for action in ProfilerAction}.get(value)


class Schedule:
    r"""The action of each step: skip `skip_first` steps, then cycles of `wait` steps doing nothing, `warmup` steps
    warming up and `active` steps recording, the last of which saves (hands the cycle to `on_trace_ready`);
    `repeat` cycles (0: until profiling stops).

    .. code-block::

        (NONE)        (NONE)          (NONE)       (WARM_UP)       (RECORD)      (RECORD)     (RECORD_AND_SAVE)
        START------->skip_first------->wait-------->warmup-------->active........active.........active------->stop

    Keyword Args:
        wait (int): steps doing nothing at the start of each cycle (>= 0; otherwise reset to 0 with a warning).
        active (int): steps recorded in each cycle (>= 1; otherwise reset to 1 with a warning).
        warmup (int): steps warming up before recording (>= 0). Default: ``0``.
        repeat (int): cycles; ``0`` repeats until profiling stops. Default: ``0``.
        skip_first (int): steps skipped before the first cycle. Default: ``0``.

    Raises:
        ValueError: calling it with a negative step.

    >>> from mindseed.profiler import schedule
    >>> s = schedule(wait=1, warmup=1, active=2, repeat=1)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARM_UP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """

    def __init__(self, *, wait: int, active: int, warmup: int = 0, repeat: int = 0, skip_first: int = 0) -> None:
        self.wait = _checked("wait", wait, 0)
        self.active = _checked("active", active, 1)
        self.warmup = _checked("warmup", warmup, 0)
        self.repeat = _checked("repeat", repeat, 0)
        self.skip_first = _checked("skip_first", skip_first, 0)

    def __call__(self, step: int) -> ProfilerAction:
        if step < 0:
            raise ValueError("Invalid parameter step, which must be not less than 0.")
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        cycle = self.wait + self.warmup + self.active
        if 0 < self.repeat <= step // cycle:
            return ProfilerAction.NONE
        at = step % cycle
        if at < self.wait:
            return ProfilerAction.NONE
        if at < self.wait + self.warmup:
            return ProfilerAction.WARM_UP
        return ProfilerAction.RECORD if at < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    def __repr__(self):
        return (f"Schedule(wait={self.wait!r}, active={self.active!r}, warmup={self.warmup!r}, "
                f"repeat={self.repeat!r}, skip_first={self.skip_first!r})")

    def to_dict(self):
        """The schedule's parameters as a dict."""
        return {"wait": self.wait, "active": self.active, "warmup": self.warmup, "repeat": self.repeat,
                "skip_first": self.skip_first}


def _checked(name, value, least):
    """MindSpore resets a bad schedule parameter to its default with a warning instead of raising."""
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        logger.warning(f"Parameter '{name}' should be of type int, but got {type(value).__name__}. "
                       f"reset to int {least}.")
        return least
    return value


def _default_schedule_fn(_step):
    """Without a schedule every step is recorded."""
    return ProfilerAction.RECORD
