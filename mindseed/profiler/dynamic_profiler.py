"""`DynamicProfilerMonitor` (profiling steps chosen in a JSON file while training runs) and `EnvProfiler`
(profiling configured by the MS_PROFILER_OPTIONS environment variable)."""
import json
import os
import time

from mindseed import log as logger
from mindseed.profiler.profiler import Profiler
from mindseed.train.callback import Callback

__all__ = ["DynamicProfilerMonitor", "EnvProfiler"]

_CONFIG_FILE = "profiler_config.json"
_DEFAULT_CONFIG = {"start_step": -1, "stop_step": -1, "aic_metrics": "AiCoreNone", "profiler_level": "Level0",
                   "activities": "CPU+NPU", "analyse_mode": -1, "parallel_strategy": False, "with_stack": False,
                   "data_simplification": True}


def _rank():
    return int(os.environ.get("RANK_ID", os.environ.get("RANK", "0")) or 0)


class DynamicProfilerMonitor(Callback):
    """Profile the steps `start_step`..`stop_step` (the first step is 1) named in ``<cfg_path>/profiler_config.json``,
    a file that may be edited while training runs (it is re-read at most every `poll_interval` seconds). Call
    `step()` after each training step, or pass the monitor to `Model.train` as a callback. Each profiled range is
    written under ``<output_path>/rank<id>_start<s>_stop<e>/`` and, when the file's `analyse_mode` is 0 or 1,
    analysed at once.

    Args:
        cfg_path (str): the directory of profiler_config.json (made with MindSpore's defaults when absent).
        output_path (str): Default ``"./dyn_profile_data"``.
        poll_interval (int): seconds between reads of the file. Default ``2``.

    Raises:
        TypeError: `cfg_path` is not a str.
    """

    def __init__(self, cfg_path=None, output_path="./dyn_profile_data", poll_interval=2, **kwargs):
        if not isinstance(cfg_path, str):
            raise TypeError(f"For 'DynamicProfilerMonitor', the 'cfg_path' must be a str (a directory), but got "
                            f"{type(cfg_path).__name__}.")
        if isinstance(poll_interval, bool) or not isinstance(poll_interval, (int, float)) or poll_interval < 0:
            raise ValueError(f"For 'DynamicProfilerMonitor', the 'poll_interval' must be a non-negative number, but "
                             f"got {poll_interval!r}.")
        os.makedirs(cfg_path, exist_ok=True)
        self._cfg_file = os.path.join(cfg_path, _CONFIG_FILE)
        if not os.path.exists(self._cfg_file):
            with open(self._cfg_file, "w", encoding="utf-8") as f:
                json.dump(_DEFAULT_CONFIG, f, indent=1)
        self._output_path = output_path
        self._poll_interval = poll_interval
        self._config, self._mtime, self._read_at = dict(_DEFAULT_CONFIG), None, None
        self._step_num = 0            # steps completed
        self._profiler, self._range = None, None
        self._read_config(force=True)
        self._maybe_start()

    def _read_config(self, force=False):
        now = time.monotonic()
        if not force and self._read_at is not None and now - self._read_at < self._poll_interval:
            return
        self._read_at = now
        try:
            mtime = os.path.getmtime(self._cfg_file)
            if mtime == self._mtime:
                return
            with open(self._cfg_file, encoding="utf-8") as f:
                config = json.load(f)
        except (OSError, ValueError) as exc:
            logger.warning(f"For 'DynamicProfilerMonitor', {self._cfg_file} cannot be read: {exc}")
            return
        self._mtime = mtime
        self._config = {**_DEFAULT_CONFIG, **config}

    def _maybe_start(self):
        start, stop = self._config.get("start_step", -1), self._config.get("stop_step", -1)
        if self._profiler is None and isinstance(start, int) and start == self._step_num + 1 and \
                isinstance(stop, int) and stop >= start:
            path = os.path.join(self._output_path, f"rank{_rank()}_start{start}_stop{stop}")
            self._profiler, self._range = Profiler(output_path=path), (start, stop)

    def step(self):
        """Mark the end of a training step: profiling starts before `start_step` and ends after `stop_step`."""
        self._step_num += 1
        if self._profiler is not None and self._step_num >= self._range[1]:
            prof, self._profiler = self._profiler, None
            if self._config.get("analyse_mode", -1) in (0, 1):
                prof.analyse()
            else:
                prof.stop()
        self._read_config()
        self._maybe_start()

    def on_train_step_end(self, run_context):
        self.step()


class EnvProfiler:
    """Profiling set up by the environment variable MS_PROFILER_OPTIONS, a JSON object such as
    ``{"start": true, "output_path": "./data"}``: with ``"start": true`` the profiler records from construction
    until `analyse()`.

    Raises:
        ValueError: MS_PROFILER_OPTIONS is not a JSON object.
    """

    def __init__(self):
        raw = os.environ.get("MS_PROFILER_OPTIONS", "")
        try:
            options = json.loads(raw) if raw else {}
        except ValueError:
            options = None
        if not isinstance(options, dict):
            raise ValueError(f"For 'EnvProfiler', MS_PROFILER_OPTIONS must be a JSON object, but got {raw!r}.")
        self.options = options
        self._profiler = Profiler(output_path=options.get("output_path", "./data")) if options.get("start") else None

    def analyse(self):
        """Stop recording and write the deliverables (nothing when MS_PROFILER_OPTIONS did not start profiling)."""
        if self._profiler is not None:
            self._profiler.analyse()
            self._profiler = None
