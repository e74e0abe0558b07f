"""`profile`, `Profiler`, `tensorboard_trace_handler` and offline `analyse` (MindSpore's `mindspore.profiler`).

A profiler records while the action of the current step records (its `schedule`; without one, always from
`start()` to `stop()`): a `_Recorder` sits on `_state.profiling`, where the primitive dispatcher, Cell calls and
compiled graphs find it. Each recorded cycle is written as `<dir>/<worker>_<time>_ascend_ms/FRAMEWORK/` data and
analysed into `ASCEND_PROFILER_OUTPUT/` (see `_analysis`).
"""
import json
import os
import socket
import time
from datetime import datetime, timezone
from time import perf_counter_ns as _now

from mindseed import log as logger
from mindseed.profiler import _analysis
from mindseed.profiler._recorder import _Recorder
from mindseed.profiler.common import ProfilerActivity, ProfilerLevel
from mindseed.profiler.experimental_config import _ExperimentalConfig
from mindseed.profiler.schedule import ProfilerAction, _default_schedule_fn

__all__ = ["profile", "Profiler", "tensorboard_trace_handler", "analyse"]

_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


def tensorboard_trace_handler(dir_name: str = None, worker_name: str = None, analyse_flag: bool = True,
                              async_mode: bool = False):
    """The `on_trace_ready` callback that writes each recorded cycle under `dir_name` and analyses it.

    Args:
        dir_name (str): where the ``*_ascend_ms`` directories go. Default: ``"./data"``.
        worker_name (str): the directories' prefix. Default: ``"<host name>_<process id>"``.
        analyse_flag (bool): analyse at once (else only the recorded data is written). Default: ``True``.
        async_mode (bool): accepted; the analysis runs in this process. Default: ``False``.

    Returns:
        The callback, called with the profiler at the end of each cycle.
    """
    if dir_name is not None and not isinstance(dir_name, str):
        logger.warning("dir_name is not str, set by default.")
        dir_name = None
    if not isinstance(analyse_flag, bool):
        logger.warning("analyse_flag is not bool, set by default.")
        analyse_flag = True
    if not isinstance(async_mode, bool):
        logger.warning("async_mode is not bool, set by default.")
    dir_name = dir_name or "./data"

    def handler_fn(prof_inst) -> None:
        for ms_dir in prof_inst._flush(dir_name, worker_name):
            if analyse_flag:
                _analysis.analyse_dir(ms_dir)
                prof_inst._analysed.add(ms_dir)

    return handler_fn


class _Base:
    """Start/stop/step and the schedule's actions, shared by `profile` and `Profiler`."""

    def _setup(self, output_path, activities, schedule, on_trace_ready, start_profile, experimental_config):
        if activities is None:
            activities = [ProfilerActivity.CPU, ProfilerActivity.NPU]
        self.activities = [_checked_activity(a) for a in activities]
        self.experimental_config = experimental_config if isinstance(experimental_config, _ExperimentalConfig) \
            else _ExperimentalConfig()
        self._output_path = output_path
        if schedule is not None and not callable(schedule):
            logger.warning("schedule is not Callable, set by default.")
            schedule = None
        self._schedule_set = schedule is not None
        self.schedule = schedule if schedule is not None else _default_schedule_fn
        if on_trace_ready is not None and not callable(on_trace_ready):
            logger.warning("on_trace_ready is not Callable, set by default.")
            on_trace_ready = None
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._recorder = None
        self._pending = []          # recorded cycles not yet written
        self._written = []          # their *_ascend_ms directories
        self._analysed = set()
        self._metadata = {}
        self._has_started = False
        self._step_t0 = None
        if start_profile:
            self.start()

    # ------------------------------------------------------------ control
    def start(self) -> None:
        """Start collecting (the current step's action decides whether it records)."""
        if self._has_started:
            logger.warning("The profiler has already started. Do not turn on again in the open state.")
            return
        self._has_started = True
        self._step_t0 = _now()
        self._transit(ProfilerAction.NONE, self.current_action)

    def stop(self) -> None:
        """Stop collecting; a cycle being recorded ends here and is handed to `on_trace_ready` (without one, its
        data is written under the output path for `analyse`)."""
        if not self._has_started:
            logger.error("The profiler has not started. Do not turn off again in the closed state.")
            return
        self._end_step()
        self._has_started = False
        self._transit(self.current_action, None)
        if self.on_trace_ready is None:
            self._flush(self._output_path, None)

    def step(self) -> None:
        """Mark the end of a step: the schedule's action for the next step takes effect."""
        if not self._has_started:
            logger.error("Profiler is stopped, step takes no effect!")
            return
        self._end_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._step_t0 = _now()

    def __enter__(self):
        if not self._has_started:
            self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._has_started:
            self.stop()

    def __del__(self):
        rec = self.__dict__.get("_recorder")
        if rec is not None:
            rec.uninstall()

    def add_metadata(self, key: str, value: str):
        """Add a key/value pair to profiler_metadata.json."""
        if not isinstance(key, str) or not isinstance(value, str):
            logger.warning("The key and value of metadata must be string. Skip this metadata.")
            return
        self._metadata[key] = value

    def add_metadata_json(self, key: str, value: str):
        """Add a key and a JSON-string value (stored parsed) to profiler_metadata.json."""
        if not isinstance(key, str) or not isinstance(value, str):
            logger.warning("The key and value of metadata must be string. Skip this metadata.")
            return
        try:
            self._metadata[key] = json.loads(value)
        except ValueError:
            logger.warning("The metadata value must be json format string. Skip this metadata")

    # ------------------------------------------------------------ internals
    def _end_step(self):
        if self._recorder is not None and self._schedule_set:
            self._recorder.steps.append((self.step_num, self._step_t0, _now()))

    def _transit(self, prev, cur):
        if self._recorder is not None and (prev is ProfilerAction.RECORD_AND_SAVE or cur not in _RECORDING):
            rec, self._recorder = self._recorder, None
            rec.uninstall()
            self._pending.append(rec)
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if cur in _RECORDING and self._recorder is None:
            self._recorder = _Recorder()
            self._recorder.install()
        if self._recorder is not None:
            self._recorder.step = self.step_num if self._schedule_set else None

    def _flush(self, dir_name, worker_name):
        """Write the recorded cycles not yet written, each in a new `*_ascend_ms` directory under dir_name."""
        dirs = []
        for rec in self._pending:
            ms_dir = _new_ms_dir(dir_name, worker_name)
            framework = os.path.join(ms_dir, _analysis.FRAMEWORK_DIR)
            os.makedirs(framework, exist_ok=True)
            with open(os.path.join(framework, _analysis.RAW_FILE), "w", encoding="utf-8") as f:
                json.dump(rec.to_raw(), f)
            if self._metadata:
                with open(os.path.join(ms_dir, "profiler_metadata.json"), "w", encoding="utf-8") as f:
                    json.dump(self._metadata, f)
            dirs.append(ms_dir)
        self._pending = []
        self._written.extend(dirs)
        return dirs

    def _analyse_written(self, pretty=False, step_list=None):
        if self._recorder is not None:
            self._transit(self.current_action, None)
            self._has_started = False
        self._flush(self._output_path, None)
        for ms_dir in self._written:
            if ms_dir not in self._analysed:
                _analysis.analyse_dir(ms_dir, pretty, step_list)
                self._analysed.add(ms_dir)


class profile(_Base):  # noqa: N801 -- MindSpore's name
    r"""Profile a MindSpore network: per-op and per-step timings of PyNative and compiled runs, written as a Chrome
    trace (``trace_view.json``, opened by Perfetto and TensorBoard's trace viewer) and MindSpore's summary tables
    (``kernel_details.csv``, ``op_statistic.csv``, ``step_trace_time.csv``) under
    ``<dir>/<host>_<pid>_<time>_ascend_ms/ASCEND_PROFILER_OUTPUT/``. Ops are named by MindSpore's scopes
    (``Default/fc-Dense/MatMul-op3``).

    Args:
        activities (list[ProfilerActivity]): Default ``[ProfilerActivity.CPU, ProfilerActivity.NPU]``.
        with_stack, profile_memory, data_process, parallel_strategy, hbm_ddr, pcie, sync_enable, record_shapes
            (bool): MindSpore's collection switches (device counters have nothing to collect on CPU).
        start_profile (bool): start at once. Default ``True``.
        schedule (Callable): step -> `ProfilerAction` (see `schedule`); default: record every step.
        on_trace_ready (Callable): called with the profiler when a cycle is recorded (see
            `tensorboard_trace_handler`); default: the data is written under ``./data`` at `stop`.
        experimental_config (_ExperimentalConfig): further options.

    >>> import mindseed as ms
    >>> from mindseed.profiler import profile, schedule, tensorboard_trace_handler
    >>> net = ms.nn.Dense(2, 2)
    >>> with profile(schedule=schedule(wait=0, active=1),
    ...              on_trace_ready=tensorboard_trace_handler("./data")) as prof:   # doctest: +SKIP
    ...     for _ in range(3):
    ...         net(ms.ops.ones((1, 2)))
    ...         prof.step()
    """

    def __init__(self, activities=None, with_stack=False, profile_memory=False, data_process=False,
                 parallel_strategy=False, start_profile=True, hbm_ddr=False, pcie=False, sync_enable=True,
                 record_shapes=False, schedule=None, on_trace_ready=None, experimental_config=None):
        self.with_stack, self.profile_memory, self.record_shapes = with_stack, profile_memory, record_shapes
        self.data_process, self.parallel_strategy, self.sync_enable = data_process, parallel_strategy, sync_enable
        self.hbm_ddr, self.pcie = hbm_ddr, pcie
        self._setup("./data", activities, schedule, on_trace_ready, start_profile, experimental_config)


_PROFILER_OPTIONS = ("output_path", "profiler_level", "activities", "schedule", "on_trace_ready", "profile_memory",
                     "aic_metrics", "with_stack", "data_simplification", "l2_cache", "hbm_ddr", "pcie",
                     "data_process", "parallel_strategy", "sync_enable", "start_profile", "record_shapes", "mstx",
                     "export_type", "op_time", "profile_communication", "host_sys", "sys_io", "sys_interconnection",
                     "mstx_domain_include", "mstx_domain_exclude", "profile_framework", "timeline_limit")


class Profiler(_Base):
    r"""MindSpore's older profiler interface (`mindspore.Profiler`, deprecated in 2.10 for `profile`): the same
    recording, written under `output_path` and analysed by `analyse()`.

    Args:
        output_path (str): Default ``"./data"``.
        start_profile (bool): Default ``True``.
        schedule, on_trace_ready, activities: as for `profile`.
        **kwargs: MindSpore's other options (profiler_level, aic_metrics, profile_memory, with_stack, ...).

    >>> import mindseed as ms
    >>> prof = ms.Profiler(output_path="./data")   # doctest: +SKIP
    >>> ms.nn.ReLU()(ms.ops.ones((2,)))            # doctest: +SKIP
    >>> prof.analyse()                             # doctest: +SKIP
    """

    def __init__(self, **kwargs) -> None:
        for key in kwargs:
            if key not in _PROFILER_OPTIONS:
                logger.warning(f"For 'Profiler', the parameter '{key}' is not supported; it is ignored.")
        output_path = kwargs.get("output_path", "./data")
        if not isinstance(output_path, str):
            raise TypeError(f"For 'Profiler', the parameter 'output_path' must be str, but got "
                            f"{type(output_path).__name__}.")
        config = _ExperimentalConfig(profiler_level=kwargs.get("profiler_level", ProfilerLevel.Level0),
                                     data_simplification=kwargs.get("data_simplification", True),
                                     mstx=kwargs.get("mstx", False))
        self._setup(output_path, kwargs.get("activities"), kwargs.get("schedule"), kwargs.get("on_trace_ready"),
                    kwargs.get("start_profile", True), config)

    def stop(self) -> None:
        """Stop collecting (with a schedule, steps are ended by `step()`; see `profile.stop`)."""
        _Base.stop(self)

    def step(self) -> None:
        """Mark the end of a step (only with a schedule, as in MindSpore)."""
        if not self._schedule_set:
            logger.error("With no schedule in the Profiler, step takes no effect!")
            return
        _Base.step(self)

    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync") -> None:
        """Stop collecting and write the deliverables of everything recorded (trace_view.json and the csv
        tables under ASCEND_PROFILER_OUTPUT). With a schedule, `on_trace_ready` analyses instead."""
        if mode not in ("sync", "async"):
            raise ValueError(f"For 'Profiler.analyse', the parameter 'mode' must be one of ['sync', 'async'], but "
                             f"got {mode!r}.")
        if offline_path:
            analyse(offline_path, pretty=pretty, step_list=step_list)
            return
        self._analyse_written(pretty, step_list)

    @classmethod
    def offline_analyse(cls, path: str, pretty=False, step_list=None, data_simplification=True) -> None:
        """Analyse data written earlier (a ``*_ascend_ms`` directory or a directory holding them)."""
        analyse(path, pretty=pretty, step_list=step_list, data_simplification=data_simplification)

    def op_analyse(self, op_name, device_id=None):
        """The recorded timings of the primitives named `op_name` (a type such as ``"MatMul"``, or a list):
        a JSON string mapping each type to its kernels' full names, call counts and total/average times (us).

        Raises:
            TypeError: `op_name` is not a non-empty str or list, or `device_id` is not an int.
        """
        if device_id is not None and (not isinstance(device_id, int) or isinstance(device_id, bool)):
            raise TypeError(f"For 'Profiler.op_analyse()', the parameter device_id must be int, but got type "
                            f"{type(device_id)}")
        if not isinstance(op_name, (str, list)):
            raise TypeError(f"For 'Profiler.op_analyse()', the parameter op_name must be str or list, but got type "
                            f"{type(op_name)}")
        if not op_name:
            raise TypeError("For 'Profiler.op_analyse()', the parameter op_name cannot be None.")
        wanted = [op_name] if isinstance(op_name, str) else list(op_name)
        ops = [o for rec in self._pending for o in rec.ops]
        for ms_dir in self._written:
            with open(os.path.join(ms_dir, _analysis.FRAMEWORK_DIR, _analysis.RAW_FILE), encoding="utf-8") as f:
                ops.extend(json.load(f)["ops"])
        if self._recorder is not None:
            ops.extend(self._recorder.ops)
        result = {}
        for kind in wanted:
            per_name = {}
            for op_type, name, t0, t1, _ in ops:
                if op_type == kind:
                    per_name.setdefault(name, []).append((t1 - t0) / 1000.0)
            result[kind] = [{"op_name": name, "op_type": kind, "op_exe_times": len(d),
                             "op_total_time(us)": round(sum(d), 3), "op_avg_time(us)": round(sum(d) / len(d), 3)}
                            for name, d in per_name.items()]
        return json.dumps(result)


def analyse(profiler_path: str, max_process_number: int = None, pretty=False, step_list=None,
            data_simplification=True):
    """Analyse recorded data offline: `profiler_path` is a ``*_ascend_ms`` directory or a directory holding them.

    Raises:
        ValueError: no ``*_ascend_ms`` directory with recorded data is there.
    """
    path = os.path.realpath(profiler_path)
    dirs = [path] if path.endswith("_ascend_ms") else sorted(
        os.path.join(path, d) for d in (os.listdir(path) if os.path.isdir(path) else []) if d.endswith("_ascend_ms"))
    dirs = [d for d in dirs if os.path.isfile(os.path.join(d, _analysis.FRAMEWORK_DIR, _analysis.RAW_FILE))]
    if not dirs:
        raise ValueError(f"Invalid path: {path}. Expected a *_ascend_ms directory or a parent directory of multiple "
                         f"*_ascend_ms holding recorded data.")
    for ms_dir in dirs:
        _analysis.analyse_dir(ms_dir, pretty, step_list)


def _checked_activity(a):
    if not isinstance(a, ProfilerActivity):
        raise TypeError(f"For 'profile', each of 'activities' must be a ProfilerActivity, but got {a!r}.")
    return a


def _new_ms_dir(dir_name, worker_name):
    worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
    for _ in range(1000):
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S%f")[:-3]
        path = os.path.join(os.path.abspath(dir_name), f"{worker}_{stamp}_ascend_ms")
        if not os.path.exists(path):
            os.makedirs(path)
            return path
        time.sleep(0.001)       # a cycle written in the same millisecond: the next stamp
    raise RuntimeError(f"For 'profile', no new output directory could be made under {dir_name!r}.")
